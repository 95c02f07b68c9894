"""The ``kschedconf`` command line: one module per command over shared option definitions;
``conformance.cli.main:main`` dispatches; ``python -m conformance.cli`` and the ``kschedconf``
executable run ``main:entry``."""
