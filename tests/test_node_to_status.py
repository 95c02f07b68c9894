"""``NodeToStatus`` (reference_impl/framework/node_to_status.py) reads as the dict of Statuses
the per-node Filter search fills: the same keys in the same order, the same statuses, codes,
reason counts and reasons, whatever mix of single statuses and :class:`RowStatuses` blocks
(the vectorised search's compact statuses) is set, read and changed, in any order.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl.framework.node_to_status import NodeToStatus, RowStatuses
from reference_impl.framework.status import Code, Status

NAMES = tuple(f"n{i}" for i in range(8))
REASONS = ("Too many pods", "Insufficient cpu", "Insufficient memory")
CODES = (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE)


def _view(s: Status) -> tuple[object, ...]:
    return s.code, tuple(s.all_reasons()), s.plugin, s.error


def _expected(rows: list[tuple[str, int, int]]) -> list[tuple[str, Status]]:
    return [
        (n, Status(CODES[c], *(r for k, r in enumerate(REASONS) if b >> k & 1), plugin="Fit"))
        for n, c, b in rows
    ]


single = st.tuples(
    st.just("set"),
    st.sampled_from(NAMES),
    st.sampled_from(CODES),
    st.lists(st.sampled_from(("a", "b")), max_size=2),
)
block = st.tuples(
    st.just("rows"),
    st.lists(
        st.tuples(st.sampled_from(NAMES), st.integers(0, 1), st.integers(1, 7)),
        unique_by=lambda t: t[0],
        max_size=6,
    ),
)
other = st.tuples(st.sampled_from(("get", "del", "mutate", "snapshot")), st.sampled_from(NAMES))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(ops=st.lists(st.one_of(single, block, other), max_size=12))
def test_node_to_status_reads_as_the_dict_it_stands_for(ops: list[tuple]) -> None:
    m, model = NodeToStatus(), {}
    snapshots: list[tuple[object, dict[str, list[str]]]] = []
    for op in ops:
        if op[0] == "set":
            _, name, code, reasons = op
            m[name] = Status(code, *reasons, plugin="P")
            model[name] = Status(code, *reasons, plugin="P")
        elif op[0] == "rows":
            rows = op[1]
            names = [n for n, _, _ in rows]
            m.add_rows(
                RowStatuses(
                    names,
                    np.array([int(CODES[c]) for _, c, _ in rows], dtype=np.int64),
                    np.array([b for _, _, b in rows], dtype=np.int64),
                    REASONS,
                    "Fit",
                )
            )
            model.update(_expected(rows))
        elif op[0] == "get":
            assert (op[1] in m) == (op[1] in model)
            if op[1] in model:
                assert _view(m[op[1]]) == _view(model[op[1]])
        elif op[0] == "del":
            if op[1] in model:
                del m[op[1]]
                del model[op[1]]
        elif op[0] == "mutate":  # a reader changing a status it got, as the dict's own
            if op[1] in model:
                m[op[1]].reasons.append("changed")
                model[op[1]].reasons.append("changed")
        else:
            snapshots.append((m.reasons(), {n: s.all_reasons() for n, s in model.items()}))
        assert list(m) == list(model)
        assert len(m) == len(model)
        assert [_view(s) for s in m.values()] == [_view(s) for s in model.values()]
        assert m.codes() == {n: s.code for n, s in model.items()}
        assert all(m.code_of(n) == (model[n].code if n in model else None) for n in NAMES)
        hist: dict[str, int] = {}
        for s in model.values():
            for r in s.all_reasons():
                hist[r] = hist.get(r, 0) + 1
        assert m.reason_counts() == hist
    for view, expected in snapshots:  # the reasons of the map as it was then
        assert list(view.items()) == list(expected.items())


def test_a_block_is_read_without_building_its_statuses() -> None:
    rows = RowStatuses(
        ["a", "b", "c"],
        np.array([2, 3, 2], dtype=np.int64),
        np.array([1, 6, 2], dtype=np.int64),
        REASONS,
        "Fit",
    )
    m = NodeToStatus({"x": Status(Code.UNSCHEDULABLE, "other", plugin="P")})
    m.add_rows(rows)
    assert m.codes() == {
        "x": Code.UNSCHEDULABLE,
        "a": Code.UNSCHEDULABLE,
        "b": Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        "c": Code.UNSCHEDULABLE,
    }
    assert m.reason_counts() == {
        "other": 1,
        "Too many pods": 1,
        "Insufficient cpu": 2,
        "Insufficient memory": 1,
    }
    assert len(m) == 4 and list(m) == ["x", "a", "b", "c"]
    assert rows._made == {}  # nothing built so far
    assert m["b"] == Status(
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "Insufficient cpu", "Insufficient memory", plugin="Fit"
    )
    assert m["b"] is m["b"]
