"""Shared pieces of the replacement tests: the CLI in process, the golden area and scenario
family of each copied plugin (issue 18)."""

from __future__ import annotations

import shutil
from pathlib import Path

from conformance.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "golden"
COPIES = "conformance.engines.mutants.copies"
BUGGY = "conformance.engines.mutants.catalogue.plugin_form"

#: the golden areas whose scenarios exercise each plugin
AREAS = {
    "NodeName": ("node",), "NodeUnschedulable": ("node",), "NodePorts": ("node",),
    "NodeDeclaredFeatures": ("node",), "TaintToleration": ("taints",),
    "NodeAffinity": ("affinity",), "InterPodAffinity": ("affinity",),
    "NodeResourcesFit": ("fit",), "PodTopologySpread": ("spread",),
    "NodeResourcesBalancedAllocation": ("scoring",), "ImageLocality": ("scoring",),
    "VolumeRestrictions": ("storage",), "NodeVolumeLimits": ("storage",),
    "VolumeBinding": ("storage",), "VolumeZone": ("storage",), "DynamicResources": ("dra",),
}
#: the scenario family that reaches each plugin's code (small: every other)
FAMILIES = {"VolumeRestrictions": "storage", "NodeVolumeLimits": "storage",
            "VolumeBinding": "storage", "VolumeZone": "storage", "DynamicResources": "dra"}


def golden_dir(plugin: str, tmp: Path) -> Path:
    """A golden directory of the plugin's areas (a copy of the installed ones)."""
    out = tmp / "golden"
    for area in AREAS[plugin]:
        shutil.copytree(GOLDEN / area, out / area)
    return out


def family(plugin: str) -> str:
    return FAMILIES.get(plugin, "small")


def kschedconf(*argv: str) -> int:
    return main(list(argv))
