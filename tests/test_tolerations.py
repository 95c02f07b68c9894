"""Taint/toleration matching, restating upstream's unit tests of v1.37.2.

Sources:
- staging/src/k8s.io/api/core/v1/toleration_test.go: TestTolerationToleratesTaint,
  TestCompareNumericValues
- staging/src/k8s.io/component-helpers/scheduling/corev1/helpers_test.go:
  TestFindMatchingUntoleratedTaint
- pkg/scheduler/framework/plugins/helper/taint_test.go: TestDoNotScheduleTaintsFilterFunc
"""

from __future__ import annotations

import pytest

from reference_impl.api.tolerations import (
    compare_numeric_values,
    do_not_schedule_taints_filter_func,
    find_matching_untolerated_taint,
    toleration_tolerates_taint,
    tolerations_signer,
    tolerations_tolerate_taint,
)
from reference_impl.model.objects import Taint, Toleration

NS, NE, PNS = "NoSchedule", "NoExecute", "PreferNoSchedule"
SLA = "node.kubernetes.io/sla"


def tol(key: str = "", op: str = "", value: str = "", effect: str = "") -> Toleration:
    return Toleration(key=key, operator=op, value=value, effect=effect)


def taint(key: str = "", value: str = "", effect: str = "") -> Taint:
    return Taint(key=key, value=value, effect=effect)


# toleration_test.go TestTolerationToleratesTaint: (description, toleration, taint, tolerated, gate)
TOLERATES_CASES = [
    ("same key and effect, Exists, taint has no value",
     tol("foo", "Exists", effect=NS), taint("foo", effect=NS), True, False),
    ("same key and effect, Exists, taint has some value",
     tol("foo", "Exists", effect=NS), taint("foo", "bar", NS), True, False),
    ("empty key and Exists matches all taints",
     tol("", "Exists", effect=NS), taint("foo", "bar", NS), True, False),
    ("same key, effect and value, Equal",
     tol("foo", "Equal", "bar", NS), taint("foo", "bar", NS), True, False),
    ("same key and effect, different values, Equal",
     tol("foo", "Equal", "value1", NS), taint("foo", "value2", NS), False, False),
    ("same key and value, different effects, Equal",
     tol("foo", "Equal", "bar", NS), taint("foo", "bar", NE), False, False),
    ("Gt - taint value less than toleration value",
     tol(SLA, "Gt", "950", NS), taint(SLA, "800", NS), False, True),
    ("Gt - taint value greater than toleration value",
     tol(SLA, "Gt", "750", NS), taint(SLA, "950", NS), True, True),
    ("Lt - taint value greater than toleration value",
     tol(SLA, "Lt", "800", NS), taint(SLA, "950", NS), False, True),
    ("Lt - taint value less than toleration value",
     tol(SLA, "Lt", "950", NS), taint(SLA, "800", NS), True, True),
    ("Gt and equal numeric value",
     tol(SLA, "Gt", "950", NS), taint(SLA, "950", NS), False, True),
    ("Gt and non-numeric taint value",
     tol(SLA, "Gt", "950", NS), taint(SLA, "high", NS), False, True),
    ("Gt and negative values, taint below threshold",
     tol("test-key", "Gt", "-100", NS), taint("test-key", "-200", NS), False, True),
    ("Gt and large int64 values, taint below threshold",
     tol("test-key", "Gt", "9223372036854775806", NS), taint("test-key", "100", NS), False, True),
]


@pytest.mark.parametrize("desc,toleration,tnt,want,gate", TOLERATES_CASES,
                         ids=[c[0] for c in TOLERATES_CASES])
def test_toleration_tolerates_taint(desc, toleration, tnt, want, gate):
    assert toleration_tolerates_taint(toleration, tnt, gate) is want


def test_comparison_operators_gate_off_tolerates_nothing():
    """With TaintTolerationComparisonOperators off (the v1.37.2 default) Lt/Gt never match."""
    assert toleration_tolerates_taint(tol(SLA, "Gt", "750", NS), taint(SLA, "950", NS), True)
    assert not toleration_tolerates_taint(tol(SLA, "Gt", "750", NS), taint(SLA, "950", NS), False)
    assert not toleration_tolerates_taint(tol(SLA, "Lt", "950", NS), taint(SLA, "800", NS))


def test_unknown_operator_and_empty_operator():
    assert not toleration_tolerates_taint(tol("foo", "Bogus", "bar"), taint("foo", "bar", NS))
    # "" operator means Equal; empty effect matches every effect.
    assert toleration_tolerates_taint(tol("foo", "", "bar"), taint("foo", "bar", NE))


