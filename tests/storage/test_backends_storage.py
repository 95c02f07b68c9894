"""The backends refuse storage scenarios (docs/backends.md#storage): their real control planes
run no PV controller or provisioner, so such a scenario is a ScenarioUnsupported with its
reason from the planner, before anything is created, never a PreBind that waits until the
timeout; the diff engine skips it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conformance.backends.plan import Naming, Planner
from conformance.backends.subject import OwnedControlPlaneSubject
from conformance.core.results import FAILED, SKIPPED
from conformance.core.scenario import ScenarioInput
from conformance.core.subject import ScenarioRejected
from conformance.engines.diff.cases import case_result
from conformance.engines.diff.compare import diff_scenario
from conformance.engines.diff.model import DECISIONS, WHOLE
from conformance.engines.golden import read_scenario_file
from conformance.subjects.reference import ReferenceSubject
from reference_impl.testing.storage import make_pvc, make_storage_class
from reference_impl.testing.wrappers import make_node, make_pod


def _plan(*docs: dict[str, Any]) -> None:
    Planner(Naming(), "ks-test", owned=True, rename_for_order=False,
            warnings=[]).plan(ScenarioInput(list(docs), None, 7, "t"))


def test_pod_with_claim_is_refused_with_its_name() -> None:
    with pytest.raises(ScenarioRejected, match=r"no PV controller.*default/p"):
        _plan(make_node("n1").manifest(), make_pvc("c").request("1Gi").manifest(),
              make_pod("p").pvc("c").manifest())


def test_storage_objects_alone_are_refused() -> None:
    with pytest.raises(ScenarioRejected, match="storage objects"):
        _plan(make_node("n1").manifest(),
              make_storage_class("sc", "csi.example.com").manifest())


def test_scenario_without_storage_is_planned() -> None:
    _plan(make_node("n1").manifest(), make_pod("p").manifest())


class _NoControlPlane(OwnedControlPlaneSubject):
    """A backend subject whose control plane is never needed: the planner refuses first."""

    name = "no-control-plane"

    def start_control_plane(self) -> None: ...

    def api(self) -> Any:
        return object()

    def start_scheduler(self, config: dict[str, Any] | None) -> None:
        raise AssertionError("a refused scenario starts no scheduler")

    def stop_scheduler(self) -> None: ...

    def scheduler_state(self) -> None:
        return None

    def stop_control_plane(self) -> None: ...

    def control_plane_running(self) -> bool:
        return False

    def scheduler_log_tail(self) -> str:
        return "I1205 kube-scheduler log line"  # a tail: SubjectErrors get it appended


def test_backend_subject_keeps_the_refusal_a_scenario_rejected() -> None:
    subject = _NoControlPlane()
    with pytest.raises(ScenarioRejected, match="no PV controller"):
        subject.run(ScenarioInput([make_node("n1").manifest(),
                                   make_pvc("c").request("1Gi").manifest(),
                                   make_pod("p").pvc("c").manifest()], None, 7, "t"))


class _Refuses(_NoControlPlane):
    """A subject that refuses every scenario as invalid input (not as unsupported)."""

    name = "refuses"

    def run(self, scenario: ScenarioInput) -> Any:
        raise ScenarioRejected("no such kind")


GOLDEN_STORAGE = Path(__file__).resolve().parents[2] / "golden" / "storage"


@pytest.mark.parametrize("modes", [[DECISIONS], [WHOLE]])
def test_diff_skips_a_golden_storage_scenario_the_backend_cannot_run(modes: list[str]) -> None:
    """``kschedconf diff --golden --upstream process``: the reference runs the golden storage
    scenario, the backend refuses it as unsupported; the case is skipped with the reason, not
    failed as a divergence (the CI's process and docker diffs)."""
    scenario, _, _ = read_scenario_file(GOLDEN_STORAGE / "volume-zone.yaml")
    res = diff_scenario(scenario, ReferenceSubject(), _NoControlPlane(), modes)
    assert res.divergences == []
    assert "no-control-plane: " in res.unsupported
    assert "no PV controller" in res.unsupported
    case = case_result(res)
    assert case.status == SKIPPED
    assert "no PV controller" in case.message


def test_diff_counts_a_plain_refusal_of_a_scenario_the_reference_runs() -> None:
    scenario, _, _ = read_scenario_file(GOLDEN_STORAGE / "volume-zone.yaml")
    res = diff_scenario(scenario, ReferenceSubject(), _Refuses(), [DECISIONS])
    assert res.unsupported == ""
    assert [d.signature[:2] for d in res.unexplained] == [(DECISIONS, "simulate")]
    assert case_result(res).status == FAILED
