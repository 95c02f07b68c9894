"""The ``kschedconf`` command line.

Exit codes: 0 success; 1 a check failed or the pod did not fit; 2 usage or input error.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from conformance.cli.run import RUN_COMMANDS, add_run_parsers
from conformance.commands_diff import DIFF_COMMANDS, add_diff_parsers
from conformance.commands_mutants import MUTANTS_COMMANDS, add_mutants_parser
from conformance.core.documents import explanation_doc, simulation_doc, to_json, to_yaml
from conformance.core.errors import Terminated, UsageError
from conformance.core.exits import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from conformance.reporters.tables import explanation_table, simulation_table
from reference_impl.config import ConfigError, load_config
from reference_impl.model.errors import InputError
from reference_impl.model.loader import load_paths, load_pod_file
from reference_impl.model.scenario import parse_scenario
from reference_impl.plugins.registry import build_registry
from reference_impl.releases.pinned import UPSTREAM_RELEASE
from reference_impl.scheduler.explain import explain
from reference_impl.scheduler.scheduler import Scheduler
from reference_impl.scheduler.simulation import merge_simulation_doc, run_simulation


def example_cluster_path() -> str:
    """The bundled example cluster (``reference_impl/examples/cluster.yaml``)."""
    return str(resources.files("reference_impl.examples").joinpath("cluster.yaml"))


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", metavar="CFG.yaml",
                   help="a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1); "
                        f"default: the {UPSTREAM_RELEASE} default profile")
    p.add_argument("--plugins", metavar="MODULE", action="append", default=[],
                   help="a Python file or module with your own plugins (repeatable); enable "
                        "them in --config")
    p.add_argument("--seed", type=int, default=0, help="seed of the random source (default 0)")
    p.add_argument("--output", "-o", choices=("json", "yaml", "table"),
                   help="output format (default: table on a terminal, json otherwise)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kschedconf",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=textwrap.dedent(f"""\
            Conformance and differential testing for the Kubernetes scheduler.
            The reference scheduler follows upstream kube-scheduler {UPSTREAM_RELEASE}.

            Inputs are Kubernetes manifests (Node, Pod, PriorityClass, PodDisruptionBudget,
            Namespace; multi-document YAML, `kind: List` from `kubectl get -o yaml`, or JSON).
            A pod with spec.nodeName is running there; a pod without one is pending."""),
        epilog=textwrap.dedent("""\
            examples:
              kschedconf simulate --example
              kschedconf simulate cluster.yaml --config profile.yaml -o json
              kschedconf explain cluster.yaml --pod pod.yaml

            exit codes: 0 ok, 1 a check failed / a pod did not fit, 2 usage or input error"""))
    parser.add_argument("--version", action="version",
                        version=f"kschedconf 0.1.0 (upstream kube-scheduler {UPSTREAM_RELEASE})")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    sim = sub.add_parser(
        "simulate", help="schedule every pending pod and print each attempt",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=textwrap.dedent("""\
            Schedule every pending pod of the cluster with the reference scheduler and its
            scheduling queue (activeQ, backoffQ, unschedulable pods, cluster events) on a
            virtual clock, and print every attempt (virtual time, pod, outcome Bound /
            Unschedulable / Error, node, per-node reasons, nominated node, victims, the queue it
            came from and the event that moved it back) and the final bindings.
            An optional `kind: Scenario` document (apiVersion kschedconf/v1) among the inputs
            adds a timeline: pods and nodes created or deleted, cordons, label and taint
            changes, gate removals at virtual times. The run ends at quiescence or --until.
            Exit code 0 once the simulation ran; with --fail-on-pending, 1 if some pod stayed
            pending."""),
        epilog=textwrap.dedent("""\
            examples:
              kschedconf simulate --example
              kschedconf simulate nodes.yaml pods.yaml --seed 7 -o json > result.json
              kubectl get nodes,pods,pc,pdb,ns -A -o yaml > dump.yaml
              kschedconf simulate dump.yaml"""))
    sim.add_argument("cluster", nargs="*", metavar="CLUSTER.yaml", help="manifest files")
    sim.add_argument("--example", action="store_true",
                     help="use the bundled example cluster")
    sim.add_argument("--fail-on-pending", action="store_true",
                     help="exit with 1 if any pod is still pending at the end")
    sim.add_argument("--until", metavar="DURATION",
                     help="stop at this virtual time (e.g. 90s, 10m; default: the Scenario's "
                          "spec.until, else when nothing more can happen)")
    sim.add_argument("--trace", action="store_true",
                     help="add the queue operations (add, pop, move, backoff, flush) to the "
                          "output, for oracles")
    _common(sim)

    exp = sub.add_parser(
        "explain", help="show every plugin's verdict and score for one pending pod",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=textwrap.dedent("""\
            Explain how the reference scheduler places one pending pod: the PreFilter
            results; for every node, in upstream's node order, the status of every Filter plugin
            (all of them, not only the first failure) and upstream's verdict; for the nodes
            upstream scores, each Score plugin's raw, normalized and weighted score and the
            total; the highest-scored nodes and the selected node. Nothing is bound.
            Exit code 1 if the pod does not fit."""),
        epilog=textwrap.dedent("""\
            examples:
              kschedconf explain cluster.yaml --pod pod.yaml
              kschedconf explain --example --pod-name default/web-1 -o json"""))
    exp.add_argument("cluster", nargs="*", metavar="CLUSTER.yaml", help="manifest files")
    exp.add_argument("--example", action="store_true", help="use the bundled example cluster")
    exp.add_argument("--pod", metavar="POD.yaml", help="the pod to explain (one Pod manifest)")
    exp.add_argument("--pod-name", metavar="NS/NAME",
                     help="explain a pending pod of the cluster instead of --pod")
    _common(exp)
    add_run_parsers(sub)
    add_mutants_parser(sub)
    add_diff_parsers(sub)
    return parser


def _format(args: argparse.Namespace) -> str:
    if args.output:
        return args.output
    return "table" if sys.stdout.isatty() else "json"


def _emit(doc: dict[str, Any], fmt: str, table: Any) -> None:
    if fmt == "json":
        sys.stdout.write(to_json(doc))
    elif fmt == "yaml":
        sys.stdout.write(to_yaml(doc))
    else:
        sys.stdout.write(table(doc))


def _load(args: argparse.Namespace) -> tuple[Any, Any]:
    """Cluster and scheduler from the arguments; warnings go to stderr."""
    paths = list(args.cluster)
    if args.example:
        paths.insert(0, example_cluster_path())
    if not paths:
        raise UsageError("no cluster given: pass manifest files or --example")
    for p in paths:
        if not Path(p).exists():
            raise UsageError(f"{p}: no such file")
    loaded = load_paths(paths)
    for w in loaded.warnings:
        print(f"warning: {w}", file=sys.stderr)
    try:
        registry = build_registry(args.plugins)
    except (ImportError, ValueError, SyntaxError, OSError) as e:
        raise UsageError(f"--plugins: {e}") from e
    cfg_source: Any = args.config
    if cfg_source is None and loaded.cluster.config is not None:
        cfg_source = loaded.cluster.config
    config = load_config(cfg_source, registry) if cfg_source is not None else None
    args._loaded = loaded
    return loaded.cluster, Scheduler(loaded.cluster, config, registry, seed=args.seed)


def cmd_simulate(args: argparse.Namespace) -> int:
    cluster, scheduler = _load(args)
    scenario = None
    if args._loaded.scenario is not None:
        scenario = parse_scenario(args._loaded.scenario, cluster, source="the inputs")
    try:
        result = run_simulation(scheduler, scenario, until=args.until, trace=args.trace)
    except ValueError as e:
        raise UsageError(f"--until: {e}") from e
    doc = merge_simulation_doc(simulation_doc(result), result)
    _emit(doc, _format(args), simulation_table)
    return EXIT_FAILED if (args.fail_on_pending and result.pending) else EXIT_OK


def cmd_explain(args: argparse.Namespace) -> int:
    if bool(args.pod) == bool(args.pod_name):
        raise UsageError("give exactly one of --pod POD.yaml or --pod-name NS/NAME")
    cluster, scheduler = _load(args)
    if args.pod:
        if not Path(args.pod).exists():
            raise UsageError(f"{args.pod}: no such file")
        pod = load_pod_file(args.pod, cluster)
        if pod.node_name:
            raise UsageError(f"{args.pod}: pod {pod.key} already has spec.nodeName "
                             f"{pod.node_name!r}; explain takes a pending pod")
    else:
        matches = [p for p in cluster.pods if p.key == args.pod_name]
        if not matches:
            raise UsageError(f"--pod-name: no pod {args.pod_name!r} in the cluster")
        pod = matches[0]
        if pod.node_name:
            raise UsageError(f"--pod-name: {pod.key} is already bound to {pod.node_name}")
    try:
        e = explain(scheduler, pod)
    except ValueError as err:
        raise UsageError(str(err)) from err
    _emit(explanation_doc(e), _format(args), explanation_table)
    return EXIT_OK if e.selected else EXIT_FAILED


COMMANDS = {"simulate": cmd_simulate, "explain": cmd_explain, **RUN_COMMANDS, **MUTANTS_COMMANDS,
            **DIFF_COMMANDS}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return EXIT_USAGE
    try:
        return COMMANDS[args.command](args)
    except (UsageError, InputError, ConfigError) as e:
        print(f"kschedconf {args.command}: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_OK
    except Terminated as e:  # SIGTERM / SIGHUP, after everything was released
        print(f"kschedconf {args.command}: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        # every subject has released its processes, containers and directories on the way
        # up (finally blocks); say so instead of printing a traceback
        print(f"kschedconf {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
