"""``kschedconf diff``: the reference against another scheduler (the real upstream one by
default), scenario by scenario (:mod:`conformance.engines.diff`)."""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path
from typing import Any

import yaml

from conformance.cli.options import (
    apply_backend_options,
    backend_options,
    count,
    err,
    output_option,
    positive_float,
    positive_int,
    release_option,
    replaces_option,
    report_options,
    reporters,
    signals_end_the_run,
    workers_option,
)
from conformance.core.errors import UsageError
from conformance.core.scenario import ScenarioInput
from conformance.engines.diff import MODE_CHOICES, DiffOptions, parse_sizes, replay, run_diff
from conformance.engines.workers import SubjectSpec
from reference_impl.releases.pinned import UPSTREAM_RELEASE


def _sizes(text: str) -> list[str] | dict[str, int]:
    try:
        return parse_sizes(text)
    except UsageError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def register(sub: Any) -> None:
    """Add ``diff`` to the ``kschedconf`` sub-command parsers."""
    d = sub.add_parser(
        "diff", help="differential testing: the reference against the real upstream scheduler, "
                     "or any subject against the reference (--subject)",
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
              asynchronous bindings, the order of bindings that trigger timeline events,
              namespace order of equal-priority pods, batching,
              wall-clock timers, random preemption ties; docs/backends.md), reported apart.

            A binding that differs only within the tie set is a tie-break difference,
            reported apart (expected: 0). Divergences listed in
            conformance/known_divergences.yaml are reported as known. Each kind of
            unexplained divergence is shrunk by Hypothesis to a minimal scenario, written to
            --out with its replay command (`kschedconf diff --replay FILE`).

            --subject SPEC turns it around: any subject (your profile and plugins, an
            external simulator, a real control plane with your image) against the
            reference under the configuration the subject runs, your plugins swapped for
            the in-tree plugins they replace; each minimal scenario is then run by the
            upstream subject, when built, to say whose decisions it makes (docs/diff.md)."""),
        epilog=textwrap.dedent("""\
            examples:
              kschedconf diff --scenarios 50 --seed 1
              kschedconf diff --scenarios 240 --sizes small=120,medium=100,large=20 --golden
              kschedconf diff --golden --scenarios 0 --mode lockstep --junit diff.xml
              kschedconf diff --replay kschedconf-out/diff-lockstep-nodes-filters-reasons.yaml
              kschedconf diff --upstream process --scenarios 60 --golden --seed 1
              kschedconf diff --subject reference:my-profile.yaml --plugins my_plugins.py
              kschedconf diff --subject external:'./my-simulator --fast' --scenarios 100

            exit codes: 0 no unexplained divergence, 1 some, 2 usage or subject error,
            130 interrupted (128 + the signal)"""))
    d.add_argument("--scenarios", metavar="N", type=count, default=20,
                   help="generated scenarios in all (split over --sizes; default 20)")
    d.add_argument("--sizes", metavar="LIST", type=_sizes, default=["small"],
                   help="scenario sizes: a comma list of small, medium, large, dra "
                        "(small scenarios with DRA device classes, slices and claims), "
                        "storage (small scenarios with storage classes, CSI objects, "
                        "volumes and claims) (--scenarios split evenly), or counts: "
                        "small=100,medium=40,large=5,dra=50,storage=50 (default small)")
    d.add_argument("--golden", action="store_true",
                   help="compare the golden scenarios (golden/AREA/NAME.yaml) too")
    d.add_argument("--golden-dir", metavar="DIR", help="directory of golden scenarios")
    d.add_argument("--seed", type=int,
                   help="the same seed generates the same scenarios (default: random, printed)")
    d.add_argument("--budget", metavar="SECONDS", type=positive_float,
                   help="stop generating scenarios after this time (shrinking comes after)")
    d.add_argument("--mode", choices=MODE_CHOICES,
                   default="auto",
                   help="which comparison: both = whole + lockstep; auto (default) = both, "
                        "or decisions when --upstream is a real control plane (process, "
                        "docker, kubeconfig:CONTEXT)")
    d.add_argument("--config", metavar="CFG.yaml",
                   help="schedule every scenario with this KubeSchedulerConfiguration")
    report_options(d, "every scenario")
    output_option(d)
    d.add_argument("--out", metavar="DIR", default="kschedconf-out",
                   help="where minimal scenarios are written (default kschedconf-out/)")
    d.add_argument("--replay", metavar="FILE",
                   help="compare one scenario file (a minimal scenario, a golden scenario...) "
                        "and print every divergence")
    d.add_argument("--no-shrink", action="store_true",
                   help="save the first diverging scenarios without minimizing them")
    d.add_argument("--shrink-time", metavar="SECONDS", type=positive_float, default=120.0,
                   help="time to shrink each diverging scenario (default 120)")
    release_option(d, from_file=True)
    d.add_argument("--upstream", metavar="SPEC", default="upstream",
                   help="the other side: upstream (default; upstream:BINARY for another "
                        "build), or any subject spec of `kschedconf run` (whole mode only)")
    d.add_argument("--subject", metavar="SPEC",
                   help="compare this subject with the reference instead (any spec of "
                        "`kschedconf run`: reference:CFG --plugins FILE, external:CMD, "
                        "process:CFG, docker:IMAGE...): the reference runs the configuration "
                        "the subject runs, user plugins swapped for the in-tree plugins they "
                        "replace (docs/diff.md)")
    d.add_argument("--plugins", metavar="MODULE", action="append", default=[],
                   help="with --subject reference[:CFG]: a Python file or module of your "
                        "plugins (repeatable)")
    replaces_option(d)
    d.add_argument("--no-upstream-check", action="store_true",
                   help="with --subject: do not replay the minimal scenarios on the upstream "
                        "subject (done when it is built) to tell whose decisions it makes")
    d.add_argument("--known", metavar="FILE",
                   help="known divergences (default conformance/known_divergences.yaml)")
    workers_option(d, "scenarios")
    d.add_argument("--upstream-workers", metavar="N", type=positive_int, default=4,
                   help="upstream serve processes working at once for each worker (default "
                        "4: upstream spends most of a request waiting for its informers)")
    d.add_argument("--max-steps", metavar="N", type=positive_int,
                   help="lockstep: at most N explained attempts per scenario (default all)")
    d.add_argument("--subject-timeout", metavar="SECONDS", type=positive_float,
                   help="time limit of one upstream request (default 120); with a real "
                        "control plane, of one scenario from the scheduler's start or the "
                        "timeline's last event (120)")
    backend_options(d)
    d.add_argument("--pdb-status", choices=("fill", "as-is"), default="fill",
                   help="PodDisruptionBudgets without status.disruptionsAllowed: fill it in "
                        "as the disruption controller would for the initial cluster (default; "
                        "the upstream subject has no disruption controller), or leave them "
                        "as they are")
    d.add_argument("--i-own-this-cluster", metavar="CONTEXT",
                   help="with kubeconfig:CONTEXT: name the same context to confirm it is a "
                        "throwaway cluster kschedconf may create and delete objects in")
    d.set_defaults(handler=cmd_diff)


def cmd_diff(args: argparse.Namespace) -> int:
    """``kschedconf diff``: the run (or ``--replay``) reported on the console and, with
    ``--junit``, in a JUnit file."""
    problem = apply_backend_options(args, "subject" if args.subject else "upstream")
    for flag, given in (("--plugins", args.plugins), ("--replaces", args.replaces)):
        if not problem and given and not (args.subject or "").startswith("reference"):
            problem = f"{flag} is for --subject reference[:CFG] (your plugins in the reference)"
    if problem:
        return err("diff", problem)
    if args.release is None:  # --replay follows the file's release, a run the newest
        args.release = UPSTREAM_RELEASE
        if args.replay and Path(args.replay).is_file():
            try:
                args.release = ScenarioInput.read(args.replay).release
            except (OSError, ValueError, yaml.YAMLError):
                pass  # the replay reports the unreadable file
    opts = DiffOptions(
        scenarios=args.scenarios, sizes=args.sizes, golden=args.golden,
        golden_dir=args.golden_dir, seed=args.seed, budget=args.budget, out=args.out,
        config=args.config, mode=args.mode, shrink=not args.no_shrink,
        shrink_time=args.shrink_time, upstream=args.upstream, known=args.known,
        max_steps=args.max_steps, replay=args.replay, workers=args.workers,
        upstream_workers=args.upstream_workers,
        pdb_status=args.pdb_status, subject=args.subject, plugins=tuple(args.plugins),
        upstream_check=not args.no_upstream_check, release=args.release)

    # the other side by its spec: built here, and again in each worker process (--workers)
    if args.subject:
        other = SubjectSpec(args.subject, config=args.config, plugins=tuple(args.plugins),
                            replaces=tuple(args.replaces),
                            timeout=args.subject_timeout,
                            i_own_this_cluster=args.i_own_this_cluster, release=args.release)
    else:
        other = SubjectSpec(args.upstream, timeout=args.subject_timeout,
                            i_own_this_cluster=args.i_own_this_cluster, release=args.release,
                            upstream_workers=args.upstream_workers)

    bus = reporters(args)
    try:
        with signals_end_the_run():
            report = replay(opts, bus, other) if args.replay else run_diff(opts, bus, other)
    except ValueError as e:  # UsageError, a golden file that cannot be read
        return err("diff", str(e))
    summary = report.summary
    if summary.interrupted:
        print("kschedconf diff: " + ("interrupted" if summary.interrupted == "Ctrl-C" else
                                     f"terminated by {summary.interrupted}"), file=sys.stderr)
    # a subject error is in the summary (its ERROR case, or its own line): printed once
    return report.exit_code
