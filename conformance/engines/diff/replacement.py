"""The differential as a check of one scenario, for a subject running user plugins that replace
in-tree ones (issue 18; docs/diff.md, "Any scheduler against the reference"): the subject
compared with the reference running the in-tree plugins in their place (``baseline.py``),
whole run and in lockstep (every pod's PreFilter verdicts, per-node filter verdicts, raw and
normalized scores), each unexplained root divergence one finding that names the in-tree
plugin, the user's plugin and the extension point. ``kschedconf mutants`` judges plugin-form
mutants with it beside the oracles."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from conformance.core.subject import Subject
from conformance.engines.baseline import against_reference
from conformance.engines.diff.compare import diff_scenario
from conformance.engines.diff.model import LOCKSTEP, WHOLE

#: the name a differential finding is reported under, beside the oracles'
DIFFERENTIAL = "differential"


def differential_check(subject: Subject, config: Mapping[str, Any] | None = None
                       ) -> Callable[[Any], list[str]]:
    """A check (an oracle's signature: the oracle context in, findings out) that compares
    ``subject`` with the reference under the configuration the subject runs (its own, else
    ``config``: ``--config``), on the context's scenario, in whole and lockstep modes; a
    finding per unexplained root divergence. The subject is run again (its result in the
    context is not read): the comparison needs its explanations too."""
    ref, other, _ = against_reference(subject, config, owns=False)

    def check(ctx: Any) -> list[str]:
        found = diff_scenario(ctx.scenario, ref, other, (WHOLE, LOCKSTEP))
        return [str(d) for d in found.unexplained if not d.consequence]

    return check
