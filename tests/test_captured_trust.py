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
    return subprocess.run(
        [PYTHON, "-m", "mcp_schema_audit", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=90,
        env=full,
        stdin=subprocess.DEVNULL,
    )


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


# ---- secrets a server echoes back are masked where captured data enters ---------------------------------

ENV_SECRET = "envsecret-7f3a9c"
HDR_SECRET = "hdrsecret-41b8e2"
BEARER = "bearertok-9d0c55"
URL_PASSWORD = "urlpass-6e21"
BASIC = "dXNlcjp1cmxwYXNzLTZlMjE="  # base64("user:urlpass-6e21"), the Basic value derived from the URL
ECHO_OUT = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}


def _echo_scenario(marker: str) -> dict[str, Any]:
    """A server that writes ``marker`` (a ``$VAR``) into every part of its listing, results and errors."""
    return {
        "echo": True,
        "name": f"srv {marker}",
        "version": "1",
        "instructions": f"token is {marker}",
        "tools": [
            {
                "name": "echo",
                "description": f"uses {marker}",
                "annotations": {"readOnlyHint": True},
                "inputSchema": {"type": "object", "default": marker, "properties": {}},
                "outputSchema": {**ECHO_OUT, "additionalProperties": False},
            },
            {"name": "fails", "description": "fails", "inputSchema": OPEN},
        ],
        "results": {
            "echo": {
                "$expand": {
                    "content": [{"type": "text", "text": f"got {marker}"}],
                    "structuredContent": {"a": marker, "leak": marker},
                }
            },
            "fails": {"$error": {"code": -32603, "message": f"backend down for {marker}"}},
        },
    }


def _probe_every_format(
    tmp_path: Path, server: list[str], secrets: list[str], *, env: dict[str, str] | None = None
) -> None:
    """``snapshot``, then ``probe`` in every report format with ``--record``: no secret in any file or stream."""
    (tmp_path / "calls.json").write_text(json.dumps({"calls": [{"tool": "fails"}]}))
    outputs = []
    snap = cli("snapshot", "--out", "snap.json", "--protocol", "legacy", *server, cwd=tmp_path, env=env)
    assert snap.returncode == 0, snap.stderr
    outputs.append(snap.stdout + snap.stderr)
    snapshot = json.loads((tmp_path / "snap.json").read_text())
    assert snapshot["server"]["name"] in ("srv ***", "srv *** ***")
    assert snapshot["instructions"] in ("token is ***", "token is *** ***")
    for fmt in ("text", "json", "markdown", "sarif", "github", "junit"):
        r = cli(
            "probe",
            "--auto",
            "--calls",
            "calls.json",
            "--against",
            "snap.json",
            "--record",
            f"rec-{fmt}.json",
            "--format",
            fmt,
            "--output",
            f"report.{fmt}",
            "--protocol",
            "legacy",
            *server,
            cwd=tmp_path,
            env=env,
        )
        assert r.returncode == 1, r.stderr  # the echoed "leak" key breaks the tool's closed outputSchema
        assert "Traceback" not in r.stderr
        outputs.append(r.stdout + r.stderr)
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["new"]["server"]["name"] == snapshot["server"]["name"]
    assert any("***" in json.dumps(f.get("witness")) for f in report["findings"])
    recording = json.loads((tmp_path / "rec-json.json").read_text())
    echo = next(c for c in recording["calls"] if c["tool"] == "echo")
    sent = echo["result"]["structuredContent"]
    assert sent.keys() == {"a", "leak"} and sent["a"] in ("***", "*** ***")
    files = [p for p in tmp_path.iterdir() if p.is_file() and p.name not in ("scenario.json", "calls.json")]
    assert len(files) >= 13
    for text in [*outputs, *(p.read_text() for p in files)]:
        for secret in secrets:
            assert secret not in text


@pytest.mark.live
def test_stdio_server_echoing_an_env_value(tmp_path: Path) -> None:
    server = _scenario(tmp_path, _echo_scenario("$QA_TOKEN"))
    _probe_every_format(tmp_path, ["--env", f"QA_TOKEN={ENV_SECRET}", *server], [ENV_SECRET])


@pytest.mark.live
def test_everyday_settings_are_not_masked_in_the_listing(tmp_path: Path) -> None:
    """``-e MODE=info`` is a setting, not a credential: masking it would turn the listing's ``information`` into
    ``***rmation``. A credential under a neutral name is still masked by its shape, any value by its name."""
    scenario = _echo_scenario("$MODE information $OPAQUE $DB_PASSWORD")
    server = _scenario(tmp_path, scenario)
    r = cli(
        "snapshot",
        "--out",
        "s.json",
        "--protocol",
        "legacy",
        "--env",
        "MODE=info",
        "--env",
        "OPAQUE=a1b2c3d4e5",
        "--env",
        "DB_PASSWORD=hunter",
        *server,
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "s.json").read_text())["instructions"] == "token is info information *** ***"


@pytest.mark.live
def test_http_server_echoing_headers_and_url_credentials(tmp_path: Path, http_server_factory: Any) -> None:
    scenario = _echo_scenario("$HDR_X_API_KEY $HDR_AUTHORIZATION")
    (tmp_path / "scenario.json").write_text(json.dumps(scenario))
    server = http_server_factory(
        lambda port: [PYTHON, str(SCENARIO_SERVER), "--scenario", str(tmp_path / "scenario.json"), "--http", str(port)]
    )
    url = server.url("/mcp").replace("http://", f"http://user:{URL_PASSWORD}@")
    # URL credentials (sent as Basic auth) with a header; then a --header-env bearer token
    _probe_every_format(tmp_path, ["--url", url, "-H", f"X-Api-Key: {HDR_SECRET}"], [HDR_SECRET, URL_PASSWORD, BASIC])
    for p in tmp_path.glob("re*.*"):
        p.unlink()
    (tmp_path / "snap.json").unlink()
    _probe_every_format(
        tmp_path,
        ["--url", server.url("/mcp"), "--header-env", "Authorization=QA_BEARER", "-H", f"X-Api-Key: {HDR_SECRET}"],
        [HDR_SECRET, BEARER],
        env={"QA_BEARER": f"Bearer {BEARER}"},
    )


# ---- numbers JSON cannot hold (NaN, Infinity, 1e400) --------------------------------------------------------


@pytest.mark.live
@pytest.mark.parametrize(
    "raw, where",
    [
        (
            '{"tools": [{"name": "t", "inputSchema": {"type": "object", "properties": {"n": {"maximum": NaN}}}}]}',
            "tools/list result/tools/0/inputSchema/properties/n/maximum",
        ),
        (
            '{"tools": [{"name": "t", "inputSchema": {"type": "object", "default": 1e400}}]}',
            "tools/list result/tools/0/inputSchema/default",
        ),
        (
            '{"tools": [{"name": "t", "inputSchema": {"type": "object"}, "_meta": {"x": [-Infinity]}}]}',
            "tools/list result/tools/0/_meta/x/0",
        ),
    ],
)
def test_capture_refuses_non_json_numbers(tmp_path: Path, raw: str, where: str) -> None:
    server = _scenario(tmp_path, {"tools_raw": raw, "results": {}})
    for command in (["snapshot", "--out", "s.json"], ["probe", "--auto", "--format", "json"]):
        r = cli(*command, "--protocol", "legacy", *server, cwd=tmp_path)
        line = _one_line_error(r, 3)
        assert f"the server sent a non-JSON number (NaN/Infinity) at {where}" in line
        assert not (tmp_path / "s.json").exists() and r.stdout == ""


@pytest.mark.live
def test_probe_result_with_non_json_numbers_is_a_finding_in_valid_json(tmp_path: Path) -> None:
    tools = [
        {"name": n, "inputSchema": OPEN, "outputSchema": ECHO_OUT, "annotations": {"readOnlyHint": True}}
        for n in ("nan", "big", "ok")
    ]
    results = {
        "nan": {"$raw": '{"content": [], "structuredContent": {"a": "x", "n": NaN}}'},
        "big": {"$raw": '{"content": [], "structuredContent": {"a": "x", "n": [1e400]}}'},
        "ok": {"content": [{"type": "text", "text": '{"a": "x"}'}], "structuredContent": {"a": "x"}},
    }
    server = _scenario(tmp_path, {"tools": tools, "results": results})
    for fmt in ("json", "sarif", "text", "markdown", "junit", "github"):
        r = cli(
            "probe",
            "--auto",
            "--record",
            f"rec-{fmt}.json",
            "--format",
            fmt,
            "--protocol",
            "legacy",
            *server,
            cwd=tmp_path,
        )
        assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr  # result-malformed is breaking
        if fmt in ("json", "sarif"):
            json.loads(r.stdout, parse_constant=lambda c, fmt=fmt: pytest.fail(f"{c} in the {fmt} report"))
        recording = (tmp_path / f"rec-{fmt}.json").read_text()
        json.loads(recording, parse_constant=lambda c: pytest.fail(f"{c} in the recording"))
    run = cli("probe", "--auto", "--format", "json", "--protocol", "legacy", *server, cwd=tmp_path)
    report = json.loads(run.stdout)
    calls = {c["id"]: c for c in report["calls"]}
    assert calls["nan"]["outcome"] == calls["big"]["outcome"] == "not-json" and calls["ok"]["outcome"] == "result"
    assert calls["big"]["message"] == "the server sent a non-JSON number (NaN/Infinity) at result/structuredContent/n/0"
    malformed = {f["tool"]: f for f in report["findings"] if f["rule"] == "result-malformed"}
    assert set(malformed) == {"nan", "big"} and malformed["nan"]["severity"] == "breaking"
    assert "non-JSON number (NaN/Infinity) at result/structuredContent/n" in malformed["nan"]["message"]
    replay = cli("probe", "--replay", "rec-json.json", "--format", "json", cwd=tmp_path)
    assert replay.returncode == 1, replay.stderr
    replayed = json.loads(replay.stdout)["findings"]
    assert {f["tool"] for f in replayed if f["rule"] == "result-malformed"} == {"nan", "big"}


@pytest.mark.live
def test_error_message_about_an_echoed_listing_masks_the_secret(tmp_path: Path) -> None:
    tools = [{"name": "t$QA_TOKEN", "inputSchema": OPEN}, {"name": "t$QA_TOKEN", "inputSchema": OPEN}]
    server = _scenario(tmp_path, {"echo": True, "tools": tools, "results": {}})
    r = cli(
        "snapshot", "--out", "s.json", "--protocol", "legacy", "--env", f"QA_TOKEN={ENV_SECRET}", *server, cwd=tmp_path
    )
    line = _one_line_error(r, 3)
    assert "duplicate tool name 't***'" in line
    assert ENV_SECRET not in r.stdout + r.stderr and not (tmp_path / "s.json").exists()


_NUMBER_ECHO = r"""
import json, os, sys
token = os.environ["API_TOKEN"]
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    if msg["method"] == "initialize":
        result = {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
                  "serverInfo": {"name": "echo", "version": "1"}}
        raw = json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result})
    elif msg["method"] == "tools/list":  # the credential echoed back as numbers, spelled as floats
        arg = '{"type": "integer", "const": 1e20, "default": 100000000000000000000.0, "examples": [1.0E+20, %s, 7]}'
        raw = '{"jsonrpc": "2.0", "id": %s, "result": {"tools": [{"name": "t", "inputSchema": {"type": "object", ' \
              '"properties": {"n": %s}}}]}}' % (json.dumps(msg["id"]), arg % token)
    else:
        raw = json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {}})
    sys.stdout.write(raw + "\n")
    sys.stdout.flush()
"""


@pytest.mark.live
def test_a_numeric_credential_echoed_back_as_a_float_is_masked(tmp_path: Path) -> None:
    """``-e API_TOKEN=100000000000000000000`` sent back as ``1e20``, ``100000000000000000000.0``, ``1.0E+20``:
    each is the secret's value, so each is masked (was: stored as ``1e+20``, only the integer literal masked)."""
    (tmp_path / "echo.py").write_text(_NUMBER_ECHO)
    r = cli(
        "snapshot",
        "--out",
        "s.json",
        "--env",
        "API_TOKEN=100000000000000000000",
        "--",
        PYTHON,
        str(tmp_path / "echo.py"),
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "s.json").read_text()
    arg = json.loads(text)["tools"][0]["inputSchema"]["properties"]["n"]
    assert (arg["const"], arg["default"], arg["examples"]) == ("***", "***", ["***", "***", 7])
    assert "e+20" not in text.lower() and "100000000000000000000" not in text


_CASE_ECHO = _NUMBER_ECHO.replace(
    """arg = '{"type": "integer", "const": 1e20, "default": 100000000000000000000.0, "examples": [1.0E+20, %s, 7]}'""",
    """arg = json.dumps({"type": "string", "examples": [token.upper(), token[::-1], "id " + token.lower()]})""",
).replace("arg % token", "arg")


@pytest.mark.live
def test_a_credential_echoed_back_in_another_case_or_reversed_is_masked(tmp_path: Path) -> None:
    """``-e API_TOKEN=Zq7xK9pLm2Wv`` sent back upper-cased, reversed and lower-cased inside a text: each is
    masked (an attack round found them stored)."""
    (tmp_path / "echo.py").write_text(_CASE_ECHO)
    r = cli("snapshot", "--out", "s.json", "--env", "API_TOKEN=Zq7xK9pLm2Wv", "--", PYTHON, "echo.py", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "s.json").read_text()
    arg = json.loads(text)["tools"][0]["inputSchema"]["properties"]["n"]
    assert arg["examples"] == ["***", "***", "id ***"], arg
    assert "zq7xk9plm2wv" not in text.lower() and "vw2mlp9kx7qz" not in text.lower()
