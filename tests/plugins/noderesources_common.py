"""What the NodeResources scoring tests share (their pods and nodes come from
``reference_impl.testing.wrappers``, as upstream's from ``st.MakePod`` / ``st.MakeNode``)."""

from __future__ import annotations


def cap(cpu: str, mem: str, **extra: str) -> dict[str, str]:
    """A resource map of cpu, memory and more (``map[v1.ResourceName]string``)."""
    return {"cpu": cpu, "memory": mem, **extra}


FEATURES = {"PodLevelResources": True, "DRAExtendedResource": True,
            "InPlacePodVerticalScalingSchedulerPreemption": False}
