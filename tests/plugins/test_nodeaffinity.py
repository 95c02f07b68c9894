"""NodeAffinity, restating pkg/scheduler/framework/plugins/nodeaffinity/node_affinity_test.go of
v1.37.2 (TestNodeAffinity, TestNodeAffinityPriority, Test_isSchedulableAfterNodeChange)."""

from __future__ import annotations

import pytest

from reference_impl.config.args import NodeAffinityArgs
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.interfaces import MAX_NODE_SCORE
from reference_impl.framework.status import Code, PluginError, Status
from reference_impl.framework.testing import FakeHandle
from reference_impl.framework.types import NodeInfo
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
from reference_impl.plugins.nodeaffinity import (
    ERR_REASON_CONFLICT,
    ERR_REASON_ENFORCED,
    ERR_REASON_POD,
)
from reference_impl.plugins.nodeaffinity import NodeAffinity as NodeAffinityPlugin

NAME = "metadata.name"
POD_REASON = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_POD)


def req(key: str, op: str, *values: str) -> NodeSelectorRequirement:
    return NodeSelectorRequirement(key=key, operator=op, values=tuple(values))


def term(exprs=(), fields=()) -> NodeSelectorTerm:
    return NodeSelectorTerm(match_expressions=tuple(exprs), match_fields=tuple(fields))


def required(*terms: NodeSelectorTerm) -> Pod:
    return Pod(namespace="", name="p", uid="p", affinity=Affinity(node_affinity=NodeAffinity(
        required=NodeSelector(tuple(terms)))))


def with_selector(sel: dict, *terms: NodeSelectorTerm) -> Pod:
    p = required(*terms) if terms else Pod(namespace="", name="p", uid="p")
    p.node_selector = dict(sel)
    return p


def empty_pod() -> Pod:
    return Pod(namespace="", name="p", uid="p")


def added_required(*terms: NodeSelectorTerm) -> NodeAffinityArgs:
    return NodeAffinityArgs(added_affinity=NodeAffinity(required=NodeSelector(tuple(terms))))


def make(args: NodeAffinityArgs | None = None) -> NodeAffinityPlugin:
    return NodeAffinityPlugin(args, FakeHandle(features={}))


# TestNodeAffinity: (name, pod, labels, node name, want filter status, want prefilter status,
#                    want prefilter node names, args, run prefilter)
def case(name, pod, labels=None, node_name="", status=None, pf_status=None, pf_names=None,
         args=None, run_pre_filter=True):
    return (name, pod, labels or {}, node_name, status, pf_status, pf_names, args, run_pre_filter)


