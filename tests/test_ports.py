"""Loopback port reservations of the control-plane launchers (conformance/backends/ports.py):
parallel runs never hand out the same port, and released reservations leave no lock file."""

from __future__ import annotations

import fcntl
from pathlib import Path

import pytest

from conformance.backends import ports
from conformance.backends.ports import PortReservation, lock_dir, port_is_free


@pytest.fixture(autouse=True)
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(ports.tempfile, "gettempdir", lambda: str(tmp_path))
    return tmp_path


def test_reserved_ports_are_distinct_free_and_released_without_leftovers() -> None:
    r = PortReservation()
    got = r.take_many(5)
    assert len(set(got)) == 5 and all(port_is_free(p) for p in got)
    assert sorted(p.name for p in lock_dir().iterdir()) == sorted(f"{p}.lock" for p in got)
    r.release()
    assert list(lock_dir().iterdir()) == [] and r.ports == []


def test_a_port_held_by_another_reservation_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    a = PortReservation()
    held = a.take()
    draws = iter([held, held])
    real = ports._probe_free_port
    monkeypatch.setattr(ports, "_probe_free_port", lambda: next(draws, None) or real())
    b = PortReservation()
    other = b.take()
    assert other != held
    a.release()
    b.release()


def test_a_lock_file_deleted_by_its_release_is_not_reused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The process that opened the lock file just before its holder released (and deleted)
    it gets the lock on a deleted file: it must notice and draw again."""
    a = PortReservation()
    held = a.take()
    draws = iter([held])
    real = ports._probe_free_port
    monkeypatch.setattr(ports, "_probe_free_port", lambda: next(draws, None) or real())
    real_flock = fcntl.flock
    calls = []

    def flock(fd: int, op: int) -> None:
        if not calls:  # b has opened held.lock; a releases it now, before b locks
            calls.append(fd)
            a.release()
        real_flock(fd, op)

    monkeypatch.setattr(ports.fcntl, "flock", flock)
    b = PortReservation()
    got = b.take()
    assert got != held and calls
    assert sorted(p.name for p in lock_dir().iterdir()) == [f"{got}.lock"]
    b.release()
    assert list(lock_dir().iterdir()) == []


def test_one_port_is_released_alone() -> None:
    r = PortReservation()
    a, b = r.take_many(2)
    r.release(a)
    assert r.ports == [b] and sorted(p.name for p in lock_dir().iterdir()) == [f"{b}.lock"]
    r.release(a)  # twice: nothing happens
    r.release()
    assert list(lock_dir().iterdir()) == []


def test_stale_lock_files_are_swept_and_held_ones_kept() -> None:
    """A runner killed with SIGKILL leaves its lock files (the kernel drops the locks): the
    next run deletes those, never one a live reservation holds."""
    live = PortReservation()
    held = live.take()
    (lock_dir() / "40001.lock").write_text("")  # left by a killed runner
    assert ports.sweep_stale_locks() == [40001]
    assert sorted(p.name for p in lock_dir().iterdir()) == [f"{held}.lock"]
    live.release()
    assert list(lock_dir().iterdir()) == []
