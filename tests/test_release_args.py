"""upstream/release-args.sh, the --release parsing that upstream/build.sh and backends/build.sh
share: sourced in a tiny bash harness (no Go, no build) that prints the variables it sets."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from reference_impl.releases import supported_releases
from reference_impl.releases.pinned import UPSTREAM_RELEASE

ROOT = Path(__file__).resolve().parent.parent
UPSTREAM = ROOT / "upstream"

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")

#: sources the helpers, parses the arguments as both build scripts do, resolves the release
HARNESS = r"""
set -euo pipefail
. "$UPSTREAM/release-mod.sh"
. "$UPSTREAM/release-args.sh"
die() { echo "harness: error: $*" >&2; exit 1; }
if [ "${NO_PYTHON:-}" = 1 ]; then  # the sed fallback for the pin
  command() { if [ "${2-}" = python3 ]; then return 1; fi; builtin command "$@"; }
fi
release=""
rest=()
while [ $# -gt 0 ]; do
  if release_arg "$@"; then shift "$release_shift"; continue; fi
  rest+=("$1")
  shift
done
resolve_release "$ROOT"
echo "pinned=$pinned pinned_minor=$pinned_minor release=$release minor=$minor" \
  "staging=$staging rest=${rest[*]-}"
"""


def _run(*args: str, no_python: bool = False) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "UPSTREAM": str(UPSTREAM), "ROOT": str(ROOT),
           "NO_PYTHON": "1" if no_python else ""}
    return subprocess.run(["bash", "-c", HARNESS, "harness", *args], capture_output=True,
                          text=True, env=env, timeout=60, check=False)


def _vars(out: str) -> dict[str, str]:
    return dict(kv.split("=", 1) for kv in out.split() if "=" in kv)


def _minor(tag: str) -> str:
    return tag.split(".")[1]


@pytest.mark.parametrize("no_python", [False, True])
def test_the_pin_by_default(no_python: bool) -> None:
    r = _run("--check", no_python=no_python)
    assert r.returncode == 0, r.stderr
    v = _vars(r.stdout)
    assert v["pinned"] == v["release"] == UPSTREAM_RELEASE
    assert v["minor"] == v["pinned_minor"] == _minor(UPSTREAM_RELEASE)
    assert v["staging"] == "v0" + UPSTREAM_RELEASE[2:]
    assert v["rest"] == "--check"


@pytest.mark.parametrize("form", ["separate", "equals"])
def test_each_supported_release_in_both_forms(form: str) -> None:
    for release in supported_releases():
        args = ["--release", release] if form == "separate" else [f"--release={release}"]
        r = _run("--sync", *args, "--force")
        assert r.returncode == 0, r.stderr
        v = _vars(r.stdout)
        assert (v["release"], v["minor"]) == (release, _minor(release))
        assert v["staging"] == "v0" + release[2:]
        assert r.stdout.rstrip().endswith("rest=--sync --force")


@pytest.mark.parametrize("args,message", [
    (["--release"], "--release needs a release, e.g. v1.34.4"),
    (["--release", ""], "--release needs a release, e.g. v1.34.4"),
    (["--release", "1.34"], "not a release tag: '1.34' (e.g. v1.34.4)"),
    (["--release=v1.99.0"], "v1.99.0 is not a supported release (supported: "
     + " ".join(supported_releases()) + ")"),
])
def test_errors(args: list[str], message: str) -> None:
    r = _run(*args)
    assert r.returncode == 1
    assert r.stderr.strip() == f"harness: error: {message}"
    assert r.stdout == ""
