"""PodTopologySpread keeps its per-domain counts up to date from the snapshot's change log
instead of re-walking every node; the result must equal a full recount (upstream's
calPreFilterState) after any sequence of pod additions and removals."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl.framework.testing import FakeHandle
from reference_impl.plugins.podtopologyspread.plugin import PodTopologySpread
from reference_impl.testing.wrappers import (
    HOSTNAME,
    ZONE,
    label_selector,
    make_node,
    make_pod,
    spread_constraint,
)

ZONES = ("z1", "z2", "z3")
SPREAD = [spread_constraint(1, ZONE, "DoNotSchedule", label_selector({"app": "web"})),
          spread_constraint(2, HOSTNAME, "DoNotSchedule", label_selector(None, ("app", "Exists")))]


def _state_tuple(s) -> tuple:
    return ([dict(sorted(m.items())) for m in s.tp_value_to_match_num],
            [p.num0 for p in s.critical_paths], s.self_match)


@settings(max_examples=60, deadline=None)
@given(ops=st.lists(st.tuples(st.booleans(), st.integers(0, 5), st.sampled_from(["web", "db"])),
                    max_size=25))
def test_incremental_counts_equal_full_recount(ops: list[tuple[bool, int, str]]) -> None:
    nodes = [make_node(f"n{i}").zone(ZONES[i % 3]).hostname().obj()
             for i in range(6)]
    handle = FakeHandle(nodes, [])
    plugin = PodTopologySpread(None, handle)
    incoming = make_pod("incoming").labels({"app": "web"}).topology_spread_constraints(SPREAD).obj()
    snapshot = handle.snapshot()
    bound = []
    for k, (add, node, app) in enumerate(ops):
        if add or not bound:
            p = make_pod(f"p{k}").labels({"app": app}).node(f"n{node}").obj()
            snapshot.add_pod(p)
            bound.append(p)
        else:
            snapshot.remove_pod(bound.pop(node % len(bound)))
        incremental = plugin.cal_pre_filter_state(incoming, snapshot.list())
        full = plugin.cal_pre_filter_state(incoming, list(snapshot.list()))
        assert _state_tuple(incremental) == _state_tuple(full)


def test_node_set_change_recounts() -> None:
    nodes = [make_node(f"n{i}").zone(ZONES[i % 3]).hostname().obj() for i in range(3)]
    handle = FakeHandle(nodes, [make_pod("a").labels({"app": "web"}).node("n0").obj()])
    plugin = PodTopologySpread(None, handle)
    incoming = make_pod("incoming").labels({"app": "web"}).topology_spread_constraints(SPREAD).obj()
    snapshot = handle.snapshot()
    first = plugin.cal_pre_filter_state(incoming, snapshot.list())
    assert first.tp_value_to_match_num[0] == {"z1": 1, "z2": 0, "z3": 0}
    relabelled = dataclasses.replace(nodes[1], labels={"topology.kubernetes.io/zone": "z1",
                                                       "kubernetes.io/hostname": "n1"})
    snapshot.update_node(relabelled)
    again = plugin.cal_pre_filter_state(incoming, snapshot.list())
    assert again.tp_value_to_match_num[0] == {"z1": 1, "z3": 0}
