"""The inputs of ``simulate`` and ``explain``: cluster manifests, the configuration and plugins,
and the output format of their documents."""

from __future__ import annotations

import argparse
import copy
import sys
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from conformance.cli.options import release_option, replaces_option
from conformance.core.documents import to_json, to_yaml
from conformance.core.errors import UsageError
from conformance.core.replacements import Replacement, as_replaced, declared_replacements
from conformance.core.scenario import read_config_doc
from reference_impl.config import load_config
from reference_impl.model.loader import LoadResult, load_read_documents, read_documents
from reference_impl.model.loader.admission import ADMISSION_MODES
from reference_impl.model.objects import Cluster
from reference_impl.model.workloads import Expansion, expand_workloads
from reference_impl.plugins.registry import build_registry
from reference_impl.plugins.volumebinding.binder import is_pvc_fully_bound
from reference_impl.releases import load
from reference_impl.releases.pinned import UPSTREAM_RELEASE
from reference_impl.scheduler.scheduler import Scheduler
from reference_impl.storage.pv_helpers import (
    get_persistent_volume_claim_class,
    is_delay_binding_mode,
)
from reference_impl.storage.results import pod_claim_keys


def example_cluster_path() -> str:
    """The bundled example cluster (``reference_impl/examples/cluster.yaml``)."""
    return str(resources.files("reference_impl.examples").joinpath("cluster.yaml"))


#: kinds a `kubectl get all,...` dump holds that have nothing to do with scheduling: ignored
#: silently, listed with -v (docs/expansion.md#ignored-kinds)
QUIETLY_IGNORED = frozenset({
    "Secret", "ConfigMap", "Event", "Endpoints", "EndpointSlice", "ServiceAccount", "Role",
    "RoleBinding", "ClusterRole", "ClusterRoleBinding", "ControllerRevision", "Lease",
    "CronJob", "HorizontalPodAutoscaler", "Ingress", "IngressClass", "NetworkPolicy",
    "CustomResourceDefinition", "APIService", "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration", "CertificateSigningRequest", "ComponentStatus",
    "PodTemplate", "ResourceQuota", "FlowSchema", "PriorityLevelConfiguration",
})


def input_options(p: argparse.ArgumentParser) -> None:
    """What every command reading cluster manifests takes: the workload expansion and -v."""
    p.add_argument("--expand-workloads", action=argparse.BooleanOptionalAction, default=None,
                   help="turn Deployments, ReplicaSets, ReplicationControllers, StatefulSets, "
                        "DaemonSets and Jobs into the pods their controllers would create "
                        "(default: the workloads that have no pods in the inputs; "
                        "--expand-workloads also tops up the others, --no-expand-workloads "
                        "leaves them all)")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="say what the expansion did for each workload and list every "
                        "ignored kind")


def expansion_mode(args: argparse.Namespace) -> str:
    flag = getattr(args, "expand_workloads", None)
    return "auto" if flag is None else ("on" if flag else "off")


def check_paths(paths: list[str]) -> None:
    """Every path exists ("-" is stdin)."""
    if paths.count("-") > 1:
        raise UsageError("-: stdin can be given once")
    for p in paths:
        if p != "-" and not Path(p).exists():
            raise UsageError(f"{p}: no such file")


def read_inputs(paths: list[str], args: argparse.Namespace) -> tuple[LoadResult, Expansion]:
    """The inputs read, expanded (``--expand-workloads``), admitted (``--admission``), given
    the claims of their ResourceClaimTemplates (as the resourceclaim controller would create
    them; docs/dra.md) and loaded; what the expansion and the admission did and the warnings
    go to stderr, the ignored kinds as one summary line."""
    check_paths(paths)
    expansion = expand_workloads(read_documents(paths), expansion_mode(args))
    verbose = bool(getattr(args, "verbose", False))
    report_expansion(expansion, verbose)
    loaded = load_read_documents(expansion.documents,
                                 admission=getattr(args, "admission", "never"),
                                 template_claims=True)
    for w in loaded.warnings:
        if w not in loaded.ignored_warnings:
            print(f"warning: {w}", file=sys.stderr)
    if loaded.admission is not None and (line := loaded.admission.summary()):
        print(line, file=sys.stderr)
    report_claims(loaded.cluster)
    report_ignored(loaded.ignored, set(expansion_kinds(expansion)), verbose)
    return loaded, expansion


def expansion_kinds(expansion: Expansion) -> list[str]:
    return [key.split(" ", 1)[0] for key in expansion.workloads]


