"""The evaluation errors of the DRA selector environment's functions (cel-go's ``types.Err``:
the message is what DeviceMatches reports)."""

from __future__ import annotations

from typing import Any

from celpy.evaluation import CELEvalError


def err(message: str) -> CELEvalError:
    """An evaluation error with cel-go's message (``types.NewErr``)."""
    return CELEvalError(message, ValueError, None)


def no_overload(name: str, *args: Any) -> CELEvalError:
    """A call with arguments of types no overload takes (the type checker refuses most of these
    at compile time upstream; celpy has none)."""
    types = ", ".join(type(a).__name__ for a in args)
    return err(f"no such overload: {name}({types})")
