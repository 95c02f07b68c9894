"""Node selector / node affinity matching, restating upstream's unit tests of v1.37.2.

Sources:
- staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity_test.go:
  TestNodeSelectorMatch, TestPreferredSchedulingTermsScore, TestNodeSelectorRequirementsAsSelector,
  TestPodMatchesNodeSelectorAndAffinityTerms
- staging/src/k8s.io/component-helpers/scheduling/corev1/helpers_test.go: TestMatchNodeSelectorTerms
"""

from __future__ import annotations

import json

import pytest

from reference_impl.api.node_selectors import (
    NodeSelectorParseError,
    get_pod_node_affinity_match,
    get_required_node_affinity,
    match_node_selector_terms,
    new_lazy_error_node_selector,
    new_node_selector,
    new_preferred_scheduling_terms,
    node_affinity_signer,
    parse_int64,
)
from reference_impl.model.objects import (
    Affinity,
    Node,
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Pod,
    PreferredSchedulingTerm,
)

NAME = "metadata.name"
KEY_REGEX_DETAIL = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")


def req(key: str, op: str, *values: str) -> NodeSelectorRequirement:
    return NodeSelectorRequirement(key=key, operator=op, values=tuple(values))


def term(exprs=(), fields=()) -> NodeSelectorTerm:
    return NodeSelectorTerm(match_expressions=tuple(exprs), match_fields=tuple(fields))


def selector(*terms: NodeSelectorTerm) -> NodeSelector:
    return NodeSelector(node_selector_terms=tuple(terms))


def node(name: str = "", labels: dict | None = None) -> Node:
    return Node(name=name, labels=dict(labels or {}))


def pod(node_selector: dict | None = None, required: NodeSelector | None = None,
        with_node_affinity: bool = False) -> Pod:
    affinity = None
    if required is not None or with_node_affinity:
        affinity = Affinity(node_affinity=NodeAffinity(required=required))
    return Pod(namespace="default", name="p", uid="p", node_selector=dict(node_selector or {}),
               affinity=affinity)


# ---- nodeaffinity_test.go TestNodeSelectorMatch ----

def test_node_selector_match_nil_node():
    assert new_node_selector(selector()).match(None) is False


def test_node_selector_match_invalid_field_and_label_selector():
    ns = selector(
        term(fields=[req(NAME, "In", "host_1", "host_2")]),
        term(exprs=[req("label_1", "In", "label_1_val")], fields=[req(NAME, "In", "host_1")]),
        term(exprs=[req("invalid key", "In", "label_value")]),
    )
    with pytest.raises(NodeSelectorParseError) as ei:
        new_node_selector(ns)
    assert [str(e) for e in ei.value.errors] == [
        'nodeSelectorTerms[0].matchFields[0].values: Invalid value: ["host_1","host_2"]: '
        "must have one element",
        f'nodeSelectorTerms[2].matchExpressions[0].key: Invalid value: "invalid key": '
        f"{KEY_REGEX_DETAIL}",
    ]
    assert str(ei.value) == "[" + ", ".join(str(e) for e in ei.value.errors) + "]"


@pytest.mark.parametrize("name,ns,n,want", [
    ("node matches field selector, but not labels",
     selector(term(exprs=[req("label_1", "In", "label_1_val")],
                   fields=[req(NAME, "In", "host_1")])),
     node("host_1"), False),
    ("node matches field selector and label selector",
     selector(term(exprs=[req("label_1", "In", "label_1_val")],
                   fields=[req(NAME, "In", "host_1")])),
     node("host_1", {"label_1": "label_1_val"}), True),
    ("second term matches",
     selector(term(exprs=[req("label_1", "In", "label_1_val")]),
              term(fields=[req(NAME, "In", "host_1")])),
     node("host_1"), True),
])
def test_node_selector_match(name, ns, n, want):
    assert new_node_selector(ns).match(n) is want


# ---- nodeaffinity_test.go TestPreferredSchedulingTermsScore ----

def test_preferred_scheduling_terms_invalid():
    terms = [
        PreferredSchedulingTerm(1, term(fields=[req(NAME, "In", "host_1", "host_2")])),
        PreferredSchedulingTerm(1, term(exprs=[req("label_1", "In", "label_1_val")],
                                        fields=[req(NAME, "In", "host_1")])),
        PreferredSchedulingTerm(1, term(exprs=[req("invalid key", "In", "label_value")])),
    ]
    with pytest.raises(NodeSelectorParseError) as ei:
        new_preferred_scheduling_terms(terms)
    assert [str(e) for e in ei.value.errors] == [
        '[0].matchFields[0].values: Invalid value: ["host_1","host_2"]: must have one element',
        f'[2].matchExpressions[0].key: Invalid value: "invalid key": {KEY_REGEX_DETAIL}',
    ]


