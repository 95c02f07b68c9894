"""The CEL libraries of DRA selectors end to end, on the reference and on the upstream subject
(the real DynamicResources plugin and k8s.io/dynamic-resource-allocation/cel): one claim per
selector, one pod per claim, on a node with GPUs of two models and NICs. Each selector uses
functions of the libraries beyond compile_test.go (cel_library.py, cel_netip.py,
cel_macros.py); some match, some match no device, some fail with an evaluation error, whose
message reaches the pending pod's status. (A list literal mixing an attribute with a literal,
``[device.attributes[d].x, 1]``, is a compile error upstream, cel.HomogeneousAggregateLiterals:
the loader refuses it as the API server does.) Both subjects must bind, leave pending and
allocate alike, with the same messages."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from conformance.core.scenario import ScenarioInput
from conformance.subjects.reference import ReferenceSubject
from conformance.subjects.upstream import UpstreamSubject, binary_available, default_binary
from reference_impl.dra.cel_cost import too_expensive
from strategies.dra import SELECTORS as DRAWN

GPU = "gpu.example.com"
NET = "net.example.com"
V1 = "resource.k8s.io/v1"
G = f'device.attributes["{GPU}"]'
N = f'device.attributes["{NET}"]'
#: whether the pods of the drawn selectors bind, one after the other on the devices below (the
#: ``charAt`` selector fails on gpu-2, index 2, if the allocator evaluates it there)
DRAWN_BIND = {
    GPU: (True, True, True, False, False, True, True, True, True, True, True, True, True),
    NET: (True, True, True, False, True),
}

#: (class, selector, the pod binds) -- the reference's answer, checked on its own below; first
#: the selectors the strategies draw (strategies/dra.py), on devices like theirs
SELECTORS: tuple[tuple[str, str, bool], ...] = (
    *(
        (driver, e, binds)
        for driver in (GPU, NET)
        for e, binds in zip(DRAWN[driver], DRAWN_BIND[driver], strict=True)
    ),
    (NET, f'cel.bind(a, {N}, cidr("10.0.0.0/16").containsIP(a.ip) && a.interface == "eth1")', True),
    (NET, f'cidr("10.2.0.0/16").containsIP({N}.ip)', False),
    (NET, f"ip({N}.ip).isGlobalUnicast() && ip({N}.ip).family() == 4", True),
    (
        NET,
        f'cidr({N}.subnet).containsCIDR("10.0.2.0/24") && cidr({N}.subnet).prefixLength() == 16',
        True,
    ),
    (
        NET,
        f'{N}.model.lowerAscii().split("-")[1] == "cx7" && {N}.model.substring(0, 3) == "Mel"',
        True,
    ),
    (
        NET,
        f'{N}.interface.charAt(0) == "e" && {N}.model.indexOf("-") == 8 && '
        f'{N}.model.lastIndexOf("l") == 3',
        True,
    ),
    (NET, 'ip("10.1.2.300").family() == 4', False),
    (NET, f'{N}.model.charAt(40) == "x"', False),
    (GPU, f'sets.intersects([{G}.model], ["h100", "b200"])', True),
    (GPU, f'{G}.model == "a100" && [0, 1, 0].lastIndexOf(0) == 2 && [5, 6].indexOf(6) == 1', True),
    (GPU, f"lists.range(2).exists(i, {G}.index == i) && [40, 80].max() == {G}.memory", True),
    (GPU, f'{G}.model.find("[0-9]+") == "100" && {G}.model.findAll("[a-z]").size() == 1', True),
    (GPU, f'{G}.all(k, v, k.size() > 2) && {G}.transformList(k, v, k).sort()[0] == "index"', True),
    (
        GPU,
        f'{G}.model.split("").distinct().size() == 3 && '
        f'[{G}.model.split("0"), ["x"]].flatten().slice(1, 4) == ["", "", "x"]',
        True,
    ),
    (GPU, f'cel.bind(m, {G}.model, m.upperAscii() == "B200")', False),
    (GPU, "[].max() == 1", False),
    (
        NET,
        f'url("https://" + {N}.ip + ":8080/a b?k=v&k=w").getPort() == "8080" && '
        f'url("https://" + {N}.ip + ":8080/a b?k=v&k=w").getQuery()["k"] == ["v", "w"] && '
        f'url("https://" + {N}.ip + ":8080/a b").getEscapedPath() == "/a%20b" && isURL("/x")',
        True,
    ),
    (NET, f'url("https://" + {N}.interface + ":b:c/").getHost() == ""', False),
    (NET, f'url("https://[" + {N}.ip + "]/").getHost() == ""', False),
    (GPU, f'strings.quote({G}.model) == "\\"h100\\""', True),
    (
        GPU,
        f'{G}.model.replace("100", "200", 1).trim() == "h200" && {G}.model.lastIndexOf("0") == 3',
        True,
    ),
    (
        GPU,
        f"[3, 1, 2].sort().reverse() == [3, 2, 1] && [1, 2, 3].sum() == 6 && "
        f"[1, 2].isSorted() && sets.equivalent([1, 2], [2, 1, 1]) && {G}.index == 2",
        True,
    ),
    (
        GPU,
        f"{G}.transformMap(k, v, k.size()).existsOne(k, v, v == 6) && "
        f"lists.range(3).sortBy(e, -e)[0] == 2 && {G}.index in [1, 2]",
        True,
    ),
    (GPU, f'{G}.transformMapEntry(k, v, {{"a": v}}).size() == 1', False),
    (GPU, f"{G}.memory > 39.5 && {G}.index == 0.0 && {G}.model != 1 && 1 < 1.5", True),
    (GPU, f'{G}.?missing.orValue(true) && {G}.?model.orValue("") == "h100"', True),
    (GPU, 'device.attributes["other.example.com"].?x.hasValue()', False),
    (GPU, "optional.none().value() == 1", False),
    (
        NET,
        f'{N}[?"ip"].optMap(x, x.size()).orValue(0) > 6 && '
        f'optional.ofNonZeroValue("").or(optional.of("a")).value() == "a"',
        True,
    ),
)


def scenario(selectors: Sequence[tuple[str, str, bool]] = SELECTORS) -> list[dict[str, Any]]:
    """A node with a GPU and a NIC per selector, and a claim and a pod per selector."""
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "node-1", "labels": {"kubernetes.io/hostname": "node-1"}},
        "status": {
            "allocatable": {"cpu": "64", "memory": "64Gi", "pods": "1000"},
            "capacity": {"cpu": "64", "memory": "64Gi", "pods": "1000"},
        },
    }
    gpus = [
        {
            "name": f"gpu-{i}",
            "attributes": {
                "model": {"string": ("a100", "h100")[i % 2]},
                "memory": {"int": (40, 80)[i % 2]},
                "index": {"int": i % 3},
            },
            "capacity": {"memory": {"value": f"{(40, 80)[i % 2]}Gi"}},
        }
        for i in range(len(selectors))
    ]
    nics = [
        {
            "name": f"nic-{i}",
            "attributes": {
                "ip": {"string": f"10.0.0.{i + 1}"},
                "subnet": {"string": "10.0.0.0/16"},
                "speed": {"int": (100, 10)[i % 2]},
                "interface": {"string": "eth1"},
                "model": {"string": "Mellanox-CX7"},
            },
        }
        for i in range(len(selectors))
    ]
    docs: list[dict[str, Any]] = [node]
    for driver, devices in ((GPU, gpus), (NET, nics)):
        docs.append(
            {
                "apiVersion": V1,
                "kind": "DeviceClass",
                "metadata": {"name": driver},
                "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{driver}"'}}]},
            }
        )
        docs.append(
            {
                "apiVersion": V1,
                "kind": "ResourceSlice",
                "metadata": {"name": f"node-1-{driver}"},
                "spec": {
                    "driver": driver,
                    "nodeName": "node-1",
                    "devices": devices,
                    "pool": {"name": f"node-1-{driver}", "generation": 1, "resourceSliceCount": 1},
                },
            }
        )
    for i, (cls, expression, _) in enumerate(selectors):
        docs.append(
            {
                "apiVersion": V1,
                "kind": "ResourceClaim",
                "metadata": {"name": f"c{i}", "namespace": "default"},
                "spec": {
                    "devices": {
                        "requests": [
                            {
                                "name": "r",
                                "exactly": {
                                    "deviceClassName": cls,
                                    "selectors": [{"cel": {"expression": expression}}],
                                },
                            }
                        ]
                    }
                },
            }
        )
        docs.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    "name": f"p{i:02d}",
                    "namespace": "default",
                    "creationTimestamp": f"2025-01-01T00:{i // 60:02d}:{i % 60:02d}Z",
                },
                "spec": {
                    "containers": [{"name": "c", "image": "registry.k8s.io/pause"}],
                    "resourceClaims": [{"name": "r", "resourceClaimName": f"c{i}"}],
                },
            }
        )
    return docs


def run(subject: Any, selectors: Sequence[tuple[str, str, bool]] = SELECTORS) -> dict[str, Any]:
    """The subject's result for :func:`scenario`."""
    return dict(subject.run(ScenarioInput(scenario(selectors), name="dra-cel-library")).result)


