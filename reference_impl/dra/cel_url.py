"""The URL library of Kubernetes CEL, with Go's ``net/url`` parsing.

Upstream: ``k8s.io/apiserver/pkg/cel/library/urls.go`` (v0.37.2; ``library.URLs`` is in the
base environment from 1.0, so in every release): ``url``, ``isURL``, ``getScheme``,
``getHost``, ``getHostname``, ``getPort``, ``getEscapedPath``, ``getQuery``; and
``net/url`` of Go 1.26 (``ParseRequestURI``, ``Parse``, ``parse``, ``parseAuthority``,
``parseHost`` with ``urlstrictcolons=1``, ``setPath``, ``EscapedPath``, ``ParseQuery``,
``splitHostPort``, gen_encoding_table.go's ``shouldEscape``), on the UTF-8 bytes as Go does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import celpy.celtypes as ct

from reference_impl.dra.cel_errors import err, no_overload
from reference_impl.dra.cel_netip import AddrError, go_quote, parse_addr

PATH, PATH_SEGMENT, HOST, ZONE, USER_PASSWORD, QUERY_COMPONENT, FRAGMENT = range(7)
_HEX = b"0123456789abcdefABCDEF"


class URLError(ValueError):
    """A ``net/url`` error; ``str()`` is Go's ``Error()``."""


def should_escape(c: int, mode: int) -> bool:
    """``shouldEscape`` (gen_encoding_table.go, which generates the lookup table)."""
    ch = chr(c)
    if ch.isascii() and ch.isalnum():
        return False
    if mode in (HOST, ZONE) and ch in "!$&'()*+,;=:[]<>\"":
        return False
    if ch in "-_.~":
        return False
    if ch in "$&+,/:;=?@":
        if mode == PATH:
            return ch == "?"
        if mode == PATH_SEGMENT:
            return ch in "/;,?"
        if mode == USER_PASSWORD:
            return ch in "@/?:"
        if mode == QUERY_COMPONENT:
            return True
        if mode == FRAGMENT:
            return False
    return not (mode == FRAGMENT and ch in "!()*")


def _text(b: bytes) -> str:
    return b.decode(errors="replace")


def unescape(s: bytes, mode: int) -> bytes:
    """``unescape``: ``%XX`` decoded (``+`` is a space in a query component)."""
    i = 0
    while i < len(s):
        c = s[i]
        if c == 0x25:
            if i + 2 >= len(s) or s[i + 1] not in _HEX or s[i + 2] not in _HEX:
                raise URLError(f"invalid URL escape {go_quote(_text(s[i:i + 3]))}")
            value = int(s[i + 1:i + 3], 16)
            if mode == HOST and value < 0x80 and s[i:i + 3] != b"%25":
                raise URLError(f"invalid URL escape {go_quote(_text(s[i:i + 3]))}")
            if (mode == ZONE and s[i:i + 3] != b"%25" and value != 0x20
                    and should_escape(value, HOST)):
                raise URLError(f"invalid URL escape {go_quote(_text(s[i:i + 3]))}")
            i += 3
            continue
        if mode in (HOST, ZONE) and c < 0x80 and should_escape(c, mode):
            raise URLError(f"invalid character {go_quote(chr(c))} in host name")
        i += 1
    out = bytearray()
    i = 0
    while i < len(s):
        if s[i] == 0x25:
            out.append(int(s[i + 1:i + 3], 16))
            i += 3
            continue
        out.append(0x20 if s[i] == 0x2B and mode == QUERY_COMPONENT else s[i])
        i += 1
    return bytes(out)


def escape(s: bytes, mode: int) -> bytes:
    """``escape`` (for a path: every byte ``shouldEscape`` names as ``%XX``)."""
    out = bytearray()
    for c in s:
        if c == 0x20 and mode == QUERY_COMPONENT:
            out.append(0x2B)
        elif should_escape(c, mode):
            out += b"%%%02X" % c
        else:
            out.append(c)
    return bytes(out)


def _valid_optional_port(port: bytes) -> bool:
    return not port or (port[:1] == b":" and all(0x30 <= b <= 0x39 for b in port[1:]))


