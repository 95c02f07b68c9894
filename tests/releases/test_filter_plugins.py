"""Filter-side plugin rules and plugin args per supported release (docs/release-differences.md).

One scenario per behaviour switch whose outcome differs between the switch's variants, run
with each release's data: ``nodevolumelimits-csi-migration``, ``nodevolumelimits-driver-missing``,
``interpodaffinity-namespace-merge``, ``dra-postfilter-messages``, ``fit-args-validation``; and
the gate-only differences (``dra-binding-timeout-default``) and the rules that the audit found
equal in the four releases (``taint-untolerated-message``).
"""

from __future__ import annotations

from typing import Any

import pytest

import reference_impl.config.plugin_args as plugin_args
from reference_impl.config import ConfigError, default_config, load_config
from reference_impl.config.args import (
    InterPodAffinityArgs,
    NodeResourcesFitArgs,
    RequestedToCapacityRatioParam,
    ResourceSpec,
    ScoringStrategy,
    UtilizationShapePoint,
)
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.status import Code, Status
from reference_impl.framework.testing import FakeHandle
from reference_impl.model.objects import Cluster, Namespace
from reference_impl.model.storage import (
    CSIDriver,
    CSINode,
    CSINodeDriver,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageObjects,
)
from reference_impl.plugins.dynamicresources import DynamicResources
from reference_impl.plugins.interpodaffinity import InterPodAffinity
from reference_impl.plugins.nodedeclaredfeatures import NodeDeclaredFeatures
from reference_impl.plugins.noderesources.fit import Fit
from reference_impl.plugins.nodevolumelimits import (
    ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,
    NodeVolumeLimits,
)
from reference_impl.plugins.registry import in_tree_registry
from reference_impl.plugins.tainttoleration import TaintToleration
from reference_impl.releases import load, supported_releases
from reference_impl.scheduler.scheduler import Scheduler
from reference_impl.testing._base import label_selector
from reference_impl.testing.nodes import make_node
from reference_impl.testing.pods import make_pod, pod_affinity_term

RELEASES = supported_releases()
MIGRATED = "storage.alpha.kubernetes.io/migrated-plugins"
EXCEEDED = Status(Code.UNSCHEDULABLE, ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)
# The releases of the older variants, as read in each release's source (the expectations do
# not come from the switch table, so a wrong table fails these tests).
SELECTOR_KEPT = ("v1.34.4", "v1.35.4", "v1.36.3")
UP_TO_1_36 = ("v1.34.4", "v1.35.4", "v1.36.3")
LENIENT = ("v1.34.4", "v1.35.4")


def handle(release: str, **kw: Any) -> FakeHandle:
    return FakeHandle(release=load(release), **kw)


# ----- nodevolumelimits-csi-migration ---------------------------------------------------------

def _limits_filter(release: str, source_kind: str, driver: str, annotated: str | None,
                   features: dict[str, bool] | None = None) -> Status | None:
    """Filter of a pod with one claim bound to an in-tree PV (``source_kind``) on a node whose
    CSINode gives the plugin's CSI driver a limit of 0 (any counted volume exceeds it) and, if
    ``annotated``, lists that in-tree plugin as migrated."""
    pv = PersistentVolume(name="pv-1", source_kind=source_kind, source={"volumeID": "vol-1"})
    pvc = PersistentVolumeClaim(namespace="default", name="c-1", volume_name="pv-1")
    ann = ((MIGRATED, annotated),) if annotated else ()
    csi_node = CSINode("n1", (CSINodeDriver(driver, "n1", 0),), ann)
    storage = StorageObjects(volumes={"pv-1": pv}, claims={pvc.key: pvc},
                             csi_nodes={"n1": csi_node})
    pl = NodeVolumeLimits(None, handle(release, storage=storage, features=features))
    pod = make_pod("p").namespace("default").pvc("c-1").obj()
    node = FakeHandle([make_node("n1").obj()]).snapshot().get("n1")
    assert pl.pre_filter(CycleState(), pod, []) == (None, None)
    return pl.filter(CycleState(), pod, node)


PORTWORX = ("portworxVolume", "pxd.portworx.com", "kubernetes.io/portworx-volume")


