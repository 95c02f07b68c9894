"""The IP and CIDR libraries of Kubernetes CEL, with Go's ``net/netip`` parsing.

Upstream: ``k8s.io/apiserver/pkg/cel/library/ip.go`` and ``cidr.go`` (v0.37.2; in the base
environment since 1.30, so in every supported release), the ``IP``/``CIDR`` values of
``k8s.io/apiserver/pkg/cel/ip.go``/``cidr.go``, and ``net/netip`` of the Go toolchain
(``ParseAddr``, ``parseIPv4Fields``, ``parseIPv6``, ``ParsePrefix``, the ``Is*`` predicates,
``Addr.String``), whose error wording the library passes on (``parseAddrError``,
``parsePrefixError``).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import celpy.celtypes as ct

from reference_impl.dra.cel_errors import err, no_overload


class AddrError(ValueError):
    """A ``netip`` parse error; ``str()`` is Go's ``Error()``."""


def go_quote(s: str) -> str:
    """``strconv.Quote`` for the strings these messages quote (printable runes kept)."""
    out = []
    for c in s:
        if c in '"\\':
            out.append("\\" + c)
        elif c in "\a\b\f\n\r\t\v":
            out.append("\\" + "abfnrtv"["\a\b\f\n\r\t\v".index(c)])
        elif c.isprintable():
            out.append(c)
        elif ord(c) < 0x80:
            out.append(f"\\x{ord(c):02x}")
        elif ord(c) <= 0xFFFF:
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(f"\\U{ord(c):08x}")
    return '"' + "".join(out) + '"'


def _addr_error(text: str, msg: str, at: str = "") -> AddrError:
    """``parseAddrError.Error``."""
    if at:
        return AddrError(f"ParseAddr({go_quote(text)}): {msg} (at {go_quote(at)})")
    return AddrError(f"ParseAddr({go_quote(text)}): {msg}")


@dataclass(frozen=True, slots=True)
class Addr:
    """A ``netip.Addr``: 4 or 16 bytes as an integer, and the IPv6 zone."""

    value: int
    bits: int  # 32 or 128
    zone: str = ""

    def is4(self) -> bool:
        return self.bits == 32

    def is4in6(self) -> bool:
        return self.bits == 128 and self.value >> 32 == 0xFFFF

    def __str__(self) -> str:
        """``Addr.String``: dotted IPv4, RFC 5952 IPv6 (the longest run of two or more zero
        groups compressed, the first of equal runs), then ``%zone``."""
        if self.is4():
            return str(ipaddress.IPv4Address(self.value))
        text = ipaddress.IPv6Address(self.value).compressed
        return f"{text}%{self.zone}" if self.zone else text

    def _octet(self, i: int) -> int:
        return (self.value >> (8 * (3 - i))) & 0xFF

    def _group(self, i: int) -> int:
        return (self.value >> (16 * (7 - i))) & 0xFFFF

    def is_unspecified(self) -> bool:
        return self.value == 0

    def is_loopback(self) -> bool:
        return self._octet(0) == 127 if self.is4() else self.value == 1

    def is_multicast(self) -> bool:
        return self._octet(0) & 0xF0 == 0xE0 if self.is4() else self.value >> 120 == 0xFF

    def is_link_local_unicast(self) -> bool:
        if self.is4():
            return self._octet(0) == 169 and self._octet(1) == 254
        return self._group(0) & 0xFFC0 == 0xFE80

    def is_link_local_multicast(self) -> bool:
        if self.is4():
            return self._octet(0) == 224 and self._octet(1) == 0 and self._octet(2) == 0
        return self._group(0) & 0xFF0F == 0xFF02

    def is_global_unicast(self) -> bool:
        if self.is4() and self.value in (0, 0xFFFFFFFF):
            return False
        return not (
            self.value == 0
            or self.is_loopback()
            or self.is_multicast()
            or self.is_link_local_unicast()
        )


