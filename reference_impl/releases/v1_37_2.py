"""Upstream kube-scheduler v1.37.2, as data (the schema is ``ReleaseData`` in ``__init__.py``).

Only literals: a new release is a copy of this module with its own numbers.
"""

RELEASE = "v1.37.2"

# Default at 1.37 of every gate that code under pkg/scheduler reads (the last VersionedSpecs
# entry with Version <= 1.37 in pkg/features/kube_features.go). Comment: stage at 1.37.
FEATURE_GATES = {
    "CompositePodGroup": False,  # Alpha
    "DRAAdminAccess": True,  # GA, locked
    "DRAConsumableCapacity": True,  # Beta
    "DRADerivedAttributes": False,  # Alpha
    "DRADeviceBindingConditions": True,  # Beta
    "DRADeviceCompatibilityGroups": False,  # Alpha
    "DRADeviceTaintRules": True,  # GA
    "DRADeviceTaints": True,  # GA
    "DRAExtendedResource": True,  # GA, locked
    "DRAFractionalCapacityRange": True,  # Beta
    "DRAListTypeAttributes": False,  # Alpha
    "DRANodeAllocatableResources": False,  # Alpha
    "DRAOptionalNodeOperations": False,  # Alpha
    "DRAPartitionableDevices": True,  # Beta
    "DRAPrioritizedList": True,  # GA, locked
    "DRAResourceClaimDeviceStatus": True,  # GA, locked
    "DRASchedulerFilterTimeout": True,  # Beta
    "DRAWorkloadResourceClaims": False,  # Beta
    "DynamicResourceAllocation": True,  # GA, locked
    "GenericWorkload": False,  # Beta
    "InPlacePodLevelResourcesVerticalScaling": True,  # Beta
    "InPlacePodVerticalScaling": True,  # GA, locked
    "InPlacePodVerticalScalingSchedulerPreemption": False,  # Alpha
    "InterPodAffinityHostnameFastPath": False,  # Alpha
    "MatchLabelKeysInPodTopologySpread": True,  # Beta
    "NodeDeclaredFeatures": True,  # GA, locked
    "NodeInclusionPolicyInPodTopologySpread": True,  # GA, locked
    "NominatedNodeNameForExpectation": True,  # Beta
    "OpportunisticBatching": True,  # Beta
    "PodGroupPreemptionPolicy": False,  # Alpha
    "PodLevelResources": True,  # Beta
    "SchedulerAsyncAPICalls": False,  # Beta
    "SchedulerAsyncPreemption": True,  # Beta
    "SchedulerPopFromBackoffQ": True,  # Beta
    "SchedulerPreQueueingHints": False,  # Alpha
    "StorageCapacityScoring": True,  # Beta
    "TaintTolerationComparisonOperators": False,  # Alpha
    "TopologyAwareWorkloadScheduling": False,  # Alpha
    "VolumeAttributesClass": True,  # GA, locked
    "VolumeLimitScaling": True,  # Beta
}

# pkg/scheduler/apis/config/v1/default_plugins.go getDefaultPlugins, after applyFeatureGates with
# the gates above: NodeDeclaredFeatures appended (NodeDeclaredFeatures on), DynamicResources with
# weight 2 inserted before DefaultPreemption (DynamicResourceAllocation on); DeferredPodScheduling
# (InPlacePodVerticalScalingSchedulerPreemption), GangScheduling (GenericWorkload) and
# TopologyPlacementGenerator/PodGroupPodsCount (TopologyAwareWorkloadScheduling) are off.
# (name, weight); weight 0 = not set (the framework turns it into 1 for Score plugins).
DEFAULT_PLUGINS = (
    ("SchedulingGates", 0),
    ("PrioritySort", 0),
    ("NodeName", 0),
    ("NodeUnschedulable", 0),
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    ("NodePorts", 0),
    ("NodeResourcesFit", 1),
    ("VolumeRestrictions", 0),
    ("NodeVolumeLimits", 0),
    ("VolumeBinding", 0),
    ("VolumeZone", 0),
    ("PodTopologySpread", 2),
    ("InterPodAffinity", 2),
    ("DynamicResources", 2),
    ("DefaultPreemption", 0),
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
    ("DefaultBinder", 0),
    ("NodeDeclaredFeatures", 0),
)

# pkg/scheduler/apis/config/v1/defaults.go SetDefaults_KubeSchedulerConfiguration.
PARALLELISM = 16
PERCENTAGE_OF_NODES_TO_SCORE = 0  # config.DefaultPercentageOfNodesToScore (types.go): adaptive
POD_INITIAL_BACKOFF_SECONDS = 1
POD_MAX_BACKOFF_SECONDS = 10
DEFAULT_SCHEDULER_NAME = "default-scheduler"  # v1.DefaultSchedulerName, single profile only

# pkg/scheduler/backend/queue/scheduling_queue.go DefaultPodMaxInUnschedulablePodsDuration (5m);
# only the deprecated --pod-max-in-unschedulable-pods-duration flag changes it.
POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION_SECONDS = 300

# pkg/scheduler/apis/config/types.go MaxCustomPriorityScore.
MAX_CUSTOM_PRIORITY_SCORE = 10

# defaults.go defaultResourceSpec.
_DEFAULT_RESOURCE_SPEC = ({"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1})

# defaults.go SetDefaults_* (values in v1 form). Gate conditions stay in the code that applies
# them: VolumeBindingArgs.shape only with StorageCapacityScoring, DynamicResourcesArgs.filterTimeout
# only with DRASchedulerFilterTimeout, .bindingTimeout only with DRADeviceBindingConditions and
# DRAResourceClaimDeviceStatus. The timeouts are configv1.DynamicResources*TimeoutDefault
# (staging/src/k8s.io/kube-scheduler/config/v1/types.go).
PLUGIN_ARGS_DEFAULTS = {
    "DefaultPreemptionArgs": {"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": 100},
    "DynamicResourcesArgs": {"filterTimeout": "10s", "bindingTimeout": "10m0s"},
    "InterPodAffinityArgs": {"hardPodAffinityWeight": 1},
    "NodeAffinityArgs": {},
    "NodeResourcesBalancedAllocationArgs": {"resources": _DEFAULT_RESOURCE_SPEC},
    "NodeResourcesFitArgs": {
        "scoringStrategy": {"type": "LeastAllocated", "resources": _DEFAULT_RESOURCE_SPEC},
    },
    "PodTopologySpreadArgs": {"defaultingType": "System"},
    "VolumeBindingArgs": {
        "bindTimeoutSeconds": 600,
        "shape": ({"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}),
    },
}

# pkg/scheduler/apis/config/validation/validation.go invalidPluginsByVersion (v1).
REMOVED_PLUGINS = ("AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits")
