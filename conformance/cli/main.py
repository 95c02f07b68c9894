"""The ``kschedconf`` command line: the top-level parser and the dispatch to the command modules.

Exit codes (``conformance.core.exits``, docs/outputs.md): 0 success; 1 a check failed or a pod
did not fit; 2 usage, input or subject error, or nothing could be judged; 128 + signal when
interrupted.
"""

from __future__ import annotations

import argparse
import atexit
import os
import sys
import textwrap
from collections.abc import Sequence
from typing import NoReturn

from conformance.cli import (
    diff,
    expand,
    explain,
    golden,
    mutants,
    releases,
    reproduce,
    run,
    simulate,
)
from conformance.cli.inputs import NothingToSchedule
from conformance.core.errors import Terminated, UsageError
from conformance.core.exits import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from reference_impl.config import ConfigError
from reference_impl.model.errors import InputError
from reference_impl.releases.pinned import UPSTREAM_RELEASE

#: the command modules, in the order --help lists them
COMMANDS = (simulate, explain, expand, run, reproduce, mutants, diff, golden, releases)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kschedconf",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=textwrap.dedent(f"""\
            Conformance and differential testing for the Kubernetes scheduler.
            The reference scheduler follows upstream kube-scheduler {UPSTREAM_RELEASE}.

            Inputs are Kubernetes manifests (Node, Pod, PriorityClass, PodDisruptionBudget,
            Namespace, and the Service, ReplicationController, ReplicaSet and StatefulSet
            objects PodTopologySpread's default constraints read; multi-document YAML,
            `kind: List` from `kubectl get -o yaml`, or JSON; `-` reads stdin).
            A pod with spec.nodeName is running there; a pod without one is pending.
            Workloads without pods become the pods their controllers would create
            (kschedconf expand prints them)."""),
        epilog=textwrap.dedent("""\
            examples:
              kschedconf simulate --example
              kschedconf simulate cluster.yaml --config profile.yaml -o json
              kschedconf explain cluster.yaml --pod pod.yaml

            exit codes: 0 ok, 1 a check failed / a pod did not fit, 2 usage, input or
            subject error or nothing could be judged, 128 + N stopped by signal N"""))
    parser.add_argument("--version", action="version",
                        version=f"kschedconf 0.1.0 (upstream kube-scheduler {UPSTREAM_RELEASE})")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    for command in COMMANDS:
        command.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return EXIT_USAGE
    try:
        code: int = args.handler(args)
        return code
    except (UsageError, InputError, ConfigError) as e:
        print(f"kschedconf {args.command}: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except NothingToSchedule as e:
        print(f"kschedconf {args.command}: {e}", file=sys.stderr)
        return EXIT_FAILED
    except BrokenPipeError:
        return EXIT_OK
    except Terminated as e:  # SIGTERM / SIGHUP, after everything was released
        print(f"kschedconf {args.command}: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        # every subject has released its processes, containers and directories on the way
        # up (finally blocks); say so instead of printing a traceback
        print(f"kschedconf {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def entry() -> NoReturn:
    """The ``kschedconf`` executable: exit with :func:`main`'s code. After a Ctrl-C, CPython
    itself would replace that code with death by SIGINT (exit status -2) whenever the
    KeyboardInterrupt once passed through code run by ``exec`` of a string (dataclasses and
    Hypothesis build functions that way), even though it was handled: the interpreter's flag
    ``_Py_UnhandledKeyboardInterrupt`` stays set. So an interrupted run ends here, after the
    exit handlers and with its output flushed, with the 130 it reports."""
    code = main()
    if code >= 128:
        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)
    sys.exit(code)
