"""The golden scenarios of area ``taints`` (``golden/taints/``): TaintToleration: NoSchedule,
NoExecute and PreferNoSchedule taints, the toleration operators."""

from __future__ import annotations

from reference_impl.testing.wrappers import taint, toleration

from .common import Area, Docs, node, pod

AREA = Area("taints")
golden = AREA.golden


@golden("noschedule-and-tolerations", "TaintToleration filter: NoSchedule, tolerations")
def _() -> Docs:
    return [node("gpu", taints=[taint("dedicated", value="gpu")]),
            node("infra", taints=[taint("dedicated", value="infra")]),
            node("plain", "1", "1Gi"),
            pod("gpu-job", tolerations=[toleration("dedicated", value="gpu")]),
            pod("any-dedicated", "800m", tolerations=[toleration("dedicated")]),
            pod("wrong-value", "2", tolerations=[toleration("dedicated", value="db")]),
            pod("plain-pod", "500m")]


@golden("noexecute", "TaintToleration: NoExecute taints need a toleration too")
def _() -> Docs:
    return [node("draining", taints=[taint("node.kubernetes.io/not-ready", "NoExecute")]),
            node("ok", "1", "1Gi"),
            pod("tolerant", tolerations=[toleration("node.kubernetes.io/not-ready",
                                                    "NoExecute")]),
            pod("normal", "2")]


@golden("prefer-noschedule-scoring",
        "TaintToleration score: count of intolerable PreferNoSchedule taints")
def _() -> Docs:
    soft = [taint("a", "PreferNoSchedule"), taint("b", "PreferNoSchedule")]
    return [node("two-soft", taints=soft), node("one-soft", taints=soft[:1]),
            node("one-soft-b", taints=soft[1:]),
            pod("tolerates-a", tolerations=[toleration("a", "PreferNoSchedule")]),
            pod("tolerates-b", tolerations=[toleration("b")]),
            pod("tolerates-none"),
            pod("tolerates-all", tolerations=[toleration(operator="Exists")])]


@golden("toleration-operators",
        "tolerations: Exists without key, Equal with empty effect, value mismatch")
def _() -> Docs:
    return [node("x", taints=[taint("k1", value="v1"), taint("k2", "NoExecute", "v2")]),
            node("y", "1", "1Gi", taints=[taint("k1", value="other")]),
            pod("all", tolerations=[{"operator": "Exists"}]),
            pod("k1-v1-only", tolerations=[toleration("k1", value="v1")]),
            pod("both-keys", tolerations=[toleration("k1", value="v1"),
                                          toleration("k2", value="v2")]),
            pod("k1-any-value", "600m", tolerations=[toleration("k1")])]
