"""``python -m conformance.cli``: the ``kschedconf`` command."""

import sys

from conformance.cli.main import main

sys.exit(main())
