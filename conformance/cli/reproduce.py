"""``kschedconf reproduce``: replay a scenario file on a subject and apply the oracles."""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import Any

from conformance.cli.options import (
    apply_backend_options,
    err,
    output_option,
    strict_intent_option,
    subject_options,
)
from conformance.core.documents import reproduce_doc, to_json, to_yaml
from conformance.core.dropped import dropped_counts
from conformance.core.errors import SubjectError
from conformance.engines.run import reproduce
from reference_impl.model.errors import InputError


def register(sub: Any) -> None:
    """Add ``reproduce`` to the ``kschedconf`` sub-command parsers."""
    rep = sub.add_parser(
        "reproduce", help="replay a counterexample or golden scenario file on a subject",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=textwrap.dedent("""\
            Replay a scenario file (a counterexample written by `kschedconf run`, a golden
            scenario, or any scenario) on a subject, apply the oracles and print the
            subject's bindings and every violation. Oracles: --oracle, else the one named in
            the file's `oracle:` note (ScenarioInfo notes, or a `# oracle:` comment line of
            the old form), else all. A golden file's recorded decisions are compared as
            well."""),
        epilog=textwrap.dedent("""\
            examples:
              kschedconf reproduce kschedconf-out/<property>.yaml
              kschedconf reproduce case.yaml --subject external:./my-scheduler --oracle NAME

            exit codes: 0 no violation, 1 violations (or different decisions), 2 usage or
            subject error, or not judged (every pod ended in Error: nothing to judge)"""))
    rep.add_argument("file", metavar="FILE", help="the scenario YAML file")
    subject_options(rep, from_file=True)
    rep.add_argument("--oracle", metavar="NAME", nargs="+", action="extend", default=[],
                     help="the oracles to apply (default: the file's, else all)")
    output_option(rep, "ReproduceResult")
    strict_intent_option(rep)
    rep.set_defaults(handler=cmd_reproduce)


def cmd_reproduce(args: argparse.Namespace) -> int:
    problem = apply_backend_options(args)
    if problem:
        return err("reproduce", problem)
    fmt = args.output
    try:
        outcome = reproduce(args.file, args.subject, list(args.oracle),
                            config=args.config, plugins=list(args.plugins),
                            replaces=list(args.replaces),
                            timeout=args.subject_timeout,
                            i_own_this_cluster=args.i_own_this_cluster,
                            strict_intent=args.strict_intent, release=args.release,
                            stream=sys.stderr if fmt != "table" else sys.stdout)
    except SubjectError as e:
        return err("reproduce", f"subject error: {e}")
    except (ValueError, InputError) as e:  # ConfigError is a ValueError
        return err("reproduce", str(e))
    if fmt != "table":
        doc = reproduce_doc(
            file=args.file, seed=outcome.seed, subject=outcome.subject,
            found_with=outcome.found_with, oracles=outcome.oracles, result=outcome.result,
            violations=[(f.oracle, f.text) for f in outcome.findings], golden=outcome.golden,
            golden_differences=outcome.golden_differences, warnings=outcome.warnings,
            dropped=dropped_counts(outcome.warnings), not_judged=outcome.not_judged,
            exit_code=outcome.exit_code)
        sys.stdout.write(to_yaml(doc) if fmt == "yaml" else to_json(doc))
    return outcome.exit_code
