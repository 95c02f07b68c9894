"""The InterPodAffinity plugin (``pkg/scheduler/framework/plugins/interpodaffinity``)."""

from reference_impl.plugins.interpodaffinity.plugin import InterPodAffinity

__all__ = ["InterPodAffinity"]
