"""The golden scenarios of area ``affinity`` (``golden/affinity/``): NodeAffinity (nodeSelector,
required and preferred node affinity) and InterPodAffinity (required and preferred pod affinity and
anti-affinity, namespaces, running pods' terms)."""

from __future__ import annotations

from reference_impl.testing.wrappers import HOSTNAME, ZONE, Doc, make_namespace, node_selector_term

from .common import Area, Docs, affinity_term, node, pod, replicas, zone_nodes

AREA = Area("affinity")
golden = AREA.golden


@golden("node-selector", "NodeAffinity filter: spec.nodeSelector")
def _() -> Docs:
    return [node("ssd-1", labels={"disk": "ssd"}), node("hdd-1", labels={"disk": "hdd"}),
            node("ssd-2", "1", "1Gi", labels={"disk": "ssd", "gen": "2"}),
            pod("wants-ssd", "2", nodeSelector={"disk": "ssd"}),
            pod("wants-ssd-gen2", nodeSelector={"disk": "ssd", "gen": "2"}),
            pod("wants-nvme", nodeSelector={"disk": "nvme"}),
            pod("by-hostname", nodeSelector={HOSTNAME: "hdd-1"})]


@golden("node-affinity-required-operators",
        "NodeAffinity required: terms ORed; In, NotIn, Exists, DoesNotExist, Gt, Lt; "
        "matchFields metadata.name")
def _() -> Docs:
    def req(*terms: Doc) -> Doc:
        return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": list(terms)}}}
    return [node("gen3", labels={"gen": "3", "pool": "a"}),
            node("gen5", labels={"gen": "5", "pool": "b"}),
            node("gen7", labels={"gen": "7"}),
            pod("gt4", affinity=req(node_selector_term(("gen", "Gt", ["4"])))),
            pod("lt4-or-pool-b", affinity=req(node_selector_term(("gen", "Lt", ["4"]),
                                                        ("pool", "In", ["b"])),
                                              node_selector_term(("pool", "In", ["b"])))),
            pod("no-pool", affinity=req(node_selector_term(("pool", "DoesNotExist", None)))),
            pod("pool-not-a", affinity=req(node_selector_term(("pool", "Exists", None),
                                                     ("pool", "NotIn", ["a"])))),
            pod("by-field", affinity=req({"matchFields": [{"key": "metadata.name",
                                                           "operator": "In",
                                                           "values": ["gen3"]}]})),
            pod("impossible", affinity=req(node_selector_term(("gen", "Gt", ["9"]))))]


@golden("node-affinity-preferred", "NodeAffinity score: preferred terms and weights")
def _() -> Docs:
    pref = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 10, "preference": node_selector_term(("zone", "In", ["a"]))},
        {"weight": 50, "preference": node_selector_term(("disk", "In", ["ssd"]))},
        {"weight": 5, "preference": node_selector_term(("zone", "In", ["b"]), ("disk", "In",
                                                                      ["ssd"]))}]}}
    return [node("a-hdd", labels={"zone": "a", "disk": "hdd"}),
            node("a-ssd", "1", "1Gi", labels={"zone": "a", "disk": "ssd"}),
            node("b-ssd", labels={"zone": "b", "disk": "ssd"}),
            node("c", labels={"zone": "c"}),
            pod("p1", affinity=pref), pod("p2", "900m", affinity=pref),
            pod("p3", affinity=pref)]


@golden("pod-affinity-required-zone", "InterPodAffinity required affinity by zone")
def _() -> Docs:
    aff = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        affinity_term({"app": "cache"}, ZONE)]}}
    return [*zone_nodes(2, "ab"), pod("cache", node="b1", labels={"app": "cache"}),
            *replicas("web", 3, labels={"app": "web"}, affinity=aff),
            pod("lonely", affinity={"podAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    affinity_term({"app": "nothing"}, ZONE)]}})]


@golden("pod-anti-affinity-required-hostname",
        "InterPodAffinity required anti-affinity per host (one replica per node)")
def _() -> Docs:
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        affinity_term({"app": "etcd"}, HOSTNAME)]}}
    return [node("n1"), node("n2"), node("n3"),
            *replicas("etcd", 4, labels={"app": "etcd"}, affinity=anti)]


