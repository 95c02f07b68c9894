"""``kschedconf diff`` and ``kschedconf golden``: argument parsing and handlers.

``add_diff_parsers(subparsers)`` adds both sub-commands to the ``kschedconf`` parser;
``DIFF_COMMANDS`` maps their names to the handlers (``args -> exit code``).

``kschedconf golden`` manages the golden scenarios (``golden/*.yaml``): ``record`` (re-)records
their decisions from the upstream subject, from the definitions of ``golden/generate.py``,
showing which decisions changed before writing anything (``--yes`` writes); ``verify`` checks
a subject (the reference by default) against the recorded decisions, without Go; ``list``
shows them.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib.util
import shlex
import sys
import textwrap
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from conformance.commands_run import apply_backend_options, backend_options
from conformance.core.errors import UsageError
from conformance.core.events import EventBus, Reporter
from conformance.core.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from conformance.core.subject import Subject
from conformance.engines.diff import MODE_CHOICES, DiffOptions, parse_sizes, replay, run_diff
from conformance.reporters.console import ConsoleReporter
from conformance.reporters.junit import JUnitReporter
from conformance.runner import make_subject
from conformance.subjects.upstream import UpstreamSubject
from reference_impl.releases.pinned import UPSTREAM_RELEASE

GENERATOR = "generate.py"


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

            exit codes: 0 no unexplained divergence, 1 some, 2 usage or subject error,
            130 interrupted (128 + the signal)"""))
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
    d.add_argument("--mode", choices=MODE_CHOICES,
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
            Golden scenarios (golden/*.yaml) are scenarios whose decisions (bindings, pending
            pods, preemption victims) were recorded from the real upstream scheduler. Their
            inputs are built by golden/generate.py from readable definitions.

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
              kschedconf golden record --only preemption-pdb      # shows the changes
              kschedconf golden record --yes                      # writes every file

            exit codes: 0 ok (verify: every decision equal), 1 differences (record without
            --yes: some decisions changed), 2 usage or subject error"""))
    gsub = g.add_subparsers(dest="golden_command", metavar="ACTION")
    rec = gsub.add_parser("record", help="(re-)record the decisions from upstream")
    rec.add_argument("--only", metavar="NAME", action="append", default=[],
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
    ver.add_argument("--only", metavar="NAME", action="append", default=[],
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
    """``kschedconf diff``: the run (or ``--replay``) reported on the console and, with
    ``--junit``, in a JUnit file."""
    problem = apply_backend_options(args, "upstream")
    if problem:
        return _err("diff", problem)
    opts = DiffOptions(
        scenarios=args.scenarios, sizes=args.sizes, golden=args.golden,
        golden_dir=args.golden_dir, seed=args.seed, budget=args.budget, out=args.out,
        config=args.config, mode=args.mode, shrink=not args.no_shrink,
        shrink_time=args.shrink_time, upstream=args.upstream, known=args.known,
        max_steps=args.max_steps, replay=args.replay, workers=args.workers,
        pdb_status=args.pdb_status)

    def other() -> Subject:
        subject = make_subject(args.upstream, timeout=args.subject_timeout,
                               i_own_this_cluster=args.i_own_this_cluster)
        if isinstance(subject, UpstreamSubject):
            subject.workers = max(1, args.workers)
        return subject

    reporters: list[Reporter] = []
    if args.junit:
        reporters.append(JUnitReporter(args.junit))
    reporters.append(ConsoleReporter(sys.stdout, report_files=[("JUnit", args.junit)]
                                     if args.junit else ()))
    bus = EventBus(reporters)
    try:
        report = replay(opts, bus, other) if args.replay else run_diff(opts, bus, other)
    except ValueError as e:  # UsageError, a golden file that cannot be read
        return _err("diff", str(e))
    summary = report.summary
    if summary.interrupted:
        print("kschedconf diff: " + ("interrupted" if summary.interrupted == "Ctrl-C" else
                                     f"terminated by {summary.interrupted}"), file=sys.stderr)
    elif report.error:
        print(f"kschedconf diff: subject error: {report.error.splitlines()[0]}",
              file=sys.stderr)
    return report.exit_code


# --- golden ------------------------------------------------------------------------------------

def golden_dir(arg: str | None) -> Path:
    from conformance import suites

    return Path(arg) if arg else suites.default_golden_dir()


def load_definitions(directory: Path) -> dict[str, Any]:
    """The golden scenario definitions of ``DIR/generate.py``: its ``definitions()``, a
    mapping name -> ``Golden`` (``.scenario()``: the ScenarioInput; ``.covers``)."""
    path = directory / GENERATOR
    if not path.is_file():
        raise ValueError(f"{path}: no such file (the golden scenario definitions)")
    spec = importlib.util.spec_from_file_location("kschedconf_golden_generate", path)
    if spec is None or spec.loader is None:
        raise ValueError(f"{path}: cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    defs = module.definitions()
    if not isinstance(defs, Mapping):
        raise ValueError(f"{path}: definitions() must return a mapping name -> definition")
    return dict(defs)


def decisions_doc(decisions: Any, recorded_at: str, command: str) -> dict[str, Any]:
    """The GoldenDecisions document with its provenance (``recordedAt``, ``recordedWith``)."""
    doc = decisions.to_doc()
    out: dict[str, Any] = {}
    for k, v in doc.items():
        out[k] = v
        if k == "source":
            out["recordedAt"] = recorded_at
            out["recordedWith"] = command
    return out


def write_golden(path: Path, scenario: Any, doc: Mapping[str, Any]) -> None:
    import yaml

    scenario.write(path)
    with path.open("a", encoding="utf-8") as f:
        yaml.safe_dump(dict(doc), f, sort_keys=False, explicit_start=True)


def _decision_changes(old: Any, new: Any) -> list[str]:
    """What changed between two GoldenDecisions (``old`` may be None: a new file)."""
    if old is None:
        return ["new golden scenario"]
    out = []
    for pod in sorted(set(old.bindings) | set(new.bindings)):
        a, b = old.bindings.get(pod), new.bindings.get(pod)
        if a != b:
            out.append(f"{pod}: {a or 'not bound'} -> {b or 'not bound'}")
    for pod in sorted(set(old.pending) ^ set(new.pending)):
        out.append(f"{pod}: {'no longer pending' if pod in old.pending else 'now pending'}")
    od, nd = set(old.deleted or []), set(new.deleted or [])
    for pod in sorted(od ^ nd):
        out.append(f"{pod}: {'no longer preempted' if pod in od else 'now preempted'}")
    return out


def cmd_golden_record(args: argparse.Namespace) -> int:
    from conformance import suites
    from conformance.core.subject import SubjectError
    from conformance.runner import make_subject

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
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d")
    try:
        subject = make_subject(args.upstream, timeout=args.subject_timeout,
                               i_own_this_cluster=args.i_own_this_cluster)
    except (SubjectError, ValueError) as e:
        return _err("golden record", str(e))
    release = getattr(subject, "release", UPSTREAM_RELEASE)
    changed = random = 0
    pending_writes: list[tuple[Path, Any, dict[str, Any]]] = []
    t0 = time.monotonic()
    with subject:
        print(f"recording {len(names)} golden scenario(s) from {subject.name} "
              f"(kube-scheduler {release}) into {directory}/")
        for name in names:
            definition = defs[name]
            scenario = definition.scenario()
            path = directory / f"{name}.yaml"
            try:
                sim = getattr(subject, "simulate", None)
                if callable(sim):
                    result = sim(scenario, notes=True)
                else:
                    result = subject.run(scenario).result
            except SubjectError as e:
                print(f"  ERROR {name}: {e}")
                return EXIT_USAGE
            notes = [n for n in result.pop("notes", None) or []]
            rnd = [n for n in notes if "random" in n]
            if rnd:
                random += 1
                print(f"  SKIP  {name}: upstream's choice was random, not a golden scenario:")
                for n in rnd:
                    print(f"          {n}")
                continue
            new = suites.GoldenDecisions.from_result(result, source=(
                f"kschedconf-upstream serve: kube-scheduler {release} in process "
                f"(fake API server, virtual clock), seed {scenario.seed}"))
            new.upstream_release = release
            old_inputs = old = None
            if path.exists():
                try:
                    old_scenario, old, _ = suites.read_scenario_file(path)
                    old_inputs = (old_scenario.documents, old_scenario.config,
                                  old_scenario.seed)
                except ValueError:
                    old = None
            changes = _decision_changes(old, new)
            inputs_changed = old is not None and old_inputs != (
                scenario.documents, scenario.config, scenario.seed)
            if old is not None and old.upstream_release != new.upstream_release:
                changes.append(f"upstream release {old.upstream_release} -> "
                               f"{new.upstream_release}")
            if inputs_changed:
                changes.append("scenario inputs changed")
            if not changes and not args.force:
                print(f"  same  {name}")
                continue
            if not changes:
                changes = ["unchanged (rewritten: --force)"]
            changed += 1
            print(f"  {'new' if old is None else 'CHANGED'}  {name}")
            for c in changes:
                print(f"          {c}")
            pending_writes.append((path, scenario, decisions_doc(new, now, command)))
    print(f"{len(names)} scenario(s) in {time.monotonic() - t0:.1f}s: {changed} new or changed"
          + (f", {random} skipped (random upstream choice)" if random else ""))
    if not pending_writes:
        return EXIT_FAILED if random else EXIT_OK
    if not args.yes:
        print("nothing written: run again with --yes to write these files")
        return EXIT_FAILED
    for path, scenario, doc in pending_writes:
        write_golden(path, scenario, doc)
        print(f"  wrote {path}")
    return EXIT_FAILED if random else EXIT_OK


def verify_golden(subject: Any, files: Sequence[Path], stream: Any = None
                  ) -> list[tuple[Path, list[str], float]]:
    """Run every golden file on the subject: (file, differences, seconds). A golden file
    without decisions is a difference; a subject crash is a difference naming it."""
    from conformance import suites
    from conformance.core.subject import SubjectError

    out = []
    for path in files:
        t0 = time.monotonic()
        scenario, decisions, _ = suites.read_scenario_file(path)
        if decisions is None:
            diffs = [f"{path}: no {suites.GOLDEN_KIND} document"]
        else:
            try:
                result = subject.run(scenario).result
            except SubjectError:
                raise
            except Exception as e:  # noqa: BLE001 - a crash of an in-process subject
                diffs = [f"{subject.name} raised {type(e).__name__}: {e}"]
            else:
                diffs = suites.compare_golden(decisions, result)
        secs = time.monotonic() - t0
        out.append((path, diffs, secs))
        if stream is not None:
            word = "ok   " if not diffs else "FAIL "
            stream.write(f"  {word} {path.stem}  {secs:.2f}s"
                         + (f"  {diffs[0]}" if diffs else "") + "\n")
            for d in diffs[1:]:
                stream.write(f"          {d}\n")
    return out


def cmd_golden_verify(args: argparse.Namespace) -> int:
    from conformance import suites
    from conformance.core.results import FAILED, CaseResult
    from conformance.core.subject import SubjectError, describe_subject
    from conformance.reporters.junit import write_junit
    from conformance.runner import make_subject

    directory = golden_dir(args.golden_dir)
    try:
        files = suites.golden_files(directory)
    except ValueError as e:
        return _err("golden verify", str(e))
    if args.only:
        stems = {p.stem for p in files}
        unknown = [n for n in args.only if n not in stems]
        if unknown:
            return _err("golden verify", f"no golden file named {', '.join(unknown)} in "
                                         f"{directory}")
        files = [p for p in files if p.stem in args.only]
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
            print(f"verifying {len(files)} golden scenario(s) of {directory}/ on "
                  f"{describe_subject(subject)}")
            results = verify_golden(subject, files, sys.stdout)
    except SubjectError as e:
        return _err("golden verify", f"subject error: {e}")
    bad = [r for r in results if r[1]]
    print(f"{len(results)} golden scenarios: {len(results) - len(bad)} passed, {len(bad)} "
          f"failed in {time.monotonic() - t0:.1f}s")
    if args.junit:
        cases = []
        for path, diffs, secs in results:
            c = CaseResult("golden", "kschedconf.golden", path.stem, seconds=secs,
                           properties={"file": str(path)})
            if diffs:
                c.status, c.message, c.details = FAILED, diffs[0], "\n".join(diffs)
            cases.append(c)
        write_junit(args.junit, cases, {"subject.spec": args.subject,
                                        "upstream.release": UPSTREAM_RELEASE})
        print(f"JUnit report: {args.junit}")
    return EXIT_FAILED if bad else EXIT_OK


def cmd_golden_list(args: argparse.Namespace) -> int:
    from conformance import suites

    try:
        files = suites.golden_files(golden_dir(args.golden_dir))
    except ValueError as e:
        return _err("golden list", str(e))
    for path in files:
        _, decisions, notes = suites.read_scenario_file(path)
        rec = decisions.upstream_release if decisions else "no decisions"
        print(f"{path.stem:<40} {rec:<10} {notes.get('covers', '')}")
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
