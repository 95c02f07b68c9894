"""The cache/snapshot: ``zone_key``, ``NodeTree`` and ``Snapshot``.

Cases restate upstream v1.37.2 ``pkg/scheduler/backend/cache/node_tree_test.go``
(TestNodeTree_AddNode, TestNodeTree_RemoveNode, TestNodeTree_UpdateNode, TestNodeTree_List,
TestNodeTreeMultiOperations) and, for image states, ``backend/cache/snapshot_test.go``
(TestGetNodeImageStates, TestCreateImageExistenceMap) as the cache computes them
(``cache.go`` addNodeImageStates / removeNodeImageStates: the size is the first node's, the node
set is cluster-wide). Tests marked "derived" follow ``backend/cache/cache.go`` UpdateSnapshot.

``NodeInfo`` cases restate ``pkg/scheduler/framework/types_test.go`` (TestNewNodeInfo,
TestNodeInfoRemovePod, TestUpdateUsedPorts_PodAdd, TestUpdateUsedPorts_PodRemove).

Not restated: TestNodeTree_List_Exhausted (corrupts ``numNodes`` on purpose), the error value of
removing a node that is not in the tree (the reference's ``remove`` returns nothing; the tree is
left unchanged as upstream's), the placement / PodGroup / mutation tests of snapshot_test.go
(GenericWorkload, off by default), and TestNewSnapshot (``NewSnapshot`` lists nodes in Go map
order; the scheduler's own snapshot comes from ``UpdateSnapshot`` and the node tree).
"""

from __future__ import annotations

import pytest

from reference_impl.framework.snapshot import NodeTree, Snapshot, zone_key
from reference_impl.framework.types import NodeInfo
from reference_impl.model.objects import (
    LABEL_FAILURE_DOMAIN_BETA_REGION,
    LABEL_FAILURE_DOMAIN_BETA_ZONE,
    LABEL_TOPOLOGY_REGION,
    LABEL_TOPOLOGY_ZONE,
    Affinity,
    Container,
    ContainerImage,
    ContainerPort,
    LabelSelector,
    Node,
    Pod,
    PodAffinity,
    PodAffinityTerm,
)
from reference_impl.model.quantity import parse_quantity_string
from reference_impl.model.requests import compute_pod_resources, host_ports

R, Z = LABEL_TOPOLOGY_REGION, LABEL_TOPOLOGY_ZONE

ALL_NODES = [
    Node("node-0"),
    Node("node-1", labels={R: "region-1"}),
    Node("node-2", labels={Z: "zone-2"}),
    Node("node-3", labels={R: "region-1", Z: "zone-2"}),
    Node("node-4", labels={R: "region-1", Z: "zone-2"}),
    Node("node-5", labels={R: "region-1", Z: "zone-3"}),
    Node("node-6", labels={R: "region-2", Z: "zone-2"}),
    Node("node-7", labels={R: "region-2", Z: "zone-2"}),
    Node("node-8", labels={R: "region-2", Z: "zone-2"}),
    Node("node-9", labels={R: "region-2", Z: "zone-2", LABEL_FAILURE_DOMAIN_BETA_REGION:
                           "region-2", LABEL_FAILURE_DOMAIN_BETA_ZONE: "zone-2"}),
    Node("node-10", labels={LABEL_FAILURE_DOMAIN_BETA_REGION: "region-2",
                            LABEL_FAILURE_DOMAIN_BETA_ZONE: "zone-3"}),
]


def new_tree(nodes: list[Node]) -> NodeTree:
    nt = NodeTree()
    for n in nodes:
        nt.add(n)
    return nt


def verify(nt: NodeTree, expected: dict[str, list[str]]) -> None:
    """node_tree_test.go verifyNodeTree."""
    assert nt.num_nodes == sum(len(v) for v in expected.values())
    assert nt.tree == expected
    assert len(nt.zones) == len(expected)
    assert set(nt.zones) == set(expected)
    # the membership index follows the lists (NodeTree._members)
    assert nt._members == {zone: set(names) for zone, names in expected.items()}


# ----- zone_key (component-helpers/node/topology GetZoneKey) ---------------------------------

