"""cel-go's actual cost and outcome of DRA selectors (dra/cel_runtime_cost.py, dra/cel.py) per
release against the real ones, and the scheduler's runtime cost limit (``cel.CostLimit``).

The corpus: the cost corpora's expressions, two-variable comprehensions and cel_runtime_forms.txt
on the devices below. ``cel_actual_costs.txt`` records ``upstream/celcost -actual`` (v1.37.2:
cel-go v0.29.2), ``cel_actual_costs_v1.36.3.txt`` one built for v1.36.3 (cel-go v0.26.0, as
v1.34.4 and v1.35.4 link), where five runs agreed and the reference's cost is the same in three
map orders; compile errors (the scheduler's checker) too. Re-record: ``python3 -m
tests.dra.test_dra_cel_runtime_cost --record [--release R]`` (R's celcost: KSCHEDCONF_CELCOST,
``go build -modfile=releases/R/go.mod ./celcost`` in upstream/). cel_outcome_divergences.txt:
the outcomes the reference does not restate.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.core.scenario import ScenarioInput
from conformance.subjects.reference import ReferenceSubject
from conformance.subjects.upstream import UpstreamSubject, binary_available
from reference_impl.config.args import NodeResourcesFitArgs
from reference_impl.dra import cel
from reference_impl.dra.allocator import Allocator
from reference_impl.dra.cel_checker import parse
from reference_impl.dra.cel_cost import CEL_SELECTOR_EXPRESSION_MAX_COST, estimate_tree
from reference_impl.dra.cel_runtime_cost import (
    GATE_ESTIMATE,
    RELATIVE_GATE_ESTIMATE,
    CostLimitExceeded,
    Unsupported,
    actual_cost,
    compile_selector,
    has_relative_attribute,
    needs_runtime_cost,
)
from reference_impl.framework.testing import FakeHandle
from reference_impl.model.dra import DeviceCapacity, Version
from reference_impl.model.quantity import parse_quantity_string
from reference_impl.plugins.dynamicresources.dynamicresources import DynamicResources
from reference_impl.plugins.noderesources.fit import Fit
from reference_impl.releases import load
from reference_impl.releases.behaviours import BEHAVIOURS
from reference_impl.releases.pinned import UPSTREAM_RELEASE as PINNED
from tests.dra.test_dra_cel_cost import AT_LIMIT, COSTS, MEASURED, OVER_LIMIT, TABLES
from tests.dra.test_dra_cel_tables_upstream import REFUSED

RECORDED = Path(__file__).with_name("cel_actual_costs.txt")
#: each release's recorded corpus: v1.34.4's and v1.35.4's celcost (main.go without the
#: DRAListTypeAttributes field their dra library lacks) gave v1.36.3's 2369 answers
V0_26 = RECORDED.with_name("cel_actual_costs_v1.36.3.txt")
CORPORA = {PINNED: RECORDED, "v1.36.3": V0_26, "v1.35.4": V0_26, "v1.34.4": V0_26}
#: the expressions whose outcome the reference does not restate (the cost it does)
KNOWN_OUTCOMES = RECORDED.with_name("cel_outcome_divergences.txt")
D = "dra.example.com"
CAP = f'device.capacity["{D}"]'
ATTR = f'device.attributes["{D}"]'
#: docs/dra.md's example: upstream's MaxCost 262404, on WIDE an actual cost over the limit
REGEX = "a" * 1000
OVER_AT_RUNTIME = f'{CAP}.exists(k, v, {CAP}.exists(k2, v2, (k + k2).matches("{REGEX}")))'

#: resource.k8s.io/v1's JSON of a device's attributes and capacity, as celcost -actual reads it
DEVICES: list[dict[str, Any]] = [
    {
        "driver": D,
        "attributes": {
            "name": {"string": "fish"},
            "names": {"string": "a,b"},
            "services": {"string": "a-example-b-example"},
            "s": {"string": "x"},
            "a": {"bool": True},
            "b": {"bool": True},
            "c": {"bool": False},
            "bool": {"bool": True},
            "int": {"int": 5},
            "string": {"string": "fish"},
            "version": {"version": "1.2.3"},
            "a.com/x": {"string": "x"},
            "a.com/v": {"version": "1.0.0"},
            "b.com/y": {"string": "x"},
            "other.example.com/name": {"string": "n"},
        },
        "capacity": {
            "name": {"value": "2Ki"},
            "quantity": {"value": "4Ki"},
            "memory": {"value": "1Gi"},
            "a.com/mem": {"value": "1Gi"},
        },
        "allowMultipleAllocations": True,
    },
    {"driver": "x.io"},
    {
        "driver": D,
        "attributes": {"name": {"string": "fish"}},
        "capacity": {f"c{i:031d}": {"value": str(i)} for i in range(32)},
    },
]
WIDE = 2

#: two-variable comprehensions (the forms the gate counts), on maps and lists
TWO_VARIABLE = [
    OVER_AT_RUNTIME,
    f'{CAP}.all(k, v, {CAP}.all(k2, v2, (k + k2).matches("{"b" * 400}")))',
    f'{CAP}.all(k, v, k.size() < 40 && v.isGreaterThan(quantity("-1")))',
    f'{CAP}.exists(k, v, k.startsWith("zz"))',
    f'{CAP}.existsOne(k, v, v.compareTo(quantity("3")) == 0)',
    f'{ATTR}.all(k, v, k != "")',
    f"{ATTR}.exists(k, v, k == v)",
    f"{CAP}.transformList(k, v, k).size() > 1",
    f'{CAP}.transformList(k, v, v.isGreaterThan(quantity("1")), k + "x").size() >= 0',
    "[1, 2, 3].all(i, x, i < x)",
    "['a', 'bb'].exists(i, x, x.size() == i + 1)",
    "device.attributes.all(d, m, m.all(k, v, d.size() + k.size() > 0))",
    'device.capacity.exists(d, m, m.exists(k, v, (d + "/" + k).contains("c0000")))',
    f"cel.bind(m, {CAP}, m.all(k, v, m.exists(k2, v2, k.size() == k2.size())))",
    # the optional library and sortBy up to the limit on WIDE
    f"{CAP}.exists(k, v, {CAP}.exists(k2, v2, "
    f'optional.of(k + k2).optMap(x, x.matches("{REGEX}")).orValue(false)))',
    f"{CAP}.all(k, v, {CAP}.all(k2, v2, "
    f"{CAP}.transformList(k3, v3, k3 + k2 + k).sortBy(e, e).size() > 0))",
]


def _corpus() -> list[str]:

    listed = Path(__file__).with_name("cel_cost_expressions.txt").read_text().splitlines()
    out = [e for e, _ in COSTS.values()] + sorted(MEASURED) + [AT_LIMIT, OVER_LIMIT]
    out += [e for e in listed if e and not e.startswith("#")]
    out += [e for e in TABLES if e not in REFUSED and ".includes(" not in e]
    out += TWO_VARIABLE
    forms = Path(__file__).with_name("cel_runtime_forms.txt").read_text().splitlines()
    out += [e for e in forms if e and not e.startswith("#")]
    return list(dict.fromkeys(out))


def device_view(d: dict[str, Any]) -> cel.DeviceView:
    """A device of ``DEVICES`` as the allocator gives it to ``device_matches``."""
    attributes: list[tuple[str, Any]] = []
    for name, value in (d.get("attributes") or {}).items():
        ((kind, x),) = value.items()
        attributes.append((name, Version(x) if kind == "version" else x))
    capacity = tuple(
        (name, DeviceCapacity(parse_quantity_string(c["value"])))
        for name, c in (d.get("capacity") or {}).items()
    )
    return cel.DeviceView(
        d["driver"], tuple(attributes), capacity, d.get("allowMultipleAllocations")
    )


def options(release: str) -> cel.CELOptions:
    """The release's CEL options, from its switches."""
    return cel.release_options(lambda name: BEHAVIOURS[name].variants[release])


