"""VolumeBinding (``pkg/scheduler/framework/plugins/volumebinding``): the plugin in
``volume_binding.py``, the binder, assume caches, scorer and hints beside it."""

from reference_impl.plugins.volumebinding.volume_binding import (
    ERR_NOT_FOUND,
    STATE_KEY,
    VolumeBinding,
    _StateData,
)

__all__ = ["ERR_NOT_FOUND", "STATE_KEY", "VolumeBinding", "_StateData"]