def report_expansion(x: Expansion, verbose: bool) -> None:
    for w in x.warnings:
        print(f"warning: {w}", file=sys.stderr)
    if verbose:
        for n in x.notes:
            print(f"expand: {n}", file=sys.stderr)
    owned = [c.owner for c in x.pods] + x.triggered_owners
    if owned:
        owners: dict[str, int] = {}
        for owner in owned:
            owners[owner] = owners.get(owner, 0) + 1
        later = (f", {len(x.triggered)} of them created when the previous one is bound "
                 "(StatefulSet OrderedReady: Scenario timeline events)" if x.triggered else "")
        print(f"expanded {len(owners)} workload(s) into {len(owned)} pod(s){later}: "
              + ", ".join(f"{k} {n}" for k, n in owners.items())
              + " (--no-expand-workloads to leave them; kschedconf expand prints them)",
              file=sys.stderr)


def unbindable_claims(cluster: Cluster) -> dict[str, list[str]]:
    """The claims of pending pods that nothing in the simulation will bind, by pod:
    ``NAME (why)``. The four volume plugins schedule a pod's claims and the simulated PV
    controller and provisioner complete what VolumeBinding chose (docs/storage.md), so a claim
    gets a volume only when it is bound already or waits for its first consumer (an unbound
    claim of a WaitForFirstConsumer StorageClass of the inputs, without ``spec.volumeName``).
    Any other unbound claim is one VolumeBinding's PreFilter calls immediate
    (``GetPodVolumeClaims``, pkg/scheduler/framework/plugins/volumebinding/binder.go): in a
    real cluster the PV controller would bind it, here nothing does."""
    storage = cluster.storage
    out: dict[str, list[str]] = {}
    for pod in cluster.pods:
        if pod.node_name:
            continue
        reasons = []
        for key in pod_claim_keys(pod):
            name = key.split("/", 1)[1]
            claim = storage.claims.get(key)
            if claim is None:
                reasons.append(f"{name}: not in the inputs")
                continue
            if is_pvc_fully_bound(claim) or (
                    is_delay_binding_mode(claim, storage.classes) and not claim.volume_name):
                continue
            class_name = get_persistent_volume_claim_class(claim)
            sc = storage.classes.get(class_name) if class_name else None
            if claim.volume_name:
                why = f"pre-bound to {claim.volume_name}, binding not completed"
            elif not class_name:
                why = "no StorageClass"
            elif sc is None:
                why = f"StorageClass {class_name} not in the inputs"
            else:
                why = f"StorageClass {class_name} binds {sc.volume_binding_mode}"
            reasons.append(f"{name}: {why}")
        if reasons:
            out[pod.key] = reasons
    return out


def report_claims(cluster: Cluster) -> bool:
    """One line for the pending pods whose claims nothing will bind
    (:func:`unbindable_claims`): they stay pending with VolumeBinding's "pod has unbound
    immediate PersistentVolumeClaims" (or the claim's "not found"), which is right for the
    inputs but rarely what a user of a real cluster's manifests expects (its default
    StorageClass left out of the inputs). True if there were some."""
    claims = unbindable_claims(cluster)
    if not claims:
        return False
    shown = ", ".join(f"{k} ({'; '.join(c)})" for k, c in list(claims.items())[:3])
    more = f" and {len(claims) - 3} more" if len(claims) > 3 else ""
    print(f"warning: {len(claims)} pending pod(s) use PersistentVolumeClaims that nothing will "
          f"bind: {shown}{more}. The simulated PV controller binds and provisions only the "
          "claims VolumeBinding chose a volume or a node for, so an unbound claim needs a "
          "WaitForFirstConsumer StorageClass in the inputs (named by the claim, or the default "
          "class); these pods stay pending (docs/storage.md)", file=sys.stderr)
    return True


def report_ignored(ignored: dict[str, int], used: set[str], verbose: bool) -> None:
    """One line for the kinds read by nothing: always for the kinds that may matter, with -v
    for those that do not (``QUIETLY_IGNORED``) too."""
    rest = {k: n for k, n in ignored.items() if k not in used}
    shown = rest if verbose else {k: n for k, n in rest.items() if k not in QUIETLY_IGNORED}
    if shown:
        print("ignored: " + ", ".join(f"{n} {k}" for k, n in sorted(shown.items()))
              + (" (kinds the reference does not read; -v lists every ignored kind)"
                 if not verbose else ""), file=sys.stderr)


