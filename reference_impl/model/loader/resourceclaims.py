"""The resourceclaim controller's part the scheduler waits for: a ResourceClaim for each pod
claim that names a ResourceClaimTemplate, and the pod's ``status.resourceClaimStatuses``.

Upstream: ``pkg/controller/resourceclaim/controller.go`` (``handleClaim``) of v1.37.2. The
harness runs no controller manager, so the loader does this once, for every input, after the
pods and the DRA objects are read (the workload expansion and admission pre-passes are
optional; this one is not). A pod that already has a status entry for the claim (a dump) is
kept as it is. Names are ``generateName`` made deterministic (``generated_names.py``).
"""

from __future__ import annotations

from collections.abc import Iterable

from reference_impl.model.dra import DRAObjects, ResourceClaim, ResourceClaimSpec
from reference_impl.model.generated_names import generate_name
from reference_impl.model.loader.defaults import _deterministic_uid
from reference_impl.model.objects import Pod

#: resourceapi.PodResourceClaimAnnotation
POD_RESOURCE_CLAIM_ANNOTATION = "resource.kubernetes.io/pod-claim-name"
#: handleClaim's ``maxBaseLen``: room for the 5 random characters in 63
MAX_BASE_LEN = 57


def claim_generate_name(pod_name: str, pod_claim_name: str) -> str:
    """``generateName`` of handleClaim: ``<pod>-<claim>-``, or when longer than 57 characters
    both names cut in proportion to their length (then without the trailing hyphen, as
    upstream)."""
    generate = f"{pod_name}-{pod_claim_name}-"
    if len(generate) > MAX_BASE_LEN:
        n = len(generate)
        generate = (pod_name[:len(pod_name) * MAX_BASE_LEN // n] + "-"
                    + pod_claim_name[:len(pod_claim_name) * MAX_BASE_LEN // n])
    return generate


def create_template_claims(pods: Iterable[Pod], dra: DRAObjects) -> list[str]:
    """``handleClaim`` for every pod claim with a template and no status entry: create the
    claim (owner: the pod, as controller; annotation ``resource.kubernetes.io/pod-claim-name``;
    the template's labels, annotations and spec) and record its name in the pod's status.
    A missing template leaves the pod without the entry (upstream's controller retries; the
    scheduler's PreEnqueue then waits). The templates are looked up in, and the claims added
    to, ``dra``. Returns the warnings."""
    warnings: list[str] = []
    for pod in pods:
        known = {name for name, _ in pod.resource_claim_statuses}
        added: list[tuple[str, str | None]] = []
        for pc in pod.resource_claim_sources:
            if pc.resource_claim_template_name is None or pc.name in known:
                continue
            template = dra.claim_templates.get(f"{pod.namespace}/{pc.resource_claim_template_name}")
            if template is None:
                warnings.append(
                    f"pod {pod.key}: resource claim template "
                    f"{pc.resource_claim_template_name!r} not found: no ResourceClaim is "
                    f"created for claim {pc.name!r} (the pod waits for it)")
                continue
            claim = _new_claim(dra, pod, pc.name, template.spec, template.labels,
                               template.annotations)
            dra.claims[f"{claim.namespace}/{claim.name}"] = claim
            added.append((pc.name, claim.name))
        if added:
            pod.resource_claim_statuses = (*pod.resource_claim_statuses, *added)
    return warnings


def _new_claim(dra: DRAObjects, pod: Pod, pod_claim_name: str, spec: ResourceClaimSpec,
               labels: tuple[tuple[str, str], ...],
               annotations: tuple[tuple[str, str], ...]) -> ResourceClaim:
    base = claim_generate_name(pod.name, pod_claim_name)
    n = 0
    name = generate_name(base, f"ResourceClaim/{pod.namespace}/{pod.uid}/{n}")
    while f"{pod.namespace}/{name}" in dra.claims:
        n += 1
        name = generate_name(base, f"ResourceClaim/{pod.namespace}/{pod.uid}/{n}")
    notes = {k: v for k, v in annotations if k != POD_RESOURCE_CLAIM_ANNOTATION}
    notes[POD_RESOURCE_CLAIM_ANNOTATION] = pod_claim_name
    return ResourceClaim(
        namespace=pod.namespace, name=name,
        uid=_deterministic_uid("ResourceClaim", pod.namespace, name),
        spec=spec,
        annotations=tuple(notes.items()), labels=labels, owner_pod_uid=pod.uid)
