"""Go's ``regexp`` for CEL (cel-go's ``matches`` and its regex literal validator, apiserver
``pkg/cel/library/regex.go``'s ``find`` and ``findAll``), on RE2 (``google-re2``).

Go's ``regexp/syntax`` (Go 1.26, ``parse.go``) is a port of RE2's parser: the same syntax,
leftmost-first semantics and errors in the same order, with other words. ``compile_go``
rewrites where they differ before RE2 compiles (``\\C``; Unicode class names looked up by
``canonicalName`` in Go 1.26's tables, ``cel_regex_names.json``; ``(?<`` always a named
capture; repeat counts past 1000 or 1e8; nesting past 1000) and restates RE2's errors in
``regexp/syntax``'s ``Error`` text: ``error parsing regexp: missing closing ): `(```.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import re2

PREFIX = "error parsing regexp: "
_OPTIONS = re2.Options()
_OPTIONS.log_errors = False
_OPTIONS.max_mem = 1 << 30  # Go bounds the program by maxSize (128 MiB of instructions)
_MAX_REPEAT = 1000  # parse.go: min > 1000 || max > 1000 is ErrInvalidRepeatSize
_MAX_HEIGHT = 1000  # parse.go maxHeight: ErrNestingDepth

#: RE2's ``RegexpErrorCode`` texts and regexp/syntax's ``ErrorCode`` texts
_CODES = {
    "missing ]": "missing closing ]",
    "missing )": "missing closing )",
    "unexpected )": "unexpected )",
    "trailing \\": "trailing backslash at end of expression",
    "no argument for repetition operator": "missing argument to repetition operator",
    "invalid repetition size": "invalid repeat count",
    "bad repetition operator": "invalid nested repetition operator",
    "invalid perl operator": "invalid or unsupported Perl syntax",
    "invalid named capture group": "invalid named capture",
    "invalid escape sequence": "invalid escape sequence",
    "invalid character class": "invalid character class",
    "invalid character class range": "invalid character class range",
}


class GoRegexError(ValueError):
    """An invalid pattern: ``str()`` is Go's ``regexp.Compile`` error."""


def canonical_name(name: str) -> str:
    """parse.go ``canonicalName``: the first letter upper case, the others lower case, no
    underscores, spaces or hyphens."""
    out, first = [], True
    for c in name:
        if c in "_- ":
            continue
        if first:
            out.append(c.upper() if "a" <= c <= "z" else c)
            first = False
        else:
            out.append(c.lower() if "A" <= c <= "Z" else c)
    return "".join(out)


_ASSIGNED = "\\p{L}\\p{M}\\p{N}\\p{P}\\p{S}\\p{Z}\\p{C}"  # RE2 has no Cn


def _tables() -> dict[str, tuple[str, str, str, str]]:
    """parse.go ``unicodeTable``: canonical name -> the RE2 text of the class inside ``[]``
    and alone, then negated inside ``[]`` and alone, for each name Go accepts. Cn has no RE2
    text inside ``[]`` (nor ``Any`` negated): the noncharacter U+FFFF stands for it."""
    data = json.loads(Path(__file__).with_name("cel_regex_names.json").read_text())
    out: dict[str, tuple[str, str, str, str]] = {}

    def several(inside: str, negated_inside: str) -> tuple[str, str, str, str]:
        return (inside, f"[{inside}]", negated_inside, f"[^{inside}]")

    for key in [*data["categories"], *data["scripts"]]:
        one, other = f"\\p{{{key}}}", f"\\P{{{key}}}"
        out[key] = (one, one, other, other)
    out["LC"] = out["Lc"] = several("\\p{Lu}\\p{Ll}\\p{Lt}", "\\P{L}\\p{Lm}\\p{Lo}")
    out["Cn"] = ("\\x{FFFF}", f"[^{_ASSIGNED}]", _ASSIGNED, f"[{_ASSIGNED}]")
    for alias, actual in data["aliases"].items():
        out.setdefault(canonical_name(alias), out[actual])
    out["Any"] = several("\\x{0}-\\x{10FFFF}", "\\x{FFFF}")
    out["Assigned"] = several(_ASSIGNED, "\\x{FFFF}")
    out["Ascii"] = several("\\x{0}-\\x{7F}", "\\x{80}-\\x{10FFFF}")
    return out


