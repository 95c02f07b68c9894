"""Divergences from upstream the reference does not restate yet, each a scenario the
differential found, kept as a strict xfail: the test starts to pass (and so fails) the day the
reference is fixed. docs/dra.md "What remains of issue 15" says why each is open.

known/claim_listed_twice_restore_event.yaml (`kschedconf diff --sizes dra=80 --seed 9`,
dra-0018): team-a/cache-7 lists team-a/claim-0 twice (the upstream deviation
upstream-dra-claim-listed-twice). Its PreBind writes the first entry's allocation (the assume
cache's latestObj, version 50) and fails at the second; Unreserve's second
MaybeRemoveClaimPendingAllocation drops the in-flight allocation (two sharers) and calls
AssumedClaimRestore (pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go
1603-1612): the assume cache goes back to its apiObj, the version before PreBind's write (the
informer's delivery of version 50 was skipped as not newer, assume_cache.go 255-260), and
pushes an Update event from the allocated claim to the unallocated one (476-491).
isSchedulableAfterClaimChange reads it as a deallocation and queues team-b/cache-9, which waits
for devices (dynamicresources.go 439-446). The reference has no assume-cache restore (one
sharer per in-flight allocation, no apiObj), so cache-9 stays in unschedulablePods until the
flush at 330 s.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.core.scenario import ScenarioInput
from conformance.subjects.reference import ReferenceSubject
from conformance.subjects.upstream import UpstreamSubject

KNOWN = Path(__file__).parent / "known"


def _attempts(result: dict) -> list[tuple[object, ...]]:
    return [(a["pod"], a["outcome"], a.get("node"), float(a.get("time") or 0))
            for a in result["attempts"]]


@pytest.mark.xfail(strict=True, reason="assume-cache restore at Unreserve not restated")
def test_unreserve_of_a_claim_listed_twice_restores_the_assume_cache(
        upstream: UpstreamSubject) -> None:
    sc = ScenarioInput.read(KNOWN / "claim_listed_twice_restore_event.yaml")
    up = upstream.run(sc).result
    # upstream retries cache-9 from the backoff queue right after cache-7's Error
    assert ("team-b/cache-9", "Unschedulable", None, 0.0) in _attempts(up)[8:10]
    assert _attempts(ReferenceSubject().run(sc).result) == _attempts(up)
