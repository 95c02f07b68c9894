"""The golden scenarios: ``AREA/NAME.yaml`` files, one folder per area, whose decisions were
recorded from the real upstream kube-scheduler (``kschedconf golden record``), and
``definitions/``, the readable definitions they are built from (docs/golden.md). Installed with
kschedconf, so ``kschedconf run --suite golden`` and ``kschedconf golden verify`` find them
wherever kschedconf is installed."""

from pathlib import Path

#: the directory of the golden scenario files
GOLDEN_DIR = Path(__file__).resolve().parent