def _parse_host(scheme: bytes, host: bytes) -> bytes:
    """``parseHost``: ``host[:port]``, an IP literal in brackets."""
    open_bracket = host.rfind(b"[")
    if open_bracket > 0:
        raise URLError("invalid IP-literal")
    if open_bracket == 0:
        close = host.rfind(b"]")
        if close < 0:
            raise URLError("missing ']' in host")
        colon_port = host[close + 1:]
        if not _valid_optional_port(colon_port):
            raise URLError(f"invalid port {go_quote(_text(colon_port))} after host")
        port = unescape(colon_port, HOST)
        hostname = host[1:close]
        zone = hostname.find(b"%25")
        if zone >= 0:
            name = unescape(hostname[:zone], HOST) + unescape(hostname[zone:], ZONE)
        else:
            name = unescape(hostname, HOST)
        try:
            addr = parse_addr(name.decode(errors="replace"))
        except AddrError as e:
            raise URLError(f"invalid host: {e}") from None
        if addr.is4():
            raise URLError("invalid IP-literal")
        return b"[" + name + b"]" + port
    i = host.find(b":")
    if i != -1:
        last = host.rfind(b":")
        if last != i and scheme not in (b"http", b"https"):
            i = last  # urlstrictcolons (Go 1.26): only http and https keep the first colon
        if not _valid_optional_port(host[i:]):
            raise URLError(f"invalid port {go_quote(_text(host[i:]))} after host")
    return unescape(host, HOST)


_USERINFO = "-._:~!$&'()*+,;=%@"


@dataclass(frozen=True, slots=True)
class URL:
    """The parts of a ``url.URL`` the library reads."""

    scheme: bytes
    host: bytes
    path: bytes
    raw_path: bytes
    raw_query: bytes
    #: for equality only (upstream compares ``String()``): the opaque part, user info, fragment
    rest: tuple[bytes, ...] = ()

    def escaped_path(self) -> str:
        """``EscapedPath``."""
        if self.raw_path and all(c in b"!$&'()*+,;=:@[]%" or not should_escape(c, PATH)
                                 for c in self.raw_path):
            try:
                if unescape(self.raw_path, PATH) == self.path:
                    return _text(self.raw_path)
            except URLError:
                pass
        if self.path == b"*":
            return "*"
        return _text(escape(self.path, PATH))

    def split_host_port(self) -> tuple[str, str]:
        """``splitHostPort``: (hostname without brackets, port)."""
        host, port = self.host, b""
        colon = host.rfind(b":")
        if colon != -1 and _valid_optional_port(host[colon:]):
            host, port = host[:colon], host[colon + 1:]
        if host.startswith(b"[") and host.endswith(b"]"):
            host = host[1:-1]
        return _text(host), _text(port)

    def query(self) -> dict[str, list[str]]:
        """``Query`` (``ParseQuery``, its error dropped)."""
        values: dict[str, list[str]] = {}
        if self.raw_query.count(b"&") + 1 > 10000:
            return values
        for part in self.raw_query.split(b"&") if self.raw_query else ():
            if b";" in part or not part:
                continue
            key, _, value = part.partition(b"=")
            try:
                k, v = unescape(key, QUERY_COMPONENT), unescape(value, QUERY_COMPONENT)
            except URLError:
                continue
            values.setdefault(_text(k), []).append(_text(v))
        return values


def _scheme(raw: bytes) -> tuple[bytes, bytes]:
    """``getScheme``."""
    for i, c in enumerate(raw):
        if 0x61 <= c <= 0x7A or 0x41 <= c <= 0x5A:
            continue
        if 0x30 <= c <= 0x39 or c in b"+-.":
            if i == 0:
                return b"", raw
            continue
        if c == 0x3A:
            if i == 0:
                raise URLError("missing protocol scheme")
            return raw[:i], raw[i + 1:]
        return b"", raw
    return b"", raw


