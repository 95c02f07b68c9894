"""Reading PersistentVolumes, PersistentVolumeClaims and the storage.k8s.io/v1 objects
(model/loader/storage.py): every kind through the builders (reference_impl/testing/storage.py),
the API server's defaults, ``kind: List`` dumps as ``kubectl get ... -o yaml`` writes them, and
path-precise errors for what upstream's validation refuses."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from reference_impl.model.errors import InputError
from reference_impl.model.loader import load_documents
from reference_impl.model.objects import LabelSelector, LabelSelectorRequirement
from reference_impl.model.storage import (
    BINDING_IMMEDIATE,
    BINDING_WAIT_FOR_FIRST_CONSUMER,
    PV_AVAILABLE,
    PV_PENDING,
    PVC_BOUND,
    PVC_PENDING,
    VOLUME_MODE_BLOCK,
    VOLUME_MODE_FILESYSTEM,
)
from reference_impl.testing._base import label_selector
from reference_impl.testing.storage import (
    load_storage,
    make_csi_driver,
    make_csi_node,
    make_csi_storage_capacity,
    make_pv,
    make_pvc,
    make_storage_class,
    make_volume_attachment,
)

GI = 1 << 30


def error(*docs: Any) -> str:
    with pytest.raises(InputError) as e:
        load_documents(list(docs), source="in.yaml", require_known_nodes=False)
    return str(e.value)


def test_persistent_volume_fields_and_defaults() -> None:
    pv = (make_pv("pv-1").capacity("1.5Gi").access_modes("ReadWriteOnce", "ReadOnlyMany")
          .storage_class("fast").claim_ref("ns", "data", "uid-1").node_affinity_in(
              "topology.kubernetes.io/zone", "a", "b").csi("ebs.csi.aws.com", "vol-1")
          .label("tier", "gold").obj())
    assert pv.capacity == 3 * GI // 2
    assert pv.access_modes == ("ReadWriteOnce", "ReadOnlyMany")
    assert pv.storage_class_name == "fast"
    assert (pv.claim_ref.namespace, pv.claim_ref.name, pv.claim_ref.uid) == ("ns", "data",
                                                                            "uid-1")
    assert pv.node_affinity is not None
    (term,) = pv.node_affinity.node_selector_terms
    assert term.match_expressions[0].values == ("a", "b")
    assert (pv.source_kind, pv.csi_driver) == ("csi", "ebs.csi.aws.com")
    assert pv.labels == {"tier": "gold"}
    # SetDefaults_PersistentVolume: volumeMode Filesystem, phase Pending
    assert (pv.volume_mode, pv.phase) == (VOLUME_MODE_FILESYSTEM, PV_PENDING)
    assert pv.uid  # deterministic when the manifest has none
    assert pv.uid == make_pv("pv-1").obj().uid
    assert not pv.deleting
    dumped = make_pv("pv-2").host_path("/d").phase(PV_AVAILABLE).deleting().obj()
    assert (dumped.source_kind, dumped.phase, dumped.deleting) == ("hostPath", PV_AVAILABLE,
                                                                   True)
    assert make_pv("pv-3").obj().capacity == 0  # not enforced: upstream's test objects skip it


def test_quantities_round_up_to_bytes() -> None:
    """``Quantity.Value()`` rounds up: 1.5 bytes is 2, 100m is 1."""
    assert make_pvc("c").request("1.5").obj().request == 2
    assert make_pvc("c").request("100m").obj().request == 1
    assert make_pvc("c").request(1000).obj().request == 1000
    assert make_pvc("c").request("1G").obj().request == 10**9


def test_claim_fields_and_defaults() -> None:
    c = (make_pvc("data", "ns").storage_class("fast").request("1Gi")
         .access_modes("ReadWriteOncePod").volume_mode(VOLUME_MODE_BLOCK)
         .selector(label_selector({"tier": "gold"}, ("zone", "In", ["a"])))
         .annotation("a", "b").obj())
    assert (c.namespace, c.name, c.key) == ("ns", "data", "ns/data")
    assert (c.storage_class_name, c.request, c.access_modes) == ("fast", GI,
                                                                 ("ReadWriteOncePod",))
    assert c.volume_mode == VOLUME_MODE_BLOCK
    assert c.selector == LabelSelector((("tier", "gold"),),
                                       (LabelSelectorRequirement("zone", "In", ("a",)),))
    assert c.annotations == {"a": "b"}
    assert (c.phase, c.volume_name, c.owner_pod_uid) == (PVC_PENDING, "", "")
    plain = make_pvc("plain").obj()
    # unset class (None) and explicit "" differ: the default class applies to the first only
    assert plain.storage_class_name is None
    assert make_pvc("none").no_class().obj().storage_class_name == ""
    assert (plain.volume_mode, plain.selector, plain.namespace) == (VOLUME_MODE_FILESYSTEM,
                                                                    None, "default")
    bound = make_pvc("b").bound_to("pv-1").uid("u-1").deleting().obj()
    assert (bound.volume_name, bound.phase, bound.uid, bound.deleting) == ("pv-1", PVC_BOUND,
                                                                           "u-1", True)
    owned = make_pvc("p-scratch").owner_pod("p", "pod-uid").obj()
    assert owned.owner_pod_uid == "pod-uid"


def test_storage_class_csi_objects() -> None:
    sc = make_storage_class("fast", "ebs.csi.aws.com").obj()
    assert (sc.provisioner, sc.volume_binding_mode, sc.allowed_topologies) == (
        "ebs.csi.aws.com", BINDING_IMMEDIATE, ())
    wffc = (make_storage_class("wffc", "d").wait_for_first_consumer()
            .allowed_topology("zone", "a", "b").parameters({"type": "gp3"}).default().obj())
    assert wffc.volume_binding_mode == BINDING_WAIT_FOR_FIRST_CONSUMER
    assert wffc.allowed_topologies[0].match_label_expressions == (("zone", ("a", "b")),)
    assert dict(wffc.annotations) == {"storageclass.kubernetes.io/is-default-class": "true"}

    node = make_csi_node("n1").driver("d", 2, ["zone"]).driver("e").obj()
    assert node.driver("d") is not None and node.driver("d").allocatable_count == 2
    assert node.driver("d").topology_keys == ("zone",)
    assert node.driver("e").allocatable_count is None  # no limit
    assert node.driver("x") is None

    # SetDefaults_CSIDriver: attachRequired true, storageCapacity false
    d = make_csi_driver("d").obj()
    assert (d.attach_required, d.storage_capacity) == (True, False)
    d = make_csi_driver("d").attach_required(False).storage_capacity().obj()
    assert (d.attach_required, d.storage_capacity) == (False, True)
    # VolumeLimitScaling: SetDefaults_CSIDriver sets preventPodSchedulingIfMissing false
    assert make_csi_driver("d").obj().prevent_pod_scheduling_if_missing is False
    assert make_csi_driver("d").prevent_pod_scheduling_if_missing().obj() \
        .prevent_pod_scheduling_if_missing is True

    cap = (make_csi_storage_capacity("cap", "kube-system", "wffc").capacity("10Gi")
           .maximum_volume_size("1Gi").node_topology({"zone": "a"}).obj())
    assert (cap.namespace, cap.capacity, cap.maximum_volume_size) == ("kube-system", 10 * GI,
                                                                      GI)
    assert cap.node_topology == LabelSelector((("zone", "a"),))
    bare = make_csi_storage_capacity("cap", "ns", "wffc").obj()
    assert (bare.capacity, bare.maximum_volume_size, bare.node_topology) == (None, None, None)

    va = make_volume_attachment("va", "d", "n1", "pv-1").attached().obj()
    assert (va.attacher, va.node_name, va.persistent_volume_name, va.attached) == (
        "d", "n1", "pv-1", True)


KUBECTL_DUMP = """
apiVersion: v1
kind: List
metadata:
  resourceVersion: ""
