"""The harness's errors: what is the user's fault, what is the subject's, and a stop by signal."""

from __future__ import annotations

import signal


class UsageError(ValueError):
    """Bad options or input files (exit code 2); the message names the option or file."""


class SubjectError(Exception):
    """The subject could not produce a result (crash, timeout, invalid output); never a
    verdict about scheduling."""


class ScenarioRejected(SubjectError):
    """The subject refused the scenario as invalid input (a manifest or configuration it does
    not accept), as opposed to failing while scheduling it."""


class ScenarioUnsupported(ScenarioRejected):
    """The subject cannot run this kind of scenario (a capability it lacks, such as the
    backends' control planes running no PV controller), although the input is valid. Engines
    skip such a scenario with the stated reason instead of counting a divergence."""


class ScenarioTimedOut(SubjectError):
    """The subject gave up on one scenario that did not end within its bound (a real control
    plane whose kube-scheduler never settles: it retries a pod forever), and cleaned up after
    it: the subject can run the next scenario. Engines that can report the scenario as an
    error with this reason and go on (``kschedconf diff``); others stop as for any
    :class:`SubjectError`."""


class Terminated(BaseException):
    """Raised in the main thread by SIGTERM/SIGHUP after everything was released. Not a
    ``SystemExit``: Hypothesis treats that as a test failure and would go on generating; like
    ``KeyboardInterrupt`` this stops everything. ``kschedconf`` exits with ``128 + signum``."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"terminated by {signal.Signals(signum).name}")
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


#: the stops signals asked for while a run lasts (``cli.options.signals_end_the_run``): a
#: KeyboardInterrupt raised inside a garbage-collector callback (Hypothesis registers one) is
#: swallowed by Python, so long loops also ask :func:`requested_stop` between examples
_requested: list[BaseException] = []


def request_stop(exc: BaseException) -> None:
    _requested.append(exc)


def requested_stop() -> BaseException | None:
    """The first stop asked for by a signal in this run, if any."""
    return _requested[0] if _requested else None


def raise_requested_stop() -> None:
    """Raise the stop a signal asked for if Python swallowed its exception; long loops call
    this between cases."""
    if _requested:
        raise _requested[0]


def clear_stops() -> None:
    _requested.clear()
