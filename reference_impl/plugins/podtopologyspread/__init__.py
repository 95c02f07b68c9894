"""PodTopologySpread (``pkg/scheduler/framework/plugins/podtopologyspread``)."""

from reference_impl.plugins.podtopologyspread.plugin import PodTopologySpread

__all__ = ["PodTopologySpread"]
