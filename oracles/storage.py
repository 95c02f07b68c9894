"""What the storage oracles read: the scenario's storage documents as given (PersistentVolumes,
PersistentVolumeClaims, StorageClasses, CSINodes, CSIDrivers, CSIStorageCapacities), the
claims of the SimulationResult (``persistentVolumeClaims``, docs/storage.md#results), and the
upstream helpers they restate: the claim's class (``GetPersistentVolumeClaimClass``,
k8s.io/component-helpers/storage/volume/helpers.go), a PV's node affinity
(``CheckNodeAffinity``, same file, with ``MatchNodeSelectorTerms`` of
k8s.io/component-helpers/scheduling/corev1/nodeaffinity), label selectors
(apimachinery's ``LabelSelectorAsSelector``) and ``MatchTopologySelectorTerms``
(pkg/apis/core/v1/helper/helpers.go).

The oracles read raw documents, not the reference's storage model, so that a bug of the
reference's loader cannot hide a violation from them."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from oracles.base import OracleContext
from oracles.replay import BOUND, Replay, Step
from reference_impl.model.objects import Pod
from reference_impl.model.quantity import parse_quantity, value

Doc = dict[str, Any]

ANN_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
ANN_DEFAULT_CLASS = "storageclass.kubernetes.io/is-default-class"
ANN_BETA_DEFAULT_CLASS = "storageclass.beta.kubernetes.io/is-default-class"
READ_WRITE_ONCE_POD = "ReadWriteOncePod"
WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"
#: volume.NotSupportedProvisioner (pkg/volume/util/types or component-helpers): no dynamic
#: provisioning
NO_PROVISIONER = "kubernetes.io/no-provisioner"

_KINDS = ("PersistentVolume", "PersistentVolumeClaim", "StorageClass", "CSINode", "CSIDriver",
          "CSIStorageCapacity")


def _objects(documents: Sequence[Mapping[str, Any]]) -> Iterator[Mapping[str, Any]]:
    """The documents' objects, the items of ``kind: List`` (and typed lists) included."""
    for doc in documents:
        if not isinstance(doc, Mapping):
            continue
        kind = doc.get("kind")
        items = doc.get("items")
        if isinstance(kind, str) and kind.endswith("List") and isinstance(items, list):
            item_kind = kind[:-4]
            for item in items:
                if isinstance(item, Mapping):
                    yield {"kind": item_kind, **item} if item_kind and "kind" not in item \
                        else item
        else:
            yield doc


