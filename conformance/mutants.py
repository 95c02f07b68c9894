"""Planted bugs (mutants) in the reference scheduler, and the runner of ``kschedconf mutants``.

The oracles are proved by the real bugs they catch. A *mutant* is a small, realistic deviation
from upstream kube-scheduler v1.37.2, of the kind re-implementations ship (an off-by-one, a
forgotten init container, a comparison the wrong way round), applied to the reference at run time:
a context manager monkeypatches one function, method or constant (occasionally the two or three
places that express the same rule) and restores it afterwards. ``reference_impl/`` itself is never
edited.

The patch is active only while the reference schedules (:class:`MutantSubject` wraps
:class:`~conformance.subjects.reference.ReferenceSubject` and applies the mutant around each
``run``): the oracles judge the result with the genuine model layer (loader, pod requests, label
selectors), so a mutant in code they share, such as ``reference_impl/model/requests.py``, cannot
blind them.

Each mutant carries a *witness*: a small hand-written scenario on which the mutated reference
decides differently from the genuine one. The runner replays it first; a mutant whose witness
result does not change is reported ``ineffective`` (a patch that no longer reaches the code it
targets, after a refactoring) instead of being silently counted as caught or survived. The
oracles judge the witness too: the genuine result must pass them, and whether they reject the
mutated one says if they can see the bug at all.

``kschedconf mutants`` then runs the default property suite (every oracle of
``oracles.ALL_ORACLES`` on the ``small`` scenario family of the ``dev`` profile) against the
mutated reference and reports, per mutant, whether some oracle rejected a generated scenario
(caught), which oracles, after how many examples and seconds. By default each scenario is
generated once and judged by every oracle (generation dominates the cost); ``per_property`` runs
one Hypothesis run per oracle exactly as ``kschedconf run`` does. A mutant that survives is a
*coverage* gap (the oracles reject its witness, no generated scenario exposed it), *blind* (they
do not even reject the witness: the catalogue names the missing oracle), or documented as
``equivalent`` on generated scenarios (the strategies never produce an input on which it
differs; not counted). See ``docs/mutants.md``.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TextIO

from conformance.core.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from conformance.core.scenario import ScenarioInput
from conformance.core.subject import Subject, SubjectResult
from conformance.engines.golden import compare_golden, golden_files, read_scenario_file
from conformance.engines.properties import (
    Property,
    no_shrink,
    profile_settings,
    property_list,
    run_property,
)
from oracles.judge import check_result, select_oracles

# --------------------------------------------------------------------------------------------
# Patching
# --------------------------------------------------------------------------------------------


class MutantError(Exception):
    """A mutant cannot be applied (its target no longer exists) or is unknown."""


@dataclass(frozen=True, slots=True)
class Patch:
    """Replace one attribute for the duration of a mutant.

    ``target`` is ``"package.module:name"`` or ``"package.module:Class.attribute"``; the
    attribute must be *defined* there (a class attribute in the class's own ``__dict__``), so a
    patch never silently adds a new attribute. ``make(original)`` returns the replacement
    (``original`` is the function as looked up, for wrappers). With ``everywhere``, every module
    of ``reference_impl`` that imported the same object under any name (``from x import f`` or
    ``import f as g``) is patched too: module attributes are looked up at call time in the
    module that calls them, so a function imported by name must be replaced where it is used.
    """

    target: str
    make: Callable[[Any], Any]
    everywhere: bool = False


#: Modules that import every part of the reference a scenario run uses (plugins, framework,
#: queue, simulation), so that ``everywhere`` patches find every binding.
_REFERENCE_ENTRY_MODULES = (
    "reference_impl.plugins.registry",
    "reference_impl.scheduler.scheduler",
    "reference_impl.scheduler.simulation",
    "reference_impl.model.loader",
    "reference_impl.model.scenario",
)


_loaded: list[bool] = []


def _load_reference() -> None:
    if _loaded:
        return
    for name in _REFERENCE_ENTRY_MODULES:
        importlib.import_module(name)
    from reference_impl.plugins.registry import in_tree_registry

    in_tree_registry()  # imports every in-tree plugin module
    _loaded.append(True)


def _resolve(target: str) -> tuple[Any, str, Any, Any]:
    """(owner, attribute name, raw value in the owner's ``__dict__``, value as looked up)."""
    mod_name, sep, path = target.partition(":")
    if not sep or not path:
        raise MutantError(f"patch target {target!r}: expected 'module:name'")
    try:
        owner: Any = importlib.import_module(mod_name)
    except ImportError as e:
        raise MutantError(f"patch target {target!r}: {e}") from e
    *parents, attr = path.split(".")
    for p in parents:
        try:
            owner = getattr(owner, p)
        except AttributeError:
            raise MutantError(f"patch target {target!r}: no {p!r}") from None
    d = vars(owner)
    if attr not in d:
        raise MutantError(f"patch target {target!r}: {attr!r} is not defined there")
    return owner, attr, d[attr], getattr(owner, attr)


_SITES: dict[tuple[int, str, int], list[tuple[Any, str]]] = {}


def _binding_sites(owner: Any, attr: str, original: Any) -> list[tuple[Any, str]]:
    """Every (module, name) of ``reference_impl`` bound to ``original``, besides the owner's
    (computed once: the reference's modules do not rebind their imports)."""
    key = (id(owner), attr, id(original))
    found = _SITES.get(key)
    if found is None:
        found = _SITES[key] = _scan_sites(owner, original)
    return found


def _scan_sites(owner: Any, original: Any) -> list[tuple[Any, str]]:
    sites = []
    for mod_name, mod in list(sys.modules.items()):
        if mod is None or mod is owner or not mod_name.startswith("reference_impl"):
            continue
        for name, value in list(vars(mod).items()):
            if value is original:
                sites.append((mod, name))
    return sites


@contextmanager
def patched(patches: Sequence[Patch]) -> Iterator[None]:
    """Apply the patches, yield, then restore every replaced attribute (also on errors)."""
    _load_reference()
    undo: list[tuple[Any, str, Any]] = []
    try:
        for p in patches:
            owner, attr, raw, original = _resolve(p.target)
            new = p.make(original)
            if isinstance(raw, staticmethod):
                new = staticmethod(new)
            sites = [(owner, attr)]
            if p.everywhere:
                sites += _binding_sites(owner, attr, original)
            for obj, name in sites:
                undo.append((obj, name, vars(obj)[name]))
                setattr(obj, name, new)
        yield
    finally:
        for obj, name, old in reversed(undo):
            setattr(obj, name, old)


# --------------------------------------------------------------------------------------------
# Witness scenarios: tiny manifest builders
# --------------------------------------------------------------------------------------------

Doc = dict[str, Any]


def _node(name: str, cpu: str = "4", memory: str = "8Gi", pods: int = 110, *,
          labels: Mapping[str, str] | None = None, taints: Sequence[Doc] = (),
          unschedulable: bool = False, extra: Mapping[str, Any] | None = None) -> Doc:
    alloc: Doc = {"cpu": cpu, "memory": memory, "pods": pods, **(extra or {})}
    spec: Doc = {}
    if taints:
        spec["taints"] = [dict(t) for t in taints]
    if unschedulable:
        spec["unschedulable"] = True
    meta: Doc = {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}}
    return {"apiVersion": "v1", "kind": "Node", "metadata": meta, "spec": spec,
            "status": {"allocatable": alloc}}


def _container(name: str = "c", requests: Mapping[str, Any] | None = None, *,
               ports: Sequence[Doc] = (), restart_policy: str | None = None) -> Doc:
    c: Doc = {"name": name, "image": "busybox"}
    if requests:
        c["resources"] = {"requests": dict(requests)}
    if ports:
        c["ports"] = [dict(p) for p in ports]
    if restart_policy:
        c["restartPolicy"] = restart_policy
    return c


def _pod(name: str, requests: Mapping[str, Any] | None = None, *, node: str | None = None,
         labels: Mapping[str, str] | None = None, namespace: str | None = None,
         priority_class: str | None = None, ports: Sequence[Doc] = (),
         status: Doc | None = None, **spec: Any) -> Doc:
    """A pod with one container ``c`` requesting ``requests``; ``spec`` adds v1 spec fields
    (camelCase names as keyword arguments)."""
    meta: Doc = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    if labels:
        meta["labels"] = dict(labels)
    body: Doc = {"containers": [_container("c", requests, ports=ports)], **spec}
    if node:
        body["nodeName"] = node
    if priority_class:
        body["priorityClassName"] = priority_class
    out: Doc = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": body}
    if status:
        out["status"] = dict(status)
    return out


def _priority_class(name: str, value: int) -> Doc:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": name}, "value": value}


def _namespace(name: str) -> Doc:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def _timeline(*events: Doc) -> Doc:
    return {"apiVersion": "kschedconf/v1", "kind": "Scenario", "spec": {"events": list(events)}}


def _config(**fields: Any) -> Doc:
    return {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            **fields}


def _taint(key: str, effect: str, value: str | None = None) -> Doc:
    t: Doc = {"key": key, "effect": effect}
    if value is not None:
        t["value"] = value
    return t


def _spread(max_skew: int = 1, key: str = "topology.kubernetes.io/zone", **extra: Any) -> Doc:
    return {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": {"app": "web"}}, **extra}


def _scenario(name: str, *docs: Doc, config: Doc | None = None) -> ScenarioInput:
    return ScenarioInput(list(docs), config, 0, f"witness-{name}")


ZONE = "topology.kubernetes.io/zone"
HOSTNAME = "kubernetes.io/hostname"
WEB = {"app": "web"}


# --------------------------------------------------------------------------------------------
# The catalogue
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Mutant:
    """One planted bug.

    ``summary``: what the mutated reference does. ``upstream``: the rule it breaks, with the
    upstream file. ``witness()``: a small scenario on which the mutant changes the reference's
    SimulationResult; ``shows``: how (genuine vs mutated). ``oracles``: the oracles expected to
    catch it. ``equivalent``: why no generated scenario can tell it apart (then it is not
    counted). ``missing_oracle``: for a known survivor, the oracle that would catch it.
    """

    name: str
    area: str
    summary: str
    upstream: str
    patches: tuple[Patch, ...]
    witness: Callable[[], ScenarioInput]
    shows: str
    oracles: tuple[str, ...] = ()
    equivalent: str = ""
    missing_oracle: str = ""

    @contextmanager
    def applied(self) -> Iterator[None]:
        """The reference with this bug planted, restored on exit."""
        with patched(self.patches):
            yield


CATALOGUE: list[Mutant] = []


def _mutant(**kw: Any) -> None:
    CATALOGUE.append(Mutant(**kw))


# ----- pod requests (reference_impl/model/requests.py; loader and NodeResourcesFit) ---------

_REQ = "reference_impl.model.requests"


def _aggregate_without_plain_init(orig: Callable[..., Any]) -> Callable[..., Any]:
    def _aggregate(containers: tuple, init_containers: tuple, non_missing: Any,
                   limits: bool) -> Any:
        sidecars = tuple(c for c in init_containers if c.restart_policy == "Always")
        return orig(containers, sidecars, non_missing, limits)
    return _aggregate


def _aggregate_sidecars_as_init(orig: Callable[..., Any]) -> Callable[..., Any]:
    def _aggregate(containers: tuple, init_containers: tuple, non_missing: Any,
                   limits: bool) -> Any:
        plain = tuple(dataclasses.replace(c, restart_policy=None) for c in init_containers)
        return orig(containers, plain, non_missing, limits)
    return _aggregate


def _pod_requests_without_overhead(orig: Callable[..., Any]) -> Callable[..., Any]:
    def pod_requests(pod: Any, *, non_missing: Any = None, pod_level_resources: bool = True,
                     exclude_overhead: bool = False) -> Any:
        return orig(pod, non_missing=non_missing, pod_level_resources=pod_level_resources,
                    exclude_overhead=True)
    return pod_requests


_mutant(
    name="requests-ignore-init-containers", area="pod requests",
    summary="a pod's requests ignore its (non-sidecar) init containers",
    upstream="PodRequests takes the max of the containers' sum and each init container's peak "
             "(staging/src/k8s.io/component-helpers/resource/helpers.go "
             "AggregateContainerRequests)",
    patches=(Patch(f"{_REQ}:_aggregate", _aggregate_without_plain_init),),
    witness=lambda: _scenario(
        "init", _node("n1", cpu="1"),
        _pod("p", {"cpu": "100m"}, initContainers=[_container("init", {"cpu": "2"})])),
    shows="genuine: p (init container 2 cpu) is unschedulable on a 1-cpu node; mutant: bound",
    oracles=("no_overcommit", "filters_honoured"))

_mutant(
    name="requests-sidecars-as-init", area="pod requests",
    summary="sidecars (init containers with restartPolicy Always) are treated as plain init "
            "containers: not added to the running sum",
    upstream="restartable init containers run alongside the containers and are summed "
             "(staging/src/k8s.io/component-helpers/resource/helpers.go "
             "AggregateContainerRequests, KEP-753)",
    patches=(Patch(f"{_REQ}:_aggregate", _aggregate_sidecars_as_init),),
    witness=lambda: _scenario(
        "sidecar", _node("n1", cpu="1"),
        _pod("p", {"cpu": "600m"},
             initContainers=[_container("side", {"cpu": "600m"}, restart_policy="Always")])),
    shows="genuine: p needs 1200m and stays pending on a 1-cpu node; mutant: 600m, bound",
    oracles=("no_overcommit", "filters_honoured"))

_mutant(
    name="requests-ignore-overhead", area="pod requests",
    summary="pod overhead (spec.overhead) is not added to the pod's requests",
    upstream="PodRequests adds spec.overhead "
             "(staging/src/k8s.io/component-helpers/resource/helpers.go)",
    patches=(Patch(f"{_REQ}:pod_requests", _pod_requests_without_overhead, everywhere=True),),
    witness=lambda: _scenario(
        "overhead", _node("n1", cpu="1"),
        _pod("p", {"cpu": "900m"}, overhead={"cpu": "250m"})),
    shows="genuine: 900m + 250m overhead does not fit 1 cpu; mutant: bound",
    oracles=("no_overcommit", "filters_honoured"))

_mutant(
    name="requests-ignore-pod-level-resources", area="pod requests",
    summary="pod-level requests (spec.resources.requests, PodLevelResources on by default) are "
            "ignored: the containers' aggregate is used",
    upstream="PodRequests: supported pod-level requests replace the aggregate "
             "(staging/src/k8s.io/component-helpers/resource/helpers.go, gate PodLevelResources)",
    patches=(Patch(f"{_REQ}:is_pod_level_requests_set", lambda orig: lambda pod: False),),
    witness=lambda: _scenario(
        "pod-level", _node("n1", cpu="1"),
        _pod("p", {"cpu": "100m"}, resources={"requests": {"cpu": "2"}})),
    shows="genuine: pod-level request 2 cpu, unschedulable; mutant: 100m, bound",
    oracles=("no_overcommit", "filters_honoured"))

# ----- NodeResourcesFit (reference_impl/plugins/noderesources/fit.py) ------------------------

_FIT = "reference_impl.plugins.noderesources.fit"


def _fits_request_dropping(*names: str) -> Callable[[Any], Any]:
    def make(orig: Callable[..., Any]) -> Callable[..., Any]:
        def fits_request(s: Any, node_info: Any, pod: Any = None,
                         in_place_preemption: bool = False) -> list[Any]:
            return [ir for ir in orig(s, node_info, pod, in_place_preemption)
                    if ir.resource_name not in names]
        return fits_request
    return make


def _fits_request_exact_fit_fails(orig: Callable[..., Any]) -> Callable[..., Any]:
    fit = importlib.import_module(_FIT)

    def fits_request(s: Any, node_info: Any, pod: Any = None,
                     in_place_preemption: bool = False) -> list[Any]:
        out = orig(s, node_info, pod, in_place_preemption)
        have = {ir.resource_name for ir in out}
        r, alloc, used = s.request, node_info.node.allocatable, node_info.requested
        rows = [("cpu", r.milli_cpu, used.milli_cpu, alloc.milli_cpu),
                ("memory", r.memory, used.memory, alloc.memory),
                ("ephemeral-storage", r.ephemeral_storage, used.ephemeral_storage,
                 alloc.ephemeral_storage)]
        rows += [(name, r.scalar[name], used.scalar.get(name, 0), alloc.scalar.get(name, 0))
                 for name, _ in s.scalars]
        for name, want, in_use, cap in rows:
            # ">=" where upstream has ">": a request exactly equal to the free amount fails
            if want > 0 and name not in have and want >= cap - in_use:
                out.append(fit.InsufficientResource(name, f"Insufficient {name}", want, in_use,
                                                    cap, want > cap))
        return out
    return fits_request


def _no_scalars(orig: Callable[..., Any]) -> Callable[..., Any]:
    def new_pre_filter_state(request: Any, ignored_resources: frozenset[str] = frozenset(),
                             ignored_groups: frozenset[str] = frozenset()) -> Any:
        state = orig(request, ignored_resources, ignored_groups)
        state.scalars = ()
        return state
    return new_pre_filter_state


_mutant(
    name="fit-ignores-pod-count", area="NodeResourcesFit",
    summary="Filter does not check the node's allocatable pod count",
    upstream="fitsRequest: len(pods)+1 > allowedPodNumber is 'Too many pods' "
             "(pkg/scheduler/framework/plugins/noderesources/fit.go)",
    patches=(Patch(f"{_FIT}:fits_request", _fits_request_dropping("pods")),),
    witness=lambda: _scenario(
        "pod-count", _node("n1", pods=1), _pod("running", node="n1"), _pod("p")),
    shows="genuine: the node (allocatable pods 1) is full, p pending; mutant: bound",
    oracles=("no_overcommit", "filters_honoured"))

_mutant(
    name="fit-exact-fit-fails", area="NodeResourcesFit",
    summary="off by one: a request equal to the free amount is insufficient (>= instead of >)",
    upstream="fitsRequest: insufficient only when request > allocatable - requested "
             "(pkg/scheduler/framework/plugins/noderesources/fit.go)",
    patches=(Patch(f"{_FIT}:fits_request", _fits_request_exact_fit_fails),),
    witness=lambda: _scenario("exact-fit", _node("n1", cpu="1"), _pod("p", {"cpu": "1"})),
    shows="genuine: 1 cpu fits a 1-cpu node; mutant: Insufficient cpu, pending",
    oracles=("no_false_unschedulable",))

_mutant(
    name="fit-ignores-extended-resources", area="NodeResourcesFit",
    summary="Filter checks cpu, memory and ephemeral-storage only: extended (scalar) resources "
            "such as example.com/gpu are not checked",
    upstream="fitsRequest checks every requested scalar resource "
             "(pkg/scheduler/framework/plugins/noderesources/fit.go)",
    patches=(Patch(f"{_FIT}:new_pre_filter_state", _no_scalars),),
    witness=lambda: _scenario(
        "gpu", _node("n1"), _pod("p", {"example.com/gpu": 1})),
    shows="genuine: the node has no example.com/gpu, p pending; mutant: bound",
    oracles=("no_overcommit", "filters_honoured"))

_mutant(
    name="fit-ignores-ephemeral-storage", area="NodeResourcesFit",
    summary="Filter does not check ephemeral-storage",
    upstream="fitsRequest checks ephemeral-storage like cpu and memory "
             "(pkg/scheduler/framework/plugins/noderesources/fit.go)",
    patches=(Patch(f"{_FIT}:fits_request", _fits_request_dropping("ephemeral-storage")),),
    witness=lambda: _scenario(
        "ephemeral", _node("n1", extra={"ephemeral-storage": "1Gi"}),
        _pod("p", {"ephemeral-storage": "2Gi"})),
    shows="genuine: 2Gi of ephemeral-storage does not fit 1Gi, pending; mutant: bound",
    oracles=("no_overcommit", "filters_honoured"))

# ----- TaintToleration and tolerations ------------------------------------------------------

_TOL = "reference_impl.api.tolerations"


def _no_schedule_only(orig: Callable[..., Any]) -> Callable[..., Any]:
    def do_not_schedule_taint(taint: Any) -> bool:
        return taint.effect == "NoSchedule"
    return do_not_schedule_taint


def _empty_effect_matches_nothing(orig: Callable[..., Any]) -> Callable[..., Any]:
    def toleration_tolerates_taint(toleration: Any, taint: Any,
                                   enable_comparison_operators: bool = False) -> bool:
        if not toleration.effect:
            return False
        return orig(toleration, taint, enable_comparison_operators)
    return toleration_tolerates_taint


def _equal_ignores_value(orig: Callable[..., Any]) -> Callable[..., Any]:
    def toleration_tolerates_taint(toleration: Any, taint: Any,
                                   enable_comparison_operators: bool = False) -> bool:
        if toleration.operator in ("", "Equal"):
            toleration = dataclasses.replace(toleration, operator="Exists", value="")
        return orig(toleration, taint, enable_comparison_operators)
    return toleration_tolerates_taint


_mutant(
    name="taints-ignore-noexecute", area="TaintToleration",
    summary="Filter only rejects untolerated NoSchedule taints, not NoExecute ones",
    upstream="DoNotScheduleTaintsFilterFunc keeps NoSchedule and NoExecute "
             "(pkg/scheduler/framework/plugins/helper/taint.go, "
             "pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go)",
    patches=(Patch("reference_impl.plugins.tainttoleration:do_not_schedule_taint",
                   _no_schedule_only),),
    witness=lambda: _scenario(
        "noexecute", _node("n1", taints=[_taint("dedicated", "NoExecute", "db")]), _pod("p")),
    shows="genuine: untolerated NoExecute taint, p pending; mutant: bound",
    oracles=("filters_honoured",))

_mutant(
    name="tolerations-empty-effect-match-nothing", area="TaintToleration",
    summary="a toleration with an empty effect tolerates nothing (instead of every effect)",
    upstream="Toleration.ToleratesTaint: an empty effect matches all effects "
             "(staging/src/k8s.io/api/core/v1/toleration.go)",
    patches=(Patch(f"{_TOL}:toleration_tolerates_taint", _empty_effect_matches_nothing),),
    witness=lambda: _scenario(
        "empty-effect", _node("n1", taints=[_taint("dedicated", "NoSchedule", "db")]),
        _pod("p", tolerations=[{"key": "dedicated", "operator": "Exists"}])),
    shows="genuine: the toleration (no effect) tolerates the taint, bound; mutant: pending",
    oracles=("no_false_unschedulable",))

_mutant(
    name="tolerations-equal-ignores-value", area="TaintToleration",
    summary="an Equal toleration matches any value of the taint key (treated like Exists)",
    upstream="Toleration.ToleratesTaint: Equal (or no operator) needs equal values "
             "(staging/src/k8s.io/api/core/v1/toleration.go)",
    patches=(Patch(f"{_TOL}:toleration_tolerates_taint", _equal_ignores_value),),
    witness=lambda: _scenario(
        "equal-value", _node("n1", taints=[_taint("dedicated", "NoSchedule", "db")]),
        _pod("p", tolerations=[{"key": "dedicated", "operator": "Equal", "value": "web",
                                "effect": "NoSchedule"}])),
    shows="genuine: value web does not tolerate dedicated=db, pending; mutant: bound",
    oracles=("filters_honoured",))

# ----- NodeAffinity -------------------------------------------------------------------------

_NSEL = "reference_impl.api.node_selectors"


def _required_without_node_selector(orig: Callable[..., Any]) -> Callable[..., Any]:
    ns = importlib.import_module(_NSEL)

    def get_required_node_affinity(pod: Any) -> Any:
        return ns.RequiredNodeAffinity(None, pod.affinity)
    return get_required_node_affinity


def _terms_anded(orig: Callable[..., Any]) -> Callable[..., Any]:
    def match(self: Any, node: Any) -> bool:
        if node is None or not self.terms:
            return False
        return all(term.match(node) for term in self.terms)
    return match


_mutant(
    name="nodeaffinity-ignores-nodeselector", area="NodeAffinity",
    summary="Filter checks the required node affinity but not spec.nodeSelector",
    upstream="RequiredNodeAffinity.Match: nodeSelector AND required node affinity "
             "(staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/"
             "nodeaffinity.go, pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go)",
    patches=(Patch("reference_impl.plugins.nodeaffinity:get_required_node_affinity",
                   _required_without_node_selector),),
    witness=lambda: _scenario(
        "nodeselector", _node("n1", labels={"disktype": "hdd"}),
        _pod("p", nodeSelector={"disktype": "ssd"})),
    shows="genuine: nodeSelector disktype=ssd matches no node, pending; mutant: bound",
    oracles=("filters_honoured",))

_mutant(
    name="nodeaffinity-terms-anded", area="NodeAffinity",
    summary="required node selector terms are ANDed instead of ORed",
    upstream="nodeSelectorTerms are ORed (LazyErrorNodeSelector.Match, "
             "staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go)",
    patches=(Patch(f"{_NSEL}:LazyErrorNodeSelector.match", _terms_anded),),
    witness=lambda: _scenario(
        "terms-or", _node("n1", labels={ZONE: "z1"}),
        _pod("p", affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": ZONE, "operator": "In", "values": ["z1"]}]},
                {"matchExpressions": [{"key": ZONE, "operator": "In", "values": ["z2"]}]}]}}})),
    shows="genuine: the first term matches, bound; mutant: the second fails too, pending",
    oracles=("no_false_unschedulable",))

