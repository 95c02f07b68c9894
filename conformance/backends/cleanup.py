"""Releasing what a backend started, on every exit path: :class:`Cleanup` stacks of undo
actions, run on return, exception, Ctrl-C, SIGTERM/SIGHUP and at exit; child processes in their
own process group that die with the runner; sweeping what a killed runner left. See
docs/backends.md#what-one-run-does (Cleanup)."""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conformance.core.errors import Terminated

TEMP_PREFIX = "kschedconf-cp-"
OWNER_FILE = "owner.pid"

_lock = threading.RLock()
_live: list[Cleanup] = []
_installed = False
_signals_installed = False
_previous: dict[int, Any] = {}


class Cleanup:
    """Undo actions of one backend, run once, last registered first."""

    def __init__(self, name: str = "backend") -> None:
        self.name = name
        self._actions: list[tuple[str, Callable[[], None]]] = []
        self._done = False
        self.errors: list[str] = []
        install_handlers()
        with _lock:
            _live.append(self)

    def push(self, what: str, action: Callable[[], None]) -> None:
        with _lock:
            self._actions.append((what, action))

    def pop_and_run(self, what: str) -> None:
        """Run the most recent action registered as ``what`` now (and forget it)."""
        with _lock:
            for i in range(len(self._actions) - 1, -1, -1):
                if self._actions[i][0] == what:
                    _, action = self._actions.pop(i)
                    break
            else:
                return
        self._call(what, action)

    def _call(self, what: str, action: Callable[[], None]) -> None:
        try:
            action()
        except Exception as e:  # keep going: the other resources must still be released
            self.errors.append(f"{what}: {type(e).__name__}: {e}")

    def run(self) -> None:
        """Run every action (last first); safe to call more than once."""
        while True:
            with _lock:
                if not self._actions:
                    self._done = True
                    if self in _live:
                        _live.remove(self)
                    return
                what, action = self._actions.pop()
            self._call(what, action)


def run_all() -> None:
    """Run every live stack (signal handlers and atexit)."""
    with _lock:
        stacks = list(_live)
    for c in reversed(stacks):
        c.run()


def _on_signal(signum: int, frame: Any) -> None:
    run_all()
    prev = _previous.get(signum)
    if callable(prev):
        prev(signum, frame)
        return
    if prev == signal.SIG_IGN:
        return
    # default action: unwind (finally blocks run), then exit with the conventional status
    raise Terminated(signum)


def _excepthook(kind: type[BaseException], value: BaseException, tb: Any) -> None:
    if isinstance(value, Terminated):
        sys.stderr.write(f"{value}\n")
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        run_all()
        os._exit(value.exit_code)
    _previous_excepthook(kind, value, tb)


_previous_excepthook = sys.excepthook


def install_handlers() -> None:
    """Install the atexit hook once, and the SIGTERM/SIGHUP handlers once from the main thread
    (signal handlers can only be set there: a backend first started in a worker thread gets
    them from the next call made on the main thread, e.g. when its subject is made)."""
    global _installed, _signals_installed
    with _lock:
        first = not _installed
        _installed = True
    if first:
        atexit.register(run_all)
    if threading.current_thread() is not threading.main_thread():
        return
    with _lock:
        if _signals_installed:
            return
        _signals_installed = True
    if sys.excepthook is not _excepthook:
        globals()["_previous_excepthook"] = sys.excepthook
        sys.excepthook = _excepthook
    for sig in (signal.SIGTERM, signal.SIGHUP):
        with contextlib.suppress(ValueError, OSError):
            prev = signal.getsignal(sig)
            if prev is _on_signal:
                continue
            _previous[sig] = prev
            signal.signal(sig, _on_signal)


# --- processes -------------------------------------------------------------------------------

def _pdeathsig() -> None:  # pragma: no cover - runs in the child
    """Ask Linux to SIGKILL this child when the parent dies (prctl PR_SET_PDEATHSIG)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):
        pass


def spawn(argv: list[str], *, log: Path, env: dict[str, str] | None = None,
          cwd: str | None = None) -> subprocess.Popen[bytes]:
    """Start ``argv`` in its own process group, stdout and stderr appended to ``log``."""
    with open(log, "ab") as out:
        return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, env=env, cwd=cwd,
                                start_new_session=True, preexec_fn=_pdeathsig)


def stop_process(proc: subprocess.Popen[bytes], grace: float = 5.0) -> None:
    """SIGTERM the process group, SIGKILL it after ``grace`` seconds, reap the leader."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
    # whatever is left of the group (the leader may have exited before its children)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=grace)


# --- temporary directories -------------------------------------------------------------------

def make_temp_dir(label: str = "") -> Path:
    """A private temporary directory marked with this process's pid."""
    d = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX + (f"{label}-" if label else "")))
    (d / OWNER_FILE).write_text(str(os.getpid()))
    return d


def remove_dir(path: Path) -> None:
    for _ in range(3):
        shutil.rmtree(path, ignore_errors=True)
        if not path.exists():
            return
        time.sleep(0.2)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_stale_dirs(root: str | None = None) -> list[Path]:
    """Remove kschedconf control-plane directories whose owner process is gone (left by a
    runner that was SIGKILLed). Returns what was removed."""
    base = Path(root or tempfile.gettempdir())
    removed = []
    for d in base.glob(TEMP_PREFIX + "*"):
        owner = d / OWNER_FILE
        try:
            pid = int(owner.read_text().strip())
        except (OSError, ValueError):
            continue
        if pid != os.getpid() and not _pid_alive(pid):
            remove_dir(d)
            removed.append(d)
    return removed