def _ours(
    expression: str, device: int, order: int = 0, opts: cel.CELOptions = cel.DEFAULT_OPTIONS
) -> str:
    """The reference's actual cost (the cost at which it stops, over the limit), "UNSUPPORTED",
    or "-" for a selector the checker refuses (upstream's scheduler does not compile it);
    ``order``: the maps' iteration order (``Tracker``)."""
    selector = _compiled(expression, opts)
    if isinstance(selector, cel.CELCompileError):
        return "-"
    root = selector.root
    try:
        value = cel.device_value(device_view(DEVICES[device]), options=opts)
        return str(actual_cost(root, value, order=order, options=opts))
    except CostLimitExceeded as e:
        return str(e.cost)
    except Unsupported:
        return "UNSUPPORTED"
    except cel.CELMatchError:
        return "-"


@functools.lru_cache(maxsize=4096)
def _compiled(expression: str, opts: cel.CELOptions) -> Any:
    try:
        return compile_selector(expression, True, opts)
    except cel.CELCompileError as e:
        return e


def _outcome(expression: str, device: int, opts: cel.CELOptions) -> str:
    """The reference's outcome as celcost prints it: true, false, or ERR and the error
    (Go's ``%q``), a compile error's prefixed "compile: "."""
    selector = _compiled(expression, opts)
    if isinstance(selector, cel.CELCompileError):
        return "ERR " + json.dumps(f"compile: {selector}", ensure_ascii=False)
    try:
        return "true" if selector.device_matches(device_view(DEVICES[device])) else "false"
    except cel.CELMatchError as e:
        return "ERR " + json.dumps(str(e), ensure_ascii=False)