# ----- NodeUnschedulable --------------------------------------------------------------------

_mutant(
    name="nodeunschedulable-ignored", area="NodeUnschedulable",
    summary="cordoned nodes (spec.unschedulable) are not filtered out",
    upstream="NodeUnschedulable.Filter rejects unschedulable nodes unless the pod tolerates "
             "node.kubernetes.io/unschedulable:NoSchedule "
             "(pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go)",
    patches=(Patch("reference_impl.plugins.nodeunschedulable:NodeUnschedulable.filter",
                   lambda orig: lambda self, state, pod, node_info: None),),
    witness=lambda: _scenario("cordoned", _node("n1", unschedulable=True), _pod("p")),
    shows="genuine: the only node is cordoned, pending; mutant: bound",
    oracles=("filters_honoured",))

# ----- NodePorts ----------------------------------------------------------------------------


def _conflict_any_protocol(orig: Callable[..., Any]) -> Callable[..., Any]:
    def check_conflict(self: Any, ip: str, protocol: str, port: int) -> bool:
        return any(orig(self, ip, proto, port) for proto in ("TCP", "UDP", "SCTP"))
    return check_conflict


def _conflict_any_ip(orig: Callable[..., Any]) -> Callable[..., Any]:
    def check_conflict(self: Any, ip: str, protocol: str, port: int) -> bool:
        return orig(self, "", protocol, port)
    return check_conflict


