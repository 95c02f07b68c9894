"""The upstream test tables of the CEL libraries (tests/dra/test_dra_cel_library.py: cel-go's
ext tests, apiserver's ip/cidr tests, apiextensions' list, regex and URL cases) as DRA
selectors on the real scheduler: each expression is a claim's selector (one pod per claim, one
GPU per claim), run on the reference and on the upstream subject, which must give the same
bindings, claims and attempts (each runtime error's message included).

Left out: the expressions upstream's type checker refuses at compile time, and the loader
with it (dra/cel_checker.py): list and set literals mixing int, uint and double
(cel.HomogeneousAggregateLiterals), results that are not a bool (``must evaluate to bool``) and
``includes``, and those over the API server's cost limit, which the loader refuses as
validation does (``join``, ``indexOf`` of strings...: dra/cel_cost.py, checked
against upstream's estimator in test_dra_cel_cost.py). On the reference alone they are tested as
upstream's own tests evaluate them."""

from __future__ import annotations

from conformance.subjects.reference import ReferenceSubject
from conformance.subjects.upstream import UpstreamSubject
from reference_impl.dra.cel import CELCompileError
from reference_impl.dra.cel_cost import estimate_cost, too_expensive
from tests.dra.test_dra_cel_library import K8S_LISTS_AND_REGEX, K8S_URLS, TABLE
from tests.dra.test_dra_cel_library_upstream import GPU, attempts, run

#: what upstream refuses to compile in the Kubernetes environment (found by running all)
REFUSED = frozenset(
    {
        # results that are not a bool (the table expects an evaluation error)
        "[1,2,3,4].slice(3, 0)",
        "[1,2,3,4].slice(0, 10)",
        "[1,2,3,4].slice(-5, 10)",
        "[1,2,3,4].slice(-5, -3)",
        'ip("192.168.0.1.0")',
        'ip("2001:db8:::68")',
        'cidr("192.168.0.0/")',
        'cidr("2001:db8::/")',
        # list literals of mixed element types
        "[1,[2,[3,4]]].flatten() == [1,2,[3,4]]",
        "[1,2,[],[],[3,4]].flatten() == [1,2,3,4]",
        "[1,[2,[3,4]]].flatten(2) == [1,2,3,4]",
        "[1,[2,[3,[4]]]].flatten(-1) == [1,2,3,4]",
        '["d", 3, 2, "c"].sort() == ["a", "b", "c", "d"]',
        '[1, 2.0, "c", 3, "c", 1].distinct() == [1, 2.0, "c", 3]',
        "[1, 1.0, 2].distinct() == [1, 2]",
        "sets.contains([1], [1.0, 1])",
        "sets.contains([1, 2], [2u, 2.0])",
        "sets.contains([1, 2u], [2, 2.0])",
        "sets.contains([1, 2.0, 3u], [1.0, 2u, 3])",
        "sets.contains([[1], [2, 3]], [[2, 3.0]])",
        '!sets.contains([1], ["1", 1])',
        "!sets.contains([1], [1.1, 1u])",
        "sets.equivalent([1], [1u, 1.0])",
        "sets.equivalent([1, 2, 3], [3u, 2.0, 1])",
        "sets.equivalent([[1.0], [2, 3]], [[1], [2, 3.0]])",
        "!sets.equivalent([1, 2], [2u, 2, 2.0])",
        "!sets.equivalent([1, 2], [1u, 2, 2.3])",
        "sets.intersects([1], [1.0, 2])",
        "sets.intersects([1, 2], [2u, 2, 2.0])",
        "sets.intersects([1, 2], [1u, 2, 2.3])",
        "sets.intersects([[1], [2, 3]], [[1, 2], [2, 3.0]])",
        '!sets.intersects([1], ["1", 2])',
        "!sets.intersects([1], [1.1, 2u])",
    }
)


EXPRESSIONS = [e for _, e, _ in TABLE] + K8S_LISTS_AND_REGEX + K8S_URLS
#: what the API server refuses to create though the scheduler's environment compiles it: the
#: list library's ``includes``, in no release's NewExpressions environment (the loader refuses
#: it: docs/release-differences.md#dra-cel-includes)
NOT_CREATED = frozenset(e for e in EXPRESSIONS if ".includes(" in e)
#: what the API server refuses as too expensive
OVER_LIMIT = frozenset(e for e in EXPRESSIONS if too_expensive(e) is not None)


def test_the_upstream_tables_decide_alike(upstream: UpstreamSubject) -> None:
    assert REFUSED <= set(EXPRESSIONS)
    assert len(OVER_LIMIT) < 20  # the cost limit leaves most of the tables to compare
    selectors = [(GPU, e, True) for e in EXPRESSIONS if e not in REFUSED | NOT_CREATED | OVER_LIMIT]
    up = run(upstream, selectors)
    ref = run(ReferenceSubject(), selectors)
    assert up["bindings"] == ref["bindings"]
    assert up["pending"] == ref["pending"]
    assert up["resourceClaims"] == ref["resourceClaims"]
    assert attempts(up) == attempts(ref)
    # the table's expressions that evaluate to true bind, those that fail do not
    errors = {e for _, e, error in TABLE if error is not None}
    pending = {selectors[int(k.split("/p")[1])][1] for k in ref["pending"]}
    assert pending == {e for (e,) in ((s[1],) for s in selectors) if e in errors}


def test_the_checker_refuses_what_upstream_refuses() -> None:
    """dra/cel_checker.py refuses exactly these (the loader with them: validation)."""
    refused = set()
    for e in EXPRESSIONS:
        try:
            estimate_cost(e)
        except CELCompileError:
            refused.add(e)
    assert refused == REFUSED | NOT_CREATED
