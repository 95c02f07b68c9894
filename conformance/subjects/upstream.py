"""The real upstream kube-scheduler as a subject (``--subject upstream``): :class:`UpstreamSubject`
talks in JSON lines to long-running ``upstream/bin/kschedconf-upstream serve`` processes
(built by ``bash upstream/build.sh [--release vX.Y.Z]``), which run
``k8s.io/kubernetes/pkg/scheduler`` of the pinned release (or of another one) in process. The
protocol and the methods: docs/subjects.md#the-upstream-subject."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from conformance.core.scenario import ScenarioInput
from conformance.core.subject import ScenarioRejected, Subject, SubjectError, SubjectResult
from conformance.subjects.external import stderr_tail
from reference_impl.model.loader.ephemeral import with_controller_claims
from reference_impl.releases import supported_releases
from reference_impl.releases.pinned import UPSTREAM_RELEASE

#: Environment variable naming another kschedconf-upstream binary of the pinned release.
BINARY_ENV = "KSCHEDCONF_UPSTREAM_BINARY"
#: Environment variable naming another directory laid out like ``upstream/bin``:
#: ``kschedconf-upstream`` (the pinned release) and ``vX.Y.Z/kschedconf-upstream``.
BINARY_DIR_ENV = "KSCHEDCONF_UPSTREAM_BINARY_DIR"
DEFAULT_TIMEOUT = 120.0
BUILD_HINT = "build it with `bash upstream/build.sh` (needs Go and the Go module proxy)"


def build_hint(release: str | None = None) -> str:
    """How to build the subject of ``release`` (the pinned one when ``None``)."""
    if release is None or release == UPSTREAM_RELEASE:
        return BUILD_HINT
    return (f"build it with `bash upstream/build.sh --release {release}` (needs Go and the Go "
            "module proxy)")


def binary_dir() -> Path:
    """``$KSCHEDCONF_UPSTREAM_BINARY_DIR``, else ``upstream/bin`` of the source checkout this
    package belongs to."""
    env = os.environ.get(BINARY_DIR_ENV)
    if env:
        return Path(env)
    return Path(__file__).resolve().parent.parent.parent / "upstream" / "bin"


def default_binary(release: str | None = None) -> Path:
    """The subject binary of ``release`` (``upstream/build.sh --release``): for the pinned
    release (``None``) ``$KSCHEDCONF_UPSTREAM_BINARY``, else ``kschedconf-upstream`` in
    :func:`binary_dir`; for another release ``vX.Y.Z/kschedconf-upstream`` there."""
    if release is None or release == UPSTREAM_RELEASE:
        env = os.environ.get(BINARY_ENV)
        if env:
            return Path(env)
        return binary_dir() / "kschedconf-upstream"
    return binary_dir() / release / "kschedconf-upstream"


def binary_available(path: str | os.PathLike[str] | None = None) -> bool:
    p = Path(path) if path is not None else default_binary()
    return p.is_file() and os.access(p, os.X_OK)


def _shown(path: Path) -> str:
    """The path relative to the working directory when it is below it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


