"""cel-go's actual cost of DRA selectors (reference_impl/dra/cel_runtime_cost.py) against the
real one, and the scheduler's runtime cost limit (``cel.CostLimit`` in compile.go).

The corpus: the cost corpora's expressions (test_dra_cel_cost.py, cel_cost_expressions.txt,
the libraries' tables), two-variable comprehensions and the forms of cel_runtime_forms.txt
(optionals, sortBy, bytes, type names, format, dyn operands), on the devices below.
``cel_actual_costs.txt`` records ``upstream/celcost -actual`` (cel-go v0.29.2, dra cel v0.37.2)
where five runs agreed and the reference's cost is the same in three map orders (a comprehension
that stops early over a map of several entries depends on Go's random map order). Re-record:
``python3 -m tests.dra.test_dra_cel_runtime_cost --record``.
"""

from __future__ import annotations

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
from reference_impl.dra import cel
from reference_impl.dra.cel_checker import parse
from reference_impl.dra.cel_cost import CEL_SELECTOR_EXPRESSION_MAX_COST, estimate_tree
from reference_impl.dra.cel_runtime_cost import (
    GATE_ESTIMATE,
    RELATIVE_GATE_ESTIMATE,
    CostLimitExceeded,
    Unsupported,
    actual_cost,
    has_relative_attribute,
    needs_runtime_cost,
)
from reference_impl.model.dra import DeviceCapacity, Version
from reference_impl.model.quantity import parse_quantity_string
from tests.dra.test_dra_cel_cost import AT_LIMIT, COSTS, MEASURED, OVER_LIMIT, TABLES
from tests.dra.test_dra_cel_tables_upstream import REFUSED

RECORDED = Path(__file__).with_name("cel_actual_costs.txt")
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


def _ours(expression: str, device: int, order: int = 0) -> str:
    """The reference's actual cost (the cost at which it stops, over the limit), "UNSUPPORTED",
    or "-" for a selector the checker refuses (upstream's scheduler does not compile it);
    ``order``: the maps' iteration order (``Tracker``)."""
    try:
        root = parse(expression)
    except cel.CELCompileError:
        return "-"
    try:
        value = cel.device_value(device_view(DEVICES[device]))
        return str(actual_cost(root, value, order=order))
    except CostLimitExceeded as e:
        return str(e.cost)
    except Unsupported:
        return "UNSUPPORTED"
    except cel.CELMatchError:
        return "-"


def _celcost() -> str | None:
    built = Path(__file__).parents[2] / "upstream" / "bin" / "kschedconf-celcost"
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


def _recorded() -> list[tuple[int, str, str]]:
    out = []
    for line in RECORDED.read_text().splitlines():
        if line and not line.startswith("#"):
            device, expression, answer = line.split("\t")
            out.append((int(device), json.loads(expression), answer))
    return out


def _order_dependent(expression: str, device: int) -> bool:
    """Whether the cost depends on the maps' order (as built, reversed, rotated)."""
    return len({_ours(expression, device, order) for order in range(3)}) > 1


def _record() -> None:
    binary = _celcost()
    assert binary, "build upstream/celcost (upstream/build.sh) or set KSCHEDCONF_CELCOST"
    pairs = [(e, d) for e in _corpus() for d in range(len(DEVICES))]
    runs = [_upstream(pairs, binary) for _ in range(5)]
    kept = [
        f"{d}\t{json.dumps(e)}\t{a}"
        for (e, d), a, *more in zip(pairs, *runs, strict=True)
        if all(b == a for b in more) and not a.startswith("- ERR") and not _order_dependent(e, d)
    ]
    head = "# device\texpression\tupstream/celcost -actual: actual cost and outcome\n"
    RECORDED.write_text(head + "\n".join(kept) + "\n")


def _compare(recorded: list[tuple[int, str, str]]) -> tuple[list[Any], int]:
    """The recorded evaluations that differ (the reference's cost, "UNSUPPORTED" for one not
    restated), and how many are compared; an expression that does not read the device is
    compared on the first device only (compile_test.go's "expensive" takes the reference some
    15 s to count to the limit)."""
    differ, compared, seen = [], 0, set()
    for device, expression, answer in recorded:
        if "device" not in expression and expression in seen:
            continue
        seen.add(expression)
        compared += 1
        ours = _ours(expression, device)
        if ours != answer.split(" ", 1)[0]:
            differ.append((device, expression[:120], answer, ours))
    return differ, compared


def test_the_recorded_actual_costs() -> None:
    """Every recorded evaluation compared has upstream's actual cost (every form is
    restated), the ones stopped at the limit included (the cost at which cel-go stopped)."""
    recorded = _recorded()
    differ, compared = _compare(recorded)
    assert differ == []
    assert compared >= 1300 and len(recorded) >= 2200


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
        root = parse(expression)
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


def test_against_upstream_celcost() -> None:
    """The corpus on upstream/bin/kschedconf-celcost (built with -actual), where order does not
    matter: the same actual costs as recorded."""
    binary = _celcost()
    if binary is None:
        pytest.skip("upstream/bin/kschedconf-celcost with -actual is not built")
    recorded = _recorded()
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


def test_a_concatenation_takes_member_functions() -> None:
    """``_+_`` of two strings gave celpy's plain ``str``, on which ``contains`` failed ("no
    such overload"); the corpus's ``(d + "/" + k).contains(...)`` relies on it."""
    sel = cel.compile_selector('("a" + device.driver).contains("ad") && ([1] + [2]).size() == 2')
    assert sel.device_matches(cel.DeviceView("d"))


if __name__ == "__main__" and sys.argv[1:] == ["--record"]:
    _record()