FILTER_CASES = [
    case("missing labels", with_selector({"foo": "bar"}), status=POD_REASON),
    case("same labels", with_selector({"foo": "bar"}), {"foo": "bar"}),
    case("node labels are superset", with_selector({"foo": "bar"}), {"foo": "bar", "baz": "blah"}),
    case("node labels are subset", with_selector({"foo": "bar", "baz": "blah"}), {"foo": "bar"},
         status=POD_REASON),
    case("In operator matches", required(term([req("foo", "In", "bar", "value2")])),
         {"foo": "bar"}),
    case("Gt operator matches", required(term([req("kernel-version", "Gt", "0204")])),
         {"kernel-version": "0206"}),
    case("NotIn operator matches", required(term([req("mem-type", "NotIn", "DDR", "DDR2")])),
         {"mem-type": "DDR3"}),
    case("Exists operator matches", required(term([req("GPU", "Exists")])),
         {"GPU": "NVIDIA-GRID-K1"}),
    case("affinity doesn't match node labels",
         required(term([req("foo", "In", "value1", "value2")])), {"foo": "bar"},
         status=POD_REASON),
    case("empty MatchExpressions matches nothing", required(term()), {"foo": "bar"},
         status=POD_REASON),
    case("no Affinity", empty_pod(), {"foo": "bar"}, pf_status=Status(Code.SKIP)),
    case("Affinity but nil NodeSelector",
         Pod(namespace="", name="p", uid="p", affinity=Affinity(node_affinity=NodeAffinity())),
         {"foo": "bar"}, pf_status=Status(Code.SKIP)),
    case("multiple matchExpressions ANDed, match",
         required(term([req("GPU", "Exists"), req("GPU", "NotIn", "AMD", "INTER")])),
         {"GPU": "NVIDIA-GRID-K1"}),
    case("multiple matchExpressions ANDed, no match",
         required(term([req("GPU", "Exists"), req("GPU", "In", "AMD", "INTER")])),
         {"GPU": "NVIDIA-GRID-K1"}, status=POD_REASON),
    case("multiple terms ORed",
         required(term([req("foo", "In", "bar", "value2")]),
                  term([req("diffkey", "In", "wrong", "value2")])), {"foo": "bar"}),
    case("Affinity and NodeSelector both satisfied",
         with_selector({"foo": "bar"}, term([req("foo", "Exists")])), {"foo": "bar"}),
    case("Affinity matches, NodeSelector not",
         with_selector({"foo": "bar"}, term([req("foo", "Exists")])), {"foo": "barrrrrr"},
         status=POD_REASON),
    case("invalid value in Affinity term",
         required(term([req("foo", "NotIn", "invalid value: ___@#$%^")])), {"foo": "bar"},
         status=POD_REASON),
    case("matchFields In matches", required(term(fields=[req(NAME, "In", "node1")])),
         node_name="node1", pf_names={"node1"}),
    case("matchFields In does not match", required(term(fields=[req(NAME, "In", "node1")])),
         node_name="node2", status=POD_REASON, pf_names={"node1"}),
    case("two terms: matchFields no, matchExpressions yes",
         required(term(fields=[req(NAME, "In", "node1"), req(NAME, "In", "node2")]),
                  term([req("foo", "In", "bar")])),
         {"foo": "bar"}, "node2"),
    case("one term: matchFields no, matchExpressions yes",
         required(term([req("foo", "In", "bar")], [req(NAME, "In", "node1")])),
         {"foo": "bar"}, "node2", status=POD_REASON, pf_names={"node1"}),
    case("one term: both match",
         required(term([req("foo", "In", "bar")], [req(NAME, "In", "node1")])),
         {"foo": "bar"}, "node1", pf_names={"node1"}),
    case("two terms: both do not match",
         required(term(fields=[req(NAME, "In", "node1")]),
                  term([req("foo", "In", "not-match-to-bar")])),
         {"foo": "bar"}, "node2", status=POD_REASON),
    case("two terms of node.Name affinity",
         required(term(fields=[req(NAME, "In", "node1")]),
                  term(fields=[req(NAME, "In", "node2")])),
         node_name="node2", pf_names={"node1", "node2"}),
    case("two conflicting match field requirements",
         required(term(fields=[req(NAME, "In", "node1"), req(NAME, "In", "node2")])),
         {"foo": "bar"}, "node2",
         pf_status=Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_CONFLICT),
         status=POD_REASON),
    case("matches added affinity and pod's node affinity",
         required(term([req("zone", "In", "foo")])), {"zone": "foo"}, "node2",
         args=added_required(term(fields=[req(NAME, "In", "node2")]))),
    case("matches added affinity but not pod's node affinity",
         required(term([req("zone", "In", "bar")])), {"zone": "foo"}, "node2",
         args=added_required(term(fields=[req(NAME, "In", "node2")])), status=POD_REASON),
    case("doesn't match added affinity", empty_pod(), {"zone": "foo"}, "node2",
         args=added_required(term([req("zone", "In", "bar")])),
         status=Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_ENFORCED)),
    case("matches node selector even if PreFilter is not called",
         with_selector({"foo": "bar"}), {"foo": "bar", "baz": "blah"}, run_pre_filter=False),
    case("matches node affinity even if PreFilter is not called",
         required(term([req("GPU", "Exists"), req("GPU", "NotIn", "AMD", "INTER")])),
         {"GPU": "NVIDIA-GRID-K1"}, run_pre_filter=False),
]


@pytest.mark.parametrize("name,pod,labels,node_name,status,pf_status,pf_names,args,run_pf",
                         FILTER_CASES, ids=[c[0] for c in FILTER_CASES])
