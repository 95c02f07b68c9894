"""An unmodified copy of NodeResourcesFit declared as its replacement (issue 18's workflow)."""

from __future__ import annotations

from typing import Any

from reference_impl.plugins.noderesources.fit import Fit


class FitCopy(Fit):
    name = "FitCopy"
    replaces = "NodeResourcesFit"

    def __init__(self, args: Any = None, handle: Any = None) -> None:
        super().__init__(None, handle)
