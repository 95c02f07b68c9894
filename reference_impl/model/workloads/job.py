"""Job → its active pods (pkg/controller/job/job_controller.go ``manageJob``,
indexed_job_utils.go; defaults pkg/apis/batch/v1/defaults.go): ``parallelism`` (default 1)
pods, fewer when ``completions`` minus the succeeded pods is smaller, none when ``suspend``.
The selector and the job-name / controller-uid labels are generated (``generateSelector``,
templates.py) unless ``manualSelector``. NonIndexed pods are named ``<job>-<5 characters>``;
Indexed ones ``<job>-<index>-<5 characters>``, with the completion index label and annotation
and ``hostname: <job>-<index>``. Pods the Job already has (active, or succeeded towards its
completions) count."""

from __future__ import annotations

import copy

from reference_impl.model.decoding import read_int
from reference_impl.model.workloads.context import Expansion
from reference_impl.model.workloads.replicaset import NEGATIVE, NON_NEGATIVE, pods_prefix
from reference_impl.model.workloads.templates import Workload, pod_from_template

COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"


def _count(w: Workload, field: str) -> int | None:
    v = w.spec.get(field)
    if v is None:
        return None
    return read_int(w.ctx, v, f"spec.{field}", bounds=NON_NEGATIVE, out_of_range=NEGATIVE)


def expand_job(x: Expansion, w: Workload) -> int:
    """Create the Job's missing active pods; returns how many."""
    restart = (w.template.get("spec") or {}).get("restartPolicy")
    if restart not in ("OnFailure", "Never"):
        raise w.ctx.error("spec.template.spec.restartPolicy",
                          f"Unsupported value: {restart!r}: supported values: \"OnFailure\", "
                          "\"Never\" (a Job's pods must not restart Always)")
    parallelism = _count(w, "parallelism")
    completions = _count(w, "completions")
    if parallelism is None:
        parallelism = 1
    if w.spec.get("suspend") is True:
        x.notes.append(f"{w.key}: suspended: no pods")
        return 0
    pods = x.owned(w, active_only=False)
    succeeded = sum(1 for p in pods if p.phase == "Succeeded")
    active = [p for p in pods if p.active]
    want = parallelism if completions is None else min(parallelism, completions - succeeded)
    missing = max(0, want - len(active))
    indexed = w.spec.get("completionMode") == "Indexed"
    done_indexes = {p.labels.get(COMPLETION_INDEX) for p in pods}
    created = 0
    index = 0
    while created < missing:
        if indexed:
            while str(index) in done_indexes:
                index += 1
            if completions is not None and index >= completions:
                break
            template = copy.deepcopy(w.template)
            meta = dict(template.get("metadata") or {})
            meta["labels"] = {**(meta.get("labels") or {}), COMPLETION_INDEX: str(index)}
            meta["annotations"] = {**(meta.get("annotations") or {}),
                                   COMPLETION_INDEX: str(index)}
            template["metadata"] = meta
            template["spec"] = {**(template.get("spec") or {}),
                                "hostname": f"{w.name}-{index}"}
            base = f"{w.name}-{index}-"
            name = x.unique_name("Pod", w.namespace, base, f"{w.namespace}/{w.name}")
            pod = pod_from_template(w, name, template=template)
            index += 1
        else:
            name = x.unique_name("Pod", w.namespace, pods_prefix(w.name),
                                 f"{w.namespace}/{w.name}/{created}")
            pod = pod_from_template(w, name)
        if not created:
            x.check_pod(w, pod)
        x.add("Pod", w.namespace, name, w.key, pod)
        created += 1
    x.notes.append(f"{w.key}: parallelism {parallelism}"
                   + (f", completions {completions} ({succeeded} succeeded)"
                      if completions is not None else "")
                   + f", {len(active)} active in the inputs, {created} pod(s) created")
    return created
