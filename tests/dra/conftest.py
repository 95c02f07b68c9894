"""Fixtures of the DRA tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from conformance.subjects.upstream import UpstreamSubject, binary_available


@pytest.fixture(scope="module")
def upstream() -> Iterator[UpstreamSubject]:
    """The upstream subject, one per test module; the test is skipped when it is not built."""
    if not binary_available():
        pytest.skip("upstream subject not built: run upstream/build.sh")
    subject = UpstreamSubject()
    yield subject
    subject.close()
