"""The order of kube-scheduler's scheduling cycles, read from its ``--v=3`` log:
:func:`parse_cycles` reads the cycles and their results, :func:`order_attempts` puts the
attempts observed through the API (where bindings show late) in cycle order. Why and which log
lines: ``docs/backends.md`` (the driver, step 3).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

ATTEMPTING = "Attempting to schedule pod"
NO_FIT = "Unable to schedule pod; no fit; waiting"
NO_NODES = "Unable to schedule pod; no nodes are registered to the cluster; waiting"
POD_GROUP = "Unable to schedule pod belonging to a pod group; waiting"
BOUND = "Successfully bound pod to node"
ERROR_PREFIX = "Error scheduling pod"

#: a klog text line: severity, date, time, thread, file:line] "message" key=value...
_LINE = re.compile(r'^[IWEF]\d{4} [\d:.]+\s+\d+ [^\]]+\] "(?P<msg>(?:[^"\\]|\\.)*)"(?P<rest>.*)$')
_KV = re.compile(r'(?P<key>[A-Za-z][\w.-]*)=(?P<value>"(?:[^"\\]|\\.)*"|\S+)')


@dataclass(slots=True)
class Cycle:
    """One scheduling cycle: the pod (``namespace/name`` as the API names it) and, once
    known, its result: ``("bound", node)`` or ``("failed", message or None)``."""

    pod: str
    result: tuple[str, str | None] | None = None


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == '"':
        try:
            return str(json.loads(value))
        except ValueError:
            return value[1:-1]
    return value


def parse_line(line: str) -> tuple[str, dict[str, str]] | None:
    """The message and key/value pairs of a klog text line, or None."""
    m = _LINE.match(line)
    if m is None:
        return None
    msg = _unquote(f'"{m.group("msg")}"')
    return msg, {k.group("key"): _unquote(k.group("value"))
                 for k in _KV.finditer(m.group("rest"))}


def parse_cycles(lines: Iterable[str]) -> list[Cycle]:
    """The scheduling cycles of a kube-scheduler log (``--v=3`` or more), in order, each with
    the result logged for it (the first result line of its pod after its start)."""
    cycles: list[Cycle] = []
    open_cycle: dict[str, Cycle] = {}
    for line in lines:
        parsed = parse_line(line.rstrip("\n"))
        if parsed is None:
            continue
        msg, kv = parsed
        pod = kv.get("pod")
        if not pod:
            continue
        if msg == ATTEMPTING:
            cycle = Cycle(pod)
            cycles.append(cycle)
            open_cycle[pod] = cycle
            continue
        c = open_cycle.get(pod)
        if c is None or c.result is not None:
            continue
        if msg == BOUND:
            c.result = ("bound", kv.get("node"))
        elif msg == NO_FIT or msg == POD_GROUP:
            c.result = ("failed", kv.get("err"))
        elif msg == NO_NODES or msg.startswith(ERROR_PREFIX):
            c.result = ("failed", None)
    return cycles


def order_attempts(attempts: Sequence[dict[str, Any]], cycles: Sequence[Cycle],
                   pod_key: Callable[[str], str | None]) -> list[dict[str, Any]]:
    """The attempts (SimulationResult records observed through the API, in observation order)
    in the order of the scheduling cycles that made them. Each attempt is matched to a cycle
    of its pod, later than the pod's previous match: a ``Bound`` record to a cycle that bound
    it, a failure to a failed cycle with the same message (else any failed cycle). Records
    without a cycle (``Gated`` records, attempts the log does not show) stay after every
    record observed before them (after the latest cycle among those, not only the previous
    record's: a Gated record seen at 901 s must not move ahead of bindings seen at 0.01 s whose
    cycles come later in the log). ``pod_key`` maps the API's ``namespace/name`` to
    the scenario's key (None: not a scenario pod)."""
    by_pod: dict[str, list[tuple[int, Cycle]]] = {}
    for i, c in enumerate(cycles):
        key = pod_key(c.pod)
        if key is not None:
            by_pod.setdefault(key, []).append((i, c))
    last: dict[str, int] = {}
    keys: list[tuple[float, int]] = []
    prev = -1.0
    for n, a in enumerate(attempts):
        idx = _match(a, by_pod.get(str(a.get("pod")), []), last.get(str(a.get("pod")), -1))
        if idx is None:
            keys.append((prev, n))
            continue
        last[str(a.get("pod"))] = idx
        prev = max(prev, float(idx))
        keys.append((float(idx), n))
    order = sorted(range(len(attempts)), key=lambda n: keys[n])
    return [attempts[n] for n in order]


def _match(a: dict[str, Any], cycles: Sequence[tuple[int, Cycle]], after: int) -> int | None:
    later = [(i, c) for i, c in cycles if i > after]
    outcome = a.get("outcome")
    if outcome == "Bound":
        for i, c in later:
            if c.result is not None and c.result[0] == "bound":
                return i
        return later[-1][0] if later else None
    if outcome in ("Unschedulable", "Nominated", "Error"):
        message = a.get("message") or ""
        for i, c in later:
            if c.result is not None and c.result[0] == "failed" and c.result[1] in (None,
                                                                                     message):
                return i
        for i, c in later:
            if c.result is not None and c.result[0] == "failed":
                return i
    return None