def _parse_ipv4_fields(text: bytes, whole: str, off: int, end: int) -> list[int]:
    """``parseIPv4Fields`` (on the UTF-8 bytes, as Go indexes strings)."""
    s = text[off:end]
    fields: list[int] = []
    val = dig_len = 0
    for i, c in enumerate(s):
        if 0x30 <= c <= 0x39:
            if dig_len == 1 and val == 0:
                raise _addr_error(whole, "IPv4 field has octet with leading zero")
            val = val * 10 + c - 0x30
            dig_len += 1
            if val > 255:
                raise _addr_error(whole, "IPv4 field has value >255")
        elif c == 0x2E:
            if i == 0 or i == len(s) - 1 or s[i - 1] == 0x2E:
                raise _addr_error(
                    whole, "IPv4 field must have at least one digit", s[i:].decode(errors="replace")
                )
            if len(fields) == 3:
                raise _addr_error(whole, "IPv4 address too long")
            fields.append(val)
            val = dig_len = 0
        else:
            raise _addr_error(whole, "unexpected character", s[i:].decode(errors="replace"))
    if len(fields) < 3:
        raise _addr_error(whole, "IPv4 address too short")
    return [*fields, val]


def _parse_ipv6(whole: str) -> Addr:
    """``parseIPv6``."""
    raw = whole.encode()
    s = raw
    zone = b""
    if b"%" in s:
        s, zone = s[: s.index(b"%")], s[s.index(b"%") + 1 :]
        if not zone:
            raise _addr_error(whole, "zone must be a non-empty string")

    def at(rest: bytes) -> str:
        return rest.decode(errors="replace")

    ip = [0] * 16
    ellipsis = -1
    if len(s) >= 2 and s[:2] == b"::":
        ellipsis = 0
        s = s[2:]
        if not s:
            return Addr(0, 128, zone.decode())
    i = 0
    while i < 16:
        off = acc = 0
        while off < len(s):
            c = s[off]
            if 0x30 <= c <= 0x39:
                acc = (acc << 4) + c - 0x30
            elif 0x61 <= c <= 0x66:
                acc = (acc << 4) + c - 0x61 + 10
            elif 0x41 <= c <= 0x46:
                acc = (acc << 4) + c - 0x41 + 10
            else:
                break
            if off > 3:
                raise _addr_error(whole, "each group must have 4 or less digits", at(s))
            if acc > 0xFFFF:
                raise _addr_error(whole, "IPv6 field has value >=2^16", at(s))
            off += 1
        if off == 0:
            raise _addr_error(
                whole, "each colon-separated field must have at least one digit", at(s)
            )
        if off < len(s) and s[off] == 0x2E:
            if ellipsis < 0 and i != 12:
                raise _addr_error(
                    whole,
                    "embedded IPv4 address must replace the final 2 fields of the address",
                    at(s),
                )
            if i + 4 > 16:
                raise _addr_error(
                    whole,
                    "too many hex fields to fit an embedded IPv4 at the end of the address",
                    at(s),
                )
            end = len(raw) - (len(zone) + 1 if zone else 0)
            ip[i : i + 4] = _parse_ipv4_fields(raw, whole, end - len(s), end)
            s = b""
            i += 4
            break
        ip[i], ip[i + 1] = acc >> 8, acc & 0xFF
        i += 2
        s = s[off:]
        if not s:
            break
        if s[0] != 0x3A:
            raise _addr_error(whole, "unexpected character, want colon", at(s))
        if len(s) == 1:
            raise _addr_error(whole, "colon must be followed by more characters", at(s))
        s = s[1:]
        if s[0] == 0x3A:
            if ellipsis >= 0:
                raise _addr_error(whole, "multiple :: in address", at(s))
            ellipsis = i
            s = s[1:]
            if not s:
                break
    if s:
        raise _addr_error(whole, "trailing garbage after address", at(s))
    if i < 16:
        if ellipsis < 0:
            raise _addr_error(whole, "address string too short")
        n = 16 - i
        ip = ip[:ellipsis] + [0] * n + ip[ellipsis:i]
    elif ellipsis >= 0:
        raise _addr_error(whole, "the :: must expand to at least one field of zeros")
    return Addr(int.from_bytes(bytes(ip), "big"), 128, zone.decode())


