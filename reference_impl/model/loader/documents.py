"""Reading manifests: files (YAML, JSON, directories, stdin) into documents, documents (objects,
``kind: List``, typed lists) into raw objects dispatched by kind, and the conversion of all of
them into one :class:`LoadResult`; the public entry points ``load_documents``, ``load_paths``
and ``load_pod_file``.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from reference_impl.model.decoding import (
    InputLocation,
    JsonFloat,
    plain,
    read_list,
    read_map,
    read_str,
    show,
)
from reference_impl.model.dra import DRAObjects
from reference_impl.model.errors import InputError
from reference_impl.model.generated_names import generate_name
from reference_impl.model.loader.admission import (
    ADMISSION_KINDS,
    SCENARIO_API_VERSION,
    Admission,
    admit_claims,
    admit_documents,
)
from reference_impl.model.loader.controllers import (
    CONTROLLER_KINDS,
    _replica_set,
    _replication_controller,
    _service,
    _stateful_set,
    removed_api_version_warning,
    served_api_version,
)
from reference_impl.model.loader.defaults import (
    LABEL_METADATA_NAME,
    SYSTEM_PRIORITY_CLASSES,
    _deterministic_uid,
    _global_default_class,
)
from reference_impl.model.loader.ephemeral import add_controller_claims, create_ephemeral_claims
from reference_impl.model.loader.fields import _Raw
from reference_impl.model.loader.memo import LoadMemo
from reference_impl.model.loader.node import _node
from reference_impl.model.loader.pod import _pod
from reference_impl.model.loader.policy import _namespace, _pdb, _priority_class
from reference_impl.model.loader.resource import (
    NAMESPACED_RESOURCE_KINDS,
    RESOURCE_GROUP,
    RESOURCE_KINDS,
    _device_class,
    _device_taint_rule,
    _resource_claim,
    _resource_claim_template,
    _resource_slice,
)
from reference_impl.model.loader.resourceclaims import create_template_claims
from reference_impl.model.loader.storage import (
    NAMESPACED_STORAGE_KINDS,
    build_storage,
    storage_kind,
)
from reference_impl.model.objects import Cluster, Namespace, Pod

KUBE_SCHEDULER_CONFIG_GROUP = "kubescheduler.config.k8s.io"

#: kschedconf/v1 documents that describe a scenario file rather than the cluster: passed over
#: with a warning saying what they hold (docs/golden.md)
ABOUT_THE_FILE = {
    "ScenarioInfo": "the scenario's name, seed and notes",
    "GoldenDecisions": "the decisions recorded from upstream; kschedconf reproduce compares them",
}
_TERMINAL_PHASES = ("Succeeded", "Failed")
_NAMESPACED = ("Pod", "PodDisruptionBudget", *CONTROLLER_KINDS, *NAMESPACED_RESOURCE_KINDS,
               *NAMESPACED_STORAGE_KINDS)
_OBJECT = "a mapping (a Kubernetes object)"


@dataclass(slots=True)
class LoadResult:
    """The cluster read from the inputs, the warnings about ignored objects, the raw
    Scenario document (``apiVersion: kschedconf/v1``) if one was found, what admission did
    to the pods (``load_paths`` with an admission mode; None when it did not run), and the DRA
    objects."""

    cluster: Cluster
    warnings: list[str] = field(default_factory=list)
    scenario: dict | None = None
    #: the objects of kinds the loader does not read, by kind; their warnings (one per kind and
    #: file, also in ``warnings``) are ``ignored_warnings``
    ignored: dict[str, int] = field(default_factory=dict)
    ignored_warnings: list[str] = field(default_factory=list)
    admission: Admission | None = None
    #: the resource.k8s.io/v1 objects (model/dra.py): ``cluster.dra``, with the claims the
    #: template pre-pass created (``resourceclaims.py``)
    dra: DRAObjects = field(default_factory=DRAObjects)


def _yaml_loader_class() -> type:
    """A safe loader that keeps timestamps as strings (sigs.k8s.io/yaml hands metav1.Time the
    text), using libyaml when available."""
    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    resolvers = {
        ch: [(tag, rx) for tag, rx in entries if tag != "tag:yaml.org,2002:timestamp"]
        for ch, entries in base.yaml_implicit_resolvers.items()
    }
    return type("_KschedLoader", (base,), {"yaml_implicit_resolvers": resolvers})


_YamlLoader = _yaml_loader_class()


def _parse_text(text: str, source: str, *, is_json: bool) -> list[tuple[int, Any]]:
    """Documents of a file as (1-based number, value); empty YAML documents are skipped."""
    if is_json:
        try:
            value = json.loads(text, parse_float=JsonFloat)
        except json.JSONDecodeError as e:
            raise InputError(f"invalid JSON at line {e.lineno} column {e.colno}: {e.msg}",
                             source=source) from None
        if isinstance(value, list):
            return list(enumerate(value, start=1))
        return [(1, value)]
    docs: list[tuple[int, Any]] = []
    try:
        for i, doc in enumerate(yaml.load_all(text, Loader=_YamlLoader), start=1):
            if doc is not None:
                docs.append((i, doc))
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        problem = getattr(e, "problem", None) or str(e)
        raise InputError(f"invalid YAML{where}: {problem}", source=source) from None
    return docs


def _expand_paths(paths: Iterable[str | os.PathLike[str]]) -> list[str]:
    out: list[str] = []
    for p in (os.fspath(x) for x in paths):
        if p != "-" and os.path.isdir(p):
            names = sorted(n for n in os.listdir(p)
                           if n.endswith((".yaml", ".yml", ".json")))
            out.extend(os.path.join(p, n) for n in names)
        else:
            out.append(p)
    return out


def read_documents(paths: Iterable[str | os.PathLike[str]]) -> list[tuple[str, int, Any]]:
    """All documents of the given files (a directory means its *.yaml/*.yml/*.json files,
    "-" means stdin) as (source, document number, value)."""
    out: list[tuple[str, int, Any]] = []
    for path in _expand_paths(paths):
        if path == "-":
            text, source = sys.stdin.read(), "<stdin>"
        else:
            source = path
            try:
                with open(path, encoding="utf-8") as f:
                    text = f.read()
            except OSError as e:
                raise InputError(f"cannot read file: {e.strerror or e}", source=path) from None
            except UnicodeDecodeError as e:
                raise InputError(f"file is not UTF-8 text: {e.reason}", source=path) from None
        if path.endswith(".json"):
            docs = _parse_text(text, source, is_json=True)
        elif text.lstrip().startswith(("{", "[")):
            # JSON content (exact number text) if it is one JSON value, else YAML
            try:
                docs = _parse_text(text, source, is_json=True)
            except InputError:
                docs = _parse_text(text, source, is_json=False)
        else:
            docs = _parse_text(text, source, is_json=False)
        out.extend((source, i, doc) for i, doc in docs)
    return out


def _group(api_version: str) -> str:
    return api_version.rpartition("/")[0] if "/" in api_version else ""


def _object_kind(api_version: str, kind: str) -> str | None:
    """The model kind of a (apiVersion, kind), or None if not one we read."""
    group = _group(api_version)
    if kind in ("Node", "Pod", "Namespace") and (not api_version or api_version == "v1"):
        return kind
    if kind == "PriorityClass" and (not api_version or group == "scheduling.k8s.io"):
        return kind
    if kind == "PodDisruptionBudget" and (not api_version or group == "policy"):
        return kind
    if served_api_version(kind, api_version) is not None:
        return kind
    if (group, kind) in ADMISSION_KINDS:
        return kind
    if kind in RESOURCE_KINDS and api_version == f"{RESOURCE_GROUP}/v1":
        return kind
    if storage_kind(api_version, kind) is not None:
        return kind
    if kind == "KubeSchedulerConfiguration" and (not api_version
                                                 or group == KUBE_SCHEDULER_CONFIG_GROUP):
        return kind
    return None


class _Builder:
    """Collects raw objects from documents, then converts all of them at once."""

    def __init__(self) -> None:
        self.raw: list[_Raw] = []
        self.seen: dict[tuple[str, str, str], InputLocation] = {}
        self.ignored: dict[tuple[str, str, str], int] = {}
        self.about: list[str] = []
        self.generated: dict[tuple[str, str, str], int] = {}
        self.config: tuple[dict, InputLocation] | None = None
        self.scenario: tuple[dict, InputLocation] | None = None
        self.admission_objects: dict[str, int] = {}

    # collection

    def add_document(self, doc: object, source: str, document: int | None) -> None:
        ctx = InputLocation(source, document)
        doc = read_map(ctx, doc, "", what=_OBJECT, nullable=False, shown=False)
        kind = doc.get("kind")
        api_version = doc.get("apiVersion")
        if api_version == SCENARIO_API_VERSION:
            self._add_object(doc, ctx, "")
            return
        if isinstance(kind, str) and (kind == "List" or (kind.endswith("List") and "items" in doc)):
            item_kind = kind[:-4] if kind != "List" else ""
            for i, item in enumerate(read_list(ctx, doc.get("items"), "items")):
                ictx = InputLocation(source, document, f"items[{i}]")
                item = read_map(ictx, item, "", what=_OBJECT, nullable=False, shown=False)
                self._add_object(item, ictx, item_kind)
            return
        self._add_object(doc, ctx, "")

    def _add_object(self, doc: Mapping[str, Any], ctx: InputLocation, default_kind: str) -> None:
        kind = doc.get("kind") or default_kind
        api_version = read_str(ctx, doc.get("apiVersion"), "apiVersion", shown=False)
        if api_version == SCENARIO_API_VERSION and kind in ABOUT_THE_FILE:
            self.about.append(f"{ctx.where()}: ignored the {kind} document "
                              f"({ABOUT_THE_FILE[kind]})")
            return
        if api_version == SCENARIO_API_VERSION:
            if self.scenario is not None:
                raise ctx.error("", f"a second {SCENARIO_API_VERSION} document (the first is in "
                                    f"{self.scenario[1].where()}); expected at most one")
            self.scenario = (plain(doc), ctx)
            return
        if not kind:
            raise ctx.error("kind", "required: every object needs a kind")
        if not isinstance(kind, str):
            raise ctx.error("kind", ctx.expected("a string", kind, shown=False))
        model_kind = _object_kind(api_version, kind)
        if model_kind is None:
            key = (kind, api_version, ctx.source)
            self.ignored[key] = self.ignored.get(key, 0) + 1
            return
        if (_group(api_version), model_kind) in ADMISSION_KINDS:
            # read by the admission pre-pass (admission/__init__.py), not part of the model
            self.admission_objects[model_kind] = self.admission_objects.get(model_kind, 0) + 1
            return
        if model_kind == "KubeSchedulerConfiguration":
            if self.config is not None:
                raise ctx.error("", "a second KubeSchedulerConfiguration (the first is in "
                                    f"{self.config[1].where()}); expected at most one")
            self.config = (plain(doc), ctx)
            return
        meta = read_map(ctx, doc.get("metadata"), "metadata")
        namespace = ""
        if model_kind in _NAMESPACED:
            namespace = read_str(ctx, meta.get("namespace"), "metadata.namespace") or "default"
        name = meta.get("name")
        if name is None and meta.get("generateName") is not None:
            name = self._generated_name(ctx, model_kind, namespace, meta["generateName"])
            doc = {**doc, "metadata": {**meta, "name": name}}
        if not isinstance(name, str) or not name:
            raise ctx.error("metadata.name", f"required: every {kind} needs a name "
                                             "(or a metadata.generateName)"
                            + ("" if name is None else f", got {show(name)}"))
        ctx.obj = f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"
        dup_key = (model_kind, namespace, name)
        if dup_key in self.seen:
            raise ctx.error("", f"duplicate object: {ctx.obj} was already defined in "
                                f"{self.seen[dup_key].where()}")
        self.seen[dup_key] = ctx
        served = served_api_version(kind, api_version)
        if served is not None and api_version and api_version != served:
            self.about.append(removed_api_version_warning(ctx.where(), ctx.obj, api_version,
                                                          served))
        self.raw.append(_Raw(model_kind, api_version, doc, ctx, namespace, name))

    def _generated_name(self, ctx: InputLocation, kind: str, namespace: str,
                        base: object) -> str:
        """``metadata.generateName``: the base and 5 characters derived from the kind,
        namespace, base and how many objects used that base before (generated_names.py)."""
        if not isinstance(base, str) or not base:
            raise ctx.error("metadata.generateName", ctx.expected("a non-empty string", base))
        n = self.generated.get((kind, namespace, base), 0)
        self.generated[(kind, namespace, base)] = n + 1
        name = generate_name(base, f"{kind}/{namespace}/{n}")
        while (kind, namespace, name) in self.seen:
            n += 1
            name = generate_name(base, f"{kind}/{namespace}/{n}")
        return name

    # conversion

    def build(self, *, require_known_nodes: bool = True, base: Cluster | None = None,
              admission: Admission | None = None, memo: LoadMemo | None = None) -> LoadResult:
        cluster = Cluster()
        warnings: list[str] = []
        by_kind: dict[str, list[_Raw]] = {}
        for r in self.raw:
            by_kind.setdefault(r.kind, []).append(r)

        if base is not None:
            cluster.priority_classes.update(base.priority_classes)
        for r in by_kind.get("PriorityClass", ()):
            pc = _priority_class(r)
            cluster.priority_classes[pc.name] = pc
        for r in by_kind.get("Namespace", ()):
            ns = _namespace(r)
            cluster.namespaces[ns.name] = ns
        for i, r in enumerate(by_kind.get("Node", ())):
            cluster.nodes.append(_node(r, i) if memo is None else memo.node(r, i, _node))
        known_nodes = {n.name for n in cluster.nodes}
        if base is not None:
            known_nodes.update(n.name for n in base.nodes)

        default_pc = _global_default_class(cluster.priority_classes)
        terminal = 0
        order = 0
        uids: dict[str, InputLocation] = {}
        for r in by_kind.get("Pod", ()):
            status = read_map(r.ctx, r.doc.get("status"), "status")
            phase = read_str(r.ctx, status.get("phase"), "status.phase")
            if phase in _TERMINAL_PHASES:
                terminal += 1
                continue
            pod = (_pod(r, order, cluster.priority_classes, default_pc) if memo is None
                   else memo.pod(r, order, cluster.priority_classes, default_pc, _pod))
            order += 1
            if require_known_nodes and pod.node_name and pod.node_name not in known_nodes:
                raise r.ctx.error("spec.nodeName", f"pod is bound to node {pod.node_name!r}, "
                                                   "which is not among the input nodes")
            if pod.uid in uids:
                raise r.ctx.error("metadata.uid", f"duplicate uid {pod.uid!r} (also used in "
                                                  f"{uids[pod.uid].where()})")
            uids[pod.uid] = r.ctx
            cluster.pods.append(pod)
            if pod.priority_class_name in SYSTEM_PRIORITY_CLASSES:
                cluster.priority_classes.setdefault(
                    pod.priority_class_name, SYSTEM_PRIORITY_CLASSES[pod.priority_class_name])
            if pod.namespace not in cluster.namespaces:
                cluster.namespaces[pod.namespace] = Namespace(
                    pod.namespace, {LABEL_METADATA_NAME: pod.namespace})
        for r in by_kind.get("PodDisruptionBudget", ()):
            cluster.pdbs.append(_pdb(r))
        cluster.services = [_service(r) for r in by_kind.get("Service", ())]
        cluster.replication_controllers = [
            _replication_controller(r) for r in by_kind.get("ReplicationController", ())]
        cluster.replica_sets = [_replica_set(r) for r in by_kind.get("ReplicaSet", ())]
        cluster.stateful_sets = [_stateful_set(r) for r in by_kind.get("StatefulSet", ())]
        if self.config is not None:
            cluster.config = self.config[0]

        if terminal:
            warnings.append(f"ignored {terminal} pod(s) in phase Succeeded/Failed "
                            "(the scheduler does not see terminal pods)")
        ignored: dict[str, int] = {}
        ignored_warnings = []
        for (kind, api_version, source), n in self.ignored.items():
            av = f" ({api_version})" if api_version else ""
            ignored_warnings.append(f"{source}: ignored {n} object(s) of kind {kind}{av}")
            ignored[kind] = ignored.get(kind, 0) + n
        warnings += ignored_warnings
        warnings += self.about
        cluster.dra = self._build_dra(by_kind)
        cluster.storage = build_storage(by_kind)
        # a pod loaded against a base cluster (load_pod_file) gets its claims there
        claims_dra = base.dra if base is not None and not cluster.dra else cluster.dra
        warnings += create_template_claims(cluster.pods, claims_dra)
        create_ephemeral_claims(
            cluster.pods, base.storage if base is not None and not cluster.storage
            else cluster.storage)
        if self.admission_objects and (admission is None or admission.mode == "never"):
            kinds = ", ".join(f"{n} {k}(s)" for k, n in sorted(self.admission_objects.items()))
            warnings.append(f"{kinds} not applied: admission is off, the pods are taken as "
                            "they are (--admission auto applies them to pods from manifests)")
        return LoadResult(cluster, warnings, self.scenario[0] if self.scenario else None,
                          ignored, ignored_warnings, admission, cluster.dra)

    @staticmethod
    def _build_dra(by_kind: Mapping[str, list[_Raw]]) -> DRAObjects:
        """The resource.k8s.io/v1 objects (``loader/resource.py``)."""
        dra = DRAObjects()
        for r in by_kind.get("DeviceClass", ()):
            dra.device_classes[r.name] = _device_class(r)
        for r in by_kind.get("ResourceClaimTemplate", ()):
            dra.claim_templates[f"{r.namespace}/{r.name}"] = _resource_claim_template(r)
        for r in by_kind.get("ResourceClaim", ()):
            uid = _deterministic_uid("ResourceClaim", r.namespace, r.name)
            dra.claims[f"{r.namespace}/{r.name}"] = _resource_claim(r, uid)
        for i, r in enumerate(by_kind.get("ResourceSlice", ())):
            dra.slices.append(_resource_slice(r, i))
        for i, r in enumerate(by_kind.get("DeviceTaintRule", ())):
            dra.taint_rules.append(_device_taint_rule(r, i))
        return dra


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while a cluster is built: loading allocates
    objects that all stay alive, and each collection walks every one of them, so a load's time
    grew faster than its input (bench/scale.py: 216 us per object at 3750 nodes, 257 at
    15000; without collections 176 and 182). Nested loads leave it as the outer one set it."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def load_documents(docs: Iterable[object], source: str = "<memory>", *,
                   require_known_nodes: bool = True, memo: LoadMemo | None = None
                   ) -> LoadResult:
    """Load already-parsed documents (dicts); document numbers in errors are 1-based
    positions in ``docs``. ``memo``: pods and nodes converted by earlier loads, for many
    loads of similar clusters (``memo.py``)."""
    with _collector_paused():
        b = _Builder()
        for i, doc in enumerate(docs, start=1):
            b.add_document(doc, source, i)
        return b.build(require_known_nodes=require_known_nodes, memo=memo)


def load_objects(objects: Iterable[tuple[Mapping[str, Any], InputLocation]], *,
                 require_known_nodes: bool = False) -> LoadResult:
    """Load single objects, each with where it was found (the workload expansion checks the
    pods it builds from a template, and reads the nodes, this way)."""
    b = _Builder()
    for doc, ctx in objects:
        b._add_object(doc, InputLocation(ctx.source, ctx.document, ctx.item), "")
    return b.build(require_known_nodes=require_known_nodes)


def load_read_documents(documents: Iterable[tuple[str, int, Any]], *,
                        admission: str = "never", template_claims: bool = False) -> LoadResult:
    """Load documents as ``read_documents`` returns them, after the workload expansion, with
    the admission pre-pass (``admission``: auto, always or never; ``admission/__init__.py``)
    and then, with ``template_claims``, the claims the controllers create as documents: of
    ResourceClaimTemplates (``resourceclaims.add_template_claims``) and of generic ephemeral
    volumes (``ephemeral.add_ephemeral_claims``), after the pods' admission, which takes a
    pod with a uid or a status as a dump; last, the claims' admission (DefaultStorageClass,
    ``admit_claims``), which the controllers' claims go through too."""
    admitted = admit_documents(documents, admission)
    if template_claims:
        admitted.documents = add_controller_claims(admitted.documents)
    admit_claims(admitted)
    b = _Builder()
    for source, i, doc in admitted.documents:
        b.add_document(doc, source, i)
    return b.build(admission=admitted)


def load_paths(paths: Iterable[str | os.PathLike[str]], *,
               admission: str = "never") -> LoadResult:
    """Load every object of the given files (or directories, or "-" for stdin), after the
    admission pre-pass (``admission``: auto, always or never; ``admission/__init__.py``)."""
    return load_read_documents(read_documents(paths), admission=admission)


def load_pod_file(path: str | os.PathLike[str], cluster: Cluster | None = None, *,
                  admission: Admission | None = None) -> Pod:
    """The single Pod defined in ``path``. Its priorityClassName is resolved against
    ``cluster``'s classes (if given); its nodeName is checked against ``cluster``'s nodes only
    when a cluster is given. ``admission``: the pre-pass of the cluster's inputs, whose mode
    and LimitRanges/RuntimeClasses admit the pod too; its defaults are added to it."""
    b = _Builder()
    docs = read_documents([path])
    if admission is not None:
        pod_admission = admit_documents(docs, admission.mode, policies=admission.policies)
        docs = pod_admission.documents
        admission.applied += pod_admission.applied
    for source, i, doc in docs:
        b.add_document(doc, source, i)
    pods = [r for r in b.raw if r.kind == "Pod"]
    if len(pods) != 1 or len(b.raw) != 1:
        kinds = ", ".join(f"{r.kind} {r.name}" for r in b.raw) or "no objects"
        raise InputError(f"expected exactly one Pod, found {kinds}", source=os.fspath(path))
    result = b.build(require_known_nodes=cluster is not None, base=cluster)
    if not result.cluster.pods:
        raise InputError("expected exactly one Pod, found a pod in phase Succeeded/Failed",
                         source=os.fspath(path))
    return result.cluster.pods[0]