@pytest.mark.parametrize("labels,want", [
    ({}, ""),
    ({R: "region-1"}, "region-1:\x00:"),
    ({Z: "zone-2"}, ":\x00:zone-2"),
    ({R: "r", Z: "z"}, "r:\x00:z"),
    # the deprecated beta labels win when present (even if empty)
    ({R: "r", Z: "z", LABEL_FAILURE_DOMAIN_BETA_REGION: "br", LABEL_FAILURE_DOMAIN_BETA_ZONE: "bz"},
     "br:\x00:bz"),
    ({R: "r", Z: "z", LABEL_FAILURE_DOMAIN_BETA_ZONE: ""}, "r:\x00:"),
    ({LABEL_FAILURE_DOMAIN_BETA_REGION: "", LABEL_FAILURE_DOMAIN_BETA_ZONE: ""}, ""),
])
def test_zone_key(labels, want):
    """staging/src/k8s.io/component-helpers/node/topology/helpers.go GetZoneKey."""
    assert zone_key(Node("n", labels=labels)) == want


# ----- TestNodeTree_AddNode -------------------------------------------------------------------

@pytest.mark.parametrize("name,nodes,expected", [
    ("single node no labels", ALL_NODES[:1], {"": ["node-0"]}),
    ("same node specified twice", [ALL_NODES[0], ALL_NODES[0]], {"": ["node-0"]}),
    ("mix of nodes with and without proper labels", ALL_NODES[:4],
     {"": ["node-0"], "region-1:\x00:": ["node-1"], ":\x00:zone-2": ["node-2"],
      "region-1:\x00:zone-2": ["node-3"]}),
    ("mix of nodes with and without proper labels and some zones with multiple nodes",
     ALL_NODES[:7],
     {"": ["node-0"], "region-1:\x00:": ["node-1"], ":\x00:zone-2": ["node-2"],
      "region-1:\x00:zone-2": ["node-3", "node-4"], "region-1:\x00:zone-3": ["node-5"],
      "region-2:\x00:zone-2": ["node-6"]}),
    ("nodes also using deprecated zone/region label", ALL_NODES[9:],
     {"region-2:\x00:zone-2": ["node-9"], "region-2:\x00:zone-3": ["node-10"]}),
])
def test_node_tree_add_node(name, nodes, expected):
    """node_tree_test.go TestNodeTree_AddNode."""
    verify(new_tree(nodes), expected)


# ----- TestNodeTree_RemoveNode ----------------------------------------------------------------

@pytest.mark.parametrize("name,existing,remove,expected", [
    ("remove a single node with no labels", ALL_NODES[:7], ALL_NODES[:1],
     {"region-1:\x00:": ["node-1"], ":\x00:zone-2": ["node-2"],
      "region-1:\x00:zone-2": ["node-3", "node-4"], "region-1:\x00:zone-3": ["node-5"],
      "region-2:\x00:zone-2": ["node-6"]}),
    ("remove a few nodes including one from a zone with multiple nodes", ALL_NODES[:7],
     ALL_NODES[1:4],
     {"": ["node-0"], "region-1:\x00:zone-2": ["node-4"], "region-1:\x00:zone-3": ["node-5"],
      "region-2:\x00:zone-2": ["node-6"]}),
    ("remove all nodes", ALL_NODES[:7], ALL_NODES[:7], {}),
    ("remove non-existing node", [], ALL_NODES[:5], {}),
])
def test_node_tree_remove_node(name, existing, remove, expected):
    """node_tree_test.go TestNodeTree_RemoveNode (upstream also returns an error for a node not
    in the tree; here the tree is just left unchanged)."""
    nt = new_tree(existing)
    for n in remove:
        nt.remove(n)
    verify(nt, expected)


def test_removing_a_zone_keeps_the_other_zones_in_order():
    """node_tree.go removeZone: the zone is cut out of ``zones`` in place (order kept)."""
    nt = new_tree(ALL_NODES[:7])
    nt.remove(ALL_NODES[2])
    assert nt.zones == ["", "region-1:\x00:", "region-1:\x00:zone-2", "region-1:\x00:zone-3",
                        "region-2:\x00:zone-2"]


