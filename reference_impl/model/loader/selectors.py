"""Label selectors, node selectors and affinity (node, pod, pod anti-affinity) of the manifest
loader, validated as pkg/apis/core/validation/validation.go does for the fields scheduling
reads; matchLabelKeys / mismatchLabelKeys are merged into the selector (``defaults.py``).
"""

from __future__ import annotations

from collections.abc import Mapping

from reference_impl.model.decoding import (
    InputLocation,
    read_int,
    read_list,
    read_map,
    read_required_str,
    read_str_list,
    read_str_map,
    show,
)
from reference_impl.model.loader.defaults import _merge_label_keys
from reference_impl.model.objects import (
    Affinity,
    LabelSelector,
    LabelSelectorRequirement,
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PodAffinity,
    PodAffinityTerm,
    PreferredSchedulingTerm,
    WeightedPodAffinityTerm,
)

_LABEL_SELECTOR_OPS = ("In", "NotIn", "Exists", "DoesNotExist")
_NODE_SELECTOR_OPS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")


def _label_selector(ctx: InputLocation, v: object, path: str) -> LabelSelector | None:
    """metav1.LabelSelector; absent/null -> None (selects nothing), {} -> selects everything."""
    if v is None:
        return None
    m = read_map(ctx, v, path)
    match_labels = read_str_map(ctx, m.get("matchLabels"), f"{path}.matchLabels")
    exprs = []
    for i, e in enumerate(read_list(ctx, m.get("matchExpressions"), f"{path}.matchExpressions")):
        epath = f"{path}.matchExpressions[{i}]"
        e = read_map(ctx, e, epath)
        key = read_required_str(ctx, e.get("key"), f"{epath}.key")
        op = e.get("operator")
        if op not in _LABEL_SELECTOR_OPS:
            raise ctx.error(f"{epath}.operator",
                            f"{show(op)} is not a valid label selector operator: expected one of "
                            + ", ".join(f'"{o}"' for o in _LABEL_SELECTOR_OPS))
        values = read_str_list(ctx, e.get("values"), f"{epath}.values")
        if op in ("In", "NotIn") and not values:
            raise ctx.error(f"{epath}.values",
                            f"must be specified when `operator` is '{op}'")
        if op in ("Exists", "DoesNotExist") and values:
            raise ctx.error(f"{epath}.values",
                            f"may not be specified when `operator` is '{op}'")
        exprs.append(LabelSelectorRequirement(key, op, values))
    return LabelSelector(tuple(match_labels.items()), tuple(exprs))


def _node_selector_requirements(ctx: InputLocation, v: object, path: str,
                                fields: bool) -> tuple[NodeSelectorRequirement, ...]:
    out = []
    for i, r in enumerate(read_list(ctx, v, path)):
        rpath = f"{path}[{i}]"
        r = read_map(ctx, r, rpath)
        key = read_required_str(ctx, r.get("key"), f"{rpath}.key")
        op = r.get("operator")
        allowed = ("In", "NotIn") if fields else _NODE_SELECTOR_OPS
        if not isinstance(op, str) or op not in allowed:
            raise ctx.error(f"{rpath}.operator",
                            f"{show(op)} is not a valid node selector operator: expected one of "
                            + ", ".join(f'"{o}"' for o in allowed))
        values = read_str_list(ctx, r.get("values"), f"{rpath}.values")
        if fields:
            # validateNodeFieldSelectorRequirement (pkg/apis/core/validation/validation.go)
            if key != "metadata.name":
                raise ctx.error(f"{rpath}.key", f"unsupported field {show(key)}: "
                                                'expected "metadata.name"')
            if len(values) != 1:
                raise ctx.error(f"{rpath}.values", "must be only one value when `operator` is "
                                                   f"'{op}' for node field selector")
        elif op in ("In", "NotIn") and not values:
            raise ctx.error(f"{rpath}.values", f"must be specified when `operator` is '{op}'")
        elif op in ("Exists", "DoesNotExist") and values:
            raise ctx.error(f"{rpath}.values", f"may not be specified when `operator` is '{op}'")
        elif op in ("Gt", "Lt") and len(values) != 1:
            raise ctx.error(f"{rpath}.values", f"must be specified single value when `operator` "
                                               f"is '{op}'")
        out.append(NodeSelectorRequirement(key, op, values))
    return tuple(out)


def _node_selector_term(ctx: InputLocation, v: object, path: str) -> NodeSelectorTerm:
    m = read_map(ctx, v, path)
    return NodeSelectorTerm(
        _node_selector_requirements(ctx, m.get("matchExpressions"),
                                    f"{path}.matchExpressions", False),
        _node_selector_requirements(ctx, m.get("matchFields"), f"{path}.matchFields", True),
    )