items:
- apiVersion: v1
  kind: PersistentVolume
  metadata:
    name: pvc-6d1f
    uid: 0b5c7f0e-1111-4c1a-9d0e-000000000001
    resourceVersion: "4711"
    annotations:
      pv.kubernetes.io/provisioned-by: ebs.csi.aws.com
    finalizers: [kubernetes.io/pv-protection]
  spec:
    accessModes: [ReadWriteOnce]
    capacity: {storage: 1Gi}
    claimRef: {apiVersion: v1, kind: PersistentVolumeClaim, name: www-web-0,
               namespace: default, resourceVersion: "4700",
               uid: 0b5c7f0e-1111-4c1a-9d0e-000000000002}
    csi: {driver: ebs.csi.aws.com, fsType: ext4, volumeHandle: vol-0abc,
          volumeAttributes: {storage.kubernetes.io/csiProvisionerIdentity: x}}
    nodeAffinity:
      required:
        nodeSelectorTerms:
        - matchExpressions:
          - {key: topology.ebs.csi.aws.com/zone, operator: In, values: [eu-west-1a]}
    persistentVolumeReclaimPolicy: Delete
    storageClassName: gp3
    volumeMode: Filesystem
  status: {phase: Bound, lastPhaseTransitionTime: "2024-01-01T00:00:00Z"}
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata:
    name: www-web-0
    namespace: default
    uid: 0b5c7f0e-1111-4c1a-9d0e-000000000002
    labels: {app: nginx}
    annotations: {pv.kubernetes.io/bind-completed: "yes",
                  volume.kubernetes.io/selected-node: ip-10-0-0-1}
  spec:
    accessModes: [ReadWriteOnce]
    resources: {requests: {storage: 1Gi}}
    storageClassName: gp3
    volumeMode: Filesystem
    volumeName: pvc-6d1f
  status: {accessModes: [ReadWriteOnce], capacity: {storage: 1Gi}, phase: Bound}
