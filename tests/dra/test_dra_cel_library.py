"""The libraries of the DRA selector environment beyond compile_test.go
(reference_impl/dra/cel_library.py, cel_netip.py, cel_macros.py): upstream's own test tables,
restated.

tests/data/cel_library_upstream_tables.json holds the cases of github.com/google/cel-go v0.29.2
ext/strings_test.go (``stringTests``, the functions of StringsVersion(2)), ext/lists_test.go,
ext/comprehensions_test.go, ext/sets_test.go and ext/bindings_test.go, and of k8s.io/apiserver
v0.37.2 pkg/cel/library/ip_test.go and cidr_test.go (``expectResult`` true/false/int/string,
written as ``(expr) == result``), each with its source line: an expression that must evaluate
to true, or the evaluation error it must give. Left out (they fail here, for the reason given):

- string reverse is ext.Strings v3; the environment has v2 (a compile error upstream):
  ext/strings_test.go:106-111, ext/comprehensions_test.go:172, 176;
- string format is not implemented (docs/dra.md): ext/strings_test.go:140,
  ext/comprehensions_test.go:72, 141, 144, 159, 163, 167, ext/bindings_test.go:43;
- a protobuf message type of the test environment: ext/lists_test.go:68, 76;
- optional syntax (cel.OptionalTypes): celpy's parser has none: ext/comprehensions_test.go:36,
  42, 49, 57, 64, 112;
- needs the test's variable x: ext/bindings_test.go:66, 81;
- type names of the IP/CIDR types (celpy has no such types): ip_test.go:305 (type of IP is
  net.IP), cidr_test.go:275 (type of CIDR is net.CIDR).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reference_impl.dra.cel import (
    CELCompileError,
    CELMatchError,
    CELOptions,
    DeviceView,
    compile_selector,
)
from reference_impl.dra.cel_netip import AddrError, parse_addr, parse_prefix
from reference_impl.releases.behaviours import BEHAVIOURS

D = "dra.example.com"

#: (source, expression, expected evaluation error or None for "evaluates to true")
TABLE: list[tuple[str, str, str | None]] = [
    (row["source"], row["expression"], row["error"])
    for row in json.loads(
        (Path(__file__).parent.parent / "data" / "cel_library_upstream_tables.json").read_text(
            encoding="utf-8"
        )
    )
]


def _eval(expression: str, device: DeviceView | None = None) -> bool:
    return compile_selector(expression).device_matches(device or DeviceView(D))


@pytest.mark.parametrize(
    ("source", "expression", "error"),
    TABLE,
    ids=[f"{s.split()[-1] if ')' not in s else s}" for s, _, _ in TABLE],
)
def test_upstream_table(source: str, expression: str, error: str | None) -> None:
    if error is None:
        assert _eval(expression) is True
    else:
        with pytest.raises(CELMatchError) as e:
            _eval(expression)
        assert str(e.value) == error


# k8s.io/apiextensions-apiserver v0.37.2 pkg/apiserver/schema/cel/validation_test.go: the list
# library ("lists" case, lines 1789-1887, its ``self.*`` fields written as literals) and the
# regex library (lines 1898-1909, ``self.str`` = 'abc 123 def 456')
K8S_LISTS_AND_REGEX = [
    "[1, 2, 2, 3].sum() == 8",
    "[1, 2, 2, 3].min() == 1",
    "[1, 2, 2, 3].max() == 3",
    "[1, 2, 2, 3].isSorted()",
    "[].isSorted()",
    "[2, 1].isSorted() == false",
    "[1, 2, 2, 3].indexOf(2) == 1",
    "[1, 2, 2, 3].lastIndexOf(2) == 2",
    "[1, 2, 2, 3].indexOf(10) == -1",
    "[1.0, 2.0, 2.0, 3.0].sum() == 8.0",
    "[1.0, 2.0, 2.0, 3.0].min() == 1.0",
    "[1.0, 2.0, 2.0, 3.0].max() == 3.0",
    "[1.0, 2.0, 2.0, 3.0].indexOf(2.0) == 1",
    "['a', 'b', 'b', 'c'].min() == 'a'",
    "['a', 'b', 'b', 'c'].max() == 'c'",
    "['a', 'b', 'b', 'c'].isSorted()",
    "['b', 'a'].isSorted() == false",
    "['a', 'b', 'b', 'c'].indexOf('b') == 1",
    "['a', 'b', 'b', 'c'].lastIndexOf('b') == 2",
    "['a', 'b', 'b', 'c'].indexOf('x') == -1",
    "[[1], [2]].indexOf([1]) == 0",
    "([0] + []).min() == 0",
    "dyn([]).sum() == 0",
    "dyn([1, 2]).sum() == 3",
    "dyn([1.0, 2.0]).sum() == 3.0",
    "[].sum() == 0",
    "'abc 123 def 456'.find('[0-9]+') == '123'",
    "'abc 123 def 456'.find('[0-9]+') != '456'",
    "'abc 123 def 456'.find('xyz') == ''",
    "'abc 123 def 456'.findAll('[0-9]+') == ['123', '456']",
    "'abc 123 def 456'.findAll('[0-9]+', 0) == []",
    "'abc 123 def 456'.findAll('[0-9]+', 1) == ['123']",
    "'abc 123 def 456'.findAll('[0-9]+', 2) == ['123', '456']",
    "'abc 123 def 456'.findAll('[0-9]+', 3) == ['123', '456']",
    "'abc 123 def 456'.findAll('[0-9]+', -1) == ['123', '456']",
    "'abc 123 def 456'.findAll('xyz') == []",
    "'abc 123 def 456'.findAll('xyz', 1) == []",
    # lists.go's doc comment (includes, ListsVersion(1))
    "[1, 2, 3].includes(2)",
    "![1, 2, 3].includes(4)",
    "'model-a'.includes('model-a')",
    "!'model-a'.includes('model-b')",
]


@pytest.mark.parametrize("expression", K8S_LISTS_AND_REGEX)
def test_kubernetes_lists_and_regex(expression: str) -> None:
    assert _eval(expression) is True


@pytest.mark.parametrize(
    ("expression", "error"),
    [
        # validation_test.go lines 1875-1880
        ("[].min() == 1", "min called on empty list"),
        ("[].max() == 3", "max called on empty list"),
        # ext/comprehensions_test.go (TestTwoVarComprehensionsRuntimeErrors)
        ("[1, 1].transformMapEntry(i, v, {v: i})", "insert failed: key 1 already exists"),
        # ext/lists_test.go (sortBy's keys: sortListByAssociatedKeys)
        ('[1, 2].sortBy(e, e == 1 ? "a" : 2)', "list elements must have the same type"),
        # cidr.go cidrContainsIP: a string that is no IP answers MaybeNoSuchOverloadErr(cidr)
        ('cidr("10.0.0.0/8").containsIP("10.0.0")', "no such overload"),
        # cidrContainsCIDR passes cidr()'s parse error on
        (
            'cidr("10.0.0.0/8").containsCIDR("10.0.0.0")',
            "network address parse error during conversion from string: network address "
            "parse error during conversion from string: netip.ParsePrefix(\"10.0.0.0\"): no '/'",
        ),
        # ip.go parseIPAddr
        (
            'ip("fe80::1%eth0").family() == 6',
            'IP address "fe80::1%eth0" with zone value is not allowed',
        ),
        (
            'ip("::ffff:1.2.3.4").family() == 6',
            'IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed',
        ),
        (
            'isIP("1.2.3.4") && ip.isCanonical("1.2.3")',
            'IP Address "1.2.3" parse error during conversion from string: ParseAddr("1.2.3"): '
            "IPv4 address too short",
        ),
        # celcost -actual of dyn("a").join() and ["a", dyn(1)].join(): the type guard of the
        # list(string) overload (common/decls ``MaybeNoSuchOverload``)
        ('"a".join()', "no such overload: join(string)"),
        ('["a", 1].join()', "no such overload: join(list)"),
    ],
)
def test_evaluation_errors(expression: str, error: str) -> None:
    with pytest.raises(CELMatchError) as e:
        _eval(expression)
    assert str(e.value) == error


@pytest.mark.parametrize(
    ("expression", "text"),
    [
        # ip_test.go / cidr_test.go cases whose result is an IP or CIDR value (ipv4Addr...)
        ('ip("192.168.0.1")', "192.168.0.1"),
        ('ip("2001:db8::68")', "2001:db8::68"),
        ('cidr("192.168.0.0/24")', "192.168.0.0/24"),
        ('cidr("192.168.0.0/24").ip()', "192.168.0.0"),
        ('cidr("192.168.0.1/24").masked()', "192.168.0.0/24"),
        ('cidr("2001:db8::/32")', "2001:db8::/32"),
        ('cidr("2001:db8::/32").ip()', "2001:db8::"),
        ('cidr("2001:db8:1::/32").masked()', "2001:db8::/32"),
        ('ip("2001:0db8:0000:0000:0000:0000:0000:0001")', "2001:db8::1"),
        ('ip("1:0:0:2:0:0:0:3")', "1:0:0:2::3"),
        ('ip("1:0:0:2:0:0:3:4")', "1::2:0:0:3:4"),
    ],
)
def test_ip_and_cidr_values(expression: str, text: str) -> None:
    assert _eval(f"string({expression}) == {text!r}".replace("'", '"')) is True


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", 'ParseAddr(""): unable to parse IP'),
        ("1.2.3.256", 'ParseAddr("1.2.3.256"): IPv4 field has value >255'),
        ("1..2.3", 'ParseAddr("1..2.3"): IPv4 field must have at least one digit (at ".2.3")'),
        ("1.2.3.x", 'ParseAddr("1.2.3.x"): unexpected character (at "x")'),
        ("%eth0", 'ParseAddr("%eth0"): missing IPv6 address'),
        ("1::2::3", 'ParseAddr("1::2::3"): multiple :: in address (at ":3")'),
        ("12345::", 'ParseAddr("12345::"): each group must have 4 or less digits (at "12345::")'),
        ("1:2:3:4:5:6:7", 'ParseAddr("1:2:3:4:5:6:7"): address string too short'),
        (
            "1:2:3:4:5:6:7:8::",
            'ParseAddr("1:2:3:4:5:6:7:8::"): the :: must expand to at least one field of zeros',
        ),
        (
            "1:2:3:4:5:6:1.2.3.4:5",
            'ParseAddr("1:2:3:4:5:6:1.2.3.4:5"): unexpected character (at ":5")',
        ),
    ],
)
def test_netip_parse_errors(text: str, message: str) -> None:
    """Go's net/netip messages (netip.go parseAddrError), which ip() passes on."""
    with pytest.raises(AddrError) as e:
        parse_addr(text)
    assert str(e.value) == message


