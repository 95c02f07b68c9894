"""Conversions kept between loads: a :class:`LoadMemo` given to ``load_documents`` converts a
Pod or Node document it has converted before (same content, same context) by copying the
earlier model object. The differential's lockstep loads a cluster state per attempt, states a
pod or two apart, and reading pods was most of each reference explanation (docs/diff.md,
"Throughput"). The key: the document's ``repr`` (a document changed in place is another key),
the namespace and name, the position among its kind and, for a pod, the priority classes. A
hit is a shallow copy, so what the loader does to its objects afterwards
(``resourceclaims.create_template_claims``) stays in that load; the model's objects are
replaced, never changed, once loaded. A rejected document raises each time."""

from __future__ import annotations

import copy
from collections.abc import Callable, Hashable, Mapping
from typing import TypeVar

from reference_impl.model.loader.fields import _Raw
from reference_impl.model.objects import Node, Pod, PriorityClass

T = TypeVar("T", Pod, Node)

#: bumped by :func:`forget_conversions`; a memo made in another generation starts empty
_generation = 0


def forget_conversions() -> None:
    """Every :class:`LoadMemo` forgets what it converted: the conversion code was replaced
    (a planted bug patches functions the loader calls, such as a pod's host ports), so an
    earlier conversion is no longer what a load would give."""
    global _generation
    _generation += 1


class LoadMemo:
    """Pods and nodes converted by earlier loads (the module docstring). Holds at most
    ``limit`` objects; when full it starts again empty."""

    def __init__(self, limit: int = 20000) -> None:
        self.limit = limit
        self._objects: dict[Hashable, Pod | Node] = {}
        self.hits = 0
        self._generation = _generation

    def _get(self, key: Hashable, convert: Callable[[], T]) -> T:
        if self._generation != _generation:
            self._objects.clear()
            self._generation = _generation
        obj = self._objects.get(key)
        if obj is None:
            obj = convert()
            if len(self._objects) >= self.limit:
                self._objects.clear()
            self._objects[key] = obj
        else:
            self.hits += 1
        return copy.copy(obj)  # type: ignore[return-value]

    def pod(self, r: _Raw, order: int, classes: Mapping[str, PriorityClass],
            default_pc: PriorityClass | None,
            convert: Callable[[_Raw, int, Mapping[str, PriorityClass], PriorityClass | None],
                              Pod]) -> Pod:
        """``convert(r, order, classes, default_pc)`` (``pod._pod``), or a copy of its earlier
        result for the same document and context."""
        key = ("Pod", r.namespace, r.name, order, repr(r.doc), tuple(classes.items()),
               default_pc)
        return self._get(key, lambda: convert(r, order, classes, default_pc))

    def node(self, r: _Raw, order: int, convert: Callable[[_Raw, int], Node]) -> Node:
        """``convert(r, order)`` (``node._node``), or a copy of its earlier result for the same
        document and position."""
        key = ("Node", r.name, order, repr(r.doc))
        return self._get(key, lambda: convert(r, order))