def _ports_without_sidecars(orig: Callable[..., Any]) -> Callable[..., Any]:
    def host_ports(pod: Any) -> tuple:
        return tuple(p for c in pod.containers for p in c.ports if p.host_port > 0)
    return host_ports


_HOSTPORTS = "reference_impl.framework.types:HostPortInfo.check_conflict"

_mutant(
    name="nodeports-ignore-protocol", area="NodePorts",
    summary="a host port conflicts with the same port number whatever the protocol",
    upstream="HostPortInfo.CheckConflict compares (protocol, port) "
             "(staging/src/k8s.io/kube-scheduler/framework/types.go, "
             "pkg/scheduler/framework/plugins/nodeports/node_ports.go)",
    patches=(Patch(_HOSTPORTS, _conflict_any_protocol),),
    witness=lambda: _scenario(
        "protocol", _node("n1"),
        _pod("dns", node="n1", ports=[{"containerPort": 53, "hostPort": 53, "protocol": "UDP"}]),
        _pod("p", ports=[{"containerPort": 53, "hostPort": 53, "protocol": "TCP"}])),
    shows="genuine: TCP/53 is free next to UDP/53, bound; mutant: conflict, pending",
    oracles=("no_false_unschedulable",))

_mutant(
    name="nodeports-ignore-host-ip", area="NodePorts",
    summary="a host port conflicts with the same port on any host IP (hostIP ignored)",
    upstream="HostPortInfo.CheckConflict: different specific host IPs do not conflict "
             "(staging/src/k8s.io/kube-scheduler/framework/types.go)",
    patches=(Patch(_HOSTPORTS, _conflict_any_ip),),
    witness=lambda: _scenario(
        "host-ip", _node("n1"),
        _pod("a", node="n1", ports=[{"containerPort": 80, "hostPort": 80, "hostIP": "10.0.0.1"}]),
        _pod("p", ports=[{"containerPort": 80, "hostPort": 80, "hostIP": "10.0.0.2"}])),
    shows="genuine: 10.0.0.2:80 is free next to 10.0.0.1:80, bound; mutant: pending",
    oracles=("no_false_unschedulable",),
    equivalent="the strategies never set hostIP (every generated host port binds 0.0.0.0, which "
               "conflicts with every IP), so no generated scenario tells the mutant apart; "
               "generating hostIP in strategies/objects.py would let no_false_unschedulable catch "
               "it")

_mutant(
    name="nodeports-ignore-sidecar-ports", area="NodePorts",
    summary="host ports of sidecars (restartable init containers) are not counted",
    upstream="GetHostPorts includes restartable init containers (pkg/scheduler/util/utils.go)",
    patches=(Patch(f"{_REQ}:host_ports", _ports_without_sidecars, everywhere=True),),
    witness=lambda: _scenario(
        "sidecar-port", _node("n1"),
        {**_pod("proxy", node="n1"), "spec": {"nodeName": "n1", "containers": [_container()],
                                              "initContainers": [_container(
                                                  "envoy", restart_policy="Always",
                                                  ports=[{"containerPort": 8080,
                                                          "hostPort": 8080}])]}},
        _pod("p", ports=[{"containerPort": 8080, "hostPort": 8080}])),
    shows="genuine: the sidecar holds host port 8080, p pending; mutant: bound",
    oracles=("filters_honoured",),
    equivalent="the strategies give host ports to the first regular container only, never to a "
               "sidecar (strategies/objects.py pod_templates), so no generated scenario tells the "
               "mutant apart; filters_honoured rejects it on its witness")

# ----- PodTopologySpread --------------------------------------------------------------------

_PTS = "reference_impl.plugins.podtopologyspread"


def _pts_filter(*, strict: bool = False, min_domains: bool = True) -> Callable[[Any], Any]:
    """The PodTopologySpread Filter with one deviation: ``strict`` rejects skew == maxSkew;
    ``min_domains=False`` takes the global minimum whatever the number of domains."""
    def make(orig: Callable[..., Any]) -> Callable[..., Any]:
        filtering = importlib.import_module(f"{_PTS}.filtering")
        code = importlib.import_module("reference_impl.framework.status").Code
        status_cls = importlib.import_module("reference_impl.framework.status").Status

        def filter(self: Any, state: Any, pod: Any, node_info: Any) -> Any:  # noqa: A001
            s = state.get(filtering.PRE_FILTER_STATE_KEY)
            if not isinstance(s, filtering.PreFilterState) or not s.constraints:
                return orig(self, state, pod, node_info)
            labels = node_info.node.labels
            for i, c in enumerate(s.constraints):
                tp_val = labels.get(c.topology_key)
                if tp_val is None:
                    return status_cls(code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                      filtering.ERR_REASON_NODE_LABEL_NOT_MATCH)
                m = s.tp_value_to_match_num[i]
                if min_domains:
                    min_match = 0 if len(m) < c.min_domains else s.critical_paths[i].num0
                else:
                    min_match = s.critical_paths[i].num0 if m else 0
                skew = m.get(tp_val, 0) + s.self_match[i] - min_match
                if skew >= c.max_skew if strict else skew > c.max_skew:
                    return status_cls(code.UNSCHEDULABLE,
                                      filtering.ERR_REASON_CONSTRAINTS_NOT_MATCH)
            return None
        return filter
    return make


