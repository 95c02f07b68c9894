"""Tables of the output documents for a terminal (``--output table``)."""

from __future__ import annotations

import json
from typing import Any


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
    adm = [[a["plugin"], a["field"], json.dumps(a["value"], sort_keys=True), a["from"]]
           for a in doc.get("admission") or ()]
    if adm:
        parts += ["Admission (defaults applied before scheduling)",
                  _table(adm, ["plugin", "field", "value", "from"]), ""]
    pf = [[v["plugin"], v["code"], "; ".join(v["reasons"])] for v in doc["preFilter"]]
    if pf:
        parts += ["PreFilter", _table(pf, ["plugin", "code", "reasons"]), ""]
    rows = []
    for n in doc["nodes"]:
        failed = [f"{f['plugin']}: {'; '.join(f['reasons']) or f['code']}"
                  + "".join(f"; detail: {d}" for d in f.get("detail", ()))
                  for f in n["filters"] if f["code"] not in ("Success", "Skip")]
        mark = "*" if n["name"] == doc["selected"] else ""
        rows.append([mark + n["name"], "yes" if n["feasible"] else "no",
                     "" if n["total"] is None else str(n["total"]),
                     " ".join(f"{s['plugin']}={s['weighted']}" for s in n["scores"]),
                     " | ".join(failed)])
    claims = [[c["claim"], c["phase"] or "-", c["volumeName"] or "-", c["outcome"]]
              for c in doc.get("claims") or ()]
    if claims:
        parts += ["PersistentVolumeClaims",
                  _table(claims, ["claim", "phase", "volume", "what became of it"]), ""]
    dra = [[c["name"], c["claim"] or "-", ", ".join(
        f"{d['driver']}/{d['pool']}/{d['device']}" for d in c["allocation"]["devices"])
        if c["allocation"] else "-"] for c in doc.get("resourceClaims") or ()]
    if dra:
        parts += ["ResourceClaims on the selected node",
                  _table(dra, ["entry", "claim", "devices"]), ""]
    ext = doc.get("extendedResourceClaimStatus")
    if ext:
        parts += ["extendedResourceClaimStatus: " + ", ".join(
            f"{m['containerName']}/{m['resourceName']} -> {m['requestName']}"
            for m in ext["requestMappings"]), ""]
    parts += ["Nodes (upstream order; * = selected)",
              _table(rows, ["node", "feasible", "total", "weighted scores", "failed filters"]),
              ""]
    parts += _replacement_tables(doc)
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


def _replacement_tables(doc: dict[str, Any]) -> list[str]:
    """Each declared replacement beside the in-tree plugin it replaces, node by node."""
    out: list[str] = []
    for r in doc.get("replacements") or ():
        changed = f"; changes {', '.join(r['changes'])}" if r["changes"] else ""
        rows = [[("!" if n["differs"] else "") + n["name"],
                 _verdict_cell(n["verdict"]), _verdict_cell(n["upstreamVerdict"]),
                 _score_cell(n["score"]), _score_cell(n["upstreamScore"])] for n in r["nodes"]]
        out += [f"{r['plugin']} beside {r['replaces']} (! = they differ{changed})",
                _table(rows, ["node", r["plugin"], r["replaces"], "score", "upstream score"]),
                ""]
    return out


def _verdict_cell(v: dict[str, Any] | None) -> str:
    if v is None:
        return "-"
    return v["code"] + (f": {'; '.join(v['reasons'])}" if v["reasons"] else "")


def _score_cell(s: dict[str, Any] | None) -> str:
    return "-" if s is None else f"{s['normalized']} (raw {s['raw']})"


