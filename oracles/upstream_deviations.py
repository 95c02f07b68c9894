"""The catalogue of upstream deviations (``oracles/upstream_deviations.yaml``): where upstream
kube-scheduler departs from its own stated intent, and which of them the oracles follow.
Format and entries: docs/upstream-deviations.md."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

KIND = "UpstreamDeviations"
CATALOGUE = Path(__file__).resolve().parent / "upstream_deviations.yaml"
FIELDS = ("id", "summary", "source", "scenario", "releases", "oracles", "followed")


@dataclass(frozen=True, slots=True)
class Deviation:
    """One entry: what upstream does instead of its intent, where (Go lines), and the scenario
    that shows it."""

    id: str
    summary: str
    source: tuple[str, ...]  # "file:FROM-TO" at the pinned release
    scenario: Path
    releases: str
    oracles: tuple[str, ...]
    followed: bool
    upstream: str = ""
    divergence: str = ""


def _source(item: Any) -> str:
    if not isinstance(item, dict) or not item.get("file") or not item.get("lines"):
        raise ValueError(f"source entries need `file` and `lines`: {item!r}")
    where = f"{item['module']}/" if item.get("module") else ""
    return f"{where}{item['file']}:{item['lines']}"


def load(path: Path = CATALOGUE) -> tuple[Deviation, ...]:
    """Every entry of the catalogue; ``ValueError`` for a malformed one."""
    doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if doc.get("kind") != KIND:
        raise ValueError(f"{path}: expected kind {KIND}")
    out = []
    for i, it in enumerate(doc.get("deviations") or []):
        missing = [f for f in FIELDS if f not in it]
        if missing:
            raise ValueError(f"{path}: deviations[{i}] lacks {', '.join(missing)}")
        out.append(Deviation(
            str(it["id"]), " ".join(str(it["summary"]).split()),
            tuple(_source(s) for s in it["source"]), path.parent / str(it["scenario"]),
            str(it["releases"]), tuple(str(o) for o in it["oracles"]), bool(it["followed"]),
            str(it.get("upstream") or ""), str(it.get("divergence") or "")))
    ids = [d.id for d in out]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{path}: duplicate ids")
    return tuple(out)


@functools.cache
def catalogue() -> dict[str, Deviation]:
    """The shipped catalogue by id."""
    return {d.id: d for d in load()}


def followed() -> frozenset[str]:
    """The deviations whose upstream behaviour the oracles restate."""
    return frozenset(d.id for d in catalogue().values() if d.followed)
