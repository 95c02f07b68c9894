"""A divergence about a plugin the subject replaces names the subject's own plugin and the
extension point (docs/diff.md, "Any scheduler against the reference")."""

from __future__ import annotations

from conformance.engines.diff.lockstep import compare_explanations
from conformance.engines.diff.model import extension_point, name_replacements


def _explanation(raw: int, normalized: int, code: str = "Success") -> dict:
    return {"pod": "default/p", "preFilter": [{"plugin": "NodeAffinity", "code": code,
                                               "reasons": []}],
            "nodes": [{"name": "n1", "feasible": True, "examined": True,
                       "filters": [{"plugin": "NodeAffinity", "code": code, "reasons": []}],
                       "scores": [{"plugin": "NodeAffinity", "raw": raw,
                                   "normalized": normalized, "weight": 2,
                                   "weighted": 2 * normalized}],
                       "total": 2 * normalized}],
            "candidates": ["n1"], "selected": "n1", "shortcut": True}


def test_points_of_the_explanation_fields() -> None:
    assert extension_point("preFilter.*.code") == "PreFilter"
    assert extension_point("nodes.*.filters.*.code") == "Filter"
    assert extension_point("nodes.*.scores.*.raw") == "Score (raw score)"
    assert extension_point("nodes.*.scores.*.normalized") == \
        "NormalizeScore (normalized score)"
    assert extension_point("nodes.*.scores.*.weighted") == "Score (weighted score)"
    assert extension_point("attempts[*].node") is None


def test_raw_and_normalized_scores_and_prefilter_are_compared_and_named() -> None:
    # a raw score that differs while the normalized one agrees is a divergence of its own
    divs, _ = compare_explanations(_explanation(3, 100), _explanation(7, 100), "default/p", 0)
    assert [d.field for d in divs] == ["nodes.*.scores.*.raw"]
    name_replacements(divs, {"FastNodeAffinity": "NodeAffinity", "Other": "ImageLocality"})
    (d,) = divs
    assert d.plugin == "NodeAffinity" and d.user_plugin == "FastNodeAffinity"
    assert d.to_dict()["userPlugin"] == "FastNodeAffinity"
    assert d.to_dict()["point"] == "Score (raw score)"
    assert str(d).endswith("[the upstream's FastNodeAffinity replacing NodeAffinity, at "
                           "Score (raw score)]")
    divs, _ = compare_explanations(_explanation(3, 100), _explanation(3, 100, "Skip"),
                                   "default/p", 0)
    assert {d.point for d in divs} == {"PreFilter", "Filter"}
    name_replacements(divs, {})
    assert all(d.user_plugin is None and "replacing" not in str(d) for d in divs)
