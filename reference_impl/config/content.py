"""Format checks the argument validation relies on.

Upstream: ``apimachinery/pkg/apis/meta/v1/validation`` (ValidateLabelName; the name and label
checks themselves, IsQualifiedName and IsValidLabelValue, are ``model/validation.py``),
``apimachinery/pkg/labels/selector.go`` (NewRequirement) and
``staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go``
(NewNodeSelector / NewPreferredSchedulingTerms, which report every malformed requirement).
"""

from __future__ import annotations

import re
from typing import Any

from reference_impl.config.errors import FieldError, child, index, invalid, not_supported
from reference_impl.model.validation import is_qualified_name, is_valid_label_value


def validate_label_name(name: str, path: str) -> list[FieldError]:
    """``metav1validation.ValidateLabelName``: one Invalid error per message."""
    return [invalid(path, name, msg) for msg in is_qualified_name(name)]


# --- nodeaffinity.NewNodeSelector / NewPreferredSchedulingTerms ---
_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
_FIELD_SELECTOR_OPERATORS = ("In", "NotIn")


def _new_requirement(key: str, op: str, values: list[str] | None, path: str) -> list[FieldError]:
    """``labels.NewRequirement``'s checks."""
    errs: list[FieldError] = []
    key_errs = is_qualified_name(key)
    if key_errs:
        errs.append(invalid(child(path, "key"), key, "; ".join(key_errs)))
    vals = values or []
    value_path = child(path, "values")
    if op in ("In", "NotIn"):
        if not vals:
            errs.append(invalid(value_path, values,
                                "for 'in', 'notin' operators, values set can't be empty"))
    elif op in ("Exists", "DoesNotExist"):
        if vals:
            errs.append(invalid(value_path, values,
                                "values set must be empty for exists and does not exist"))
    else:  # Gt, Lt
        if len(vals) != 1:
            errs.append(invalid(value_path, values,
                                "for 'Gt', 'Lt' operators, exactly one value is required"))
        for i, v in enumerate(vals):
            if not re.fullmatch(r"[+-]?[0-9]+", v) or not -(2**63) <= int(v) < 2**63:
                errs.append(invalid(index(value_path, i), v,
                                    "for 'Gt', 'Lt' operators, the value must be an integer"))
    for i, v in enumerate(vals):
        value_errs = is_valid_label_value(v)
        if value_errs:
            errs.append(invalid(index(index(value_path, i), key), v, "; ".join(value_errs)))
    return errs


def node_selector_term_errors(term: dict[str, Any], path: str) -> list[FieldError]:
    """``newNodeSelectorTerm``'s parse errors for one term."""
    errs: list[FieldError] = []
    for j, expr in enumerate(term.get("matchExpressions", [])):
        p = index(child(path, "matchExpressions"), j)
        op = expr.get("operator", "")
        if op not in _SELECTOR_OPERATORS:
            errs.append(not_supported(child(p, "operator"), op, _SELECTOR_OPERATORS))
            continue
        errs.extend(_new_requirement(expr.get("key", ""), op, expr.get("values"), p))
    for j, expr in enumerate(term.get("matchFields", [])):
        p = index(child(path, "matchFields"), j)
        op = expr.get("operator", "")
        if op in _FIELD_SELECTOR_OPERATORS:
            if len(expr.get("values") or []) != 1:
                errs.append(invalid(child(p, "values"), expr.get("values"),
                                    "must have one element"))
        else:
            errs.append(not_supported(child(p, "operator"), op, _FIELD_SELECTOR_OPERATORS))
    return errs


def _is_empty_term(term: dict[str, Any]) -> bool:
    return not term.get("matchExpressions") and not term.get("matchFields")


def node_selector_errors(selector: dict[str, Any], path: str) -> list[FieldError]:
    """``NewNodeSelector``: empty terms are skipped, the others must parse."""
    errs: list[FieldError] = []
    terms_path = child(path, "nodeSelectorTerms")
    for i, term in enumerate(selector.get("nodeSelectorTerms", [])):
        if not _is_empty_term(term):
            errs.extend(node_selector_term_errors(term, index(terms_path, i)))
    return errs


def preferred_terms_errors(terms: list[dict[str, Any]], path: str) -> list[FieldError]:
    """``NewPreferredSchedulingTerms``: terms with weight 0 or an empty preference are skipped;
    the path of a term is ``<path>[i]`` (no ``preference`` segment, as upstream)."""
    errs: list[FieldError] = []
    for i, term in enumerate(terms):
        preference = term.get("preference", {})
        if term.get("weight", 0) == 0 or _is_empty_term(preference):
            continue
        errs.extend(node_selector_term_errors(preference, index(path, i)))
    return errs