- apiVersion: storage.k8s.io/v1
  kind: StorageClass
  metadata: {name: gp3, annotations: {storageclass.kubernetes.io/is-default-class: "true"}}
  provisioner: ebs.csi.aws.com
  parameters: {type: gp3}
  reclaimPolicy: Delete
  allowVolumeExpansion: true
  mountOptions: [debug]
  volumeBindingMode: WaitForFirstConsumer
- apiVersion: storage.k8s.io/v1
  kind: CSINode
  metadata: {name: ip-10-0-0-1}
  spec:
    drivers:
    - allocatable: {count: 25}
      name: ebs.csi.aws.com
      nodeID: i-0123
      topologyKeys: [topology.ebs.csi.aws.com/zone]
- apiVersion: storage.k8s.io/v1
  kind: CSIDriver
  metadata: {name: ebs.csi.aws.com}
  spec: {attachRequired: true, fsGroupPolicy: ReadWriteOnceWithFSType,
         podInfoOnMount: false, requiresRepublish: false, seLinuxMount: false,
         storageCapacity: false, volumeLifecycleModes: [Persistent]}
- apiVersion: storage.k8s.io/v1
  kind: CSIStorageCapacity
  metadata: {name: csisc-abcde, namespace: kube-system}
  storageClassName: gp3
  capacity: 100Gi
  nodeTopology:
    matchLabels: {topology.ebs.csi.aws.com/zone: eu-west-1a}
- apiVersion: storage.k8s.io/v1
  kind: VolumeAttachment
  metadata: {name: csi-123}
  spec:
    attacher: ebs.csi.aws.com
    nodeName: ip-10-0-0-1
    source: {persistentVolumeName: pvc-6d1f}
  status: {attached: true, attachmentMetadata: {devicePath: /dev/xvdaa}}
