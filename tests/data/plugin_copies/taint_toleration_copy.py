"""A user plugin that is an unmodified copy of the in-tree TaintToleration under another name,
as a plugin author starting from upstream's plugin would bring it (``--plugins``)."""

from __future__ import annotations

from reference_impl.plugins.tainttoleration import TaintToleration


class MyTaintToleration(TaintToleration):
    """TaintToleration, unchanged."""

    name = "MyTaintToleration"