def _no_self_match(orig: Callable[..., Any]) -> Callable[..., Any]:
    def _finish(self: Any, pod: Any, constraints: list, tp_maps: list) -> Any:
        s = orig(self, pod, constraints, tp_maps)
        s.self_match = [0] * len(s.self_match)
        return s
    return _finish


_PTS_FILTER = f"{_PTS}.filtering:FilteringMixin.filter"

_mutant(
    name="spread-skew-off-by-one", area="PodTopologySpread",
    summary="Filter rejects a node when the skew equals maxSkew (>= instead of >)",
    upstream="Filter: matchNum + selfMatch - minMatch > maxSkew fails "
             "(pkg/scheduler/framework/plugins/podtopologyspread/filtering.go)",
    patches=(Patch(_PTS_FILTER, _pts_filter(strict=True)),),
    witness=lambda: _scenario(
        "skew", _node("n1", labels={ZONE: "z1"}), _node("n2", labels={ZONE: "z2"}),
        _pod("p", labels=WEB, topologySpreadConstraints=[_spread()])),
    shows="genuine: skew 1 <= maxSkew 1, bound; mutant: every node rejected, pending",
    oracles=("no_false_unschedulable",))

_mutant(
    name="spread-min-domains-ignored", area="PodTopologySpread",
    summary="minDomains is ignored: the global minimum is taken over the existing domains",
    upstream="minMatchNum is 0 while fewer than minDomains domains exist "
             "(pkg/scheduler/framework/plugins/podtopologyspread/filtering.go "
             "preFilterState.minMatchNum)",
    patches=(Patch(_PTS_FILTER, _pts_filter(min_domains=False)),),
    witness=lambda: _scenario(
        "min-domains", _node("n1", labels={ZONE: "z1"}), _node("n2", labels={ZONE: "z2"}),
        _pod("w1", node="n1", labels=WEB), _pod("w2", node="n2", labels=WEB),
        _pod("p", labels=WEB, topologySpreadConstraints=[_spread(minDomains=3)])),
    shows="genuine: 2 domains < minDomains 3, minimum 0, skew 2 everywhere, pending; mutant: "
          "minimum 1, bound",
    oracles=("filters_honoured",))

_mutant(
    name="spread-self-match-not-counted", area="PodTopologySpread",
    summary="the incoming pod is not counted in its own domain (selfMatchNum always 0)",
    upstream="Filter adds selfMatchNum when the pod matches the constraint's selector "
             "(pkg/scheduler/framework/plugins/podtopologyspread/filtering.go)",
    patches=(Patch(f"{_PTS}.filtering:FilteringMixin._finish", _no_self_match),),
    witness=lambda: _scenario(
        "self-match", _node("n1", labels={ZONE: "z1"}),
        _node("n2", labels={ZONE: "z2"}, taints=[_taint("dedicated", "NoSchedule")]),
        _pod("w1", node="n1", labels=WEB),
        _pod("p", labels=WEB, topologySpreadConstraints=[_spread()])),
    shows="genuine: z1 holds 1 pod, z2 (tainted node) 0: skew 2 on n1, pending; mutant: skew 1, "
          "bound on n1",
    oracles=("filters_honoured",))

_mutant(
    name="spread-node-taints-policy-ignored", area="PodTopologySpread",
    summary="nodeTaintsPolicy: Honor is treated as Ignore (nodes with untolerated taints count)",
    upstream="matchNodeInclusionPolicies skips nodes with untolerated taints under Honor "
             "(pkg/scheduler/framework/plugins/podtopologyspread/common.go)",
    patches=(Patch(f"{_PTS}.common:has_untolerated_do_not_schedule_taint",
                   lambda orig: lambda node, pod, enable_comparison_operators=False: False,
                   everywhere=True),),
    witness=lambda: _scenario(
        "taints-policy", _node("n1", labels={ZONE: "z1"}),
        _node("n2", labels={ZONE: "z2"}, taints=[_taint("dedicated", "NoSchedule")]),
        _pod("w1", node="n1", labels=WEB),
        _pod("p", labels=WEB, topologySpreadConstraints=[_spread(nodeTaintsPolicy="Honor")])),
    shows="genuine: the tainted z2 is not a domain, skew 1 on n1, bound; mutant: z2 counts with 0 "
          "pods, skew 2, pending",
    oracles=("no_false_unschedulable", "filters_honoured"))

# ----- InterPodAffinity ---------------------------------------------------------------------

_IPA = "reference_impl.plugins.interpodaffinity.filtering"


def _no_first_pod_exception(orig: Callable[..., Any]) -> Callable[..., Any]:
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        orig(self, *args, **kwargs)
        self.self_affinity = False
    return __init__


def _term_matches_any_namespace(orig: Callable[..., Any]) -> Callable[..., Any]:
    def matches(self: Any, pod: Any, ns_labels: Any) -> bool:
        return self.selector.matches(pod.labels)
    return matches


_mutant(
    name="interpod-existing-anti-affinity-ignored", area="InterPodAffinity",
    summary="the required anti-affinity of pods already running is not checked (no symmetry)",
    upstream="satisfyExistingPodsAntiAffinity "
             "(pkg/scheduler/framework/plugins/interpodaffinity/filtering.go)",
    patches=(Patch(f"{_IPA}:FilteringMixin.get_existing_anti_affinity_counts",
                   lambda orig: lambda pod, ns_labels, nodes: {}),),
    witness=lambda: _scenario(
        "symmetry", _node("n1"),
        _pod("db", node="n1", labels={"app": "db"}, affinity={"podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": WEB}, "topologyKey": HOSTNAME}]}}),
        _pod("p", labels=WEB)),
    shows="genuine: db's anti-affinity keeps app=web off n1, pending; mutant: bound",
    oracles=("filters_honoured",))

_mutant(
    name="interpod-namespaces-ignored", area="InterPodAffinity",
    summary="affinity terms match pods of every namespace (namespaces and namespaceSelector "
            "ignored)",
    upstream="AffinityTerm.Matches: the pod's namespace must be in the term's namespaces or "
             "selected by its namespaceSelector "
             "(staging/src/k8s.io/kube-scheduler/framework/types.go)",
    patches=(Patch("reference_impl.framework.affinity_terms:AffinityTerm.matches",
                   _term_matches_any_namespace),),
    witness=lambda: _scenario(
        "namespaces", _namespace("team-a"), _node("n1"),
        _pod("db", node="n1", namespace="team-a", labels={"app": "db"}),
        _pod("p", affinity={"podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": HOSTNAME}]}})),
    shows="genuine: the anti-affinity term only looks at namespace default, bound; mutant: "
          "team-a/db counts, pending",
    oracles=("no_false_unschedulable", "filters_honoured"))

_mutant(
    name="interpod-first-pod-exception-missing", area="InterPodAffinity",
    summary="a pod whose required affinity matches itself is not allowed when no matching pod "
            "exists yet (the first pod of a group is stuck)",
    upstream="nodeTopologyMatchesAffinity passes when no pod matches anywhere and the pod matches "
             "its own terms (pkg/scheduler/framework/plugins/interpodaffinity/filtering.go)",
    patches=(Patch(f"{_IPA}:PreFilterState.__init__", _no_first_pod_exception),),
    witness=lambda: _scenario(
        "first-pod", _node("n1"),
        _pod("p", labels=WEB, affinity={"podAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": WEB}, "topologyKey": HOSTNAME}]}})),
    shows="genuine: p is the first app=web pod and matches its own term, bound; mutant: pending",
    oracles=("no_false_unschedulable",))

# ----- scoring and host selection -----------------------------------------------------------


def _first_of_tied(orig: type) -> type:
    class FirstTiedScoredNodes(orig):  # type: ignore[misc, valid-type]
        """Pops the first highest-scored node in feasible-node order (no Go heap layout)."""

        def __init__(self, scored: list) -> None:
            super().__init__(scored)
            self.order = list(scored)

        def pop(self):  # noqa: ANN202
            best = max(s.total for s in self.order)
            chosen = next(s for s in self.order if s.total == best)
            self.order.remove(chosen)
            super().__init__([s for s in self.heap if s is not chosen])  # re-heapify the rest
            return chosen

    return FirstTiedScoredNodes


def _score_totals(use: str) -> Callable[[Any], Any]:
    """``run_score_plugins`` whose totals sum the raw scores with weights (``use="raw"``) or the
    normalized scores without weights (``use="unweighted"``)."""
    def make(orig: Callable[..., Any]) -> Callable[..., Any]:
        def run_score_plugins(self: Any, state: Any, pod: Any, nodes: list,
                              detail: bool = True) -> Any:
            results, status = orig(self, state, pod, nodes, True)
            if results is None:
                return results, status
            for r in results:
                if use == "raw":
                    r.total = sum(v * self.score_weights[name] for name, v in r.raw)
                else:
                    r.total = sum(v for _, v in r.normalized)
            return results, status
        return run_score_plugins
    return make


def _used_share(orig: Callable[..., Any]) -> Callable[..., Any]:
    def least_requested_score(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return 0
        return requested * 100 // capacity
    return least_requested_score


_NO_SCORE_ORACLE = (
    "a score oracle: the existing ones check only that the bound node is among the subject's "
    "own reported highest-scored candidates, and the reference subject reports no "
    "Explanation; an oracle restating the default Score plugins (NodeResourcesFit "
    "LeastAllocated, BalancedAllocation, TaintToleration, NodeAffinity, ImageLocality, "
    "PodTopologySpread, InterPodAffinity: raw score, NormalizeScore, weights), or a "
    "differential run against recorded upstream decisions (golden suite), would catch it")

_mutant(
    name="select-first-tied-node", area="host selection",
    summary="among the highest-scored nodes, the first in feasible-node order wins instead of the "
            "top of Go's container/heap",
    upstream="schedulePod pops the max-heap NewSortedScoredNodes (pkg/scheduler/schedule_one.go, "
             "pkg/scheduler/framework/sorted_nodes.go): ties follow the heap layout",
    patches=(Patch("reference_impl.scheduler.schedule_one:SortedScoredNodes", _first_of_tied),),
    witness=lambda: _scenario(
        "ties", _node("n1"), _node("n2"), _node("n3", labels={"tier": "gold"}),
        _node("n4", labels={"tier": "gold"}),
        _pod("p", affinity={"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 50, "preference": {"matchExpressions": [
                {"key": "tier", "operator": "In", "values": ["gold"]}]}}]}})),
    shows="genuine: n3 and n4 tie, the heap pops n4; mutant: n3",
    missing_oracle="a tie-break oracle: restate Go's container/heap (Init, Pop) over the feasible "
                   "nodes in examination order and require that node; score_optimality only "
                   "checks membership in the tie set")

