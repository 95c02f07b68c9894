"""The in-tree plugin registry (``pkg/scheduler/framework/plugins/registry.go``).

Maps plugin names to plugin classes. Users add their own with :func:`register` or by loading a
module of plugins with :func:`load_plugin_module` (``kschedconf --plugins module.py``).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from types import ModuleType

from reference_impl.framework.interfaces import Plugin

IN_TREE_MODULES = (
    "reference_impl.plugins.schedulinggates",
    "reference_impl.plugins.queuesort",
    "reference_impl.plugins.nodename",
    "reference_impl.plugins.nodeunschedulable",
    "reference_impl.plugins.tainttoleration",
    "reference_impl.plugins.nodeaffinity",
    "reference_impl.plugins.nodeports",
    "reference_impl.plugins.noderesources.fit",
    "reference_impl.plugins.noderesources.balanced_allocation",
    "reference_impl.plugins.volumerestrictions",
    "reference_impl.plugins.nodevolumelimits",
    "reference_impl.plugins.volumebinding.volume_binding",
    "reference_impl.plugins.volumezone",
    "reference_impl.plugins.podtopologyspread.plugin",
    "reference_impl.plugins.interpodaffinity.plugin",
    "reference_impl.plugins.dynamicresources.dynamicresources",
    "reference_impl.plugins.defaultpreemption.default_preemption",
    "reference_impl.plugins.imagelocality",
    "reference_impl.plugins.defaultbinder",
    "reference_impl.plugins.nodedeclaredfeatures",
)


def plugins_in_module(module: ModuleType) -> dict[str, type[Plugin]]:
    """Every concrete plugin class defined in ``module``, by its ``name``."""
    out: dict[str, type[Plugin]] = {}
    for _, obj in inspect.getmembers(module, inspect.isclass):
        if issubclass(obj, Plugin) and obj.__module__ == module.__name__ and obj.name:
            out[obj.name] = obj
    return out


def in_tree_registry() -> dict[str, type[Plugin]]:
    """All in-tree plugins."""
    registry: dict[str, type[Plugin]] = {}
    for name in IN_TREE_MODULES:
        registry.update(plugins_in_module(importlib.import_module(name)))
    return registry


def load_plugin_module(path: str) -> dict[str, type[Plugin]]:
    """Import a user's Python file (or dotted module name) and return the plugins it defines."""
    if path.endswith(".py") or Path(path).exists():
        p = Path(path).resolve()
        mod_name = f"kschedconf_user_plugins_{p.stem}"
        spec = importlib.util.spec_from_file_location(mod_name, p)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot import plugins from {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[mod_name] = module
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(path)
    found = plugins_in_module(module)
    if not found:
        raise ImportError(f"{path}: defines no plugin class (a subclass of "
                          "reference_impl.framework.interfaces.Plugin with a name)")
    return found


def build_registry(user_modules: list[str] | None = None) -> dict[str, type[Plugin]]:
    registry = in_tree_registry()
    for path in user_modules or ():
        for name, cls in load_plugin_module(path).items():
            if name in registry:
                raise ValueError(f"plugin {name!r} from {path} is already registered")
            registry[name] = cls
    return registry