def test_netip_prefix() -> None:
    assert str(parse_prefix("10.1.2.3/8").masked()) == "10.0.0.0/8"
    for text, message in (
        ("10.0.0.0/33", "prefix length out of range"),
        ("10.0.0.0/08", 'bad bits after slash: "08"'),
        ("10.0.0.0/+8", 'bad bits after slash: "+8"'),
        ("fe80::%1/64", "IPv6 zones cannot be present in a prefix"),
    ):
        with pytest.raises(AddrError) as e:
            parse_prefix(text)
        assert str(e.value) == f'netip.ParsePrefix("{text}"): {message}'


def test_selectors_on_device_attributes() -> None:
    """What DRA selectors write: cel.bind over a domain's attributes, string functions on
    attributes, IP/CIDR checks of a network device's address."""
    net = DeviceView(
        "net.example.com", (("ip", "10.1.2.3"), ("interface", "eth1"), ("model", "Mellanox-CX7"))
    )
    assert _eval(
        'cel.bind(a, device.attributes["net.example.com"], '
        'cidr("10.1.0.0/16").containsIP(a.ip) && a.interface.startsWith("eth"))',
        net,
    )
    assert not _eval('cidr("10.2.0.0/16").containsIP(device.attributes["net.example.com"].ip)', net)
    assert _eval('device.attributes["net.example.com"].model.lowerAscii().indexOf("cx") == 9', net)
    assert _eval('device.attributes["net.example.com"].model.split("-")[0] == "Mellanox"', net)
    assert _eval('device.attributes["net.example.com"].all(k, v, k.size() > 1)', net)
    # an error in cel.bind's unused initializer is no error (a comprehension's accumulator)
    assert _eval('cel.bind(x, ip("bad"), true)', net)
    with pytest.raises(CELMatchError, match="unable to parse IP"):
        _eval('cel.bind(x, ip("bad"), x.family() == 4)', net)