_mutant(
    name="score-raw-not-normalized", area="scoring",
    summary="node totals add the plugins' raw scores instead of the normalized ones",
    upstream="RunScorePlugins: NormalizeScore, then weight × normalized score "
             "(pkg/scheduler/framework/runtime/framework.go)",
    patches=(Patch("reference_impl.framework.runtime:Framework.run_score_plugins",
                   _score_totals("raw")),),
    witness=lambda: _scenario(
        "raw-scores", _node("n1", taints=[_taint("maintenance", "PreferNoSchedule")]),
        _node("n2"), _pod("p")),
    shows="genuine: TaintToleration normalizes (reversed) so n2 wins; mutant: the raw count of "
          "intolerable taints favours n1",
    missing_oracle=_NO_SCORE_ORACLE)

_mutant(
    name="score-weights-dropped", area="scoring",
    summary="plugin weights are ignored: every normalized score counts once",
    upstream="RunScorePlugins multiplies each normalized score by the plugin's weight "
             "(pkg/scheduler/framework/runtime/framework.go; default weights "
             "pkg/scheduler/apis/config/v1/default_plugins.go)",
    patches=(Patch("reference_impl.framework.runtime:Framework.run_score_plugins",
                   _score_totals("unweighted")),),
    witness=lambda: _scenario(
        "weights", _node("n1", labels={"tier": "gold"},
                         taints=[_taint("maintenance", "PreferNoSchedule")]),
        _node("n2"),
        _pod("p", affinity={"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 1, "preference": {"matchExpressions": [
                {"key": "tier", "operator": "In", "values": ["gold"]}]}}]}})),
    shows="genuine: TaintToleration (weight 3) outweighs NodeAffinity (weight 2), n2 wins; "
          "mutant: 100 each, tie, n1",
    missing_oracle=_NO_SCORE_ORACLE)

_mutant(
    name="least-allocated-inverted", area="NodeResourcesFit scoring",
    summary="LeastAllocated scores the used share (requested/capacity) instead of the free share",
    upstream="leastRequestedScore = (capacity - requested) * 100 / capacity "
             "(pkg/scheduler/framework/plugins/noderesources/least_allocated.go)",
    patches=(Patch("reference_impl.plugins.noderesources.least_allocated:"
                   "least_requested_score", _used_share),),
    witness=lambda: _scenario(
        "least-allocated", _node("n1"), _node("n2"),
        _pod("busy", {"cpu": "2", "memory": "4Gi"}, node="n1"),
        _pod("p", {"cpu": "100m", "memory": "128Mi"})),
    shows="genuine: the empty n2 scores higher; mutant: the busy n1",
    missing_oracle=_NO_SCORE_ORACLE)

# ----- scheduling queue ---------------------------------------------------------------------

_BACKOFF = "reference_impl.scheduler.queue.backoff_queue:BackoffQueue.calculate_backoff_duration"


def _uncapped(orig: Callable[..., Any]) -> Callable[..., Any]:
    def calculate_backoff_duration(self: Any, count: int, entity_size: int = 1) -> int:
        if count == 0:
            return 0
        return self.pod_initial_backoff << (count - 1)
    return calculate_backoff_duration


def _no_nodes_witness(name: str, config: Doc | None) -> ScenarioInput:
    """p finds no node at all ("no nodes available": an attempt that no plugin rejected, so p
    goes to the error backoff queue, which is only flushed when its backoff ends) until a node
    is created at 6.5 s."""
    return _scenario(name, _pod("p"), _timeline(
        {"at": "6.5", "action": "createNode", "node": _node("n1")}), config=config)


_QUEUE_ORACLE_NAMES = (
    "queue_fairness's trace checks compare the queue names 'Active'/'Backoff' while the "
    "reference's trace says 'activeQ'/'backoffQ'/'unschedulablePods' (the SimulationResult "
    "vocabulary), so its pop-order, backoff and starvation checks never fire on the reference; "
    "with the names fixed in oracles/queue_fairness.py it rejects this mutant's witness")


_BACKOFF_NOTE = (
    "With SchedulerPopFromBackoffQ (on in v1.37.2) the scheduler pops podBackoffQ whenever "
    "activeQ is empty, and attempts take no virtual time, so a pod rejected by a plugin never "
    "waits out its backoff; only pods that failed without a rejecting plugin (podErrorBackoffQ: "
    "no nodes at all, Error statuses) wait for the flush. ")

_mutant(
    name="queue-backoff-uncapped", area="scheduling queue",
    summary="the backoff keeps doubling past podMaxBackoffSeconds",
    upstream="calculateBackoffDuration caps at podMaxBackoff "
             "(pkg/scheduler/backend/queue/backoff_queue.go)",
    patches=(Patch(_BACKOFF, _uncapped),),
    witness=lambda: _no_nodes_witness("backoff-cap", _config(
        podInitialBackoffSeconds=1, podMaxBackoffSeconds=1)),
    shows=_BACKOFF_NOTE + "genuine: backoffs of 1 s (max 1 s), attempts at 0, 2, 4, 6 s, bound "
          "at 8 s; mutant: 2 s after the second failure, attempts at 0, 2, 5 s, bound at 10 s",
    oracles=("queue_fairness",),
    missing_oracle=_QUEUE_ORACLE_NAMES)

_mutant(
    name="queue-no-backoff", area="scheduling queue",
    summary="a pod that failed is retried without backoff",
    upstream="a failed pod waits podInitialBackoffSeconds × 2^(attempts-1) in backoffQ "
             "(pkg/scheduler/backend/queue/backoff_queue.go, "
             "pkg/scheduler/backend/queue/scheduling_queue.go)",
    patches=(Patch(_BACKOFF, lambda orig: lambda self, count, entity_size=1: 0),),
    witness=lambda: _no_nodes_witness("no-backoff", _config(podInitialBackoffSeconds=2)),
    shows=_BACKOFF_NOTE + "genuine (podInitialBackoffSeconds 2): attempts at 0 and 3 s "
          "(backoffs of 2 and 4 s end on a flush, every whole second), bound at 8 s; mutant: "
          "an attempt every second, bound at 7 s",
    oracles=("queue_fairness",),
    missing_oracle=_QUEUE_ORACLE_NAMES + " (with its 1 s ordering-window tolerance it needs "
                   "podInitialBackoffSeconds >= 2 to tell)")

_mutant(
    name="queue-fifo", area="scheduling queue",
    summary="activeQ pops pods first in, first out, ignoring priority",
    upstream="PrioritySort.Less: higher priority first, then the earlier timestamp "
             "(pkg/scheduler/framework/plugins/queuesort/priority_sort.go)",
    patches=(Patch("reference_impl.plugins.queuesort:PrioritySort.less",
                   lambda orig: lambda self, a, b: a.timestamp < b.timestamp),),
    witness=lambda: _scenario(
        "fifo", _priority_class("high", 1000), _node("n1", cpu="1"),
        _pod("low", {"cpu": "1"}), _pod("high", {"cpu": "1"}, priority_class="high")),
    shows="genuine: high is popped first and takes the node, low stays pending; mutant: low is "
          "popped first and bound, then high preempts it",
    oracles=("queue_fairness",),
    missing_oracle=_QUEUE_ORACLE_NAMES)

# ----- preemption ---------------------------------------------------------------------------

_DP = "reference_impl.plugins.defaultpreemption.default_preemption"


def _no_reprieve(orig: Callable[..., Any]) -> Callable[..., Any]:
    def select_victims_on_node(self: Any, state: Any, preemptor: Any, node_info: Any,
                               all_possible_victims: list, pdbs: Any) -> Any:
        pods, num_violating, status = orig(self, state, preemptor, node_info,
                                           all_possible_victims, pdbs)
        if status is not None and not status.is_success():
            return pods, num_violating, status
        every = [pi.pod for v in all_possible_victims
                 if self.is_preemption_allowed_across_all_victim_nodes(v, preemptor)
                 for pi in v.pods]
        return every, num_violating, status
    return select_victims_on_node


def _reversed_importance(orig: Callable[..., Any]) -> Callable[..., Any]:
    def sort_slice(items: list, less: Callable[[Any, Any], bool]) -> None:
        orig(items, lambda a, b: less(b, a))
    return sort_slice


def _ignore_never(orig: Callable[..., Any]) -> Callable[..., Any]:
    def pod_eligible_to_preempt_others(self: Any, pod: Any, status: Any) -> tuple[bool, str]:
        if pod.preemption_policy == "Never":
            pod = dataclasses.replace(pod, preemption_policy="PreemptLowerPriority")
        return orig(self, pod, status)
    return pod_eligible_to_preempt_others


def _victims_at_or_below(orig: Callable[..., Any]) -> Callable[..., Any]:
    def get_victims_on_node(self: Any, node_info: Any, priority_below: int | None = None) -> Any:
        return orig(self, node_info, None if priority_below is None else priority_below + 1)
    return get_victims_on_node


def _allowed_at_or_below(orig: Callable[..., Any]) -> Callable[..., Any]:
    def is_preemption_allowed_across_all_victim_nodes(self: Any, victim: Any,
                                                      preemptor: Any) -> bool:
        if victim.priority > preemptor.priority:
            return False
        return all(self.is_eligible_pod(ni, victim, preemptor)
                   for ni in victim.affected_nodes.values())
    return is_preemption_allowed_across_all_victim_nodes


def _two_low_pods(name: str, p1: int, p2: int) -> ScenarioInput:
    return _scenario(
        name, _priority_class("p1", p1), _priority_class("p2", p2),
        _priority_class("critical", 1000), _node("n1", cpu="2"),
        _pod("a", {"cpu": "1"}, node="n1", priority_class="p1"),
        _pod("b", {"cpu": "1"}, node="n1", priority_class="p2"),
        _pod("p", {"cpu": "1"}, priority_class="critical"))


_mutant(
    name="preemption-no-reprieve", area="DefaultPreemption",
    summary="every lower-priority pod of the chosen node is evicted (no reprieve step)",
    upstream="SelectVictimsOnNode re-adds victims one by one and keeps those the preemptor still "
             "fits with (pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go)",
    patches=(Patch(f"{_DP}:DefaultPreemption.select_victims_on_node", _no_reprieve),),
    witness=lambda: _two_low_pods("no-reprieve", 10, 20),
    shows="genuine: only a (the less important) is evicted; mutant: a and b",
    oracles=("preemption",))

