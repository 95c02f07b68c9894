"""The DefaultStorageClass admission plugin: a PersistentVolumeClaim created without a class
gets the cluster's default StorageClass.

Upstream: plugin/pkg/admission/storage/storageclass/setdefault/admission.go (``Admit``),
``GetDefaultClass`` and ``IsDefaultAnnotation`` of pkg/volume/util/storageclass.go,
``PersistentVolumeClaimHasClass`` of pkg/apis/core/helper/helpers.go (v1.37.2). A claim has a
class when it has the beta annotation ``volume.beta.kubernetes.io/storage-class`` or a
``spec.storageClassName`` (``""`` included: explicitly no class). The default is, among the
classes annotated ``storageclass.kubernetes.io/is-default-class: "true"`` (or the beta
annotation), the newest by ``metadata.creationTimestamp``, ties by name; a class without a
timestamp is created by the run, after every class of a dump, so it counts as the newest.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reference_impl.model.decoding import InputLocation, read_time
from reference_impl.model.loader.admission.common import as_mapping, sub_map
from reference_impl.model.storage import (
    ANN_BETA_IS_DEFAULT_STORAGE_CLASS,
    ANN_BETA_STORAGE_CLASS,
    ANN_IS_DEFAULT_STORAGE_CLASS,
)

PLUGIN = "DefaultStorageClass"
API_GROUP = "storage.k8s.io"


def is_default_class(doc: Mapping[str, Any]) -> bool:
    """``IsDefaultAnnotation``: either annotation is exactly ``"true"``."""
    annotations = as_mapping(as_mapping(doc.get("metadata")).get("annotations"))
    return (annotations.get(ANN_IS_DEFAULT_STORAGE_CLASS) == "true"
            or annotations.get(ANN_BETA_IS_DEFAULT_STORAGE_CLASS) == "true")


def default_class(classes: list[tuple[Mapping[str, Any], InputLocation]]) -> str | None:
    """``GetDefaultClass``: the name of the newest default class (ties: the smallest name),
    None when no class is the default."""
    candidates: list[tuple[float, str]] = []
    for doc, ctx in classes:
        if not is_default_class(doc):
            continue
        meta = as_mapping(doc.get("metadata"))
        created = read_time(ctx, meta.get("creationTimestamp"), "metadata.creationTimestamp")
        name = meta.get("name")
        if isinstance(name, str) and name:
            candidates.append((float("inf") if created is None else created, name))
    if not candidates:
        return None
    newest = max(t for t, _ in candidates)
    return min(name for t, name in candidates if t == newest)


def has_class(claim: Mapping[str, Any]) -> bool:
    """``PersistentVolumeClaimHasClass``."""
    annotations = as_mapping(as_mapping(claim.get("metadata")).get("annotations"))
    if ANN_BETA_STORAGE_CLASS in annotations:
        return True
    return as_mapping(claim.get("spec")).get("storageClassName") is not None


def mutate(claim: dict[str, Any], default: str | None) -> bool:
    """``Admit``: set ``spec.storageClassName`` to the default class on a claim without a
    class; True if it did."""
    if has_class(claim) or default is None:
        return False
    sub_map(claim, "spec")["storageClassName"] = default
    return True
