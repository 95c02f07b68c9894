"""Documents made comparable: attempts, end states and explanations normalised, their leaf
differences (deepdiff) with concrete paths and field patterns, a scenario's timeline split off."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from deepdiff import DeepDiff

from conformance.core.scenario import ScenarioInput
from conformance.engines.diff.model import MISSING

SCENARIO_API_VERSION = "kschedconf/v1"
#: Attempt fields of a SimulationResult compared in whole mode (``event`` is not observable
#: upstream).
ATTEMPT_FIELDS = ("pod", "outcome", "node", "reasons", "message", "nominatedNode",
                  "candidates", "victims", "evaluatedNodes", "feasibleNodes", "time",
                  "attempt", "queue")
#: End-state fields compared in whole mode.
END_FIELDS = ("bindings", "pending", "deleted", "removed", "finished", "timeline", "endTime",
              "stoppedBy", "resourceClaims", "persistentVolumeClaims",
              "extendedResourceClaimStatus")
#: Keys whose children are names (pods, nodes, plugins): ``*`` in a field pattern.
_NAMED = ("bindings", "reasons", "nodes", "filters", "scores", "preFilter", "notCandidates",
          "gated", "persistentVolumeClaims")


# --- differences -------------------------------------------------------------------------------

def get(doc: Any, path: Sequence[Any]) -> Any:
    """The value at a key path, or :data:`MISSING`."""
    cur = doc
    for k in path:
        if isinstance(cur, dict) and k in cur:
            cur = cur[k]
        elif isinstance(cur, list) and isinstance(k, int) and 0 <= k < len(cur):
            cur = cur[k]
        else:
            return MISSING
    return cur


def deep_differences(ref: Any, up: Any) -> list[tuple[list[Any], Any, Any]]:
    """Every differing leaf field of two normalized documents, found with deepdiff: (key
    path, reference value, upstream value). A path stops at a list (a list of reasons or
    victims is one value), so each field is reported once, whole. Equal sub-documents are
    skipped before deepdiff sees them (deepdiff is slow on large equal trees)."""
    out: list[tuple[list[Any], Any, Any]] = []
    _differences([], ref, up, out)
    out.sort(key=lambda t: [str(x) for x in t[0]])
    return out


def _differences(prefix: list[Any], ref: Any, up: Any,
                 out: list[tuple[list[Any], Any, Any]]) -> None:
    if same(ref, up):
        return
    if isinstance(ref, dict) and isinstance(up, dict) and (len(ref) > 8 or len(up) > 8):
        # a big map (nodes, bindings...): descend to the entries that differ
        for k in list(ref) + [k for k in up if k not in ref]:
            rv, uv = ref.get(k, MISSING), up.get(k, MISSING)
            if rv is MISSING or uv is MISSING:
                out.append((prefix + [k], rv, uv))
            else:
                _differences(prefix + [k], rv, uv, out)
        return
    dd = DeepDiff(ref, up, view="tree", ignore_numeric_type_changes=True)
    seen: set[tuple[Any, ...]] = set()
    for levels in dd.tree.values():
        for level in levels:
            path = list(level.path(output_format="list"))
            for i in range(len(path)):  # cut at the first list: lists are compared whole
                if isinstance(get(ref, path[:i]), list) or isinstance(get(up, path[:i]), list):
                    path = path[:i]
                    break
            key = tuple(path)
            if key not in seen:
                seen.add(key)
                out.append((prefix + path, get(ref, path), get(up, path)))


def same(a: Any, b: Any) -> bool:
    """Equal, without 1 == True; 0 and 0.0 are the same number."""
    if a is b:
        return True
    if _num(a) and _num(b):
        return bool(a == b)
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def join(path: Sequence[Any]) -> str:
    """``attempts[3].node`` from ``["attempts", 3, "node"]``."""
    out = ""
    for k in path:
        out += f"[{k}]" if isinstance(k, int) else (("." if out else "") + str(k))
    return out


def field_pattern(path: Sequence[Any]) -> str:
    """The pattern of a normalized path: names of pods/nodes and list indexes become ``*``
    (plugin names are kept out of the pattern: they are the ``plugin`` of a divergence)."""
    out: list[Any] = []
    prev = None
    for k in path:
        if isinstance(k, int):
            out.append(0)
            prev = k
            continue
        if prev in _NAMED or (prev == "candidates" and out[:1] == ["preemption"]):
            out.append("*")
        else:
            out.append(k)
        prev = k
    return join(out).replace("[0]", "[*]")


# --- SimulationResults -------------------------------------------------------------------------

#: the resources ``fitsRequest`` checks in a fixed order before the scalar ones
_FIXED_RESOURCES = frozenset({"pods", "cpu", "memory", "ephemeral-storage"})
#: how the reference's explanation words a node where preemption cannot help (explain.py)
_NOT_CANDIDATE = "preemption cannot help: "


def scalar_reasons_sorted(reasons: Any) -> Any:
    """A node's reasons with the ``Insufficient <scalar resource>`` ones sorted in their places:
    upstream's NodeResourcesFit lists them in Go map order (``fitsRequest`` ranges over
    ``podRequest.ScalarResources``, pkg/scheduler/framework/plugins/noderesources/fit.go of
    every supported release), a random order, so both sides' are compared sorted; the other
    reasons keep their order. A preemption explanation's ``notCandidates`` reasons carry the
    prefix ``preemption cannot help: `` and are sorted the same way."""
    if not isinstance(reasons, list):
        return reasons
    places = [i for i, r in enumerate(reasons) if isinstance(r, str)
              and r.removeprefix(_NOT_CANDIDATE).startswith("Insufficient ")
              and r.removeprefix(_NOT_CANDIDATE).removeprefix("Insufficient ")
              not in _FIXED_RESOURCES]
    if len(places) < 2:
        return reasons
    out = list(reasons)
    for i, r in zip(places, sorted(reasons[i] for i in places), strict=True):
        out[i] = r
    return out


def norm_attempt(a: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k in ATTEMPT_FIELDS:
        v = a.get(k)
        if k in ("candidates", "victims"):
            v = sorted(v or [])
        elif k == "reasons":
            v = {n: scalar_reasons_sorted(r) for n, r in (v or {}).items()}
        out[k] = v
    return out


def norm_end(doc: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k in END_FIELDS:
        v = doc.get(k)
        if k in ("pending", "deleted", "removed", "finished"):
            v = sorted(v or [])
        elif k in ("bindings", "resourceClaims", "extendedResourceClaimStatus"):
            v = dict(v or {})
        elif k == "timeline":
            v = list(v or [])
        elif k == "persistentVolumeClaims":
            v = claims_by_key(v or [])
        out[k] = v
    return out


def claims_by_key(claims: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """``persistentVolumeClaims`` keyed by ``namespace/name`` (so a difference's path names the
    claim): phase, volumeName and selectedNode ("" when absent)."""
    return {f"{c.get('namespace')}/{c.get('name')}": {
        "phase": c.get("phase"), "volumeName": c.get("volumeName", ""),
        "selectedNode": c.get("selectedNode", "")} for c in claims}


def gated(doc: Mapping[str, Any]) -> dict[str, list[str]]:
    """The Gated records of a SimulationResult: pod -> the messages, in order."""
    out: dict[str, list[str]] = {}
    for a in doc.get("attempts", []):
        if a.get("outcome") == "Gated":
            out.setdefault(a["pod"], []).append(a.get("message", ""))
    return out


# --- Explanations ------------------------------------------------------------------------------

#: Explanation fields of the reference only, not compared: a filter verdict's ``detail``
#: (explanation-only lines, e.g. DynamicResources' why no device fits; docs/dra.md).
REFERENCE_ONLY = ("detail",)


def _by_name(items: Iterable[Mapping[str, Any]], key: str = "plugin") -> dict[str, Any]:
    return {str(it.get(key)): {k: scalar_reasons_sorted(v) if k == "reasons" else v
                               for k, v in it.items() if k != key and k not in REFERENCE_ONLY}
            for it in items}


def normalize_explanation(doc: Mapping[str, Any]) -> dict[str, Any]:
    """An Explanation keyed by node and plugin names (so deepdiff paths name them); the
    highest-scored set, preemption candidates and victims as sets; without the reference-only
    ``detail`` of the verdicts."""
    nodes = {}
    for n in doc.get("nodes", []):
        nodes[n["name"]] = {
            "feasible": n.get("feasible"),
            "examined": n.get("examined", False),
            "filterOrder": [f["plugin"] for f in n.get("filters", [])],
            "filters": _by_name(n.get("filters", [])),
            "scores": _by_name(n.get("scores", [])),
            "total": n.get("total"),
        }
    out: dict[str, Any] = {
        "preFilterOrder": [v["plugin"] for v in doc.get("preFilter", [])],
        "preFilter": _by_name(doc.get("preFilter", [])),
        "nodeOrder": [n["name"] for n in doc.get("nodes", [])],
        "nodes": nodes,
        "candidates": sorted(doc.get("candidates") or []),
        "selected": doc.get("selected"),
        "shortcut": doc.get("shortcut"),
        "evaluatedNodes": doc.get("evaluatedNodes"),
        "feasibleNodes": doc.get("feasibleNodes"),
        "message": doc.get("message", ""),
    }
    pre = doc.get("preemption")
    if pre is None:
        out["preemption"] = None
    else:
        out["preemption"] = {
            "eligible": pre.get("eligible"),
            "message": pre.get("message", ""),
            "candidates": {c["node"]: {"victims": sorted(c.get("victims") or []),
                                       "pdbViolations": c.get("pdbViolations")}
                           for c in pre.get("candidates") or []},
            "selected": pre.get("selected"),
            "victims": sorted(pre.get("victims") or []),
            "notCandidates": {n: scalar_reasons_sorted(r)
                              for n, r in (pre.get("notCandidates") or {}).items()},
        }
    return out


# --- scenario documents ------------------------------------------------------------------------

def flatten(docs: Iterable[Any]) -> list[dict[str, Any]]:
    """The objects of the documents, ``kind: *List`` items unpacked."""
    out: list[dict[str, Any]] = []
    for d in docs:
        if isinstance(d, dict) and isinstance(d.get("items"), list) and \
                str(d.get("kind", "")).endswith("List"):
            out += flatten(d["items"])
        elif isinstance(d, dict):
            out.append(d)
    return out


def pod_key(d: Mapping[str, Any]) -> str:
    meta = d.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name')}"


def without_timeline(scenario: ScenarioInput) -> ScenarioInput:
    """The scenario without its ``kschedconf/v1`` Scenario document (the initial cluster)."""
    docs = [copy.deepcopy(d) for d in initial_documents(scenario)]
    return scenario.derived(documents=docs, config=copy.deepcopy(scenario.config), covers="")


def initial_documents(scenario: ScenarioInput) -> list[dict[str, Any]]:
    """The objects of the scenario's initial cluster (its documents without the ``kschedconf/v1``
    Scenario document, ``kind: *List`` items unpacked): the scenario's own dicts, not copies,
    to read or to copy before changing (lockstep's states copy a document on write)."""
    return [d for d in flatten(scenario.documents) if d.get("apiVersion") != SCENARIO_API_VERSION]


def has_timeline(scenario: ScenarioInput) -> bool:
    return any(isinstance(d, dict) and d.get("apiVersion") == SCENARIO_API_VERSION
               for d in scenario.documents)
