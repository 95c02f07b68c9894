"""PriorityClass, Namespace and PodDisruptionBudget manifests -> the model (``objects.py``)."""

from __future__ import annotations

import re

from reference_impl.model.decoding import (
    InputLocation,
    read_bool,
    read_enum,
    read_int,
    read_map,
)
from reference_impl.model.loader.defaults import (
    LABEL_METADATA_NAME,
    PREEMPT_LOWER_PRIORITY,
    PREEMPT_NEVER,
)
from reference_impl.model.loader.fields import (
    _metadata_common,
    _Raw,
)
from reference_impl.model.loader.selectors import _label_selector
from reference_impl.model.objects import Namespace, PodDisruptionBudget, PriorityClass


def _priority_class(r: _Raw) -> PriorityClass:
    ctx, doc = r.ctx, r.doc
    value_ = read_int(ctx, doc.get("value"), "value")
    if value_ is None:
        raise ctx.error("value", "required: a PriorityClass needs an integer value")
    return PriorityClass(
        name=r.name,
        value=value_,
        global_default=read_bool(ctx, doc.get("globalDefault"), "globalDefault"),
        preemption_policy=read_enum(ctx, doc.get("preemptionPolicy"), "preemptionPolicy",
                                    (PREEMPT_LOWER_PRIORITY, PREEMPT_NEVER),
                                    default=PREEMPT_LOWER_PRIORITY) or PREEMPT_LOWER_PRIORITY,
    )


def _namespace(r: _Raw) -> Namespace:
    _meta, labels, _ann = _metadata_common(r)
    labels[LABEL_METADATA_NAME] = r.name  # SetDefaults_Namespace
    return Namespace(r.name, labels)


def _int_or_percent(ctx: InputLocation, v: object, path: str) -> int | str | None:
    if v is None:
        return None
    if isinstance(v, str):
        if not re.fullmatch(r"\d+%", v):
            raise ctx.error(path, f"expected an integer or a percentage like '50%', got {v!r}")
        return v
    n = read_int(ctx, v, path)
    if n is not None and n < 0:
        raise ctx.error(path, "must be greater than or equal to 0")
    return n


def _pdb(r: _Raw) -> PodDisruptionBudget:
    ctx, doc = r.ctx, r.doc
    spec = read_map(ctx, doc.get("spec"), "spec")
    status = read_map(ctx, doc.get("status"), "status")
    min_available = _int_or_percent(ctx, spec.get("minAvailable"), "spec.minAvailable")
    max_unavailable = _int_or_percent(ctx, spec.get("maxUnavailable"), "spec.maxUnavailable")
    if min_available is not None and max_unavailable is not None:
        raise ctx.error("spec", "minAvailable and maxUnavailable cannot be both set")
    return PodDisruptionBudget(
        namespace=r.namespace,
        name=r.name,
        selector=_label_selector(ctx, spec.get("selector"), "spec.selector"),
        min_available=min_available,
        max_unavailable=max_unavailable,
        disruptions_allowed=read_int(ctx, status.get("disruptionsAllowed"),
                                     "status.disruptionsAllowed"),
    )