_mutant(
    name="preemption-least-important-reprieved-first", area="DefaultPreemption",
    summary="victims are reprieved least important first, so the most important pods are the ones "
            "evicted",
    upstream="SelectVictimsOnNode sorts the potential victims by MoreImportantVictim and "
             "reprieves the most important first "
             "(pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go, "
             "pkg/scheduler/framework/preemption/util.go)",
    patches=(Patch(f"{_DP}:sort_slice", _reversed_importance),),
    witness=lambda: _two_low_pods("reprieve-order", 10, 20),
    shows="genuine: b (priority 20) is reprieved, a (10) evicted; mutant: b evicted",
    oracles=("preemption",),
    missing_oracle="a victim-choice oracle: the preemption oracle checks that the victims are "
                   "minimal (re-adding any one breaks the fit), which holds for either order; "
                   "replaying upstream's reprieve in MoreImportantVictim order (PDB-violating "
                   "first) and requiring exactly its victims would catch it")

_mutant(
    name="preemption-ignores-pdbs", area="DefaultPreemption",
    summary="PodDisruptionBudgets are ignored when choosing victims and the node",
    upstream="FilterVictimsWithPDBViolation; pickOneNodeForPreemption prefers the fewest PDB "
             "violations (pkg/scheduler/framework/preemption/util.go, "
             "pkg/scheduler/framework/preemption/preemption.go)",
    patches=(Patch(f"{_DP}:filter_victims_with_pdb_violation",
                   lambda orig: lambda victims, pdbs: ([], list(victims))),),
    witness=lambda: _scenario(
        "pdbs", _priority_class("low", 0), _priority_class("mid", 5),
        _priority_class("critical", 1000),
        _node("n1", cpu="1"), _node("n2", cpu="1"),
        _pod("db", {"cpu": "1"}, node="n1", labels={"app": "db"}, priority_class="low"),
        _pod("web", {"cpu": "1"}, node="n2", labels=WEB, priority_class="mid"),
        {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
         "metadata": {"name": "db"},
         "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "db"}}},
         "status": {"disruptionsAllowed": 0}},
        _pod("p", {"cpu": "1"}, priority_class="critical")),
    shows="genuine: evicting db breaks its PDB, so web on n2 is preempted; mutant: db (lower "
          "priority) is",
    oracles=("preemption",),
    missing_oracle="the preemption oracle only counts PDBs that carry status.disruptionsAllowed "
                   "and the strategies never write it (the reference computes it from "
                   "minAvailable/maxUnavailable like the disruption controller); generating "
                   "status.disruptionsAllowed, or computing it in the oracle, would let the "
                   "oracle's PDB rule catch it")

_mutant(
    name="preemption-ignores-policy-never", area="DefaultPreemption",
    summary="pods with preemptionPolicy: Never preempt like any other",
    upstream="PodEligibleToPreemptOthers: preemptionPolicy Never does not preempt "
             "(pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go)",
    patches=(Patch(f"{_DP}:DefaultPreemption.pod_eligible_to_preempt_others",
                   _ignore_never),),
    witness=lambda: _scenario(
        "never", {**_priority_class("polite", 1000), "preemptionPolicy": "Never"},
        _node("n1", cpu="1"), _pod("a", {"cpu": "1"}, node="n1"),
        _pod("p", {"cpu": "1"}, priority_class="polite")),
    shows="genuine: p never preempts, pending; mutant: a is evicted",
    oracles=("preemption",))

_mutant(
    name="preemption-equal-priority-victims", area="DefaultPreemption",
    summary="pods of the same priority as the preemptor may be evicted (<= instead of <)",
    upstream="only pods of strictly lower priority are victims (isPreemptionAllowed in "
             "pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go, "
             "GetVictimsOnNode in pkg/scheduler/framework/preemption/preemption.go)",
    patches=(Patch("reference_impl.framework.preemption.preemption:Evaluator."
                   "get_victims_on_node", _victims_at_or_below),
             Patch(f"{_DP}:DefaultPreemption.is_preemption_allowed_across_all_victim_nodes",
                   _allowed_at_or_below)),
    witness=lambda: _scenario(
        "equal-priority", _priority_class("same", 100), _node("n1", cpu="1"),
        _pod("a", {"cpu": "1"}, node="n1", priority_class="same"),
        _pod("p", {"cpu": "1"}, priority_class="same")),
    shows="genuine: a has the same priority, no preemption; mutant: a is evicted",
    oracles=("preemption",))

# ----- framework: nominated pods, scheduling gates ------------------------------------------

_mutant(
    name="nominated-pods-ignored", area="framework",
    summary="Filter ignores pods nominated to the node (RunFilterPluginsWithNominatedPods runs "
            "the filters once, without them)",
    upstream="RunFilterPluginsWithNominatedPods adds nominated pods of equal or higher priority "
             "first (pkg/scheduler/framework/runtime/framework.go)",
    patches=(Patch("reference_impl.framework.runtime:Framework."
                   "run_filter_plugins_with_nominated_pods",
                   lambda orig: lambda self, state, pod, node_info: self.run_filter_plugins(
                       state, pod, node_info)),),
    witness=lambda: _scenario(
        "nominated", _priority_class("high", 1000), _node("n1", cpu="2"),
        _pod("reserved", {"cpu": "2"}, priority_class="high",
             schedulingGates=[{"name": "example.com/wait"}],
             status={"nominatedNodeName": "n1"}),
        _pod("p", {"cpu": "1"})),
    shows="genuine: n1 is held for the nominated high-priority pod, p pending; mutant: bound",
    oracles=("filters_honoured",))

_mutant(
    name="scheduling-gates-ignored", area="SchedulingGates",
    summary="pods with spec.schedulingGates are scheduled",
    upstream="SchedulingGates.PreEnqueue keeps gated pods out of activeQ "
             "(pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.go)",
    patches=(Patch("reference_impl.plugins.schedulinggates:SchedulingGates.pre_enqueue",
                   lambda orig: lambda self, pod: None),),
    witness=lambda: _scenario(
        "gates", _node("n1"), _pod("p", schedulingGates=[{"name": "example.com/wait"}])),
    shows="genuine: p stays gated; mutant: bound",
    oracles=("filters_honoured",))


MUTANTS: dict[str, Mutant] = {m.name: m for m in CATALOGUE}
assert len(MUTANTS) == len(CATALOGUE), "duplicate mutant names"


def get(name: str) -> Mutant:
    try:
        return MUTANTS[name]
    except KeyError:
        raise MutantError(f"unknown mutant {name!r} (known: {', '.join(MUTANTS)})") from None


def select(names: Sequence[str]) -> list[Mutant]:
    """The named mutants in catalogue order (all when ``names`` is empty); a name may be a
    comma list. ``MutantError`` for an unknown name."""
    wanted = [n.strip() for x in names for n in x.split(",") if n.strip()]
    for n in wanted:
        get(n)
    if not wanted:
        return list(CATALOGUE)
    return [m for m in CATALOGUE if m.name in set(wanted)]


# --------------------------------------------------------------------------------------------
# The mutated subject and the witness check
# --------------------------------------------------------------------------------------------


class MutantSubject(Subject):
    """The reference scheduler with one mutant applied while it schedules (only then: the
    oracles judge with the genuine code)."""

    reports_scores = True

    def __init__(self, mutant: Mutant, inner: Subject | None = None) -> None:
        from conformance.subjects.reference import ReferenceSubject

        self.mutant = mutant
        self.inner = inner if inner is not None else ReferenceSubject()
        self.name = f"reference+{mutant.name}"

    def run(self, scenario: ScenarioInput) -> SubjectResult:
        with self.mutant.applied():
            return self.inner.run(scenario)

    def describe(self) -> dict[str, str]:
        d = dict(self.inner.describe())
        d["subject"] = self.name
        d["mutant"] = self.mutant.summary
        return d


def _decisions(result: Mapping[str, Any]) -> dict[str, Any]:
    """The parts of a SimulationResult that show a behaviour change."""
    return {k: result.get(k) for k in ("attempts", "bindings", "pending", "deleted")}


def witness_results(mutant: Mutant) -> tuple[dict[str, Any], dict[str, Any]]:
    """The reference's SimulationResult on the mutant's witness, genuine then mutated."""
    genuine, mutated = _witness_runs(mutant)
    return genuine.result, mutated.result


def _witness_runs(mutant: Mutant) -> tuple[SubjectResult, SubjectResult]:
    from conformance.subjects.reference import ReferenceSubject

    ref = ReferenceSubject()
    genuine = ref.run(mutant.witness())
    mutated = MutantSubject(mutant, ref).run(mutant.witness())
    return genuine, mutated


def witness_differs(mutant: Mutant) -> bool:
    """True when the mutant changes the reference's decisions on its witness."""
    genuine, mutated = witness_results(mutant)
    return _decisions(genuine) != _decisions(mutated)


@dataclass(slots=True)
class WitnessCheck:
    """The witness scheduled with and without the mutant, and judged by the oracles."""

    differs: bool
    caught_by: list[str]  # oracles that reject the mutated reference's result
    genuine_violations: list[str]  # violations of the genuine result (an oracle false alarm)


def check_witness(mutant: Mutant, oracle_names: Sequence[str] = ()) -> WitnessCheck:
    """Schedule the witness with the genuine and the mutated reference and apply the oracles to
    both results: the mutant must change the decisions; ``caught_by`` tells whether the oracles
    can see the bug at all (on an input that exposes it)."""

    checks = select_oracles(oracle_names)
    genuine, mutated = _witness_runs(mutant)
    scenario = mutant.witness()
    subject = MutantSubject(mutant)
    bad = check_result(scenario, mutated, subject, checks)
    good = check_result(scenario, genuine, subject, checks)
    return WitnessCheck(_decisions(genuine.result) != _decisions(mutated.result),
                        sorted({f.oracle for f in bad}), [str(f) for f in good])


# --------------------------------------------------------------------------------------------
# The runner
# --------------------------------------------------------------------------------------------

CAUGHT = "caught"
SURVIVED = "survived"
EQUIVALENT = "equivalent"  # survived, documented as equivalent on generated scenarios
INEFFECTIVE = "ineffective"  # the witness did not change: the patch misses its target
ERROR = "error"

THRESHOLD = 90.0
DEFAULT_BUDGET = 300.0  # seconds, wall clock, for the whole catalogue
DEFAULT_MAX_EXAMPLES = 1000
DEFAULT_SEED = 0
#: the pseudo-oracle of the shared property (every oracle on each generated scenario)
ALL_ORACLES_PROPERTY = "all-oracles"


@dataclass(slots=True)
class MutantsOptions:
    only: Sequence[str] = ()
    budget: float | None = DEFAULT_BUDGET
    max_examples: int = DEFAULT_MAX_EXAMPLES
    seed: int = DEFAULT_SEED
    jobs: int | None = None  # default: the number of CPUs
    families: Sequence[str] = ("small",)
    oracles: Sequence[str] = ()  # default: every oracle
    per_property: bool = False  # one Hypothesis run per oracle, as `kschedconf run`
    golden: bool = True  # then the golden suite: decisions recorded from upstream
    golden_dir: str = "golden"