_TABLES = _tables()


class _Rewriter:
    """The pattern RE2 compiles as Go would: Go-only errors become classes RE2 refuses
    (``\\p{Zzgo<n>}``, each standing for Go's error), Go-only syntax RE2's equivalent."""

    def __init__(self, pattern: str) -> None:
        self.p = pattern
        self.out: list[str] = []
        self.errors: list[str] = []  # Go's error (code: arg) of each sentinel
        self.at: list[int] = []  # the original position of each rewritten character

    def emit(self, text: str, start: int, end: int) -> None:
        """``text`` for the original ``p[start:end]``."""
        self.out.append(text)
        self.at.extend(start + min(k, end - start) for k in range(len(text)))

    def copy(self, start: int, end: int) -> None:
        self.emit(self.p[start:end], start, end)

    def sentinel(self, go_error: str, start: int, end: int) -> None:
        self.emit(f"\\p{{Zzgo{len(self.errors)}}}", start, end)
        self.errors.append(go_error)

    def original(self, arg: str, rewritten: str) -> str:
        """The original text of an error's argument, a part of the rewritten pattern: its
        tail (the closing errors), or where the original reads the same, or the first."""
        found = [k for k in range(len(rewritten)) if rewritten.startswith(arg, k)]
        if not found:
            return arg
        k = len(rewritten) - len(arg)
        if not rewritten.endswith(arg):
            same = [k for k in found if self.p.startswith(arg, self.at[k])]
            k = (same or found)[0]
        end = k + len(arg)
        return self.p[self.at[k] : self.at[end] if end < len(self.at) else len(self.p)]

    def run(self) -> str:
        p, i, n = self.p, 0, len(self.p)
        depth = 0
        in_class, class_start = False, 0
        while i < n:
            c = p[i]
            if c == "\\" and i + 1 < n:
                i = self.escape(i, in_class)
                continue
            if in_class:
                if c == "[" and p.startswith("[:", i) and (end := p.find(":]", i + 2)) >= 0:
                    self.copy(i, end + 2)
                    i = end + 2
                    continue
                if c == "]" and i > class_start:
                    in_class = False
            elif c == "[":
                in_class = True
                class_start = i + 1 + (p.startswith("^", i + 1))
                class_start += p.startswith("]", class_start)
            elif c == "(":
                depth += 1
                if depth >= _MAX_HEIGHT:
                    self.sentinel(f"expression nests too deeply: `{p}`", i, n)
                    break
                if p.startswith("(?", i) and self.named(i):
                    break
            elif c == ")":
                depth = max(depth - 1, 0)
            elif c == "{" and (j := self.repeat(i)) > i:
                i = j
                continue
            self.copy(i, i + 1)
            i += 1
        return "".join(self.out)

    def escape(self, i: int, in_class: bool) -> int:
        p = self.p
        c = p[i + 1]
        end = i + 2
        if c == "Q" and not in_class:
            end = p.find("\\E", i + 2)
            end = len(p) if end < 0 else end + 2
        elif c == "C":
            self.sentinel("invalid escape sequence: `\\C`", i, i + 2)
            return i + 2
        elif c == "x" and p.startswith("{", i + 2):
            end = p.find("}", i + 3) + 1
            if end == 0:  # RE2 says "invalid UTF-8" at the end of the pattern
                self.sentinel(f"invalid escape sequence: `{p[i:]}`", i, len(p))
                return len(p)
        elif c in "pP":
            return self.unicode_class(i, in_class)
        self.copy(i, end)
        return end

    def unicode_class(self, i: int, in_class: bool) -> int:
        """parse.go ``parseUnicodeClass``: ``\\pN``, ``\\p{Name}``, ``\\p{^Name}``."""
        p = self.p
        end = p.find("}", i + 2) if p.startswith("{", i + 2) else i + 2
        if i + 2 >= len(p) or end < 0:
            self.copy(i, len(p))  # RE2 refuses it alike
            return len(p)
        name = p[i + 3 : end] if p[i + 2] == "{" else p[i + 2]
        negated = p[i + 1] == "P"
        if name.startswith("^"):
            negated, name = not negated, name[1:]
        table = _TABLES.get(canonical_name(name))
        if table is None:
            self.sentinel(f"invalid character class range: `{p[i : end + 1]}`", i, end + 1)
            return end + 1
        if table[0] == f"\\p{{{name}}}":  # RE2 reads it alike
            self.copy(i, end + 1)
            return end + 1
        text = table[2 * negated + (not in_class)]
        self.emit(text, i, end + 1)
        return end + 1

    def named(self, i: int) -> bool:
        """parse.go ``parsePerlFlags``' named captures: True when Go fails there."""
        t = self.p[i:]
        starts_p = len(t) > 4 and t[2] == "P" and t[3] == "<"
        if not (starts_p or (len(t) > 3 and t[2] == "<")):
            return False
        end = t.find(">")
        if end < 0:
            self.sentinel(f"invalid named capture: `{t}`", i, len(self.p))
            return True
        name = t[4 if starts_p else 3 : end]
        if name and all(c == "_" or c.isascii() and c.isalnum() for c in name):
            return False
        self.sentinel(f"invalid named capture: `{t[: end + 1]}`", i, len(self.p))
        return True

    def repeat(self, i: int) -> int:
        """parse.go ``parseRepeat``: a repeat past 1000 (or past 1e8, which RE2 reads as a
        literal), or whose max is below its min, is Go's ErrInvalidRepeatSize, which Go
        reports before a nested repeat; the index after it, else ``i``."""
        p, j = self.p, i + 1
        values: list[int] = []
        for part in range(2):
            k = j
            while k < len(p) and p[k].isascii() and p[k].isdigit():
                k += 1
            digits = p[j:k]
            if (not digits and part == 0) or (len(digits) > 1 and digits[0] == "0"):
                return i
            if digits:
                values.append(int(digits))
            j = k
            if part == 0 and p.startswith(",", j):
                j += 1
                continue
            break
        if not p.startswith("}", j) or (
            all(v <= _MAX_REPEAT for v in values) and values == sorted(values)
        ):
            return i
        self.sentinel(f"invalid repeat count: `{p[i : j + 1]}`", i, j + 1)
        return j + 1