def _celcost(release: str = PINNED) -> str | None:
    """The release's celcost with -actual: KSCHEDCONF_CELCOST, else upstream/bin's for the
    pinned release, KSCHEDCONF_CELCOST_<release with _ for .> for another."""
    built = Path(__file__).parents[2] / "upstream" / "bin" / "kschedconf-celcost"
    if release != PINNED:
        built = Path(os.environ.get(f"KSCHEDCONF_CELCOST_{release.replace('.', '_')}", "-"))
    binary = os.environ.get("KSCHEDCONF_CELCOST") or (str(built) if built.exists() else "")
    if not binary:
        return None
    probe = subprocess.run([binary, "-actual"], input="", capture_output=True, text=True)
    return binary if probe.returncode == 0 else None  # a build before -actual: no such flag


def _upstream(pairs: list[tuple[str, int]], binary: str) -> list[str]:
    lines = "".join(json.dumps({"expression": e, "device": DEVICES[d]}) + "\n" for e, d in pairs)
    run = subprocess.run(
        [binary, "-actual"], input=lines, capture_output=True, text=True, check=True
    )
    return run.stdout.splitlines()


def _recorded(release: str = PINNED) -> list[tuple[int, str, str]]:
    out = []
    for line in CORPORA[release].read_text().splitlines():
        if line and not line.startswith("#"):
            device, expression, answer = line.split("\t")
            out.append((int(device), json.loads(expression), answer))
    return out


def _order_dependent(expression: str, device: int, opts: cel.CELOptions) -> bool:
    """Whether the cost depends on the maps' order (as built, reversed, rotated)."""
    return len({_ours(expression, device, order, opts) for order in range(3)}) > 1


def _record(release: str) -> None:
    binary = _celcost(release)
    assert binary, f"build {release}'s upstream/celcost and set KSCHEDCONF_CELCOST"
    opts = options(release)
    pairs = [(e, d) for e in _corpus() for d in range(len(DEVICES))]
    runs = [_upstream(pairs, binary) for _ in range(5)]
    kept = [
        f"{d}\t{json.dumps(e)}\t{a}"
        for (e, d), a, *more in zip(pairs, *runs, strict=True)
        if all(b == a for b in more)
        and (not a.startswith("- ERR") or a.startswith('- ERR "compile: '))
        and not _order_dependent(e, d, opts)
    ]
    head = f"# device\texpression\tupstream/celcost -actual ({release}): actual cost and outcome\n"
    CORPORA[release].write_text(head + "\n".join(kept) + "\n")


def _known_outcomes() -> set[str]:
    lines = KNOWN_OUTCOMES.read_text().splitlines()
    return {json.loads(e) for e in lines if e and not e.startswith("#")}


def _compare(release: str) -> tuple[list[Any], set[str], int]:
    """:func:`_compare_corpus` of the release's corpus and options (releases sharing both
    are compared once)."""
    return _compare_corpus(CORPORA[release], options(release))


@functools.cache
def _compare_corpus(corpus: Path, opts: cel.CELOptions) -> tuple[list[Any], set[str], int]:
    """The recorded evaluations of ``corpus`` whose cost differs (the reference's,
    "UNSUPPORTED" for one not restated) or whose outcome differs but for the expressions of
    KNOWN_OUTCOMES, the expressions whose outcome differs, and how many are compared; an
    expression that does not read the device is compared on the first device only
    (compile_test.go's "expensive" takes the reference some 15 s to count to the limit)."""
    differ, diverging, compared, seen = [], set(), 0, set()
    known = _known_outcomes()
    release = next(r for r, c in CORPORA.items() if c == corpus)
    for device, expression, answer in _recorded(release):
        if "device" not in expression and expression in seen:
            continue
        seen.add(expression)
        compared += 1
        cost, outcome = answer.split(" ", 1)
        ours, ours_outcome = _ours(expression, device, 0, opts), _outcome(expression, device, opts)
        if ours_outcome != outcome:
            diverging.add(expression)
        if ours != cost or (ours_outcome != outcome and expression not in known):
            differ.append((device, expression[:120], answer, ours, ours_outcome[:120]))
    return differ, diverging, compared


