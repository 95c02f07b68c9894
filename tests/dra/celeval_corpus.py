"""The corpora upstream/celeval records (one JSON object a line: ``expr``, optionally
``driver``, and Go's ``value``, runtime ``error``, ``compile`` error or ``panic``) and the
reference's answer to each: the compiler's error (dra/cel_checker.py), or the evaluation's
result (compared in CEL with the recorded value) or error (dra/cel.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reference_impl.dra.cel import CELCompileError, CELMatchError, DeviceView, compile_selector
from reference_impl.dra.cel_cost import estimate_cost


def load(name: str) -> list[dict[str, Any]]:
    text = (Path(__file__).parent / name).read_text()
    return [json.loads(x) for x in text.split("\n") if x]  # (not splitlines: U+2028)


def answer(row: dict[str, Any]) -> dict[str, Any]:
    """Ours, in the recorder's terms: what differs from the row's answer shows."""
    expression, device = row["expr"], DeviceView(row.get("driver", ""))
    if "panic" in row:  # cel-go panicked compiling it: refused here, saying so
        try:
            estimate_cost(expression)
        except CELCompileError as e:
            said = f"panics: {row['panic']}" in str(e)
            return {"panic": row["panic"] if said else str(e)}
        return {"panic": None}
    if "compile" in row:
        try:
            estimate_cost(expression)
        except CELCompileError as e:
            return {"compile": str(e).removeprefix("compilation failed: ")}
        return {"compile": None}
    if "value" in row:
        value = row["value"]
        literal = json.dumps(value, ensure_ascii=False)
        selector = expression if value is True else f"{expression} == {literal}"
    else:
        selector = f'{expression} == ""'
    try:
        if "value" in row:  # (a list compared with "" is ill-typed: celpy has no checker)
            estimate_cost(selector)
        same = compile_selector(selector).device_matches(device)
    except (CELMatchError, CELCompileError) as e:
        return {"error": str(e)}
    return {"value": row["value"] if same and "value" in row else f"not {selector}"}


def mismatches(rows: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """The rows ours differs on: (expression, Go's, ours)."""
    out = []
    for row in rows:
        want = {k: row[k] for k in ("value", "error", "compile", "panic") if k in row}
        if (got := answer(row)) != want:
            out.append((row["expr"], want, got))
    return out
