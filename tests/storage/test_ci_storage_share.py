"""Issue 14: the differential campaign of ``.ci/run`` generates storage scenarios, at least a
fifth of the generated ones. The campaign's ``--sizes`` are read from ``.ci/run`` itself, and
the share is counted over scenarios drawn as the campaign draws them (the same families and
seed), so that neither a change of the command nor of the strategies can lower it unseen."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conformance.core.scenario import ScenarioInput
from conformance.engines.diff.plan import family_counts, parse_sizes
from conformance.engines.diff.search import hypothesis_test
from strategies.storage import has_storage

Doc = dict[str, Any]
CI_RUN = Path(__file__).resolve().parents[2] / ".ci" / "run"
#: scenarios drawn per family to estimate its share of storage scenarios
SAMPLE = 25


def _commands(prefix: str) -> list[list[str]]:
    """The ``kschedconf`` commands of ``.ci/run`` that start with ``prefix`` (continuation
    lines joined), as argument lists."""
    text = CI_RUN.read_text(encoding="utf-8").replace("\\\n", " ")
    return [shlex.split(line.strip())[1:] for line in text.splitlines()
            if re.match(rf"\s*(KSCHEDCONF\w*=\S+\s+)?kschedconf {prefix}\b", line)]


def _option(args: list[str], name: str) -> str | None:
    return args[args.index(name) + 1] if name in args else None


def family_share(family: str, seed: int, holds: Callable[[list[Doc]], bool],
                 sample: int = SAMPLE) -> float:
    """The share of a family's first ``sample`` scenarios (as ``kschedconf diff --seed SEED``
    draws them) whose documents ``holds``."""
    seen: list[bool] = []

    def body(scenario: ScenarioInput) -> None:
        seen.append(holds(list(scenario.documents)))

    hypothesis_test(family, sample, seed, body, shrink=False)()
    assert len(seen) == sample
    return sum(seen) / len(seen)


def _storage_share(family: str, seed: int) -> float:
    """Storage objects or pods with volumes."""
    return family_share(family, seed, has_storage)


def test_the_ci_differential_is_at_least_a_fifth_storage() -> None:
    (diff,) = [c for c in _commands("diff") if _option(c, "--upstream") is None]
    sizes = _option(diff, "--sizes")
    assert sizes is not None, diff
    counts = family_counts(0, parse_sizes(sizes))
    seed = int(_option(diff, "--seed") or 0)
    shares = {family: _storage_share(family, seed) for family in counts}
    assert shares["storage"] == 1.0  # every scenario of the family is a storage scenario
    assert shares["small"] == 0.0  # storage is opt-in: the small family has none
    storage = sum(counts[f] * shares[f] for f in counts)
    assert storage / sum(counts.values()) >= 1 / 5, (counts, shares)


def test_the_ci_soundness_campaign_judges_storage_scenarios() -> None:
    """The soundness campaign on the upstream subject draws ``--max-examples`` scenarios per
    listed family: storage is one of them, a fifth of the list at least."""
    runs = [c for c in _commands("run") if "--sizes" in c and "storage" in
            _option(c, "--sizes").split(",")]  # type: ignore[union-attr]
    assert runs, "no kschedconf run of .ci/run draws the storage family"
    families = _option(runs[0], "--sizes").split(",")  # type: ignore[union-attr]
    assert 1 / len(families) >= 1 / 5, families
