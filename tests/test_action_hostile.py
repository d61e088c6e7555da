"""Hostile inputs to the GitHub Action (scripts/action_run.py run as a subprocess with the runner's files):
workflow commands forged through a server's stderr, and the error lines of the CLI that quote it."""

from __future__ import annotations

import subprocess
from pathlib import Path

from conftest import PYTHON
from test_action import SEED, run_action

# a stdio "server" that prints workflow commands on its stderr and exits before the handshake
FORGER = (
    "import sys; sys.stderr.write('##[warning]forged annotation\\n##[add-mask]hidden\\n"
    "::stop-commands::tok\\nx ##[error]mid-line\\n'); sys.exit(1)"
)


def _commands(text: str) -> list[str]:
    """Lines of ``text`` that the runner would read as a workflow command (``::`` at a line's start, ``##[`` at
    any place)."""
    return [ln for ln in text.splitlines() if ln.lstrip().startswith("::") or "##[" in ln]


def test_a_server_stderr_forges_no_workflow_command_in_the_cli_error_line():
    proc = subprocess.run(
        [PYTHON, "-m", "mcp_schema_audit", "snapshot", "--out", "-", "--timeout", "30", "--", PYTHON, "-c", FORGER],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 3, proc.stderr
    assert "forged annotation" in proc.stderr and _commands(proc.stderr) == [], proc.stderr


def test_the_action_echoes_the_cli_stderr_without_workflow_commands(tmp_path: Path):
    r = run_action(tmp_path, base=str(SEED / "0.2.5.json"), command=f'{PYTHON} -c "{FORGER}"', timeout="30")
    assert r.code == 3, (r.stderr, r.summary)
    assert "forged annotation" in r.stderr
    assert _commands(r.stderr) == []
    # stdout holds the Action's own error annotation only
    assert [ln.split("::", 2)[1] for ln in _commands(r.stdout)] == ["error title=schema-audit"], r.stdout
    assert "##[" not in r.stdout