@pytest.mark.parametrize("release", RELEASES)
def test_portworx_without_the_migrated_plugins_annotation(release: str) -> None:
    """utils.go isCSIMigrationOn: up to v1.35.4 a Portworx volume counts against the CSI
    driver's limit only if the CSINode's annotation names the plugin; from v1.36.3 always."""
    want = None if release in ("v1.34.4", "v1.35.4") else EXCEEDED
    assert _limits_filter(release, *PORTWORX[:2], annotated=None) == want


@pytest.mark.parametrize("release", RELEASES)
def test_portworx_with_the_annotation_counts_in_every_release(release: str) -> None:
    assert _limits_filter(release, *PORTWORX) == EXCEEDED


@pytest.mark.parametrize("release", ["v1.34.4", "v1.35.4"])
def test_portworx_annotation_rule_needs_its_gate(release: str) -> None:
    """v1.34.4/v1.35.4: ``CSIMigrationPortworx`` off, the annotation does not help."""
    assert _limits_filter(release, *PORTWORX, features={"CSIMigrationPortworx": False}) is None


@pytest.mark.parametrize("release", RELEASES)
def test_aws_ebs_counts_without_the_annotation_in_every_release(release: str) -> None:
    """Only Portworx ever read the annotation: AWS EBS returns true first in every release
    (the audit said otherwise; corrected there)."""
    got = _limits_filter(release, "awsElasticBlockStore", "ebs.csi.aws.com", annotated=None)
    assert got == EXCEEDED


# ----- nodevolumelimits-driver-missing --------------------------------------------------------

def _driver_missing_filter(release: str, features: dict[str, bool] | None) -> Status | None:
    """A CSI volume of driver ``d.csi``, whose CSIDriver exists without
    ``preventPodSchedulingIfMissing``, on a node whose CSINode lacks the driver."""
    pv = PersistentVolume(name="pv-1", source_kind="csi",
                          source={"driver": "d.csi", "volumeHandle": "h-1"})
    pvc = PersistentVolumeClaim(namespace="default", name="c-1", volume_name="pv-1")
    storage = StorageObjects(volumes={"pv-1": pv}, claims={pvc.key: pvc},
                             csi_nodes={"n1": CSINode("n1", ())},
                             csi_drivers={"d.csi": CSIDriver("d.csi")})
    pl = NodeVolumeLimits(None, handle(release, storage=storage, features=features))
    pod = make_pod("p").namespace("default").pvc("c-1").obj()
    node = FakeHandle([make_node("n1").obj()]).snapshot().get("n1")
    return pl.filter(CycleState(), pod, node)


NOT_INSTALLED = Status(Code.UNSCHEDULABLE, "d.csi CSI driver is not installed on the node")


@pytest.mark.parametrize("release", ["v1.35.4", "v1.36.3", "v1.37.2"])
def test_driver_missing_with_volume_limit_scaling(release: str) -> None:
    """csi.go checkCSIDriverOnNode: v1.35.4 rejects for any CSIDriver; from v1.36.3 only a
    CSIDriver that opts in does."""
    want = NOT_INSTALLED if release == "v1.35.4" else None
    assert _driver_missing_filter(release, {"VolumeLimitScaling": True}) == want


@pytest.mark.parametrize("release", RELEASES)
def test_driver_missing_at_the_default_gates(release: str) -> None:
    """At the defaults nothing rejects: VolumeLimitScaling is absent (v1.34.4), off (v1.35.4,
    v1.36.3), or on with the opt-in rule (v1.37.2)."""
    assert _driver_missing_filter(release, None) is None


# ----- interpodaffinity-namespace-merge -------------------------------------------------------

_NS_NOT_TEAM_A = label_selector(None, ("team", "NotIn", ["a"]))
_TERM = pod_affinity_term("kubernetes.io/hostname", label_selector({"app": "x"}),
                          namespace_selector=_NS_NOT_TEAM_A)


def _ipa(release: str) -> tuple[InterPodAffinity, FakeHandle]:
    """``n1`` runs an ``app=x`` pod in namespace ``ns-a`` (``team=a``), ``n2`` nothing."""
    nodes = [make_node(n).hostname().obj() for n in ("n1", "n2")]
    existing = make_pod("x").namespace("ns-a").label("app", "x").node("n1").obj()
    ns = {"ns-a": Namespace("ns-a", {"team": "a"}), "default": Namespace("default", {})}
    h = handle(release, nodes=nodes, pods=[existing], namespaces=ns)
    return InterPodAffinity(InterPodAffinityArgs(), h), h