def test_preferred_scheduling_terms_invalid_but_no_weight_not_reported():
    terms = [PreferredSchedulingTerm(0, term(fields=[req(NAME, "In", "host_1", "host_2")]))]
    assert new_preferred_scheduling_terms(terms).score(node("host_1")) == 0


def test_preferred_scheduling_terms_first_and_third_match():
    terms = [
        PreferredSchedulingTerm(5, term(fields=[req(NAME, "In", "host_1")])),
        PreferredSchedulingTerm(7, term(exprs=[req("unknown_label", "In", "unknown_label_val")])),
        PreferredSchedulingTerm(11, term(exprs=[req("label_1", "In", "label_1_val")])),
    ]
    n = node("host_1", {"label_1": "label_1_val"})
    assert new_preferred_scheduling_terms(terms).score(n) == 16


# ---- nodeaffinity_test.go TestNodeSelectorRequirementsAsSelector ----

def test_requirements_as_selector_errors():
    # Exists with values -> parse error
    with pytest.raises(NodeSelectorParseError) as ei:
        new_node_selector(selector(term(exprs=[req("foo", "Exists", "bar", "baz")])))
    assert str(ei.value) == (
        'nodeSelectorTerms[0].matchExpressions[0].values: Invalid value: '
        '["bar","baz"]: values set must be empty for exists and does not exist')
    # unknown operator -> NotSupported
    with pytest.raises(NodeSelectorParseError) as ei:
        new_node_selector(selector(term(exprs=[req("baz", "invalid", "5")])))
    assert str(ei.value) == (
        'nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: "invalid": '
        'supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"')


@pytest.mark.parametrize("r,labels,want", [
    (req("foo", "In", "bar", "baz"), {"foo": "baz"}, True),
    (req("foo", "In", "bar", "baz"), {"foo": "qux"}, False),
    (req("foo", "Gt", "1"), {"foo": "2"}, True),
    (req("foo", "Gt", "1"), {"foo": "1"}, False),
    (req("bar", "Lt", "7"), {"bar": "6"}, True),
    (req("bar", "Lt", "7"), {"bar": "7"}, False),
    (req("bar", "Lt", "7"), {}, False),
    # an unparsable node label never matches Gt/Lt
    (req("bar", "Lt", "7"), {"bar": "six"}, False),
    (req("bar", "Gt", "7"), {"bar": "99999999999999999999"}, False),
    (req("foo", "NotIn", "bar"), {}, True),
    (req("foo", "DoesNotExist"), {"foo": ""}, False),
    (req("foo", "Exists"), {"foo": ""}, True),
])
def test_requirement_matches(r, labels, want):
    assert new_node_selector(selector(term(exprs=[r]))).match(node("n", labels)) is want


def test_gt_requires_one_integer_value():
    with pytest.raises(NodeSelectorParseError) as ei:
        new_node_selector(selector(term(exprs=[req("foo", "Gt", "x")])))
    assert str(ei.value) == ('nodeSelectorTerms[0].matchExpressions[0].values[0]: Invalid value: '
                             '"x": for \'Gt\', \'Lt\' operators, the value must be an integer')
    with pytest.raises(NodeSelectorParseError):
        new_node_selector(selector(term(exprs=[req("foo", "Lt", "1", "2")])))
    # the lazy selector keeps the broken term; it matches nothing and reports its error
    lazy = new_lazy_error_node_selector(selector(term(exprs=[req("foo", "Gt", "x")]),
                                                 term(exprs=[req("bar", "Exists")])))
    assert lazy.match_with_error(node("n", {"bar": "1"})) == (True, None)
    ok, err = lazy.match_with_error(node("n", {"foo": "5"}))
    assert ok is False and "the value must be an integer" in err


def test_parse_int64():
    assert parse_int64("0204") == 204
    assert parse_int64("+5") == 5
    assert parse_int64("-9223372036854775808") == -(1 << 63)
    assert parse_int64("9223372036854775808") is None
    assert parse_int64(" 1") is None
    assert parse_int64("1_000") is None
    assert parse_int64("") is None


