"""The report-file reporter: the run's RunReport document, written when the run finishes: to
``--report FILE`` (JSON, or YAML when the name ends in .yaml) or, with ``--output json|yaml``,
to standard output."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from conformance.core.documents import to_json, to_yaml
from conformance.core.events import Event, RunFinished


class ReportFileReporter:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def handle(self, event: Event) -> None:
        if isinstance(event, RunFinished):
            doc = event.summary.to_doc()
            text = to_yaml(doc) if self.path.suffix in (".yaml", ".yml") else to_json(doc)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(text, encoding="utf-8")


class ReportStreamReporter:
    """The RunReport document on ``stream`` in ``fmt`` (``json`` or ``yaml``) when the run
    finishes, interrupted runs included."""

    def __init__(self, stream: TextIO, fmt: str) -> None:
        self.stream = stream
        self.fmt = fmt

    def handle(self, event: Event) -> None:
        if isinstance(event, RunFinished):
            doc = event.summary.to_doc()
            self.stream.write(to_yaml(doc) if self.fmt == "yaml" else to_json(doc))
            self.stream.flush()
