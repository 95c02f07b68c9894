"""Free loopback ports that parallel runs do not hand out twice.

A port is free when binding ``127.0.0.1:0`` returns it; between closing that socket and the
control-plane process binding it, another run on the same machine could draw the same number.
So every port handed out is also *reserved*: an exclusive ``flock`` on a file named after it in
a shared directory of the machine's temporary directory, held until :meth:`PortReservation.release`.
Two kschedconf processes never reserve the same port; anything else that grabs a port in that
window makes the component fail to start ("address already in use"), which the launchers detect
and retry with new ports. A released reservation deletes its lock file while still holding the
lock; a process that opened the file before it was deleted sees that the file it locked is no
longer the one at that path and tries again (the usual lock-file protocol), so nothing piles up.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import socket
import tempfile
from pathlib import Path

LOOPBACK = "127.0.0.1"
_LOCK_DIR_NAME = "kschedconf-ports"
_MAX_TRIES = 200


def lock_dir() -> Path:
    """The directory of port lock files (shared by every kschedconf process of this user)."""
    d = Path(tempfile.gettempdir()) / f"{_LOCK_DIR_NAME}-{os.getuid()}"
    d.mkdir(mode=0o700, exist_ok=True)
    return d


def _probe_free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((LOOPBACK, 0))
        return int(s.getsockname()[1])


def port_is_free(port: int) -> bool:
    """True when ``127.0.0.1:port`` can be bound right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((LOOPBACK, port))
        except OSError:
            return False
    return True


def sweep_stale_locks() -> list[int]:
    """Delete the lock files no process holds (left by a runner killed with SIGKILL: the
    kernel dropped its locks, the files stayed); the ports they name."""
    d = lock_dir()
    swept: list[int] = []
    for path in d.glob("*.lock"):
        try:
            fd = os.open(path, os.O_RDWR)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue  # held: a live run's reservation
        try:
            if os.stat(path).st_ino == os.fstat(fd).st_ino:
                os.unlink(path)
                with contextlib.suppress(ValueError):
                    swept.append(int(path.stem))
        except FileNotFoundError:
            pass
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
    return swept


class PortReservation:
    """Ports reserved for one control plane; release them when it is gone."""

    def __init__(self) -> None:
        self._held: dict[int, int] = {}  # port -> fd of its lock file
        self._dir: Path | None = None

    @property
    def ports(self) -> list[int]:
        return list(self._held)

    def take(self) -> int:
        """A free loopback port, reserved against other kschedconf processes."""
        d = lock_dir()
        for _ in range(_MAX_TRIES):
            port = _probe_free_port()
            if port in self._held:
                continue
            path = d / f"{port}.lock"
            fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as e:
                os.close(fd)
                if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    continue  # another run holds it
                raise
            try:
                current = os.stat(path).st_ino
            except FileNotFoundError:
                current = None
            if current != os.fstat(fd).st_ino:  # released and deleted meanwhile: not ours
                os.close(fd)
                continue
            self._held[port] = fd
            self._dir = d
            return port
        raise OSError("no free loopback port found")

    def take_many(self, n: int) -> list[int]:
        return [self.take() for _ in range(n)]

    def release(self, port: int | None = None) -> None:
        """Drop the reservation of ``port`` (default: every one): delete its lock file while
        holding its lock, then unlock."""
        for p in ([port] if port is not None else list(self._held)):
            fd = self._held.pop(p, None)
            if fd is None:
                continue
            if self._dir is not None:
                with contextlib.suppress(OSError):
                    os.unlink(self._dir / f"{p}.lock")
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
            with contextlib.suppress(OSError):
                os.close(fd)

    def __enter__(self) -> PortReservation:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
