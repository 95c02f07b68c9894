"""``kschedconf releases``: the upstream releases kschedconf has data for, and what differs
between two of them (``reference_impl/releases``, generated from each release by
``upstream/releasedata/generate.sh``; docs/releases.md)."""

from __future__ import annotations

import argparse
import textwrap
from typing import Any

from conformance.cli.inputs import emit
from conformance.core.errors import UsageError
from conformance.core.exits import EXIT_OK
from conformance.core.releases import release_diff_doc, release_list_doc, resolve_release
from conformance.reporters.tables import release_diff_table, release_list_table
from reference_impl.releases import load

OUTPUTS = ("table", "json", "yaml")


def _output_option(p: argparse.ArgumentParser, default: Any) -> None:
    p.add_argument("--output", "-o", choices=OUTPUTS, default=default,
                   help="table (default): for a terminal; json / yaml: the ReleaseList or "
                        "ReleaseDiff document (schemas in conformance/core/schemas/)")


def register(sub: Any) -> None:
    p = sub.add_parser(
        "releases", help="list the supported upstream releases, or diff two of them",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=textwrap.dedent("""\
            The upstream kube-scheduler releases kschedconf has data for: default plugins and
            their weights per extension point, plugin args defaults, the defaults of the
            feature gates the scheduler reads, and the configuration defaults, each read
            from the release itself (docs/releases.md). The reference scheduler follows the
            pinned one. `diff A B` prints what changes from release A to release B
            (vX.Y.Z, or vX.Y for the newest patch of that minor)."""),
        epilog=textwrap.dedent("""\
            examples:
              kschedconf releases
              kschedconf releases diff v1.36 v1.37
              kschedconf releases diff v1.34.4 v1.37.2 -o json"""))
    _output_option(p, "table")
    rsub = p.add_subparsers(dest="releases_command", metavar="ACTION")
    lst = rsub.add_parser("list", help="list the supported releases (the default action)")
    _output_option(lst, argparse.SUPPRESS)
    d = rsub.add_parser("diff", help="what differs between two releases' data")
    d.add_argument("a", metavar="A", help="the older release (vX.Y.Z or vX.Y)")
    d.add_argument("b", metavar="B", help="the newer release")
    _output_option(d, argparse.SUPPRESS)
    p.set_defaults(handler=cmd_releases)


def cmd_releases(args: argparse.Namespace) -> int:
    if args.releases_command == "diff":
        try:
            a, b = load(resolve_release(args.a)), load(resolve_release(args.b))
        except KeyError as e:
            raise UsageError(e.args[0]) from None
        emit(release_diff_doc(a, b), args.output, release_diff_table)
    else:
        emit(release_list_doc(), args.output, release_list_table)
    return EXIT_OK