def test_macro_and_namespace_identifiers_are_declared() -> None:
    compile_selector(
        "cel.bind(x, 1, x == 1) && [1].all(i, v, i < v) && sets.contains([1], [1])"
        " && lists.range(2).sortBy(e, -e) == [1, 0]"
    )
    for expression in ("sets == 1", "cel.foo(1)", "[1].all(i, v, w)"):
        with pytest.raises(CELCompileError, match="undeclared reference"):
            compile_selector(expression)


def test_min_max_are_the_list_library_not_celpy_macros() -> None:
    """celpy takes ``min`` for its own macro; the environment's is lists.go ``min``."""
    assert _eval("[3, 1, 2].min() == 1 && [3, 1, 2].max() == 3")
    with pytest.raises(CELMatchError, match="min called on empty list"):
        _eval("[].min() == 0")


# k8s.io/apiextensions-apiserver v0.37.2 pkg/apiserver/schema/cel/validation_test.go, "URL
# parsing" (lines 1926-1960; ``self.url`` written as its literal) and line 2135
_SELF_URL = "'https://user:pass@kubernetes.io:80/docs/home?k1=a&k2=b&k2=c#anchor'"
K8S_URLS = [
    "url('/path').getScheme() == ''",
    "url('https://example.com/').getScheme() == 'https'",
    "url('https://example.com:80/').getHost() == 'example.com:80'",
    "url('https://example.com/').getHost() == 'example.com'",
    "url('https://[::1]:80/').getHost() == '[::1]:80'",
    "url('https://[::1]/').getHost() == '[::1]'",
    "url('/path').getHost() == ''",
    "url('https://example.com:80/').getHostname() == 'example.com'",
    "url('https://127.0.0.1/').getHostname() == '127.0.0.1'",
    "url('https://[::1]/').getHostname() == '::1'",
    "url('/path').getHostname() == ''",
    "url('https://example.com:80/').getPort() == '80'",
    "url('https://example.com/').getPort() == ''",
    "url('/path').getPort() == ''",
    "url('https://example.com/path').getEscapedPath() == '/path'",
    "url('https://example.com/with space/').getEscapedPath() == '/with%20space/'",
    "url('https://example.com').getEscapedPath() == ''",
    "url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == { 'k1': ['a'], 'k2': ['b', 'c']}",
    "url('https://example.com/path?key with spaces=value with spaces').getQuery() == "
    "{ 'key with spaces': ['value with spaces']}",
    "url('https://example.com/path?').getQuery() == {}",
    "url('https://example.com/path').getQuery() == {}",
    f"url({_SELF_URL}).getScheme() == 'https'",
    f"url({_SELF_URL}).getHost() == 'kubernetes.io:80'",
    f"url({_SELF_URL}).getHostname() == 'kubernetes.io'",
    f"url({_SELF_URL}).getPort() == '80'",
    f"url({_SELF_URL}).getEscapedPath() == '/docs/home'",
    f"url({_SELF_URL}).getQuery() == {{'k1': ['a'], 'k2': ['b', 'c']}}",
    "isURL('https://user:pass@example.com:80/path?query=val#fragment')",
    "isURL('/path') == true",
    "isURL('https://a:b:c/') == false",
    "isURL('../relative-path') == false",
    "url('https:://kubernetes.io/').getHostname() != 'test'",
    # what Go 1.26's net/url gives (checked with a Go program): a path escape kept as written,
    # a query's semicolon part and bad escape dropped, a zone in an IP literal
    "url('https://h/a%2Fb c?x=1;y=2&z=%zz&w=a+b').getEscapedPath() == '/a/b%20c'",
    "url('https://h/a%2Fb c?x=1;y=2&z=%zz&w=a+b').getQuery() == {'w': ['a b']}",
    "url('https://h/%7e').getEscapedPath() == '/%7e'",
    "url('https://[fe80::1%25en0]:8080/x').getHostname() == 'fe80::1%en0'",
    "url('mailto:joe@x.org?subject=hi').getQuery() == {'subject': ['hi']}",
]


