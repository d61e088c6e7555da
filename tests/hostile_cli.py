"""Running the real CLI on hostile inputs (``python -m mcp_schema_audit`` in a subprocess), for the
``tests/test_hostile_*.py`` modules.

Issue 5: every byte from a server or a snapshot file is untrusted. Each case runs the CLI with
a wall-clock limit (``subprocess`` ``timeout=``, so a hang fails the test instead of CI) and an
address-space limit (``RLIMIT_AS``, so a memory bomb fails the test instead of the machine), then
checks the exit code, that stderr holds one ``schema-audit: error: …`` line and no traceback, and
for diffs that the report is a whole JSON document.

Budgets asserted, in seconds of a run's duration less its waits for a CPU (``Timing.unloaded()`` of
``tests/timing.py``: the wall clock on an idle machine, and a bound that still holds at a load of 8 on 2
cores):

- a bad file: exit 2 within ``FILE_BUDGET_S``;
- a hostile but loadable schema: a report (exit 0/1) within ``DIFF_BUDGET_S``, the hostile tool
  reported as a ``warning`` (``schema-invalid``/``schema-undecidable``), other tools still compared;
- a hostile server: exit 3 within ``--timeout`` + ``SHUTDOWN_GRACE_S`` (the SDK's stdin-close,
  SIGTERM and SIGKILL grace periods), and no process of the server's process group left alive. A case
  whose server must be running when the deadline fires starts with a short ``--timeout`` and doubles it
  while the run did not get that far (``timing.until_reached``: the CLI's own start-up counts in its
  ``--timeout``, and on a busy machine it can take longer than 3 s).

``HANG_TIMEOUT_S`` (wall clock) only catches a hang: on a busy machine a 50 MB diff takes many times its
idle time.

Fixtures are generated into ``tmp_path``; servers bind 127.0.0.1 only (``tests/hostile_servers/``).
"""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import timing
from conftest import PYTHON, ROOT
from timing import Timing

HOSTILE = ROOT / "tests" / "hostile_servers"
STDIO_SERVER = HOSTILE / "stdio_server.py"
sys.path.insert(0, str(HOSTILE))
from hostile_http import HostileHTTPServer as HostileHTTPServer  # noqa: E402 (re-exported: a local HTTP server)

FILE_BUDGET_S = 10.0
DIFF_BUDGET_S = 20.0
SHUTDOWN_GRACE_S = 8.0
HANG_TIMEOUT_S = 180.0  #: subprocess timeout (wall clock): past it the case failed by hanging
MEMORY_LIMIT = 3 * 1024**3  #: RLIMIT_AS of every CLI run (bytes of address space)
CANARY = "canary-5e1f0c77d2"
CANARY_2 = "canary-a90b44e3f1"
ESC = "\x1b"


# ---- running the CLI -----------------------------------------------------------------------------


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str
    timing: Timing  #: ``timing.unloaded()``: the run's duration less its waits for a CPU (``tests/timing.py``)

    def error_lines(self) -> list[str]:
        """stderr lines that are not progress lines."""
        return [
            ln
            for ln in self.stderr.splitlines()
            if ln and not ln.startswith(("schema-audit: capturing", "schema-audit: wrote"))
        ]

    def report(self) -> dict[str, Any]:
        assert self.code in (0, 1), f"exit {self.code}: {self.stderr[-2000:]}"
        return json.loads(self.stdout)


def _limits(memory: int | None, fsize: int | None, umask: int | None = None) -> Callable[[], None]:
    def apply() -> None:
        if umask is not None:
            os.umask(umask)
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    return apply


def cli(
    *args: str,
    cwd: Path,
    timeout: float = HANG_TIMEOUT_S,
    env: dict[str, str] | None = None,
    memory: int | None = MEMORY_LIMIT,
    fsize: int | None = None,
    umask: int | None = None,
) -> Run:
    """Run ``python -m mcp_schema_audit ARGS`` with a wall-clock and a memory limit; a hang fails the test.

    The run's ``timing`` is measured as ``tests/timing.py`` does (its waits for a CPU counted).

    ``umask`` (e.g. ``0o022``) is set in the child before it starts; ``None`` inherits ours.
    """
    full_env = {k: v for k, v in os.environ.items() if k != "SCHEMA_AUDIT_DEBUG"}
    full_env.update({"NO_COLOR": "1", "PYTHONPATH": str(ROOT)}, **(env or {}))
    try:
        proc, timed = timing.run(
            [PYTHON, "-m", "mcp_schema_audit", *args],
            cwd=cwd,
            timeout=timeout,
            env=full_env,
            stdin=subprocess.DEVNULL,
            preexec_fn=_limits(memory, fsize, umask),
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(
            f"schema-audit {' '.join(args)[:200]} hung for more than {timeout} s; stderr: "
            f"{(exc.stderr or b'')[-1000:]!r}"
        )
    return Run(proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace"), timed)


def assert_clean_failure(run: Run, code: int, pattern: str | None = None) -> str:
    """Exit ``code``, exactly one ``schema-audit: error:`` line on stderr, no traceback; returns the line."""
    assert "Traceback" not in run.stderr and "Traceback" not in run.stdout, run.stderr[-3000:]
    assert run.code == code, f"expected exit {code}, got {run.code}: {run.stderr[-2000:]}"
    lines = run.error_lines()
    assert len(lines) == 1, f"expected one error line, got {lines!r}"
    line = lines[0]
    assert line.startswith("schema-audit: error: "), line
    assert ESC not in line
    if pattern is not None:
        assert re.search(pattern, line), f"{pattern!r} not in {line!r}"
    return line


def stdio_server(mode: str, *extra: str) -> list[str]:
    """``-- python tests/hostile_servers/stdio_server.py --mode MODE EXTRA…``: the server part of a command line."""
    return ["--", PYTHON, str(STDIO_SERVER), "--mode", mode, *extra]


def write_json(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def tools_file(path: Path, tools: list[dict[str, Any]]) -> Path:
    return write_json(path, {"tools": tools})


def tool(name: str = "t", inp: Any = None, out: Any = None, **extra: Any) -> dict[str, Any]:
    t: dict[str, Any] = {"name": name, "inputSchema": {"type": "object"} if inp is None else inp}
    if out is not None:
        t["outputSchema"] = out
    t.update(extra)
    return t


def obj(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(props)}
