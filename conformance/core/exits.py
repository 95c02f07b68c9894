"""Exit codes of every ``kschedconf`` command."""

from __future__ import annotations

EXIT_OK = 0
#: a check failed (violation, divergence, golden difference, surviving mutant) or a pod did
#: not fit
EXIT_FAILED = 1
#: bad options or input, or a subject that could not produce a result
EXIT_USAGE = 2
#: 128 + SIGINT, as a shell reports Ctrl-C (SIGTERM and SIGHUP give 128 + their number)
EXIT_INTERRUPTED = 130
