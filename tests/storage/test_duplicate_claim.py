"""A pod naming one PersistentVolumeClaim in two volumes (issue 14, diff of
``--sizes storage=150 --seed 1``): ``GetPodVolumeClaims`` (pkg/scheduler/framework/plugins/
volumebinding/binder.go of k8s.io/kubernetes v1.37.2) lists the claim once per volume, so
``bindAPIUpdate`` updates it twice: the first update annotates it for the chosen node, the
simulated controllers provision and bind it, and the second update conflicts (an Error). The
retry finds the claim bound to its PV, so every node the PV admits passes VolumeBinding,
not only the node of the selected-node annotation."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from conformance.core.scenario import ScenarioInput
from conformance.engines.diff.known import load_known, scenario_matches
from conformance.subjects.reference import ReferenceSubject
from conformance.subjects.upstream import UpstreamSubject, binary_available
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.testing import FakeHandle
from reference_impl.framework.types import NodeInfo
from reference_impl.model.storage import ANN_SELECTED_NODE, PVC_BOUND
from reference_impl.plugins.volumebinding import VolumeBinding
from reference_impl.testing.nodes import make_node
from reference_impl.testing.pods import make_pod
from reference_impl.testing.storage import load_storage, make_pvc, make_storage_class

CONFLICT = ('running PreBind plugin "VolumeBinding": Operation cannot be fulfilled on '
            'persistentvolumeclaims "data": the object has been modified; please apply your '
            "changes to the latest version and try again")


def test_prebind_of_a_claim_named_twice_provisions_it_then_conflicts() -> None:
    """The first write of the claim is complete (provisioned and bound) although the second
    one conflicts; the retry's Filter then passes on a node other than the selected one."""
    storage = load_storage(
        make_storage_class("fast", "csi.example.com").wait_for_first_consumer(),
        make_pvc("data").uid("uid-data").storage_class("fast").access_modes(
            "ReadWriteOnce").request("1Gi"))
    n1, n2 = make_node("n1").hostname().obj(), make_node("n2").hostname().obj()
    handle = FakeHandle(nodes=[n1, n2], storage=storage)
    pl = VolumeBinding(None, handle)
    pod = make_pod("p").pvc("data", "v0").pvc("data", "v1").obj()
    state = CycleState()
    assert pl.pre_filter(state, pod, [])[1] is None
    assert pl.filter(state, pod, NodeInfo(n1)) is None
    assert pl.reserve(state, pod, "n1") is None
    status = pl.pre_bind(state, pod, "n1")
    assert status is not None and status.error is not None
    assert status.error in CONFLICT
    claim = storage.claims["default/data"]
    assert claim.annotations[ANN_SELECTED_NODE] == "n1"
    assert claim.phase == PVC_BOUND and claim.volume_name == "pvc-uid-data"
    pl.unreserve(state, pod, "n1")
    retry = CycleState()
    assert pl.pre_filter(retry, pod, [])[1] is None
    assert pl.filter(retry, pod, NodeInfo(n2)) is None  # the PV has no node affinity


SCENARIO = """
apiVersion: v1
kind: Node
metadata: {name: node-a, labels: {kubernetes.io/hostname: node-a}}
status: {capacity: {cpu: '4', memory: 8Gi, pods: 10}}
---
apiVersion: v1
kind: Node
metadata: {name: node-b, labels: {kubernetes.io/hostname: node-b}}
status: {capacity: {cpu: '2', memory: 8Gi, pods: 10}}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
provisioner: disk.csi.example.com
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: default}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
  storageClassName: fast
---
apiVersion: v1
kind: Pod
metadata: {name: app, namespace: default}
spec:
  containers:
  - {name: c, image: nginx, resources: {requests: {cpu: '1'}}}
  volumes:
  - {name: v0, persistentVolumeClaim: {claimName: data}}
  - {name: v1, persistentVolumeClaim: {claimName: data}}
"""


@pytest.fixture(scope="module")
def upstream() -> Iterator[UpstreamSubject]:
    subject = UpstreamSubject()
    yield subject
    subject.close()


def attempts(doc: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(a["pod"], a["outcome"], a["node"], a["message"]) for a in doc["attempts"]]


@pytest.mark.skipif(not binary_available(), reason="upstream subject not built: run "
                    "upstream/build.sh (needs Go and the module proxy)")
def test_claim_named_twice_reference_vs_upstream(upstream: UpstreamSubject) -> None:
    """Both: an Error (the conflict), then bound to node-a with the claim provisioned there.
    The retry's counts: the reference evaluates both nodes and both pass (the claim is bound,
    its PV admits both); upstream does the same, or, when its informer had not delivered the
    binding cycle's nominatedNodeName before the failure handler cleared it, evaluates only
    that nominated node (known divergence
    upstream-nominated-node-kept-after-fast-binding-failure)."""
    sc = ScenarioInput([d for d in yaml.safe_load_all(SCENARIO) if d], name="dup-claim")
    ref = ReferenceSubject().run(sc).result
    up = upstream.run(sc).result
    expected = [("default/app", "Error", None, CONFLICT),
                ("default/app", "Bound", "node-a", "")]
    assert attempts(ref) == expected
    assert attempts(up) == expected
    assert (ref["attempts"][1]["evaluatedNodes"], ref["attempts"][1]["feasibleNodes"]) == (2, 2)
    assert (up["attempts"][1]["evaluatedNodes"], up["attempts"][1]["feasibleNodes"]) in (
        (2, 2), (1, 1))
    assert ref["persistentVolumeClaims"] == up["persistentVolumeClaims"]
    assert ref["persistentVolumeClaims"][0]["selectedNode"] == "node-a"


def test_known_divergence_matches_only_a_claim_named_twice() -> None:
    """The upstream subject's nominatedNodeName race is known only for scenarios with a pod
    naming one claim in two volumes (claim-2 and claim-20 are two claims)."""
    (entry,) = [k for k in load_known()
                if k.id == "upstream-nominated-node-kept-after-fast-binding-failure"]
    twice = ScenarioInput([d for d in yaml.safe_load_all(SCENARIO) if d])
    assert scenario_matches(entry.scenario, twice)
    two = make_pod("p").pvc("claim-2", "v0").pvc("claim-20", "v1").obj()
    docs = [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
             "spec": {"containers": [{"name": "c", "image": "x"}],
                      "volumes": [dict(v) for v in two.volumes]}}]
    assert not scenario_matches(entry.scenario, ScenarioInput(docs))