class _Server:
    """One ``kschedconf-upstream serve`` process; one request at a time."""

    def __init__(self, binary: Path) -> None:
        self.binary = binary
        self.stderr: IO[bytes] = tempfile.TemporaryFile()
        try:
            self.proc = subprocess.Popen([str(binary), "serve"], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=self.stderr, text=True,
                                         encoding="utf-8", bufsize=1, start_new_session=True)
        except OSError as e:
            self.stderr.close()
            raise SubjectError(f"upstream subject: cannot start {binary}: {e}; "
                               f"{BUILD_HINT}") from e
        self.lines: queue.Queue[str | None] = queue.Queue()
        stdout = self.proc.stdout
        lines = self.lines

        def pump() -> None:
            assert stdout is not None
            for line in stdout:
                lines.put(line)
            lines.put(None)  # end of output: the process is gone

        threading.Thread(target=pump, name="kschedconf-upstream-stdout", daemon=True).start()

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stderr_tail(self) -> str:
        with contextlib.suppress(OSError, ValueError):
            self.stderr.seek(0, os.SEEK_END)
            size = self.stderr.tell()
            self.stderr.seek(max(0, size - 64 * 1024))
            return stderr_tail(self.stderr.read())
        return ""

    def stop(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                self.proc.kill()
            self.proc.wait()
        with contextlib.suppress(OSError):
            self.stderr.close()


class UpstreamSubject(Subject):
    """kube-scheduler of the pinned release, or of ``release`` (docs/releases.md), through
    ``kschedconf-upstream serve`` processes (docs/subjects.md#the-upstream-subject). Requests
    may come from several threads at once: each takes an idle process of a pool of at most
    ``workers`` (started when first needed)."""

    name = "upstream"
    can_explain = True
    reports_scores = True
    concurrent_runs = True

    def __init__(self, binary: str | os.PathLike[str] | None = None,
                 timeout: float = DEFAULT_TIMEOUT, workers: int = 1,
                 release: str | None = None) -> None:
        self.binary = Path(binary) if binary is not None else default_binary(release)
        if not binary_available(self.binary):
            raise SubjectError(f"upstream subject: no executable {self.binary}; "
                               f"{build_hint(release)}")
        self.timeout = timeout
        self.workers = max(1, workers)
        self._idle: list[_Server] = []
        self._started = 0
        self._cond = threading.Condition()
        self._release: str | None = None
        self.requests = 0
        if release is not None and self.release != release:
            raise SubjectError(f"upstream subject: {self.binary} links k8s.io/kubernetes "
                               f"{self.release}, not {release}; {build_hint(release)}")

    # ----- the serve processes -----
    def _take(self) -> _Server:
        with self._cond:
            while True:
                while self._idle:
                    srv = self._idle.pop()
                    if srv.alive():
                        return srv
                    srv.stop()
                    self._started -= 1
                if self._started < self.workers:
                    self._started += 1
                    break
                self._cond.wait()
        try:
            return _Server(self.binary)
        except BaseException:
            with self._cond:
                self._started -= 1
                self._cond.notify()
            raise

    def _give_back(self, srv: _Server | None) -> None:
        with self._cond:
            if srv is not None and srv.alive():
                self._idle.append(srv)
            else:
                if srv is not None:
                    srv.stop()
                self._started -= 1
            self._cond.notify()

    def _fail(self, srv: _Server, what: str, scenario: ScenarioInput) -> SubjectError:
        msg = f"upstream subject ({self.binary} serve): {what} (scenario {scenario.name})"
        tail = srv.stderr_tail()
        if tail:
            msg += "\n--- stderr (tail) ---\n" + tail
        return SubjectError(msg)

    def request(self, req: dict[str, Any], scenario: ScenarioInput) -> dict[str, Any]:
        """Send one request, return the answer document; a missing answer is a
        :class:`SubjectError`, an ``error`` answer a :class:`ScenarioRejected`."""
        if scenario.release != self.release and self.release in supported_releases():
            raise SubjectError(f"upstream subject: it runs kube-scheduler {self.release}; "
                               f"scenario {scenario.name} is of {scenario.release} (run it "
                               f"with --release {scenario.release}, the subject "
                               f"upstream@{scenario.release})")
        text = json.dumps(req, separators=(",", ":")) + "\n"
        srv: _Server | None = self._take()
        assert srv is not None
        try:
            with self._cond:
                self.requests += 1
            try:
                assert srv.proc.stdin is not None
                srv.proc.stdin.write(text)
                srv.proc.stdin.flush()
            except (BrokenPipeError, OSError) as e:
                raise self._fail(srv, f"the process is gone ({e})", scenario) from e
            try:
                line = srv.lines.get(timeout=self.timeout)
            except queue.Empty:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    srv.proc.kill()
                raise self._fail(srv, f"no answer within {self.timeout:g} s",
                                 scenario) from None
            if line is None:
                code = srv.proc.wait()
                raise self._fail(srv, f"the process exited with code {code}", scenario)
            try:
                doc = json.loads(line)
            except ValueError as e:
                raise self._fail(srv, f"invalid JSON answer: {e}: {line[:200]!r}",
                                 scenario) from e
        except BaseException:
            bad, srv = srv, None
            bad.stop()
            self._give_back(None)
            raise
        finally:
            if srv is not None:
                self._give_back(srv)
        if not isinstance(doc, dict):
            raise SubjectError(f"upstream subject: unexpected answer {line[:200]!r}")
        if set(doc) == {"error"}:
            raise ScenarioRejected(f"upstream rejected scenario {scenario.name}: "
                                   f"{doc['error']}")
        return doc

    # ----- the subject -----
    def simulate(self, scenario: ScenarioInput, notes: bool = False) -> dict[str, Any]:
        """The SimulationResult of the scenario, with upstream's ``notes`` when asked (not in
        the SimulationResult schema)."""
        req = {"mode": "simulate", "documents": with_controller_claims(scenario.documents),
               "config": scenario.config, "seed": scenario.seed, "notes": notes}
        doc = self.request(req, scenario)
        if doc.get("kind") != "SimulationResult":
            raise SubjectError(f"upstream subject: expected a SimulationResult, got kind "
                               f"{doc.get('kind')!r} (scenario {scenario.name})")
        return doc

    def run(self, scenario: ScenarioInput) -> SubjectResult:
        doc = self.simulate(scenario, notes=True)
        notes = [str(n) for n in doc.pop("notes", None) or []]
        # the Go loader's warnings (input it ignored), worded as the reference's
        warnings = [str(w) for w in doc.pop("warnings", None) or []]
        return SubjectResult(doc, notes=notes, warnings=warnings)

    def explain(self, scenario: ScenarioInput, pod: str | dict[str, Any]) -> dict[str, Any]:
        """The Explanation of ``pod`` (``"ns/name"`` of a pending pod of the scenario, or a Pod
        manifest) on the scenario's cluster (nothing is scheduled first)."""
        req = {"mode": "explain", "documents": with_controller_claims(scenario.documents),
               "config": scenario.config, "pod": pod}
        doc = self.request(req, scenario)
        if doc.get("kind") != "Explanation":
            raise SubjectError(f"upstream subject: expected an Explanation, got kind "
                               f"{doc.get('kind')!r} (scenario {scenario.name})")
        return doc

    def explain_many(self, scenario: ScenarioInput, pods: Sequence[str]
                     ) -> list[dict[str, Any] | ScenarioRejected]:
        """The Explanations of ``pods`` on the scenario's cluster in one request (``"pods"``):
        upstream explains them one after another in one world (upstream/explain_batch.go)
        instead of building the world for each."""
        req = {"mode": "explain", "documents": with_controller_claims(scenario.documents),
               "config": scenario.config, "pods": list(pods)}
        try:
            doc = self.request(req, scenario)
        except ScenarioRejected as e:
            return [e for _ in pods]
        items = doc.get("items")
        if doc.get("kind") != "ExplanationList" or not isinstance(items, list) \
                or len(items) != len(pods):
            raise SubjectError(f"upstream subject: expected an ExplanationList of {len(pods)} "
                               f"items, got kind {doc.get('kind')!r} (scenario "
                               f"{scenario.name})")
        out: list[dict[str, Any] | ScenarioRejected] = []
        for item in items:
            if isinstance(item, dict) and set(item) == {"error"}:
                out.append(ScenarioRejected(f"upstream rejected scenario {scenario.name}: "
                                            f"{item['error']}"))
            elif isinstance(item, dict) and item.get("kind") == "Explanation":
                out.append(item)
            else:
                raise SubjectError(f"upstream subject: expected an Explanation, got "
                                   f"{str(item)[:200]!r} (scenario {scenario.name})")
        return out

    @property
    def release(self) -> str:
        """The k8s.io/kubernetes version linked into the binary (``kschedconf-upstream
        version``)."""
        if self._release is None:
            try:
                out = subprocess.run([str(self.binary), "version"], capture_output=True,
                                     text=True, timeout=30, check=True)
                self._release = out.stdout.strip() or "unknown"
            except (OSError, subprocess.SubprocessError):
                self._release = "unknown"
        return self._release

    def close(self) -> None:
        with self._cond:
            idle, self._idle = self._idle, []
            self._started -= len(idle)
        for srv in idle:
            srv.stop()

    def describe(self) -> dict[str, str]:
        return {"subject": self.name, "upstreamRelease": self.release,
                "pinnedRelease": UPSTREAM_RELEASE,
                "implementation": "kube-scheduler in process (kschedconf-upstream serve)",
                "binary": _shown(self.binary), "workers": str(self.workers)}
