"""Manifest helpers for the witness scenarios of the catalogue: tiny Node, Pod, PriorityClass,
Namespace, KubeSchedulerConfiguration and timeline documents, DRA and storage objects. Every
witness is built with these (imported as ``w``): shorthands over the shared builders of
``reference_impl.testing``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import reference_impl.testing.wrappers as wrappers
from conformance.core.scenario import ScenarioInput
from reference_impl.model.storage import ANN_BIND_COMPLETED
from reference_impl.testing.storage import (
    make_csi_driver,
    make_csi_node,
    make_csi_storage_capacity,
    make_pv,
    make_pvc,
    make_storage_class,
)
from reference_impl.testing.wrappers import HOSTNAME as HOSTNAME  # w.HOSTNAME in the catalogue
from reference_impl.testing.wrappers import (
    ZONE,
    Doc,
    label_selector,
    make_config,
    make_container,
    make_device,
    make_device_class,
    make_namespace,
    make_network_slice,
    make_node,
    make_pod,
    make_priority_class,
    make_resource_claim,
    make_resource_slice,
    make_timeline,
    manifests,
    plain,
    spread_constraint,
)

WEB = {"app": "web"}


def node(name: str, cpu: str = "4", memory: str = "8Gi", pods: int = 110, *,
         labels: Mapping[str, str] | None = None, taints: Sequence[Doc] = (),
         unschedulable: bool = False, extra: Mapping[str, Any] | None = None,
         images: Mapping[str, int] | None = None) -> Doc:
    """A Node with allocatable ``cpu``, ``memory``, ``pods`` (and ``extra`` resources), the
    hostname label and ``images`` (name: size in bytes) in its status."""
    n = make_node(name).hostname().labels(labels or {}).spec()
    if taints:
        n.taints(taints)
    if unschedulable:
        n.unschedulable()
    if images:
        n.images(images)
    return n.allocatable({"cpu": cpu, "memory": memory, "pods": pods, **(extra or {})}).manifest()


def container(name: str = "c", requests: Mapping[str, Any] | None = None, *,
              ports: Sequence[Doc] = (), restart_policy: str | None = None,
              image: str = "busybox") -> Doc:
    c = make_container(name).image(image).requests(requests or {})
    if ports:
        c.ports(ports)
    if restart_policy:
        c.restart_policy(restart_policy)
    return c.manifest()


def pod(name: str, requests: Mapping[str, Any] | None = None, *, node: str | None = None,
        labels: Mapping[str, str] | None = None, namespace: str | None = None,
        priority_class: str | None = None, ports: Sequence[Doc] = (),
        status: Doc | None = None, **spec: Any) -> Doc:
    """A pod with one container ``c`` requesting ``requests``; ``spec`` adds v1 spec fields
    (camelCase names as keyword arguments)."""
    p = make_pod(name)
    if namespace:
        p.namespace(namespace)
    p.labels(labels or {}).container(container("c", requests, ports=ports)).spec(**spec)
    if node:
        p.node(node)
    if priority_class:
        p.priority_class(priority_class)
    if status:
        p.status(**status)
    return p.manifest()


def priority_class(name: str, value: int) -> Doc:
    return make_priority_class(name, value).manifest()


def namespace(name: str) -> Doc:
    return make_namespace(name).manifest()


def timeline(*events: Doc) -> Doc:
    """A ``kind: Scenario`` document with these timeline events."""
    return make_timeline(*events).manifest()


def config(**fields: Any) -> Doc:
    """A KubeSchedulerConfiguration with these top-level fields."""
    return make_config().set(**fields).manifest()


def taint(key: str, effect: str, value: str | None = None) -> Doc:
    return wrappers.taint(key, effect, value)


def spread(max_skew: int = 1, key: str = ZONE, **extra: Any) -> Doc:
    """A DoNotSchedule topology spread constraint over the ``app: web`` pods."""
    return spread_constraint(max_skew, key, "DoNotSchedule", label_selector(WEB),
                             **{_snake(k): v for k, v in extra.items()})


GPU = "gpu.example.com"


def gpu_class() -> Doc:
    """The DeviceClass of every device of the driver ``gpu.example.com``."""
    return make_device_class(GPU).driver(GPU).manifest()


def gpus(node: str, devices: Mapping[str, Mapping[str, Any]],
         taints: Mapping[str, tuple[str, str]] | None = None) -> Doc:
    """A ResourceSlice of ``node`` (pool ``node``) with ``devices`` (name: attributes) of the
    driver ``gpu.example.com``; ``taints`` (device: (key, effect)) taints some."""
    slc = make_resource_slice(node, GPU)
    for name, attributes in devices.items():
        d = make_device(name).attributes(attributes)
        if taints and name in taints:
            d.taint(taints[name][0], "", taints[name][1])
        slc.device(d)
    return slc.manifest()


def zone_gpus(pool: str, zone: str, *devices: str) -> Doc:
    """A ResourceSlice of pool ``pool`` whose ``devices`` (driver ``gpu.example.com``) serve the
    nodes of ``zone`` (a nodeSelector on the zone label)."""
    slc = make_network_slice(pool, GPU).node_selector(
        [{"matchExpressions": [{"key": ZONE, "operator": "In", "values": [zone]}]}])
    return slc.devices(*devices).manifest()


def gpu_claim(name: str, count: int = 1, *selectors: str, match: str | None = None) -> Doc:
    """A ResourceClaim ``name`` asking for ``count`` devices of ``gpu_class()`` (request
    ``gpu``), with CEL ``selectors`` and a matchAttribute constraint on ``match``."""
    c = make_resource_claim(name).request_with_name("gpu", GPU, count, *selectors)
    if match:
        c.match_attribute(match)
    return c.manifest()


def claim_pod(name: str, claim: str, requests: Mapping[str, Any] | None = None) -> Doc:
    """A pod whose ``spec.resourceClaims`` entry ``gpu`` names the ResourceClaim ``claim``."""
    p = make_pod(name).container(container("c", requests)).resource_claim("gpu", claim=claim)
    return p.manifest()


DISK = "disk.csi.example.com"
RWO, RWOP = "ReadWriteOnce", "ReadWriteOncePod"


def bound_claim(name: str, *, mode: str = RWO, labels: Mapping[str, str] | None = None,
                node_affinity: tuple[str, str] | None = None) -> list[Doc]:
    """A claim ``name`` (namespace default, 1Gi, access mode ``mode``) bound by the PV
    controller to the PV ``pv-NAME`` (CSI driver ``disk.csi.example.com``, handle ``NAME``),
    the PV with ``labels`` and a required node affinity ``(key, value)``: [PV, claim]."""
    pv = (make_pv(f"pv-{name}").capacity("1Gi").access_modes(mode).csi(DISK, name)
          .claim_ref("default", name).phase("Bound").labels(labels or {}))
    if node_affinity:
        pv.node_affinity_in(*node_affinity)
    claim = (make_pvc(name).access_modes(mode).request("1Gi").no_class()
             .annotation(ANN_BIND_COMPLETED, "yes").bound_to(f"pv-{name}"))
    return [pv.manifest(), claim.manifest()]


def wait_class(name: str = "fast", *, allowed: tuple[str, str] | None = None) -> Doc:
    """A WaitForFirstConsumer StorageClass provisioned by ``disk.csi.example.com``, with an
    ``allowedTopologies`` term ``key`` in [``value``] when ``allowed`` is given."""
    sc = make_storage_class(name, DISK).wait_for_first_consumer()
    if allowed:
        sc.allowed_topology(*allowed)
    return sc.manifest()


def claim(name: str, storage_class: str = "fast", size: str = "1Gi") -> Doc:
    """An unbound ReadWriteOnce claim ``name`` of ``storage_class`` asking for ``size``."""
    return make_pvc(name).storage_class(storage_class).access_modes(RWO).request(size).manifest()


def csi_node(node: str, count: int) -> Doc:
    """The CSINode of ``node``: driver ``disk.csi.example.com`` with ``allocatable.count``."""
    return make_csi_node(node).driver(DISK, count).manifest()


def capacity_driver() -> Doc:
    """The CSIDriver ``disk.csi.example.com`` with ``storageCapacity: true``."""
    return make_csi_driver(DISK).storage_capacity().manifest()


def capacity(name: str, storage_class: str, node: str, size: str) -> Doc:
    """A CSIStorageCapacity of ``storage_class``: ``size`` on the node ``node`` (its hostname
    label)."""
    return (make_csi_storage_capacity(name, "default", storage_class)
            .node_topology({HOSTNAME: node}).capacity(size).manifest())


def volume_pod(name: str, *claims: str, requests: Mapping[str, Any] | None = None,
               node: str | None = None) -> Doc:
    """A pod with one container ``c`` requesting ``requests`` and a persistentVolumeClaim
    volume for each of ``claims``."""
    p = make_pod(name).container(container("c", requests))
    for c in claims:
        p.pvc(c)
    if node:
        p.node(node)
    return p.manifest()


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


def scenario(name: str, *docs: Doc, config: Doc | None = None) -> ScenarioInput:
    """The witness scenario ``witness-NAME`` of these documents (seed 0)."""
    return ScenarioInput(manifests(*docs), plain(config) if config else None, 0,
                         f"witness-{name}")
