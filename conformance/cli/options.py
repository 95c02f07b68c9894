"""Options and helpers every ``kschedconf`` command shares: number and list validators, the
subject options, the reporters a run writes to, errors on stderr, signals that end a run."""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from conformance.core.errors import Terminated, clear_stops, request_stop
from conformance.core.events import EventBus, Reporter
from conformance.core.exits import EXIT_USAGE
from conformance.core.releases import resolve_release
from conformance.engines.properties import parse_shard
from conformance.engines.workers import AUTO
from conformance.reporters.console import ConsoleReporter
from conformance.reporters.junit import JUnitReporter
from conformance.reporters.report_file import ReportFileReporter, ReportStreamReporter
from reference_impl.releases import supported_releases
from reference_impl.releases.pinned import UPSTREAM_RELEASE
from strategies.families import FAMILIES, FEATURE_FAMILIES

SUBJECT_HELP = ("the scheduler under test: reference (default), reference:CONFIG.yaml, "
                 "external:COMMAND... (an executable speaking the file protocol of "
                 "docs/subjects.md), upstream (the real kube-scheduler, built by "
                 "upstream/build.sh), process / docker / kubeconfig:CONTEXT (a real control "
                 "plane, docs/backends.md)")


def positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if v <= 0:
        raise argparse.ArgumentTypeError("must be positive")
    return v


def count(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if v < 0:
        raise argparse.ArgumentTypeError("must not be negative")
    return v


def positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if v < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return v


def workers(text: str) -> int:
    """``--workers``: a positive count, or ``auto`` (the CPU count, :data:`AUTO`)."""
    if text.strip().lower() == "auto":
        return AUTO
    return positive_int(text)


def workers_option(p: argparse.ArgumentParser, cases: str, default: int | None = 1) -> None:
    """``--workers N|auto``: the ``cases`` judged by N processes, reported in the same order
    and bytes whatever N (docs/outputs.md#workers-and-shards)."""
    shown = "the number of CPUs" if default in (None, AUTO) else str(default)
    p.add_argument("--workers", metavar="N", type=workers, default=default,
                   help=f"processes judging the {cases} side by side (auto: one per CPU; "
                        f"default {shown}); the output is the same whatever N")


def shard(text: str) -> tuple[int, int]:
    try:
        return parse_shard(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e).removeprefix(f"--shard {text!r}: ")) from None


def sizes(text: str) -> list[str]:
    names = [s.strip() for s in text.split(",") if s.strip()]
    known = (*FAMILIES, *FEATURE_FAMILIES)
    bad = [n for n in names if n not in known]
    if bad or not names:
        raise argparse.ArgumentTypeError(f"expected a comma list of {', '.join(known)}")
    return names


def strict_intent_option(p: argparse.ArgumentParser) -> None:
    """``--strict-intent``: what only upstream's intent forbids fails, also where upstream
    does the same (docs/upstream-deviations.md)."""
    p.add_argument("--strict-intent", action="store_true",
                   help="fail what only upstream's intent forbids, also where upstream does "
                        "the same (a known upstream deviation, docs/upstream-deviations.md)")


def release(text: str) -> str:
    """A supported release from ``vX.Y.Z``, ``vX.Y`` (its newest supported patch), ``X.Y``."""
    try:
        return resolve_release(text)
    except KeyError as e:
        raise argparse.ArgumentTypeError(str(e.args[0])) from None


def release_option(p: argparse.ArgumentParser, *, from_file: bool = False) -> None:
    """``--release``: the upstream release the reference follows and the scenarios name."""
    default = ("the file's own release" if from_file else
               f"{UPSTREAM_RELEASE}, the newest")
    p.add_argument("--release", metavar="vX.Y[.Z]", type=release,
                   default=None if from_file else UPSTREAM_RELEASE,
                   help="the upstream kube-scheduler release whose defaults, feature gates and "
                        f"rules apply ({', '.join(supported_releases())}; vX.Y means its "
                        f"newest supported patch; default: {default}; `kschedconf releases` "
                        "lists them and what differs)")


def subject_options(p: argparse.ArgumentParser, *, from_file: bool = False) -> None:
    release_option(p, from_file=from_file)
    p.add_argument("--subject", metavar="SPEC", default="reference", help=SUBJECT_HELP)
    p.add_argument("--config", metavar="CFG.yaml",
                   help="a KubeSchedulerConfiguration every scenario is scheduled with "
                        "(replaces a generated one; external subjects find it in the scenario "
                        f"file); default: the {UPSTREAM_RELEASE} default profile")
    p.add_argument("--plugins", metavar="MODULE", action="append", default=[],
                   help="a Python file or module with your own plugins for the reference "
                        "subject (repeatable); enable them in --config")
    replaces_option(p)
    p.add_argument("--subject-timeout", metavar="SECONDS", type=positive_float,
                   help="time limit of one scenario: external subjects (default 60), "
                        "upstream (120), real control planes from the scheduler's start (or "
                        "the timeline's last event) until quiet (120)")
    backend_options(p)
    p.add_argument("--i-own-this-cluster", metavar="CONTEXT",
                   help="with --subject kubeconfig:CONTEXT: name the same context to confirm "
                        "it is a throwaway cluster (kind, KWOK) whose nodes and pods "
                        "kschedconf may create and delete")


