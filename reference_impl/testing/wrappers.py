"""Test-object builders in the style of upstream's ``pkg/scheduler/testing/wrappers.go``
(k8s.io/kubernetes v1.37.2: ``st.MakePod().Name("p").Req(map).Obj()``), in Python naming::

    make_pod("p").namespace("ns").req(cpu="1").node_selector({"disk": "ssd"})
        .toleration("dedicated", value="gpu").priority(10).obj()

Each wrapper builds a v1 manifest (a dict) in the order its methods are called:
``manifest()`` returns it for scenario documents (golden scenarios, witnesses, test scenarios);
``obj()`` runs it through the real loader (``reference_impl.model.loader``) and returns the model
object, defaulting applied and ``pod.resources`` / ``pod.host_ports`` computed. Only what a test
sets is written: ``make_node("n")`` has no capacity and ``make_pod("p")`` no containers (unlike
upstream's ``MakeNode()``, whose ``Capacity(nil)`` adds 32 pods; ``capacity()`` does add them).

| upstream (wrappers.go)        | here                                                       |
| ----------------------------- | ---------------------------------------------------------- |
| MakeNode().Name(n)            | make_node(n); .label .labels .capacity .taints .images ...|
| MakePod().Name(p)             | make_pod(p); .req .lim .res .init_req .sidecar_req ...     |
| MakeContainer()               | make_container(name)                                       |
| MakeLabelSelector()           | label_selector(match_labels, (key, op, values)...)         |
| MakeNodeSelector().In(...)    | node_selector_term((key, op, values)...)                   |
| MakePDB()                     | make_pdb(name)                                             |

and, for kschedconf scenarios: ``make_priority_class``, ``make_namespace``, ``make_config`` /
``make_profile`` (KubeSchedulerConfiguration) and ``make_timeline`` (the ``Scenario`` timeline).
"""

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
    NamespaceWrapper,
    PodDisruptionBudgetWrapper,
    PriorityClassWrapper,
    ProfileWrapper,
    TimelineWrapper,
    make_config,
    make_namespace,
    make_pdb,
    make_priority_class,
    make_profile,
    make_timeline,
)

__all__ = [
    "HOSTNAME", "PAUSE", "PREFERRED", "REQUIRED", "REQUIRED_AND_PREFERRED", "ZONE",
    "ConfigWrapper", "ContainerWrapper", "Doc", "NamespaceWrapper", "NodeWrapper",
    "PodDisruptionBudgetWrapper", "PodWrapper", "PriorityClassWrapper", "ProfileWrapper",
    "Quantity", "TimelineWrapper", "Wrapper",
    "container_port", "label_selector", "make_config", "make_container", "make_namespace",
    "make_node", "make_pdb", "make_pod", "make_priority_class", "make_profile", "make_timeline",
    "manifests", "node_selector_term", "plain", "pod_affinity_term", "spread_constraint", "taint",
    "timestamp", "toleration", "weighted_term",
]