@pytest.mark.parametrize("release", RELEASES)
def test_namespace_selector_of_a_required_anti_affinity_term(release: str) -> None:
    """A namespace selector that matches the empty label set: up to v1.36.3 the incoming pod's
    term keeps it and matches the pod of ``ns-a`` (n1 rejected); v1.37.2 replaces it by the
    namespaces it selected (not ``ns-a``), so n1 fits."""
    pl, h = _ipa(release)
    pod = make_pod("p").namespace("default").pod_affinity_term(_TERM, anti=True).obj()
    state = CycleState()
    assert pl.pre_filter(state, pod, h.snapshot().list()) == (None, None)
    got = pl.filter(state, pod, h.snapshot().get("n1"))
    assert (got is not None and got.code == Code.UNSCHEDULABLE) == (release in SELECTOR_KEPT)
    assert pl.filter(state, pod, h.snapshot().get("n2")) is None


@pytest.mark.parametrize("release", RELEASES)
def test_namespace_selector_of_a_preferred_affinity_term(release: str) -> None:
    """The same merge in PreScore: up to v1.36.3 the preferred affinity term counts the pod of
    ``ns-a`` and n1 scores higher; in v1.37.2 neither node scores."""
    pl, h = _ipa(release)
    pod = make_pod("p").namespace("default").pod_affinity_term(_TERM, weight=10).obj()
    state = CycleState()
    status = pl.pre_score(state, pod, h.snapshot().list())
    if release in SELECTOR_KEPT:
        assert status is None
        assert pl.score(state, pod, h.snapshot().get("n1")) == 10
        assert pl.score(state, pod, h.snapshot().get("n2")) == 0
    else:
        assert status is not None and status.code == Code.SKIP


# ----- dra-postfilter-messages ----------------------------------------------------------------

@pytest.mark.parametrize("release", RELEASES)
def test_dra_postfilter_when_disabled(release: str) -> None:
    """dynamicresources.go PostFilter: "plugin disabled" up to v1.36.3, no reason in v1.37.2."""
    pl = DynamicResources(None, handle(release, features={"DynamicResourceAllocation": False}))
    _, status = pl.post_filter(CycleState(), make_pod("p").obj(), None)
    worded = release in UP_TO_1_36
    assert status == Status(Code.UNSCHEDULABLE, *(["plugin disabled"] if worded else []))


@pytest.mark.parametrize("release", RELEASES)
def test_dra_postfilter_without_claims(release: str) -> None:
    pl = DynamicResources(None, handle(release))
    state, pod = CycleState(), make_pod("p").obj()
    _, pre = pl.pre_filter(state, pod, [])
    assert pre is not None and pre.code == Code.SKIP
    _, status = pl.post_filter(state, pod, None)
    worded = release in UP_TO_1_36
    assert status == Status(Code.UNSCHEDULABLE,
                            *(["no new claims to deallocate"] if worded else []))


# ----- fit-args-validation --------------------------------------------------------------------

_SHAPE = [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]


def _fit_config(strategy: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            "profiles": [{"pluginConfig": [{"name": "NodeResourcesFit",
                                            "args": {"scoringStrategy": strategy}}]}]}


@pytest.mark.parametrize("release", RELEASES)
def test_least_allocated_with_a_ratio_shape(release: str) -> None:
    """validation_pluginargs.go ValidateNodeResourcesFitArgs: LeastAllocated with a
    requestedToCapacityRatio is accepted up to v1.35.4 and Forbidden from v1.36.3."""
    raw = _fit_config({"type": "LeastAllocated", "requestedToCapacityRatio": {"shape": _SHAPE}})
    rel = load(release)
    if release in LENIENT:
        cfg = load_config(raw, in_tree_registry(), rel)
        args = cfg.profiles[0].plugin_args["NodeResourcesFit"]
        assert args.scoring_strategy.type == "LeastAllocated"
    else:
        with pytest.raises(ConfigError, match="must be nil when type is not"):
            load_config(raw, in_tree_registry(), rel)


@pytest.mark.parametrize("release", RELEASES)
def test_ratio_shape_error_path(release: str) -> None:
    """The lenient rule reports a bad shape under ``scoringStrategy.shape``, the strict one
    under ``scoringStrategy.requestedToCapacityRatio.shape``."""
    args = {"scoringStrategy": {"type": "RequestedToCapacityRatio",
                                "requestedToCapacityRatio": {"shape": [
                                    {"utilization": 101, "score": 1}]}}}
    [err] = plugin_args.validate_fit(args, "", load(release))
    lenient = release in LENIENT
    assert err.field == ("scoringStrategy.shape[0].utilization" if lenient else
                         "scoringStrategy.requestedToCapacityRatio.shape[0].utilization")


