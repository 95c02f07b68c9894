"""DefaultPreemption (``pkg/scheduler/framework/plugins/defaultpreemption``)."""

from reference_impl.plugins.defaultpreemption.default_preemption import DefaultPreemption

__all__ = ["DefaultPreemption"]
