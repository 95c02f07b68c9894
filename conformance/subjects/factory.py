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

#: Control-plane backends (conformance/backends, docs/backends.md): a real kube-scheduler
#: against a real kube-apiserver.
BACKEND_SUBJECTS = ("process", "docker", "kubeconfig")
SUBJECT_SPECS = ("reference", "reference:CONFIG.yaml", "external:COMMAND...", "upstream",
                 "upstream:BINARY", "upstream@RELEASE", "process", "process:CONFIG.yaml",
                 "docker", "docker:IMAGE", "kubeconfig:CONTEXT")


def make_subject(spec: str, *, config: str | None = None, plugins: Sequence[str] = (),
                 timeout: float | None = None,
                 i_own_this_cluster: str | None = None) -> Subject:
    """A subject from its spec: ``reference``, ``reference:CONFIG.yaml``,
    ``external:COMMAND...``, ``upstream`` (the real kube-scheduler, ``upstream/bin/
    kschedconf-upstream``; ``upstream:BINARY`` names another build; ``upstream@v1.34.4`` the
    subject of another supported release, built by ``upstream/build.sh --release v1.34.4``,
    docs/releases.md), the control-plane
    backends ``process[:CONFIG.yaml]``, ``docker[:SCHEDULER_IMAGE]`` and ``kubeconfig:CONTEXT``
    (with ``i_own_this_cluster=CONTEXT``; docs/backends.md). ``config``/``plugins`` apply to
    the reference (``--config``, ``--plugins``), ``config`` to the backends too; ``timeout``
    to external commands and upstream, and per scenario to the backends."""
    kind, sep, arg = spec.partition(":")
    kind = kind.strip()
    if kind == "reference":
        if sep and arg and config and arg != config:
            raise UsageError(f"--subject {spec} and --config {config}: give the "
                             "configuration once")
        return ReferenceSubject(arg or config or None, plugins)
    if kind == "external":
        if not arg.strip():
            raise UsageError("--subject external:COMMAND needs a command, e.g. "
                             "external:'./my-scheduler --flag'")
        return ExternalSubject(arg, timeout=timeout if timeout is not None else DEFAULT_TIMEOUT)
    kind, at, release = kind.partition("@")
    if kind == "upstream":
        if at and release not in supported_releases():
            raise UsageError(f"--subject {spec}: no release {release!r} (supported: "
                             f"{', '.join(supported_releases())})")
        return UpstreamSubject(arg.strip() or None, release=release or None,
                               timeout=timeout if timeout is not None else UP_TIMEOUT)
    if kind in BACKEND_SUBJECTS:
        # process[:CFG.yaml], docker[:IMAGE], kubeconfig:CONTEXT (--i-own-this-cluster CONTEXT)
        try:
            return make_backend_subject(kind, arg.strip(), config=config, timeout=timeout,
                                        i_own_this_cluster=i_own_this_cluster)
        except ValueError as e:
            raise UsageError(str(e)) from e
    raise UsageError(f"unknown subject {spec!r}; expected one of: {', '.join(SUBJECT_SPECS)}")