def _go_error(rw: _Rewriter, rewritten: str, e: Exception) -> GoRegexError:
    raw = e.args[0] if e.args else b""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    code, _, arg = text.partition(": ")
    if code == "invalid character class range" and arg.startswith("\\p{Zzgo"):
        return GoRegexError(PREFIX + rw.errors[int(arg[7:-1])])
    arg = "" if code == "trailing \\" else rw.original(arg, rewritten)
    return GoRegexError(f"{PREFIX}{_CODES.get(code, code)}: `{arg}`")


@functools.lru_cache(maxsize=1024)
def _compile(pattern: str) -> Any:
    rw = _Rewriter(pattern)
    rewritten = rw.run()
    try:
        return re2.compile(rewritten, _OPTIONS)
    except re2.error as e:
        return _go_error(rw, rewritten, e)


def compile_go(pattern: str) -> Any:
    """``regexp.Compile(pattern)``: an RE2 regexp that matches as Go's; raises
    :class:`GoRegexError` with Go's message."""
    rx = _compile(pattern)
    if isinstance(rx, GoRegexError):
        raise rx
    return rx


def find_all(rx: Any, s: str, n: int) -> list[str]:
    """``Regexp.FindAllString(s, n)`` (regexp.go ``allMatches``): after an empty match the
    search resumes one rune on; an empty match right after the previous match is skipped."""
    out: list[str] = []
    pos, prev_end = 0, -1
    while (n < 0 or len(out) < n) and pos <= len(s):
        m = rx.search(s, pos)
        if m is None:
            break
        start, end = m.span()
        accept = True
        if end == pos:  # an empty match (at pos)
            accept = start != prev_end
            pos += 1
        else:
            pos = end
        prev_end = end
        if accept:
            out.append(s[start:end])
    return out
