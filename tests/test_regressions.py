"""Every scenario in tests/regressions/ replays on the reference with no oracle violation.

Each file is a counterexample once found by `kschedconf run` or `kschedconf diff` (an oracle's
false alarm or a divergence), kept with the reason in its header after the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.engines.run import reproduce

FILES = sorted((Path(__file__).parent / "regressions").glob("*.yaml"))


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_regression_scenario_replays_clean(path: Path) -> None:
    outcome = reproduce(str(path), "reference")
    assert outcome.exit_code == 0
