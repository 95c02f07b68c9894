"""``kschedconf run`` and ``kschedconf reproduce``: their options and handlers, and the options
every command that takes a subject shares."""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import Any, TextIO

from conformance.core.errors import SubjectError
from conformance.core.events import EventBus, Reporter
from conformance.core.exits import EXIT_USAGE
from conformance.engines.properties import parse_shard
from conformance.engines.run import RunOptions, env_profile, reproduce, run
from conformance.reporters.console import ConsoleReporter
from conformance.reporters.junit import JUnitReporter
from conformance.reporters.report_file import ReportFileReporter
from reference_impl.model.errors import InputError
from reference_impl.releases.pinned import UPSTREAM_RELEASE

_SUBJECT_HELP = ("the scheduler under test: reference (default), reference:CONFIG.yaml, "
                 "external:COMMAND... (an executable speaking the file protocol of "
                 "docs/subjects.md), upstream (the real kube-scheduler, built by "
                 "upstream/build.sh), process / docker / kubeconfig:CONTEXT (a real control "
                 "plane, docs/backends.md)")


def _positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if v <= 0:
        raise argparse.ArgumentTypeError("must be positive")
    return v


def _positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if v < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return v


def _shard(text: str) -> tuple[int, int]:
    try:
        return parse_shard(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e).removeprefix(f"--shard {text!r}: ")) from None


def _sizes(text: str) -> list[str]:
    names = [s.strip() for s in text.split(",") if s.strip()]
    known = ("small", "medium", "large")
    bad = [n for n in names if n not in known]
    if bad or not names:
        raise argparse.ArgumentTypeError(f"expected a comma list of {', '.join(known)}")
    return names


def _subject_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--subject", metavar="SPEC", default="reference", help=_SUBJECT_HELP)
    p.add_argument("--config", metavar="CFG.yaml",
                   help="a KubeSchedulerConfiguration every scenario is scheduled with "
                        "(replaces a generated one; external subjects find it in the scenario "
                        f"file); default: the {UPSTREAM_RELEASE} default profile")
    p.add_argument("--plugins", metavar="MODULE", action="append", default=[],
                   help="a Python file or module with your own plugins for the reference "
                        "subject (repeatable); enable them in --config")
    p.add_argument("--subject-timeout", metavar="SECONDS", type=_positive_float,
                   help="time limit of one scenario: external subjects (default 60), "
                        "upstream (120), real control planes from the scheduler's start "
                        "until quiet (120)")
    backend_options(p)
    p.add_argument("--i-own-this-cluster", metavar="CONTEXT",
                   help="with --subject kubeconfig:CONTEXT: name the same context to confirm "
                        "it is a throwaway cluster (kind, KWOK) whose nodes and pods "
                        "kschedconf may create and delete")


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