def parse_addr(s: str) -> Addr:
    """``netip.ParseAddr``: the first ``.``, ``:`` or ``%`` decides the family."""
    for c in s:
        if c == ".":
            fields = _parse_ipv4_fields(s.encode(), s, 0, len(s.encode()))
            return Addr(int.from_bytes(bytes(fields), "big"), 32)
        if c == ":":
            return _parse_ipv6(s)
        if c == "%":
            raise _addr_error(s, "missing IPv6 address")
    raise _addr_error(s, "unable to parse IP")


@dataclass(frozen=True, slots=True)
class Prefix:
    """A ``netip.Prefix`` (the address is kept unmasked, as ``ParsePrefix`` keeps it)."""

    addr: Addr
    length: int

    def __str__(self) -> str:
        return f"{self.addr}/{self.length}"

    def masked(self) -> Prefix:
        host = self.addr.bits - self.length
        return Prefix(Addr(self.addr.value >> host << host, self.addr.bits), self.length)

    def contains(self, ip: Addr) -> bool:
        """``Prefix.Contains``: the same family and the same masked bits (zoned: false)."""
        if ip.bits != self.addr.bits or ip.zone:
            return False
        host = self.addr.bits - self.length
        return ip.value >> host == self.addr.value >> host

    def overlaps(self, other: Prefix) -> bool:
        """``Prefix.Overlaps``."""
        if other.addr.bits != self.addr.bits:
            return False
        host = self.addr.bits - min(self.length, other.length)
        return self.addr.value >> host == other.addr.value >> host


def parse_prefix(s: str) -> Prefix:
    """``netip.ParsePrefix``."""

    def fail(msg: str) -> AddrError:
        return AddrError(f"netip.ParsePrefix({go_quote(s)}): {msg}")

    i = s.rfind("/")
    if i < 0:
        raise fail("no '/'")
    try:
        ip = parse_addr(s[:i])
    except AddrError as e:
        raise fail(str(e)) from None
    if not ip.is4() and ip.zone:
        raise fail("IPv6 zones cannot be present in a prefix")
    bits_str = s[i + 1 :]
    if len(bits_str) > 1 and not "1" <= bits_str[0] <= "9":
        raise fail(f"bad bits after slash: {go_quote(bits_str)}")
    if not bits_str or not (bits_str.isascii() and bits_str.isdigit()):
        raise fail(f"bad bits after slash: {go_quote(bits_str)}")
    bits = int(bits_str)
    if bits > ip.bits:
        raise fail("prefix length out of range")
    return Prefix(ip, bits)


# --- the CEL functions (k8s.io/apiserver/pkg/cel/library/ip.go, cidr.go) ---


def parse_ip_addr(raw: str) -> Addr:
    """``parseIPAddr`` (ip.go): no zone, no IPv4-mapped IPv6 address."""
    try:
        addr = parse_addr(raw)
    except AddrError as e:
        raise AddrError(
            f"IP Address {go_quote(raw)} parse error during conversion from string: {e}"
        ) from None
    if addr.zone:
        raise AddrError(f"IP address {go_quote(raw)} with zone value is not allowed")
    if addr.is4in6():
        raise AddrError(f"IPv4-mapped IPv6 address {go_quote(raw)} is not allowed")
    return addr


def parse_cidr(raw: str) -> Prefix:
    """``parseCIDR`` (cidr.go)."""
    try:
        prefix = parse_prefix(raw)
    except AddrError as e:
        raise AddrError(f"network address parse error during conversion from string: {e}") from None
    if prefix.addr.is4in6():
        raise AddrError(f"IPv4-mapped IPv6 address {go_quote(raw)} is not allowed")
    return prefix


def _ip(arg: Any) -> Any:
    """``ip(string)`` (``stringToIP``) and ``<cidr>.ip()`` (``cidrToIP``)."""
    if isinstance(arg, Prefix):
        return arg.addr
    if not isinstance(arg, str):
        return no_overload("ip", arg)
    try:
        return parse_ip_addr(arg)
    except AddrError as e:
        return err(str(e))