@pytest.mark.parametrize("release", sorted(CORPORA))
def test_the_recorded_actual_costs_and_outcomes(release: str) -> None:
    """Every recorded evaluation compared has upstream's actual cost (every form is
    restated), the ones stopped at the limit included (the cost at which cel-go stopped), and
    its outcome (the error's text included) but for the known divergences, which all still
    differ (the list is kept true)."""
    differ, diverging, compared = _compare(release)
    assert differ == []
    assert diverging == _known_outcomes()
    assert compared >= 1300 and len(_recorded(release)) >= 2200


def test_the_releases_differ_as_their_cel_go() -> None:
    """The two corpora differ where cel-go v0.26.0 and v0.29.2 do (dra/cel_generations.py):
    string functions' costs, the global matches, a relative optional select of a missing
    domain, lists.range(-1), indexOf/lastIndexOf of ""; the reference follows each."""
    older = {(d, e): a for d, e, a in _recorded("v1.36.3")}
    differ = {(d, e) for d, e, a in _recorded(PINNED) if older.get((d, e), a) != a}
    forms = {e for _, e in differ}
    assert "lists.range(-1).size() == 0" in forms
    assert "optional.of(device.attributes).?foo.hasValue()" in forms
    assert 'matches(device.driver, "a+b")' in forms
    assert "'tacocat'.indexOf('', -1) == 0" in forms
    assert len(differ) >= 35
    assert options("v1.36.3") == cel.CELOptions(False, cel.CEL_GO_V0_26)
    assert options(PINNED) == cel.DEFAULT_OPTIONS


def test_the_docs_example_stops_at_the_limit() -> None:
    recorded = {(d, e): a for d, e, a in _recorded()}
    assert recorded[(WIDE, OVER_AT_RUNTIME)] == (
        '1001530 ERR "operation cancelled: actual cost limit exceeded"'
    )
    assert estimate_tree(parse(OVER_AT_RUNTIME)).max == 262404
    assert _ours(OVER_AT_RUNTIME, WIDE) == "1001530"


def test_the_gate_skips_only_what_the_estimate_bounds() -> None:
    """An expression the gate does not count has an estimated MaxCost within GATE_ESTIMATE, and
    on every recorded device an actual cost within 12/11 of it, so within the limit; with a
    relative attribute, within RELATIVE_GATE_ESTIMATE and 3/2 of it (a relative attribute
    costs 1 more than its estimate: ``optional.of(m).?k.hasValue()`` 7 for 6)."""
    estimates: dict[str, tuple[int, bool]] = {}
    for _device, expression, answer in _recorded():
        try:
            root = parse(expression)
        except cel.CELCompileError:  # the API server refuses it (or the scheduler's checker)
            continue
        if needs_runtime_cost(root):
            continue
        if expression not in estimates:
            estimates[expression] = (estimate_tree(root).max, has_relative_attribute(root))
        estimate, relative = estimates[expression]
        bound = (3, 2) if relative else (12, 11)
        assert estimate <= (RELATIVE_GATE_ESTIMATE if relative else GATE_ESTIMATE)
        cost = answer.split(" ", 1)[0]
        assert cost == "-" or int(cost) * bound[1] <= estimate * bound[0], (expression, answer)
    assert GATE_ESTIMATE * 12 // 11 <= CEL_SELECTOR_EXPRESSION_MAX_COST
    assert RELATIVE_GATE_ESTIMATE * 3 // 2 <= CEL_SELECTOR_EXPRESSION_MAX_COST
    assert needs_runtime_cost(parse(OVER_AT_RUNTIME))
    assert needs_runtime_cost(parse(OVER_LIMIT)) and not needs_runtime_cost(parse("true"))
    assert has_relative_attribute(parse("optional.of(device.capacity).?memory.hasValue()"))
    assert not has_relative_attribute(parse('device.capacity["a"].?memory.hasValue()'))


@pytest.mark.parametrize("release", sorted(CORPORA))
def test_against_upstream_celcost(release: str) -> None:
    """The corpus on the release's celcost (the pinned one's upstream/bin/kschedconf-celcost,
    another's KSCHEDCONF_CELCOST_v1_36_3...), where order does not matter: the same actual
    costs and outcomes as recorded."""
    binary = _celcost(release)
    if binary is None:
        pytest.skip(f"no celcost with -actual for {release}")
    recorded = _recorded(release)
    answers = _upstream([(e, d) for d, e, _ in recorded], binary)
    assert [a for (_, _, a) in recorded] == answers