# ---- nodeaffinity_test.go TestPodMatchesNodeSelectorAndAffinityTerms ----

def _required(*terms):
    return selector(*terms)


POD_MATCH_CASES = [
    ("no selector", pod(), {}, "", True),
    ("missing labels", pod({"foo": "bar"}), {}, "", False),
    ("same labels", pod({"foo": "bar"}), {"foo": "bar"}, "", True),
    ("node labels are superset", pod({"foo": "bar"}), {"foo": "bar", "baz": "blah"}, "", True),
    ("node labels are subset", pod({"foo": "bar", "baz": "blah"}), {"foo": "bar"}, "", False),
    ("In operator matches",
     pod(required=_required(term(exprs=[req("foo", "In", "bar", "value2")]))),
     {"foo": "bar"}, "", True),
    ("Gt operator matches",
     pod(required=_required(term(exprs=[req("kernel-version", "Gt", "0204")]))),
     {"kernel-version": "0206"}, "", True),
    ("NotIn operator matches",
     pod(required=_required(term(exprs=[req("mem-type", "NotIn", "DDR", "DDR2")]))),
     {"mem-type": "DDR3"}, "", True),
    ("Exists operator matches",
     pod(required=_required(term(exprs=[req("GPU", "Exists")]))),
     {"GPU": "NVIDIA-GRID-K1"}, "", True),
    ("affinity that doesn't match node's labels",
     pod(required=_required(term(exprs=[req("foo", "In", "value1", "value2")]))),
     {"foo": "bar"}, "", False),
    ("nil []NodeSelectorTerm", pod(required=NodeSelector()), {"foo": "bar"}, "", False),
    ("empty MatchExpressions matches nothing",
     pod(required=_required(term())), {"foo": "bar"}, "", False),
    ("no Affinity", pod(), {"foo": "bar"}, "", True),
    ("Affinity but nil NodeSelector", pod(with_node_affinity=True), {"foo": "bar"}, "", True),
    ("multiple matchExpressions ANDed, match",
     pod(required=_required(term(exprs=[req("GPU", "Exists"),
                                        req("GPU", "NotIn", "AMD", "INTER")]))),
     {"GPU": "NVIDIA-GRID-K1"}, "", True),
    ("multiple matchExpressions ANDed, no match",
     pod(required=_required(term(exprs=[req("GPU", "Exists"),
                                        req("GPU", "In", "AMD", "INTER")]))),
     {"GPU": "NVIDIA-GRID-K1"}, "", False),
    ("multiple NodeSelectorTerms ORed",
     pod(required=_required(term(exprs=[req("foo", "In", "bar", "value2")]),
                            term(exprs=[req("diffkey", "In", "wrong", "value2")]))),
     {"foo": "bar"}, "", True),
    ("Affinity and NodeSelector both satisfied",
     pod({"foo": "bar"}, _required(term(exprs=[req("foo", "Exists")]))),
     {"foo": "bar"}, "", True),
    ("Affinity matches but NodeSelector not",
     pod({"foo": "bar"}, _required(term(exprs=[req("foo", "Exists")]))),
     {"foo": "barrrrrr"}, "", False),
    ("invalid value in Affinity term",
     pod(required=_required(term(exprs=[req("foo", "NotIn", "invalid value: ___@#$%^")]))),
     {"foo": "bar"}, "", False),
    ("matchFields In matches",
     pod(required=_required(term(fields=[req(NAME, "In", "node_1")]))), {}, "node_1", True),
    ("matchFields In does not match",
     pod(required=_required(term(fields=[req(NAME, "In", "node_1")]))), {}, "node_2", False),
    ("two terms: matchFields no, matchExpressions yes",
     pod(required=_required(term(fields=[req(NAME, "In", "node_1")]),
                            term(exprs=[req("foo", "In", "bar")]))),
     {"foo": "bar"}, "node_2", True),
    ("one term: matchFields no, matchExpressions yes",
     pod(required=_required(term(exprs=[req("foo", "In", "bar")],
                                 fields=[req(NAME, "In", "node_1")]))),
     {"foo": "bar"}, "node_2", False),
    ("one term: both match",
     pod(required=_required(term(exprs=[req("foo", "In", "bar")],
                                 fields=[req(NAME, "In", "node_1")]))),
     {"foo": "bar"}, "node_1", True),
    ("two terms: both do not match",
     pod(required=_required(term(fields=[req(NAME, "In", "node_1")]),
                            term(exprs=[req("foo", "In", "not-match-to-bar")]))),
     {"foo": "bar"}, "node_2", False),
]