@golden("pod-affinity-preferred-weights",
        "InterPodAffinity score: preferred affinity and anti-affinity weights")
def _() -> Docs:
    pref = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 80, "podAffinityTerm": affinity_term({"app": "db"}, ZONE)}]},
        "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 30, "podAffinityTerm": affinity_term({"app": "web"}, HOSTNAME)}]}}
    return [*zone_nodes(2, "abc"), pod("db", node="c0", labels={"app": "db"}),
            pod("batch", node="a0", labels={"app": "batch"}),
            *replicas("web", 4, labels={"app": "web"}, affinity=pref)]


@golden("pod-affinity-namespace-selector",
        "InterPodAffinity: namespaces and namespaceSelector of the terms")
def _() -> Docs:
    sel = {"matchLabels": {"team": "data"}}
    aff_sel = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        affinity_term({"app": "db"}, ZONE, namespace_selector=sel)]}}
    aff_own = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        affinity_term({"app": "db"}, ZONE)]}}
    aff_list = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        affinity_term({"app": "db"}, ZONE, namespaces=["analytics"])]}}
    anti_all = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        affinity_term({"app": "db"}, ZONE, namespace_selector={})]}}
    return [make_namespace("warehouse").label("team", "data"),
            make_namespace("analytics").label("team", "bi"), make_namespace("web"),
            *zone_nodes(1, "abc"),
            pod("db-wh", node="a0", namespace="warehouse", labels={"app": "db"}),
            pod("db-an", node="b0", namespace="analytics", labels={"app": "db"}),
            pod("by-selector", namespace="web", affinity=aff_sel),
            pod("own-namespace", namespace="web", affinity=aff_own),
            pod("by-list", namespace="web", affinity=aff_list),
            pod("away-from-all-dbs", namespace="web", affinity=anti_all)]


@golden("existing-pods-anti-affinity",
        "InterPodAffinity: a running pod's required anti-affinity rejects incoming pods")
def _() -> Docs:
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        affinity_term({"security": "low"}, ZONE)]}}
    return [*zone_nodes(1, "ab"), node("a1", "1", zone="zone-a"),
            pod("guard", node="a0", labels={"app": "guard"}, affinity=anti),
            pod("untrusted", labels={"security": "low"}),
            pod("untrusted-2", labels={"security": "low"}),
            pod("trusted", "2", labels={"security": "high"})]


@golden("existing-pods-affinity-scoring",
        "InterPodAffinity score: running pods' required affinity (hardPodAffinityWeight) and "
        "preferred terms count for incoming pods")
def _() -> Docs:
    want_web = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        affinity_term({"app": "web"}, ZONE)]}}
    dislike_web = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 100, "podAffinityTerm": affinity_term({"app": "web"}, ZONE)}]}}
    return [*zone_nodes(1, "abc"),
            pod("sidecar-a", node="a0", labels={"app": "side"}, affinity=want_web),
            pod("loner-b", node="b0", labels={"app": "loner"}, affinity=dislike_web),
            *replicas("web", 3, labels={"app": "web"})]


@golden("pod-affinity-first-pod-self-match",
        "InterPodAffinity: the first pod of a group matching its own affinity term")
def _() -> Docs:
    aff = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        affinity_term({"group": "g1"}, ZONE)]}}
    other = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        affinity_term({"group": "g2"}, ZONE)]}}
    return [*zone_nodes(1, "ab"),
            *replicas("g1", 3, labels={"group": "g1"}, affinity=aff),
            pod("g2-0", labels={"group": "x"}, affinity=other)]