def attempts(result: dict[str, Any]) -> list[tuple[str, str, float, str]]:
    return [(a["pod"], a["outcome"], a["time"], a.get("message", "")) for a in result["attempts"]]


def test_every_selector_is_one_an_api_server_accepts() -> None:
    """None is over the cost limit that validation applies (dra/cel_cost.py, checked against
    upstream's estimator in test_dra_cel_cost.py): the loader would refuse it. On an
    attribute's string, ``split``'s elements and a list's ``join`` and ``indexOf`` of strings
    have no size bound, so upstream estimates them over the limit."""
    over = {e: c for _, e, _ in SELECTORS if (c := too_expensive(e)) is not None}
    assert over == {}


def test_the_reference_binds_the_pods_whose_selectors_match() -> None:
    ref = run(ReferenceSubject())
    assert sorted(ref["bindings"]) == [f"default/p{i:02d}" for i, s in enumerate(SELECTORS) if s[2]]
    errors = {a[0]: a[3] for a in attempts(ref) if a[1] == "Error"}
    empty = next(i for i, s in enumerate(SELECTORS) if s[1] == "[].max() == 1")
    assert errors[f"default/p{empty:02d}"].endswith("CEL runtime error: max called on empty list")


def test_the_upstream_subject_decides_alike(upstream: UpstreamSubject) -> None:
    """The same bindings, claims and attempts, with the same messages (CEL runtime errors
    among them)."""
    up = run(upstream)
    ref = run(ReferenceSubject())
    assert up["bindings"] == ref["bindings"]
    assert up["pending"] == ref["pending"]
    assert up["resourceClaims"] == ref["resourceClaims"]
    assert attempts(up) == attempts(ref)


