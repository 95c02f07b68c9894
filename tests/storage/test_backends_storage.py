"""The backends refuse storage scenarios (docs/backends.md#storage): their real control planes
run no PV controller or provisioner, so such a scenario is a ScenarioRejected with its reason
from the planner, before anything is created, never a PreBind that waits until the timeout."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.backends.plan import Naming, Planner
from conformance.backends.subject import OwnedControlPlaneSubject
from conformance.core.scenario import ScenarioInput
from conformance.core.subject import ScenarioRejected
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
