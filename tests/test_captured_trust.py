"""What a live server sends is untrusted, through the real CLI and real servers (``tests/servers/scenario_server.py``):
``--auto`` reads safety annotations only as literal JSON booleans; secrets a server echoes back (an ``--env`` value
over stdio, a header or URL password over HTTP) never reach a snapshot, a report, a recording or stdout; non-JSON
numbers (NaN, Infinity, 1e400) are refused at capture and never make a report invalid JSON.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import PYTHON, ROOT, SERVERS

SCENARIO_SERVER = SERVERS / "scenario_server.py"
OPEN = {"type": "object", "properties": {}}


def cli(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if k != "SCHEMA_AUDIT_DEBUG"}
    full.update({"NO_COLOR": "1", "PYTHONPATH": str(ROOT)}, **(env or {}))
    return subprocess.run([PYTHON, "-m", "mcp_schema_audit", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=90, env=full, stdin=subprocess.DEVNULL)


def _scenario(folder: Path, scenario: dict[str, Any]) -> list[str]:
    path = folder / "scenario.json"
    path.write_text(json.dumps(scenario))
    return ["--", PYTHON, str(SCENARIO_SERVER), "--scenario", str(path)]


def _one_line_error(r: subprocess.CompletedProcess[str], code: int) -> str:
    assert r.returncode == code, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr
    errors = [ln for ln in r.stderr.splitlines() if ln.startswith("schema-audit: error:")]
    assert len(errors) == 1, r.stderr
    return errors[0]


# ---- --auto: safety annotations are literal JSON booleans ------------------------------------------------


@pytest.mark.live
def test_auto_reads_only_literal_booleans_as_safe(tmp_path: Path) -> None:
    cases = {
        "safe": {"readOnlyHint": True},
        "safe_false": {"readOnlyHint": True, "destructiveHint": False},
        "d_one": {"readOnlyHint": True, "destructiveHint": 1},
        "d_string": {"readOnlyHint": True, "destructiveHint": "true"},
        "d_null": {"readOnlyHint": True, "destructiveHint": None},
        "d_false_string": {"readOnlyHint": True, "destructiveHint": "false"},
        "d_zero": {"readOnlyHint": True, "destructiveHint": 0},
        "ro_one": {"readOnlyHint": 1},
        "ro_string": {"readOnlyHint": "true"},
        "ann_list": [True],
    }
    tools = [{"name": name, "inputSchema": OPEN, "annotations": ann} for name, ann in cases.items()]
    server = _scenario(tmp_path, {"tools": tools, "results": {}})
    r = cli("probe", "--auto", "--dry-run", "--protocol", "legacy", "--format", "json", *server, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    plan = json.loads(r.stdout)
    assert sorted(c["tool"] for c in plan["calls"]) == ["safe", "safe_false"]
    skipped = {s["tool"]: s["why"] for s in plan["skipped"]}
    assert skipped["d_one"] == "annotated destructiveHint: 1 (only a literal false counts as not destructive)"
    assert skipped["d_string"] == 'annotated destructiveHint: "true" (only a literal false counts as not destructive)'
    for name in ("d_null", "d_false_string", "d_zero"):
        assert skipped[name].startswith("annotated destructiveHint: "), skipped[name]
    assert skipped["ro_one"] == "annotated readOnlyHint: 1 (only a literal true counts as read-only)"
    assert skipped["ro_string"].startswith('annotated readOnlyHint: "true"')
    assert skipped["ann_list"] == "not annotated readOnlyHint: true"
