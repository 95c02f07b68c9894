"""The DefaultTolerationSeconds admission plugin
(plugin/pkg/admission/defaulttolerationseconds/admission.go): a pod that does not tolerate the
``node.kubernetes.io/not-ready`` (or ``unreachable``) NoExecute taint gets a toleration for it
with ``tolerationSeconds: 300`` (the API server's --default-not-ready-toleration-seconds and
--default-unreachable-toleration-seconds defaults). A toleration with an empty key (or an empty
effect) counts as tolerating, whatever its operator, as upstream checks it."""

from __future__ import annotations

from reference_impl.model.loader.admission.common import AdmittedPod

PLUGIN = "DefaultTolerationSeconds"
NOT_READY = "node.kubernetes.io/not-ready"
UNREACHABLE = "node.kubernetes.io/unreachable"
DEFAULT_SECONDS = 300
SOURCE = "the API server's default (300 s)"


def mutate(pod: AdmittedPod) -> None:
    current = pod.spec.get("tolerations")
    tolerations = [t for t in current if isinstance(t, dict)] if isinstance(current, list) else []
    added = []
    for key in (NOT_READY, UNREACHABLE):
        tolerated = any((t.get("key") or "") in (key, "")
                        and (t.get("effect") or "") in ("NoExecute", "")
                        for t in tolerations)
        if not tolerated:
            added.append({"key": key, "operator": "Exists", "effect": "NoExecute",
                          "tolerationSeconds": DEFAULT_SECONDS})
    if not added:
        return
    out = list(current) if isinstance(current, list) else []
    for t in added:
        out.append(t)
        pod.record(PLUGIN, f"spec.tolerations[{len(out) - 1}]", dict(t), SOURCE)
    pod.spec["tolerations"] = out
