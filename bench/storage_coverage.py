"""What the generated storage scenarios exercise: the share of scenarios in which each rule of
the four volume plugins (and of the simulated PV controller) acts at least once, on the
reference.

Draws the scenarios ``kschedconf diff --sizes FAMILY=N --seed SEED`` draws (the same
Hypothesis search, no shrinking), runs each on the reference subject, and counts per scenario:
what the input holds (pending pods with claims or in-tree disks, bound / pre-bound / lost
claims, VolumeAttachments, ...) and what the scheduler did (a claim provisioned on the selected
node, a static PV bound by the scheduler, a pod with claims bound, a node rejected by each
plugin's rule: the bench wraps the four plugins' PreFilter and Filter and records every
verdict that is not Success or Skip, whether or not the pod fits elsewhere; and the same
reasons in the attempts of pods left unschedulable). The reasons are upstream's strings
(volumerestrictions/volume_restrictions.go, nodevolumelimits/csi.go, volumezone/volume_zone.go,
volumebinding/binder.go and volume_binding.go of k8s.io/kubernetes v1.37.2). Run:

    python3 bench/storage_coverage.py [--family storage] [--scenarios 200] [--seed 1]

``--family`` takes any family of ``kschedconf diff --sizes`` (``small``, ``medium``, ``mixed``,
...); for a family that mixes storage in, the table also gives the share of storage scenarios.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from conformance.core.scenario import ScenarioInput  # noqa: E402
from conformance.engines.diff.search import hypothesis_test  # noqa: E402
from conformance.subjects.reference import ReferenceSubject  # noqa: E402
from reference_impl.framework.status import Code, Status  # noqa: E402
from reference_impl.plugins.nodevolumelimits import NodeVolumeLimits  # noqa: E402
from reference_impl.plugins.volumebinding.volume_binding import VolumeBinding  # noqa: E402
from reference_impl.plugins.volumerestrictions import VolumeRestrictions  # noqa: E402
from reference_impl.plugins.volumezone import VolumeZone  # noqa: E402
from strategies.storage import has_storage  # noqa: E402

Doc = dict[str, Any]

IN_TREE = ("gcePersistentDisk", "awsElasticBlockStore", "iscsi", "rbd")

#: rejection reasons, by plugin and rule: a substring of upstream's message
REASONS: tuple[tuple[str, str], ...] = (
    ("VolumeRestrictions: disk conflict", "node(s) had no available disk"),
    ("VolumeRestrictions: ReadWriteOncePod in use",
     "PersistentVolumeClaim with ReadWriteOncePod access mode already in-use"),
    ("NodeVolumeLimits: max volume count", "node(s) exceed max volume count"),
    ("NodeVolumeLimits: CSI driver not installed", "CSI driver is not installed on the node"),
    ("VolumeZone: zone conflict", "node(s) had no available volume zone"),
    ("VolumeBinding: unbound immediate claim", "pod has unbound immediate PersistentVolumeClaims"),
    ("VolumeBinding: no PV to bind", "didn't find available persistent volumes to bind"),
    ("VolumeBinding: PV node affinity", "didn't match PersistentVolume's node affinity"),
    ("VolumeBinding: not enough storage (capacity)", "did not have enough free storage"),
    # volume_binding.go podHasPVCs (PreFilter); binder.go's ErrReasonPVNotExist ("... bound to
    # non-existent pv(s)") needs the PV to vanish between PreFilter and Filter
    ("VolumeBinding: claim bound to missing PV", "bound to non-existent persistentvolume"),
    ("claim not found", "persistentvolumeclaim \"missing\" not found"),
)


#: the verdicts (reasons) of the wrapped plugins in the scenario being run
_VERDICTS: set[str] = set()


def _wrap(cls: Any, method: str) -> None:
    """Record the reasons of every verdict of ``cls.method`` that is not Success or Skip."""
    original = getattr(cls, method)

    def wrapped(self: Any, *args: Any) -> Any:
        out = original(self, *args)
        status = out[1] if method == "pre_filter" else out
        if isinstance(status, Status) and status.code not in (Code.SUCCESS, Code.SKIP):
            _VERDICTS.update(status.all_reasons())
        return out

    setattr(cls, method, wrapped)


def record_plugin_verdicts() -> None:
    """Wrap PreFilter and Filter of the four volume plugins (once)."""
    for cls in (VolumeRestrictions, NodeVolumeLimits, VolumeZone, VolumeBinding):
        if not getattr(cls, "_coverage_wrapped", False):
            _wrap(cls, "pre_filter")
            _wrap(cls, "filter")
            cls._coverage_wrapped = True


INPUTS = ("in: pending pod with a claim", "in: pending pod with an ephemeral volume",
          "in: pending pod with an in-tree disk", "in: two pending pods sharing a claim",
          "in: claim bound in the input", "in: claim pre-bound (volumeName, Pending)",
          "in: claim bound to a PV that is gone (Lost)",
          "in: PV pre-bound (claimRef, Available)", "in: Block volume mode",
          "in: PV with zone/region labels", "in: VolumeAttachment", "in: CSIStorageCapacity",
          "in: CSINode with a limit", "in: WaitForFirstConsumer class",
          "in: StatefulSet volumeClaimTemplates")
OUTCOMES = ("did: claim provisioned on the selected node", "did: static PV bound by the scheduler",
            "did: pod with claims bound")


def _kind(docs: list[Doc], kind: str) -> list[Doc]:
    return [d for d in docs if d.get("kind") == kind]


def _pending(docs: list[Doc]) -> list[Doc]:
    return [p for p in _kind(docs, "Pod") if not p["spec"].get("nodeName")]


def _claim_volumes(pod: Doc) -> list[Doc]:
    return [v for v in pod["spec"].get("volumes", [])
            if "persistentVolumeClaim" in v or "ephemeral" in v]


def input_features(docs: list[Doc]) -> set[str]:
    """What the input holds."""
    out: set[str] = set()
    pending = _pending(docs)
    claims = _kind(docs, "PersistentVolumeClaim")
    volumes = _kind(docs, "PersistentVolume")
    checks: dict[str, Callable[[], bool]] = {  # INPUTS
        "in: pending pod with a claim": lambda: any(_claim_volumes(p) for p in pending),
        "in: pending pod with an ephemeral volume": lambda: any(
            "ephemeral" in v for p in pending for v in p["spec"].get("volumes", [])),
        "in: pending pod with an in-tree disk": lambda: any(
            k in v for p in pending for v in p["spec"].get("volumes", []) for k in IN_TREE),
        "in: two pending pods sharing a claim": lambda: _shared_claim(pending),
        "in: claim bound in the input": lambda: any(
            c.get("status", {}).get("phase") == "Bound" for c in claims),
        "in: claim pre-bound (volumeName, Pending)": lambda: any(
            c["spec"].get("volumeName") and c.get("status", {}).get("phase") == "Pending"
            for c in claims),
        "in: claim bound to a PV that is gone (Lost)": lambda: any(
            c.get("status", {}).get("phase") == "Lost" for c in claims),
        "in: PV pre-bound (claimRef, Available)": lambda: any(
            "claimRef" in v["spec"] and v.get("status", {}).get("phase") == "Available"
            for v in volumes),
        "in: Block volume mode": lambda: any(
            d["spec"].get("volumeMode") == "Block" for d in [*claims, *volumes]),
        "in: PV with zone/region labels": lambda: any(
            "topology" in k or "failure-domain" in k
            for v in volumes for k in v["metadata"].get("labels", {})),
        "in: VolumeAttachment": lambda: bool(_kind(docs, "VolumeAttachment")),
        "in: CSIStorageCapacity": lambda: bool(_kind(docs, "CSIStorageCapacity")),
        "in: CSINode with a limit": lambda: any(
            "allocatable" in d for n in _kind(docs, "CSINode") for d in n["spec"]["drivers"]),
        "in: WaitForFirstConsumer class": lambda: any(
            c["volumeBindingMode"] == "WaitForFirstConsumer"
            for c in _kind(docs, "StorageClass")),
        "in: StatefulSet volumeClaimTemplates": lambda: any(
            "volumeClaimTemplates" in s["spec"] for s in _kind(docs, "StatefulSet")),
    }
    assert set(checks) == set(INPUTS)
    for name, check in checks.items():
        if check():
            out.add(name)
    return out


def _shared_claim(pending: list[Doc]) -> bool:
    seen: Counter[tuple[str, str]] = Counter()
    for p in pending:
        ns = p["metadata"].get("namespace", "default")
        for v in p["spec"].get("volumes", []):
            if "persistentVolumeClaim" in v:
                seen[(ns, v["persistentVolumeClaim"]["claimName"])] += 1
    return any(n > 1 for n in seen.values())


def outcome_features(docs: list[Doc], result: Doc) -> set[str]:
    """What the scheduler did, from the SimulationResult."""
    out: set[str] = set()
    before = {(c["metadata"].get("namespace", "default"), c["metadata"]["name"]):
              c["spec"].get("volumeName", "") for c in _kind(docs, "PersistentVolumeClaim")}
    for c in result.get("persistentVolumeClaims", []):
        was = before.get((c["namespace"], c["name"]))
        if c.get("selectedNode"):
            out.add("did: claim provisioned on the selected node")
        elif c["phase"] == "Bound" and not was:
            out.add("did: static PV bound by the scheduler")
    with_claims = {f"{p['metadata'].get('namespace', 'default')}/{p['metadata']['name']}"
                   for p in _pending(docs) if _claim_volumes(p)}
    if with_claims & set(result.get("bindings", {})):
        out.add("did: pod with claims bound")
    for attempt in result.get("attempts", []):
        texts = [attempt.get("message", ""),
                 *(r for rs in attempt.get("reasons", {}).values() for r in rs)]
        for name, needle in REASONS:
            if any(needle in t for t in texts):
                out.add(f"unschedulable: {name}")
    return out


def verdict_features(verdicts: set[str]) -> set[str]:
    """The rules that rejected some node (a wrapped plugin's reasons)."""
    return {f"rejected a node: {name}" for name, needle in REASONS
            if any(needle in t for t in verdicts)}


def measure(family: str, n: int, seed: int) -> tuple[int, int, Counter[str]]:
    """(scenarios drawn, storage scenarios among them, scenarios per feature)."""
    record_plugin_verdicts()
    subject = ReferenceSubject()
    counts: Counter[str] = Counter()
    total = [0, 0]

    def body(scenario: ScenarioInput) -> None:
        if total[0] >= n:
            return
        total[0] += 1
        if not has_storage(scenario.documents):
            return
        total[1] += 1
        _VERDICTS.clear()
        result = subject.run(scenario).result
        counts.update(input_features(scenario.documents))
        counts.update(outcome_features(scenario.documents, result))
        counts.update(verdict_features(_VERDICTS))

    hypothesis_test(family, n, seed, body, shrink=False)()
    return total[0], total[1], counts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--family", default="storage")
    ap.add_argument("--scenarios", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    drawn, storage, counts = measure(args.family, args.scenarios, args.seed)
    print(f"family {args.family}, seed {args.seed}: {drawn} scenarios drawn, {storage} with "
          f"storage ({100 * storage / max(drawn, 1):.1f}%)")
    names = [*sorted(INPUTS),
             *OUTCOMES,
             *(f"rejected a node: {name}" for name, _ in REASONS),
             *(f"unschedulable: {name}" for name, _ in REASONS)]
    for name in names:
        share = 100 * counts[name] / max(storage, 1)
        print(f"  {counts[name]:5d}  {share:5.1f}%  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