def _limit_scenario() -> list[dict[str, Any]]:
    """A node whose slice lists WIDE first and a device of four capacities, and a pod whose
    claim selects with docs/dra.md's example (the API server accepts it: MaxCost 262404)."""
    wide, small = DEVICES[WIDE]["capacity"], {f"c{i}": {"value": "1"} for i in range(4)}
    devices = [{"name": "wide", "capacity": wide}, {"name": "small", "capacity": small}]
    return [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "node-1", "labels": {"kubernetes.io/hostname": "node-1"}},
            "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "10"}},
        },
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "DeviceClass",
            "metadata": {"name": D},
            "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{D}"'}}]},
        },
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceSlice",
            "metadata": {"name": f"node-1-{D}"},
            "spec": {
                "driver": D,
                "nodeName": "node-1",
                "devices": devices,
                "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
            },
        },
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": {"name": "c", "namespace": "default"},
            "spec": {
                "devices": {
                    "requests": [
                        {
                            "name": "r",
                            "exactly": {
                                "deviceClassName": D,
                                "selectors": [{"cel": {"expression": OVER_AT_RUNTIME}}],
                            },
                        }
                    ]
                }
            },
        },
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "p", "namespace": "default"},
            "spec": {
                "containers": [{"name": "c", "image": "registry.k8s.io/pause"}],
                "resourceClaims": [{"name": "r", "resourceClaimName": "c"}],
            },
        },
    ]


def _attempts(subject: Any) -> list[tuple[str, str, str]]:

    result = subject.run(ScenarioInput(_limit_scenario(), name="dra-cel-cost-limit")).result
    return [(a["pod"], a["outcome"], a.get("message", "")) for a in result["attempts"]]


def test_the_limit_fails_the_allocation_as_upstream() -> None:
    """On WIDE the selector stops at the limit: selectorsMatch's error ends the allocation
    (the pod is not scheduled: "CEL runtime error: operation cancelled: actual cost limit
    exceeded"), though the small device matches; the upstream subject agrees."""

    ref = _attempts(ReferenceSubject())
    assert ref[0][1] == "Error"
    assert ref[0][2].endswith(
        f"claim default/c: selector #0 on device {D}/node-1/wide: "
        "CEL runtime error: operation cancelled: actual cost limit exceeded"
    )
    if not binary_available():
        pytest.skip("upstream subject not built: run upstream/build.sh")
    with UpstreamSubject() as upstream:
        assert _attempts(upstream) == ref


@pytest.mark.parametrize("release", ["v1.34.4", "v1.35.4", "v1.36.3", "v1.37.2"])
def test_the_plugins_and_the_allocator_take_the_release_options(release: str) -> None:
    """Switches dra-cel-includes and dra-cel-go reach the allocator (through the
    DynamicResources plugin) and NodeResourcesFit's DRA scorer as one ``CELOptions``: on
    v0.26.0 ``lists.range(-1)`` is ``[]``, on v0.29.2 an error."""
    data = load(release)
    handle = FakeHandle(release=data, features={"DRAExtendedResource": True})
    plugin = DynamicResources(None, handle)
    fit = Fit(NodeResourcesFitArgs(), handle)
    opts = options(release)
    assert plugin.cel_options == opts == fit.scorer.dra_matcher.options
    assert opts.cel_go == (cel.CEL_GO_V0_26 if release != "v1.37.2" else cel.CEL_GO_V0_29)
    allocator = Allocator(set(), {}, [], cel_options=plugin.cel_options)
    selector = allocator.compiled("lists.range(-1).size() == 0")
    assert isinstance(selector, cel.CompiledSelector)
    if opts.v0_26:
        assert selector.device_matches(cel.DeviceView(D))
    else:
        with pytest.raises(cel.CELMatchError, match="size must be non-negative, got -1"):
            selector.device_matches(cel.DeviceView(D))


def test_a_concatenation_takes_member_functions() -> None:
    """``_+_`` of two strings gave celpy's plain ``str``, on which ``contains`` failed ("no
    such overload"); the corpus's ``(d + "/" + k).contains(...)`` relies on it."""
    sel = cel.compile_selector('("a" + device.driver).contains("ad") && ([1] + [2]).size() == 2')
    assert sel.device_matches(cel.DeviceView("d"))


if __name__ == "__main__" and sys.argv[1:2] == ["--record"]:
    _record(sys.argv[3] if sys.argv[2:3] == ["--release"] else PINNED)
