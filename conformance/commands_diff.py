"""``kschedconf diff`` and ``kschedconf golden``: argument parsing and handlers.

``add_diff_parsers(subparsers)`` adds both sub-commands to the ``kschedconf`` parser;
``DIFF_COMMANDS`` maps their names to the handlers (``args -> exit code``).

``kschedconf golden`` manages the golden scenarios (``golden/AREA/NAME.yaml``, docs/golden.md):
``record`` (re-)records their decisions from the upstream subject, from the definitions of
``golden/definitions/``, showing which decisions changed before writing anything (``--yes``
writes); ``verify`` checks a subject (the reference by default) against the recorded decisions,
without Go; ``list`` shows them.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import textwrap
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from conformance.cli.run import apply_backend_options, backend_options
from conformance.core.errors import SubjectError
from conformance.core.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from conformance.core.results import FAILED, CaseResult
from conformance.core.subject import Subject
from conformance.engines.golden import (
    GOLDEN_KIND,
    compare_golden,
    default_golden_dir,
    golden_files,
    golden_header,
    golden_name,
    read_scenario_file,
    select_golden,
)
from conformance.engines.golden_record import load_definitions, record
from conformance.engines.golden_record import write as write_recording
from conformance.reporters.junit import write_junit
from conformance.subjects.factory import make_subject
from reference_impl.releases.pinned import UPSTREAM_RELEASE


def _positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if v <= 0:
        raise argparse.ArgumentTypeError("must be positive")
    return v


def _count(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if v < 0:
        raise argparse.ArgumentTypeError("must not be negative")
    return v


def _positive_int(text: str) -> int:
    v = _count(text)
    if v < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return v


def _sizes(text: str) -> Any:
    from conformance.diff import UsageError, parse_sizes

    try:
        return parse_sizes(text)
    except UsageError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_diff_parsers(subparsers: Any) -> None:
    """Add ``diff`` and ``golden`` to the ``kschedconf`` sub-command parsers."""
    d = subparsers.add_parser(
        "diff", help="differential testing: the reference against the real upstream scheduler",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=textwrap.dedent(f"""\
            Schedule the same scenarios on the reference and on the real upstream
            kube-scheduler {UPSTREAM_RELEASE} (upstream/bin/kschedconf-upstream, built by
            `bash upstream/build.sh`) and compare what they decide.

            whole: each side runs the whole scenario; attempts (outcome, node, reasons,
              message, nominated node, victims, tie set, evaluated/feasible nodes, time,
              queue) and the end state (bindings, pending, deleted...) are compared.
            lockstep: for every attempt of upstream's run, both sides explain the pod on the
              same cluster (every filter's code and reasons on every node, raw/normalized/
              weighted scores, the highest-scored set, preemption candidates and victims);
              then upstream's actual outcome is applied to both, so nothing cascades.
            decisions: for a real control plane (--upstream process, docker,
              kubeconfig:CONTEXT), which shows only what the API shows: its result is
              judged by every invariant oracle, and its decisions (bindings, pending pods,
              victims, nominations, pending pods' messages, timeline) must equal the
              reference's unless the scenario has a timing hazard (retries racing
              asynchronous bindings, namespace order of equal-priority pods, batching,
              wall-clock timers, random preemption ties; docs/backends.md), reported apart.

            A binding that differs only within the tie set is a tie-break difference,
            reported apart (expected: 0). Divergences listed in
            conformance/known_divergences.yaml are reported as known. Each kind of
            unexplained divergence is shrunk by Hypothesis to a minimal scenario, written to
            --out with its replay command (`kschedconf diff --replay FILE`)."""),
        epilog=textwrap.dedent("""\
            examples:
              kschedconf diff --scenarios 50 --seed 1
              kschedconf diff --scenarios 240 --sizes small=120,medium=100,large=20 --golden
              kschedconf diff --golden --scenarios 0 --mode lockstep --junit diff.xml
              kschedconf diff --replay kschedconf-out/diff-lockstep-nodes-filters-reasons.yaml
              kschedconf diff --upstream process --scenarios 60 --golden --seed 1

            exit codes: 0 no unexplained divergence, 1 some, 2 usage or subject error"""))
    d.add_argument("--scenarios", metavar="N", type=_count, default=20,
                   help="generated scenarios in all (split over --sizes; default 20)")
    d.add_argument("--sizes", metavar="LIST", type=_sizes, default=["small"],
                   help="scenario sizes: a comma list of small, medium, large (--scenarios "
                        "split evenly), or counts: small=100,medium=40,large=5 "
                        "(default small)")
    d.add_argument("--golden", action="store_true",
                   help="compare the golden scenarios (golden/*.yaml) too")
    d.add_argument("--golden-dir", metavar="DIR", help="directory of golden scenarios")
    d.add_argument("--seed", type=int,
                   help="the same seed generates the same scenarios (default: random, printed)")
    d.add_argument("--budget", metavar="SECONDS", type=_positive_float,
                   help="stop generating scenarios after this time (shrinking comes after)")
    d.add_argument("--mode", choices=("auto", "lockstep", "whole", "both", "decisions"),
                   default="auto",
                   help="which comparison: both = whole + lockstep; auto (default) = both, "
                        "or decisions when --upstream is a real control plane (process, "
                        "docker, kubeconfig:CONTEXT)")
    d.add_argument("--config", metavar="CFG.yaml",
                   help="schedule every scenario with this KubeSchedulerConfiguration")
    d.add_argument("--junit", metavar="REPORT.xml", help="write a JUnit XML report")
    d.add_argument("--out", metavar="DIR", default="kschedconf-out",
                   help="where minimal scenarios are written (default kschedconf-out/)")
    d.add_argument("--replay", metavar="FILE",
                   help="compare one scenario file (a minimal scenario, a golden scenario...) "
                        "and print every divergence")
    d.add_argument("--no-shrink", action="store_true",
                   help="save the first diverging scenarios without minimizing them")
    d.add_argument("--shrink-time", metavar="SECONDS", type=_positive_float, default=120.0,
                   help="time to shrink each diverging scenario (default 120)")
    d.add_argument("--upstream", metavar="SPEC", default="upstream",
                   help="the other side: upstream (default; upstream:BINARY for another "
                        "build), or any subject spec of `kschedconf run` (whole mode only)")
    d.add_argument("--known", metavar="FILE",
                   help="known divergences (default conformance/known_divergences.yaml)")
    d.add_argument("--workers", metavar="N", type=_positive_int, default=4,
                   help="upstream serve processes working at once (default 4)")
    d.add_argument("--max-steps", metavar="N", type=_positive_int,
                   help="lockstep: at most N explained attempts per scenario (default all)")
    d.add_argument("--subject-timeout", metavar="SECONDS", type=_positive_float,
                   help="time limit of one upstream request (default 120); with a real "
                        "control plane, of one scenario from the scheduler's start (120)")
    backend_options(d)
    d.add_argument("--pdb-status", choices=("fill", "as-is"), default="fill",
                   help="PodDisruptionBudgets without status.disruptionsAllowed: fill it in "
                        "as the disruption controller would for the initial cluster (default; "
                        "the upstream subject has no disruption controller), or leave them "
                        "as they are")
    d.add_argument("--i-own-this-cluster", metavar="CONTEXT",
                   help="with kubeconfig:CONTEXT: name the same context to confirm it is a "
                        "throwaway cluster kschedconf may create and delete objects in")

    g = subparsers.add_parser(
        "golden", help="record (from upstream) or verify the golden scenarios",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=textwrap.dedent("""\
            Golden scenarios (golden/AREA/NAME.yaml, named AREA/NAME) are scenarios whose
            decisions (bindings, pending pods, preemption victims) were recorded from the real
            upstream scheduler. Their inputs are built by golden/definitions/ from readable
            definitions. The format: docs/golden.md.

            record: schedule the definitions on the upstream subject, show every decision
              that changed against the files, and write them with --yes (needs the upstream
              binary: `bash upstream/build.sh`).
            verify: schedule every golden file on a subject (default: the reference) and
              compare with the recorded decisions; needs no Go.
            list: the golden scenarios and what they cover."""),
        epilog=textwrap.dedent("""\
            examples:
              kschedconf golden verify
              kschedconf golden verify --subject external:'./my-scheduler'
              kschedconf golden verify --only fit/cpu-memory
              kschedconf golden record --only preemption/pdb      # shows the changes
              kschedconf golden record --yes                      # writes every file

            exit codes: 0 ok (verify: every decision equal), 1 differences (record without
            --yes: some decisions changed), 2 usage or subject error"""))
    gsub = g.add_subparsers(dest="golden_command", metavar="ACTION")
    rec = gsub.add_parser("record", help="(re-)record the decisions from upstream")
    rec.add_argument("--only", metavar="AREA/NAME", action="append", default=[],
                     help="only these scenarios (repeatable; default all)")
    rec.add_argument("--yes", action="store_true", help="write the files")
    rec.add_argument("--force", action="store_true",
                     help="rewrite unchanged files too (new provenance)")
    rec.add_argument("--golden-dir", metavar="DIR", help="directory of golden scenarios")
    rec.add_argument("--upstream", metavar="SPEC", default="upstream",
                     help="the subject decisions are recorded from (default upstream)")
    rec.add_argument("--subject-timeout", metavar="SECONDS", type=_positive_float,
                     help="time limit of one upstream request")
    rec.add_argument("--i-own-this-cluster", metavar="CONTEXT",
                     help="with kubeconfig:CONTEXT: name the same context to confirm it is a "
                          "throwaway cluster kschedconf may create and delete objects in")
    ver = gsub.add_parser("verify", help="check a subject against the recorded decisions")
    ver.add_argument("--subject", metavar="SPEC", default="reference",
                     help="the subject (default reference)")
    ver.add_argument("--only", metavar="AREA/NAME", action="append", default=[],
                     help="only these scenarios (repeatable)")
    ver.add_argument("--golden-dir", metavar="DIR", help="directory of golden scenarios")
    ver.add_argument("--junit", metavar="REPORT.xml", help="write a JUnit XML report")
    ver.add_argument("--subject-timeout", metavar="SECONDS", type=_positive_float,
                     help="time limit of one scenario (external subjects, real control "
                          "planes)")
    backend_options(ver, config=False)
    ver.add_argument("--i-own-this-cluster", metavar="CONTEXT",
                     help="with kubeconfig:CONTEXT: name the same context to confirm it is a "
                          "throwaway cluster kschedconf may create and delete objects in")
    lst = gsub.add_parser("list", help="list the golden scenarios")
    lst.add_argument("--golden-dir", metavar="DIR", help="directory of golden scenarios")


def _err(command: str, message: str) -> int:
    print(f"kschedconf {command}: error: {message}", file=sys.stderr)
    return EXIT_USAGE


# --- diff --------------------------------------------------------------------------------------

def cmd_diff(args: argparse.Namespace) -> int:
    from conformance import diff

    problem = apply_backend_options(args, "upstream")
    if problem:
        return _err("diff", problem)

    opts = diff.DiffOptions(
        scenarios=args.scenarios, sizes=args.sizes, golden=args.golden,
        golden_dir=args.golden_dir, seed=args.seed, budget=args.budget, junit=args.junit,
        out=args.out, config=args.config, mode=args.mode, shrink=not args.no_shrink,
        shrink_time=args.shrink_time, upstream=args.upstream, known=args.known,
        max_steps=args.max_steps, subject_timeout=args.subject_timeout, replay=args.replay,
        workers=args.workers, pdb_status=args.pdb_status,
        i_own_this_cluster=args.i_own_this_cluster)
    try:
        report = diff.replay(opts) if args.replay else diff.run_diff(opts)
    except ValueError as e:  # diff.UsageError, UsageError
        return _err("diff", str(e))
    if report.error:
        print(f"kschedconf diff: subject error: {report.error.splitlines()[0]}",
              file=sys.stderr)
    return report.exit_code


# --- golden ------------------------------------------------------------------------------------

def golden_dir(arg: str | None) -> Path:
    return Path(arg) if arg else default_golden_dir()


def cmd_golden_record(args: argparse.Namespace) -> int:
    directory = golden_dir(args.golden_dir)
    try:
        defs = load_definitions(directory)
    except (ValueError, OSError, ImportError, SyntaxError) as e:
        return _err("golden record", str(e))
    unknown = [n for n in args.only if n not in defs]
    if unknown:
        return _err("golden record", f"no golden definition named {', '.join(unknown)} "
                                     f"(known: {', '.join(sorted(defs))})")
    names = [n for n in defs if not args.only or n in args.only]
    command = "kschedconf golden record" + "".join(f" --only {shlex.quote(n)}"
                                                   for n in args.only) + " --yes" + (
        " --force" if args.force else "")
    if args.upstream != "upstream":
        command += f" --upstream {shlex.quote(args.upstream)}"
    try:
        subject = make_subject(args.upstream, timeout=args.subject_timeout,
                               i_own_this_cluster=args.i_own_this_cluster)
    except (SubjectError, ValueError) as e:
        return _err("golden record", str(e))
    t0 = time.monotonic()
    with subject:
        print(f"recording {len(names)} golden scenario(s) from {subject.name} "
              f"(kube-scheduler {subject.release or 'unknown'}) into {directory}/")
        try:
            found = record(subject, directory, names, defs, command, force=args.force,
                           say=print)
        except SubjectError:
            return EXIT_USAGE
    print(f"{len(names)} scenario(s) in {time.monotonic() - t0:.1f}s: {len(found.writes)} new "
          "or changed" + (f", {found.random} skipped (random upstream choice)"
                          if found.random else ""))
    if not found.writes:
        return EXIT_FAILED if found.random else EXIT_OK
    if not args.yes:
        print("nothing written: run again with --yes to write these files")
        return EXIT_FAILED
    write_recording(found, print)
    return EXIT_FAILED if found.random else EXIT_OK


def verify_golden(subject: Subject, directory: Path, files: Sequence[Path],
                  stream: TextIO | None = None) -> list[tuple[str, Path, list[str], float]]:
    """Run every golden file on the subject: (name AREA/NAME, file, differences, seconds). A
    golden file without decisions is a difference; a subject crash is a difference naming
    it."""
    out = []
    for path in files:
        name = golden_name(path, directory)
        t0 = time.monotonic()
        scenario, decisions, _ = read_scenario_file(path)
        if decisions is None:
            diffs = [f"{path}: no {GOLDEN_KIND} document"]
        else:
            try:
                result = subject.run(scenario).result
            except SubjectError:
                raise
            except Exception as e:  # noqa: BLE001 - a crash of an in-process subject
                diffs = [f"{subject.name} raised {type(e).__name__}: {e}"]
            else:
                diffs = compare_golden(decisions, result)
        secs = time.monotonic() - t0
        out.append((name, path, diffs, secs))
        if stream is not None:
            word = "ok   " if not diffs else "FAIL "
            stream.write(f"  {word} {name}  {secs:.2f}s"
                         + (f"  {diffs[0]}" if diffs else "") + "\n")
            for d in diffs[1:]:
                stream.write(f"          {d}\n")
    return out


def cmd_golden_verify(args: argparse.Namespace) -> int:
    directory = golden_dir(args.golden_dir)
    try:
        files = golden_files(directory)
        if args.only:
            files = select_golden(files, directory, args.only)
    except ValueError as e:
        return _err("golden verify", str(e))
    problem = apply_backend_options(args)
    if problem:
        return _err("golden verify", problem)
    try:
        subject = make_subject(args.subject, timeout=args.subject_timeout,
                               i_own_this_cluster=args.i_own_this_cluster)
    except (SubjectError, ValueError) as e:
        return _err("golden verify", str(e))
    t0 = time.monotonic()
    try:
        with subject:
            print(golden_header(subject, files, directory))
            results = verify_golden(subject, directory, files, sys.stdout)
    except SubjectError as e:
        return _err("golden verify", f"subject error: {e}")
    bad = [r for r in results if r[2]]
    print(f"{len(results)} golden scenarios: {len(results) - len(bad)} passed, {len(bad)} "
          f"failed in {time.monotonic() - t0:.1f}s")
    if args.junit:
        cases = []
        for name, path, diffs, secs in results:
            c = CaseResult("golden", "kschedconf.golden", name, seconds=secs,
                           properties={"file": str(path)})
            if diffs:
                c.status, c.message, c.details = FAILED, diffs[0], "\n".join(diffs)
            cases.append(c)
        write_junit(args.junit, cases, {"subject.spec": args.subject,
                                        "upstream.release": UPSTREAM_RELEASE})
        print(f"JUnit report: {args.junit}")
    return EXIT_FAILED if bad else EXIT_OK


def cmd_golden_list(args: argparse.Namespace) -> int:
    directory = golden_dir(args.golden_dir)
    try:
        files = golden_files(directory)
    except ValueError as e:
        return _err("golden list", str(e))
    for path in files:
        scenario, decisions, _ = read_scenario_file(path)
        rec = decisions.upstream_release if decisions else "no decisions"
        print(f"{golden_name(path, directory):<45} {rec:<10} {scenario.covers}")
    return EXIT_OK


def cmd_golden(args: argparse.Namespace) -> int:
    handler = {"record": cmd_golden_record, "verify": cmd_golden_verify,
               "list": cmd_golden_list}.get(args.golden_command or "")
    if handler is None:
        return _err("golden", "choose an action: record, verify or list")
    try:
        return handler(args)
    except ValueError as e:
        return _err(f"golden {args.golden_command}", str(e))


DIFF_COMMANDS = {"diff": cmd_diff, "golden": cmd_golden}


def main(argv: list[str] | None = None) -> int:
    """``diff`` and ``golden`` alone (``python -m conformance.commands_diff``); the
    ``kschedconf`` command registers them with ``add_diff_parsers``."""
    parser = argparse.ArgumentParser(prog="kschedconf")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    add_diff_parsers(sub)
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return EXIT_USAGE
    try:
        return DIFF_COMMANDS[args.command](args)
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
