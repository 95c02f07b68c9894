"""Hashes the controllers put in names and labels. ``compute_hash`` is ``controller.ComputeHash``
(pkg/controller/controller_utils.go, a Deployment's ``pod-template-hash``): fnv32a, then
``rand.SafeEncodeString`` of the decimal sum, over our canonical JSON of the template (upstream
hashes a ``spew`` dump of the defaulted Go struct, which a manifest cannot give), so it differs
from a live cluster's value. ``revision_hash`` is ``history.HashControllerRevision``
(pkg/controller/history/controller_history.go, StatefulSet and DaemonSet
``controller-revision-hash``): fnv32 over the JSON patch ``getPatch`` builds; it matches a live
cluster's only for a template exactly as stored (a dump). docs/expansion.md#names-and-hashes.
"""

from __future__ import annotations

import json
from typing import Any

from reference_impl.model.generated_names import ALPHANUMS, generate_name, random_suffix

__all__ = ["compute_hash", "generate_name", "random_suffix", "revision_hash"]

_FNV32_OFFSET = 0x811C9DC5
_FNV32_PRIME = 0x01000193


def fnv32a(data: bytes) -> int:
    """``hash/fnv.New32a``."""
    h = _FNV32_OFFSET
    for b in data:
        h ^= b
        h = (h * _FNV32_PRIME) & 0xFFFFFFFF
    return h


def fnv32(data: bytes) -> int:
    """``hash/fnv.New32`` (multiply, then xor)."""
    h = _FNV32_OFFSET
    for b in data:
        h = (h * _FNV32_PRIME) & 0xFFFFFFFF
        h ^= b
    return h


def safe_encode_string(s: str) -> str:
    """``rand.SafeEncodeString``: each character mapped into ``ALPHANUMS``."""
    return "".join(ALPHANUMS[ord(c) % len(ALPHANUMS)] for c in s)


def canonical_json(value: Any) -> bytes:
    """Compact JSON with sorted keys and Go's HTML escaping of ``<``, ``>``, ``&``
    (``json.Marshal``)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return text.encode("utf-8")


def compute_hash(template: Any, collision_count: int | None = None) -> str:
    """``controller.ComputeHash`` over our canonical JSON of the template (see the module
    docstring for why it differs from a live cluster's value)."""
    data = canonical_json(template)
    if collision_count is not None:
        data += (collision_count & 0xFFFFFFFF).to_bytes(4, "little") + bytes(4)
    return safe_encode_string(str(fnv32a(data)))


def revision_patch(template: Any) -> bytes:
    """``getPatch``: the ControllerRevision data of a StatefulSet or DaemonSet template."""
    replaced = dict(template) if isinstance(template, dict) else {}
    replaced["$patch"] = "replace"
    return canonical_json({"spec": {"template": replaced}})


def revision_hash(template: Any, collision_count: int | None = None) -> str:
    """``history.HashControllerRevision`` of the revision ``getPatch`` builds."""
    data = revision_patch(template)
    if collision_count is not None:
        data += str(collision_count).encode()
    return safe_encode_string(str(fnv32(data)))