# toleration_test.go TestCompareNumericValues:
# (description, toleration value, taint value, op, want)
COMPARE_CASES = [
    ("Gt taint greater", "100", "200", "Gt", True),
    ("Gt taint less", "200", "100", "Gt", False),
    ("Gt equal", "100", "100", "Gt", False),
    ("Gt negative, taint greater", "-100", "-50", "Gt", True),
    ("Gt negative, taint less", "-50", "-100", "Gt", False),
    ("Gt zero and positive", "0", "1", "Gt", True),
    ("Gt large int64, taint greater", "9223372036854775806", "9223372036854775807", "Gt", True),
    ("Lt taint less", "200", "100", "Lt", True),
    ("Lt taint greater", "100", "200", "Lt", False),
    ("Lt equal", "100", "100", "Lt", False),
    ("Lt negative, taint less", "-50", "-100", "Lt", True),
    ("Lt negative, taint greater", "-100", "-50", "Lt", False),
    ("Lt zero and negative", "0", "-1", "Lt", True),
    ("invalid toleration non-numeric", "abc", "100", "Gt", False),
    ("invalid toleration empty", "", "100", "Gt", False),
    ("invalid toleration leading zero", "0100", "200", "Gt", False),
    ("invalid toleration plus sign", "+100", "200", "Gt", False),
    ("invalid toleration float", "100.5", "200", "Gt", False),
    ("invalid toleration just minus", "-", "100", "Gt", False),
    ("invalid taint non-numeric", "100", "xyz", "Gt", False),
    ("invalid taint empty", "100", "", "Gt", False),
    ("invalid taint leading zero", "100", "0200", "Gt", False),
    ("invalid taint plus sign", "100", "+200", "Lt", False),
    ("invalid taint spaces", "100", " 200 ", "Lt", False),
    ("Equal unsupported", "100", "100", "Equal", False),
    ("Exists unsupported", "100", "100", "Exists", False),
    ("Gt both zero", "0", "0", "Gt", False),
    ("Lt both zero", "0", "0", "Lt", False),
    ("Gt max int64 taint", "0", "9223372036854775807", "Gt", True),
    ("Lt min int64 taint", "0", "-9223372036854775808", "Lt", True),
]


@pytest.mark.parametrize("desc,tv,taint_v,op,want", COMPARE_CASES,
                         ids=[c[0] for c in COMPARE_CASES])
def test_compare_numeric_values(desc, tv, taint_v, op, want):
    assert compare_numeric_values(tv, taint_v, op) is want


def test_compare_numeric_values_out_of_int64_range():
    # canonical decimal but beyond int64: strconv.ParseInt fails -> not tolerated
    assert not compare_numeric_values("0", "9223372036854775808", "Gt")


def _all(t: Taint) -> bool:
    return True


def _none(t: Taint) -> bool:
    return False


def _no_execute(t: Taint) -> bool:
    return t.effect == NE


# helpers_test.go TestFindMatchingUntoleratedTaint:
# (description, tolerations, taints, filter, tolerated, gate)
FIND_CASES = [
    ("empty tolerations tolerate empty taints", [], [], _all, True, False),
    ("non-empty tolerations tolerate empty taints",
     [tol("foo", "Exists", effect=NS)], [], _all, True, False),
    ("tolerations match all taints",
     [tol("foo", "Exists", effect=NS)], [taint("foo", effect=NS)], _all, True, False),
    ("no taints apply to the filter",
     [tol("foo", "Exists", effect=NS)], [taint("bar", effect=NS)], _none, True, False),
    ("no filterFunc: all taints apply, untolerated",
     [tol("foo", "Exists", effect=NS)], [taint("bar", effect=NS)], None, False, False),
    ("tolerations match filtered taints",
     [tol("foo", "Exists", effect=NE)], [taint("foo", effect=NE), taint("bar", effect=NS)],
     _no_execute, True, False),
    ("Gt below threshold", [tol(SLA, "Gt", "950", NS)], [taint(SLA, "800", NS)], _all, False, True),
    ("Gt above threshold", [tol(SLA, "Gt", "750", NS)], [taint(SLA, "950", NS)], _all, True, True),
    ("Lt above threshold", [tol(SLA, "Lt", "800", NS)], [taint(SLA, "950", NS)], _all, False, True),
    ("Gt non-numeric taint", [tol(SLA, "Gt", "950", NS)], [taint(SLA, "high", NS)], _all, False,
     True),
]


@pytest.mark.parametrize("desc,tols,taints,flt,tolerated,gate", FIND_CASES,
                         ids=[c[0] for c in FIND_CASES])
def test_find_matching_untolerated_taint(desc, tols, taints, flt, tolerated, gate):
    got = find_matching_untolerated_taint(taints, tols, flt, gate)
    assert (got is None) is tolerated


def test_find_matching_untolerated_taint_returns_first_in_node_order():
    taints = [taint("a", effect=PNS), taint("b", effect=NS), taint("c", effect=NE)]
    got = find_matching_untolerated_taint(taints, [], do_not_schedule_taints_filter_func())
    assert got == taint("b", effect=NS)
    assert not tolerations_tolerate_taint([], taints[0])


# taint_test.go TestDoNotScheduleTaintsFilterFunc
@pytest.mark.parametrize("effect,want", [(NS, True), (NE, True), (PNS, False)])
def test_do_not_schedule_taints_filter_func(effect, want):
    assert do_not_schedule_taints_filter_func()(Taint("", "", effect)) is want


def test_tolerations_signer_sorts_by_key_then_value():
    """``fwk.TolerationsSigner``: sorted by (key, value), omitempty JSON fields."""
    tols = [tol("b", "Exists"), tol("a", "Equal", "y", NS), tol("a", "", "x")]
    assert tolerations_signer(tols) == [
        {"key": "a", "value": "x"},
        {"key": "a", "operator": "Equal", "value": "y", "effect": NS},
        {"key": "b", "operator": "Exists"},
    ]
