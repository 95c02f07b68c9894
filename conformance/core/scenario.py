"""The scenario document: manifests, an optional KubeSchedulerConfiguration and a seed, the
input every subject runs and every oracle judges; one multi-document YAML file on disk (the
format of counterexamples, golden scenarios and ``kschedconf reproduce``; docs/golden.md).

A scenario file starts with a ``kschedconf/v1`` ``ScenarioInfo`` document: its name, seed, what
it covers and free-form notes (``oracle: ...``, ``reproduce: ...``). Files written before that
document existed carry the same metadata as ``# key: value`` comment lines above the first
document (``# kschedconf scenario: NAME``, ``# seed: N``, then the notes); they are still read.
"""

from __future__ import annotations

import copy
import dataclasses
import io
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from conformance.core.errors import UsageError
from reference_impl.releases import supported_releases
from reference_impl.releases.pinned import UPSTREAM_RELEASE

SCENARIO_HEADER = "# kschedconf scenario"
CONFIG_KIND = "KubeSchedulerConfiguration"
INFO_API_VERSION = "kschedconf/v1"
INFO_KIND = "ScenarioInfo"
INFO_FIELDS = ("apiVersion", "kind", "name", "seed", "release", "covers", "notes")
COVERS_NOTE = "covers:"


@dataclass(slots=True)
class ScenarioInfo:
    """The metadata of a scenario file (its ``ScenarioInfo`` document)."""

    name: str = "scenario"
    seed: int = 0
    covers: str = ""  # what a golden scenario is aimed at (one line)
    notes: list[str] = field(default_factory=list)  # "key: value" notes and free text
    release: str = UPSTREAM_RELEASE
    """The upstream release the scenario is scheduled as (its defaults, gates and rules)."""

    def to_doc(self) -> dict[str, Any]:
        d: dict[str, Any] = {"apiVersion": INFO_API_VERSION, "kind": INFO_KIND,
                             "name": self.name, "seed": self.seed, "release": self.release}
        if self.covers:
            d["covers"] = self.covers
        if self.notes:
            d["notes"] = list(self.notes)
        return d

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> ScenarioInfo:
        unknown = sorted(str(k) for k in doc if k not in INFO_FIELDS)
        if unknown:
            raise ValueError(f"{INFO_KIND}: unknown field {unknown[0]!r} (expected "
                             f"{', '.join(INFO_FIELDS)})")
        name, seed = doc.get("name", "scenario"), doc.get("seed", 0)
        covers, notes = doc.get("covers", ""), doc.get("notes") or []
        release = doc.get("release", UPSTREAM_RELEASE)
        if not isinstance(name, str) or not name:
            raise ValueError(f"{INFO_KIND}.name must be a non-empty string")
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError(f"{INFO_KIND}.seed must be an integer")
        if not isinstance(covers, str):
            raise ValueError(f"{INFO_KIND}.covers must be a string")
        if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
            raise ValueError(f"{INFO_KIND}.notes must be a list of strings")
        if release not in supported_releases():
            raise ValueError(f"{INFO_KIND}.release: {release!r} is not a supported release "
                             f"(supported: {', '.join(supported_releases())})")
        return cls(name, seed, covers, list(notes), release)

    def to_comments(self) -> str:
        """The same metadata as the comment lines of the old form (the external subject's
        scenario file keeps it: docs/subjects.md)."""
        lines = [f"{SCENARIO_HEADER}: {self.name}", f"# seed: {self.seed}",
                 f"# release: {self.release}"]
        if self.covers:
            lines.append(f"# {COVERS_NOTE} {self.covers}")
        lines += [f"# {line}" for n in self.notes for line in n.splitlines()]
        return "".join(f"{line}\n" for line in lines)

    @classmethod
    def from_comments(cls, text: str) -> ScenarioInfo:
        """The metadata of the old comment form: the ``#`` lines above the first document
        (``# kschedconf scenario: NAME``, ``# seed: N``, ``# covers: ...``, then the notes)."""
        info, seeded = cls(), False
        for line in text.splitlines():
            if line.startswith("---") or (line.strip() and not line.startswith("#")):
                break
            if not line.startswith("#"):
                continue
            body = line[1:].removeprefix(" ")
            if line.startswith(f"{SCENARIO_HEADER}:"):
                info.name = line.split(":", 1)[1].strip() or info.name
            elif body.startswith("seed:") and not seeded:
                info.seed, seeded = int(body.split(":", 1)[1]), True
            elif body.startswith("release:") and body.split(":", 1)[1].strip() in \
                    supported_releases():
                info.release = body.split(":", 1)[1].strip()
            elif body.startswith(COVERS_NOTE) and not info.covers:
                info.covers = body[len(COVERS_NOTE):].strip()
            else:
                info.notes.append(body)
        return info