# ----- TestNodeTree_UpdateNode ----------------------------------------------------------------

NODE_0_MOVED = Node("node-0", labels={R: "region-1", Z: "zone-2"})


@pytest.mark.parametrize("name,existing,old,new,expected", [
    ("update a node without label", ALL_NODES[:7], ALL_NODES[0], NODE_0_MOVED,
     {"region-1:\x00:": ["node-1"], ":\x00:zone-2": ["node-2"],
      "region-1:\x00:zone-2": ["node-3", "node-4", "node-0"],
      "region-1:\x00:zone-3": ["node-5"], "region-2:\x00:zone-2": ["node-6"]}),
    ("update the only existing node", ALL_NODES[:1], ALL_NODES[0], NODE_0_MOVED,
     {"region-1:\x00:zone-2": ["node-0"]}),
    ("update non-existing node", ALL_NODES[:1], Node("nonexisting-node"),
     Node("node-new", labels={R: "region-1", Z: "zone-2"}),
     {"": ["node-0"], "region-1:\x00:zone-2": ["node-new"]}),
])
def test_node_tree_update_node(name, existing, old, new, expected):
    """node_tree_test.go TestNodeTree_UpdateNode."""
    nt = new_tree(existing)
    nt.update(old, new)
    verify(nt, expected)


def test_node_tree_update_without_zone_change_is_a_no_op():
    """node_tree.go updateNode: ``if oldZone == newZone { return }``."""
    nt = new_tree(ALL_NODES[:7])
    nt.update(ALL_NODES[3], Node("node-3", labels={R: "region-1", Z: "zone-2", "x": "y"}))
    assert nt.tree["region-1:\x00:zone-2"] == ["node-3", "node-4"]


# ----- TestNodeTree_List / TestNodeTreeMultiOperations ---------------------------------------

@pytest.mark.parametrize("name,nodes,expected", [
    ("empty tree", [], []),
    ("one node", ALL_NODES[:1], ["node-0"]),
    ("four nodes", ALL_NODES[:4], ["node-0", "node-1", "node-2", "node-3"]),
    ("all nodes", ALL_NODES[:9],
     ["node-0", "node-1", "node-2", "node-3", "node-5", "node-6", "node-4", "node-7", "node-8"]),
])
def test_node_tree_list(name, nodes, expected):
    """node_tree_test.go TestNodeTree_List."""
    assert new_tree(nodes).list() == expected


@pytest.mark.parametrize("name,to_add,to_remove,ops,expected", [
    ("add and remove all nodes", ALL_NODES[2:9], ALL_NODES[2:9],
     ["add", "add", "add", "remove", "remove", "remove"], []),
    ("add and remove some nodes", ALL_NODES[2:9], ALL_NODES[2:9],
     ["add", "add", "add", "remove"], ["node-3", "node-4"]),
    ("remove three nodes", ALL_NODES[2:9], ALL_NODES[2:9],
     ["add", "add", "add", "remove", "remove", "remove", "add"], ["node-5"]),
    ("add more nodes to an exhausted zone", ALL_NODES[4:9] + [ALL_NODES[3]], [],
     ["add"] * 6, ["node-4", "node-5", "node-6", "node-3", "node-7", "node-8"]),
    ("remove zone and add new", ALL_NODES[3:5] + ALL_NODES[6:8], ALL_NODES[3:5],
     ["add", "add", "remove", "add", "add", "remove"], ["node-6", "node-7"]),
])
def test_node_tree_multi_operations(name, to_add, to_remove, ops, expected):
    """node_tree_test.go TestNodeTreeMultiOperations."""
    nt = NodeTree()
    adds, removes = iter(to_add), iter(to_remove)
    for op in ops:
        if op == "add":
            nt.add(next(adds))
        else:
            nt.remove(next(removes))
    assert nt.list() == expected


# ----- Snapshot -------------------------------------------------------------------------------

def mkpod(name: str, node: str, *, affinity: Affinity | None = None) -> Pod:
    pod = Pod("ns", name, name, node_name=node, affinity=affinity)
    pod.resources = compute_pod_resources(pod)
    return pod


