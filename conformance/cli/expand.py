"""``kschedconf expand``: print the objects the controllers would create for the workloads of
the inputs (pods, the ReplicaSets of Deployments, the claims of StatefulSets), as YAML, so users
can see and keep them (reference_impl/model/workloads, docs/expansion.md)."""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import Any

import yaml

from conformance.cli.inputs import check_paths, expansion_mode, report_expansion
from conformance.core.documents import to_json
from conformance.core.errors import UsageError
from conformance.core.exits import EXIT_FAILED, EXIT_OK
from reference_impl.model.loader import load_read_documents, read_documents
from reference_impl.model.workloads import expand_workloads


def register(sub: Any) -> None:
    p = sub.add_parser(
        "expand", help="print the pods the workloads' controllers would create",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=textwrap.dedent("""\
            Turn the Deployments, ReplicaSets, ReplicationControllers, StatefulSets,
            DaemonSets and Jobs of the inputs into the objects their controllers would create
            (pods, a Deployment's ReplicaSet, a StatefulSet's PersistentVolumeClaims), and
            print them as multi-document YAML. An OrderedReady StatefulSet's pods after the
            first are createPod events of a Scenario timeline, each triggered by the binding
            of the previous one (the inputs' Scenario, completed, or a new one). Names are
            deterministic (the same inputs give the same names). DaemonSet pods need the
            nodes: give the node list too. What each workload gave goes to stderr with -v.
            Exit code 1 when nothing was created, 2 on an input error."""),
        epilog=textwrap.dedent("""\
            examples:
              kschedconf expand deployment.yaml > pods.yaml
              kubectl get nodes -o yaml | kschedconf expand - daemonset.yaml -v
              kschedconf expand dump.yaml --expand-workloads   # top up a dump's workloads"""))
    p.add_argument("inputs", nargs="+", metavar="FILE", help="manifest files (- for stdin)")
    p.add_argument("--expand-workloads", action=argparse.BooleanOptionalAction, default=None,
                   help="--expand-workloads also tops up workloads that have fewer pods than "
                        "they want (default: only the workloads with no pods in the inputs)")
    p.add_argument("--all", action="store_true",
                   help="print every input object too (workloads completed with their uid), "
                        "not only the created ones")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="say what each workload gave")
    p.add_argument("--output", "-o", choices=("yaml", "json"), default="yaml",
                   help="yaml: one document per object (default); json: a v1 List")
    p.set_defaults(handler=cmd_expand)


def cmd_expand(args: argparse.Namespace) -> int:
    paths = list(args.inputs)
    check_paths(paths)
    if expansion_mode(args) == "off":
        raise UsageError("--no-expand-workloads: expand would print nothing")
    x = expand_workloads(read_documents(paths), expansion_mode(args))
    report_expansion(x, args.verbose)
    load_read_documents(x.documents)  # the created objects load: a bad one is an input error
    if not x.workloads:
        print("kschedconf expand: the inputs hold no workloads (Deployment, ReplicaSet, "
              "ReplicationController, StatefulSet, DaemonSet, Job)", file=sys.stderr)
        return EXIT_FAILED
    docs: list[Any] = []
    if args.all:
        docs += [doc for _, _, doc in x.documents[:len(x.inputs.documents)]]
    docs += [c.doc for c in x.created]
    if x.scenario is not None and not any(d is x.scenario for d in docs):
        # the inputs' Scenario, completed with the pods created when another is bound
        docs.append(x.scenario)
        print("kschedconf expand: the Scenario of the inputs is printed completed with the "
              "StatefulSet pods created when the previous one is bound (OrderedReady); use it "
              "instead of the input's", file=sys.stderr)
    if not x.created and not x.triggered:
        print("kschedconf expand: nothing to create: every workload already has its pods "
              "(--expand-workloads tops them up)", file=sys.stderr)
        return EXIT_FAILED if not args.all else EXIT_OK
    if args.output == "json":
        sys.stdout.write(to_json({"apiVersion": "v1", "kind": "List", "items": docs}))
    else:
        sys.stdout.write(yaml.safe_dump_all(docs, sort_keys=False, allow_unicode=True,
                                            width=100))
    return EXIT_OK