@dataclass(slots=True)
class PropertyOutcome:
    """One Hypothesis run against a mutant: one family, one oracle (``per_property``) or every
    oracle on each scenario (``all-oracles``)."""

    oracle: str
    family: str
    failed: bool
    examples: int  # examples generated (up to and including the first failing one)
    seconds: float  # time spent on the run
    caught_by: list[str] = field(default_factory=list)  # oracles violated by the first failure
    detected_after: float | None = None  # seconds into the run at the first violation
    stopped_by: str = ""
    message: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"oracle": self.oracle, "family": self.family, "failed": self.failed,
                "caughtBy": list(self.caught_by), "examples": self.examples,
                "seconds": round(self.seconds, 3),
                "detectedAfter": (None if self.detected_after is None
                                  else round(self.detected_after, 3)),
                "stoppedBy": self.stopped_by, "message": self.message}


@dataclass(slots=True)
class MutantOutcome:
    name: str
    area: str
    summary: str
    status: str = SURVIVED
    caught_by: list[str] = field(default_factory=list)
    examples: int | None = None  # examples up to the first failure (quickest run)
    seconds: float | None = None  # seconds to the first violation (quickest run)
    message: str = ""  # the first violation (caught), or the error
    properties: list[PropertyOutcome] = field(default_factory=list)
    examples_run: int = 0  # every example generated for this mutant
    total_seconds: float = 0.0  # witness check and every run
    witness_caught_by: list[str] = field(default_factory=list)  # oracles rejecting the witness
    equivalent: str = ""
    missing_oracle: str = ""

    @property
    def counted(self) -> bool:
        """Counts towards the caught percentage (not a documented-equivalent survivor)."""
        return self.status != EQUIVALENT

    def survivor_note(self) -> str:
        """Why a survivor survived: the oracles are blind to it (even on its witness: the
        catalogue names the missing oracle), or they see it on its witness but no generated
        scenario exposed it (a coverage gap)."""
        if self.status == EQUIVALENT:
            return f"equivalent on generated scenarios: {self.equivalent}"
        if self.status != SURVIVED:
            return ""
        if self.witness_caught_by:
            return (f"coverage: {', '.join(self.witness_caught_by)} rejects it on its witness "
                    f"scenario, but none of the {self.examples_run} generated scenarios exposed "
                    "it" + (f"; {self.missing_oracle}" if self.missing_oracle else ""))
        return ("blind: no oracle rejects it even on its witness scenario; missing oracle: "
                + (self.missing_oracle or "not documented in the catalogue"))

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "area": self.area, "summary": self.summary,
                "status": self.status, "caughtBy": list(self.caught_by),
                "examples": self.examples,
                "seconds": None if self.seconds is None else round(self.seconds, 3),
                "message": self.message, "examplesRun": self.examples_run,
                "totalSeconds": round(self.total_seconds, 3),
                "witnessCaughtBy": list(self.witness_caught_by),
                "survivorNote": self.survivor_note() or None,
                "equivalent": self.equivalent or None,
                "missingOracle": self.missing_oracle or None,
                "properties": [p.to_dict() for p in self.properties]}


def run_mutant(mutant: Mutant, opts: MutantsOptions, share: float | None = None
               ) -> MutantOutcome:
    """Check the mutant's witness, then run the property suite against the mutated reference
    within ``share`` seconds (None: no time limit). Never raises.

    By default each family's scenarios are generated once and every oracle judges each of them
    (one Hypothesis run per family, ``all-oracles``): generating a scenario costs several times
    more than scheduling and judging it, so this gives every oracle as many scenarios as
    ``kschedconf run`` would give it alone, for the price of one property. The run stops at
    the first scenario some oracle rejects; ``caught_by`` lists every oracle that rejected it.
    With ``opts.per_property`` every (family, oracle) property runs on its own scenarios, as
    ``kschedconf run`` does, each stopping at its first failure; ``caught_by`` lists every
    property that failed."""

    t0 = time.monotonic()
    out = MutantOutcome(mutant.name, mutant.area, mutant.summary,
                        equivalent=mutant.equivalent, missing_oracle=mutant.missing_oracle)
    try:
        w = check_witness(mutant, opts.oracles)
        out.witness_caught_by = w.caught_by
        if not w.differs or w.genuine_violations:
            if w.genuine_violations:
                out.status = ERROR
                out.message = ("the genuine reference fails the oracles on the witness "
                               f"scenario (a false alarm or a bad witness): "
                               f"{w.genuine_violations[0]}")
            else:
                out.status = INEFFECTIVE
                out.message = ("the witness scenario is scheduled the same with and without "
                               "the mutant: the patch no longer reaches the code it targets")
            out.total_seconds = time.monotonic() - t0
            return out
        from hypothesis import settings

        checks = select_oracles(opts.oracles)
        base = settings(no_shrink(profile_settings("dev")), database=None)
        subject = MutantSubject(mutant)
        if opts.per_property:
            runs = [(p, {p.oracle: checks[p.oracle]})
                    for p in property_list(list(opts.families), list(checks))]
        else:
            runs = [(Property(f, ALL_ORACLES_PROPERTY), checks) for f in opts.families]
        for i, (prop, run_checks) in enumerate(runs):
            deadline = None
            if share is not None:
                remaining = share - (time.monotonic() - t0)
                deadline = time.monotonic() + max(remaining, 0.0) / (len(runs) - i)
            out.properties.append(_run_one(prop, subject, run_checks, base, opts, deadline))
        if opts.golden and not any(p.failed for p in out.properties):
            golden = _run_golden(subject, opts.golden_dir)
            if golden is not None:
                out.properties.append(golden)
    except Exception as e:  # a broken patch target, an oracle or harness bug
        out.status = ERROR
        out.message = f"{type(e).__name__}: {e}"
        out.total_seconds = time.monotonic() - t0
        return out
    out.examples_run = sum(p.examples for p in out.properties)
    failed = [p for p in out.properties if p.failed]
    if failed:
        out.status = CAUGHT
        out.caught_by = sorted({o for p in failed for o in p.caught_by})
        quickest = min(failed, key=lambda p: (p.detected_after or p.seconds))
        out.examples = quickest.examples
        out.seconds = (quickest.detected_after if quickest.detected_after is not None
                       else quickest.seconds)
        out.message = quickest.message
    elif mutant.equivalent:
        out.status = EQUIVALENT
    out.total_seconds = time.monotonic() - t0
    return out


GOLDEN_PROPERTY = "golden"


def _run_golden(subject: Subject, directory: str) -> PropertyOutcome | None:
    """The golden suite (``kschedconf run --suite golden``): every golden scenario through the
    mutated reference, its decisions compared with those recorded from upstream; stops at the
    first scenario that differs. None when there are no golden files."""

    try:
        files = golden_files(directory)
    except ValueError:
        return None
    start = time.monotonic()
    for i, path in enumerate(files, 1):
        scenario, decisions, _ = read_scenario_file(path)
        if decisions is None:
            continue
        try:
            result = subject.run(scenario).result
        except Exception as e:  # a crash of the mutated reference is a catch too
            diffs = [f"the subject raised {type(e).__name__}: {e}"]
        else:
            diffs = compare_golden(decisions, result)
        if diffs:
            elapsed = time.monotonic() - start
            return PropertyOutcome(GOLDEN_PROPERTY, "golden", True, i, elapsed,
                                   caught_by=[GOLDEN_PROPERTY], detected_after=elapsed,
                                   stopped_by="failure",
                                   message=f"{path.name}: {diffs[0]}")
    return PropertyOutcome(GOLDEN_PROPERTY, "golden", False, len(files),
                           time.monotonic() - start, stopped_by="exhausted")


def _run_one(prop: Any, subject: Subject, checks: Mapping[str, Callable[[Any], list[Any]]],
             base: Any, opts: MutantsOptions, deadline: float | None) -> PropertyOutcome:
    """One Hypothesis run (no shrinking) of ``prop`` applying ``checks`` to each scenario."""

    start = time.monotonic()
    first: list[tuple[float, list[str]]] = []

    def check(ctx: Any) -> list[Any]:
        found: list[Any] = []
        fired: list[str] = []
        for name, chk in checks.items():
            try:
                violations = list(chk(ctx) or ())
            except Exception as e:  # an oracle bug must not pass silently
                violations = [f"[{name}] the oracle raised {type(e).__name__}: {e}"]
            if violations:
                fired.append(name)
                found += violations
        if found and not first:
            first.append((time.monotonic() - start, fired))
        return found

    st = run_property(prop, subject, check, base=base,
                             max_examples=opts.max_examples, seed=opts.seed, deadline=deadline)
    if st.failure is None and (st.error or st.subject_error is not None):
        raise RuntimeError(f"property {prop.id}: {st.error or st.subject_error}")
    out = PropertyOutcome(prop.oracle, prop.family, st.failure is not None, st.examples,
                          time.monotonic() - start, stopped_by=st.stopped_by)
    if st.failure is not None:
        findings = st.failure[1]
        text = str(findings[0]).splitlines()[0] if findings else ""
        out.message = text.removeprefix(f"[{ALL_ORACLES_PROPERTY}] ")[:300]
        if first:
            out.detected_after, out.caught_by = first[0][0], sorted(first[0][1])
        else:  # the mutated reference crashed (CRASH)
            out.detected_after = st.seconds
            out.caught_by = sorted({f.oracle for f in findings})
    return out


def _worker(args: tuple[str, MutantsOptions, float | None]) -> MutantOutcome:
    name, opts, share = args
    return run_mutant(get(name), opts, share)


@dataclass(slots=True)
class MutantsReport:
    outcomes: list[MutantOutcome]
    opts: MutantsOptions
    seconds: float = 0.0
    jobs: int = 1

    @property
    def counted(self) -> list[MutantOutcome]:
        return [o for o in self.outcomes if o.counted]

    @property
    def caught(self) -> int:
        return sum(1 for o in self.outcomes if o.status == CAUGHT)

    @property
    def percent(self) -> float:
        n = len(self.counted)
        return 100.0 * self.caught / n if n else 100.0

    @property
    def exit_code(self) -> int:
        if any(o.status in (ERROR, INEFFECTIVE) for o in self.outcomes):
            return EXIT_USAGE
        return EXIT_OK if self.percent >= THRESHOLD else EXIT_FAILED

    def to_dict(self) -> dict[str, Any]:
        from reference_impl.releases.pinned import UPSTREAM_RELEASE

        o = self.opts
        return {
            "apiVersion": "kschedconf/v1", "kind": "MutantsReport",
            "upstreamRelease": UPSTREAM_RELEASE,
            "seed": o.seed, "maxExamples": o.max_examples, "budget": o.budget,
            "families": list(o.families), "perProperty": o.per_property, "jobs": self.jobs,
            "caught": self.caught, "counted": len(self.counted), "total": len(self.outcomes),
            "percent": round(self.percent, 1), "threshold": THRESHOLD,
            "passed": self.exit_code == EXIT_OK, "seconds": round(self.seconds, 1),
            "mutants": [m.to_dict() for m in self.outcomes],
        }