def _one_claim(expression: str) -> list[dict[str, Any]]:
    """The node and devices of :func:`scenario`, one pod whose claim's selector is
    ``expression``."""
    docs = [d for d in scenario() if d["kind"] in ("Node", "DeviceClass", "ResourceSlice")]
    claim = next(d for d in scenario() if d["kind"] == "ResourceClaim")
    claim["spec"]["devices"]["requests"][0]["exactly"] = {
        "deviceClassName": GPU,
        "selectors": [{"cel": {"expression": expression}}],
    }
    pod = next(d for d in scenario() if d["kind"] == "Pod")
    return [*docs, claim, pod]


@pytest.mark.parametrize(
    ("release", "expression", "outcome", "message"),
    [
        # switch dra-cel-no-such-key-hint: the device is named from 1.37
        (
            "v1.34.4",
            f'{G}.model.charAt(9) == "x"',
            "Error",
            "selector #0: CEL runtime error: index out of range: 9",
        ),
        (
            "v1.37.2",
            f'{G}.model.charAt(9) == "x"',
            "Error",
            "selector #0 on device "
            f"{GPU}/node-1-{GPU}/gpu-0: CEL runtime error: index out of range: 9",
        ),
    ],
)
def test_per_release(release: str, expression: str, outcome: str, message: str) -> None:
    """What differs between releases in the environment and the allocator's CEL errors; the
    upstream subject of the release agrees."""
    sc = ScenarioInput(_one_claim(expression), name="dra-cel-release", release=release)
    ref = dict(ReferenceSubject(release=release).run(sc).result)
    assert ref["upstreamRelease"] == release
    assert [a[1] for a in attempts(ref)][:1] == [outcome]
    assert message in attempts(ref)[0][3]
    if not binary_available(default_binary(release)):
        pytest.skip(f"the upstream subject of {release} is not built")
    with UpstreamSubject(release=release) as upstream:
        up = dict(upstream.run(sc).result)
    assert attempts(up) == attempts(ref)
