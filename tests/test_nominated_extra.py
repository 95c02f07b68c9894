"""``resource_only.nominated_extra`` (the nominated pods' requests per node row, for the
statuses from the columns) against Python's integers: the sums of the pods addGENominatedPods
adds (equal or higher priority, not the pod itself), and a row whose sums leave the columns'
safe bounds marked not ok with nothing added, on both of its paths (int64 sums, and Python's
integers when a row has 256 pods or more or a value is beyond the bound). ``NominatedSums``
(the same sums kept across a nominator's changes) against it.
"""

from __future__ import annotations

import numpy as np
import pytest

from reference_impl.framework.columns import SAFE_BOUND
from reference_impl.framework.status import NominatingInfo
from reference_impl.framework.types import PodInfo
from reference_impl.model.loader import load_documents
from reference_impl.plugins.resource_only import NominatedSums, nominated_extra, requests_of
from reference_impl.scheduler.nominator import Nominator
from reference_impl.scheduler.scheduler import Scheduler
from reference_impl.testing.nodes import make_node
from reference_impl.testing.pods import make_pod

HUGE = "20Pi"  # below the bound alone, beyond it twice


def _cluster(pods: list[tuple[str, int, str, str]]) -> tuple[Scheduler, list[PodInfo]]:
    docs = [
        make_node(f"n{i}").capacity(cpu="4", memory="8Gi", pods="110").manifest() for i in range(3)
    ]
    docs += [
        make_pod(name).priority(prio).req(cpu="100m", memory=mem).manifest()
        for name, prio, mem, _ in pods
    ]
    cluster = load_documents(docs).cluster
    by_name = {p.name: p for p in cluster.pods}
    return Scheduler(cluster, seed=0), [PodInfo(by_name[name]) for name, _, _, _ in pods]


CASES = {
    "small": [
        ("a", 5, "1Gi", "n0"),
        ("b", 10, "2Gi", "n0"),
        ("c", 1, "1Gi", "n1"),
        ("self", 10, "1Gi", "n2"),
        ("gone", 10, "1Gi", "elsewhere"),
    ],
    "beyond the bound": [("a", 10, HUGE, "n0"), ("b", 10, HUGE, "n0"), ("c", 10, "1Gi", "n1")],
    "many on a row": [(f"p{i}", 10, "1Mi", "n1") for i in range(300)] + [("q", 10, HUGE, "n2")],
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_nominated_extra_sums_as_python_integers(case: str) -> None:
    pods = CASES[case]
    scheduler, infos = _cluster(pods)
    cols = scheduler.snapshot.columns()
    nominated: dict[str, list[PodInfo]] = {}
    for (_, _, _, node), pi in zip(pods, infos, strict=True):
        nominated.setdefault(node, []).append(pi)
    me = next(pi.pod for pi in infos if pi.pod.name == "self") if case == "small" else None
    uid = me.uid if me is not None else "nobody"
    ok = np.ones(len(cols), dtype=np.bool_)
    got = nominated_extra(cols, nominated, 5, uid, ok)
    assert got is not None
    want = {row: [0, 0, 0, 0] for row in range(len(cols))}
    for node, infos_on in nominated.items():
        row = cols.row_of.get(node)
        for pi in infos_on if row is not None else []:
            if pi.pod.priority >= 5 and pi.pod.uid != uid:
                r = requests_of(pi)
                for k, v in enumerate((r.milli_cpu, r.memory, r.ephemeral_storage, 1)):
                    want[row][k] += v
    for row, sums in want.items():
        beyond = not all(0 <= v <= SAFE_BOUND for v in sums)
        assert bool(ok[row]) == (not beyond)
        expect = [0, 0, 0, 0] if beyond else sums
        assert [int(a[row]) for a in got] == expect, (case, row)


def _same(a: tuple | None, b: tuple | None) -> bool:
    if a is None or b is None:
        return a is b
    return all(np.array_equal(x, y) and x.dtype == y.dtype for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("case", sorted(CASES))
def test_nominated_sums_follow_the_nominator(case: str) -> None:
    """After each change of a nominator (nominate, move, delete, leave the queue), for each
    priority and each pod (and none), the kept sums and the ok mask are nominated_extra's,
    and the rows with nominated pods are the nominator's nodes."""
    pods = CASES[case]
    scheduler, infos = _cluster(pods)
    cols = scheduler.snapshot.columns()
    nom = Nominator()
    sums = NominatedSums(nom.nominated_pods, nom.change_log, nom.nominated_node_of_uid)
    uids = [pi.pod.uid for pi in infos[:3]] + ["nobody"]
    steps: list[tuple[str, PodInfo, str]] = [
        ("add", pi, node) for (_, _, _, node), pi in zip(pods, infos, strict=True)]
    steps += [("add", infos[0], "n2"), ("leave", infos[1], ""), ("delete", infos[2], ""),
              ("delete", infos[0], ""), ("add", infos[2], "n1")]
    checked = 0
    for action, pi, node in steps:
        if action == "add":
            nom.add_nominated_pod(pi, NominatingInfo(node))
        elif action == "leave":
            nom.left_the_queue(pi.pod)
        else:
            nom.delete(pi.pod)
        names = list(cols.row_of)  # by row
        assert sums.present(cols).tolist() == [n in nom.nominated_pods for n in names]
        for prio in (0, 5, 10, 11):
            for uid in uids:
                ok_want = np.ones(len(cols), dtype=np.bool_)
                ok_got = ok_want.copy()
                want = nominated_extra(cols, nom.nominated_pods, prio, uid, ok_want)
                got = sums.extra(cols, prio, uid, ok_got)
                assert _same(got, want), (case, action, prio, uid)
                assert np.array_equal(ok_got, ok_want)
                checked += 1
    assert checked == len(steps) * 16
