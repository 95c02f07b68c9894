"""The RunReport document of a run, written when the run finishes (interrupted runs included):
to ``--report FILE`` (JSON, or YAML when the name ends in .yaml) or, with ``--output
json|yaml``, to standard output. Each case gets the ``findings`` (violations, divergences)
emitted while it ran."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TextIO

from conformance.core.documents import to_json, to_yaml
from conformance.core.events import CaseFinished, Divergence, Event, RunFinished, Violation


class RunReportBuilder:
    """Collects the findings of each case (the events before its ``CaseFinished``) and builds
    the RunReport document at the end."""

    def __init__(self) -> None:
        self._pending: list[dict[str, Any]] = []
        self._by_case: list[list[dict[str, Any]]] = []

    def handle(self, event: Event) -> dict[str, Any] | None:
        """Take an event; the document when the run finished, else None."""
        if isinstance(event, Violation):
            self._pending.append({"kind": "violation", "oracle": event.oracle,
                                  "text": event.text})
        elif isinstance(event, Divergence):
            self._pending.append({"kind": "divergence", "text": event.text,
                                  "known": event.known})
        elif isinstance(event, CaseFinished):
            self._by_case.append(self._pending)
            self._pending = []
        elif isinstance(event, RunFinished):
            doc = event.summary.to_doc()
            for case, findings in zip(doc["cases"], self._by_case, strict=False):
                if findings:
                    case["findings"] = findings
            return doc
        return None


class ReportFileReporter:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.builder = RunReportBuilder()

    def handle(self, event: Event) -> None:
        doc = self.builder.handle(event)
        if doc is not None:
            text = to_yaml(doc) if self.path.suffix in (".yaml", ".yml") else to_json(doc)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(text, encoding="utf-8")


class ReportStreamReporter:
    """The RunReport document on ``stream`` in ``fmt`` (``json`` or ``yaml``)."""

    def __init__(self, stream: TextIO, fmt: str) -> None:
        self.stream = stream
        self.fmt = fmt
        self.builder = RunReportBuilder()

    def handle(self, event: Event) -> None:
        doc = self.builder.handle(event)
        if doc is not None:
            self.stream.write(to_yaml(doc) if self.fmt == "yaml" else to_json(doc))
            self.stream.flush()