@pytest.mark.parametrize("expression", K8S_URLS)
def test_kubernetes_urls(expression: str) -> None:
    assert _eval(expression) is True


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # Go 1.26 net/url's errors (the same Go program)
        ("https://a:b:c/", 'parse "https://a:b:c/": invalid port ":b:c" after host'),
        ("foo://a:b:c/", 'parse "foo://a:b:c/": invalid port ":c" after host'),
        ("../x", 'parse "../x": invalid URI for request'),
        ("http://[1.2.3.4]/", 'parse "http://[1.2.3.4]/": invalid IP-literal'),
        ("http://%41/", 'parse "http://%41/": invalid URL escape "%41"'),
        ("http://a b/", 'parse "http://a b/": invalid character " " in host name'),
        ("https://u@ser:p%zz@h/", 'parse "https://u@ser:p%zz@h/": invalid URL escape "%zz"'),
        ("https://h/p#fr%zz", 'parse "https://h/p#fr%zz": invalid URL escape "%zz"'),
    ],
)
def test_url_parse_errors(text: str, message: str) -> None:
    with pytest.raises(CELMatchError) as e:
        _eval(f"url({text!r}).getHost() == ''".replace("'", '"'))
    assert str(e.value) == f"URL parse error during conversion from string: {message}"


def test_includes_is_in_the_environment_of_1_37_only() -> None:
    """Switch dra-cel-includes: the list library's ``includes`` (ListsVersion(1), base.go from
    1.37); before, an undeclared reference at the call's parenthesis (compile_test.go
    "includes-function-compilation-error", whose NewExpressions environment is 1.36's)."""
    expression = 'device.attributes["dra.example.com"].attr.includes("fish")'
    device = DeviceView(D, (("attr", "fish"),))
    assert compile_selector(expression).device_matches(device)
    with pytest.raises(CELCompileError) as e:
        compile_selector(expression, options=CELOptions(includes=False))
    assert str(e.value) == (
        "compilation failed: ERROR: <input>:1:51: undeclared reference to 'includes' (in "
        f"container '')\n | {expression}\n | {'.' * 50}^"
    )
    assert BEHAVIOURS["dra-cel-includes"].variants == {
        "v1.34.4": "absent",
        "v1.35.4": "absent",
        "v1.36.3": "absent",
        "v1.37.2": "lists-v1",
    }


