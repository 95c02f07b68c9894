"""Strict decoding of the v1 (camelCase) configuration types.

Upstream decodes with ``serializer.EnableStrict`` (``pkg/scheduler/apis/config/scheme/scheme.go``):
an unknown field (matched case-sensitively) or a value of the wrong JSON type is an error. Here
a schema per v1 type (``staging/src/k8s.io/kube-scheduler/config/v1/types.go``,
``types_pluginargs.go`` and the core/v1 types they embed) drives :func:`decode`, which returns a
normalized copy: objects keep only the fields that are set (``null`` = not set, like a nil
pointer), numbers are ``int``, durations are ``int`` nanoseconds (``metav1.Duration``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from reference_impl.config.errors import child, index
from reference_impl.model.decoding import (
    CONFIG,
    DecodeError,
    PathLocation,
    read_bool,
    read_duration,
    read_float,
    read_int,
    read_list,
    read_map,
    read_str,
)

INT32 = "int32"
INT64 = "int64"
FLOAT = "float"
STRING = "string"
BOOL = "bool"
DURATION = "duration"
STRING_MAP = "map[string]string"
RAW = "raw"  # kept as given (runtime.RawExtension, or a section the reference does not model)

Schema = Any  # a tag above, [item schema], or {field: schema}

_INT_RANGES = {INT32: (-(2**31), 2**31 - 1), INT64: (-(2**63), 2**63 - 1)}
_AT = PathLocation(CONFIG)

# --- core/v1 (staging/src/k8s.io/api/core/v1/types.go, apimachinery meta/v1 LabelSelector) ---
LABEL_SELECTOR = {
    "matchLabels": STRING_MAP,
    "matchExpressions": [{"key": STRING, "operator": STRING, "values": [STRING]}],
}
TOPOLOGY_SPREAD_CONSTRAINT = {
    "maxSkew": INT32,
    "topologyKey": STRING,
    "whenUnsatisfiable": STRING,
    "labelSelector": LABEL_SELECTOR,
    "minDomains": INT32,
    "nodeAffinityPolicy": STRING,
    "nodeTaintsPolicy": STRING,
    "matchLabelKeys": [STRING],
}
_NODE_SELECTOR_REQUIREMENT = {"key": STRING, "operator": STRING, "values": [STRING]}
NODE_SELECTOR_TERM = {
    "matchExpressions": [_NODE_SELECTOR_REQUIREMENT],
    "matchFields": [_NODE_SELECTOR_REQUIREMENT],
}
NODE_AFFINITY = {
    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [NODE_SELECTOR_TERM]},
    "preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": INT32, "preference": NODE_SELECTOR_TERM},
    ],
}

# --- kubescheduler.config.k8s.io/v1 plugin args (types_pluginargs.go) ---
_TYPE_META = {"apiVersion": STRING, "kind": STRING}
_RESOURCE_SPEC = {"name": STRING, "weight": INT64}
_SHAPE = [{"utilization": INT32, "score": INT32}]
PLUGIN_ARGS: dict[str, dict[str, Schema]] = {
    "DefaultPreemptionArgs": {
        **_TYPE_META, "minCandidateNodesPercentage": INT32, "minCandidateNodesAbsolute": INT32,
    },
    "DynamicResourcesArgs": {**_TYPE_META, "filterTimeout": DURATION, "bindingTimeout": DURATION},
    "InterPodAffinityArgs": {
        **_TYPE_META, "hardPodAffinityWeight": INT32, "ignorePreferredTermsOfExistingPods": BOOL,
    },
    "NodeAffinityArgs": {**_TYPE_META, "addedAffinity": NODE_AFFINITY},
    "NodeResourcesBalancedAllocationArgs": {**_TYPE_META, "resources": [_RESOURCE_SPEC]},
    "NodeResourcesFitArgs": {
        **_TYPE_META,
        "ignoredResources": [STRING],
        "ignoredResourceGroups": [STRING],
        "scoringStrategy": {
            "type": STRING,
            "resources": [_RESOURCE_SPEC],
            "requestedToCapacityRatio": {"shape": _SHAPE},
        },
    },
    "PodTopologySpreadArgs": {
        **_TYPE_META, "defaultConstraints": [TOPOLOGY_SPREAD_CONSTRAINT], "defaultingType": STRING,
    },
    "VolumeBindingArgs": {**_TYPE_META, "bindTimeoutSeconds": INT64, "shape": _SHAPE},
}

# --- KubeSchedulerConfiguration (types.go) ---
PLUGIN_SET_FIELDS = (
    "preEnqueue", "queueSort", "preFilter", "filter", "postFilter", "preScore", "score",
    "reserve", "permit", "preBind", "bind", "postBind", "multiPoint", "placementGenerate",
    "placementScore", "podGroupPostFilter",
)
"""The fields of v1 ``Plugins``, in declaration order."""
_PLUGIN = {"name": STRING, "weight": INT32}
_PLUGIN_SET = {"enabled": [_PLUGIN], "disabled": [_PLUGIN]}
PROFILE = {
    "schedulerName": STRING,
    "percentageOfNodesToScore": INT32,
    "plugins": {name: _PLUGIN_SET for name in PLUGIN_SET_FIELDS},
    "pluginConfig": [{"name": STRING, "args": RAW}],
}
# component-base config/v1alpha1 LeaderElectionConfiguration / ClientConnectionConfiguration:
# decoded strictly, not used by the reference.
_LEADER_ELECTION = {
    "leaderElect": BOOL, "leaseDuration": DURATION, "renewDeadline": DURATION,
    "retryPeriod": DURATION, "resourceLock": STRING, "resourceName": STRING,
    "resourceNamespace": STRING,
}
_CLIENT_CONNECTION = {
    "kubeconfig": STRING, "acceptContentTypes": STRING, "contentType": STRING, "qps": FLOAT,
    "burst": INT32,
}
KUBE_SCHEDULER_CONFIGURATION = {
    **_TYPE_META,
    "parallelism": INT32,
    "leaderElection": _LEADER_ELECTION,
    "clientConnection": _CLIENT_CONNECTION,
    "enableProfiling": BOOL,
    "enableContentionProfiling": BOOL,
    "percentageOfNodesToScore": INT32,
    "podInitialBackoffSeconds": INT64,
    "podMaxBackoffSeconds": INT64,
    "profiles": [PROFILE],
    "extenders": [RAW],
    "delayCacheUntilActive": BOOL,
}


def _zero(schema: Schema) -> Any:
    """The Go zero value a JSON ``null`` list item decodes to."""
    if isinstance(schema, dict):
        return {}
    if isinstance(schema, list):
        return []
    return {INT32: 0, INT64: 0, FLOAT: 0.0, STRING: "", BOOL: False, DURATION: 0,
            STRING_MAP: {}}.get(schema)


def decode(value: Any, schema: Schema, path: str, errors: list[str]) -> Any:
    """Strictly decodes ``value`` against ``schema``; problems are appended to ``errors`` as
    ``<path>: <message>``. ``None`` (absent or ``null``) stays ``None``."""
    if value is None:
        return None
    try:
        if isinstance(schema, dict):
            root = path or "<root>"
            out: dict[str, Any] = {}
            for key, item in read_map(_AT, value, root, what="an object").items():
                if key not in schema:
                    errors.append(str(_AT.error(root, f'unknown field "{key}"')))
                    continue
                decoded = decode(item, schema[key], child(path, key), errors)
                if decoded is not None:
                    out[key] = decoded
            return out
        if isinstance(schema, list):
            items = []
            for i, item in enumerate(read_list(_AT, value, path, what="an array")):
                decoded = decode(item, schema[0], index(path, i), errors)
                items.append(_zero(schema[0]) if decoded is None else decoded)
            return items
        return _decode_scalar(value, schema, path, errors)
    except DecodeError as e:
        errors.append(str(e))
        return None


def _decode_scalar(value: Any, schema: str, path: str, errors: list[str]) -> Any:
    """A scalar (or a map of strings, whose every bad value is an error); raises
    ``DecodeError``."""
    if schema == RAW:
        return copy_value(value)
    if schema in _INT_RANGES:
        return read_int(_AT, value, path, bounds=_INT_RANGES[schema],
                        what=f"an integer ({schema})", out_of_range=f"{{value}} overflows {schema}",
                        integral_floats=True)
    if schema == FLOAT:
        return read_float(_AT, value, path)
    if schema == STRING:
        return read_str(_AT, value, path)
    if schema == BOOL:
        return read_bool(_AT, value, path, what="a bool")
    if schema == DURATION:
        return read_duration(_AT, value, path, parse_go_duration, what="a duration string")
    if schema == STRING_MAP:
        out = {}
        for k, v in read_map(_AT, value, path, what="an object").items():
            if not isinstance(v, str):  # null too: a map value is not a pointer
                errors.append(str(_AT.error(index(path, k), _AT.expected("a string", v))))
                continue
            out[str(k)] = v
        return out
    raise AssertionError(f"unknown schema {schema!r}")


def copy_value(value: Any) -> Any:
    """A deep copy with tuples as lists (the form decoded values have)."""
    if isinstance(value, Mapping):
        return {k: copy_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [copy_value(v) for v in value]
    return value


# --- time.ParseDuration / Duration.String (Go standard library, src/time/format.go) ---
_UNITS_NS = {
    "ns": 1, "us": 1_000, "\u00b5s": 1_000, "\u03bcs": 1_000, "ms": 1_000_000,
    "s": 1_000_000_000, "m": 60_000_000_000, "h": 3_600_000_000_000,
}
_PART = re.compile(r"([0-9]*(?:\.[0-9]*)?)([^0-9.]*)")


def parse_go_duration(text: str) -> int:
    """``time.ParseDuration``: ``[-+]?([0-9]*(\\.[0-9]*)?[a-z]+)+`` or ``"0"`` → nanoseconds
    (fractions truncated toward zero)."""
    s = text
    sign = 1
    if s[:1] in ("-", "+"):
        sign = -1 if s[0] == "-" else 1
        s = s[1:]
    if s == "0":
        return 0
    if not s:
        raise ValueError(f'time: invalid duration "{text}"')
    total = Fraction(0)
    pos = 0
    while pos < len(s):
        m = _PART.match(s, pos)
        assert m is not None  # both groups may be empty: the pattern matches anywhere
        number, unit = m.group(1), m.group(2)
        if number in ("", "."):
            raise ValueError(f'time: invalid duration "{text}"')
        if not unit:
            raise ValueError(f'time: missing unit in duration "{text}"')
        if unit not in _UNITS_NS:
            raise ValueError(f'time: unknown unit "{unit}" in duration "{text}"')
        total += Fraction(number) * _UNITS_NS[unit]
        pos = m.end()
    ns = sign * int(total)
    if not -(2**63) <= ns <= 2**63 - 1:
        raise ValueError(f'time: invalid duration "{text}"')
    return ns


def format_go_duration(ns: int) -> str:
    """``time.Duration.String``: ``1h2m3.5s``, ``1.5ms``, ``0s``."""
    if ns == 0:
        return "0s"
    sign = "-" if ns < 0 else ""
    u = abs(ns)
    if u < 1_000_000_000:
        for unit, scale in (("ns", 1), ("\u00b5s", 1_000), ("ms", 1_000_000)):
            if u < scale * 1_000:
                return sign + _fraction(u, scale) + unit
    out = _fraction(u % 60_000_000_000, 1_000_000_000) + "s"
    u //= 60_000_000_000
    if u:
        out = f"{u % 60}m" + out
        u //= 60
        if u:
            out = f"{u}h" + out
    return sign + out


def _fraction(value: int, scale: int) -> str:
    whole, frac = divmod(value, scale)
    if not frac:
        return str(whole)
    digits = str(frac).rjust(len(str(scale)) - 1, "0").rstrip("0")
    return f"{whole}.{digits}"
