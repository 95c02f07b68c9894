"""The golden scenarios of area ``admission`` (``golden/admission/``): pods from manifests as the
API server's default admission leaves them (LimitRanger, RuntimeClass, DefaultTolerationSeconds;
``reference_impl/model/loader/admission``), scheduled by upstream. The definitions hold the
LimitRanges and RuntimeClasses; the files hold the admitted pods, given to every subject alike
(docs/admission.md: why the harness admits once)."""

from __future__ import annotations

from reference_impl.model.loader.admission import ADMISSION_KINDS, admit_documents
from reference_impl.testing.wrappers import (
    make_container,
    make_limit_range,
    make_pod,
    make_runtime_class,
    manifests,
    taint,
    toleration,
)

from .common import Area, Docs, node, pod, t

AREA = Area("admission")
golden = AREA.golden

NOTE = "pods admitted by the reference's admission pre-pass (--admission auto) from: "


def admitted(*objects: object) -> Docs:
    """The documents after admission, without the LimitRanges and RuntimeClasses (no
    scheduler reads them)."""
    docs = [("<definition>", i, d) for i, d in enumerate(manifests(*objects), start=1)]
    out: Docs = []
    for _, _, d in admit_documents(docs, "auto").documents:
        group = d.get("apiVersion", "").rpartition("/")[0]
        if (group, d.get("kind")) not in ADMISSION_KINDS:
            out.append(d)
    return out


def bare(name: str, created: int, **spec: object) -> object:
    """A pod from a manifest: one container without resources (admission gives them)."""
    return (make_pod(name).creation_timestamp(t(created))
            .container(make_container("app").image("registry.k8s.io/pause:3.10")).spec(**spec))


@golden("limitrange-defaults",
        "LimitRanger: default requests fill the nodes (5 of 6 pods fit), a limit-only pod's "
        "request is its limit",
        notes=[NOTE + "LimitRange default/defaults (Container default cpu 500m memory 512Mi, "
                      "defaultRequest cpu 300m memory 256Mi)"])
def _() -> Docs:
    lr = make_limit_range("defaults").item(
        "Container", default={"cpu": "500m", "memory": "512Mi"},
        default_request={"cpu": "300m", "memory": "256Mi"})
    limited = (make_pod("limit-only").creation_timestamp(t(0))
               .container(make_container("app").image("registry.k8s.io/pause:3.10")
                          .limits({"cpu": "700m"})))
    return admitted(lr, node("small", "900m", "2Gi"), node("medium", "1500m", "4Gi"),
                    limited, *(bare(f"web-{i}", i + 1) for i in range(6)))


@golden("runtimeclass-overhead-scheduling",
        "RuntimeClass: overhead counted by NodeResourcesFit, the class's nodeSelector and "
        "toleration steer the pods to the sandbox nodes",
        notes=[NOTE + "RuntimeClass kata (overhead cpu 500m, nodeSelector sandbox=true, "
                      "toleration sandbox:NoSchedule)"])
def _() -> Docs:
    kata = (make_runtime_class("kata", "kata-qemu").overhead({"cpu": "500m", "memory": "64Mi"})
            .node_selector({"sandbox": "true"})
            .toleration(toleration("sandbox", "NoSchedule", operator="Exists")))
    sandbox = [taint("sandbox", "NoSchedule", "true")]
    return admitted(
        kata,
        node("plain", "8", "16Gi"),
        node("sandbox-a", "1", "4Gi", labels={"sandbox": "true"}, taints=sandbox),
        node("sandbox-b", "2", "4Gi", labels={"sandbox": "true"}, taints=sandbox),
        *(pod(f"vm-{i}", "400m", created=t(i), runtimeClassName="kata") for i in range(4)),
        pod("regular", "400m", created=t(10)))


@golden("default-toleration-seconds",
        "DefaultTolerationSeconds: pods from manifests tolerate not-ready:NoExecute for 300 s and "
        "may land on such a node; a dump pod without the toleration may not",
        notes=[NOTE + "no LimitRange or RuntimeClass; pods with a uid are a dump's, taken as "
                      "they are"])
def _() -> Docs:
    not_ready = [taint("node.kubernetes.io/not-ready", "NoExecute")]
    return admitted(
        node("flaky", "8", "16Gi", taints=not_ready),
        node("steady", "2", "4Gi"),
        pod("running", "500m", node="flaky", start=t(0),
            tolerations=[toleration("node.kubernetes.io/not-ready", "NoExecute",
                                    operator="Exists", seconds=300)]).uid("dump-running"),
        pod("from-manifest", "500m", created=t(1)),
        pod("own-toleration", "500m", created=t(2),
            tolerations=[toleration("node.kubernetes.io/not-ready", "NoExecute",
                                    operator="Exists", seconds=60)]),
        pod("from-dump", "500m", created=t(3)).uid("dump-pending"))
