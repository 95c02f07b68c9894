"""``--workers N``: the cases of a run judged by N processes, each with its own subjects, their
outcomes taken back in the order the cases were planned. The engine reports each case from
the main process, in that order, as it does with one worker, so that the console lines,
reports, counterexample files and summaries are byte-identical whatever N (the seconds
aside); docs/outputs.md#workers-and-shards.

A worker process is forked from a ``forkserver`` that imported the engines once (not from the
main process, whose threads a ``fork`` would copy mid-flight); it ignores Ctrl-C, which the
main process handles by terminating the pool. Its subjects are built once, from their spec
(:class:`SubjectSpec`), and closed when it exits."""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from multiprocessing.pool import AsyncResult
from multiprocessing.pool import Pool as ProcessPool
from multiprocessing.util import Finalize
from types import TracebackType
from typing import Any, Generic, TypeVar

from conformance.core.errors import UsageError
from conformance.core.subject import Subject
from conformance.subjects.factory import make_subject
from conformance.subjects.upstream import UpstreamSubject
from reference_impl.releases.pinned import UPSTREAM_RELEASE

T = TypeVar("T")
R = TypeVar("R")
A = TypeVar("A")

#: ``--workers auto``: the CPUs of the machine
AUTO = 0
#: subjects whose workers would share one cluster (and delete each other's objects)
SHARED_SUBJECTS = ("kubeconfig",)
#: modules the forkserver imports once, so that each worker starts without importing them
PRELOAD = ["conformance.engines.run", "conformance.engines.diff.run",
           "conformance.engines.golden"]


def resolve_workers(requested: int | None, cases: int) -> int:
    """The processes a run uses: ``requested`` (:data:`AUTO` or None: the CPU count), never
    more than there are cases, at least one."""
    n = requested or os.cpu_count() or 1
    return max(1, min(n, cases))


def check_shareable(spec: str, workers: int) -> None:
    """A :class:`UsageError` when ``workers`` > 1 processes cannot each have a subject of
    ``spec``: a kubeconfig cluster is one, its workers would delete each other's objects."""
    kind = spec.partition(":")[0].partition("@")[0].strip()
    if workers > 1 and kind in SHARED_SUBJECTS:
        raise UsageError(f"--workers {workers} with {spec}: the workers would share one "
                         "cluster; use --workers 1 (or --shard K/N on several clusters)")


@dataclass(frozen=True, slots=True)
class SubjectSpec:
    """A subject as the command line names it, built anew in each worker process
    (:func:`conformance.subjects.factory.make_subject`'s arguments)."""

    spec: str
    config: str | None = None
    plugins: tuple[str, ...] = ()
    replaces: tuple[str, ...] = ()  # --replaces PLUGIN=IN_TREE[:rule,...]
    timeout: float | None = None
    i_own_this_cluster: str | None = None
    release: str = UPSTREAM_RELEASE
    #: the upstream subject's serve processes working at once (``diff --upstream-workers``)
    upstream_workers: int | None = None

    def __call__(self) -> Subject:
        subject = make_subject(self.spec, config=self.config, plugins=self.plugins,
                               replaces=self.replaces, timeout=self.timeout,
                               i_own_this_cluster=self.i_own_this_cluster,
                               release=self.release)
        if self.upstream_workers is not None and isinstance(subject, UpstreamSubject):
            subject.workers = max(1, self.upstream_workers)
        return subject


@dataclass(slots=True)
class Opened(Generic[A]):
    """A worker's context: its subject and what every case is judged with."""

    subject: Subject
    extra: A

    def close(self) -> None:
        self.subject.close()


@dataclass(frozen=True, slots=True)
class OpenSubject(Generic[A]):
    """The setup of a worker: the subject built from its spec, with ``extra``."""

    spec: Callable[[], Subject]
    extra: A

    def __call__(self) -> Opened[A]:
        return Opened(self.spec(), self.extra)


# --- in the worker process -----------------------------------------------------------------

_CONTEXT: list[Any] = []


def _close(context: Any) -> None:
    close = getattr(context, "close", None)
    if close is not None:
        close()


def _start(setup: Callable[[], Any]) -> None:
    """A worker's start: Ctrl-C is the main process's; its context built once, closed when
    the worker exits."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)
    context = setup()
    _CONTEXT.append(context)
    Finalize(None, _close, args=(context,), exitpriority=10)


def _call(task: Callable[[Any, T], R], item: T) -> R:
    return task(_CONTEXT[0], item)


# --- in the main process -------------------------------------------------------------------

class Pending(Generic[R]):
    """An outcome to come: computed by a worker, or already there (one worker)."""

    def __init__(self, result: AsyncResult[R] | None = None, value: Any = None) -> None:
        self._result, self._value = result, value

    def ready(self) -> bool:
        return self._result is None or self._result.ready()

    def get(self) -> R:
        if self._result is None:
            return self._value  # type: ignore[no-any-return]
        return self._result.get()


class Workers:
    """N worker processes running ``task(context, item)``, each with the context ``setup()``
    built; with N = 1, the tasks run here with ``local`` (or ``setup()``, built when first
    needed). Leaving the ``with`` block on an exception terminates the workers."""

    def __init__(self, n: int, setup: Callable[[], Any], local: Any = None) -> None:
        self.n = max(1, n)
        self.setup = setup
        self._local = local
        self._owned = False
        self._pool: ProcessPool | None = None
        self._abandoned = False

    @property
    def parallel(self) -> bool:
        return self.n > 1

    def _context(self) -> Any:
        if self._local is None:
            self._local, self._owned = self.setup(), True
        return self._local

    def _processes(self) -> ProcessPool:
        if self._pool is None:
            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload(PRELOAD)
            self._pool = ctx.Pool(self.n, initializer=_start, initargs=(self.setup,))
        return self._pool

    def submit(self, task: Callable[[Any, T], R], item: T) -> Pending[R]:
        """Start ``task`` on ``item`` (with one worker: run it now)."""
        if not self.parallel:
            return Pending(value=task(self._context(), item))
        return Pending(self._processes().apply_async(_call, (task, item)))

    def map(self, task: Callable[[Any, T], R], items: Iterable[T],
            started: Callable[[T], None] | None = None) -> Iterator[R]:
        """The outcomes of ``task`` on ``items``, in their order, at most 2N ahead of the
        one taken last (with one worker: each computed when taken). ``started(item)`` comes
        before its outcome: with one worker, before the task runs (a live console line)."""
        if not self.parallel:
            for item in items:
                if started is not None:
                    started(item)
                yield task(self._context(), item)
            return
        window: deque[tuple[T, Pending[R]]] = deque()

        def take() -> R:
            item, pending = window.popleft()
            if started is not None:
                started(item)
            return pending.get()

        try:
            for item in items:
                window.append((item, self.submit(task, item)))
                if len(window) >= 2 * self.n:
                    yield take()
            while window:
                yield take()
        finally:
            self._abandoned = self._abandoned or bool(window)  # left early: not waited for

    def close(self, terminate: bool = False) -> None:
        """End the workers: when their tasks are done, or at once with ``terminate`` (or
        when outcomes were left untaken)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            if terminate or self._abandoned:
                pool.terminate()
            else:
                pool.close()
            pool.join()
        if self._owned:
            local, self._local, self._owned = self._local, None, False
            _close(local)

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close(terminate=exc is not None)