@pytest.mark.parametrize("release", RELEASES)
def test_missing_scoring_strategy(release: str) -> None:
    errs = plugin_args.validate_fit({}, "", load(release))
    lenient = release in LENIENT
    assert [e.field for e in errs] == ([] if lenient else ["scoringStrategy"])


def _rtcr(shape: tuple[UtilizationShapePoint, ...] | None) -> NodeResourcesFitArgs:
    ratio = None if shape is None else RequestedToCapacityRatioParam(shape)
    return NodeResourcesFitArgs(scoring_strategy=ScoringStrategy(
        "RequestedToCapacityRatio", (ResourceSpec("cpu", 1),), ratio))


@pytest.mark.parametrize("release", RELEASES)
def test_fit_plugin_construction(release: str) -> None:
    """NewFit validates its args with the release's rule: RequestedToCapacityRatio without the
    ratio is rejected from v1.36.3; up to v1.35.4 validation passes and the scorer construction
    dereferences the nil ratio (a panic upstream, a ValueError here)."""
    lenient = release in LENIENT
    with pytest.raises(ValueError, match=("nil pointer" if lenient else "Required value")):
        Fit(_rtcr(None), handle(release))
    Fit(_rtcr((UtilizationShapePoint(0, 0), UtilizationShapePoint(100, 10))), handle(release))


# ----- dra-binding-timeout-default ------------------------------------------------------------

@pytest.mark.parametrize("release", RELEASES)
def test_dynamic_resources_binding_timeout_default(release: str) -> None:
    """defaults.go SetDefaults_DynamicResourcesArgs: bindingTimeout defaults to 10m only where
    DRADeviceBindingConditions and DRAResourceClaimDeviceStatus are both on (v1.36.3, v1.37.2);
    v1.35.4 leaves it unset (its gate is off) and v1.34.4 has no such field."""
    rel = load(release)
    got = plugin_args.set_defaults("DynamicResourcesArgs", {}, rel)
    on = (rel.feature_enabled("DRADeviceBindingConditions")
          and rel.feature_enabled("DRAResourceClaimDeviceStatus"))
    assert on == (release in ("v1.36.3", "v1.37.2"))
    assert got == ({"filterTimeout": 10 * 10**9, "bindingTimeout": 600 * 10**9} if on
                   else {"filterTimeout": 10 * 10**9})


@pytest.mark.parametrize("release", RELEASES)
def test_dynamic_resources_binding_timeout_set(release: str) -> None:
    """ValidateDynamicResourcesArgs: a bindingTimeout is Forbidden where the gates are off."""
    errs = plugin_args.validate_dynamic_resources({"bindingTimeout": 30 * 10**9}, "",
                                                  load(release))
    forbidden = release in ("v1.34.4", "v1.35.4")
    assert [e.field for e in errs] == (["bindingTimeout"] if forbidden else [])


# ----- taint-untolerated-message --------------------------------------------------------------

@pytest.mark.parametrize("release", RELEASES)
def test_untolerated_taint_message(release: str) -> None:
    """taint_toleration.go Filter: "node(s) had untolerated taint(s)" in v1.34.4 to v1.37.2
    (only v1.34.0/1 named the taint, a release the reference does not support)."""
    h = handle(release, nodes=[make_node("n1").taint("k", "NoSchedule", "v").obj()])
    pl = TaintToleration(None, h)
    got = pl.filter(CycleState(), make_pod("p").obj(), h.snapshot().get("n1"))
    assert got == Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) had untolerated taint(s)")


# ----- node-declared-features -----------------------------------------------------------------

_RESTART_RULE = {"action": "RestartAllContainers",
                 "exitCodes": {"operator": "In", "values": [42]}}