def _cidr(arg: Any) -> Any:
    """``cidr(string)`` (``stringToCIDR``: the parse error is wrapped twice, as upstream)."""
    if not isinstance(arg, str):
        return no_overload("cidr", arg)
    try:
        return parse_cidr(arg)
    except AddrError as e:
        return err(f"network address parse error during conversion from string: {e}")


def _is(name: str, parse: Callable[[str], Any]) -> Callable[[Any], Any]:
    """``isIP``/``isCIDR``/``ip.isCanonical``."""

    def f(arg: Any) -> Any:
        if not isinstance(arg, str):
            return no_overload(name, arg)
        try:
            value = parse(str(arg))
        except AddrError as e:
            return err(str(e)) if name == "ip.isCanonical" else ct.BoolType(False)
        if name == "ip.isCanonical":
            return ct.BoolType(str(value) == arg)
        return ct.BoolType(True)

    return f


def _ip_predicate(name: str, test: Callable[[Addr], bool]) -> Callable[[Any], Any]:
    def f(arg: Any) -> Any:
        if not isinstance(arg, Addr):
            return no_overload(name, arg)
        return ct.BoolType(test(arg))

    return f


def _family(arg: Any) -> Any:
    if not isinstance(arg, Addr):
        return no_overload("family", arg)
    return ct.IntType(4 if arg.is4() else 6)


def _contains(name: str) -> Callable[[Any, Any], Any]:
    """``containsIP``/``containsCIDR`` (a string argument parsed as ``ip()``/``cidr()``)."""

    def f(prefix: Any, other: Any) -> Any:
        if not isinstance(prefix, Prefix):
            return no_overload(name, prefix, other)
        if isinstance(other, str):
            other = _ip(other) if name == "containsIP" else _cidr(other)
            if not isinstance(other, Addr | Prefix):
                # cidrContainsIP answers MaybeNoSuchOverloadErr(arg) (the CIDR, not the parse
                # error); cidrContainsCIDR passes the parse error on
                return err("no such overload") if name == "containsIP" else other
        if name == "containsIP" and isinstance(other, Addr):
            return ct.BoolType(prefix.contains(other))
        if name == "containsCIDR" and isinstance(other, Prefix):
            return ct.BoolType(prefix.overlaps(other) and prefix.length <= other.length)
        return no_overload(name, prefix, other)

    return f


def _prefix_method(name: str) -> Callable[[Any], Any]:
    def f(arg: Any) -> Any:
        if not isinstance(arg, Prefix):
            return no_overload(name, arg)
        return ct.IntType(arg.length) if name == "prefixLength" else arg.masked()

    return f


_STRING: Callable[..., Any] = ct.StringType


def _string(arg: Any, *rest: Any) -> Any:
    """``string()``: of an IP or CIDR (``ipToString``, ``cidrToString``), else CEL's own."""
    if isinstance(arg, Addr | Prefix) and not rest:
        return ct.StringType(str(arg))
    return _STRING(arg, *rest)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "ip": _ip,
    "cidr": _cidr,
    "isIP": _is("isIP", parse_ip_addr),
    "isCIDR": _is("isCIDR", parse_cidr),
    "ip.isCanonical": _is("ip.isCanonical", parse_ip_addr),
    "family": _family,
    "isUnspecified": _ip_predicate("isUnspecified", Addr.is_unspecified),
    "isLoopback": _ip_predicate("isLoopback", Addr.is_loopback),
    "isLinkLocalMulticast": _ip_predicate("isLinkLocalMulticast", Addr.is_link_local_multicast),
    "isLinkLocalUnicast": _ip_predicate("isLinkLocalUnicast", Addr.is_link_local_unicast),
    "isGlobalUnicast": _ip_predicate("isGlobalUnicast", Addr.is_global_unicast),
    "containsIP": _contains("containsIP"),
    "containsCIDR": _contains("containsCIDR"),
    "prefixLength": _prefix_method("prefixLength"),
    "masked": _prefix_method("masked"),
    "string": _string,
}
