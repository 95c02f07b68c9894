"""The golden scenarios: ``*.yaml`` files whose decisions were recorded from the real upstream
kube-scheduler (``kschedconf golden record``), and ``generate.py``, the readable definitions
they are built from. Installed with kschedconf, so ``kschedconf run --suite golden`` and
``kschedconf golden verify`` find them wherever kschedconf is installed."""

from pathlib import Path

#: the directory of the golden scenario files
GOLDEN_DIR = Path(__file__).resolve().parent
