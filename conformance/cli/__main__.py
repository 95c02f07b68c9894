"""``python -m conformance.cli``: the ``kschedconf`` command."""

from conformance.cli.main import entry

entry()
