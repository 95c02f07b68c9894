"""``kschedconf simulate``: schedule every pending pod of a cluster with the reference and its
queue on a virtual clock."""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import Any

from conformance.cli.inputs import (
    cluster_options,
    emit,
    load_cluster,
    output_format,
    require_schedulable,
)
from conformance.core.documents import simulation_doc
from conformance.core.errors import UsageError
from conformance.core.exits import EXIT_FAILED, EXIT_OK
from conformance.reporters.tables import simulation_table
from reference_impl.model.scenario import parse_scenario
from reference_impl.scheduler.simulation import merge_simulation_doc, run_simulation


def register(sub: Any) -> None:
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
            Exit codes: 0 every pod was bound (or --allow-pending), 1 some pod stayed pending
            (did not fit, or never became schedulable before --until), or the inputs hold no
            node or no pod to schedule, 2 usage or input error.
            Workloads (Deployment, ReplicaSet, ReplicationController, StatefulSet, DaemonSet,
            Job) without pods in the inputs become the pods their controllers would create
            (--no-expand-workloads to keep them as they are; docs/expansion.md)."""),
        epilog=textwrap.dedent("""\
            examples:
              kschedconf simulate --example
              kschedconf simulate nodes.yaml pods.yaml --seed 7 -o json > result.json
              kubectl get nodes,pods,pc,pdb,ns -A -o yaml > dump.yaml
              kschedconf simulate dump.yaml
              kschedconf simulate nodes.yaml deployment.yaml -v
              kubectl get all -A -o yaml | kschedconf simulate nodes.yaml -"""))
    sim.add_argument("cluster", nargs="*", metavar="CLUSTER.yaml", help="manifest files")
    sim.add_argument("--example", action="store_true",
                     help="use the bundled example cluster")
    sim.add_argument("--allow-pending", action="store_true",
                     help="exit with 0 even if some pod is still pending at the end")
    sim.add_argument("--fail-on-pending", action="store_true",
                     help="deprecated: exiting with 1 when a pod is still pending is the "
                          "default now")
    sim.add_argument("--until", metavar="DURATION",
                     help="stop at this virtual time (e.g. 90s, 10m; default: the Scenario's "
                          "spec.until, else when nothing more can happen)")
    sim.add_argument("--trace", action="store_true",
                     help="add the queue operations (add, pop, move, backoff, flush) and the "
                          "admission defaults applied to the pods (admission) to the output")
    cluster_options(sim)
    sim.set_defaults(handler=cmd_simulate)


def cmd_simulate(args: argparse.Namespace) -> int:
    if args.fail_on_pending and args.allow_pending:
        raise UsageError("--fail-on-pending and --allow-pending contradict each other")
    if args.fail_on_pending:
        print("kschedconf simulate: --fail-on-pending is deprecated: exiting with 1 when a "
              "pod stays pending is the default now (--allow-pending for 0)", file=sys.stderr)
    loaded, scheduler = load_cluster(args)
    require_schedulable(loaded.cluster, loaded.scenario)
    scenario = None
    if loaded.scenario is not None:
        scenario = parse_scenario(loaded.scenario, loaded.cluster, source="the inputs")
    try:
        result = run_simulation(scheduler, scenario, until=args.until, trace=args.trace)
    except ValueError as e:
        raise UsageError(f"--until: {e}") from e
    doc = merge_simulation_doc(simulation_doc(result, scheduler.release.release), result)
    if args.trace and loaded.admission is not None:
        doc["admission"] = [a.to_doc() for a in loaded.admission.applied]
    emit(doc, output_format(args), simulation_table)
    return EXIT_FAILED if (result.pending and not args.allow_pending) else EXIT_OK
