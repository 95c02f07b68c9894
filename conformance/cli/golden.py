"""``kschedconf golden``: record the golden scenarios' decisions from upstream, verify a subject
against them, list them (:mod:`conformance.engines.golden`)."""

from __future__ import annotations

import argparse
import shlex
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

from conformance.cli.options import (
    OUTPUTS,
    apply_backend_options,
    backend_options,
    err,
    output_option,
    positive_float,
    release_option,
    replaces_option,
    report_options,
    reporters,
    signals_end_the_run,
)
from conformance.core.documents import golden_list_doc, to_json, to_yaml
from conformance.core.errors import SubjectError, Terminated
from conformance.core.exits import EXIT_FAILED, EXIT_OK
from conformance.engines import golden, golden_record
from conformance.engines.session import Session
from conformance.subjects.factory import make_subject
from reference_impl.releases.pinned import UPSTREAM_RELEASE


def register(sub: Any) -> None:
    """Add ``golden`` to the ``kschedconf`` sub-command parsers."""
    g = sub.add_parser(
        "golden", help="record (from upstream) or verify the golden scenarios",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=textwrap.dedent("""\
            Golden scenarios (golden/AREA/NAME.yaml, named AREA/NAME) are scenarios whose
            decisions (bindings, pending pods, preemption victims) were recorded from the real
            upstream scheduler. Their inputs are built by golden/definitions/ from readable
            definitions. The format: docs/golden.md.

            record: schedule the definitions on the upstream subject, show every decision
              that changed against the files, and write them with --yes (needs the upstream
              binary: `bash upstream/build.sh`).
            verify: schedule every golden file on a subject (default: the reference) and
              compare with the recorded decisions; needs no Go.
            list: the golden scenarios and what they cover."""),
        epilog=textwrap.dedent("""\
            examples:
              kschedconf golden verify
              kschedconf golden verify --subject external:'./my-scheduler'
              kschedconf golden verify --only fit/cpu-memory
              kschedconf golden record --only preemption/pdb      # shows the changes
              kschedconf golden record --yes                      # writes every file

            exit codes: 0 ok (verify: every decision equal), 1 differences (record without
            --yes: some decisions changed), 2 usage or subject error"""))
    gsub = g.add_subparsers(dest="golden_command", metavar="ACTION")
    rec = gsub.add_parser("record", help="(re-)record the decisions from upstream")
    rec.add_argument("--only", metavar="AREA/NAME", action="append", default=[],
                     help="only these scenarios (repeatable; default all)")
    rec.add_argument("--yes", action="store_true", help="write the files")
    rec.add_argument("--force", action="store_true",
                     help="rewrite unchanged files too (new provenance)")
    rec.add_argument("--golden-dir", metavar="DIR", help="directory of golden scenarios")
    release_option(rec)
    rec.add_argument("--upstream", metavar="SPEC", default="upstream",
                     help="the subject decisions are recorded from (default upstream)")
    rec.add_argument("--subject-timeout", metavar="SECONDS", type=positive_float,
                     help="time limit of one upstream request")
    rec.add_argument("--i-own-this-cluster", metavar="CONTEXT",
                     help="with kubeconfig:CONTEXT: name the same context to confirm it is a "
                          "throwaway cluster kschedconf may create and delete objects in")
    ver = gsub.add_parser("verify", help="check a subject against the recorded decisions")
    ver.add_argument("--subject", metavar="SPEC", default="reference",
                     help="the subject (default reference)")
    ver.add_argument("--only", metavar="AREA/NAME", action="append", default=[],
                     help="only these scenarios (repeatable)")
    release_option(ver)
    ver.add_argument("--plugins", metavar="MODULE", action="append", default=[],
                     help="a Python file or module with your own plugins for the reference "
                          "subject (repeatable); enable them in --subject reference:CFG.yaml")
    replaces_option(ver)
    ver.add_argument("--golden-dir", metavar="DIR", help="directory of golden scenarios")
    report_options(ver, "every golden scenario")
    output_option(ver)
    ver.add_argument("--subject-timeout", metavar="SECONDS", type=positive_float,
                     help="time limit of one scenario (external subjects, real control "
                          "planes)")
    backend_options(ver, config=False)
    ver.add_argument("--i-own-this-cluster", metavar="CONTEXT",
                     help="with kubeconfig:CONTEXT: name the same context to confirm it is a "
                          "throwaway cluster kschedconf may create and delete objects in")
    lst = gsub.add_parser("list", help="list the golden scenarios")
    lst.add_argument("--golden-dir", metavar="DIR", help="directory of golden scenarios")
    lst.add_argument("--output", "-o", choices=OUTPUTS, default="table",
                     help="table (default): a line per scenario; json / yaml: the GoldenList "
                          "document (schema conformance/core/schemas/GoldenList.schema.json)")
    g.set_defaults(handler=cmd_golden)
    g.set_defaults(handler=cmd_golden)


