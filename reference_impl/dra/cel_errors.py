"""The evaluation errors of the DRA selector environment's functions (cel-go's ``types.Err``:
the message is what DeviceMatches reports)."""

from __future__ import annotations

from typing import Any

from celpy.evaluation import CELEvalError

from reference_impl.dra.cel_values import type_name


def err(message: str) -> CELEvalError:
    """An evaluation error with cel-go's message (``types.NewErr``)."""
    return CELEvalError(message, ValueError, None)


def no_overload(name: str, *args: Any) -> CELEvalError:
    """A call with arguments of types no overload takes (the type checker refuses most of these
    at compile time upstream; celpy has none): cel-go v0.29.2 common/decls/decls.go
    ``MaybeNoSuchOverload``, an error argument is the result, else the arguments' type names
    ("no such overload: isGreaterThan(string, kubernetes.Semver)")."""
    for a in args:
        if isinstance(a, CELEvalError):
            return a
    types = ", ".join(type_name(a) for a in args)
    return err(f"no such overload: {name}({types})")


class GoPanic(Exception):
    """cel-go's evaluation panicked: ``Program.Eval`` recovers it as an error ("internal
    error: ..."), whatever the expression around it would have made of an error value."""
