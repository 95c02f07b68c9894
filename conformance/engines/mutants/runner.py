"""One mutant's run: the witness check, then the property suite against the mutated reference
(each generated scenario judged by every oracle, or one Hypothesis run per oracle with
``per_property``), then the golden suite when the properties did not catch it. See
docs/mutants.md."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from hypothesis import settings

from conformance.core.subject import Subject
from conformance.engines.diff.replacement import DIFFERENTIAL
from conformance.engines.golden import compare_golden, golden_files, read_scenario_file
from conformance.engines.mutants.mutant import Mutant
from conformance.engines.mutants.outcomes import (
    ALL_ORACLES_PROPERTY,
    CAUGHT,
    EQUIVALENT,
    ERROR,
    GOLDEN_PROPERTY,
    INEFFECTIVE,
    NOT_APPLICABLE,
    MutantOutcome,
    PropertyOutcome,
)
from conformance.engines.mutants.plan import MutantsOptions
from conformance.engines.mutants.subject import (
    MutantSubject,
    check_witness,
    differs_only_on_pinned,
    mutant_checks,
    not_applicable,
)
from conformance.engines.properties import (
    Property,
    no_shrink,
    profile_settings,
    property_list,
    run_property,
)


def run_mutant(mutant: Mutant, opts: MutantsOptions, share: float | None = None
               ) -> MutantOutcome:
    """Check the mutant's witness, then run the property suite (and the golden suite) against
    the mutated reference within ``share`` seconds (None: no time limit). Never raises an
    ``Exception``: a broken patch target or harness bug is an ``error`` outcome."""
    t0 = time.monotonic()
    out = MutantOutcome(mutant.name, mutant.area, mutant.summary,
                        equivalent=mutant.equivalent, missing_oracle=mutant.missing_oracle,
                        release=opts.release)
    try:
        if reason := not_applicable(mutant, opts.release):
            out.status, out.message = NOT_APPLICABLE, reason
            out.total_seconds = time.monotonic() - t0
            return out
        w = check_witness(mutant, opts.oracles, opts.release)
        out.witness_caught_by = w.caught_by
        if not w.differs or w.genuine_violations:
            if w.genuine_violations:
                out.status = ERROR
                out.message = ("the genuine reference fails the oracles on the witness "
                               f"scenario (a false alarm or a bad witness): "
                               f"{w.genuine_violations[0]}")
            elif reason := differs_only_on_pinned(mutant, opts.release):
                out.status, out.message = NOT_APPLICABLE, reason
            else:
                out.status = INEFFECTIVE
                out.message = ("the witness scenario is scheduled the same with and without "
                               "the mutant: the patch no longer reaches the code it targets")
            out.total_seconds = time.monotonic() - t0
            return out
        base = settings(no_shrink(profile_settings("dev")), database=None)
        subject = MutantSubject(mutant, release=opts.release)
        # a plugin-form mutant is judged by the differential too (beside the oracles)
        checks = mutant_checks(mutant, subject, opts.oracles)
        # a mutant of code only a feature family exercises runs on that family alone (a
        # superset of the small scenarios: the size preset with the feature added)
        families = [mutant.family] if mutant.family else list(opts.families)
        if opts.per_property:
            runs = [(p, {p.oracle: checks[p.oracle]})
                    for p in property_list(families, [n for n in checks if n != DIFFERENTIAL])]
            if DIFFERENTIAL in checks:
                runs += [(Property(f, DIFFERENTIAL), {DIFFERENTIAL: checks[DIFFERENTIAL]})
                         for f in families]
        else:
            runs = [(Property(f, ALL_ORACLES_PROPERTY), checks) for f in families]
        for i, (prop, run_checks) in enumerate(runs):
            deadline = None
            if share is not None:
                remaining = share - (time.monotonic() - t0)
                deadline = time.monotonic() + max(remaining, 0.0) / (len(runs) - i)
            out.properties.append(_run_one(prop, subject, run_checks, base, opts, deadline))
        if opts.golden and not any(p.failed for p in out.properties):
            golden = _run_golden(subject, opts.golden_dir, opts.release)
            if golden is not None:
                out.properties.append(golden)
        subject.close()
    except Exception as e:  # a broken patch target, an oracle or harness bug
        out.status = ERROR
        out.message = f"{type(e).__name__}: {e}"
        out.total_seconds = time.monotonic() - t0
        return out
    out.examples_run = sum(p.examples for p in out.properties)
    failed = [p for p in out.properties if p.failed]
    if failed:
        out.status = CAUGHT
        out.caught_by = sorted({o for p in failed for o in p.caught_by})
        quickest = min(failed, key=lambda p: (p.detected_after or p.seconds))
        out.examples = quickest.examples
        out.seconds = (quickest.detected_after if quickest.detected_after is not None
                       else quickest.seconds)
        out.message = quickest.message
    elif mutant.equivalent:
        out.status = EQUIVALENT
    out.total_seconds = time.monotonic() - t0
    return out


def _run_golden(subject: Subject, directory: str, release: str) -> PropertyOutcome | None:
    """The golden suite (``kschedconf run --suite golden``): every golden scenario that holds
    for ``release`` through the mutated reference, scheduled as ``release`` and its decisions
    compared with those recorded from that release's upstream, as ``golden verify --release``
    decides (:func:`conformance.engines.golden.verify_case`: a file with no decisions for the
    release is left out); stops at the first scenario that differs. None when there are no
    golden files. Its examples count the scenarios compared."""
    try:
        files = golden_files(directory)
    except ValueError:
        return None
    start = time.monotonic()
    i = 0
    for path in files:
        scenario, decisions, _ = read_scenario_file(path, release)
        if decisions is None:
            continue
        i += 1
        try:
            result = subject.run(scenario.derived(release=release)).result
        except Exception as e:  # a crash of the mutated reference is a catch too
            diffs = [f"the subject raised {type(e).__name__}: {e}"]
        else:
            diffs = compare_golden(decisions, result)
        if diffs:
            elapsed = time.monotonic() - start
            return PropertyOutcome(GOLDEN_PROPERTY, "golden", True, i, elapsed,
                                   caught_by=[GOLDEN_PROPERTY], detected_after=elapsed,
                                   stopped_by="failure",
                                   message=f"{path.name}: {diffs[0]}")
    return PropertyOutcome(GOLDEN_PROPERTY, "golden", False, i,
                           time.monotonic() - start, stopped_by="exhausted")


def _run_one(prop: Property, subject: Subject,
             checks: Mapping[str, Callable[[Any], list[Any]]], base: settings,
             opts: MutantsOptions, deadline: float | None) -> PropertyOutcome:
    """One Hypothesis run (no shrinking) of ``prop`` applying ``checks`` to each scenario."""
    start = time.monotonic()
    first: list[tuple[float, list[str]]] = []

    def check(ctx: Any) -> list[Any]:
        found: list[Any] = []
        fired: list[str] = []
        for name, chk in checks.items():
            try:
                violations = list(chk(ctx) or ())
            except Exception as e:  # an oracle bug must not pass silently
                violations = [f"[{name}] the oracle raised {type(e).__name__}: {e}"]
            if violations:
                fired.append(name)
                found += violations
        if found and not first:
            first.append((time.monotonic() - start, fired))
        return found

    st = run_property(prop, subject, check, base=base,
                      max_examples=opts.max_examples, seed=opts.seed, deadline=deadline,
                      prepare=lambda scenario: scenario.derived(release=opts.release))
    if st.interrupt is not None:  # Ctrl-C or a signal: the run ends (engine.run_mutants)
        raise st.interrupt
    if st.failure is None and (st.error or st.subject_error is not None):
        raise RuntimeError(f"property {prop.id}: {st.error or st.subject_error}")
    out = PropertyOutcome(prop.oracle, prop.family, st.failure is not None, st.examples,
                          time.monotonic() - start, stopped_by=st.stopped_by)
    if st.failure is not None:
        findings = st.failure[1]
        text = str(findings[0]).splitlines()[0] if findings else ""
        out.message = text.removeprefix(f"[{ALL_ORACLES_PROPERTY}] ")[:300]
        if first:
            out.detected_after, out.caught_by = first[0][0], sorted(first[0][1])
        else:  # the mutated reference crashed (CRASH)
            out.detected_after = st.seconds
            out.caught_by = sorted({f.oracle for f in findings})
    return out