def test_node_affinity_filter(name, pod, labels, node_name, status, pf_status, pf_names, args,
                              run_pf):
    p = make(args)
    state = CycleState()
    ni = NodeInfo(Node(name=node_name, labels=dict(labels)))
    if run_pf:
        result, got_pf_status = p.pre_filter(state, pod, [])
        assert got_pf_status == pf_status
        if pf_names is None:
            assert result is None
        else:
            assert result is not None and result.node_names == pf_names
    assert p.filter(state, pod, ni) == status


LABEL1 = {"foo": "bar"}
LABEL2 = {"key": "value"}
LABEL3 = {"az": "az1"}
LABEL4 = {"abc": "az11", "def": "az22"}
LABEL5 = {"foo": "bar", "key": "value", "az": "az1"}

AFFINITY1 = NodeAffinity(preferred=(PreferredSchedulingTerm(2, term([req("foo", "In", "bar")])),))
AFFINITY2 = NodeAffinity(preferred=(
    PreferredSchedulingTerm(2, term([req("foo", "In", "bar")])),
    PreferredSchedulingTerm(4, term([req("key", "In", "value")])),
    PreferredSchedulingTerm(5, term([req("foo", "In", "bar"), req("key", "In", "value"),
                                     req("az", "In", "az1")])),
))


def pref_pod(na: NodeAffinity | None) -> Pod:
    return Pod(namespace="", name="p", uid="p",
               affinity=Affinity(node_affinity=na) if na is not None else None)


def nodes(*pairs) -> list[Node]:
    return [Node(name=n, labels=dict(lbl)) for n, lbl in pairs]


