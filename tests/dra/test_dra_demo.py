"""The demo specs of kubernetes-sigs/dra-example-driver, restated in tests/data/public/dra/
(README.md there), scheduled by the reference: which device each claim gets, reasoned from
upstream v1.37.2 (and checked against the upstream subject: tests/dra/test_upstream_dra.py
test_the_dra_example_driver_demo_matches_upstream).

Why these devices: one node, one pool, one slice of gpu-0..gpu-7 in that order; the pods are
scheduled in input order (equal priority and creation time); the incubating allocator takes
the first free device of the slice that the class's and the request's selectors accept, and a
device allocated to a claim (or in flight) is not free (allocateddevices.go). A claim shared by
name is allocated once, by its first pod, and only reserved by the second."""

from __future__ import annotations

from pathlib import Path

from conformance.core.documents import simulation_doc, to_json
from conformance.reporters.tables import simulation_table
from reference_impl.model.loader import load_paths
from reference_impl.scheduler.scheduler import Scheduler
from reference_impl.scheduler.simulation import merge_simulation_doc, run_simulation

DEMO = Path(__file__).resolve().parent.parent / "data" / "public" / "dra"
FILES = ["cluster.yaml", "gpu-test1.yaml", "gpu-test2.yaml", "gpu-test3.yaml",
         "gpu-selector.yaml"]
NODE = "dra-example-driver-cluster-worker"


def simulate() -> tuple[dict, str]:
    loaded = load_paths([DEMO / f for f in FILES], admission="auto")
    result = run_simulation(Scheduler(loaded.cluster, seed=0))
    doc = merge_simulation_doc(simulation_doc(result), result)
    return doc, to_json(doc)


def devices(doc: dict) -> dict[str, dict[str, list[str]]]:
    return {pod: {c["name"]: [d["device"] for d in c["allocation"]["devices"]] for c in claims}
            for pod, claims in doc["resourceClaims"].items()}


def test_demo_schedules_and_allocates_as_upstream() -> None:
    doc, _ = simulate()
    assert doc["bindings"] == {p: NODE for p in (
        "gpu-selector/pod0", "gpu-test1/pod0", "gpu-test1/pod1", "gpu-test2/pod0",
        "gpu-test3/pod0", "gpu-test3/pod1")}
    assert devices(doc) == {
        # gpu-test1: a claim per pod from the template, each its own GPU
        "gpu-test1/pod0": {"gpu": ["gpu-0"]},
        "gpu-test1/pod1": {"gpu": ["gpu-1"]},
        # gpu-test2: one claim for the pod; both containers use it
        "gpu-test2/pod0": {"shared-gpu": ["gpu-2"]},
        # gpu-test3: the claim by name is allocated once and shared
        "gpu-test3/pod0": {"shared-gpu": ["gpu-3"]},
        "gpu-test3/pod1": {"shared-gpu": ["gpu-3"]},
        # the selector keeps the two older GPUs (gpu-6, gpu-7), same driverVersion
        "gpu-selector/pod0": {"gpus": ["gpu-6", "gpu-7"]},
    }
    assert [c["claim"] for c in doc["resourceClaims"]["gpu-test3/pod1"]] == ["single-gpu"]


def test_demo_claims_are_reserved_in_cluster_state() -> None:
    loaded = load_paths([DEMO / f for f in FILES], admission="auto")
    run_simulation(Scheduler(loaded.cluster, seed=0))
    shared = loaded.cluster.dra.claims["gpu-test3/single-gpu"]
    assert sorted(r.name for r in shared.reserved_for) == ["pod0", "pod1"]
    generated = [c for k, c in loaded.cluster.dra.claims.items()
                 if k.startswith("gpu-test1/")]
    assert sorted(c.name[:-5] for c in generated) == ["pod0-gpu-", "pod1-gpu-"]
    assert all(c.allocation is not None and len(c.reserved_for) == 1 for c in generated)


def test_demo_output_is_byte_identical() -> None:
    assert simulate()[1] == simulate()[1]


def test_demo_uses_six_of_eight_gpus() -> None:
    """Seven claims' worth of devices, six distinct GPUs (gpu-test3 shares one); gpu-4 and
    gpu-5 stay free. The template pod's claim status was set by the pre-pass."""
    loaded = load_paths([DEMO / f for f in FILES], admission="auto")
    template_pod = next(p for p in loaded.cluster.pods if p.key == "gpu-test1/pod0")
    assert [n for n, _ in template_pod.resource_claim_statuses] == ["gpu"]
    doc, _ = simulate()
    used = {d for per in devices(doc).values() for ds in per.values() for d in ds}
    assert used == {f"gpu-{i}" for i in (0, 1, 2, 3, 6, 7)}


def test_demo_table_names_the_devices() -> None:
    """``simulate --output table`` adds each bound pod's devices, by pod claim."""
    doc, _ = simulate()
    lines = simulation_table(doc).splitlines()
    row = next(line for line in lines if "gpu-selector/pod0" in line)
    assert row.rstrip().endswith(f"{NODE} (devices gpus: gpu-6, gpu-7)")
