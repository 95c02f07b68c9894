"""Service (v1), ReplicationController (v1), ReplicaSet (apps/v1) and StatefulSet (apps/v1)
manifests -> the model (``objects.py``): namespace, name, uid and selector, what
``helper.DefaultSelector`` reads (pkg/scheduler/framework/plugins/helper/spread.go).

The selector gets the API server's create-time rules (k8s.io/kubernetes v1.37.2):
``SetDefaults_ReplicationController`` (pkg/apis/core/v1/defaults.go), the selector checks of
``ValidateReplicationController`` (pkg/apis/core/validation) and ``ValidateReplicaSetSpec`` /
``ValidateStatefulSetSpec`` (pkg/apis/apps/validation). A Service without selector is kept as
``None`` (it selects nothing). The pod template is not read here: workload expansion turns it
into pods before the loader runs.
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
    if selector is None:
        raise ctx.error("spec.selector", f"required: an {r.api_version} {r.kind} needs a "
                                         "label selector")
    if not selector.match_labels and not selector.match_expressions:
        raise ctx.error("spec.selector", f"empty selector is invalid for a {r.kind} (expected "
                                         "matchLabels or matchExpressions)")
    labels = _template_labels(ctx, spec)
    if labels is not None and not compile_selector(selector).matches(labels):
        raise ctx.error("spec.template.metadata.labels",
                        f"`selector` does not match template `labels`: labels {labels}")
    return selector


def _replica_set(r: _Raw) -> ReplicaSet:
    return ReplicaSet(r.namespace, r.name, _uid(r), _apps_selector(r))


def _stateful_set(r: _Raw) -> StatefulSet:
    return StatefulSet(r.namespace, r.name, _uid(r), _apps_selector(r))
