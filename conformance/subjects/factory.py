"""Subjects from their command-line spelling (``--subject SPEC``)."""

from __future__ import annotations

from collections.abc import Sequence

from conformance.backends import make_backend_subject
from conformance.core.errors import UsageError
from conformance.core.subject import Subject
from conformance.subjects.external import DEFAULT_TIMEOUT, ExternalSubject
from conformance.subjects.reference import ReferenceSubject
from conformance.subjects.upstream import DEFAULT_TIMEOUT as UP_TIMEOUT
from conformance.subjects.upstream import UpstreamSubject
from reference_impl.releases import supported_releases
from reference_impl.releases.pinned import UPSTREAM_RELEASE

#: Control-plane backends (conformance/backends, docs/backends.md): a real kube-scheduler
#: against a real kube-apiserver.
BACKEND_SUBJECTS = ("process", "docker", "kubeconfig")
SUBJECT_SPECS = ("reference", "reference:CONFIG.yaml", "external:COMMAND...", "upstream",
                 "upstream:BINARY", "upstream@RELEASE", "process", "process:CONFIG.yaml",
                 "docker", "docker:IMAGE", "kubeconfig:CONTEXT")


def make_subject(spec: str, *, config: str | None = None, plugins: Sequence[str] = (),
                 replaces: Sequence[str] = (), timeout: float | None = None,
                 i_own_this_cluster: str | None = None,
                 release: str = UPSTREAM_RELEASE) -> Subject:
    """A subject from its spec: ``reference``, ``reference:CONFIG.yaml``,
    ``external:COMMAND...``, ``upstream`` (the real kube-scheduler, ``upstream/bin/
    kschedconf-upstream``; ``upstream:BINARY`` names another build; ``upstream@v1.34.4`` the
    subject of another supported release, built by ``upstream/build.sh --release v1.34.4``,
    docs/releases.md), the control-plane
    backends ``process[:CONFIG.yaml]``, ``docker[:SCHEDULER_IMAGE]`` and ``kubeconfig:CONTEXT``
    (with ``i_own_this_cluster=CONTEXT``; docs/backends.md). ``config``/``plugins``/
    ``replaces`` apply to the reference (``--config``, ``--plugins``, ``--replaces``),
    ``config`` to the backends too; ``timeout``
    to external commands and upstream, and per scenario to the backends. ``release``
    (``--release``) is the upstream release the run follows: the reference schedules as any
    supported release; ``upstream`` is the subject built for it (``upstream@vX.Y.Z`` must
    name the same); the control planes run the pinned release and refuse another."""
    kind, sep, arg = spec.partition(":")
    kind = kind.strip()
    if release != UPSTREAM_RELEASE and kind in BACKEND_SUBJECTS:
        raise UsageError(f"--release {release}: the {kind} subject runs kube-scheduler "
                         f"{UPSTREAM_RELEASE} only; use --subject reference or upstream (any "
                         "supported release) or --release " + UPSTREAM_RELEASE)
    if replaces and kind != "reference":
        raise UsageError("--replaces declares what plugins loaded with --plugins replace: it is "
                         "for --subject reference[:CFG]")
    if kind == "reference":
        if sep and arg and config and arg != config:
            raise UsageError(f"--subject {spec} and --config {config}: give the "
                             "configuration once")
        return ReferenceSubject(arg or config or None, plugins, release=release,
                                replaces=replaces)
    if kind == "external":
        if not arg.strip():
            raise UsageError("--subject external:COMMAND needs a command, e.g. "
                             "external:'./my-scheduler --flag'")
        return ExternalSubject(arg, timeout=timeout if timeout is not None else DEFAULT_TIMEOUT)
    kind, at, named = kind.partition("@")
    if kind == "upstream":
        if at and named not in supported_releases():
            raise UsageError(f"--subject {spec}: no release {named!r} (supported: "
                             f"{', '.join(supported_releases())})")
        if at and named != release and release != UPSTREAM_RELEASE:
            raise UsageError(f"{spec} and --release {release}: give the release once")
        wanted = named or (release if release != UPSTREAM_RELEASE else None)
        if arg.strip() and wanted is not None:
            raise UsageError(f"{spec}: a binary (upstream:BINARY) runs the release it was "
                             "built for; --release and @vX.Y.Z choose a built subject")
        return UpstreamSubject(arg.strip() or None, release=wanted,
                               timeout=timeout if timeout is not None else UP_TIMEOUT)
    if kind in BACKEND_SUBJECTS:
        # process[:CFG.yaml], docker[:IMAGE], kubeconfig:CONTEXT (--i-own-this-cluster CONTEXT)
        try:
            return make_backend_subject(kind, arg.strip(), config=config, timeout=timeout,
                                        i_own_this_cluster=i_own_this_cluster)
        except ValueError as e:
            raise UsageError(str(e)) from e
    raise UsageError(f"unknown subject {spec!r}; expected one of: {', '.join(SUBJECT_SPECS)}")