def simulation_table(doc: dict[str, Any]) -> str:
    rows = []
    for a in doc["attempts"]:
        detail = a["node"] or a["message"]
        if a.get("nominatedNode"):
            detail += f" (nominated {a['nominatedNode']})"
        if a.get("victims"):
            detail += f" (preempting {', '.join(a['victims'])})"
        claims = (doc.get("resourceClaims") or {}).get(a["pod"]) \
            if a["outcome"] == "Bound" else None
        if claims and any(c["allocation"] for c in claims):
            detail += " (devices " + "; ".join(
                f"{c['name']}: {', '.join(d['device'] for d in c['allocation']['devices'])}"
                for c in claims if c["allocation"]) + ")"
        if len(detail) > 110:
            detail = detail[:107] + "..."
        when = f"{a['time']:g}s" if a.get("time") is not None else ""
        rows.append([when, a["pod"], str(a.get("attempt", "")), a["outcome"], detail])
    bound = len(doc["bindings"])
    text = _table(rows, ["time", "pod", "try", "outcome", "node / reason"])
    pvcs = doc.get("persistentVolumeClaims") or []
    if pvcs:
        text += "\n\nPersistentVolumeClaims\n" + _table(
            [[f"{c['namespace']}/{c['name']}", c["phase"], c["volumeName"] or "-",
              c.get("selectedNode") or "-"] for c in pvcs],
            ["claim", "phase", "volume", "selected node"])
    return (f"{text}\n\n{bound} pods bound, {len(doc['pending'])} pending"
            f" (seed {doc['seed']}, upstream {doc['upstreamRelease']})\n")


def release_list_table(doc: dict[str, Any]) -> str:
    """``kschedconf releases``: a line per release with a data module."""
    rows = [[r["release"] + (" (pinned)" if r["pinned"] else ""), r["moduleTime"][:10],
             f"{r['featureGatesOn']}/{r['featureGates']}", str(len(r["defaultPlugins"])),
             str(len(r["argsKinds"]))] for r in doc["releases"]]
    return _table(rows, ["release", "published", "gates on", "default plugins",
                         "args kinds"]) + "\n"


def _value(v: Any) -> str:
    return "-" if v is None else v if isinstance(v, str) else json.dumps(v, sort_keys=True)


def _gate_text(g: dict[str, Any] | None) -> str:
    if g is None:
        return "-"
    return f"{'on' if g['default'] else 'off'} ({g['stage']}{', locked' if g['locked'] else ''})"


def release_diff_table(doc: dict[str, Any]) -> str:
    """``kschedconf releases diff A B``: the differing gates, plugins, args defaults and
    settings, a table each."""
    a, b = doc["a"], doc["b"]
    parts = [f"{a} -> {b}", ""]
    gates = [[g["gate"], _gate_text(g["a"]), _gate_text(g["b"])] for g in doc["featureGates"]]
    if gates:
        parts += ["Feature gates", _table(gates, ["gate", a, b]), ""]
    plugins = []
    for p in doc["plugins"]:
        changes = [f"+{x['plugin']}" + (f" (weight {x['weight']})" if x["weight"] else "")
                   + f" after {x['after'] or '(first)'}" for x in p["added"]]
        changes += [f"-{n}" for n in p["removed"]]
        changes += [f"{w['plugin']} weight {w['a']} -> {w['b']}" for w in p["weights"]]
        changes += [f"{m['plugin']} moved after {m['after'] or '(first)'}" for m in p["moved"]]
        plugins += [[p["extensionPoint"] if i == 0 else "", c] for i, c in enumerate(changes)]
    for side in ("a", "b"):
        plugins += [[point, f"only in {doc[side]}"] for point in doc["extensionPointsOnlyIn"][side]]
    if plugins:
        parts += ["Default plugins", _table(plugins, ["extension point", "change"]), ""]
    args = [[x["args"] + (f".{x['field']}" if x["field"] else ""), _value(x["a"]), _value(x["b"])]
            for x in doc["pluginArgs"]]
    if args:
        parts += ["Plugin args defaults", _table(args, ["args", a, b]), ""]
    settings = [[s["field"], _value(s["a"]), _value(s["b"])] for s in doc["settings"]]
    if settings:
        parts += ["Settings", _table(settings, ["field", a, b]), ""]
    if len(parts) == 2:
        parts += ["no differences", ""]
    return "\n".join(parts)