_NDF_PODS = {
    "restart-all": make_pod("p").container({"name": "c", "image": "i",
                                            "restartPolicyRules": [_RESTART_RULE]}),
    "userns-host-network": make_pod("p").spec(hostNetwork=True, hostUsers=False),
    "bind-mount-options": make_pod("p").container({"name": "c", "image": "i", "volumeMounts": [
        {"name": "v", "mountPath": "/v", "bindMountOptions": ["noexec"]}]}),
}
_NEW_MESSAGE = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                      "node(s) didn't match Pod's required features")
_NDF_WANT: dict[tuple[str, str], Status | None] = {
    # (release, pod) -> Filter on a node that declares nothing; None: PreFilter skips
    ("v1.35.4", "restart-all"): Status(
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node declared features check failed - "
        "unsatisfied requirements: RestartAllContainersOnContainerExits"),
    ("v1.35.4", "userns-host-network"): None,
    ("v1.35.4", "bind-mount-options"): None,
    ("v1.36.3", "restart-all"): _NEW_MESSAGE,
    ("v1.36.3", "userns-host-network"): _NEW_MESSAGE,
    ("v1.36.3", "bind-mount-options"): None,
    ("v1.37.2", "restart-all"): _NEW_MESSAGE,
    ("v1.37.2", "userns-host-network"): _NEW_MESSAGE,
    ("v1.37.2", "bind-mount-options"): _NEW_MESSAGE,
}


@pytest.mark.parametrize(("release", "pod"), sorted(_NDF_WANT))
def test_node_declared_features_per_release(release: str, pod: str) -> None:
    """nodedeclaredfeatures.go with the gate on and component-helpers' features/registry.go of
    the release: which pod fields infer a requirement, and the Filter message."""
    h = handle(release, nodes=[make_node("n1").obj()], features={"NodeDeclaredFeatures": True})
    pl = NodeDeclaredFeatures(None, h)
    p, state = _NDF_PODS[pod].obj(), CycleState()
    _, pre = pl.pre_filter(state, p, [])
    want = _NDF_WANT[(release, pod)]
    if want is None:
        assert pre is not None and pre.code == Code.SKIP
    else:
        assert pre is None
        assert pl.filter(state, p, h.snapshot().get("n1")) == want


@pytest.mark.parametrize("release", RELEASES)
def test_node_declared_features_at_the_default_gates(release: str) -> None:
    """The gate is absent in v1.34.4 and off in v1.35.4: the plugin skips every pod there."""
    pl = NodeDeclaredFeatures(None, handle(release))
    _, pre = pl.pre_filter(CycleState(), _NDF_PODS["restart-all"].obj(), [])
    skipped = pre is not None and pre.code == Code.SKIP
    assert skipped == (release in ("v1.34.4", "v1.35.4"))


@pytest.mark.parametrize("release", RELEASES)
def test_binding_timeout_in_a_configuration_file(release: str) -> None:
    """v1.34.4's DynamicResourcesArgs has no bindingTimeout (strict decoding: unknown field);
    v1.35.4 has it but its gates are off (Forbidden); v1.36.3 and v1.37.2 accept it."""
    raw = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
           "profiles": [{"pluginConfig": [{"name": "DynamicResources",
                                           "args": {"bindingTimeout": "30s"}}]}]}
    want = {"v1.34.4": 'unknown field "bindingTimeout"',
            "v1.35.4": "bindingTimeout: Forbidden"}.get(release)
    if want is None:
        cfg = load_config(raw, in_tree_registry(), load(release))
        assert cfg.profiles[0].plugin_args["DynamicResources"].binding_timeout_seconds == 30
    else:
        with pytest.raises(ConfigError, match=want):
            load_config(raw, in_tree_registry(), load(release))


@pytest.mark.parametrize("release", RELEASES)
def test_failed_scheduling_message_carries_the_dra_postfilter_reason(release: str) -> None:
    """A full run: DynamicResources' PostFilter reason reaches the FailedScheduling message
    (``no new claims to deallocate`` up to v1.36.3, nothing in v1.37.2), as the upstream
    subject of each release says for the same scenario."""
    cfg = default_config(in_tree_registry(), load(release))
    nodes = [make_node("n1").capacity(cpu="1", pods="10").obj()]
    sched = Scheduler(Cluster(nodes=nodes, pods=[make_pod("big").req(cpu="2").obj()]), cfg,
                      seed=0)
    [attempt] = sched.run().attempts
    worded = " no new claims to deallocate," if release in UP_TO_1_36 else ""
    assert attempt.message == (f"0/1 nodes are available: 1 Insufficient cpu.{worded} "
                               "preemption: 0/1 nodes are available: 1 Preemption is not "
                               "helpful for scheduling.")