def _weight(ctx: InputLocation, v: object, path: str) -> int:
    w = read_int(ctx, v, path)
    if w is None or not 1 <= w <= 100:
        raise ctx.error(path, f"must be in the range 1-100, got {show(v)}")
    return w


def _node_affinity(ctx: InputLocation, v: object, path: str) -> NodeAffinity | None:
    if v is None:
        return None
    m = read_map(ctx, v, path)
    required = None
    rpath = f"{path}.requiredDuringSchedulingIgnoredDuringExecution"
    if m.get("requiredDuringSchedulingIgnoredDuringExecution") is not None:
        r = read_map(ctx, m["requiredDuringSchedulingIgnoredDuringExecution"], rpath)
        terms_raw = read_list(ctx, r.get("nodeSelectorTerms"), f"{rpath}.nodeSelectorTerms")
        if not terms_raw:
            raise ctx.error(f"{rpath}.nodeSelectorTerms",
                            "required: must have at least one node selector term")
        required = NodeSelector(tuple(
            _node_selector_term(ctx, t, f"{rpath}.nodeSelectorTerms[{i}]")
            for i, t in enumerate(terms_raw)))
    preferred = []
    ppath = f"{path}.preferredDuringSchedulingIgnoredDuringExecution"
    for i, p in enumerate(read_list(ctx, m.get("preferredDuringSchedulingIgnoredDuringExecution"),
                                    ppath)):
        p = read_map(ctx, p, f"{ppath}[{i}]")
        preferred.append(PreferredSchedulingTerm(
            _weight(ctx, p.get("weight"), f"{ppath}[{i}].weight"),
            _node_selector_term(ctx, p.get("preference"), f"{ppath}[{i}].preference")))
    return NodeAffinity(required, tuple(preferred))


def _pod_affinity_term(ctx: InputLocation, v: object, path: str,
                       pod_labels: Mapping[str, str]) -> PodAffinityTerm:
    m = read_map(ctx, v, path)
    selector = _label_selector(ctx, m.get("labelSelector"), f"{path}.labelSelector")
    match_keys = read_str_list(ctx, m.get("matchLabelKeys"), f"{path}.matchLabelKeys")
    mismatch_keys = read_str_list(ctx, m.get("mismatchLabelKeys"), f"{path}.mismatchLabelKeys")
    # mutatePodAffinity (MatchLabelKeysInPodAffinity, GA)
    selector = _merge_label_keys(selector, match_keys, "In", pod_labels)
    selector = _merge_label_keys(selector, mismatch_keys, "NotIn", pod_labels)
    return PodAffinityTerm(
        label_selector=selector,
        topology_key=read_required_str(ctx, m.get("topologyKey"), f"{path}.topologyKey"),
        namespaces=read_str_list(ctx, m.get("namespaces"), f"{path}.namespaces"),
        namespace_selector=_label_selector(ctx, m.get("namespaceSelector"),
                                           f"{path}.namespaceSelector"),
        match_label_keys=match_keys,
        mismatch_label_keys=mismatch_keys,
    )


def _pod_affinity(ctx: InputLocation, v: object, path: str,
                  pod_labels: Mapping[str, str]) -> PodAffinity | None:
    if v is None:
        return None
    m = read_map(ctx, v, path)
    rpath = f"{path}.requiredDuringSchedulingIgnoredDuringExecution"
    required = tuple(
        _pod_affinity_term(ctx, t, f"{rpath}[{i}]", pod_labels)
        for i, t in enumerate(read_list(
            ctx, m.get("requiredDuringSchedulingIgnoredDuringExecution"), rpath)))
    ppath = f"{path}.preferredDuringSchedulingIgnoredDuringExecution"
    preferred = []
    for i, w in enumerate(read_list(ctx, m.get("preferredDuringSchedulingIgnoredDuringExecution"),
                                    ppath)):
        w = read_map(ctx, w, f"{ppath}[{i}]")
        preferred.append(WeightedPodAffinityTerm(
            _weight(ctx, w.get("weight"), f"{ppath}[{i}].weight"),
            _pod_affinity_term(ctx, w.get("podAffinityTerm"), f"{ppath}[{i}].podAffinityTerm",
                               pod_labels)))
    return PodAffinity(required, tuple(preferred))


def _affinity(ctx: InputLocation, v: object, path: str,
              pod_labels: Mapping[str, str]) -> Affinity | None:
    if v is None:
        return None
    m = read_map(ctx, v, path)
    return Affinity(
        node_affinity=_node_affinity(ctx, m.get("nodeAffinity"), f"{path}.nodeAffinity"),
        pod_affinity=_pod_affinity(ctx, m.get("podAffinity"), f"{path}.podAffinity", pod_labels),
        pod_anti_affinity=_pod_affinity(ctx, m.get("podAntiAffinity"), f"{path}.podAntiAffinity",
                                        pod_labels),
    )
