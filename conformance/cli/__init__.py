"""The ``kschedconf`` command line: one module per command over shared option definitions
(``options``); ``main`` dispatches."""

from conformance.cli.main import main

__all__ = ["main"]