def _meta(doc: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = doc.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def _spec(doc: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = doc.get("spec")
    return spec if isinstance(spec, Mapping) else {}


def storage_bytes(raw: object) -> int | None:
    """A storage quantity in bytes (``Quantity.Value()``: rounded up); None when absent."""
    if raw is None:
        return None
    return value(parse_quantity(raw))


def claim_key(namespace: str, name: str) -> str:
    return f"{namespace or 'default'}/{name}"


@dataclass(slots=True, frozen=True)
class PodVolume:
    """A claim a pod's volume uses: ``persistentVolumeClaim`` (by name) or ``ephemeral``
    (the claim ``<pod>-<volume>``, ``ephemeral.VolumeClaimName``)."""

    volume: str
    claim: str  # namespace/name
    ephemeral: bool


def pod_claims(pod: Pod) -> list[PodVolume]:
    """The claims of ``pod``'s volumes, in order."""
    out = []
    for vol in pod.volumes:
        name = str(vol.get("name", ""))
        pvc = vol.get("persistentVolumeClaim")
        if isinstance(pvc, Mapping) and pvc.get("claimName"):
            out.append(PodVolume(name, claim_key(pod.namespace, str(pvc["claimName"])), False))
        elif isinstance(vol.get("ephemeral"), Mapping):
            out.append(PodVolume(name, claim_key(pod.namespace, f"{pod.name}-{name}"), True))
    return out


def plugin_binds(ctx: OracleContext, plugin: str, *points: str) -> Iterator[tuple[Step, Pod]]:
    """The replay's binds (attempt Bound, pod known) of pods whose profile runs ``plugin`` at
    each of ``points`` (default: Filter): the binds that plugin had a say in."""
    for step in Replay.of(ctx):
        if step.outcome != BOUND or step.pod is None:
            continue
        prof = ctx.profile_for(step.pod)
        if prof is not None and all(prof.enabled(plugin, p) for p in points or ("filter",)):
            yield step, step.pod


def selector_matches(selector: Mapping[str, Any] | None, labels: Mapping[str, str]) -> bool:
    """``metav1.LabelSelectorAsSelector(selector).Matches(labels)``: None matches nothing,
    ``{}`` everything."""
    if selector is None:
        return False
    for k, want in (selector.get("matchLabels") or {}).items():
        if labels.get(k) != want:
            return False
    for e in selector.get("matchExpressions") or []:
        key, op, vals = e.get("key"), e.get("operator"), e.get("values") or []
        has = key in labels
        if op == "In" and (not has or labels[key] not in vals):
            return False
        if op == "NotIn" and has and labels[key] in vals:
            return False
        if op == "Exists" and not has:
            return False
        if op == "DoesNotExist" and has:
            return False
    return True


def _requirement(req: Mapping[str, Any], present: bool, actual: str) -> bool:
    op, vals = req.get("operator"), req.get("values") or []
    if op == "In":
        return present and actual in vals
    if op == "NotIn":
        return not present or actual not in vals
    if op == "Exists":
        return present
    if op == "DoesNotExist":
        return not present
    if op in ("Gt", "Lt") and present and len(vals) == 1:
        try:
            n, bound = int(actual), int(vals[0])
        except ValueError:
            return False
        return n > bound if op == "Gt" else n < bound
    return False


def volume_node_affinity_matches(pv: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """``CheckNodeAffinity(pv, node.Labels)``: no ``nodeAffinity.required`` matches every
    node; else some term whose expressions all match the labels. The node it checks has
    labels only, so a ``matchFields`` requirement on ``metadata.name`` sees an empty name."""
    required = ((_spec(pv).get("nodeAffinity") or {}).get("required"))
    if not isinstance(required, Mapping):
        return True
    for term in required.get("nodeSelectorTerms") or []:
        exprs = term.get("matchExpressions") or []
        fields = term.get("matchFields") or []
        if not exprs and not fields:
            continue
        if all(_requirement(r, r.get("key") in labels, labels.get(r.get("key"), ""))
               for r in exprs) and all(_requirement(r, True, "") for r in fields):
            return True
    return False


def topology_terms_match(terms: Sequence[Mapping[str, Any]] | None,
                         labels: Mapping[str, str]) -> bool:
    """``MatchTopologySelectorTerms``: no terms match every node; a term without
    expressions matches none; a term matches when each key's label is among its values."""
    if not terms:
        return True
    for term in terms:
        exprs = term.get("matchLabelExpressions") or []
        if exprs and all(labels.get(e.get("key")) in (e.get("values") or []) for e in exprs):
            return True
    return False


@dataclass
class StorageView:
    """The scenario's storage objects (by name, claims by ``namespace/name``) and the claims
    of the result."""

    volumes: dict[str, Mapping[str, Any]] = field(default_factory=dict)
    claims: dict[str, Mapping[str, Any]] = field(default_factory=dict)
    classes: dict[str, Mapping[str, Any]] = field(default_factory=dict)
    csi_nodes: dict[str, Mapping[str, Any]] = field(default_factory=dict)
    csi_drivers: dict[str, Mapping[str, Any]] = field(default_factory=dict)
    capacities: list[Mapping[str, Any]] = field(default_factory=list)
    #: ``persistentVolumeClaims`` of the result, by ``namespace/name``
    results: dict[str, Mapping[str, Any]] = field(default_factory=dict)

    @classmethod
    def of(cls, ctx: OracleContext) -> StorageView:
        out = cls()
        for doc in _objects(ctx.scenario.documents):
            kind = doc.get("kind")
            if kind not in _KINDS:
                continue
            meta = _meta(doc)
            name = str(meta.get("name", ""))
            if kind == "PersistentVolume":
                out.volumes[name] = doc
            elif kind == "PersistentVolumeClaim":
                out.claims[claim_key(str(meta.get("namespace") or ""), name)] = doc
            elif kind == "StorageClass":
                out.classes[name] = doc
            elif kind == "CSINode":
                out.csi_nodes[name] = doc
            elif kind == "CSIDriver":
                out.csi_drivers[name] = doc
            else:
                out.capacities.append(doc)
        for entry in ctx.result.get("persistentVolumeClaims") or []:
            out.results[claim_key(str(entry.get("namespace") or ""), str(entry["name"]))] = entry
        return out

    def __bool__(self) -> bool:
        return bool(self.volumes or self.claims or self.results)

    @cached_property
    def default_class(self) -> str | None:
        """The one class annotated as the default (the DefaultStorageClass admission plugin
        gives it to a claim without a class); None when none is, or several are (the
        admission then picks by creation time, which the oracles do not restate)."""
        defaults = [n for n, c in self.classes.items()
                    if "true" in (str(_meta(c).get("annotations", {}).get(a, ""))
                                  for a in (ANN_DEFAULT_CLASS, ANN_BETA_DEFAULT_CLASS))]
        return defaults[0] if len(defaults) == 1 else None

    def stored_class(self, claim: Mapping[str, Any]) -> str:
        """``GetPersistentVolumeClaimClass`` of the claim as given: the beta annotation, else
        ``spec.storageClassName``, else ""."""
        ann = _meta(claim).get("annotations") or {}
        if ANN_BETA_STORAGE_CLASS in ann:
            return str(ann[ANN_BETA_STORAGE_CLASS])
        return str(_spec(claim).get("storageClassName") or "")

    def class_of(self, claim: Mapping[str, Any]) -> str | None:
        """The claim's class as the API server stores it: its own, or (no class named at
        all) the default class, None when that is ambiguous."""
        ann = _meta(claim).get("annotations") or {}
        if ANN_BETA_STORAGE_CLASS in ann or _spec(claim).get("storageClassName") is not None:
            return self.stored_class(claim)
        return self.default_class

    def input_volume(self, key: str) -> str:
        """``spec.volumeName`` of the claim as given ("" when unbound or unknown)."""
        claim = self.claims.get(key)
        return str(_spec(claim).get("volumeName") or "") if claim else ""

    def final_volume(self, key: str) -> str:
        """The claim's volume at the end: as given, else the result's ``volumeName``."""
        entry = self.results.get(key) or {}
        return self.input_volume(key) or str(entry.get("volumeName") or "")

    def request(self, claim: Mapping[str, Any]) -> int | None:
        """``spec.resources.requests.storage`` in bytes (None when absent)."""
        return storage_bytes(((_spec(claim).get("resources") or {}).get("requests") or {})
                             .get("storage"))

    def access_modes(self, claim: Mapping[str, Any]) -> tuple[str, ...]:
        return tuple(str(m) for m in _spec(claim).get("accessModes") or ())

    def limits(self, node: str) -> dict[str, int]:
        """``getVolumeLimits``: the CSINode's drivers with ``allocatable.count``."""
        csi_node = self.csi_nodes.get(node)
        drivers = _spec(csi_node).get("drivers") if csi_node is not None else None
        out: dict[str, int] = {}
        for d in drivers or []:
            count = (d.get("allocatable") or {}).get("count")
            if isinstance(count, int):
                out[str(d.get("name"))] = count
        return out