def _directory(arg: str | None) -> Path:
    return Path(arg) if arg else golden.default_golden_dir()


def cmd_golden_record(args: argparse.Namespace) -> int:
    directory = _directory(args.golden_dir)
    defs = golden_record.load_definitions(directory)
    unknown = [n for n in args.only if n not in defs]
    if unknown:
        return err("golden record", f"no golden definition named {', '.join(unknown)} "
                                    f"(known: {', '.join(sorted(defs))})")
    names = [n for n in defs if not args.only or n in args.only]
    command = "kschedconf golden record" + "".join(f" --only {shlex.quote(n)}"
                                                   for n in args.only) + " --yes" + (
        " --force" if args.force else "")
    if args.upstream != "upstream":
        command += f" --upstream {shlex.quote(args.upstream)}"
    if args.release != UPSTREAM_RELEASE:
        command += f" --release {args.release}"
    try:
        subject = make_subject(args.upstream, timeout=args.subject_timeout,
                               i_own_this_cluster=args.i_own_this_cluster,
                               release=args.release)
    except SubjectError as e:
        return err("golden record", str(e))
    t0 = time.monotonic()
    with subject:
        print(f"recording {len(names)} golden scenario(s) from {subject.name} "
              f"(kube-scheduler {subject.release or 'unknown'}) into {directory}/")
        try:
            found = golden_record.record(subject, directory, names, defs, command,
                                         force=args.force, say=print)
        except SubjectError as e:
            return err("golden record", f"subject error: {e}")
    print(f"{len(names)} scenario(s) in {time.monotonic() - t0:.1f}s: {len(found.writes)} new "
          "or changed" + (f", {found.random} skipped (random upstream choice)"
                          if found.random else ""))
    if not found.writes:
        return EXIT_FAILED if found.random else EXIT_OK
    if not args.yes:
        print("nothing written: run again with --yes to write these files")
        return EXIT_FAILED
    golden_record.write(found, print)
    return EXIT_FAILED if found.random else EXIT_OK


def cmd_golden_verify(args: argparse.Namespace) -> int:
    directory = _directory(args.golden_dir)
    files = golden.golden_files(directory)
    if args.only:
        files = golden.select_golden(files, directory, args.only)
    problem = apply_backend_options(args)
    if problem:
        return err("golden verify", problem)
    try:
        subject = make_subject(args.subject, plugins=args.plugins, replaces=args.replaces,
                               timeout=args.subject_timeout,
                               i_own_this_cluster=args.i_own_this_cluster,
                               release=args.release)
    except SubjectError as e:
        return err("golden verify", str(e))
    session = Session("golden verify", reporters(args),
                      properties={"subject.spec": args.subject,
                                  "upstream.release": args.release},
                      planned=len(files))
    stop: BaseException | None = None
    try:
        with signals_end_the_run(), subject:
            session.start(golden.golden_header(subject, files, directory, args.release))
            golden.verify(session, subject, directory, files, release=args.release)
    except (KeyboardInterrupt, Terminated) as e:
        stop = e
    session.finish(totals=[f"{len(session.cases)} golden scenarios"], stop=stop)
    if stop is not None:
        raise stop
    return session.summary.exit_code


def cmd_golden_list(args: argparse.Namespace) -> int:
    directory = _directory(args.golden_dir)
    rows: list[tuple[str, str, str, str]] = []
    for path in golden.golden_files(directory):
        scenario, decisions, _ = golden.read_golden_file(path)
        held = sorted({r for d in decisions for r in d.releases}, key=golden.release_key)
        rows.append((golden.golden_name(path, directory), str(path), ",".join(held),
                     scenario.covers))
    if args.output == "table":
        for name, _, rec, covers in rows:
            print(f"{name:<45} {rec or '-':<10} {covers}")
    else:
        doc = golden_list_doc(str(directory), rows)
        sys.stdout.write(to_yaml(doc) if args.output == "yaml" else to_json(doc))
    return EXIT_OK


def cmd_golden(args: argparse.Namespace) -> int:
    handler = {"record": cmd_golden_record, "verify": cmd_golden_verify,
               "list": cmd_golden_list}.get(args.golden_command or "")
    if handler is None:
        return err("golden", "choose an action: record, verify or list")
    return handler(args)
