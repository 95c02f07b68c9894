"""``NodeToStatus``: the per-node statuses of a failed attempt, some of them kept as rows of
node columns and built only when read.

Upstream: ``staging/src/k8s.io/kube-scheduler/framework/types.go`` (NodeToStatus: Get, Set,
Len, ForEachExplicitNode, NodesForStatusCode) and ``pkg/scheduler/framework/types.go``
(FitError.Error, which counts the reasons of every node). The Filter search's vectorised path
(``framework/vectorised.py`` :func:`search_columns`) rejects hundreds of nodes per attempt with
one plugin's status each; :class:`RowStatuses` holds those as arrays (a code and a reason bit set
per node), and :class:`NodeToStatus` reads them as the map of Statuses the per-node search
fills: the same keys, in the same order, with the same statuses, lengths and reason counts
(docs/reference.md#fast-paths-for-resource-only-pods).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, MutableMapping

import numpy as np
import numpy.typing as npt

from reference_impl.framework.status import Code, Status

I64 = npt.NDArray[np.int64]
CODES = tuple(Code)


class RowStatuses:
    """The statuses of ``names`` (in search order), all from ``plugin`` and without an error:
    node i has code ``codes[i]`` and the reasons ``reasons[k]`` for each bit k of ``bits[i]``,
    in bit order. A Status is built on first read and kept (a reader may change it, as the
    map's own)."""

    __slots__ = (
        "names",
        "_codes",
        "_bits",
        "reasons",
        "plugin",
        "_pos",
        "_lookups",
        "_made",
        "_code_map",
    )

    def __init__(
        self, names: list[str], codes: I64, bits: I64, reasons: tuple[str, ...], plugin: str
    ) -> None:
        assert len(names) == len(codes) == len(bits)
        self.names = names
        self._codes = codes
        self._bits = bits
        self.reasons = reasons
        self.plugin = plugin
        self._pos: dict[str, int] | None = None
        self._lookups = 0
        self._made: dict[int, Status] = {}
        self._code_map: dict[str, Code] | None = None

    def __len__(self) -> int:
        return len(self.names)

    def position(self, name: str) -> int | None:
        """The index of ``name`` in :attr:`names`, None when absent (the first lookups
        search the list; a map is built for more)."""
        if self._pos is None:
            self._lookups += 1
            if self._lookups <= 2:
                try:
                    return self.names.index(name)
                except ValueError:
                    return None
            self._pos = {n: i for i, n in enumerate(self.names)}
        return self._pos.get(name)

    def status(self, i: int) -> Status:
        s = self._made.get(i)
        if s is None:
            s = Status(CODES[int(self._codes[i])], *self.reasons_at(i), plugin=self.plugin)
            self._made[i] = s
        return s

    def code(self, i: int) -> Code:
        s = self._made.get(i)
        return s.code if s is not None else CODES[int(self._codes[i])]

    def codes(self) -> dict[str, Code]:
        """Node name -> the code of its status."""
        if self._code_map is None:
            self._code_map = dict(
                zip(self.names, map(CODES.__getitem__, self._codes.tolist()), strict=True)
            )
        if not self._made:
            return self._code_map
        out = dict(self._code_map)
        for i, st in self._made.items():
            out[self.names[i]] = st.code
        return out

    def reasons_at(self, i: int) -> list[str]:
        """The reasons node i had when set (its status unbuilt or not)."""
        bits = int(self._bits[i])
        return [r for k, r in enumerate(self.reasons) if bits >> k & 1]

    def frozen_reasons(self) -> FrozenReasons:
        """The reasons of these nodes as they are now."""
        return FrozenReasons(self, {i: st.all_reasons() for i, st in self._made.items()})

    def names_with_code(self, code: Code) -> list[str]:
        """The nodes whose status has ``code``."""
        match = self._codes == int(code)
        for i, st in self._made.items():  # the statuses built, as they are now
            match[i] = st.code == code
        names = self.names
        return [names[i] for i in np.flatnonzero(match).tolist()]

    def without(self, positions: list[int]) -> RowStatuses:
        """These statuses but those at ``positions`` (statuses already built are kept)."""
        keep = np.ones(len(self.names), dtype=np.bool_)
        keep[positions] = False
        idx = np.flatnonzero(keep)
        out = RowStatuses(
            [self.names[i] for i in idx.tolist()],
            self._codes[idx],
            self._bits[idx],
            self.reasons,
            self.plugin,
        )
        out._made = {j: self._made[i] for j, i in enumerate(idx.tolist()) if i in self._made}
        return out

    def add_reason_counts(self, hist: dict[str, int]) -> None:
        """Add to ``hist`` how many nodes carry each reason (``Status.Reasons`` of each)."""
        bits = self._bits
        if self._made:  # the statuses built count as they are now
            for st in self._made.values():
                for r in st.all_reasons():
                    hist[r] = hist.get(r, 0) + 1
            bits = np.delete(bits, list(self._made))
        for k, r in enumerate(self.reasons):
            c = int(np.count_nonzero(bits & (1 << k)))
            if c:
                hist[r] = hist.get(r, 0) + c


Part = dict[str, Status] | RowStatuses


class NodeToStatus(MutableMapping[str, Status]):
    """Node name -> Status, in insertion order as a dict (setting a present key keeps its
    place and takes the new status), made of dicts and :class:`RowStatuses` blocks."""

    __slots__ = ("_parts",)

    def __init__(self, explicit: dict[str, Status] | None = None) -> None:
        self._parts: list[Part] = [explicit if explicit is not None else {}]

    # ----- the map -----
    def _find(self, name: str) -> tuple[Part, int] | None:
        for part in self._parts:
            if isinstance(part, dict):
                if name in part:
                    return part, -1
            else:
                i = part.position(name)
                if i is not None:
                    return part, i
        return None

    def __getitem__(self, name: str) -> Status:
        found = self._find(name)
        if found is None:
            raise KeyError(name)
        part, i = found
        return part[name] if isinstance(part, dict) else part.status(i)

    def __setitem__(self, name: str, status: Status) -> None:
        found = self._find(name)
        if found is None:
            last = self._parts[-1]
            if not isinstance(last, dict):
                last = {}
                self._parts.append(last)
            last[name] = status
            return
        part, _ = found
        if not isinstance(part, dict):
            self._flatten()
            part = self._parts[0]
        assert isinstance(part, dict)
        part[name] = status

    def __delitem__(self, name: str) -> None:
        self._flatten()
        part = self._parts[0]
        assert isinstance(part, dict)
        del part[name]

    def __iter__(self) -> Iterator[str]:
        for part in self._parts:
            yield from (part if isinstance(part, dict) else part.names)

    def __len__(self) -> int:
        return sum(len(p) for p in self._parts)

    def __repr__(self) -> str:
        return f"NodeToStatus({dict(self.items())!r})"

    def _flatten(self) -> None:
        """Every status built, in one dict (the rare change of a node held in a block)."""
        if len(self._parts) == 1 and isinstance(self._parts[0], dict):
            return
        self._parts = [dict(self.items())]

    # ----- without building statuses -----
    def add_rows(self, rows: RowStatuses) -> None:
        """Set the statuses of ``rows``, as setting each in order would (a node already in a
        dict keeps its place there and takes its new status)."""
        if not len(rows):
            return
        moved: list[int] = []
        for part in self._parts:
            if isinstance(part, dict):
                for name in part:
                    i = rows.position(name)
                    if i is not None:
                        part[name] = rows.status(i)
                        moved.append(i)
            elif any(part.position(n) is not None for n in rows.names):
                self._flatten()
                for i, name in enumerate(rows.names):
                    self[name] = rows.status(i)
                return
        self._parts.append(rows.without(moved) if moved else rows)

    def code_of(self, name: str) -> Code | None:
        """The code of ``name``'s status; None when it has none."""
        for part in self._parts:
            if isinstance(part, dict):
                s = part.get(name)
                if s is not None:
                    return s.code
            else:
                i = part.position(name)
                if i is not None:
                    return part.code(i)
        return None

    def codes(self) -> dict[str, Code]:
        """Node name -> the code of its status, for every node with one (a dict: the caller
        may not change it)."""
        if len(self._parts) == 1:
            only = self._parts[0]
            return (
                {n: st.code for n, st in only.items()} if isinstance(only, dict) else only.codes()
            )
        out: dict[str, Code] = {}
        for part in self._parts:
            if isinstance(part, dict):
                for n, st in part.items():
                    out[n] = st.code
            else:
                out.update(part.codes())
        return out

    def names_with_code(self, code: Code) -> set[str]:
        """The nodes whose status has ``code``."""
        out: set[str] = set()
        for part in self._parts:
            if isinstance(part, dict):
                out.update(n for n, st in part.items() if st.code == code)
            else:
                out.update(part.names_with_code(code))
        return out

    def reason_counts(self) -> dict[str, int]:
        """How many nodes carry each reason (their statuses' ``all_reasons``), as FitError.Error
        counts them."""
        hist: dict[str, int] = {}
        for part in self._parts:
            if isinstance(part, dict):
                for st in part.values():
                    for r in st.all_reasons():
                        hist[r] = hist.get(r, 0) + 1
            else:
                part.add_reason_counts(hist)
        return hist

    def reasons(self) -> ReasonsView:
        """Node name -> ``all_reasons()`` of its status, as they are now (later changes to
        the map or to its statuses are not seen); a block's unbuilt statuses are read from
        its rows when asked."""
        return ReasonsView(
            [
                {n: st.all_reasons() for n, st in p.items()}
                if isinstance(p, dict)
                else p.frozen_reasons()
                for p in self._parts
            ]
        )


class FrozenReasons:
    """The reasons of a :class:`RowStatuses`' nodes as they were when made: those of the
    statuses built then, copied; the others read from the rows."""

    __slots__ = ("rows", "built")

    def __init__(self, rows: RowStatuses, built: dict[int, list[str]]) -> None:
        self.rows = rows
        self.built = built

    def at(self, i: int) -> list[str]:
        r = self.built.get(i)
        return list(r) if r is not None else self.rows.reasons_at(i)


class ReasonsView(Mapping[str, list[str]]):
    """Node name -> the reasons of its status (``Status.Reasons``): what
    :meth:`NodeToStatus.reasons` returns."""

    __slots__ = ("_parts",)

    def __init__(self, parts: list[dict[str, list[str]] | FrozenReasons]) -> None:
        self._parts = parts

    def __getitem__(self, name: str) -> list[str]:
        for part in self._parts:
            if isinstance(part, dict):
                if name in part:
                    return part[name]
            else:
                i = part.rows.position(name)
                if i is not None:
                    return part.at(i)
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        for part in self._parts:
            yield from (part if isinstance(part, dict) else part.rows.names)

    def __len__(self) -> int:
        return sum(len(p) if isinstance(p, dict) else len(p.rows) for p in self._parts)

    def __repr__(self) -> str:
        return repr(dict(self.items()))
