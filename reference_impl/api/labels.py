"""Label selectors, as ``metav1.LabelSelectorAsSelector`` and ``labels.Selector``.

Upstream: ``staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go`` (LabelSelectorAsSelector)
and ``staging/src/k8s.io/apimachinery/pkg/labels/selector.go`` (Requirement.Matches).
A nil selector selects nothing; an empty one selects everything.
"""

from __future__ import annotations

from collections.abc import Mapping

from reference_impl.model.objects import LabelSelector, LabelSelectorRequirement

IN = "In"
NOT_IN = "NotIn"
EXISTS = "Exists"
DOES_NOT_EXIST = "DoesNotExist"


class Selector:
    """A compiled selector: ``requirements`` is a tuple of (key, op, frozenset(values))."""

    __slots__ = ("requirements", "nothing")

    def __init__(self, requirements: tuple[tuple[str, str, frozenset[str]], ...],
                 nothing: bool = False) -> None:
        self.requirements = requirements
        self.nothing = nothing

    def matches(self, labels: Mapping[str, str]) -> bool:
        if self.nothing:
            return False
        for key, op, values in self.requirements:
            if op == IN:
                v = labels.get(key)
                if v is None or v not in values:
                    return False
            elif op == NOT_IN:
                v = labels.get(key)
                if v is not None and v in values:
                    return False
            elif op == EXISTS:
                if key not in labels:
                    return False
            elif op == DOES_NOT_EXIST:
                if key in labels:
                    return False
            else:
                return False
        return True

    def empty(self) -> bool:
        """``Selector.Empty``: selects everything."""
        return not self.nothing and not self.requirements

    def with_requirement(self, key: str, op: str, values: frozenset[str]) -> Selector:
        return Selector(self.requirements + ((key, op, values),), self.nothing)

    def __repr__(self) -> str:
        if self.nothing:
            return "Selector(<nothing>)"
        return f"Selector({self.requirements!r})"


NOTHING = Selector((), nothing=True)
EVERYTHING = Selector(())


def compile_selector(selector: LabelSelector | None) -> Selector:
    """``LabelSelectorAsSelector``: nil → nothing; empty → everything."""
    if selector is None:
        return NOTHING
    if not selector.match_labels and not selector.match_expressions:
        return EVERYTHING
    reqs: list[tuple[str, str, frozenset[str]]] = []
    for k, v in selector.match_labels:
        reqs.append((k, IN, frozenset((v,))))
    for e in selector.match_expressions:
        reqs.append(_requirement(e))
    # labels.NewSelector sorts requirements by key; matching is order-independent.
    reqs.sort(key=lambda r: r[0])
    return Selector(tuple(reqs))


def _requirement(e: LabelSelectorRequirement) -> tuple[str, str, frozenset[str]]:
    if e.operator not in (IN, NOT_IN, EXISTS, DOES_NOT_EXIST):
        raise ValueError(f"{e.operator!r} is not a valid label selector operator")
    return (e.key, e.operator, frozenset(e.values))


def selector_from_set(labels: Mapping[str, str]) -> Selector:
    """``labels.SelectorFromSet``: every key equal to its value (empty set → everything)."""
    return Selector(tuple(sorted((k, IN, frozenset((v,))) for k, v in labels.items())))
