"""Per-cycle plugin state (``fwk.CycleState``, staging ``kube-scheduler/framework/cycle_state.go``).

Plugins write what PreFilter/PreScore computed under their own key and read it back in
Filter/Score. ``clone`` is shallow at the top level and asks each value to ``clone`` itself when it
can, like upstream's ``StateData.Clone``.
"""

from __future__ import annotations

from typing import Any


class CycleState(dict):
    """A dict of plugin state (``get`` is the plain, fast dict lookup)."""

    __slots__ = ("skip_filter_plugins", "skip_score_plugins", "skip_pre_bind_plugins",
                 "record_plugin_metrics")

    def __init__(self) -> None:
        super().__init__()
        self.skip_filter_plugins: set[str] = set()
        self.skip_score_plugins: set[str] = set()
        self.skip_pre_bind_plugins: set[str] = set()
        self.record_plugin_metrics = False

    def read(self, key: str) -> Any:
        """The value under key; raises ``KeyError`` when absent (upstream's ErrNotFound)."""
        return self[key]

    def write(self, key: str, value: Any) -> None:
        self[key] = value

    def delete(self, key: str) -> None:
        self.pop(key, None)

    def clone(self) -> CycleState:
        c = CycleState()
        for k, v in self.items():
            clone = getattr(v, "clone", None)
            c[k] = clone() if callable(clone) else v
        c.skip_filter_plugins = set(self.skip_filter_plugins)
        c.skip_score_plugins = set(self.skip_score_plugins)
        c.skip_pre_bind_plugins = set(self.skip_pre_bind_plugins)
        c.record_plugin_metrics = self.record_plugin_metrics
        return c
