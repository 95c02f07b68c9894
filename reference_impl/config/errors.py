"""Field errors and the single error an invalid configuration raises.

Upstream: ``staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go`` (``field.Error``
and its ``Error()`` text: ``<path>: <type>[: <bad value>][: <detail>]``) and ``path.go`` (field
paths such as ``profiles[0].pluginConfig[1].args.scoringStrategy.resources[0].weight``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

# field.ErrorType → its String().
REQUIRED = "Required value"
FORBIDDEN = "Forbidden"
INVALID = "Invalid value"
NOT_SUPPORTED = "Unsupported value"
DUPLICATE = "Duplicate value"

_WITHOUT_VALUE = (REQUIRED, FORBIDDEN)


def child(path: str, *names: str) -> str:
    """``field.Path.Child``."""
    for name in names:
        path = f"{path}.{name}" if path else name
    return path


def index(path: str, i: int | str) -> str:
    """``field.Path.Index`` (and ``Key``: both render as ``[...]``)."""
    return f"{path}[{i}]"


def go_value(value: Any) -> str:
    """How ``field.Error`` prints a bad value: numbers and bools with %v, everything else as
    JSON (a string quoted)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class FieldError:
    """``field.Error``: ``type`` is the ErrorType text (``Invalid value``, ...)."""

    type: str
    field: str
    bad_value: Any = None
    detail: str = ""

    def __str__(self) -> str:
        body = self.type
        if self.type not in _WITHOUT_VALUE:
            body += f": {go_value(self.bad_value)}"
        if self.detail:
            body += f": {self.detail}"
        return f"{self.field}: {body}" if self.field else body


def required(path: str, detail: str = "") -> FieldError:
    return FieldError(REQUIRED, path, "", detail)


def forbidden(path: str, detail: str) -> FieldError:
    return FieldError(FORBIDDEN, path, "", detail)


def invalid(path: str, value: Any, detail: str) -> FieldError:
    return FieldError(INVALID, path, value, detail)


def duplicate(path: str, value: Any) -> FieldError:
    return FieldError(DUPLICATE, path, value)


def not_supported(path: str, value: Any, valid: Iterable[str]) -> FieldError:
    """``field.NotSupported``: lists the supported values, quoted, in the order given."""
    quoted = ", ".join(json.dumps(v) for v in valid)
    return FieldError(NOT_SUPPORTED, path, value, f"supported values: {quoted}" if quoted else "")


class ConfigError(ValueError):
    """An invalid KubeSchedulerConfiguration: ``source`` (file or ``<dict>``) and every error
    found, each ``<field path>: <message>``."""

    def __init__(self, source: str, errors: Iterable[FieldError | str]) -> None:
        self.source = source
        self.errors = [str(e) for e in errors]
        if len(self.errors) == 1:
            message = f"{source}: {self.errors[0]}"
        else:
            lines = "\n".join(f"  - {e}" for e in self.errors)
            message = f"{source}: {len(self.errors)} errors:\n{lines}"
        super().__init__(message)
        self.hints: list[str] = []

    def add_hints(self, hints: Iterable[str]) -> None:
        """Lines after upstream's error text (``hint: ...``) saying what to change
        (``hints.py``)."""
        self.hints += hints
        if self.hints:
            self.args = (self.args[0].split("\nhint: ")[0]
                         + "".join(f"\nhint: {h}" for h in self.hints),)
