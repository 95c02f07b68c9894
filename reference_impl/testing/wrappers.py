"""Test-object builders in the style of upstream's ``pkg/scheduler/testing/wrappers.go``
(k8s.io/kubernetes v1.37.2: ``st.MakePod().Name("p").Req(map).Obj()``), in Python naming::

    make_pod("p").namespace("ns").req(cpu="1").node_selector({"disk": "ssd"})
        .toleration("dedicated", value="gpu").priority(10).obj()

``manifest()`` gives the v1 manifest, ``obj()`` the model object through the real loader.
The builders and their upstream names: docs/reference.md#test-object-builders."""

from reference_impl.testing._base import (
    HOSTNAME,
    PAUSE,
    ZONE,
    Doc,
    Quantity,
    Wrapper,
    label_selector,
    manifests,
    plain,
    timestamp,
)
from reference_impl.testing.nodes import NodeWrapper, make_node, taint
from reference_impl.testing.pods import (
    PREFERRED,
    REQUIRED,
    REQUIRED_AND_PREFERRED,
    ContainerWrapper,
    PodWrapper,
    container_port,
    make_container,
    make_pod,
    node_selector_term,
    pod_affinity_term,
    spread_constraint,
    toleration,
    weighted_term,
)
from reference_impl.testing.policy import (
    ConfigWrapper,
    LimitRangeWrapper,
    NamespaceWrapper,
    PodDisruptionBudgetWrapper,
    PriorityClassWrapper,
    ProfileWrapper,
    RuntimeClassWrapper,
    TimelineWrapper,
    make_config,
    make_limit_range,
    make_namespace,
    make_pdb,
    make_priority_class,
    make_profile,
    make_runtime_class,
    make_timeline,
)
from reference_impl.testing.resources import (
    DeviceClassWrapper,
    DeviceWrapper,
    ResourceClaimTemplateWrapper,
    ResourceClaimWrapper,
    ResourceSliceWrapper,
    device_toleration,
    exact_request,
    make_device,
    make_device_class,
    make_gpu_slice,
    make_network_slice,
    make_resource_claim,
    make_resource_claim_template,
    make_resource_slice,
    sub_request,
)
from reference_impl.testing.workloads import (
    ServiceWrapper,
    WorkloadWrapper,
    make_daemon_set,
    make_deployment,
    make_job,
    make_replica_set,
    make_replication_controller,
    make_service,
    make_stateful_set,
    make_workload,
)

__all__ = [
    "HOSTNAME", "PAUSE", "PREFERRED", "REQUIRED", "REQUIRED_AND_PREFERRED", "ZONE",
    "ConfigWrapper", "ContainerWrapper", "Doc", "LimitRangeWrapper", "NamespaceWrapper",
    "NodeWrapper", "PodDisruptionBudgetWrapper", "PodWrapper", "PriorityClassWrapper",
    "ProfileWrapper", "Quantity", "RuntimeClassWrapper", "ServiceWrapper", "TimelineWrapper",
    "WorkloadWrapper", "Wrapper", "container_port", "label_selector", "make_config",
    "make_container", "make_namespace", "make_daemon_set", "make_deployment", "make_job",
    "make_limit_range", "make_node", "make_pdb", "make_pod", "make_priority_class", "make_profile",
    "make_replica_set", "make_replication_controller", "make_runtime_class", "make_service",
    "make_stateful_set", "make_timeline", "make_workload", "manifests", "node_selector_term",
    "plain", "pod_affinity_term", "spread_constraint", "taint", "timestamp", "toleration",
    "weighted_term",
    # resource.k8s.io/v1 (testing/resources.py)
    "DeviceClassWrapper", "DeviceWrapper", "ResourceClaimTemplateWrapper", "ResourceClaimWrapper",
    "ResourceSliceWrapper", "device_toleration", "exact_request", "make_device",
    "make_device_class", "make_gpu_slice", "make_network_slice", "make_resource_claim",
    "make_resource_claim_template", "make_resource_slice", "sub_request",
]