def names(infos) -> list[str]:
    return [ni.node.name for ni in infos]


def test_snapshot_lists_nodes_in_node_tree_order():
    """cache.go updateNodeInfoSnapshotList: nodeInfoList follows nodeTree.list()."""
    snap = Snapshot(ALL_NODES[:9])
    assert names(snap.list()) == new_tree(ALL_NODES[:9]).list()
    assert snap.num_nodes() == 9
    assert snap.get("node-4").node is ALL_NODES[4]
    assert snap.get("nope") is None


def test_snapshot_node_removal_and_re_add():
    """cache.go RemoveNode / AddNode: the list is rebuilt from the tree; a re-added node goes
    to the end of its zone."""
    snap = Snapshot(ALL_NODES[:7])
    snap.remove_node("node-3")
    assert names(snap.list()) == ["node-0", "node-1", "node-2", "node-4", "node-5", "node-6"]
    snap.add_node(ALL_NODES[3])
    assert names(snap.list()) == ["node-0", "node-1", "node-2", "node-4", "node-5", "node-6",
                                  "node-3"]
    assert snap.num_nodes() == 7


def test_snapshot_pods_and_affinity_lists():
    """cache.go updateNodeInfoSnapshotList: havePodsWithAffinityNodeInfoList /
    havePodsWithRequiredAntiAffinityNodeInfoList in node order; assumed pods are forgotten by
    UID."""
    term = PodAffinityTerm(LabelSelector(), "kubernetes.io/hostname")
    with_affinity = Affinity(pod_affinity=PodAffinity(required=(term,)))
    with_anti = Affinity(pod_anti_affinity=PodAffinity(required=(term,)))
    snap = Snapshot(ALL_NODES[:4], [mkpod("a", "node-2", affinity=with_affinity),
                                    mkpod("b", "node-0"), mkpod("c", "node-3", affinity=with_anti)])
    assert names(snap.have_pods_with_affinity_list()) == ["node-2", "node-3"]
    assert names(snap.have_pods_with_required_anti_affinity_list()) == ["node-3"]
    assumed = mkpod("d", "node-1", affinity=with_affinity)
    snap.add_pod(assumed)
    assert snap.is_assumed_or_bound(assumed)
    assert names(snap.have_pods_with_affinity_list()) == ["node-1", "node-2", "node-3"]
    snap.remove_pod(assumed)
    assert not snap.is_assumed_or_bound(assumed)
    assert names(snap.have_pods_with_affinity_list()) == ["node-2", "node-3"]
    assert [p.pod.name for p in snap.get("node-1").pods] == []


def image_nodes() -> list[Node]:
    mb = 1024 * 1024
    return [
        Node("node-0", images=(ContainerImage(("gcr.io/10:v1",), 10 * mb),)),
        Node("node-1", images=(ContainerImage(("gcr.io/10:v1",), 10 * mb),
                               ContainerImage(("gcr.io/200:v1",), 200 * mb))),
        Node("node-2"),
    ]


def test_image_existence_and_node_image_states():
    """snapshot_test.go TestCreateImageExistenceMap / TestGetNodeImageStates, through the
    cache's image states (cache.go addNodeImageStates)."""
    mb = 1024 * 1024
    snap = Snapshot(image_nodes())
    assert {k: v.nodes for k, v in snap.image_states.items()} == {
        "gcr.io/10:v1": {"node-0", "node-1"}, "gcr.io/200:v1": {"node-1"}}
    n1 = snap.get("node-1").image_states
    assert {k: (v.size, v.num_nodes) for k, v in n1.items()} == {
        "gcr.io/10:v1": (10 * mb, 2), "gcr.io/200:v1": (200 * mb, 1)}
    assert snap.get("node-2").image_states == {}


