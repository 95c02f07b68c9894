"""k8s.io/kubernetes of a release, and the staging modules it replaces, in the Go module cache
(the upstream and backends builds download them): the tests that check release data against
upstream's source read it there, and skip when it is absent."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path


def module_cache() -> Path | None:
    """``go env GOMODCACHE``, or None without Go."""
    if shutil.which("go") is None:
        return None
    try:
        cache = subprocess.run(["go", "env", "GOMODCACHE"], capture_output=True, text=True,
                               timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return Path(cache) if cache else None


def kubernetes_source(release: str, module: str = "kubernetes") -> Path | None:
    """The source of ``k8s.io/kubernetes@vX.Y.Z`` (``module="kubernetes"``) or of one of its
    staging modules at the matching ``v0.Y.Z`` (``module="apiserver"``...), if in the cache."""
    cache = module_cache()
    if cache is None:
        return None
    version = release if module == "kubernetes" else "v0." + release.split(".", 1)[1]
    d = cache / f"k8s.io/{module}@{version}"
    return d if d.is_dir() else None
