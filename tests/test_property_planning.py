"""Which properties a run plans: an oracle of an opt-in scenario feature (DRA, storage) only
for the families whose scenarios hold it."""

from __future__ import annotations

import pytest

from conformance.cli.main import main
from conformance.engines.properties import property_list


def test_an_oracle_of_an_opt_in_feature_is_planned_only_where_it_has_something_to_judge(
        capsys: pytest.CaptureFixture[str]) -> None:
    """``dra_allocations`` judges claims: planned for the ``dra`` family, not for ``small``
    (whose scenarios never hold one); the storage oracles likewise for ``storage``."""
    props = property_list(["small", "dra", "storage"],
                          ["consistency", "dra_allocations", "attach_limits"])
    assert [p.id for p in props] == ["small/consistency", "dra/consistency",
                                     "dra/dra_allocations", "storage/attach_limits",
                                     "storage/consistency"]
    # named by the user where no family asked for gives it anything: a usage error saying so
    code = main(["run", "--oracle", "dra_allocations", "--sizes", "small,medium",
                 "--max-examples", "1", "--seed", "0"])
    err = capsys.readouterr().err
    assert code == 2
    assert "dra_allocations judge only scenarios with dra objects" in err
    assert "(add --sizes dra)" in err