def require_schedulable(cluster: Cluster, scenario: dict | None) -> None:
    """Exit 1 when there is nothing to simulate: no nodes, or no pending pod (and no timeline
    that creates one)."""
    if not cluster.nodes and not _timeline_creates(scenario, "createNode"):
        raise NothingToSchedule("the inputs hold no nodes: nothing can be scheduled (add "
                                "`kubectl get nodes -o yaml` output, or --example)")
    if not any(not p.node_name for p in cluster.pods) \
            and not _timeline_creates(scenario, "createPod"):
        raise NothingToSchedule(
            "the inputs hold no pod to schedule after expansion: every pod already has a "
            "node (or there are none; workloads become pods with --expand-workloads)")


def _timeline_creates(scenario: dict | None, action: str) -> bool:
    events = ((scenario or {}).get("spec") or {}).get("events") or []
    return any(isinstance(e, dict) and e.get("action") == action for e in events)


class NothingToSchedule(Exception):
    """The inputs hold nothing to schedule (exit 1)."""


def cluster_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", metavar="CFG.yaml",
                   help="a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1); "
                        f"default: the {UPSTREAM_RELEASE} default profile")
    p.add_argument("--plugins", metavar="MODULE", action="append", default=[],
                   help="a Python file or module with your own plugins (repeatable); enable "
                        "them in --config")
    replaces_option(p)
    p.add_argument("--seed", type=int, default=0, help="seed of the random source (default 0)")
    release_option(p)
    p.add_argument("--admission", choices=ADMISSION_MODES, default="auto",
                   help="apply the API server's default admission (LimitRange defaults, "
                        "RuntimeClass overhead and scheduling, DefaultTolerationSeconds) to "
                        "pods: auto (default) to pods from manifests, not to pods of a dump "
                        "(uid, resourceVersion or status); always; never (docs/admission.md)")
    p.add_argument("--output", "-o", choices=("json", "yaml", "table"),
                   help="output format (default: table on a terminal, json otherwise)")
    input_options(p)


def output_format(args: argparse.Namespace) -> str:
    if args.output:
        return args.output
    return "table" if sys.stdout.isatty() else "json"


def emit(doc: dict[str, Any], fmt: str, table: Callable[[dict[str, Any]], str]) -> None:
    if fmt == "json":
        sys.stdout.write(to_json(doc))
    elif fmt == "yaml":
        sys.stdout.write(to_yaml(doc))
    else:
        sys.stdout.write(table(doc))


def load_cluster(args: argparse.Namespace) -> tuple[LoadResult, Scheduler]:
    """The loaded inputs and the scheduler from the arguments; warnings go to stderr."""
    loaded, scheduler, _, _ = load_cluster_beside_upstream(args, beside=False)
    return loaded, scheduler


def load_cluster_beside_upstream(args: argparse.Namespace, beside: bool = True) -> tuple[
        LoadResult, Scheduler, Scheduler | None, dict[str, Replacement]]:
    """:func:`load_cluster`, the declared replacements (``Plugin.replaces``, ``--replaces``,
    validated) and, when there are some and ``beside``, a scheduler of the same cluster under
    the configuration with the in-tree plugins in their place (None otherwise)."""
    paths = list(args.cluster)
    if args.example:
        paths.insert(0, example_cluster_path())
    if not paths:
        raise UsageError("no cluster given: pass manifest files (- for stdin) or --example")
    loaded, _ = read_inputs(paths, args)
    try:
        registry = build_registry(args.plugins)
    except (ImportError, ValueError, SyntaxError, OSError) as e:
        raise UsageError(f"--plugins: {e}") from e
    cfg_source: Any = args.config
    if cfg_source is None and loaded.cluster.config is not None:
        cfg_source = loaded.cluster.config
    replacements = declared_replacements(registry, args.replaces)
    release = load(args.release)
    config = load_config(cfg_source, registry, release) if cfg_source is not None else None
    scheduler = Scheduler(loaded.cluster, config, registry, seed=args.seed, release=release)
    upstream = None
    if beside and replacements and cfg_source is not None:
        doc = read_config_doc(cfg_source) if isinstance(cfg_source, str) else cfg_source
        upstream = Scheduler(copy.deepcopy(loaded.cluster),
                             load_config(as_replaced(doc, replacements), registry, release),
                             registry, seed=args.seed, release=release)
    return loaded, scheduler, upstream, replacements
