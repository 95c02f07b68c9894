"""The inputs of ``simulate`` and ``explain``: cluster manifests, the configuration and plugins,
and the output format of their documents."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from conformance.core.documents import to_json, to_yaml
from conformance.core.errors import UsageError
from reference_impl.config import load_config
from reference_impl.model.loader import LoadResult, load_paths
from reference_impl.model.loader.admission import ADMISSION_MODES
from reference_impl.plugins.registry import build_registry
from reference_impl.releases.pinned import UPSTREAM_RELEASE
from reference_impl.scheduler.scheduler import Scheduler


def example_cluster_path() -> str:
    """The bundled example cluster (``reference_impl/examples/cluster.yaml``)."""
    return str(resources.files("reference_impl.examples").joinpath("cluster.yaml"))


def cluster_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", metavar="CFG.yaml",
                   help="a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1); "
                        f"default: the {UPSTREAM_RELEASE} default profile")
    p.add_argument("--plugins", metavar="MODULE", action="append", default=[],
                   help="a Python file or module with your own plugins (repeatable); enable "
                        "them in --config")
    p.add_argument("--seed", type=int, default=0, help="seed of the random source (default 0)")
    p.add_argument("--admission", choices=ADMISSION_MODES, default="auto",
                   help="apply the API server's default admission (LimitRange defaults, "
                        "RuntimeClass overhead and scheduling, DefaultTolerationSeconds) to "
                        "pods: auto (default) to pods from manifests, not to pods of a dump "
                        "(uid, resourceVersion or status); always; never (docs/admission.md)")
    p.add_argument("--output", "-o", choices=("json", "yaml", "table"),
                   help="output format (default: table on a terminal, json otherwise)")


def output_format(args: argparse.Namespace) -> str:
    if args.output:
        return args.output
    return "table" if sys.stdout.isatty() else "json"


def emit(doc: dict[str, Any], fmt: str, table: Callable[[dict[str, Any]], str]) -> None:
    if fmt == "json":
        sys.stdout.write(to_json(doc))
    elif fmt == "yaml":
        sys.stdout.write(to_yaml(doc))
    else:
        sys.stdout.write(table(doc))


def load_cluster(args: argparse.Namespace) -> tuple[LoadResult, Scheduler]:
    """The loaded inputs and the scheduler from the arguments; warnings go to stderr."""
    paths = list(args.cluster)
    if args.example:
        paths.insert(0, example_cluster_path())
    if not paths:
        raise UsageError("no cluster given: pass manifest files or --example")
    for p in paths:
        if not Path(p).exists():
            raise UsageError(f"{p}: no such file")
    loaded = load_paths(paths, admission=args.admission)
    for w in loaded.warnings:
        print(f"warning: {w}", file=sys.stderr)
    if loaded.admission is not None and (line := loaded.admission.summary()):
        print(line, file=sys.stderr)
    try:
        registry = build_registry(args.plugins)
    except (ImportError, ValueError, SyntaxError, OSError) as e:
        raise UsageError(f"--plugins: {e}") from e
    cfg_source: Any = args.config
    if cfg_source is None and loaded.cluster.config is not None:
        cfg_source = loaded.cluster.config
    config = load_config(cfg_source, registry) if cfg_source is not None else None
    return loaded, Scheduler(loaded.cluster, config, registry, seed=args.seed)