def test_image_size_is_the_first_nodes_and_removal_frees_images():
    """cache.go addNodeImageStates keeps the size of the first node seen with the image;
    removeNodeImageStates drops an image no node has any more."""
    snap = Snapshot([Node("a", images=(ContainerImage(("img", "img:alias"), 100),)),
                     Node("b", images=(ContainerImage(("img",), 999),))])
    assert snap.image_states["img"].size == 100
    assert snap.get("b").image_states["img"].num_nodes == 2
    snap.remove_node("a")
    assert "img:alias" not in snap.image_states
    assert snap.image_states["img"].nodes == {"b"}


def test_image_num_nodes_of_unchanged_nodes_is_frozen_in_the_snapshot():
    """Derived from backend/cache/cache.go UpdateSnapshot + framework/types.go
    NodeInfo.SnapshotConcrete / ImageStateSummary.Snapshot."""
    snap = Snapshot([Node("a", images=(ContainerImage(("img",), 100),))])
    snap.update_snapshot()  # a scheduling cycle took the snapshot
    snap.add_node(Node("b", images=(ContainerImage(("img",), 100),)))
    snap.update_snapshot()  # the next cycle clones b, not a
    assert snap.get("b").image_states["img"].num_nodes == 2
    assert snap.get("a").image_states["img"].num_nodes == 1
    snap.add_pod(mkpod("p", "a"))  # a changes: the next cycle clones it too
    snap.update_snapshot()
    assert snap.get("a").image_states["img"].num_nodes == 2
    snap.remove_node("b")
    snap.update_snapshot()
    assert snap.get("a").image_states["img"].num_nodes == 2  # stale again


def test_zone_change_does_not_reorder_the_snapshot_list_until_nodes_are_added_or_removed():
    """Derived from backend/cache/cache.go UpdateSnapshot / updateNodeInfoSnapshotList."""
    snap = Snapshot(ALL_NODES[:7])
    before = names(snap.list())
    snap.update_node(NODE_0_MOVED)
    assert names(snap.list()) == before
    snap.add_node(ALL_NODES[7])  # now the list is rebuilt from the tree
    assert names(snap.list()) == new_tree(ALL_NODES[1:8] + [NODE_0_MOVED]).list()


def test_zone_change_reorders_the_tree():
    """node_tree.go updateNode (through the cache): the node moves to its new zone's end."""
    snap = Snapshot(ALL_NODES[:7])
    snap.update_node(NODE_0_MOVED)
    assert snap.node_tree.tree["region-1:\x00:zone-2"] == ["node-3", "node-4", "node-0"]
    assert snap.get("node-0").node is NODE_0_MOVED


# ----- NodeInfo (framework/types_test.go) -----------------------------------------------------

def q(v: str):
    return parse_quantity_string(v)


def ni_pod(uid: str, cpu: str, mem: str, host_port: int, *, overhead: bool = False,
           pvc: str = "") -> Pod:
    """types_test.go TestNewNodeInfo / TestNodeInfoRemovePod pods."""
    c = Container("c", requests=(("cpu", q(cpu)), ("memory", q(mem))),
                  ports=(ContainerPort(0, host_port, "TCP", "127.0.0.1"),))
    pod = Pod("node_info_cache_test", uid, uid, node_name="test-node", containers=(c,),
              overhead=(("cpu", q("500m")), ("memory", q("500"))) if overhead else (),
              pvc_names=(pvc,) if pvc else ())
    pod.resources = compute_pod_resources(pod)
    pod.host_ports = host_ports(pod)
    return pod


def test_new_node_info():
    """types_test.go TestNewNodeInfo: Requested, NonZeroRequested, UsedPorts, pod order."""
    ni = NodeInfo(Node("test-node"))
    gen = ni.generation
    for p in (ni_pod("test-1", "100m", "500", 80), ni_pod("test-2", "200m", "1Ki", 8080)):
        ni.add_pod(p)
    assert (ni.requested.milli_cpu, ni.requested.memory, ni.requested.scalar) == (300, 1524, {})
    assert (ni.non_zero_requested.milli_cpu, ni.non_zero_requested.memory) == (300, 1524)
    assert ni.used_ports.ports == {"127.0.0.1": {("TCP", 80), ("TCP", 8080)}}
    assert [pi.pod.uid for pi in ni.pods] == ["test-1", "test-2"]
    assert ni.generation > gen


