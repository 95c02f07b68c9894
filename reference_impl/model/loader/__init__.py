"""Read Kubernetes manifests (YAML or JSON) into the internal model (``objects.py``).

Inputs: files holding one or more YAML documents (``---``) or JSON; each document is an object,
a ``kind: List`` (what ``kubectl get nodes,pods -A -o yaml`` prints) or a typed list
(``NodeList``, ``PodList``, ...). Understood kinds: Node, Pod (core/v1), Namespace (core/v1),
PriorityClass (scheduling.k8s.io), PodDisruptionBudget (policy). A KubeSchedulerConfiguration
document is kept raw in ``Cluster.config``; a document with ``apiVersion: kschedconf/v1`` (the
Scenario) raw in ``LoadResult.scenario``. Every other kind is ignored with a warning.

The model is what the API server would store, so the loader applies the API server's
create-time defaulting and mutations that matter for scheduling:

* ``SetDefaults_ResourceList`` (pkg/apis/core/v1/defaults.go): every resource quantity is
  rounded up to milli precision;
* ``SetDefaults_NodeStatus``: allocatable defaults to capacity;
* ``SetDefaults_Pod``: container (and init container) requests default to their limits;
  with hostNetwork, a port's hostPort defaults to its containerPort;
* ``SetDefaults_PodSpec``: schedulerName "default-scheduler";
* ``SetDefaults_Namespace``: label ``kubernetes.io/metadata.name=<name>`` (also on the
  namespaces created implicitly for pods);
* ``podutil.DefaultPodLevelResources`` (pkg/api/pod/util.go; PodLevelResourcesFixDefaulting on):
  pod-level hugepage limits and pod-level requests defaulted when spec.resources is given;
* ``mutatePodAffinity`` / ``mutateTopologySpreadConstraints``
  (pkg/registry/core/pod/strategy.go): matchLabelKeys / mismatchLabelKeys merged into the
  label selector as ``key In (v)`` / ``key NotIn (v)`` (a requirement already present, as in a
  dump of stored pods, is not added twice);
* the Priority admission plugin (plugin/pkg/admission/priority/admission.go): priority from
  the PriorityClass, or the global default class, else 0.

Pods in phase Succeeded or Failed are dropped (with a warning): the scheduler's informers never
see them (``status.phase!=Succeeded,status.phase!=Failed``, pkg/scheduler/scheduler.go).

Bad input raises one ``InputError`` naming file, document, object and field; nothing is half
loaded.

Modules: ``documents`` (files, documents, dispatch by kind, the entry points), ``pod``,
``node``, ``policy`` (PriorityClass, Namespace, PodDisruptionBudget), ``selectors`` (label and
node selectors, affinity), ``defaults`` (defaulting and admission), ``fields`` (resource
lists, raw objects); the fields are read with path-precise errors by the readers of
``model/decoding.py``, shared with the Scenario timeline and the configuration.
"""

from reference_impl.model.loader.defaults import (
    LABEL_METADATA_NAME,
    PREEMPT_LOWER_PRIORITY,
    PREEMPT_NEVER,
    SYSTEM_CRITICAL_PRIORITY,
    SYSTEM_PRIORITY_CLASSES,
)
from reference_impl.model.loader.documents import (
    KUBE_SCHEDULER_CONFIG_GROUP,
    SCENARIO_API_VERSION,
    LoadResult,
    load_documents,
    load_paths,
    load_pod_file,
    read_documents,
)

__all__ = [
    "KUBE_SCHEDULER_CONFIG_GROUP",
    "LABEL_METADATA_NAME",
    "LoadResult",
    "PREEMPT_LOWER_PRIORITY",
    "PREEMPT_NEVER",
    "SCENARIO_API_VERSION",
    "SYSTEM_CRITICAL_PRIORITY",
    "SYSTEM_PRIORITY_CLASSES",
    "load_documents",
    "load_paths",
    "load_pod_file",
    "read_documents",
]
