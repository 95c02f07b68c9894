"""The versioned output documents (``apiVersion: kschedconf/v1``) ``Explanation``,
``SimulationResult``, ``ReproduceResult``, ``GoldenList`` (``RunReport``: ``RunSummary.to_doc``;
``ReleaseList``, ``ReleaseDiff``: ``conformance.core.releases``):
JSON-able dicts with a fixed key order (byte-identical for the same inputs and seed), their
JSON Schemas (``conformance/core/schemas/``) and their JSON/YAML text."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

import yaml

from reference_impl.releases.pinned import UPSTREAM_RELEASE
from reference_impl.scheduler.explain import Explanation, PluginVerdict
from reference_impl.scheduler.schedule_one import Attempt
from reference_impl.scheduler.scheduler import SimulationResult
from reference_impl.storage.results import ClaimExplanation

API_VERSION = "kschedconf/v1"


def _verdict_doc(v: PluginVerdict) -> dict[str, Any]:
    """A filter verdict; ``detail`` (explanation-only lines, not upstream's) when there is any."""
    out: dict[str, Any] = {"plugin": v.plugin, "code": v.code, "reasons": v.reasons}
    if v.detail:
        out["detail"] = v.detail
    return out


def explanation_doc(e: Explanation, release: str = UPSTREAM_RELEASE) -> dict[str, Any]:
    return {
        "apiVersion": API_VERSION,
        "kind": "Explanation",
        "upstreamRelease": release,
        "pod": e.pod,
        "preFilter": [{"plugin": v.plugin, "code": v.code, "reasons": v.reasons}
                      for v in e.pre_filter],
        "nodes": [{
            "name": n.name,
            "feasible": n.feasible,
            "examined": n.examined,
            "filters": [_verdict_doc(v) for v in n.filters],
            "scores": [{"plugin": s.plugin, "raw": s.raw, "normalized": s.normalized,
                        "weight": s.weight, "weighted": s.weighted} for s in n.scores],
            "total": n.total,
        } for n in e.nodes],
        "candidates": e.candidates,
        "selected": e.selected,
        "shortcut": e.shortcut,
        "evaluatedNodes": e.evaluated_nodes,
        "feasibleNodes": e.feasible_nodes,
        "message": e.message,
        "preemption": None if e.preemption is None else {
            "eligible": e.preemption.eligible,
            "message": e.preemption.message,
            "candidates": [{"node": c.node, "victims": c.victims,
                            "pdbViolations": c.pdb_violations} for c in e.preemption.candidates],
            "selected": e.preemption.selected,
            "victims": e.preemption.victims,
            "notCandidates": e.preemption.not_candidates,
        },
        **({"claims": [_claim_doc(c) for c in e.claims]} if e.claims else {}),
        **({"resourceClaims": e.resource_claims} if e.resource_claims else {}),
        **({"extendedResourceClaimStatus": e.extended_resource_claim_status}
           if e.extended_resource_claim_status is not None else {}),
    }


def _claim_doc(c: ClaimExplanation) -> dict[str, Any]:
    """An explained pod's claim; ``selectedNode`` when the scheduler selected one for it."""
    out: dict[str, Any] = {"claim": c.claim, "phase": c.phase, "volumeName": c.volume_name}
    if c.selected_node:
        out["selectedNode"] = c.selected_node
    out["outcome"] = c.outcome
    return out


def _attempt_doc(a: Attempt) -> dict[str, Any]:
    """One attempt (the devices a bound pod's claims got are in ``resourceClaims``)."""
    return {
        "pod": a.pod,
        "outcome": a.outcome,
        "node": a.node,
        "reasons": {k: a.reasons[k] for k in sorted(a.reasons)},
        "message": a.message,
        "nominatedNode": a.nominated_node,
        "candidates": a.candidates,
        "victims": a.victims,
        "evaluatedNodes": a.evaluated_nodes,
        "feasibleNodes": a.feasible_nodes,
    }


def simulation_doc(r: SimulationResult, release: str = UPSTREAM_RELEASE) -> dict[str, Any]:
    return {
        "apiVersion": API_VERSION,
        "kind": "SimulationResult",
        "upstreamRelease": release,
        "seed": r.seed,
        "attempts": [_attempt_doc(a) for a in r.attempts],
        "bindings": r.bindings,
        "pending": r.pending,
        "deleted": r.deleted,
        **({"resourceClaims": r.resource_claims} if r.resource_claims else {}),
        **({"persistentVolumeClaims": r.persistent_volume_claims}
           if r.persistent_volume_claims else {}),
        **({"extendedResourceClaimStatus": r.extended_resource_claim_status}
           if r.extended_resource_claim_status else {}),
    }


def reproduce_doc(*, file: str, seed: int, subject: str, found_with: str,
                  oracles: Sequence[str], result: Mapping[str, Any] | None,
                  violations: Sequence[tuple[str, str]], golden: bool,
                  golden_differences: Sequence[str], warnings: Sequence[str],
                  dropped: Mapping[str, int], not_judged: str, exit_code: int
                  ) -> dict[str, Any]:
    """The ``ReproduceResult`` of ``kschedconf reproduce -o json|yaml``: the subject's
    bindings and pending pods, every violation (oracle, text), the differences from a golden
    file's recorded decisions (``null`` when it has none), what the subject dropped and why
    nothing could be judged, and the exit code."""
    return {
        "apiVersion": API_VERSION,
        "kind": "ReproduceResult",
        "upstreamRelease": UPSTREAM_RELEASE,
        "file": file,
        "seed": seed,
        "subject": subject,
        "foundWith": found_with,
        "oracles": list(oracles),
        "bindings": dict((result or {}).get("bindings") or {}),
        "pending": list((result or {}).get("pending") or []),
        "violations": [{"oracle": o, "text": t} for o, t in violations],
        "goldenDifferences": list(golden_differences) if golden else None,
        "warnings": list(warnings),
        "dropped": {k: dropped[k] for k in sorted(dropped)},
        "notJudged": not_judged,
        "exitCode": exit_code,
    }


def golden_list_doc(directory: str, scenarios: Sequence[tuple[str, str, str, str]]
                    ) -> dict[str, Any]:
    """The ``GoldenList`` of ``kschedconf golden list -o json|yaml``: every golden scenario's
    ``(name, file, release its decisions were recorded with or "", what it covers)``."""
    return {
        "apiVersion": API_VERSION,
        "kind": "GoldenList",
        "upstreamRelease": UPSTREAM_RELEASE,
        "directory": directory,
        "scenarios": [{"name": n, "file": f, "recordedWith": r, "covers": c}
                      for n, f, r, c in scenarios],
    }


def schema(kind: str) -> dict[str, Any]:
    """The JSON Schema shipped for an output kind (``Explanation``, ``SimulationResult``)."""
    text = resources.files("conformance.core.schemas").joinpath(f"{kind}.schema.json").read_text()
    doc: dict[str, Any] = json.loads(text)
    return doc


def to_json(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def to_yaml(doc: dict[str, Any]) -> str:
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)
