"""The options of ``kschedconf diff`` resolved once into a plan: the modes, the scenarios per
size, the golden files, the known divergences, the configuration, the seed, and how each
scenario is prepared and replayed."""

from __future__ import annotations

import random
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.core.errors import UsageError
from conformance.core.scenario import ScenarioInput, read_config_doc
from conformance.core.subject import Subject
from conformance.engines.diff.compare import fill_pdb_status
from conformance.engines.diff.known import KnownDivergence, load_known
from conformance.engines.diff.model import DECISIONS, MODES, WHOLE
from conformance.engines.golden import default_golden_dir, golden_files
from reference_impl.releases.pinned import UPSTREAM_RELEASE
from strategies.families import FEATURE_FAMILIES

MODE_CHOICES = ("auto", "lockstep", "whole", "both", "decisions")
FAMILIES = ("small", "medium", "large", *FEATURE_FAMILIES)
DEFAULT_OUT = "kschedconf-out"
DEFAULT_SHRINK_TIME = 120.0


@dataclass(slots=True)
class DiffOptions:
    """The options of ``kschedconf diff`` as given (docs/diff.md)."""

    scenarios: int = 20
    sizes: Mapping[str, int] | Sequence[str] = ("small",)
    golden: bool = False
    golden_dir: str | None = None
    seed: int | None = None
    budget: float | None = None
    out: str = DEFAULT_OUT
    config: str | None = None
    mode: str = "auto"
    shrink: bool = True
    shrink_time: float = DEFAULT_SHRINK_TIME
    upstream: str = "upstream"
    known: str | None = None
    max_steps: int | None = None
    replay: str | None = None
    #: the upstream subject's serve processes working at once (``--upstream-workers``)
    upstream_workers: int = 4
    #: processes comparing the scenarios (``--workers``; the output is the same whatever N)
    workers: int = 1
    pdb_status: str = "fill"  # "fill" or "as-is" (see fill_pdb_status)
    #: ``--subject SPEC``: the other side is this subject, compared with the reference under
    #: the configuration it runs (docs/diff.md, "Any scheduler against the reference")
    subject: str | None = None
    plugins: Sequence[str] = ()
    #: with ``subject``: replay each minimal scenario on the upstream subject when it is built
    upstream_check: bool = True
    release: str = UPSTREAM_RELEASE  # --release: the generated scenarios are this release's


@dataclass(slots=True)
class DiffPlan:
    """What a run does, resolved from :class:`DiffOptions` and the other subject."""

    options: DiffOptions
    modes: list[str]
    counts: dict[str, int]  # generated scenarios per size
    golden_files: list[Path]
    golden_dir: Path
    known: list[KnownDivergence]
    config_doc: dict[str, Any] | None
    seed: int | None  # None: a replay, which uses the file's seed

    @property
    def planned(self) -> int:
        return sum(self.counts.values()) + len(self.golden_files)

    @property
    def out(self) -> Path:
        return Path(self.options.out)

    def prepare(self, scenario: ScenarioInput) -> ScenarioInput:
        """The scenario both subjects get: with ``--config`` (else the configuration the other
        subject runs whatever the scenario holds, its ``fixed_config``), and PDB statuses filled in
        (``--pdb-status fill``). Generated scenarios get the run's release here; a golden or
        replayed file keeps its own."""
        scenario = scenario.with_config(self.config_doc)
        if self.options.pdb_status == "fill":
            scenario = fill_pdb_status(scenario)
        return scenario

    def reproduce(self, path: str | Path) -> str:
        """The command that replays a scenario file with this run's options."""
        o = self.options
        parts = ["kschedconf", "diff", "--replay", shlex.quote(str(path))]
        if o.release != UPSTREAM_RELEASE:
            parts += ["--release", o.release]
        if o.mode != "auto":
            parts += ["--mode", o.mode]
        if o.config:
            parts += ["--config", shlex.quote(o.config)]
        if o.subject:
            parts += ["--subject", shlex.quote(o.subject)]
            for m in o.plugins:
                parts += ["--plugins", shlex.quote(m)]
        elif o.upstream != "upstream":
            parts += ["--upstream", shlex.quote(o.upstream)]
        if o.pdb_status != "fill":
            parts += ["--pdb-status", o.pdb_status]
        return " ".join(parts)

    def properties(self, up: Subject) -> dict[str, str]:
        """The run's properties (JUnit, the report file)."""
        o = self.options
        side = "subject" if o.subject else "upstream"
        props = {"kschedconf.command": "diff", "upstream.release": o.release,
                 "seed": str(self.seed), "mode": o.mode, f"{side}.spec": o.subject or o.upstream,
                 "pdb_status": o.pdb_status}
        for k, v in up.describe().items():
            props[f"{side}.{k}"] = v
        if o.config:
            props["config"] = o.config
        if o.plugins:
            props["plugins"] = ", ".join(o.plugins)
        return props

    @property
    def other_label(self) -> str:
        """What the other side is called in divergences: ``subject`` or ``upstream``."""
        return "subject" if self.options.subject else "upstream"