# TestNodeAffinityPriority: (name, pod, nodes, expected, args, run prescore)
SCORE_CASES = [
    ("all nodes same priority as NodeAffinity is nil", pref_pod(None),
     nodes(("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL3)),
     [("node1", 0), ("node2", 0), ("node3", 0)], None, False),
    ("no node matches preferred requirements", pref_pod(AFFINITY1),
     nodes(("node1", LABEL4), ("node2", LABEL2), ("node3", LABEL3)),
     [("node1", 0), ("node2", 0), ("node3", 0)], None, True),
    ("only node1 matches", pref_pod(AFFINITY1),
     nodes(("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL3)),
     [("node1", MAX_NODE_SCORE), ("node2", 0), ("node3", 0)], None, True),
    ("all nodes match with different priorities", pref_pod(AFFINITY2),
     nodes(("node1", LABEL1), ("node5", LABEL5), ("node2", LABEL2)),
     [("node1", 18), ("node5", MAX_NODE_SCORE), ("node2", 36)], None, True),
    ("added affinity", pref_pod(None),
     nodes(("node1", LABEL1), ("node2", LABEL2)),
     [("node1", MAX_NODE_SCORE), ("node2", 0)], NodeAffinityArgs(added_affinity=AFFINITY1), True),
    ("added affinity and pod has default affinity", pref_pod(AFFINITY1),
     nodes(("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL5)),
     [("node1", 40), ("node2", 60), ("node3", MAX_NODE_SCORE)],
     NodeAffinityArgs(added_affinity=NodeAffinity(preferred=(
         PreferredSchedulingTerm(3, term([req("key", "In", "value")])),))), True),
    ("priorities correct even if PreScore is not called", pref_pod(AFFINITY2),
     nodes(("node1", LABEL1), ("node5", LABEL5), ("node2", LABEL2)),
     [("node1", 18), ("node5", MAX_NODE_SCORE), ("node2", 36)], None, False),
]


@pytest.mark.parametrize("name,pod,node_list,expected,args,run_pre_score", SCORE_CASES,
                         ids=[c[0] for c in SCORE_CASES])
def test_node_affinity_priority(name, pod, node_list, expected, args, run_pre_score):
    p = make(args)
    state = CycleState()
    infos = [NodeInfo(n) for n in node_list]
    if run_pre_score:
        assert p.pre_score(state, pod, infos) is None
    scores = [[ni.name, p.score(state, pod, ni)] for ni in infos]
    assert p.normalize_score(state, pod, scores) is None
    assert [tuple(s) for s in scores] == expected


def test_raw_scores_are_summed_weights():
    p = make()
    state = CycleState()
    pod = pref_pod(AFFINITY2)
    infos = [NodeInfo(n) for n in nodes(("node1", LABEL1), ("node5", LABEL5), ("node2", LABEL2))]
    p.pre_score(state, pod, infos)
    assert [p.score(state, pod, ni) for ni in infos] == [2, 11, 4]


def test_pre_score_skip_when_node_affinity_is_nil():
    # TestNodeAffinityPriority "Skip is returned in PreScore when NodeAffinity is nil"
    assert make().pre_score(CycleState(), pref_pod(None), []) == Status(Code.SKIP)


BROKEN_MESSAGE = (
    '[0].matchExpressions[0].key: Invalid value: "invalid key": name part must consist of '
    "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")


def test_pre_score_error_on_broken_affinity():
    # TestNodeAffinityPriority "PreScore returns error when an incoming Pod has a broken affinity"
    pod = pref_pod(NodeAffinity(preferred=(
        PreferredSchedulingTerm(2, term([req("invalid key", "In", "bar")])),)))
    status = make().pre_score(CycleState(), pod, [])
    assert status is not None and status.code == Code.ERROR
    assert status.message() == BROKEN_MESSAGE
    with pytest.raises(PluginError) as ei:
        make().score(CycleState(), pod, NodeInfo(Node("node1")))
    assert str(ei.value) == BROKEN_MESSAGE


def test_invalid_added_affinity_is_rejected_at_construction():
    args = added_required(term(fields=[req(NAME, "In", "a", "b")]))
    with pytest.raises(ValueError) as ei:
        make(args)
    assert str(ei.value) == (
        "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
        '.matchFields[0].values: Invalid value: ["a","b"]: must have one element')


# Test_isSchedulableAfterNodeChange
ENFORCED = added_required(term([req("foo", "In", "bar")]))


def hint_pod() -> Pod:
    return required(term([req("foo", "In", "bar")]))


HINT_CASES = [
    ("backoff-wrong-new-object", None, None, "not-a-node", "Queue", True),
    ("backoff-wrong-old-object", None, "not-a-node", Node(""), "Queue", True),
    ("skip-queue-on-add", None, None, Node(""), "QueueSkip", False),
    ("queue-on-add", None, None, Node("", labels={"foo": "bar"}), "Queue", False),
    ("skip-unrelated-changes", None, Node(""), Node(""), "QueueSkip", False),
    ("skip-unrelated-changes-on-labels", None, Node(""), Node("", labels={"k": "v"}),
     "QueueSkip", False),
    ("skip-labels-changes-on-node-from-suitable-to-unsuitable", None,
     Node("", labels={"foo": "bar"}), Node("", labels={"k": "v"}), "QueueSkip", False),
    ("queue-on-labels-change-makes-pod-schedulable", None, Node(""),
     Node("", labels={"foo": "bar"}), "Queue", False),
    ("skip-unrelated-change-that-keeps-pod-schedulable", None, Node("", labels={"foo": "bar"}),
     Node("", labels={"foo": "bar"}), "QueueSkip", False),
    ("skip-queue-on-add-scheduler-enforced-node-affinity", ENFORCED, None, Node(""),
     "QueueSkip", False),
    ("queue-on-add-scheduler-enforced-node-affinity", ENFORCED, None,
     Node("", labels={"foo": "bar"}), "Queue", False),
]


@pytest.mark.parametrize("name,args,old,new,hint,want_err", HINT_CASES,
                         ids=[c[0] for c in HINT_CASES])
def test_is_schedulable_after_node_change(name, args, old, new, hint, want_err):
    got, err = make(args).is_schedulable_after_node_change(hint_pod(), old, new)
    assert (err is not None) is want_err
    assert got == hint


def test_events_and_signature():
    p = make()
    assert p.events_to_register() == [
        ("Node", ("Add", "UpdateNodeLabel"), "is_schedulable_after_node_change")]
    frags, status = p.sign_pod(with_selector({"a": "1"}))
    assert status is None
    assert frags == [("v1.Pod.Spec.Affinity.NodeAffinity", None),
                     ("v1.Pod.Spec.Affinity.NodeSelector", {"a": "1"})]
