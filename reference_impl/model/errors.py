"""Errors raised while reading input manifests.

One ``InputError`` names where the problem is (file, document, object, field path) and what was
expected, so a user can fix the input without a traceback. The CLI exits with ``exit_code`` (2).
"""

from __future__ import annotations


class InputError(Exception):
    """Bad input: invalid YAML/JSON, an object that is not a valid Kubernetes object, or a
    reference that cannot be resolved.

    ``source``: file name (or "<memory>"); ``document``: 1-based document number in the file;
    ``obj``: e.g. "Pod default/web-1"; ``field``: e.g. "spec.containers[0].resources.requests.cpu";
    ``message``: what is wrong / what was expected.
    """

    exit_code = 2

    def __init__(self, message: str, *, source: str = "", document: int | None = None,
                 obj: str = "", field: str = "") -> None:
        self.message = message
        self.source = source
        self.document = document
        self.obj = obj
        self.field = field
        super().__init__(self._render())

    def _render(self) -> str:
        where: list[str] = []
        if self.source:
            where.append(self.source)
        if self.document is not None:
            where.append(f"document {self.document}")
        head = ", ".join(where)
        parts = [p for p in (head, self.obj, self.field) if p]
        return ": ".join([*parts, self.message])

    def __str__(self) -> str:
        return self._render()
