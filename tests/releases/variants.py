"""The shared check of a two-variant behaviour switch: which releases run which variant,
written by hand in each test from the releases' sources (not read from the switch)."""

from __future__ import annotations

from collections.abc import Collection

from reference_impl.releases import load, supported_releases


def assert_two_variants(switch: str, newer: Collection[str], new: str, old: str) -> None:
    """Every supported release runs ``new`` when in ``newer``, else ``old``."""
    for release in supported_releases():
        want = new if release in newer else old
        assert load(release).behaviour(switch) == want, release
