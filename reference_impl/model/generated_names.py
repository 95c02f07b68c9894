"""``metadata.generateName`` made deterministic: the API server's ``names.SimpleNameGenerator``
(staging/src/k8s.io/apiserver/pkg/storage/names/generate.go) appends ``utilrand.String(5)``,
five random characters of ``alphanums`` (k8s.io/apimachinery/pkg/util/rand), to the base cut to
58 characters. We draw the five characters from the same alphabet but derive them from a key
(sha256), so the same inputs give the same names, whatever the seed.
"""

from __future__ import annotations

import hashlib

#: ``alphanums`` of k8s.io/apimachinery/pkg/util/rand: no vowels, no confusable characters
ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"
#: names.SimpleNameGenerator: ``maxNameLength`` 63, ``randomLength`` 5
MAX_NAME_LENGTH = 63
RANDOM_LENGTH = 5
MAX_GENERATED_NAME_LENGTH = MAX_NAME_LENGTH - RANDOM_LENGTH


def random_suffix(key: str, length: int = RANDOM_LENGTH) -> str:
    """``length`` characters of ``ALPHANUMS`` derived from ``key``."""
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return "".join(ALPHANUMS[b % len(ALPHANUMS)] for b in digest[:length])


def generate_name(base: str, key: str) -> str:
    """``SimpleNameGenerator.GenerateName``: ``base`` cut to 58 characters, then 5 characters
    derived from ``key``."""
    return base[:MAX_GENERATED_NAME_LENGTH] + random_suffix(f"{base}\x00{key}")


def generated_uid(namespace: str, name: str) -> str:
    """The uid of an object the scheduler created: a UUID-shaped digest of its namespace and
    name (the API server draws a random one)."""
    h = hashlib.sha256(f"uid\x00{namespace}\x00{name}".encode()).hexdigest()
    return f"{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"