def is_info_doc(doc: object) -> bool:
    return isinstance(doc, dict) and doc.get("apiVersion") == INFO_API_VERSION \
        and doc.get("kind") == INFO_KIND


def note_values(notes: Iterable[str]) -> dict[str, str]:
    """The ``key: value`` notes as a mapping (the first value of each key; a key is one word)."""
    out: dict[str, str] = {}
    for note in notes:
        line = note.splitlines()[0] if note else ""
        if ":" not in line:
            continue
        k, v = line.split(":", 1)
        k = k.strip()
        if k and " " not in k and k not in out:
            out[k] = v.strip()
    return out


@dataclass(slots=True)
class ScenarioInput:
    documents: list[dict[str, Any]]
    config: dict[str, Any] | None = None
    seed: int = 0
    name: str = "scenario"
    notes: list[str] = field(default_factory=list)  # written into the ScenarioInfo document
    covers: str = ""  # what the scenario is aimed at (golden scenarios)
    release: str = UPSTREAM_RELEASE
    """The upstream release every subject schedules it as (``--release``); subjects of
    another release refuse it."""

    def all_documents(self) -> list[dict[str, Any]]:
        return ([self.config] if self.config else []) + list(self.documents)

    @property
    def info(self) -> ScenarioInfo:
        return ScenarioInfo(self.name, self.seed, self.covers, list(self.notes), self.release)

    def to_yaml(self, *, info: bool = True) -> str:
        """The scenario file: the ``ScenarioInfo`` document, the configuration (if any), the
        objects. ``info=False``: the metadata as comment lines above the objects instead (the
        external subject's file protocol, which expects only objects)."""
        out = io.StringIO()
        docs = self.all_documents()
        if info:
            docs = [self.info.to_doc(), *docs]
        else:
            out.write(self.info.to_comments())
        yaml.safe_dump_all(docs, out, sort_keys=False, explicit_start=True)
        return out.getvalue()

    def with_config(self, config: Mapping[str, Any] | None) -> ScenarioInput:
        """The scenario with its KubeSchedulerConfiguration replaced (``--config``); itself
        when ``config`` is None."""
        if config is None:
            return self
        return self.derived(documents=list(self.documents), config=copy.deepcopy(dict(config)))

    def derived(self, **changes: Any) -> ScenarioInput:
        """The scenario with some fields replaced; the others, its release included, kept
        (notes copied)."""
        changes.setdefault("notes", list(self.notes))
        return dataclasses.replace(self, **changes)

    def write(self, path: str | Path, *, info: bool = True) -> Path:
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(self.to_yaml(info=info))
        return p

    @classmethod
    def from_yaml(cls, text: str, name: str | None = None) -> ScenarioInput:
        """Read a scenario file. Its name is the ``ScenarioInfo`` document's, else ``name``
        (the file's stem), else the old header's; a ``ValueError`` for a bad ``ScenarioInfo``
        and ``yaml.YAMLError`` for bad YAML."""
        docs = [d for d in yaml.safe_load_all(text) if d is not None]
        infos = [d for d in docs if is_info_doc(d)]
        if len(infos) > 1:
            raise ValueError(f"more than one {INFO_KIND} document")
        if infos:
            meta = ScenarioInfo.from_doc(infos[0])
        else:
            meta = ScenarioInfo.from_comments(text)
            meta.name = name or meta.name
        config = None
        rest = []
        for d in docs:
            if is_info_doc(d):
                continue
            if isinstance(d, dict) and d.get("kind") == CONFIG_KIND:
                config = d
            else:
                rest.append(d)
        return cls(rest, config, meta.seed, meta.name, meta.notes, meta.covers, meta.release)

    @classmethod
    def read(cls, path: str | Path) -> ScenarioInput:
        p = Path(path)
        return cls.from_yaml(p.read_text(), name=p.stem)


def read_config_doc(path: str) -> dict[str, Any]:
    """The one KubeSchedulerConfiguration document of file ``path`` (``--config``); a missing
    file, bad YAML or any other content is a :class:`UsageError` naming the file."""
    p = Path(path)
    if not p.exists():
        raise UsageError(f"--config {path}: no such file")
    try:
        docs = [d for d in yaml.safe_load_all(p.read_text(encoding="utf-8")) if d is not None]
    except yaml.YAMLError as e:
        raise UsageError(f"--config {path}: invalid YAML: {e}") from e
    if len(docs) != 1 or not isinstance(docs[0], dict) or docs[0].get("kind") != CONFIG_KIND:
        raise UsageError(f"--config {path}: expected one {CONFIG_KIND} document")
    return docs[0]


__all__ = ["CONFIG_KIND", "INFO_KIND", "ScenarioInfo", "ScenarioInput", "is_info_doc",
           "note_values", "read_config_doc"]
