"""DynamicResources (DRA), one module per upstream file of
``pkg/scheduler/framework/plugins/dynamicresources/``: ``dynamicresources.py`` (the plugin),
``claims.py``, ``dra_manager.py`` (with allocateddevices.go) and
``extendeddynamicresources.py``."""

from reference_impl.plugins.dynamicresources.dynamicresources import (
    ERR_NOT_FOUND,
    QUEUE,
    QUEUE_SKIP,
    STATE_KEY,
    DynamicResources,
    _StateData,
)
from reference_impl.plugins.dynamicresources.extendeddynamicresources import (
    RESOURCE_DEVICE_CLASS_PREFIX,
    SPECIAL_CLAIM_IN_MEM_NAME,
)

__all__ = ["ERR_NOT_FOUND", "QUEUE", "QUEUE_SKIP", "RESOURCE_DEVICE_CLASS_PREFIX",
           "SPECIAL_CLAIM_IN_MEM_NAME", "STATE_KEY", "DynamicResources", "_StateData"]
