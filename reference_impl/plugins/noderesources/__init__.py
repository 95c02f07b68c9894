"""The NodeResources plugins (``pkg/scheduler/framework/plugins/noderesources``)."""

from reference_impl.plugins.noderesources.balanced_allocation import BalancedAllocation
from reference_impl.plugins.noderesources.fit import Fit

__all__ = ["BalancedAllocation", "Fit"]
