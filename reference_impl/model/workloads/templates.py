"""A workload read from the inputs (``Workload``) and the pods its pod template makes:
``pod_from_template`` is ``controller.GetPodFromTemplate`` (pkg/controller/controller_utils.go),
``controller_ref`` is ``metav1.NewControllerRef``. Reading checks what the API server's
validation of the workload checks before any pod exists (a selector that selects the template,
a template with a spec), so a bad workload fails with its own file, document and field.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from reference_impl.api.labels import Selector, compile_selector
from reference_impl.model.decoding import InputLocation, read_map, read_str, read_str_map
from reference_impl.model.generated_names import generate_name
from reference_impl.model.loader.controllers import removed_api_version_warning
from reference_impl.model.loader.defaults import _deterministic_uid
from reference_impl.model.loader.selectors import _label_selector
from reference_impl.model.objects import LabelSelector

#: (kind, apiVersion) of the workloads expanded, as the served APIs of v1.37.2 have them
SERVED_API_VERSIONS = {
    "Deployment": "apps/v1", "ReplicaSet": "apps/v1", "StatefulSet": "apps/v1",
    "DaemonSet": "apps/v1", "ReplicationController": "v1", "Job": "batch/v1",
}


@dataclass(slots=True)
class Workload:
    """A workload object of the inputs. ``doc`` is a private copy the expansion may complete
    (a uid, the Job's generated selector); ``pod_labels`` are the template's labels."""

    kind: str
    api_version: str
    namespace: str
    name: str
    uid: str
    doc: dict[str, Any]
    ctx: InputLocation
    template: dict[str, Any]
    pod_labels: dict[str, str]
    selector: Selector
    warnings: list[str] = field(default_factory=list)
    uid_added: bool = False

    @property
    def key(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}"

    @property
    def spec(self) -> Mapping[str, Any]:
        spec = self.doc.get("spec")
        return spec if isinstance(spec, Mapping) else {}


def controller_ref(api_version: str, kind: str, name: str, uid: str) -> dict[str, Any]:
    """``metav1.NewControllerRef``: controller and blockOwnerDeletion true."""
    return {"apiVersion": api_version, "kind": kind, "name": name, "uid": uid,
            "controller": True, "blockOwnerDeletion": True}


def _selector_of(ctx: InputLocation, kind: str, spec: Mapping[str, Any],
                 labels: Mapping[str, str]) -> tuple[LabelSelector | None, Any]:
    """The workload's selector, with the defaults of its API: a ReplicationController's plain
    map (empty: the template labels, SetDefaults_ReplicationController)."""
    raw = spec.get("selector")
    if kind == "ReplicationController":
        m = read_str_map(ctx, raw, "spec.selector")
        if not m:
            m = dict(labels)
        return LabelSelector(tuple(m.items()), ()), m
    return _label_selector(ctx, raw, "spec.selector"), raw


def read_workload(kind: str, api_version: str, doc: Mapping[str, Any],
                  ctx: InputLocation) -> Workload:
    """A workload from its document, checked as upstream's validation of it checks
    (pkg/apis/apps/validation/validation.go ValidateDeploymentSpec / ValidateReplicaSetSpec /
    ValidateStatefulSetSpec / ValidateDaemonSetSpec, pkg/apis/core/validation
    ValidateReplicationControllerSpec, pkg/apis/batch/validation ValidateJobSpec): a
    non-empty selector that selects the template's labels."""
    own = copy.deepcopy(dict(doc))
    warnings: list[str] = []
    meta = read_map(ctx, own.get("metadata"), "metadata")
    name = read_str(ctx, meta.get("name"), "metadata.name")
    namespace = read_str(ctx, meta.get("namespace"), "metadata.namespace") or "default"
    base = read_str(ctx, meta.get("generateName"), "metadata.generateName")
    if not name and base:
        # generateName (a Job created with `kubectl create`): deterministic, written back
        name = generate_name(base, f"{kind}/{namespace}/{ctx.document}/{ctx.item}")
        own["metadata"] = meta = {**meta, "name": name}
    if not name:
        raise ctx.error("metadata.name", f"required: every {kind} needs a name "
                                         "(or a metadata.generateName)")
    ctx.obj = f"{kind} {namespace}/{name}"
    served = SERVED_API_VERSIONS[kind]
    if api_version != served:
        warnings.append(removed_api_version_warning(ctx.where(), ctx.obj, api_version, served))
        own["apiVersion"] = served
    uid = read_str(ctx, meta.get("uid"), "metadata.uid")
    uid_added = not uid
    if not uid:
        uid = _deterministic_uid(kind, namespace, name)
        own["metadata"] = {**meta, "uid": uid, "namespace": namespace}
    spec = read_map(ctx, own.get("spec"), "spec")
    if "template" not in spec or spec.get("template") is None:
        raise ctx.error("spec.template", f"required: a {kind} creates its pods from a pod "
                                         "template")
    template = dict(read_map(ctx, spec.get("template"), "spec.template"))
    tmeta = read_map(ctx, template.get("metadata"), "spec.template.metadata")
    labels = read_str_map(ctx, tmeta.get("labels"), "spec.template.metadata.labels")
    read_str_map(ctx, tmeta.get("annotations"), "spec.template.metadata.annotations")
    tspec = read_map(ctx, template.get("spec"), "spec.template.spec")
    if not tspec.get("containers"):
        raise ctx.error("spec.template.spec.containers",
                        "required: a pod template needs at least one container")
    if kind == "Job":
        labels, selector_doc = _job_selector(own, spec, template, labels, name, uid)
        sel: LabelSelector | None = _label_selector(ctx, selector_doc, "spec.selector")
    else:
        if kind == "ReplicationController" and not spec.get("selector"):
            warnings.append(f"{ctx.where()}: {ctx.obj}: spec.selector is empty: defaulted to "
                            "the template's labels (SetDefaults_ReplicationController)")
        if kind in ("ReplicaSet", "Deployment", "DaemonSet") and spec.get("selector") is None \
                and api_version == "extensions/v1beta1":
            # extensions/v1beta1 defaulted a missing selector to the template labels
            own["spec"] = {**spec, "selector": {"matchLabels": dict(labels)}}
            spec = own["spec"]
            warnings.append(f"{ctx.where()}: {ctx.obj}: no spec.selector: defaulted to the "
                            "template's labels as extensions/v1beta1 did (apps/v1 requires it)")
        sel, _ = _selector_of(ctx, kind, spec, labels)
        if sel is None or (not sel.match_labels and not sel.match_expressions):
            raise ctx.error("spec.selector", f"required: a {kind} needs a non-empty selector "
                                             "(empty selector is invalid)")
    compiled = compile_selector(sel)
    if not compiled.matches(labels):
        raise ctx.error("spec.template.metadata.labels",
                        f"`selector` does not match template `labels` (selector "
                        f"{_show_selector(sel)}, labels {dict(labels)})")
    return Workload(kind, own.get("apiVersion", served), namespace, name, uid, own, ctx,
                    template, dict(labels), compiled, warnings, uid_added)


def _show_selector(sel: LabelSelector | None) -> str:
    if sel is None:
        return "<none>"
    parts = [f"{k}={v}" for k, v in sel.match_labels]
    parts += [f"{e.key} {e.operator} {list(e.values)}" for e in sel.match_expressions]
    return "{" + ", ".join(parts) + "}"


_JOB_NAME_LABELS = ("job-name", "batch.kubernetes.io/job-name")
_CONTROLLER_UID_LABELS = ("controller-uid", "batch.kubernetes.io/controller-uid")


def _job_selector(own: dict[str, Any], spec: Mapping[str, Any], template: dict[str, Any],
                  labels: dict[str, str], name: str, uid: str
                  ) -> tuple[dict[str, str], Any]:
    """``generateSelector`` (pkg/registry/batch/job/strategy.go) unless
    ``spec.manualSelector``: the job-name and controller-uid labels (legacy and
    batch.kubernetes.io/) on the template, and ``controller-uid`` in the selector; written into
    the Job's own copy, as the API server stores it."""
    if spec.get("manualSelector") is True:
        return labels, spec.get("selector")
    labels = dict(labels)
    for key in _JOB_NAME_LABELS:
        labels.setdefault(key, name)
    for key in _CONTROLLER_UID_LABELS:
        labels.setdefault(key, uid)
    selector = dict(spec.get("selector") or {})
    match = dict(selector.get("matchLabels") or {})
    match.setdefault("batch.kubernetes.io/controller-uid", uid)
    selector["matchLabels"] = match
    tmeta = dict(template.get("metadata") or {})
    tmeta["labels"] = labels
    template["metadata"] = tmeta
    own["spec"] = {**spec, "selector": selector, "template": template}
    return labels, selector


def pod_from_template(w: Workload, name: str, *, template: Mapping[str, Any] | None = None,
                      extra_labels: Mapping[str, str] | None = None,
                      owner: tuple[str, str, str, str] | None = None) -> dict[str, Any]:
    """``GetPodFromTemplate``: the template's labels, annotations, finalizers and spec, the
    controller reference (``owner`` = (apiVersion, kind, name, uid), default the workload), in
    the workload's namespace, named ``name``."""
    tmpl = template if template is not None else w.template
    tmeta = tmpl.get("metadata") or {}
    labels = dict(tmeta.get("labels") or {})
    labels.update(extra_labels or {})
    api_version, kind, oname, ouid = owner or (w.api_version, w.kind, w.name, w.uid)
    meta: dict[str, Any] = {"name": name, "namespace": w.namespace}
    if labels:
        meta["labels"] = labels
    if tmeta.get("annotations"):
        meta["annotations"] = dict(tmeta["annotations"])
    if tmeta.get("finalizers"):
        meta["finalizers"] = list(tmeta["finalizers"])
    meta["ownerReferences"] = [controller_ref(api_version, kind, oname, ouid)]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": copy.deepcopy(dict(tmpl.get("spec") or {}))}