#: Share of a *blind* mutant (no oracle rejects even its witness) relative to the others: it
#: still runs, but the time mostly goes to mutants the oracles can see.
BLIND_WEIGHT = 0.25
#: A second round is worth it only with at least this many seconds per survivor (Hypothesis
#: spends its first examples on deliberately small scenarios).
SECOND_ROUND_MIN_SECONDS = 5.0


class _Budget:
    """Shares ``budget`` seconds of wall clock × ``jobs`` workers among the mutants: each one,
    when it starts, gets its weight's part of what the finished ones did not use and the
    running ones have not reserved, so the time of mutants caught early goes to the next."""

    def __init__(self, budget: float | None, jobs: int, weights: Mapping[str, float]) -> None:
        self.total = None if budget is None else budget * jobs
        self.pending = dict(weights)  # not started yet: name -> weight
        self.spent = 0.0
        self.reserved: dict[str, float] = {}

    def start(self, name: str) -> float | None:
        weight_sum = sum(self.pending.values())
        weight = self.pending.pop(name)
        if self.total is None:
            return None
        free = self.total - self.spent - sum(self.reserved.values())
        share = max(free, 0.0) * weight / weight_sum if weight_sum > 0 else 0.0
        self.reserved[name] = share
        return share

    def finish(self, name: str, seconds: float) -> None:
        self.reserved.pop(name, None)
        self.spent += seconds


def _plan(mutants: Sequence[Mutant], oracle_names: Sequence[str]
          ) -> tuple[list[Mutant], dict[str, float]]:
    """The run order and weights: blind mutants (no oracle rejects their witness) first and
    with a smaller share, so that the time left over by early catches goes to the mutants the
    oracles can see. A witness that cannot be checked here gets weight 1 (the worker reports
    the error)."""
    weights: dict[str, float] = {}
    for mu in mutants:
        try:
            seen = bool(check_witness(mu, oracle_names).caught_by)
        except Exception:
            seen = True
        weights[mu.name] = 1.0 if seen else BLIND_WEIGHT
    order = sorted(mutants, key=lambda mu: weights[mu.name] == 1.0)  # stable: blind first
    return order, weights


def _run_round(tasks: Sequence[tuple[Mutant, MutantsOptions]], jobs: int, budget: _Budget,
               finished: Callable[[MutantOutcome], None]) -> None:
    """Run ``(mutant, options)`` tasks, ``jobs`` at a time, each with its budget share."""
    if jobs == 1 or len(tasks) == 1:
        for mu, o in tasks:
            finished(run_mutant(mu, o, budget.start(mu.name)))
        return
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    todo = list(tasks)
    with ProcessPoolExecutor(max_workers=min(jobs, len(tasks)),
                             mp_context=multiprocessing.get_context("fork")) as pool:
        running: set[Any] = set()
        while todo or running:
            while todo and len(running) < jobs:
                mu, o = todo.pop(0)
                running.add(pool.submit(_worker, (mu.name, o, budget.start(mu.name))))
            finished_now, running = wait(running, return_when=FIRST_COMPLETED)
            for f in finished_now:
                finished(f.result())


def _merge(first: MutantOutcome, second: MutantOutcome) -> MutantOutcome:
    """A mutant's second round appended to its first: counts and times are cumulative."""
    if second.status in (ERROR, INEFFECTIVE):
        first.message = f"second round: {second.message}"
        first.total_seconds += second.total_seconds
        return first
    ran_before = sum(p.seconds for p in first.properties)
    second.properties = first.properties + second.properties
    if second.status == CAUGHT:
        second.examples = (second.examples or 0) + first.examples_run
        second.seconds = (second.seconds or 0.0) + ran_before
    second.examples_run += first.examples_run
    second.total_seconds += first.total_seconds
    return second


def run_mutants(opts: MutantsOptions, progress: TextIO | None = None) -> MutantsReport:
    """Run the selected mutants (in ``jobs`` parallel processes when more than one);
    ``progress`` gets one line per finished mutant. ``MutantError`` for an unknown name.

    Round 1 runs every mutant within its budget share. Round 2 gives the time left over to the
    survivors the oracles can see on their witness and that have not used ``max_examples``
    yet: a fresh Hypothesis run (seed + 1, new scenarios) for the remaining examples."""
    mutants = select(opts.only)
    n = len(mutants)
    jobs = max(1, min(opts.jobs or os.cpu_count() or 1, n))
    t0 = time.monotonic()
    order, weights = _plan(mutants, opts.oracles)
    budget = _Budget(opts.budget, jobs, weights)
    done: dict[str, MutantOutcome] = {}

    def finished(o: MutantOutcome) -> None:
        budget.finish(o.name, o.total_seconds)
        first = done.get(o.name)
        done[o.name] = o if first is None else _merge(first, o)
        if progress is not None:
            label = f"{len(done):>2}/{n}" if first is None else "again"
            progress.write(f"  [{label}] {progress_line(done[o.name])}\n")
            progress.flush()

    _run_round([(mu, opts) for mu in order], jobs, budget, finished)
    if opts.budget is not None:
        again = [mu for mu in order
                 if done[mu.name].status == SURVIVED and done[mu.name].witness_caught_by
                 and done[mu.name].examples_run < opts.max_examples]
        if again:
            budget = _Budget(max(opts.budget - (time.monotonic() - t0), 0.0), jobs,
                             {mu.name: 1.0 for mu in again})
            if budget.total and budget.total / len(again) >= SECOND_ROUND_MIN_SECONDS:
                _run_round([(mu, dataclasses.replace(
                    opts, seed=opts.seed + 1,
                    max_examples=opts.max_examples - done[mu.name].examples_run))
                    for mu in again], jobs, budget, finished)
    outcomes = [done[m.name] for m in mutants]
    return MutantsReport(outcomes, opts, time.monotonic() - t0, jobs)


# --------------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------------


def _fmt_s(x: float | None) -> str:
    return "-" if x is None else f"{x:.1f}"


def progress_line(o: MutantOutcome) -> str:
    if o.status == CAUGHT:
        return (f"{o.status:<8} {o.name}  by {', '.join(o.caught_by)} after {o.examples} "
                f"example(s), {_fmt_s(o.seconds)}s")
    if o.status in (ERROR, INEFFECTIVE):
        return f"{o.status.upper():<8} {o.name}  {o.message}"
    seen = (f", its witness is rejected by {', '.join(o.witness_caught_by)}"
            if o.witness_caught_by else ", no oracle rejects its witness")
    return (f"{o.status:<8} {o.name}  ({o.examples_run} examples, "
            f"{_fmt_s(o.total_seconds)}s{seen})")


def table(report: MutantsReport) -> str:
    rows = [("MUTANT", "STATUS", "CAUGHT BY", "EXAMPLES", "SECONDS")]
    for o in report.outcomes:
        rows.append((o.name, o.status, ", ".join(o.caught_by) or "-",
                     "-" if o.examples is None else str(o.examples), _fmt_s(o.seconds)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
             for r in rows]
    notes = []
    for o in report.outcomes:
        if o.status == SURVIVED:
            notes.append(f"survived {o.name}: {o.survivor_note()}")
        elif o.status == EQUIVALENT:
            notes.append(f"equivalent {o.name} (not counted): {o.equivalent}")
        elif o.status in (ERROR, INEFFECTIVE):
            notes.append(f"{o.status} {o.name}: {o.message}")
    n = len(report.counted)
    lines.append("")
    lines += notes
    if notes:
        lines.append("")
    lines.append(f"caught {report.caught}/{n} ({report.percent:.1f} %)"
                 + (f", {len(report.outcomes) - n} equivalent not counted"
                    if len(report.outcomes) != n else "")
                 + f"; threshold {THRESHOLD:.0f} %; {report.seconds:.1f}s")
    return "\n".join(lines) + "\n"


def to_json(report: MutantsReport) -> str:
    return json.dumps(report.to_dict(), indent=2) + "\n"


def write_junit_report(path: str, report: MutantsReport) -> None:
    """One test case per mutant: caught passes, survived fails, equivalent is skipped,
    ineffective / error are errors."""
    from conformance.core.results import ERROR as J_ERROR
    from conformance.core.results import FAILED, PASSED, SKIPPED, CaseResult
    from conformance.reporters.junit import write_junit

    cases = []
    for o in report.outcomes:
        status = {CAUGHT: PASSED, SURVIVED: FAILED, EQUIVALENT: SKIPPED}.get(o.status, J_ERROR)
        if o.status == CAUGHT:
            msg = f"caught by {', '.join(o.caught_by)}"
        elif o.status == SURVIVED:
            msg = f"survived: {o.survivor_note()}"
        elif o.status == EQUIVALENT:
            msg = f"equivalent on generated scenarios: {o.equivalent}"
        else:
            msg = o.message
        details = "\n".join(f"{p.family}/{p.oracle}: {'FAILED' if p.failed else 'passed'} "
                            f"after {p.examples} examples, {p.seconds:.2f}s"
                            + (f": {p.message}" if p.message else "") for p in o.properties)
        cases.append(CaseResult(
            "mutants", f"kschedconf.mutants.{o.area.replace(' ', '_')}", o.name, status=status,
            seconds=o.total_seconds, examples=o.examples or 0, message=msg,
            details=details or msg,
            properties={"summary": o.summary, "caught_by": ",".join(o.caught_by)}))
    d = report.to_dict()
    write_junit(path, cases, {k: str(d[k]) for k in (
        "upstreamRelease", "seed", "maxExamples", "budget", "caught", "counted", "percent")})


def catalogue_table() -> str:
    """``kschedconf mutants --list``."""
    lines = []
    for m in CATALOGUE:
        tag = " [equivalent on generated scenarios]" if m.equivalent else (
            " [known survivor]" if m.missing_oracle else "")
        lines.append(f"{m.name}  ({m.area}){tag}\n    {m.summary}\n    upstream: {m.upstream}")
    return "\n".join(lines) + "\n"


__all__ = [
    "CATALOGUE", "CAUGHT", "EQUIVALENT", "ERROR", "INEFFECTIVE", "MUTANTS", "SURVIVED",
    "Mutant", "MutantError", "MutantOutcome", "MutantSubject", "MutantsOptions",
    "MutantsReport", "Patch", "get", "patched", "run_mutant", "run_mutants", "select",
    "table", "to_json", "witness_differs", "witness_results", "write_junit_report",
]