def add_run_parsers(subparsers: Any) -> None:
    """Add ``run`` and ``reproduce`` to the ``kschedconf`` sub-command parsers."""
    run = subparsers.add_parser(
        "run", help="run the conformance suites (properties, golden) against a subject",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=textwrap.dedent(f"""\
            Run the conformance suites against a subject (by default the reference scheduler,
            upstream kube-scheduler {UPSTREAM_RELEASE}).

            properties: for every scenario size and every oracle, Hypothesis generates
              scenarios, the subject schedules each, the oracle checks an invariant; a
              violation is shrunk to a minimal counterexample written as a scenario file
              under --out, replayable with `kschedconf reproduce`.
            golden: the scenarios of golden/AREA/NAME.yaml, whose decisions were recorded
              from upstream, must be scheduled the same way (docs/golden.md).

            Each property stops at --max-examples or at its share of --budget. Profiles:
            dev (25 examples, small clusters, failures remembered in .hypothesis/), ci (100
            examples, small and medium clusters, deterministic), thorough (1000 examples, up
            to 150 nodes); default: ci when $CI is set, else dev. A progress line per
            property, then a summary; --junit writes a JUnit XML report for CI."""),
        epilog=textwrap.dedent("""\
            examples:
              kschedconf run --max-examples 20
              kschedconf run --profile ci --seed 1 --junit report.xml
              kschedconf run --subject external:'./my-scheduler --fast' --budget 600
              kschedconf run --config my-profile.yaml --plugins my_plugins.py
              kschedconf run --shard 2/4 --profile ci     # 4 CI jobs, this is the 2nd
              kschedconf run --subject process --suite all --budget 600
              kschedconf run --subject docker --scheduler-image me/kube-scheduler:dev \
                  --scheduler-config my-profile.yaml --suite all --budget 900
              kschedconf run --subject kubeconfig:kind-test --i-own-this-cluster kind-test
              kschedconf reproduce kschedconf-out/<property>.yaml

            exit codes: 0 all passed, 1 some property or golden scenario failed,
            2 usage error or subject error (crash, timeout, invalid output)"""))
    run.add_argument("--suite", choices=("properties", "golden", "all"), default="properties",
                     help="which suite (default properties)")
    _subject_options(run)
    run.add_argument("--oracle", metavar="NAME", nargs="+", action="extend", default=[],
                     help="only these oracles (default: all)")
    run.add_argument("--sizes", metavar="LIST", type=_sizes,
                     help="scenario sizes, a comma list of small, medium, large "
                          "(default: the profile's)")
    run.add_argument("--max-examples", metavar="N", type=_positive_int,
                     help="examples per property (default: the profile's)")
    run.add_argument("--budget", metavar="SECONDS", type=_positive_float,
                     help="time for all properties, split evenly (what a property leaves "
                          "goes to the next); default: no limit")
    run.add_argument("--seed", type=int,
                     help="derandomize: the same seed generates the same scenarios "
                          "(default: random; the ci profile is deterministic anyway)")
    run.add_argument("--profile", choices=("dev", "ci", "thorough"),
                     help="Hypothesis settings profile (default: ci if $CI is set, else dev)")
    run.add_argument("--no-database", action="store_true",
                     help="do not read or write the Hypothesis example database "
                          "(.hypothesis/)")
    run.add_argument("--no-shrink", action="store_true",
                     help="report the first failure found without minimizing it")
    run.add_argument("--shard", metavar="K/N", type=_shard,
                     help="run only the K-th of N shards of the property list (for parallel "
                          "CI jobs; on one machine, use the pytest plugin with pytest-xdist, "
                          "`pytest -n auto`, to use every core)")
    run.add_argument("--junit", metavar="REPORT.xml", help="write a JUnit XML report")
    run.add_argument("--report", metavar="REPORT.json",
                     help="write the run's RunReport document (every case, the summary, the "
                          "exit code; YAML when the name ends in .yaml)")
    run.add_argument("--out", metavar="DIR", default="kschedconf-out",
                     help="where counterexamples are written (default kschedconf-out/)")
    run.add_argument("--golden-dir", metavar="DIR",
                     help="directory of golden scenarios (default: those installed with "
                          "kschedconf)")

    rep = subparsers.add_parser(
        "reproduce", help="replay a counterexample or golden scenario file on a subject",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=textwrap.dedent("""\
            Replay a scenario file (a counterexample written by `kschedconf run`, a golden
            scenario, or any scenario) on a subject, apply the oracles and print the
            subject's bindings and every violation. Oracles: --oracle, else the one named in
            the file's `oracle:` note (ScenarioInfo notes, or a `# oracle:` comment line of
            the old form), else all. A golden file's recorded decisions are compared as
            well."""),
        epilog=textwrap.dedent("""\
            examples:
              kschedconf reproduce kschedconf-out/<property>.yaml
              kschedconf reproduce case.yaml --subject external:./my-scheduler --oracle NAME

            exit codes: 0 no violation, 1 violations (or different decisions), 2 usage or
            subject error"""))
    rep.add_argument("file", metavar="FILE", help="the scenario YAML file")
    _subject_options(rep)
    rep.add_argument("--oracle", metavar="NAME", nargs="+", action="extend", default=[],
                     help="the oracles to apply (default: the file's, else all)")


def _err(command: str, message: str) -> int:
    print(f"kschedconf {command}: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def reporters(args: argparse.Namespace, stream: TextIO | None = None,
              junit_name: str = "kschedconf") -> EventBus:
    """The reporters of a run: the console on ``stream`` (stdout), JUnit XML with
    ``--junit FILE``, the RunReport document with ``--report FILE``."""
    files: list[tuple[str, str]] = []
    extra: list[Reporter] = []
    if getattr(args, "junit", None):
        extra.append(JUnitReporter(args.junit, junit_name))
        files.append(("JUnit", args.junit))
    if getattr(args, "report", None):
        extra.append(ReportFileReporter(args.report))
        files.append(("run", args.report))
    console = ConsoleReporter(stream or sys.stdout, report_files=files)
    return EventBus([*extra, console])


def cmd_run(args: argparse.Namespace) -> int:
    problem = apply_backend_options(args)
    if problem:
        return _err("run", problem)
    opts = RunOptions(
        suite=args.suite, subject=args.subject, config=args.config, plugins=list(args.plugins),
        oracles=list(args.oracle), families=list(args.sizes or ()),
        max_examples=args.max_examples, budget=args.budget, seed=args.seed,
        profile=args.profile or env_profile(), database=not args.no_database,
        shard=args.shard, out=args.out, junit=args.junit, golden_dir=args.golden_dir,
        subject_timeout=args.subject_timeout, shrink=not args.no_shrink,
        i_own_this_cluster=args.i_own_this_cluster)
    try:
        report = run(opts, reporters(args))
    except SubjectError as e:
        return _err("run", f"subject error: {e}")
    except ValueError as e:  # UsageError and option validation
        return _err("run", str(e))
    if report.error:
        print(f"kschedconf run: subject error: {report.error.splitlines()[0]}", file=sys.stderr)
    return report.exit_code


def cmd_reproduce(args: argparse.Namespace) -> int:
    problem = apply_backend_options(args)
    if problem:
        return _err("reproduce", problem)
    try:
        outcome = reproduce(args.file, args.subject, list(args.oracle),
                                   config=args.config, plugins=list(args.plugins),
                                   timeout=args.subject_timeout,
                                   i_own_this_cluster=args.i_own_this_cluster)
    except SubjectError as e:
        return _err("reproduce", f"subject error: {e}")
    except (ValueError, InputError) as e:  # ConfigError is a ValueError
        return _err("reproduce", str(e))
    return outcome.exit_code


RUN_COMMANDS = {"run": cmd_run, "reproduce": cmd_reproduce}
