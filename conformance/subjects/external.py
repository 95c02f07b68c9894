"""An external command as a subject: any scheduler, in any language, speaking a file protocol.

For every scenario the runner writes the scenario YAML to a temporary directory and runs::

    COMMAND... SCENARIO.yaml --output RESULT.json --seed N

The command must write a ``SimulationResult`` document (JSON, ``conformance/core/schemas/
SimulationResult.schema.json``) to ``RESULT.json`` and exit 0. Anything else (a non-zero exit,
no or invalid output, a timeout) is a :class:`SubjectError` carrying the tail of the command's
stderr. The protocol is documented in ``docs/subjects.md``.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import jsonschema

from conformance.core.documents import schema
from conformance.core.scenario import ScenarioInput
from conformance.core.subject import Subject, SubjectError, SubjectResult
from reference_impl.releases.pinned import UPSTREAM_RELEASE

#: Version of the file protocol, passed to the command as ``KSCHEDCONF_PROTOCOL``.
PROTOCOL_VERSION = "1"
DEFAULT_TIMEOUT = 60.0
STDERR_TAIL_LINES = 20
STDERR_TAIL_CHARS = 4000


def stderr_tail(data: bytes | str | None, lines: int = STDERR_TAIL_LINES) -> str:
    """The last ``lines`` lines of a command's stderr (at most ``STDERR_TAIL_CHARS``)."""
    if not data:
        return ""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    tail = "\n".join(text.rstrip().splitlines()[-lines:])
    return tail[-STDERR_TAIL_CHARS:]


class ExternalSubject(Subject):
    """A command run once per scenario (see the module docstring and docs/subjects.md)."""
    name = "external"

    def __init__(self, command: str | Sequence[str], timeout: float = DEFAULT_TIMEOUT,
                 env: Mapping[str, str] | None = None) -> None:
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not argv:
            raise SubjectError("external subject: empty command")
        self.argv = argv
        self.timeout = timeout
        self.extra_env = dict(env or {})

    @property
    def command(self) -> str:
        return shlex.join(self.argv)

    def _env(self, scenario: ScenarioInput) -> dict[str, str]:
        env = dict(os.environ)
        env.update(self.extra_env)
        env["KSCHEDCONF_PROTOCOL"] = PROTOCOL_VERSION
        env["KSCHEDCONF_UPSTREAM_RELEASE"] = UPSTREAM_RELEASE
        env["KSCHEDCONF_SCENARIO_NAME"] = scenario.name
        return env

    def _fail(self, what: str, stderr: bytes | None) -> SubjectError:
        msg = f"external subject `{self.command}`: {what}"
        tail = stderr_tail(stderr)
        if tail:
            msg += "\n--- stderr (tail) ---\n" + tail
        return SubjectError(msg)

    def run(self, scenario: ScenarioInput) -> SubjectResult:

        with tempfile.TemporaryDirectory(prefix="kschedconf-") as tmp:
            scenario_path = Path(tmp) / "scenario.yaml"
            result_path = Path(tmp) / "result.json"
            scenario.write(scenario_path, info=False)  # protocol 1: objects only
            argv = [*self.argv, str(scenario_path), "--output", str(result_path),
                    "--seed", str(scenario.seed)]
            try:
                proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                        env=self._env(scenario), start_new_session=True)
            except OSError as e:
                raise SubjectError(f"external subject `{self.command}`: cannot start: {e}") \
                    from e
            try:
                _, err = proc.communicate(timeout=self.timeout)
            except subprocess.TimeoutExpired:
                # The command runs in its own session: end it and everything it started.
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGKILL)
                _, err = proc.communicate()
                raise self._fail(f"timed out after {self.timeout:g} s on scenario "
                                 f"{scenario.name}", err) from None
            if proc.returncode != 0:
                raise self._fail(f"exit code {proc.returncode} on scenario {scenario.name}", err)
            if not result_path.exists():
                raise self._fail(f"exit code 0 but no result written to --output "
                                 f"(scenario {scenario.name})", err)
            try:
                doc = json.loads(result_path.read_text(encoding="utf-8"))
            except (ValueError, UnicodeDecodeError) as e:
                raise self._fail(f"the result is not valid JSON: {e}", err) from e

        validator = jsonschema.Draft202012Validator(schema("SimulationResult"))
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        if errors:
            first = errors[0]
            where = "/".join(str(p) for p in first.absolute_path) or "(document)"
            raise self._fail(f"the result does not match the SimulationResult schema: "
                             f"{where}: {first.message}", err)
        trace = doc.get("trace")
        return SubjectResult(doc, trace=trace if isinstance(trace, list) else None)

    def describe(self) -> dict[str, str]:
        return {"subject": self.name, "command": self.command,
                "protocol": PROTOCOL_VERSION, "timeout": f"{self.timeout:g}s"}
