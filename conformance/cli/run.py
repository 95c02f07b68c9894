"""``kschedconf run``: the conformance suites (properties, golden) against a subject."""

from __future__ import annotations

import argparse
import textwrap
from typing import Any

from conformance.cli.options import (
    apply_backend_options,
    err,
    output_option,
    positive_float,
    positive_int,
    report_options,
    reporters,
    shard,
    signals_end_the_run,
    sizes,
    strict_intent_option,
    subject_options,
)
from conformance.core.errors import SubjectError
from conformance.engines.run import RunOptions, env_profile, run
from reference_impl.releases.pinned import UPSTREAM_RELEASE


def register(sub: Any) -> None:
    """Add ``run`` to the ``kschedconf`` sub-command parsers."""
    run = sub.add_parser(
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
              from upstream, must be scheduled the same way (docs/golden.md); a subject
              running another configuration is judged by the reference's decisions under it.
            differential: the subject against the reference under the configuration it runs,
              decision by decision, on generated scenarios of each size (--max-examples
              each); as `kschedconf diff --subject` (docs/diff.md). all: the three.

            Each property stops at --max-examples or at its share of --budget; the summary
            says which. Ctrl-C prints the summary so far and writes the reports. Profiles:
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
            2 usage error or subject error (crash, timeout, invalid output),
            130 interrupted by Ctrl-C (128 + the signal)"""))
    run.add_argument("--suite", choices=("properties", "golden", "differential", "all"),
                     default="properties",
                     help="which suite (default properties)")
    subject_options(run)
    run.add_argument("--oracle", metavar="NAME", nargs="+", action="extend", default=[],
                     help="only these oracles (default: all)")
    run.add_argument("--sizes", metavar="LIST", type=sizes,
                     help="scenario sizes, a comma list of small, medium, large, or a "
                          "feature family (dra: small scenarios with DeviceClasses, "
                          "ResourceSlices and claims) (default: the profile's)")
    run.add_argument("--max-examples", metavar="N", type=positive_int,
                     help="examples per property (default: the profile's)")
    run.add_argument("--budget", metavar="SECONDS", type=positive_float,
                     help="time for all properties, split evenly (what a property leaves "
                          "goes to the next), and as much for the differential suite's "
                          "scenarios; default: no limit")
    run.add_argument("--seed", type=int,
                     help="the same seed generates the same scenarios, on any machine and "
                          "install (default: 0 with the ci profile, else a fresh seed, "
                          "printed in the header and summary)")
    run.add_argument("--profile", choices=("dev", "ci", "thorough"),
                     help="Hypothesis settings profile (default: ci if $CI is set, else dev)")
    run.add_argument("--judge-all", action="store_true",
                     help="judge every generated scenario with every selected oracle, not only "
                          "the oracle of its property (the soundness campaign on upstream)")
    strict_intent_option(run)
    run.add_argument("--no-database", action="store_true",
                     help="do not read or write the Hypothesis example database "
                          "(.hypothesis/)")
    run.add_argument("--no-shrink", action="store_true",
                     help="report the first failure found without minimizing it")
    run.add_argument("--shard", metavar="K/N", type=shard,
                     help="run only the K-th of N shards of the property list (for parallel "
                          "CI jobs; on one machine, use the pytest plugin with pytest-xdist, "
                          "`pytest -n auto`, to use every core)")
    report_options(run, "every property and golden scenario")
    output_option(run)
    run.add_argument("--out", metavar="DIR", default="kschedconf-out",
                     help="where counterexamples are written (default kschedconf-out/)")
    run.add_argument("--golden-dir", metavar="DIR",
                     help="directory of golden scenarios (default: those installed with "
                          "kschedconf)")
    run.set_defaults(handler=cmd_run)


def cmd_run(args: argparse.Namespace) -> int:
    problem = apply_backend_options(args)
    if problem:
        return err("run", problem)
    opts = RunOptions(
        suite=args.suite, subject=args.subject, config=args.config, plugins=list(args.plugins),
        replaces=list(args.replaces), oracles=list(args.oracle), families=list(args.sizes or ()),
        max_examples=args.max_examples, budget=args.budget, seed=args.seed,
        profile=args.profile or env_profile(), database=not args.no_database,
        shard=args.shard, out=args.out, junit=args.junit, golden_dir=args.golden_dir,
        subject_timeout=args.subject_timeout, shrink=not args.no_shrink,
        i_own_this_cluster=args.i_own_this_cluster, strict_intent=args.strict_intent,
        judge_all=args.judge_all, release=args.release)
    try:
        with signals_end_the_run():
            report = run(opts, reporters(args))
    except SubjectError as e:
        return err("run", f"subject error: {e}")
    except ValueError as e:  # UsageError and option validation
        return err("run", str(e))
    # a subject error is in the summary (its ERROR case, or its own line): printed once
    return report.exit_code