@pytest.mark.parametrize(
    "expression",
    [
        # cel.CrossTypeNumericComparisons (base.go 1.28) and CEL's heterogeneous equality
        "1 < 1.5",
        "2u > 1",
        "1.0 <= 1u",
        "1 == 1.0",
        "!(1 != 1.0)",
        "[1, 2] == [1.0, 2u]",
        "{1: 2} == {1u: 2.0}",
        "[1, 2].exists(x, x > 1.5)",
        'device.attributes["d"] != 1',
        "!(dyn('a') == 1)",
    ],
)
def test_numbers_compare_across_types(expression: str) -> None:
    assert _eval(expression) is True


@pytest.mark.parametrize(
    "expression",
    [
        # cel-go v0.29.2 cel/library.go, the optional library's OverloadExamples and MacroExamples
        "optional.of(1).hasValue()",
        "!optional.ofNonZeroValue(null).hasValue()",
        "!optional.ofNonZeroValue('').hasValue()",
        "optional.ofNonZeroValue('hello') == optional.of('hello')",
        "optional.of(1).value() == 1",
        "optional.of({1: 2}).hasValue()",
        "optional.none().or(optional.of(1)) == optional.of(1)",
        "[1, 2, 3][?1].or([3, 4, 5][?9]) == optional.of(2)",
        "{'hello': 'world', 'goodbye': 'cruel world'}[?'greeting'].orValue('you') == 'you'",
        "{'key': {}}.?key.optFlatMap(k, k.?subkey) == optional.none()",
        "{'key': {'subkey': 'value'}}.?key.optFlatMap(k, k.?subkey) == optional.of('value')",
        "{'key': 2}.?key.optMap(v, v * 2) == optional.of(4)",
        # after an optional select, a select or index stays optional (attributes.go)
        "{'a': {'b': [1]}}.?a.b[0] == optional.of(1)",
        "{'a': {}}.?a.b[0] == optional.none()",
        'device.attributes["dra.example.com"].?missing.orValue(true)',
    ],
)
def test_optional_types(expression: str) -> None:
    assert _eval(expression) is True


def test_optional_errors() -> None:
    with pytest.raises(CELMatchError, match=r"^optional.none\(\) dereference$"):
        _eval("optional.none().value() == 1")
    # orValue's argument is evaluated only for a none (evalOptionalOrValue)
    assert _eval("optional.of(true).orValue([].max() == 1)")