def test_node_info_remove_pod():
    """types_test.go TestNodeInfoRemovePod (pods with Overhead 500m / 500): removing test-1
    leaves test-2's requests plus overhead; removing an unknown pod changes nothing."""
    ni = NodeInfo(Node("test-node"))
    p1 = ni_pod("test-1", "100m", "500", 80, overhead=True, pvc="pvc-1")
    p2 = ni_pod("test-2", "200m", "1Ki", 8080, overhead=True)
    ni.add_pod(p1)
    ni.add_pod(p2)
    assert (ni.requested.milli_cpu, ni.requested.memory) == (1300, 2524)
    assert ni.pvc_ref_counts == {"node_info_cache_test/pvc-1": 1}
    gen = ni.generation
    assert ni.remove_pod(ni_pod("non-exist", "0", "0", 0)) is False
    assert ni.generation == gen and len(ni.pods) == 2
    assert ni.remove_pod(p1) is True
    assert ni.generation > gen
    assert (ni.requested.milli_cpu, ni.requested.memory) == (700, 1524)
    assert (ni.non_zero_requested.milli_cpu, ni.non_zero_requested.memory) == (700, 1524)
    assert ni.used_ports.ports == {"127.0.0.1": {("TCP", 8080)}}
    assert ni.pvc_ref_counts == {}
    assert [pi.pod.uid for pi in ni.pods] == ["test-2"]


def test_node_info_remove_swaps_the_last_pod_into_place():
    """types.go removeFromSlice: ``s[i] = s[len(s)-1]`` (order is not kept)."""
    ni = NodeInfo(Node("n"))
    pods = [ni_pod(f"p{i}", "0", "0", 0) for i in range(4)]
    for p in pods:
        ni.add_pod(p)
    ni.remove_pod(pods[1])
    assert [pi.pod.uid for pi in ni.pods] == ["p0", "p3", "p2"]


def port_pod(port: int, *, init: bool = False, sidecar: bool = False) -> Pod:
    c = Container("c", ports=(ContainerPort(port, port, "TCP"),),
                  restart_policy="Always" if sidecar else None)
    pod = Pod("", "p", f"p{port}{init}{sidecar}", containers=() if init else (c,),
              init_containers=(c,) if init else ())
    pod.resources = compute_pod_resources(pod)
    pod.host_ports = host_ports(pod)
    return pod


@pytest.mark.parametrize("before,pod,want", [
    ({}, port_pod(8001), {"0.0.0.0": {("TCP", 8001)}}),
    ({"0.0.0.0": {("TCP", 8001)}}, port_pod(8002), {"0.0.0.0": {("TCP", 8001), ("TCP", 8002)}}),
    ({}, port_pod(8001, init=True), {}),
    ({"0.0.0.0": {("TCP", 8001)}}, port_pod(8002, init=True), {"0.0.0.0": {("TCP", 8001)}}),
    ({}, port_pod(8001, init=True, sidecar=True), {"0.0.0.0": {("TCP", 8001)}}),
    ({"0.0.0.0": {("TCP", 8001)}}, port_pod(8002, init=True, sidecar=True),
     {"0.0.0.0": {("TCP", 8001), ("TCP", 8002)}}),
])
def test_update_used_ports_pod_add(before, pod, want):
    """types_test.go TestUpdateUsedPorts_PodAdd (host ports of containers and of sidecar init
    containers; plain init containers do not count)."""
    ni = NodeInfo(Node("n"))
    ni.used_ports.ports = {k: set(v) for k, v in before.items()}
    ni.add_pod(pod)
    assert ni.used_ports.ports == want


def test_update_used_ports_pod_remove():
    """types_test.go TestUpdateUsedPorts_PodRemove: an emptied IP entry is dropped."""
    ni = NodeInfo(Node("n"))
    a, b = port_pod(8001), port_pod(8002, init=True, sidecar=True)
    ni.add_pod(a)
    ni.add_pod(b)
    ni.remove_pod(a)
    assert ni.used_ports.ports == {"0.0.0.0": {("TCP", 8002)}}
    ni.remove_pod(b)
    assert ni.used_ports.ports == {}
