"""Read Kubernetes manifests (YAML or JSON, ``kind: List`` dumps) into the internal model
(``objects.py``), with the API server's create-time defaulting and admission that matter for
scheduling (pkg/apis/core/v1/defaults.go, pkg/registry/core/pod/strategy.go,
plugin/pkg/admission/priority/admission.go). Modules: ``documents``, ``pod``, ``node``,
``policy``, ``controllers`` (Service, ReplicationController, ReplicaSet,
StatefulSet), ``selectors``, ``defaults``, ``fields``. See docs/reference.md#manifests.
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
    load_objects,
    load_paths,
    load_pod_file,
    load_read_documents,
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
    "load_objects",
    "load_paths",
    "load_read_documents",
    "load_pod_file",
    "read_documents",
]