"""


def test_kubectl_list_dump_loads_every_kind_and_ignores_nothing() -> None:
    r = load_documents([yaml.safe_load(KUBECTL_DUMP)], require_known_nodes=False)
    s = r.cluster.storage
    assert r.ignored == {} and r.warnings == []
    pv = s.volumes["pvc-6d1f"]
    assert (pv.phase, pv.capacity, pv.csi_driver, pv.resource_version) == (
        "Bound", GI, "ebs.csi.aws.com", 4711)
    assert pv.claim_ref is not None and pv.claim_ref.uid.endswith("02")
    claim = s.claims["default/www-web-0"]
    assert (claim.phase, claim.volume_name, claim.uid) == ("Bound", "pvc-6d1f", pv.claim_ref.uid)
    assert s.classes["gp3"].volume_binding_mode == BINDING_WAIT_FOR_FIRST_CONSUMER
    assert s.csi_nodes["ip-10-0-0-1"].driver("ebs.csi.aws.com").allocatable_count == 25
    assert s.csi_drivers["ebs.csi.aws.com"].attach_required
    assert s.capacities["kube-system/csisc-abcde"].capacity == 100 * GI
    assert s.attachments["csi-123"].attached


def test_typed_lists_and_input_order() -> None:
    docs = [{"apiVersion": "v1", "kind": "PersistentVolumeList",
             "items": [make_pv(n).capacity("1Gi").manifest() for n in ("b", "a")]}]
    s = load_documents(docs).cluster.storage
    assert list(s.volumes) == ["b", "a"]
    assert bool(s) and not bool(load_storage())


def test_other_api_versions_stay_ignored() -> None:
    doc = {**make_csi_driver("d").manifest(), "apiVersion": "storage.k8s.io/v1beta1"}
    r = load_documents([doc])
    assert r.ignored == {"CSIDriver": 1} and not r.cluster.storage


@pytest.mark.parametrize(("doc", "expected"), [
    (make_pv("pv").access_modes("ReadWriteSometimes").manifest(),
     'in.yaml, document 1: PersistentVolume pv: spec.accessModes[0]: unsupported value '
     "'ReadWriteSometimes'"),
    (make_pv("pv").capacity("lots").manifest(),
     "PersistentVolume pv: spec.capacity.storage: invalid quantity 'lots'"),
    (make_pv("pv").capacity("-1Gi").manifest(),
     "spec.capacity.storage: must be greater than or equal to 0"),
    (make_pv("pv").host_path("/a").csi("d", "h").manifest(),
     "PersistentVolume pv: spec.csi: may not specify more than 1 volume type, got "
     "`hostPath`, `csi`"),
    (make_pv("pv").source("csi", {"volumeHandle": "h"}).manifest(),
     "spec.csi.driver: required"),
    (make_pv("pv").volume_mode("Disk").manifest(), "spec.volumeMode: unsupported value"),
    (make_pv("pv").phase("Gone").manifest(), "status.phase: unsupported value"),
    (make_pv("pv").spec(nodeAffinity={"required": {"nodeSelectorTerms": []}}).manifest(),
     "spec.nodeAffinity.required.nodeSelectorTerms: required"),
    (make_pvc("c", "ns").request("1Gx").manifest(),
     "PersistentVolumeClaim ns/c: spec.resources.requests.storage: invalid quantity"),
    (make_pvc("c").storage_class(3).manifest(),  # type: ignore[arg-type]
     "PersistentVolumeClaim default/c: spec.storageClassName: expected a string"),
    (make_pvc("c").selector({"matchExpressions": [{"key": "k", "operator": "In"}]}).manifest(),
     "spec.selector.matchExpressions[0].values: must be specified"),
    (make_pvc("c").phase("Bound-ish").manifest(), "status.phase: unsupported value"),
    ({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "s"}},
     "StorageClass s: provisioner: required"),
    (make_storage_class("s", "d").binding_mode("Later").manifest(),
     "volumeBindingMode: unsupported value 'Later'"),
    (make_storage_class("s", "d").manifest() | {"allowedTopologies": [
        {"matchLabelExpressions": [{"key": "zone", "values": []}]}]},
     "allowedTopologies[0].matchLabelExpressions[0].values: required"),
    (make_csi_node("n").driver("d", -1).manifest(),
     "CSINode n: spec.drivers[0].allocatable.count: must be greater than or equal to 0"),
    (make_csi_node("n").driver("d").driver("d").manifest(),
     "spec.drivers[1].name: Duplicate value: 'd'"),
    (make_csi_driver("d").spec(attachRequired="yes").manifest(),
     "CSIDriver d: spec.attachRequired: expected a boolean"),
    (make_csi_driver("d").spec(preventPodSchedulingIfMissing=1).manifest(),
     "CSIDriver d: spec.preventPodSchedulingIfMissing: expected a boolean"),
    (make_csi_storage_capacity("c", "ns", "").manifest(),
     "CSIStorageCapacity ns/c: storageClassName: required"),
    (make_volume_attachment("va", "d", "", "pv").manifest(),
     "VolumeAttachment va: spec.nodeName: required"),
])
def test_errors_name_file_document_object_and_field(doc: dict[str, Any], expected: str) -> None:
    assert expected in error(doc)


def test_errors_inside_a_list_name_the_item() -> None:
    dump = {"apiVersion": "v1", "kind": "List", "items": [
        make_pvc("ok").manifest(), make_pvc("bad").access_modes("Sometimes").manifest()]}
    assert "in.yaml, document 1: PersistentVolumeClaim default/bad: " \
           "items[1].spec.accessModes[0]: unsupported value" in error(dump)


def test_duplicates_are_refused() -> None:
    msg = error(make_pvc("c").manifest(), make_pvc("c").manifest())
    assert "duplicate object: PersistentVolumeClaim default/c" in msg
    # the same name in two namespaces is two claims
    s = load_storage(make_pvc("c"), make_pvc("c", "other"))
    assert list(s.claims) == ["default/c", "other/c"]
