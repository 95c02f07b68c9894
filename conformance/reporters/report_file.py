"""The report-file reporter: the run's RunReport document (``--report FILE``, JSON or YAML by
the file's extension), written when the run finishes."""

from __future__ import annotations

from pathlib import Path

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
