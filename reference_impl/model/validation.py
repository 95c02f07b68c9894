"""The apimachinery name and label checks, with upstream's error messages (one copy, used by the
pod-request helpers, the configuration's argument validation, the node selectors and CEL's
Format library, dra/cel_format.py, with validation.go's "characters" and IsDNS1035Label).

Upstream (apimachinery v0.37.2, the pinned release's): ``pkg/util/validation/validation.go``
(IsQualifiedName, IsValidLabelValue, IsDNS1123Label, IsDNS1123Subdomain; the first two are
aliases of ``content.IsLabelKey`` / ``content.IsLabelValue``) and
``pkg/api/validate/content/{kube,dns,errors}.go`` (the checks and MaxLenError, EmptyError,
RegexError). Each check returns upstream's list of messages: empty means valid. Lengths are
``len(string)`` in Go, i.e. bytes; the patterns are anchored at both ends (Go's ``$`` does not
match before a trailing newline, so ``fullmatch``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = [
    "is_dns1035_label",
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "is_qualified_name",
    "is_valid_label_value",
    "max_len_characters_error",
    "max_len_error",
    "regex_error",
]

_LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_KEY_ERR = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and "
    "end with an alphanumeric character"
)
_LABEL_KEY_MAX_LENGTH = 63
_LABEL_KEY_RE = re.compile(_LABEL_KEY_FMT)

_LABEL_VALUE_FMT = "(" + _LABEL_KEY_FMT + ")?"
_LABEL_VALUE_ERR = (
    "a valid label must be an empty string or consist of alphanumeric characters, "
    "'-', '_' or '.', and must start and end with an alphanumeric character"
)
_LABEL_VALUE_MAX_LENGTH = 63
_LABEL_VALUE_RE = re.compile(_LABEL_VALUE_FMT)

_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_LABEL_ERR = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric "
    "characters or '-', and must start and end with an alphanumeric character"
)
_DNS1123_LABEL_MAX_LENGTH = 63
_DNS1123_LABEL_RE = re.compile(_DNS1123_LABEL_FMT)

_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1123_SUBDOMAIN_ERR = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
    "characters, '-' or '.', and must start and end with an alphanumeric "
    "character"
)
_DNS1123_SUBDOMAIN_MAX_LENGTH = 253
_DNS1123_SUBDOMAIN_RE = re.compile(_DNS1123_SUBDOMAIN_FMT)

_DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
_DNS1035_LABEL_ERR = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or "
    "'-', start with an alphabetic character, and end with an alphanumeric "
    "character"
)
_DNS1035_LABEL_RE = re.compile(_DNS1035_LABEL_FMT)


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """``content.RegexError`` (with upstream's ``', '`` before each `` or ``)."""
    if not examples:
        return msg + " (regex used for validation is '" + fmt + "')"
    msg += " (e.g. "
    for i, example in enumerate(examples):
        if i > 0:
            msg += " or "
        msg += "'" + example + "', "
    return msg + "regex used for validation is '" + fmt + "')"


def max_len_error(length: int) -> str:
    """``content.MaxLenError``."""
    return f"must be no more than {length} bytes"


def max_len_characters_error(length: int) -> str:
    """``validation.MaxLenError`` of pkg/util/validation/validation.go, whose own DNS checks
    (``IsDNS1123Label``, ``IsDNS1123Subdomain``, ``IsDNS1035Label``) say "characters"."""
    return f"must be no more than {length} characters"


def _empty_error() -> str:
    """``content.EmptyError``."""
    return "must be non-empty"


def _too_long(value: str, limit: int) -> bool:
    return len(value.encode()) > limit


def is_dns1123_label(value: str, max_len: Callable[[int], str] = max_len_error) -> list[str]:
    """``IsDNS1123Label``: at most 63 bytes of ``[a-z0-9-]``, alphanumeric at both ends
    (``max_len``: the length error's wording)."""
    errs: list[str] = []
    if _too_long(value, _DNS1123_LABEL_MAX_LENGTH):
        errs.append(max_len(_DNS1123_LABEL_MAX_LENGTH))
    if _DNS1123_LABEL_RE.fullmatch(value) is None:
        if _DNS1123_SUBDOMAIN_RE.fullmatch(value) is not None:
            # a valid subdomain but not a valid label: the length was checked, so it is the dots
            errs.append("must not contain dots")
        else:
            errs.append(regex_error(_DNS1123_LABEL_ERR, _DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errs


def is_dns1123_subdomain(value: str, max_len: Callable[[int], str] = max_len_error) -> list[str]:
    """``IsDNS1123Subdomain``: at most 253 bytes of dot-separated DNS-1123 labels."""
    errs: list[str] = []
    if _too_long(value, _DNS1123_SUBDOMAIN_MAX_LENGTH):
        errs.append(max_len(_DNS1123_SUBDOMAIN_MAX_LENGTH))
    if _DNS1123_SUBDOMAIN_RE.fullmatch(value) is None:
        errs.append(regex_error(_DNS1123_SUBDOMAIN_ERR, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


def is_dns1035_label(value: str) -> list[str]:
    """validation.go ``IsDNS1035Label``: at most 63 bytes, a letter first, alphanumeric last."""
    errs: list[str] = []
    if _too_long(value, _DNS1123_LABEL_MAX_LENGTH):
        errs.append(max_len_characters_error(_DNS1123_LABEL_MAX_LENGTH))
    if _DNS1035_LABEL_RE.fullmatch(value) is None:
        errs.append(regex_error(_DNS1035_LABEL_ERR, _DNS1035_LABEL_FMT, "my-name", "abc-123"))
    return errs


def is_qualified_name(value: str) -> list[str]:
    """``IsQualifiedName`` = ``content.IsLabelKey``: an optional DNS-1123 subdomain prefix and
    '/', then a name of at most 63 bytes."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part " + _empty_error())
        else:
            errs.extend("prefix part " + m for m in is_dns1123_subdomain(prefix))
    else:
        return [
            "a valid label key "
            + regex_error(_LABEL_KEY_ERR, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part " + _empty_error())
    elif _too_long(name, _LABEL_KEY_MAX_LENGTH):
        errs.append("name part " + max_len_error(_LABEL_KEY_MAX_LENGTH))
    if _LABEL_KEY_RE.fullmatch(name) is None:
        errs.append(
            "name part "
            + regex_error(_LABEL_KEY_ERR, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
        )
    return errs


def is_valid_label_value(value: str) -> list[str]:
    """``IsValidLabelValue`` = ``content.IsLabelValue``: empty, or at most 63 bytes of the label
    key charset, alphanumeric at both ends."""
    errs: list[str] = []
    if _too_long(value, _LABEL_VALUE_MAX_LENGTH):
        errs.append(max_len_error(_LABEL_VALUE_MAX_LENGTH))
    if _LABEL_VALUE_RE.fullmatch(value) is None:
        errs.append(regex_error(_LABEL_VALUE_ERR, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs
