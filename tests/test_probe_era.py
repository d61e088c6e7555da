"""``probe`` judges real results in the protocol era of their connection, live: servers of the Python ``mcp`` SDK
(``tests/servers/era_server.py``) over stdio, the real CLI as a subprocess.

- A real ``MCPServer`` with ``-> str``, ``-> str | None`` and ``-> list[str]`` tools, on a 2026-07-28 connection
  (``--protocol 2026-07-28``) and on the legacy handshake: the SDK renders those results' text blocks itself
  (``{"result": "hello you"}`` beside the text ``hello you``), which the tool's author cannot change, so no
  ``result-text-missing`` (one per tool before); a report note names the SDK.
- A low-level SDK ``Server`` that sends ``structuredContent: null`` and an array, which the SDK's own server
  classes never send (their serializer drops a null; ``MCPServer`` refuses a non-object root schema on a 2025-era
  connection), so it answers through a middleware with raw JSON. On 2026-07-28 those are valid results
  (``result-malformed`` before); on the legacy handshake they are still malformed for the TS clients.
- One calls file for two releases: a tool a release does not list is a finding for that call, not exit 2.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import PYTHON, ROOT, SERVERS

pytestmark = [pytest.mark.live, pytest.mark.xdist_group("probe-era")]
SERVER = SERVERS / "era_server.py"


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PYTHON, "-m", "mcp_schema_audit", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        env={**{k: v for k, v in os.environ.items() if k != "SCHEMA_AUDIT_DEBUG"}, "PYTHONPATH": str(ROOT)},
        stdin=subprocess.DEVNULL,
    )


def server(*args: str) -> list[str]:
    return ["--", PYTHON, str(SERVER), *args]


def probe_json(tmp_path: Path, calls: list[str], *args: str) -> tuple[int, dict[str, Any], str]:
    (tmp_path / "calls.json").write_text(json.dumps({"calls": [{"tool": t} for t in calls]}))
    r = cli("probe", "--calls", "calls.json", "--format", "json", *args, cwd=tmp_path)
    assert r.returncode in (0, 1), r.stderr
    return r.returncode, json.loads(r.stdout), r.stderr


def found(report: dict[str, Any]) -> dict[tuple[str, str], list[str]]:
    return {(f["tool"], f["rule"]): f["hosts"] for f in report["findings"]}


@pytest.mark.parametrize("protocol", ["2026-07-28", "legacy"])
def test_the_python_sdks_own_text_rendering_is_not_reported(tmp_path: Path, protocol: str) -> None:
    code, report, _ = probe_json(
        tmp_path,
        ["greet", "maybe_note", "tags"],
        "--protocol",
        protocol,
        "--record",
        "run.json",
        *server("--server", "mcpserver", "--release", "1"),
    )
    assert report["new"]["protocol_version"] == ("2026-07-28" if protocol != "legacy" else "2025-11-25")
    recorded = {c["tool"]: c["result"] for c in json.loads((tmp_path / "run.json").read_text())["calls"]}
    # what the SDK sent: the str as itself, the None as no block, the list item by item
    assert recorded["greet"]["structuredContent"] == {"result": "hello you"}
    assert recorded["greet"]["content"] == [{"type": "text", "text": "hello you"}]
    assert recorded["maybe_note"]["content"] == [] and recorded["maybe_note"]["structuredContent"] == {"result": None}
    assert [b["text"] for b in recorded["tags"]["content"]] == ["a", "b c"]
    assert code == 0 and report["findings"] == [], report["findings"]
    [note] = [n for n in report["notes"] if "MCPServer" in n]
    assert note.startswith("calls greet, maybe_note, tags: the text blocks are how the Python SDK's MCPServer")
    assert all(c["checked"] for c in report["calls"])


def test_null_structured_content_is_judged_by_the_2026_era(tmp_path: Path) -> None:
    code, report, _ = probe_json(
        tmp_path,
        ["maybe_null", "numbers", "strict_null"],
        "--protocol",
        "2026-07-28",
        "--record",
        "modern.json",
        *server("--server", "lowlevel"),
    )
    assert report["new"]["protocol_version"] == "2026-07-28"
    sent = {c["tool"]: c["result"] for c in json.loads((tmp_path / "modern.json").read_text())["calls"]}
    assert "structuredContent" in sent["maybe_null"] and sent["maybe_null"]["structuredContent"] is None
    # null under type ["object", "null"] and an array under an array root are valid results of this era; a null
    # under an object schema is rejected by that schema, for the clients that speak 2026-07-28
    assert code == 1 and found(report) == {("strict_null", "result-violates-own-schema"): ["python-sdk", "ts-sdk-v2"]}
    assert any(n.startswith("calls maybe_null, numbers, strict_null not judged for ts-sdk-v1") for n in report["notes"])
    # the recording knows its protocol version: replayed, it is judged the same
    r = cli("probe", "--replay", "modern.json", "--format", "json", cwd=tmp_path)
    assert found(json.loads(r.stdout)) == found(report), r.stderr


def test_the_same_results_on_the_legacy_handshake_are_still_malformed(tmp_path: Path) -> None:
    code, report, _ = probe_json(
        tmp_path, ["maybe_null", "numbers"], "--protocol", "legacy", *server("--server", "lowlevel")
    )
    assert report["new"]["protocol_version"] == "2025-11-25"
    assert code == 1 and found(report) == {
        ("maybe_null", "result-malformed"): ["ts-sdk-v1", "ts-sdk-v2"],
        ("numbers", "result-malformed"): ["python-sdk", "ts-sdk-v1", "ts-sdk-v2"],
    }


def test_one_calls_file_probes_two_releases(tmp_path: Path) -> None:
    """Release 2 adds shout and removes maybe_note: each run calls what its release lists, and the other call is
    an info finding (the calls file named a tool the server does not list: exit 2 before)."""
    r = cli(
        "snapshot",
        "--out",
        "r1.json",
        "--label",
        "r1",
        *server("--server", "mcpserver", "--release", "1"),
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    calls = ["greet", "maybe_note", "shout"]
    code, one, _ = probe_json(tmp_path, calls, *server("--server", "mcpserver", "--release", "1"))
    assert code == 0 and [(c["id"], c["outcome"]) for c in one["calls"]] == [
        ("greet", "result"),
        ("maybe_note", "result"),
        ("shout", "not-listed"),
    ]
    assert found(one) == {("shout", "call-tool-not-listed"): []}
    code, two, _ = probe_json(
        tmp_path, calls, "--against", "r1.json", *server("--server", "mcpserver", "--release", "2")
    )
    assert code == 0 and found(two) == {("maybe_note", "call-tool-not-listed"): []}
    [gone] = [f for f in two["findings"] if f["tool"] == "maybe_note"]
    assert "which hosts that cached r1 still call" in gone["message"], gone["message"]
    assert [c["outcome"] for c in two["calls"]] == ["result", "not-listed", "result"]