def check_options(opts: DiffOptions) -> None:
    """The option errors found without reading any file (before subjects are started)."""
    resolve_modes(opts.mode, False)
    family_counts(opts.scenarios, opts.sizes)
    if opts.budget is not None and opts.budget <= 0:
        raise UsageError("--budget must be positive")


def resolve_plan(opts: DiffOptions, up: Subject, replay: bool = False) -> DiffPlan:
    """The plan of a run (or of ``--replay``) against ``up``; :class:`UsageError` for bad
    options or files. Without ``--seed`` a run draws one."""
    check_options(opts)
    if opts.subject and opts.upstream != "upstream":
        raise UsageError("--subject and --upstream: give one (--subject compares a subject "
                         "with the reference, --upstream the reference with a subject)")
    modes = resolve_modes(opts.mode, up.real_control_plane,
                          can_explain=up.can_explain or not opts.subject)
    counts = {} if replay else family_counts(opts.scenarios, opts.sizes)
    golden: list[Path] = []
    directory = Path(opts.golden_dir) if opts.golden_dir else default_golden_dir()
    if opts.golden and not replay:
        try:
            golden = golden_files(directory)
        except ValueError as e:
            raise UsageError(str(e)) from e
    known = load_known(opts.known)
    config_doc = read_config_doc(opts.config) if opts.config else None
    if config_doc is None and not opts.subject and up.fixed_config is not None:
        # the other side runs one configuration whatever the scenario holds (a backend's
        # --scheduler-config, a cluster's scheduler): both sides schedule with it
        config_doc = dict(up.fixed_config)
    seed = opts.seed
    if seed is None and not replay:
        seed = random.SystemRandom().randrange(1 << 31)
    return DiffPlan(opts, modes, counts, golden, directory, known, config_doc, seed)


def resolve_modes(mode: str, real_control_plane: bool, can_explain: bool = True) -> list[str]:
    """The comparisons of a ``--mode``: ``both`` is whole and lockstep; ``auto`` is
    ``decisions`` against a real control plane, else both (whole alone against a subject that
    cannot explain)."""
    if mode not in MODE_CHOICES:
        raise UsageError(f"--mode {mode!r}: expected one of {', '.join(MODE_CHOICES)}")
    if mode == "auto":
        mode = DECISIONS if real_control_plane else ("both" if can_explain else WHOLE)
    return list(MODES) if mode == "both" else [mode]


def family_counts(total: int, sizes: Mapping[str, int] | Sequence[str]) -> dict[str, int]:
    """Scenarios per size: ``{"small": 60, ...}`` as given, or ``total`` split evenly over
    the listed sizes (the remainder to the first ones)."""
    if isinstance(sizes, Mapping):
        counts = {k: int(v) for k, v in sizes.items()}
    else:
        names = list(dict.fromkeys(sizes)) or ["small"]
        counts = {n: total // len(names) + (1 if i < total % len(names) else 0)
                  for i, n in enumerate(names)}
    for k, v in counts.items():
        if k not in FAMILIES:
            raise UsageError(f"unknown size {k!r} (known: {', '.join(FAMILIES)})")
        if v < 0:
            raise UsageError(f"--sizes {k}={v}: must not be negative")
    return counts


def parse_sizes(text: str) -> dict[str, int] | list[str]:
    """``small,medium`` (split --scenarios evenly) or ``small=100,medium=40,large=5``."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts:
        raise UsageError("--sizes: expected a comma list of small, medium, large")
    if any("=" in p for p in parts):
        out: dict[str, int] = {}
        for p in parts:
            name, _, n = p.partition("=")
            try:
                out[name.strip()] = int(n)
            except ValueError:
                raise UsageError(f"--sizes {p!r}: expected NAME=COUNT") from None
        family_counts(0, out)
        return out
    family_counts(len(parts), parts)
    return parts
