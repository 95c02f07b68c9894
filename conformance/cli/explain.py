"""``kschedconf explain``: every plugin's verdict and score for one pending pod."""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path
from typing import Any

from conformance.cli.inputs import (
    cluster_options,
    emit,
    load_cluster_beside_upstream,
    output_format,
)
from conformance.core.documents import explanation_doc
from conformance.core.errors import UsageError
from conformance.core.exits import EXIT_FAILED, EXIT_OK
from conformance.core.replacements import beside_upstream
from conformance.reporters.tables import explanation_table
from reference_impl.model.loader import load_pod_file
from reference_impl.scheduler.explain import explain


def register(sub: Any) -> None:
    exp = sub.add_parser(
        "explain", help="show every plugin's verdict and score for one pending pod",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=textwrap.dedent("""\
            Explain how the reference scheduler places one pending pod: the PreFilter
            results; for every node, in upstream's node order, the status of every Filter plugin
            (all of them, not only the first failure) and upstream's verdict; for the nodes
            upstream scores, each Score plugin's raw, normalized and weighted score and the
            total; the highest-scored nodes and the selected node. Nothing is bound.
            A plugin of --plugins that replaces an in-tree plugin (Plugin.replaces,
            --replaces) is shown beside the in-tree plugin's verdict and score on every node,
            from the same cluster under the configuration with the in-tree plugin in its
            place. Exit code 1 if the pod does not fit."""),
        epilog=textwrap.dedent("""\
            examples:
              kschedconf explain cluster.yaml --pod pod.yaml
              kschedconf explain --example --pod-name default/web-1 -o json"""))
    exp.add_argument("cluster", nargs="*", metavar="CLUSTER.yaml", help="manifest files")
    exp.add_argument("--example", action="store_true", help="use the bundled example cluster")
    exp.add_argument("--pod", metavar="POD.yaml", help="the pod to explain (one Pod manifest)")
    exp.add_argument("--pod-name", metavar="NS/NAME",
                     help="explain a pending pod of the cluster instead of --pod")
    cluster_options(exp)
    exp.set_defaults(handler=cmd_explain)


def cmd_explain(args: argparse.Namespace) -> int:
    if bool(args.pod) == bool(args.pod_name):
        raise UsageError("give exactly one of --pod POD.yaml or --pod-name NS/NAME")
    loaded, scheduler, upstream, replacements = load_cluster_beside_upstream(args)
    cluster = loaded.cluster
    if args.pod:
        if not Path(args.pod).exists():
            raise UsageError(f"{args.pod}: no such file")
        pod = load_pod_file(args.pod, cluster, admission=loaded.admission)
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
    doc = explanation_doc(e, scheduler.release.release)
    if upstream is not None:
        theirs = explanation_doc(explain(upstream, pod), scheduler.release.release)
        doc["replacements"] = beside_upstream(doc, theirs, replacements)
    if loaded.admission is not None:
        doc["admission"] = [a.to_doc() for a in loaded.admission.applied_to(pod.key)]
    emit(doc, output_format(args), explanation_table)
    return EXIT_OK if e.selected else EXIT_FAILED