@pytest.mark.parametrize("name,p,labels,node_name,want", POD_MATCH_CASES,
                         ids=[c[0] for c in POD_MATCH_CASES])
def test_pod_matches_node_selector_and_affinity_terms(name, p, labels, node_name, want):
    n = node(node_name, labels)
    assert get_required_node_affinity(p).match(n) is want
    assert get_required_node_affinity(p).match_with_error(n)[0] is want
    assert get_pod_node_affinity_match(p).match(n) is want


# ---- helpers_test.go TestMatchNodeSelectorTerms ----

MATCH_TERMS_CASES = [
    ("nil terms", None, None, False),
    ("node label matches matchExpressions terms",
     selector(term(exprs=[req("label_1", "In", "label_1_val")])),
     node("", {"label_1": "label_1_val"}), True),
    ("node field matches matchFields terms",
     selector(term(fields=[req(NAME, "In", "host_1")])), node("host_1"), True),
    ("invalid node field requirement",
     selector(term(fields=[req(NAME, "In", "host_1", "host_2")])), node("host_1"), False),
    ("fieldSelectorTerm with node labels",
     selector(term(fields=[req(NAME, "In", "host_1")])),
     node("not_host_1", {"metadata.name": "host_1"}), False),
    ("labelSelectorTerm with node fields",
     selector(term(exprs=[req(NAME, "In", "host_1")])), node("host_1"), False),
    ("labelSelectorTerm and fieldSelectorTerm, only node fields",
     selector(term(exprs=[req("label_1", "In", "label_1_val")],
                   fields=[req(NAME, "In", "host_1")])), node("host_1"), False),
    ("labelSelectorTerm and fieldSelectorTerm, both matched",
     selector(term(exprs=[req("label_1", "In", "label_1_val")],
                   fields=[req(NAME, "In", "host_1")])),
     node("host_1", {"label_1": "label_1_val"}), True),
    ("labelSelectorTerm and fieldSelectorTerm, one mismatched",
     selector(term(exprs=[req("label_1", "In", "label_1_val")],
                   fields=[req(NAME, "In", "host_1")])),
     node("host_1", {"label_1": "label_1_val-failed"}), False),
    ("multi-selector, one mismatched",
     selector(term(exprs=[req("label_1", "In", "label_1_val")]),
              term(fields=[req(NAME, "In", "host_1")])),
     node("host_1", {"label_1": "label_1_val-failed"}), True),
]


@pytest.mark.parametrize("name,ns,n,want", MATCH_TERMS_CASES, ids=[c[0] for c in MATCH_TERMS_CASES])
def test_match_node_selector_terms(name, ns, n, want):
    assert match_node_selector_terms(n, ns)[0] is want


def test_field_selector_ignored_for_unnamed_node_and_missing_fields_read_empty():
    # extractNodeFields yields nothing for an empty name, so the field part is skipped.
    assert new_node_selector(selector(term(fields=[req(NAME, "In", "x")]))).match(node(""))
    # fields other than metadata.name read as "".
    assert new_node_selector(selector(term(fields=[req("spec.foo", "In", "")]))).match(node("n"))
    assert not new_node_selector(selector(term(fields=[req("spec.foo", "In", "a")]))).match(
        node("n"))
    assert new_node_selector(selector(term(fields=[req(NAME, "NotIn", "a")]))).match(node("n"))


def test_node_affinity_signer():
    p = Pod(namespace="d", name="p", uid="p", affinity=Affinity(node_affinity=NodeAffinity(
        required=selector(term(exprs=[req("b", "In", "y", "x")], fields=[req(NAME, "In", "n")])),
        preferred=(PreferredSchedulingTerm(3, term(exprs=[req("a", "Exists")])),))))
    sig = node_affinity_signer(p)
    assert sig is not None
    assert sig["Required"] == [json.dumps({
        "MatchExpressions": ['{"key":"b","operator":"In","values":["x","y"]}'],
        "MatchFields": ['{"key":"metadata.name","operator":"In","values":["n"]}'],
    }, separators=(",", ":"))]
    assert sig["Preferred"] == [
        '{"Weight":3,"Preference":{"MatchExpressions":["{\\"key\\":\\"a\\",\\"operator\\":'
        '\\"Exists\\"}"],"MatchFields":[]}}']
    assert node_affinity_signer(Pod(namespace="d", name="q", uid="q")) is None
