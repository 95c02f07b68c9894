"""Catalogue: storage, the four volume plugins of the default profile (NodeVolumeLimits,
VolumeRestrictions, VolumeZone, VolumeBinding; ``reference_impl/plugins/``, docs/storage.md).
Only storage scenarios have volumes and claims, so these mutants add the ``storage`` family."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import conformance.engines.mutants.witnesses as w
from conformance.engines.mutants.mutant import Mutant
from conformance.engines.mutants.patching import Patch

_PLUGINS = "pkg/scheduler/framework/plugins"
_BINDER = "reference_impl.plugins.volumebinding.binder:VolumeBinder"


def _returning(value: Any) -> Callable[[Any], Callable[..., Any]]:
    """A replacement that ignores its arguments and returns ``value``."""
    def make(orig: Callable[..., Any]) -> Callable[..., Any]:
        def patched(*args: Any, **kwargs: Any) -> Any:
            return value
        return patched
    return make


def _bound_affinity_ignored(orig: Callable[..., tuple[bool, bool]]
                            ) -> Callable[..., tuple[bool, bool]]:
    """``checkBoundClaims`` that still reports a missing PV but never a node affinity
    mismatch."""
    def patched(self: Any, claims: Any, node: Any) -> tuple[bool, bool]:
        _, found = orig(self, claims, node)
        return True, found
    return patched


MUTANTS = (
    Mutant(
        name="volumelimits-ignore-csinode-count", area="NodeVolumeLimits",
        summary="the CSINode's allocatable.count is not read: a node takes any number of a "
                "CSI driver's volumes",
        upstream="getVolumeLimits: the limit of each driver of the node's CSINode is its "
                 "allocatable.count; Filter rejects a node whose attached plus new volumes of a "
                 f"driver exceed it ({_PLUGINS}/nodevolumelimits/csi.go)",
        patches=(Patch("reference_impl.plugins.nodevolumelimits:get_volume_limits",
                       _returning({})),),
        witness=lambda: w.scenario(
            "attach-limit-one", w.node("n1"), w.csi_node("n1", 1),
            *w.bound_claim("a"), *w.bound_claim("b"),
            w.volume_pod("old", "a", node="n1"), w.volume_pod("p", "b")),
        shows="genuine: n1 attaches at most one volume of the driver and has one, p stays "
              "pending; mutant: p binds to n1 with a second volume",
        oracles=("attach_limits",), family="storage"),
    Mutant(
        name="volumerestrictions-ignore-read-write-once-pod", area="VolumeRestrictions",
        summary="a ReadWriteOncePod claim another pod uses is not a conflict",
        upstream="calPreFilterState counts the pod's ReadWriteOncePod claims that a pod of the "
                 "snapshot uses (IsPVCUsedByPods); Filter rejects every node while one is "
                 f"({_PLUGINS}/volumerestrictions/volume_restrictions.go)",
        patches=(Patch("reference_impl.plugins.volumerestrictions:is_pvc_used_by_pods",
                       _returning(False)),),
        witness=lambda: w.scenario(
            "rwop-in-use", w.node("n1"), *w.bound_claim("data", mode=w.RWOP),
            w.volume_pod("old", "data", node="n1"), w.volume_pod("p", "data")),
        shows="genuine: old uses the ReadWriteOncePod claim data, p stays pending; mutant: "
              "p binds and data has two users",
        oracles=("read_write_once_pod",), family="storage"),
    Mutant(
        name="volumezone-ignore-pv-zone-labels", area="VolumeZone",
        summary="the zone and region labels of the pod's bound PVs are not read: any node fits",
        upstream="getPVTopologies: each topology label of a bound PV (failure-domain beta and "
                 "topology.kubernetes.io zone and region) must be on the node with one of its "
                 f"values ({_PLUGINS}/volumezone/volume_zone.go)",
        patches=(Patch("reference_impl.plugins.volumezone:get_pv_topologies",
                       _returning([])),),
        witness=lambda: w.scenario(
            "pv-in-zone-a", w.node("n1", labels={w.ZONE: "a"}),
            w.node("n2", labels={w.ZONE: "b"}), w.pod("busy", {"cpu": "3"}, node="n1"),
            *w.bound_claim("data", labels={w.ZONE: "a"}),
            w.volume_pod("p", "data", requests={"cpu": "500m"})),
        shows="genuine: the PV is labelled zone a, p binds to busy n1; mutant: the emptier n2 "
              "of zone b wins",
        oracles=("volume_zone",), family="storage"),
    Mutant(
        name="volumebinding-ignore-bound-pv-node-affinity", area="VolumeBinding",
        summary="the node affinity of the PVs the pod's claims are bound to is not checked",
        upstream="checkBoundClaims: every PV a bound claim of the pod uses must match the node "
                 f"(CheckNodeAffinity) ({_PLUGINS}/volumebinding/binder.go)",
        patches=(Patch(f"{_BINDER}.check_bound_claims", _bound_affinity_ignored),),
        witness=lambda: w.scenario(
            "local-pv-on-n1", w.node("n1"), w.node("n2"),
            w.pod("busy", {"cpu": "3"}, node="n1"),
            *w.bound_claim("data", node_affinity=(w.HOSTNAME, "n1")),
            w.volume_pod("p", "data", requests={"cpu": "500m"})),
        shows="genuine: the PV is reachable from n1 only, p binds to busy n1; mutant: the "
              "emptier n2 wins",
        oracles=("volume_node_affinity",), family="storage"),
    Mutant(
        name="volumebinding-ignore-allowed-topologies", area="VolumeBinding",
        summary="a StorageClass's allowedTopologies do not limit where claims are provisioned",
        upstream="checkVolumeProvisions: a WaitForFirstConsumer claim is provisioned only on a "
                 "node matching its class's allowedTopologies (MatchTopologySelectorTerms) "
                 f"({_PLUGINS}/volumebinding/binder.go)",
        patches=(Patch("reference_impl.storage.pv_helpers:match_topology_selector_terms",
                       _returning(True)),),
        witness=lambda: w.scenario(
            "class-in-zone-a", w.node("n1", labels={w.ZONE: "a"}),
            w.node("n2", labels={w.ZONE: "b"}), w.pod("busy", {"cpu": "3"}, node="n1"),
            w.wait_class(allowed=(w.ZONE, "a")), w.claim("data"),
            w.volume_pod("p", "data", requests={"cpu": "500m"})),
        shows="genuine: the class provisions in zone a only, p binds to busy n1 and data is "
              "provisioned there; mutant: p binds to the emptier n2 and data is provisioned "
              "in zone b",
        oracles=("provisioning",), family="storage"),
    Mutant(
        name="volumebinding-ignore-storage-capacity", area="VolumeBinding",
        summary="CSIStorageCapacity is not consulted: a driver with storageCapacity provisions "
                "on any node",
        upstream="hasEnoughCapacity: for a CSIDriver with storageCapacity, some "
                 "CSIStorageCapacity of the class whose nodeTopology selects the node must hold "
                 f"the requested size ({_PLUGINS}/volumebinding/binder.go)",
        patches=(Patch(f"{_BINDER}.has_enough_capacity", _returning((True, None))),),
        witness=lambda: w.scenario(
            "capacity-on-n1", w.node("n1"), w.node("n2"),
            w.pod("busy", {"cpu": "3"}, node="n1"), w.capacity_driver(), w.wait_class(),
            w.capacity("n1-fast", "fast", "n1", "10Gi"), w.claim("data", size="5Gi"),
            w.volume_pod("p", "data", requests={"cpu": "500m"})),
        shows="genuine: only n1 has capacity for the class, p binds to busy n1 and data is "
              "provisioned there; mutant: p binds to the emptier n2",
        oracles=("provisioning",), family="storage"),
)
