"""Plugin result codes and statuses.

Upstream: ``staging/src/k8s.io/kube-scheduler/framework/interface.go`` (``Code``, ``Status``,
``PreFilterResult``, ``NominatingInfo``). ``None`` stands for a nil status, i.e. Success.
"""

from __future__ import annotations

from enum import IntEnum


class Code(IntEnum):
    """Status codes, in upstream's iota order."""

    SUCCESS = 0
    ERROR = 1
    UNSCHEDULABLE = 2
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    WAIT = 4
    SKIP = 5
    PENDING = 6

    @property
    def upstream_name(self) -> str:
        return _CODE_NAMES[self]


_CODE_NAMES = ("Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable", "Wait",
               "Skip", "Pending")
CODE_BY_NAME = {name: Code(i) for i, name in enumerate(_CODE_NAMES)}


class Status:
    """A plugin's verdict: a code, reasons, and the plugin that produced it."""

    __slots__ = ("code", "reasons", "plugin", "error")

    def __init__(self, code: Code, *reasons: str, plugin: str = "", error: str | None = None):
        self.code = code
        self.reasons = list(reasons)
        self.plugin = plugin
        self.error = error

    @classmethod
    def as_error(cls, message: str) -> Status:
        return cls(Code.ERROR, error=message)

    def with_plugin(self, plugin: str) -> Status:
        self.plugin = plugin
        return self

    def all_reasons(self) -> list[str]:
        """``Status.Reasons()``: the error (if any) first, then the reasons."""
        if self.error is not None:
            return [self.error, *self.reasons]
        return list(self.reasons)

    def message(self) -> str:
        return ", ".join(self.all_reasons())

    def is_success(self) -> bool:
        return self.code == Code.SUCCESS

    def is_rejected(self) -> bool:
        """Unschedulable, UnschedulableAndUnresolvable or Pending (``Status.IsRejected``)."""
        return self.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING)

    def clone(self) -> Status:
        return Status(self.code, *self.reasons, plugin=self.plugin, error=self.error)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Status):
            return NotImplemented
        return (self.code, self.reasons, self.plugin, self.error) == (
            other.code, other.reasons, other.plugin, other.error)

    def __repr__(self) -> str:
        plugin = f" by {self.plugin}" if self.plugin else ""
        return f"Status({self.code.upstream_name}{plugin}: {self.message()!r})"


def code_of(status: Status | None) -> Code:
    return Code.SUCCESS if status is None else status.code


def is_success(status: Status | None) -> bool:
    return status is None or status.code == Code.SUCCESS


def is_skip(status: Status | None) -> bool:
    return status is not None and status.code == Code.SKIP


def is_rejected(status: Status | None) -> bool:
    return status is not None and status.is_rejected()


class PluginError(Exception):
    """Raised by Score plugins instead of returning an Error status (keeps the hot path lean)."""

    def __init__(self, message: str):
        super().__init__(message)
        self.status = Status.as_error(message)


class PreFilterResult:
    """The set of nodes to consider downstream; ``node_names is None`` means all nodes."""

    __slots__ = ("node_names",)

    def __init__(self, node_names: set[str] | None):
        self.node_names = node_names

    def all_nodes(self) -> bool:
        return self.node_names is None

    @staticmethod
    def merge(a: PreFilterResult | None, b: PreFilterResult | None) -> PreFilterResult | None:
        """``PreFilterResult.Merge``: intersect two results; nil means every node."""
        a_names = None if a is None else a.node_names
        b_names = None if b is None else b.node_names
        if a_names is None:
            return None if b_names is None else PreFilterResult(set(b_names))
        if b_names is None:
            return PreFilterResult(set(a_names))
        return PreFilterResult(a_names & b_names)


MODE_NOOP = 0
MODE_OVERRIDE = 1


class NominatingInfo:
    __slots__ = ("nominated_node_name", "mode")

    def __init__(self, nominated_node_name: str, mode: int = MODE_OVERRIDE):
        self.nominated_node_name = nominated_node_name
        self.mode = mode


class PostFilterResult:
    __slots__ = ("nominating_info", "victims")

    def __init__(self, nominating_info: NominatingInfo | None, victims: list | None = None):
        self.nominating_info = nominating_info
        self.victims = victims or []