def replaces_option(p: argparse.ArgumentParser) -> None:
    """``--replaces``: what a plugin of ``--plugins`` stands for, for plugins that cannot be
    edited to declare it (``Plugin.replaces``; conformance/core/replacements.py)."""
    p.add_argument("--replaces", metavar="PLUGIN=IN_TREE[:RULE,...]", action="append",
                   default=[],
                   help="declare that a plugin of --plugins re-implements an in-tree plugin, "
                        "optionally with the rules it changes on purpose (repeatable; e.g. "
                        "MyFit=NodeResourcesFit:ephemeral-storage): the oracles judge it as "
                        "that plugin, and what breaks only those rules is an intended change "
                        "(docs/plugins.md)")


def backend_options(p: argparse.ArgumentParser, *, config: bool = True) -> None:
    """``--scheduler-image`` and ``--scheduler-config``: your kube-scheduler build and
    profile on a real control plane (see :func:`apply_backend_options`)."""
    p.add_argument("--scheduler-image", metavar="IMAGE",
                   help="with the docker subject: the kube-scheduler image to test (your "
                        "build; the same as docker:IMAGE); default "
                        f"registry.k8s.io/kube-scheduler:{UPSTREAM_RELEASE}")
    if config:
        p.add_argument("--scheduler-config", metavar="CFG.yaml",
                       help="with the process or docker subject: the "
                            "KubeSchedulerConfiguration kube-scheduler runs (your profile; "
                            "the same as --config, which the reference side reads too)")


def apply_backend_options(args: argparse.Namespace, attr: str = "subject") -> str | None:
    """Fold ``--scheduler-image`` into the subject spec (``docker:IMAGE``) and
    ``--scheduler-config`` into ``--config``, so rerun and reproduce commands name them the
    one way; the error message when they do not fit the subject, else None."""
    spec = str(getattr(args, attr))
    kind, _, arg = spec.partition(":")
    flag = f"--{attr}"
    image = getattr(args, "scheduler_image", None)
    if image:
        if kind != "docker":
            return (f"--scheduler-image is for {flag} docker (a containerised "
                    f"kube-scheduler), not {spec!r}")
        if arg and arg != image:
            return f"{flag} {spec} and --scheduler-image {image}: give the image once"
        setattr(args, attr, f"docker:{image}")
    cfg = getattr(args, "scheduler_config", None)
    if cfg:
        if kind not in ("process", "docker"):
            return (f"--scheduler-config is for {flag} process or docker (the real "
                    f"kube-scheduler's profile); with {spec!r} use --config")
        if getattr(args, "config", None) and args.config != cfg:
            return f"--config {args.config} and --scheduler-config {cfg}: give it once"
        args.config = cfg
    return None


def report_options(p: argparse.ArgumentParser, cases: str = "every case") -> None:
    """``--junit`` and ``--report``: the files the reporters of a run write (see
    :func:`reporters`)."""
    p.add_argument("--junit", metavar="REPORT.xml",
                   help=f"write a JUnit XML report ({cases}: one test case each)")
    p.add_argument("--report", metavar="REPORT.json",
                   help=f"write the run's RunReport document ({cases}, the summary, the exit "
                        "code; YAML when the name ends in .yaml)")


OUTPUTS = ("table", "json", "yaml")


def output_option(p: argparse.ArgumentParser, document: str = "RunReport") -> None:
    """``--output/-o table|json|yaml``: the lines and summary on stdout (table, the default),
    or the ``document`` on stdout and the lines and summary on stderr."""
    p.add_argument("--output", "-o", choices=OUTPUTS, default="table",
                   help=f"table (default): a line per case and the summary; json / yaml: the "
                        f"{document} document on stdout (schema "
                        f"conformance/core/schemas/{document}.schema.json), the lines and "
                        "summary on stderr")


def err(command: str, message: str) -> int:
    print(f"kschedconf {command}: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def reporters(args: argparse.Namespace, stream: TextIO | None = None) -> EventBus:
    """The reporters of a run: the console on ``stream`` (default stdout; stderr with
    ``--output json|yaml``, whose RunReport document goes to stdout), JUnit XML with
    ``--junit FILE``, the RunReport document with ``--report FILE``."""
    files: list[tuple[str, str]] = []
    extra: list[Reporter] = []
    fmt = getattr(args, "output", None) or "table"
    if fmt in ("json", "yaml") and stream is None:
        extra.append(ReportStreamReporter(sys.stdout, fmt))
        stream = sys.stderr
    if getattr(args, "junit", None):
        extra.append(JUnitReporter(args.junit))
        files.append(("JUnit", args.junit))
    if getattr(args, "report", None):
        extra.append(ReportFileReporter(args.report))
        files.append(("run", args.report))
    console = ConsoleReporter(stream or sys.stdout, report_files=files)
    return EventBus([*extra, console])


def _raise_terminated(signum: int, frame: Any) -> None:
    exc = Terminated(signum)
    request_stop(exc)
    raise exc


def _raise_interrupt(signum: int, frame: Any) -> None:
    exc = KeyboardInterrupt()
    request_stop(exc)
    raise exc


@contextmanager
def signals_end_the_run() -> Iterator[None]:
    """SIGTERM and SIGHUP end the run like Ctrl-C (with the summary so far) while it lasts
    (only the main thread can set handlers; elsewhere the defaults stay). Each stop is also
    recorded (``core.errors.requested_stop``), so that one Python swallowed is raised again."""
    previous: dict[signal.Signals, Any] = {}
    clear_stops()
    try:
        for sig, handler in ((signal.SIGTERM, _raise_terminated),
                             (signal.SIGHUP, _raise_terminated),
                             (signal.SIGINT, _raise_interrupt)):
            previous[sig] = signal.signal(sig, handler)
    except ValueError:  # not the main thread
        pass
    try:
        yield
    finally:
        for sig, prev in previous.items():
            signal.signal(sig, prev)
        clear_stops()
