"""Service (v1), ReplicationController (v1), ReplicaSet (apps/v1) and StatefulSet (apps/v1)
manifests -> the model (``objects.py``): namespace, name, uid and selector, what
``helper.DefaultSelector`` reads (pkg/scheduler/framework/plugins/helper/spread.go).

The selector gets the API server's create-time rules (k8s.io/kubernetes v1.37.2):
``SetDefaults_ReplicationController`` (pkg/apis/core/v1/defaults.go), the selector checks of
``ValidateReplicationController`` (pkg/apis/core/validation) and ``ValidateReplicaSetSpec`` /
``ValidateStatefulSetSpec`` (pkg/apis/apps/validation). A Service without selector is kept as
``None`` (it selects nothing). The pod template is not read here: workload expansion turns it
into pods before the loader runs. A removed apiVersion (``extensions/v1beta1``) is read as
``apps/v1`` with a warning, as the expansion reads it (docs/expansion.md#removed-api-versions).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reference_impl.api.labels import compile_selector, selector_from_set
from reference_impl.model.decoding import InputLocation, read_map, read_str, read_str_map
from reference_impl.model.loader.defaults import _deterministic_uid
from reference_impl.model.loader.fields import _Raw
from reference_impl.model.loader.selectors import _label_selector
from reference_impl.model.objects import (
    LabelSelector,
    ReplicaSet,
    ReplicationController,
    Service,
    StatefulSet,
)

#: the kinds this module reads, with the apiVersion each is served as
CONTROLLER_KINDS = {
    "Service": "v1",
    "ReplicationController": "v1",
    "ReplicaSet": "apps/v1",
    "StatefulSet": "apps/v1",
}

#: apiVersions workload kinds had in releases that no longer serve them (removed in 1.16,
#: k8s.io/kubernetes CHANGELOG-1.16 "extensions/v1beta1, apps/v1beta1 and apps/v1beta2"); read
#: as the served version with a warning (docs/expansion.md#removed-api-versions). The workload
#: expansion (model/workloads/templates.py) reads the same table.
REMOVED_API_VERSIONS = {
    "Deployment": ("extensions/v1beta1", "apps/v1beta1", "apps/v1beta2"),
    "ReplicaSet": ("extensions/v1beta1", "apps/v1beta2"),
    "StatefulSet": ("apps/v1beta1", "apps/v1beta2"),
    "DaemonSet": ("extensions/v1beta1", "apps/v1beta2"),
}


def served_api_version(kind: str, api_version: str) -> str | None:
    """The apiVersion the loader reads a controller kind as: its served version (``v1``,
    ``apps/v1``; an empty apiVersion too), or that version for a removed one; None when the
    loader does not read (kind, apiVersion)."""
    served = CONTROLLER_KINDS.get(kind)
    if served is None:
        return None
    if not api_version or api_version == served \
            or api_version in REMOVED_API_VERSIONS.get(kind, ()):
        return served
    return None


def removed_api_version_warning(where: str, obj: str, api_version: str, served: str) -> str:
    """The one warning for a workload written in a removed apiVersion (the loader's and the
    expansion's)."""
    return (f"{where}: {obj}: apiVersion {api_version} is not served since Kubernetes 1.16; "
            f"read as {served} (write apiVersion: {served}; "
            "docs/expansion.md#removed-api-versions)")


def _uid(r: _Raw) -> str:
    meta = read_map(r.ctx, r.doc.get("metadata"), "metadata")
    return (read_str(r.ctx, meta.get("uid"), "metadata.uid")
            or _deterministic_uid(r.kind, r.namespace, r.name))


def _template_labels(ctx: InputLocation, spec: Mapping[str, Any]) -> dict[str, str] | None:
    """``spec.template.metadata.labels``; None when there is no template."""
    if spec.get("template") is None:
        return None
    tmpl = read_map(ctx, spec.get("template"), "spec.template")
    meta = read_map(ctx, tmpl.get("metadata"), "spec.template.metadata")
    return read_str_map(ctx, meta.get("labels"), "spec.template.metadata.labels")


def _service(r: _Raw) -> Service:
    spec = read_map(r.ctx, r.doc.get("spec"), "spec")
    raw = spec.get("selector")
    selector = None if raw is None else read_str_map(r.ctx, raw, "spec.selector")
    return Service(r.namespace, r.name, _uid(r), selector)


def _replication_controller(r: _Raw) -> ReplicationController:
    ctx = r.ctx
    spec = read_map(ctx, r.doc.get("spec"), "spec")
    selector = read_str_map(ctx, spec.get("selector"), "spec.selector")
    labels = _template_labels(ctx, spec)
    if not selector and labels:
        selector = dict(labels)  # SetDefaults_ReplicationController
    if not selector:
        raise ctx.error("spec.selector", "required: a ReplicationController needs a non-empty "
                                         "selector (or a template with labels to default it)")
    if labels is not None and not selector_from_set(selector).matches(labels):
        raise ctx.error("spec.template.metadata.labels",
                        f"`selector` does not match template `labels`: selector {selector}, "
                        f"labels {labels}")
    return ReplicationController(r.namespace, r.name, _uid(r), selector)


def _apps_selector(r: _Raw) -> LabelSelector:
    """An apps/v1 workload's ``spec.selector``: required, valid, non-empty, matching the
    template's labels."""
    ctx = r.ctx
    spec = read_map(ctx, r.doc.get("spec"), "spec")
    selector = _label_selector(ctx, spec.get("selector"), "spec.selector")
    labels = _template_labels(ctx, spec)
    if selector is None and r.api_version == "extensions/v1beta1" and labels:
        # extensions/v1beta1 defaulted a missing selector to the template's labels
        # (SetDefaults_ReplicaSet of pkg/apis/extensions/v1beta1, removed in 1.16)
        selector = LabelSelector(tuple(sorted(labels.items())), ())
    if selector is None:
        raise ctx.error("spec.selector", f"required: an {r.api_version} {r.kind} needs a "
                                         "label selector")
    if not selector.match_labels and not selector.match_expressions:
        raise ctx.error("spec.selector", f"empty selector is invalid for a {r.kind} (expected "
                                         "matchLabels or matchExpressions)")
    if labels is not None and not compile_selector(selector).matches(labels):
        raise ctx.error("spec.template.metadata.labels",
                        f"`selector` does not match template `labels`: labels {labels}")
    return selector


def _replica_set(r: _Raw) -> ReplicaSet:
    return ReplicaSet(r.namespace, r.name, _uid(r), _apps_selector(r))


def _stateful_set(r: _Raw) -> StatefulSet:
    return StatefulSet(r.namespace, r.name, _uid(r), _apps_selector(r))
