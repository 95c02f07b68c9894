"""The scenario document: manifests, an optional KubeSchedulerConfiguration and a seed, the
input every subject runs and every oracle judges; one multi-document YAML file on disk (the
format of counterexamples and ``kschedconf reproduce``)."""

from __future__ import annotations

import copy
import io
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from conformance.core.errors import UsageError

SCENARIO_HEADER = "# kschedconf scenario"
CONFIG_KIND = "KubeSchedulerConfiguration"


@dataclass(slots=True)
class ScenarioInput:
    documents: list[dict[str, Any]]
    config: dict[str, Any] | None = None
    seed: int = 0
    name: str = "scenario"
    notes: list[str] = field(default_factory=list)  # comments written at the top of the file

    def all_documents(self) -> list[dict[str, Any]]:
        return ([self.config] if self.config else []) + list(self.documents)

    def to_yaml(self) -> str:
        out = io.StringIO()
        out.write(f"{SCENARIO_HEADER}: {self.name}\n# seed: {self.seed}\n")
        for n in self.notes:
            for line in n.splitlines():
                out.write(f"# {line}\n")
        yaml.safe_dump_all(self.all_documents(), out, sort_keys=False, explicit_start=True)
        return out.getvalue()

    def with_config(self, config: Mapping[str, Any] | None) -> ScenarioInput:
        """The scenario with its KubeSchedulerConfiguration replaced (``--config``); itself
        when ``config`` is None."""
        if config is None:
            return self
        return ScenarioInput(list(self.documents), copy.deepcopy(dict(config)), self.seed,
                             self.name, list(self.notes))

    def write(self, path: str | Path) -> Path:
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(self.to_yaml())
        return p

    @classmethod
    def from_yaml(cls, text: str, name: str = "scenario") -> ScenarioInput:
        seed = 0
        for line in text.splitlines()[:3]:
            if line.startswith("# seed:"):
                seed = int(line.split(":", 1)[1])
        docs = [d for d in yaml.safe_load_all(text) if d is not None]
        config = None
        rest = []
        for d in docs:
            if isinstance(d, dict) and d.get("kind") == CONFIG_KIND:
                config = d
            else:
                rest.append(d)
        return cls(rest, config, seed, name)

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