def _parse(raw: bytes, via_request: bool) -> URL:
    """``parse``."""
    if any(c < 0x20 or c == 0x7F for c in raw):
        raise URLError("net/url: invalid control character in URL")
    if not raw and via_request:
        raise URLError("empty url")
    if raw == b"*":
        return URL(b"", b"", b"*", b"", b"")
    scheme, rest = _scheme(raw)
    scheme = scheme.lower()
    query = b""
    if rest.endswith(b"?") and rest.count(b"?") == 1:
        rest = rest[:-1]
    else:
        rest, _, query = rest.partition(b"?")
    if not rest.startswith(b"/"):
        if scheme:
            return URL(scheme, b"", b"", b"", query, (rest,))  # opaque
        if via_request:
            raise URLError("invalid URI for request")
        if b":" in rest.split(b"/", 1)[0]:
            raise URLError("first path segment in URL cannot contain colon")
    host = b""
    user: tuple[bytes, ...] = ()
    if (scheme or (not via_request and not rest.startswith(b"///"))) and rest.startswith(b"//"):
        authority, rest = rest[2:], b""
        if (i := authority.find(b"/")) >= 0:
            authority, rest = authority[:i], authority[i:]
        at = authority.rfind(b"@")
        host = _parse_host(scheme, authority[at + 1:] if at >= 0 else authority)
        if at >= 0:
            userinfo = authority[:at]
            if any(not (c.isascii() and c.isalnum()) and c not in _USERINFO
                   for c in userinfo.decode(errors="replace")):
                raise URLError("net/url: invalid userinfo")
            user = tuple(unescape(part, USER_PASSWORD) for part in userinfo.split(b":", 1))
    path = unescape(rest, PATH)
    return URL(scheme, host, path, b"" if escape(path, PATH) == rest else rest, query, user)


def parse_request_uri(s: str) -> URL:
    """``url.ParseRequestURI`` (an ``*url.Error``: ``parse "<url>": <err>``)."""
    try:
        return _parse(s.encode(), True)
    except URLError as e:
        raise URLError(f"parse {go_quote(s)}: {e}") from None


def parse_url(s: str) -> URL:
    """``url.Parse``: the fragment cut off first."""
    raw, _, fragment = s.encode().partition(b"#")
    try:
        u = _parse(raw, False)
    except URLError as e:
        raise URLError(f"parse {go_quote(_text(raw))}: {e}") from None
    try:
        frag = unescape(fragment, FRAGMENT)
    except URLError as e:
        raise URLError(f"parse {go_quote(s)}: {e}") from None
    return URL(u.scheme, u.host, u.path, u.raw_path, u.raw_query, (*u.rest, b"#" + frag))


def _url(s: Any) -> Any:
    """``stringToUrl``: ``ParseRequestURI`` checks, ``Parse`` builds."""
    if not isinstance(s, str):
        return no_overload("url", s)
    try:
        parse_request_uri(str(s))
        return parse_url(str(s))
    except URLError as e:
        return err(f"URL parse error during conversion from string: {e}")


def _is_url(s: Any) -> Any:
    if not isinstance(s, str):
        return no_overload("isURL", s)
    try:
        parse_request_uri(str(s))
    except URLError:
        return ct.BoolType(False)
    return ct.BoolType(True)


def _getter(name: str, get: Callable[[URL], Any]) -> Callable[[Any], Any]:
    def f(u: Any) -> Any:
        if not isinstance(u, URL):
            return no_overload(name, u)
        return get(u)

    return f


def _query(u: URL) -> Any:
    return ct.MapType({ct.StringType(k): ct.ListType([ct.StringType(x) for x in v])
                       for k, v in u.query().items()})


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "url": _url, "isURL": _is_url,
    "getScheme": _getter("getScheme", lambda u: ct.StringType(_text(u.scheme))),
    "getHost": _getter("getHost", lambda u: ct.StringType(_text(u.host))),
    "getHostname": _getter("getHostname", lambda u: ct.StringType(u.split_host_port()[0])),
    "getPort": _getter("getPort", lambda u: ct.StringType(u.split_host_port()[1])),
    "getEscapedPath": _getter("getEscapedPath", lambda u: ct.StringType(u.escaped_path())),
    "getQuery": _getter("getQuery", _query),
}
