"""Control-plane backends: a real kube-scheduler deciding against a real kube-apiserver.

* ``process`` (:mod:`conformance.backends.process`): etcd, kube-apiserver and kube-scheduler of
  the pinned release (or another supported one) as local processes (binaries from
  ``backends/build.sh [--release vX.Y.Z]``);
* ``docker`` (:mod:`conformance.backends.docker_launcher`): the same as containers;
* ``kubeconfig`` (:mod:`conformance.backends.kubeconfig`): a throwaway cluster someone else
  runs (kind, KWOK), used only with ``--i-own-this-cluster CONTEXT``.

All of them drive the API server with :mod:`conformance.backends.driver` and return the
``SimulationResult`` document. This package module holds :func:`make_backend_subject`; no
module of the package imports it. See ``docs/backends.md``.
"""

from __future__ import annotations

from typing import Any

from conformance.backends.cleanup import install_handlers
from conformance.backends.docker_launcher import DockerSubject
from conformance.backends.kubeconfig import KubeconfigSubject
from conformance.backends.process import ProcessSubject
from conformance.core.subject import Subject
from reference_impl.releases.pinned import UPSTREAM_RELEASE

__all__ = ["make_backend_subject"]


def make_backend_subject(kind: str, arg: str, *, config: str | None = None,
                         timeout: float | None = None,
                         i_own_this_cluster: str | None = None,
                         release: str | None = None) -> Subject:
    """The backend subject of a ``--subject`` spec (``ValueError`` for a bad spec):

    * ``process`` / ``process:CONFIG.yaml`` — local processes (``config`` is the same as the
      spec's file);
    * ``docker`` / ``docker:SCHEDULER_IMAGE`` — containers; the scheduler image defaults to the
      pinned release's, ``config`` is the scheduler's configuration;
    * ``kubeconfig:CONTEXT`` — an existing throwaway cluster; ``i_own_this_cluster`` must name
      the same context.

    ``release`` (a supported release; default the pinned one) is the release ``process`` and
    ``docker`` run; ``kubeconfig`` runs whatever its cluster runs and refuses to be told one.
    """
    # the SIGTERM/SIGHUP handlers that release everything can only be set from the main
    # thread; subjects are made there even when a worker thread starts their control plane
    install_handlers()
    # the subject's own default timeout unless one is given
    kw: dict[str, Any] = {} if timeout is None else {"timeout": timeout}
    if kind in ("process", "docker"):
        kw["release"] = release
    if kind == "process":
        if arg and config and arg != config:
            raise ValueError(f"--subject process:{arg} and --config {config}: give the "
                             "configuration once")
        return ProcessSubject(arg or config or None, **kw)
    if kind == "docker":
        return DockerSubject(scheduler_image=arg or None, config_path=config, **kw)
    if kind == "kubeconfig":
        if release is not None and release != UPSTREAM_RELEASE:
            raise ValueError(f"release {release}: the kubeconfig subject runs the kube-scheduler "
                             "of its cluster; use --subject process or docker (any supported "
                             "release) or the pinned release " + UPSTREAM_RELEASE)
        if not arg:
            raise ValueError("--subject kubeconfig:CONTEXT needs the context of a throwaway "
                             "cluster (kind, KWOK) and --i-own-this-cluster CONTEXT")
        return KubeconfigSubject(arg, i_own_this_cluster=i_own_this_cluster,
                                 config_path=config, **kw)
    raise ValueError(f"unknown backend {kind!r} (known: process, docker, kubeconfig)")
