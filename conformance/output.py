"""Versioned output documents (``apiVersion: kschedconf/v1``) and their renderings.

``Explanation`` and ``SimulationResult`` are plain JSON-able dicts with a fixed key order, so the
same inputs and seed give byte-identical output. Their JSON Schemas ship in
``conformance/schemas/``.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import yaml

from reference_impl.releases.pinned import UPSTREAM_RELEASE
from reference_impl.scheduler.explain import Explanation
from reference_impl.scheduler.scheduler import SimulationResult

API_VERSION = "kschedconf/v1"


def explanation_doc(e: Explanation) -> dict[str, Any]:
    return {
        "apiVersion": API_VERSION,
        "kind": "Explanation",
        "upstreamRelease": UPSTREAM_RELEASE,
        "pod": e.pod,
        "preFilter": [{"plugin": v.plugin, "code": v.code, "reasons": v.reasons}
                      for v in e.pre_filter],
        "nodes": [{
            "name": n.name,
            "feasible": n.feasible,
            "examined": n.examined,
            "filters": [{"plugin": v.plugin, "code": v.code, "reasons": v.reasons}
                        for v in n.filters],
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
    }


def simulation_doc(r: SimulationResult) -> dict[str, Any]:
    return {
        "apiVersion": API_VERSION,
        "kind": "SimulationResult",
        "upstreamRelease": UPSTREAM_RELEASE,
        "seed": r.seed,
        "attempts": [{
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
        } for a in r.attempts],
        "bindings": r.bindings,
        "pending": r.pending,
        "deleted": r.deleted,
    }


def schema(kind: str) -> dict[str, Any]:
    """The JSON Schema shipped for an output kind (``Explanation``, ``SimulationResult``)."""
    text = resources.files("conformance.schemas").joinpath(f"{kind}.schema.json").read_text()
    return json.loads(text)


def to_json(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def to_yaml(doc: dict[str, Any]) -> str:
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)


def _table(rows: list[list[str]], header: list[str]) -> str:
    widths = [len(h) for h in header]
    for r in rows:
        for i, c in enumerate(r):
            widths[i] = max(widths[i], len(c))
    line = "  ".join(h.ljust(widths[i]) for i, h in enumerate(header))
    out = [line, "  ".join("-" * w for w in widths)]
    for r in rows:
        out.append("  ".join(c.ljust(widths[i]) for i, c in enumerate(r)))
    return "\n".join(out)


def explanation_table(doc: dict[str, Any]) -> str:
    parts = [f"pod {doc['pod']}  (upstream {doc['upstreamRelease']})", ""]
    pf = [[v["plugin"], v["code"], "; ".join(v["reasons"])] for v in doc["preFilter"]]
    if pf:
        parts += ["PreFilter", _table(pf, ["plugin", "code", "reasons"]), ""]
    rows = []
    for n in doc["nodes"]:
        failed = [f"{f['plugin']}: {'; '.join(f['reasons']) or f['code']}"
                  for f in n["filters"] if f["code"] not in ("Success", "Skip")]
        mark = "*" if n["name"] == doc["selected"] else ""
        rows.append([mark + n["name"], "yes" if n["feasible"] else "no",
                     "" if n["total"] is None else str(n["total"]),
                     " ".join(f"{s['plugin']}={s['weighted']}" for s in n["scores"]),
                     " | ".join(failed)])
    parts += ["Nodes (upstream order; * = selected)",
              _table(rows, ["node", "feasible", "total", "weighted scores", "failed filters"]),
              ""]
    if doc["selected"]:
        sc = " (one feasible node: upstream skips scoring)" if doc["shortcut"] else ""
        parts.append(f"selected: {doc['selected']}{sc}")
        parts.append(f"highest-scored: {', '.join(doc['candidates'])}")
    else:
        parts.append(f"unschedulable: {doc['message']}")
        pre = doc.get("preemption")
        if pre:
            parts.append(f"preemption: {pre['message']}")
            for c in pre["candidates"]:
                mark = "*" if c["node"] == pre["selected"] else " "
                parts.append(f"  {mark} candidate {c['node']}: victims {', '.join(c['victims'])}"
                             f" ({c['pdbViolations']} PDB violations)")
            for node, why in pre["notCandidates"].items():
                parts.append(f"    {node}: {'; '.join(why)}")
    return "\n".join(parts) + "\n"


def simulation_table(doc: dict[str, Any]) -> str:
    rows = []
    for a in doc["attempts"]:
        detail = a["node"] or a["message"]
        if a.get("nominatedNode"):
            detail += f" (nominated {a['nominatedNode']})"
        if a.get("victims"):
            detail += f" (preempting {', '.join(a['victims'])})"
        if len(detail) > 110:
            detail = detail[:107] + "..."
        when = f"{a['time']:g}s" if a.get("time") is not None else ""
        rows.append([when, a["pod"], str(a.get("attempt", "")), a["outcome"], detail])
    bound = len(doc["bindings"])
    text = _table(rows, ["time", "pod", "try", "outcome", "node / reason"])
    return (f"{text}\n\n{bound} pods bound, {len(doc['pending'])} pending"
            f" (seed {doc['seed']}, upstream {doc['upstreamRelease']})\n")
