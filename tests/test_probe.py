"""``schema-audit probe`` live: a real server (``tests/servers/scenario_server.py``, raw JSON-RPC, exact bytes) over
stdio and Streamable HTTP, the real CLI as a subprocess; every finding, ``--auto``, ``--dry-run``,
``--record``/``--replay``, ``diff``/``history --samples``, hostile results and secrets.

Servers and probe runs are shared per module (one stdio run, one HTTP run); each test reads what it needs.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import timing
from conftest import PYTHON, ROOT, SERVERS, ServerProcess
from timing import Timing

from mcp_schema_audit.snapshot import canonical_json

#: one worker runs this module under pytest-xdist, so its module-scoped servers and probe runs start once
pytestmark = pytest.mark.xdist_group("probe-live")
SCENARIO_SERVER = SERVERS / "scenario_server.py"
CANARY = "canary-5e1d7c9a3b"
OPEN_A = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
CLOSED_A = {**OPEN_A, "additionalProperties": False}
ALL = ["python-sdk", "ts-sdk-v1", "ts-sdk-v2"]


def _tool(
    name: str, out: Any = None, *, inp: Any = None, read_only: bool | None = None, destructive: bool | None = None
) -> dict[str, Any]:
    tool: dict[str, Any] = {
        "name": name,
        "description": f"{name} tool",
        "inputSchema": inp or {"type": "object", "properties": {}},
    }
    if out is not None:
        tool["outputSchema"] = out
    annotations = {k: v for k, v in (("readOnlyHint", read_only), ("destructiveHint", destructive)) if v is not None}
    if annotations:
        tool["annotations"] = annotations
    return tool


def _result(structured: Any = ..., *, text: bool = True, is_error: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"content": []}
    if structured is not ...:
        out["structuredContent"] = structured
        if text:
            out["content"] = [{"type": "text", "text": json.dumps(structured)}]
    else:
        out["content"] = [{"type": "text", "text": "done"}]
    if is_error:
        out["isError"] = True
    return out


ENUM_NOW = {"type": "object", "properties": {"s": {"type": "string", "enum": ["a", "b", "c"]}}, "required": ["s"]}
ENUM_V0 = {"type": "object", "properties": {"s": {"type": "string", "enum": ["a", "b"]}}, "required": ["s"]}
AT = {"type": "object", "properties": {"at": {"type": "string", "format": "date-time"}}, "required": ["at"]}

TOOLS = [
    _tool("closed_extra", CLOSED_A, read_only=True),
    _tool("ok_tool", OPEN_A, read_only=True),
    _tool("no_sc", OPEN_A),
    _tool("format_bad", AT, read_only=True),
    _tool("error_sc", OPEN_A),
    _tool("no_text", OPEN_A, read_only=True),
    _tool("rpc_err", OPEN_A),
    _tool("slow", OPEN_A),
    _tool("enum_new", ENUM_NOW, read_only=True),
    _tool("array_sc", OPEN_A),
    _tool("destructive", OPEN_A, read_only=True, destructive=True),
    _tool(
        "needs_arg",
        OPEN_A,
        read_only=True,
        inp={"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
    ),
    _tool(
        "const_arg",
        OPEN_A,
        read_only=True,
        inp={"type": "object", "properties": {"mode": {"type": "string", "enum": ["fast"]}}, "required": ["mode"]},
    ),
    _tool("writer", OPEN_A),
    _tool("echo_env", OPEN_A, read_only=True),
]
RESULTS = {
    "closed_extra": _result({"a": "x", "svc": {"region": "eu-1"}}),
    "ok_tool": _result({"a": "x"}),
    "no_sc": _result(),
    "format_bad": _result({"at": "2026-01-01T10:00:00"}),
    "error_sc": _result({"a": 5}, is_error=True),
    "no_text": _result({"a": "x"}, text=False),
    "rpc_err": {"$error": {"code": -32603, "message": "backend down for token $SECRET_TOKEN"}},
    "slow": {"$sleep": 4, "result": _result({"a": "late"})},  # later than CALL_TIMEOUT, however busy the machine
    "enum_new": _result({"s": "c"}),
    "array_sc": {"content": [{"type": "text", "text": "[1, 2]"}], "structuredContent": [1, 2]},
    "destructive": _result({"a": "x"}),
    "needs_arg": _result({"a": "x"}),
    "const_arg": _result({"a": "x"}),
    "writer": _result({"a": "x"}),
    # a server that echoes its secret (an env value over stdio; the same env value, sent as a header, over HTTP)
    "echo_env": {"$expand": _result({"a": "token $SECRET_TOKEN", "$SECRET_TOKEN": 1})},
}
#: --call-timeout of the scenario runs: shorter than the slow tool's 4 s pause (a sleep only gets longer on a busy
#: machine), and ample for every other answer there (a few milliseconds on an idle machine)
CALL_TIMEOUT = "3"
CALLS = {
    "calls": [
        {"tool": "no_sc"},
        {"tool": "error_sc"},
        {"tool": "rpc_err"},
        {"tool": "slow"},
        {"tool": "array_sc"},
        {"tool": "writer", "arguments": {"a": 1}, "id": "w1"},
    ]
}
AUTO_CALLED = {"closed_extra", "ok_tool", "format_bad", "no_text", "enum_new", "const_arg", "echo_env"}
# (rule, tool) → hosts (None: not a host-confirmed finding)
EXPECTED = {
    ("result-violates-own-schema", "closed_extra"): ALL,
    ("result-missing-structured-content", "no_sc"): ALL,
    ("result-violates-own-schema", "format_bad"): ["ts-sdk-v1", "ts-sdk-v2"],
    ("result-violates-own-schema", "error_sc"): ["ts-sdk-v1"],
    ("call-tool-error", "error_sc"): [],
    ("result-text-missing", "no_text"): [],
    ("call-rpc-error", "rpc_err"): [],
    ("call-timeout", "slow"): [],
    ("result-rejected-by-cached-schema", "enum_new"): ALL,
    ("result-malformed", "array_sc"): ALL,
}


MEMORY_LIMIT = 3 * 1024**3  #: RLIMIT_AS of a hostile run (bytes of address space), as in test_hostile.py


def _limit_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _run_args(env: dict[str, str] | None, limit_memory: bool) -> dict[str, Any]:
    full = {k: v for k, v in os.environ.items() if k != "SCHEMA_AUDIT_DEBUG"}
    full.update({"NO_COLOR": "1", "PYTHONPATH": str(ROOT)}, **(env or {}))
    return {"env": full, "stdin": subprocess.DEVNULL, "preexec_fn": _limit_memory if limit_memory else None}


def cli(
    *args: str, cwd: Path, timeout: float = 90, env: dict[str, str] | None = None, limit_memory: bool = False
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PYTHON, "-m", "mcp_schema_audit", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
        **_run_args(env, limit_memory),
    )


def cli_timed(
    *args: str, cwd: Path, timeout: float = 90, env: dict[str, str] | None = None, limit_memory: bool = False
) -> tuple[subprocess.CompletedProcess[str], Timing]:
    """``cli`` and the run's ``Timing`` (its duration less its waits for a CPU: ``tests/timing.py``)."""
    return timing.run(
        [PYTHON, "-m", "mcp_schema_audit", *args], text=True, cwd=cwd, timeout=timeout, **_run_args(env, limit_memory)
    )


def _calls_made(log: Path) -> list[str]:
    if not log.exists():
        return []
    return [json.loads(ln)["tool"] for ln in log.read_text().splitlines() if json.loads(ln)["method"] == "tools/call"]


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the scenario, the calls file and the cached version v0 (a snapshot file)."""
    folder = tmp_path_factory.mktemp("probe")
    (folder / "scenario.json").write_text(
        json.dumps({"name": "scenario", "version": "1.0.0", "tools": TOOLS, "results": RESULTS})
    )
    (folder / "calls.json").write_text(json.dumps(CALLS))
    cached = [t if t["name"] != "enum_new" else {**t, "outputSchema": ENUM_V0} for t in TOOLS]
    (folder / "v0.json").write_text(json.dumps({"tools": cached, "serverInfo": {"name": "scenario", "version": "0.9"}}))
    return folder


def _server(work: Path, log: str) -> list[str]:
    return ["--", PYTHON, str(SCENARIO_SERVER), "--scenario", str(work / "scenario.json"), "--log", str(work / log)]


@pytest.fixture(scope="module")
def stdio_run(work: Path) -> dict[str, Any]:
    """One probe over stdio: calls file + --auto, against v0, recorded; the server's env holds a secret."""
    r = cli(
        "probe",
        "--calls",
        "calls.json",
        "--auto",
        "--against",
        "v0.json",
        "--record",
        "rec.json",
        "--call-timeout",
        CALL_TIMEOUT,
        "--format",
        "json",
        "--env",
        f"SECRET_TOKEN={CANARY}",
        *_server(work, "stdio.log"),
        cwd=work,
    )
    return {"r": r, "log": work / "stdio.log"}


@pytest.fixture(scope="module")
def http_run(work: Path, http_server_factory: Any) -> dict[str, Any]:
    """The same probe over Streamable HTTP (a header carries a secret)."""
    log = work / "http.log"
    server: ServerProcess = http_server_factory(
        lambda port: [
            PYTHON,
            str(SCENARIO_SERVER),
            "--scenario",
            str(work / "scenario.json"),
            "--http",
            str(port),
            "--log",
            str(log),
        ],
        env={"SECRET_TOKEN": CANARY},
    )
    r = cli(
        "probe",
        "--calls",
        "calls.json",
        "--auto",
        "--against",
        "v0.json",
        "--call-timeout",
        CALL_TIMEOUT,
        "--format",
        "json",
        "--url",
        server.url("/mcp"),
        "--header",
        f"Authorization: Bearer {CANARY}",
        cwd=work,
    )
    return {"r": r, "log": log}


def _findings(report: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(f["rule"], f["tool"]): f for f in report["findings"]}


# ---- every finding, stdio and Streamable HTTP -----------------------------------------------------------


@pytest.mark.live
@pytest.mark.parametrize("run", ["stdio_run", "http_run"])
def test_every_finding(run: str, request: pytest.FixtureRequest) -> None:
    r = request.getfixturevalue(run)["r"]
    assert r.returncode == 1, r.stderr  # breaking findings: the gate fails
    assert "Traceback" not in r.stderr
    report = json.loads(r.stdout)
    assert report["kind"] == "probe" and "old" not in report
    assert [c["label"] for c in report["cached"]] == ["v0"]
    got = _findings(report)
    assert {k: v["hosts"] for k, v in got.items()} == EXPECTED, sorted(got)
    own = got[("result-violates-own-schema", "closed_extra")]
    assert own["severity"] == "breaking" and own["pointer"] == "/additionalProperties"
    w = own["witness"]
    assert w["instance"] == {"a": "x", "svc": {"region": "eu-1"}}  # the real structuredContent
    assert w["accepted_by"] == "server" and w["call"] == "closed_extra" and w["source"] == "probe"
    assert w["errors"]["python-sdk"] == (
        "RuntimeError: Invalid structured content returned by tool closed_extra: "
        "Additional properties are not allowed ('svc' was unexpected)"
    )
    assert w["errors"]["ts-sdk-v1"] == (
        "MCP error -32602: Structured content does not match the tool's output "
        "schema: data must NOT have additional properties"
    )
    fmt = got[("result-violates-own-schema", "format_bad")]
    assert fmt["pointer"] == "/properties/at/format" and 'must match format "date-time"' in fmt["witness"]["error"]
    cached = got[("result-rejected-by-cached-schema", "enum_new")]
    assert cached["witness"]["cohorts"] == ["v0"] and cached["witness"]["instance"] == {"s": "c"}
    assert cached["pointer"] == "/properties/s/enum" and "v0" in cached["message"]
    assert got[("result-text-missing", "no_text")]["severity"] == "warning"
    for key in (("call-tool-error", "error_sc"), ("call-rpc-error", "rpc_err"), ("call-timeout", "slow")):
        assert got[key]["severity"] == "info"
    assert "JSON-RPC error -32603: backend down for token ***" in got[("call-rpc-error", "rpc_err")]["message"]
    calls = {c["id"]: c for c in report["calls"]}
    assert calls["slow"]["outcome"] == "timeout" and calls["rpc_err"]["outcome"] == "rpc-error"
    assert calls["error_sc"]["outcome"] == "tool-error" and calls["w1"]["outcome"] == "result"
    assert calls["array_sc"]["outcome"] == "result" and calls["array_sc"]["structured"] is True
    assert CANARY not in r.stdout and CANARY not in r.stderr


@pytest.mark.live
def test_stdio_and_http_agree(stdio_run: dict[str, Any], http_run: dict[str, Any]) -> None:
    a, b = json.loads(stdio_run["r"].stdout), json.loads(http_run["r"].stdout)
    assert [(f["rule"], f["tool"], f["pointer"], f["fingerprint"]) for f in a["findings"]] == [
        (f["rule"], f["tool"], f["pointer"], f["fingerprint"]) for f in b["findings"]
    ]
    assert a["new"]["protocol_version"] == b["new"]["protocol_version"] == "2025-11-25"


@pytest.mark.live
def test_auto_calls_only_what_is_listed_or_safe(stdio_run: dict[str, Any], http_run: dict[str, Any]) -> None:
    listed = {c["tool"] for c in CALLS["calls"]}
    for run in (stdio_run, http_run):
        made = _calls_made(run["log"])
        assert set(made) == listed | AUTO_CALLED and len(made) == len(listed) + len(AUTO_CALLED), made
        assert "destructive" not in made and "needs_arg" not in made
    logged = [json.loads(ln) for ln in stdio_run["log"].read_text().splitlines()]
    args = {e["tool"]: e["arguments"] for e in logged if e["method"] == "tools/call"}
    assert args["const_arg"] == {"mode": "fast"} and args["w1" if "w1" in args else "writer"] == {"a": 1}
    assert args["closed_extra"] == {}


@pytest.mark.live
def test_dry_run_prints_the_plan_and_calls_nothing(work: Path) -> None:
    r = cli(
        "probe", "--calls", "calls.json", "--auto", "--dry-run", "--format", "json", *_server(work, "dry.log"), cwd=work
    )
    assert r.returncode == 0, r.stderr
    plan = json.loads(r.stdout)
    assert [c["tool"] for c in plan["calls"]][: len(CALLS["calls"])] == [c["tool"] for c in CALLS["calls"]]
    assert {c["tool"] for c in plan["calls"]} == {c["tool"] for c in CALLS["calls"]} | AUTO_CALLED
    auto = {c["tool"]: c for c in plan["calls"] if c["why"].startswith("--auto")}
    assert (
        auto["const_arg"]["arguments"] == {"mode": "fast"}
        and "mode from its only enum value" in auto["const_arg"]["why"]
    )
    skipped = {s["tool"]: s["why"] for s in plan["skipped"]}
    assert skipped["destructive"] == "annotated destructiveHint: true"
    assert skipped["needs_arg"].startswith("required argument 'id' has no const")
    assert set(skipped) == {"destructive", "needs_arg"}  # tools the calls file calls are not --auto's to skip
    assert _calls_made(work / "dry.log") == []  # listed, never called
    text = cli("probe", "--auto", "--dry-run", *_server(work, "dry2.log"), cwd=work)
    assert text.returncode == 0 and text.stdout.startswith("probe plan (dry run, nothing is called): 7 calls")
    assert "  rpc_err: not annotated readOnlyHint: true" in text.stdout
    assert _calls_made(work / "dry2.log") == []


# ---- recordings ------------------------------------------------------------------------------------------


@pytest.mark.live
def test_record_holds_the_listing_and_raw_results_and_replays_without_a_server(
    work: Path, stdio_run: dict[str, Any]
) -> None:
    text = (work / "rec.json").read_text(encoding="utf-8")
    assert text == canonical_json(json.loads(text))  # canonical JSON
    assert CANARY not in text  # env values never stored (the server's error echoed it: scrubbed)
    rec = json.loads(text)
    assert rec["format"] == "schema-audit/probe-recording" and rec["format_version"] == 1
    assert [t["name"] for t in rec["tools"]] == sorted(t["name"] for t in TOOLS)
    by_id = {c["id"]: c for c in rec["calls"]}
    assert by_id["closed_extra"]["result"] == RESULTS["closed_extra"]  # raw, exactly as sent
    assert by_id["array_sc"]["result"]["structuredContent"] == [1, 2] and "sdk_error" in by_id["array_sc"]
    assert by_id["rpc_err"]["outcome"] == "rpc-error" and by_id["slow"]["outcome"] == "timeout"
    assert by_id["w1"]["arguments"] == {"a": 1}
    echoed = by_id["echo_env"]["result"]["structuredContent"]  # the server echoed its secret: scrubbed
    assert echoed == {"a": "token ***", "***": 1}
    # replay: no server; the same verdicts; a newer --against adds nothing for enum_new (it caches a, b, c)
    live = json.loads(stdio_run["r"].stdout)
    r = cli("probe", "--replay", "rec.json", "--against", "v0.json", "--format", "json", cwd=work)
    assert r.returncode == 1, r.stderr
    again = json.loads(r.stdout)
    assert [f["fingerprint"] for f in again["findings"]] == [f["fingerprint"] for f in live["findings"]]
    (work / "v1.json").write_text(json.dumps({"tools": TOOLS}))
    r = cli("probe", "--replay", "rec.json", "--against", "v1.json", "--format", "json", cwd=work)
    rules = {(f["rule"], f["tool"]) for f in json.loads(r.stdout)["findings"]}
    assert ("result-rejected-by-cached-schema", "enum_new") not in rules
    assert ("result-violates-own-schema", "closed_extra") in rules
    # a cached version that has none of the answering tools checks nothing: the report says so
    (work / "other.json").write_text(
        json.dumps({"tools": [{"name": "ping", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}}]})
    )
    r = cli("probe", "--replay", "rec.json", "--against", "other.json", "--format", "json", cwd=work)
    notes = json.loads(r.stdout)["notes"]
    assert any(
        n.startswith("no result was checked against --against other: none of the tools that answered (") for n in notes
    ), notes
    r = cli("probe", "--replay", "rec.json", "--against", "v1.json", "--format", "json", cwd=work)
    assert not any("no result was checked" in n for n in json.loads(r.stdout)["notes"])


@pytest.mark.live
def test_samples_in_diff_and_history(work: Path, stdio_run: dict[str, Any]) -> None:
    (work / "now.json").write_text(json.dumps({"tools": TOOLS, "serverInfo": {"name": "scenario", "version": "1.0.0"}}))
    # v0 -> now: the schema comparison finds the enum value; the recording proves it with a real payload
    r = cli("diff", "v0.json", "now.json", "--samples", "rec.json", "--format", "json", cwd=work)
    assert r.returncode == 1, r.stderr
    got = _findings(json.loads(r.stdout))
    sample = got[("result-rejected-by-cached-schema", "enum_new")]
    assert sample["witness"]["instance"] == {"s": "c"} and sample["witness"]["source"] == "samples"
    assert ("output-enum-value-added", "enum_new") in got
    # a result the schemas alone cannot see: the server breaks its own closed schema
    assert got[("result-violates-own-schema", "closed_extra")]["hosts"] == ALL
    assert not any(k[0].startswith("call-") for k in got)  # call outcomes are the probe's, not evidence
    # even where the comparison finds nothing: now -> now
    same = _findings(
        json.loads(cli("diff", "now.json", "now.json", "--samples", "rec.json", "--format", "json", cwd=work).stdout)
    )
    assert set(same) == {
        ("result-violates-own-schema", "closed_extra"),
        ("result-violates-own-schema", "format_bad"),
        ("result-violates-own-schema", "error_sc"),
        ("result-missing-structured-content", "no_sc"),
        ("result-malformed", "array_sc"),
    }
    hist = cli("history", "now.json", "--against", "v0.json", "--samples", "rec.json", "--format", "json", cwd=work)
    assert hist.returncode == 1, hist.stderr
    data = json.loads(hist.stdout)
    grouped = {(g["rule"], g["tool"]): g for g in data["findings"]}
    assert grouped[("result-rejected-by-cached-schema", "enum_new")]["cohorts"] == {"v0": "breaking"}
    assert data["matrix"]["closed_extra"]["v0"] == "breaking"
    # the recording holds results of NEW: forward mode has nothing to check
    fwd = cli("diff", "v0.json", "now.json", "--samples", "rec.json", "--mode", "forward", cwd=work)
    assert fwd.returncode == 2 and "does not apply to --mode forward" in fwd.stderr


# ---- hostile results, failures, usage ------------------------------------------------------------------


UNIQUE_ITEMS = {"type": "object", "properties": {"a": {"type": "array", "uniqueItems": True}}}
HOSTILE_TOOLS = [_tool(name, OPEN_A) for name in ("huge", "deep", "deep300", "garbage", "fine")]
# deep300: JSON Python reads but the SDK's parser refuses (recursion limit): a call timeout too, not exit 3
HOSTILE_RESULTS = {
    "huge": {"$huge_mb": 20},
    "deep": {"$deep": 100000},
    "deep300": {"$deep": 300},
    "garbage": {"$garbage": True},
    "fine": _result({"a": "x"}),
}


@pytest.mark.timing
@pytest.mark.live
def test_hostile_results_are_bounded_findings(work: Path) -> None:
    (work / "hostile.json").write_text(json.dumps({"tools": HOSTILE_TOOLS, "results": HOSTILE_RESULTS}))
    (work / "hostile-calls.json").write_text(json.dumps({"calls": [{"tool": t["name"]} for t in HOSTILE_TOOLS]}))
    r, timed = cli_timed(
        "probe",
        "--calls",
        "hostile-calls.json",
        "--call-timeout",
        CALL_TIMEOUT,  # "fine" must answer within it after the 20 MB result, on a busy machine too
        "--timeout",
        "60",
        "--format",
        "json",
        "--record",
        "hostile-rec.json",
        "--",
        PYTHON,
        str(SCENARIO_SERVER),
        "--scenario",
        "hostile.json",
        cwd=work,
        timeout=120,
        limit_memory=True,
    )
    assert r.returncode == 0, r.stderr  # info and warning findings only: the gate passes
    # five calls, each answered or cut at --call-timeout: bounded (less the waits for a CPU: tests/timing.py)
    assert "Traceback" not in r.stderr and timed.unloaded() < 45, timed.describe()
    calls = {c["id"]: c for c in json.loads(r.stdout)["calls"]}
    assert calls["huge"]["outcome"] in ("too-large", "timeout")
    assert calls["deep"]["outcome"] == "timeout" and calls["garbage"]["outcome"] == "timeout"
    assert calls["deep300"]["outcome"] == "timeout"
    assert "not JSON-RPC" in calls["garbage"]["message"]
    assert calls["fine"]["outcome"] == "result"  # the connection survived
    assert (work / "hostile-rec.json").stat().st_size < 1_000_000  # nothing huge was recorded


@pytest.mark.live
def test_a_large_unique_items_result_is_checked_at_once(work: Path) -> None:
    """20,000 distinct objects (0.4 MB) under ``uniqueItems``, and the same with one repeat: jsonschema's own
    pairwise check took many minutes (and no --timeout stopped it); the host profiles' check is linear."""
    items = [{"i": k, "j": [k]} for k in range(20_000)]
    tools = [_tool("uniq", UNIQUE_ITEMS, read_only=True), _tool("twice", UNIQUE_ITEMS, read_only=True)]
    results = {"uniq": _result({"a": items}), "twice": _result({"a": [*items, {"j": [7], "i": 7.0}]})}
    (work / "uniq.json").write_text(json.dumps({"tools": tools, "results": results}))
    r = cli(
        "probe",
        "--auto",
        "--format",
        "json",
        "--timeout",
        "60",
        "--",
        PYTHON,
        str(SCENARIO_SERVER),
        "--scenario",
        "uniq.json",
        cwd=work,
        timeout=120,
    )
    assert r.returncode == 1, r.stderr  # "twice" breaks its own schema: the gate fails
    found = {(f["rule"], f["tool"]) for f in json.loads(r.stdout)["findings"]}
    assert ("result-violates-own-schema", "twice") in found  # {"i": 7.0, "j": [7]} repeats item 7
    assert not {f for f in found if f[1] == "uniq"}


@pytest.mark.live
def test_server_that_exits_mid_call_is_exit_3(work: Path) -> None:
    (work / "exit.json").write_text(
        json.dumps({"tools": [_tool("boom", OPEN_A)], "results": {"boom": {"$exit": True}}})
    )
    (work / "exit-calls.json").write_text(json.dumps({"calls": [{"tool": "boom"}]}))
    r = cli(
        "probe",
        "--calls",
        "exit-calls.json",
        "--record",
        "exit-rec.json",
        "--",
        PYTHON,
        str(SCENARIO_SERVER),
        "--scenario",
        "exit.json",
        cwd=work,
    )
    assert r.returncode == 3, r.stderr
    errors = [ln for ln in r.stderr.splitlines() if ln.startswith("schema-audit: error:")]
    assert len(errors) == 1 and "tools/call 'boom'" in errors[0], r.stderr
    assert "Traceback" not in r.stderr and not (work / "exit-rec.json").exists()


@pytest.mark.live
def test_a_call_of_an_unlisted_tool_is_a_finding_for_that_call(work: Path) -> None:
    """One calls file for two releases: a tool the server does not list is not called, and that call is an info
    finding (exit 2 before); a calls file that names no listed tool at all is still exit 2 with nothing called."""
    (work / "typo.json").write_text(json.dumps({"calls": [{"tool": "ok_tool"}, {"tool": "okk_tool"}]}))
    r = cli("probe", "--calls", "typo.json", "--format", "json", *_server(work, "typo.log"), cwd=work)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert _calls_made(work / "typo.log") == ["ok_tool"]
    assert [(c["id"], c["outcome"], c["checked"]) for c in data["calls"]] == [
        ("ok_tool", "result", True),
        ("okk_tool", "not-listed", False),
    ]
    [f] = [f for f in data["findings"] if f["tool"] == "okk_tool"]
    assert f["rule"] == "call-tool-not-listed" and f["severity"] == "info"
    assert f["message"].endswith("call okk_tool not made: the server does not list tool 'okk_tool'"), f["message"]
    text = cli("probe", "--calls", "typo.json", *_server(work, "typo.log"), cwd=work).stdout
    assert "2 calls planned, 1 made, 1 checked" in text and "okk_tool: not called: the server does not list" in text
    (work / "typos.json").write_text(json.dumps({"calls": [{"tool": "okk_tool"}, {"tool": "nope"}]}))
    r = cli("probe", "--calls", "typos.json", *_server(work, "typos.log"), cwd=work)
    assert r.returncode == 2 and "names no tool the server lists" in r.stderr and "'nope', 'okk_tool'" in r.stderr
    assert _calls_made(work / "typos.log") == []


@pytest.mark.parametrize(
    "args, message",
    [
        (["probe", "--", "x"], "nothing to call: give --calls FILE and/or --auto"),
        (["probe", "--auto"], "give a server to probe"),
        (["probe", "--replay", "rec.json", "--auto"], "--auto does not apply to --replay"),
        (
            ["probe", "--replay", "rec.json", "--url", "http://127.0.0.1:9/mcp"],
            "--replay checks a recording without a server",
        ),
        (["probe", "--auto", "--against", "no-such-label", "--", "x"], "no snapshot 'no-such-label'"),
        (["probe", "--calls", "bad-calls.json", "--", "x"], "bad-calls.json: calls[0]: unknown key 'tol'"),
        (["probe", "--replay", "calls.json"], "not a probe recording"),
        (["probe", "--auto", "--dry-run", "--format", "sarif", "--", "x"], "--format must be one of text, json"),
    ],
)
def test_usage_errors_are_exit_2(work: Path, args: list[str], message: str) -> None:
    (work / "bad-calls.json").write_text(json.dumps({"calls": [{"tol": "x"}]}))
    r = cli(*args, cwd=work)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


@pytest.mark.live
def test_demo_shows_snapshot_diff_and_probe(tmp_path: Path) -> None:
    r = cli("demo", cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr  # --fail-on never
    out = r.stdout
    assert "schema-audit diff: v1 (demo-mail 1.0.0) -> v2 (demo-mail 2.0.0)" in out
    assert "schema-audit probe: v2 (demo-mail 2.0.0), 4 calls" in out
    assert "breaking mailbox_stats output /additionalProperties  [result-violates-own-schema]" in out
    assert "breaking get_message output /additionalProperties  [result-rejected-by-cached-schema]" in out
    assert "Additional properties are not allowed ('served_by', 'took_ms' were unexpected)" in out
    # the progress lines are snapshot's, check's and probe's own (one wording for the first hour)
    assert "v1: capturing from python -m mcp_schema_audit.demo_server.mail_server --version 1 …" in r.stderr
    assert "v1: 7 tools, 0 prompts, 0 resources, 0 resource templates, 2026-07-28; " in r.stderr, r.stderr
    assert "v2: probing python -m mcp_schema_audit.demo_server.mail_server --version 2 (--auto, against v1)" in r.stderr
    # the tools --auto did not call, each with why and what to add
    assert "4 calls made, 4 checked against an outputSchema; --auto left out 2 tools" in r.stderr, r.stderr
    assert "note: --auto left out send_message: not annotated readOnlyHint: true; add:" in out
    assert "note: --auto left out list_messages: required argument 'folder'" in out


@pytest.mark.live
def test_a_result_over_the_size_limit_is_neither_checked_nor_kept(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp_schema_audit.capture import CaptureTarget, calls
    from mcp_schema_audit.probe import call_summary

    (work / "big.json").write_text(json.dumps({"tools": [_tool("big", OPEN_A)], "results": {"big": {"$huge_mb": 2}}}))
    monkeypatch.setattr(calls, "MAX_RESULT_CHARS", 1024 * 1024)
    target = CaptureTarget("stdio", command=[PYTHON, str(SCENARIO_SERVER), "--scenario", str(work / "big.json")])
    _listing, _planned, records = calls.probe_server(
        target, lambda _: [calls.PlannedCall("big", "big")], label="big", timeout_s=60, call_timeout_s=30
    )
    assert records[0]["outcome"] == "too-large" and "result" not in records[0]
    assert records[0]["chars"] > 2 * 1024 * 1024 and call_summary(records[0])["outcome"] == "too-large"


@pytest.mark.live
def test_policy_applies_to_probe_findings(work: Path, stdio_run: dict[str, Any]) -> None:
    """--host, --severity, [[ignore]] and --fail-on work on a probe as on a diff (here on the recording)."""
    r = cli("probe", "--replay", "rec.json", "--host", "python-sdk", "--format", "json", cwd=work)
    got = _findings(json.loads(r.stdout))
    fmt = got[("result-violates-own-schema", "format_bad")]
    assert fmt["severity"] == "info" and "not selected by --host" in fmt["reason"]  # only TS hosts check formats
    own = got[("result-violates-own-schema", "closed_extra")]
    (work / "policy.toml").write_text(
        f'[severity]\n"result-text-missing" = "info"\n\n[[ignore]]\n'
        f'fingerprint = "{own["fingerprint"]}"\nreason = "svc metadata is being removed"\n'
    )
    r = cli("probe", "--replay", "rec.json", "--config", "policy.toml", "--format", "json", cwd=work)
    data = json.loads(r.stdout)
    assert [i["finding"]["tool"] for i in data["ignored"]] == ["closed_extra"]
    assert _findings(data)[("result-text-missing", "no_text")]["severity"] == "info"
    assert cli("probe", "--replay", "rec.json", "--fail-on", "never", cwd=work).returncode == 0
    ignore = cli("probe", "--replay", "rec.json", "--against", "v0.json", "--format", "ignore", cwd=work)
    assert ignore.returncode == 0 and ignore.stdout.count("[[ignore]]") == len(
        json.loads(stdio_run["r"].stdout)["findings"]
    )


# ---- a probe that checked nothing never passes silently -------------------------------------------------


@pytest.mark.live
def test_auto_with_no_eligible_tool_warns_that_nothing_was_checked(work: Path) -> None:
    """No tool is annotated readOnlyHint: --auto calls nothing; the report says 0 calls and warns with next steps."""
    tools = [
        _tool("writer", OPEN_A),
        _tool(
            "needs",
            OPEN_A,
            read_only=True,
            inp={"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
        ),
    ]
    (work / "none.json").write_text(json.dumps({"tools": tools, "results": {"writer": _result({"a": "x"})}}))
    server = ["--", PYTHON, str(SCENARIO_SERVER), "--scenario", "none.json", "--log", str(work / "none.log")]
    r = cli("probe", "--auto", *server, cwd=work)
    assert r.returncode == 0, r.stderr  # a warning: the gate (breaking) passes, but not silently
    assert r.stdout.startswith(
        "schema-audit probe: live (scenario 1.0.0), 0 calls made, none checked against an outputSchema"
    ), r.stdout
    assert "warning  probe run (root)  [probe-nothing-checked]" in r.stdout and "No findings" not in r.stdout
    assert "0 calls planned, 0 made, 0 failed" in r.stdout
    assert "writer: not annotated readOnlyHint: true" in r.stdout and "needs: required argument 'id'" in r.stdout
    assert "--calls FILE" in r.stdout and "readOnlyHint: true so --auto may call them" in r.stdout
    assert "0 calls made, 0 checked against an outputSchema" in r.stderr
    assert _calls_made(work / "none.log") == []
    md = cli("probe", "--auto", "--format", "markdown", *server, cwd=work)
    assert md.returncode == 0, md.stderr
    assert md.stdout.startswith("### ✅ schema-audit probe: 0 calls made, 0 checked · 0 breaking, 1 warning"), md.stdout
    assert "`probe-nothing-checked`" in md.stdout
    data = json.loads(cli("probe", "--auto", "--format", "json", *server, cwd=work).stdout)
    assert data["calls"] == [] and [f["rule"] for f in data["findings"]] == ["probe-nothing-checked"]
    assert data["findings"][0]["severity"] == "warning" and data["findings"][0]["tool"] == ""
    assert cli("probe", "--auto", "--fail-on", "warning", *server, cwd=work).returncode == 1


@pytest.mark.live
def test_probe_whose_calls_all_fail_or_have_no_schema_warns(work: Path) -> None:
    """Every call fails (isError, a JSON-RPC error) or returns a result no outputSchema covers: a warning that
    counts them, beside the per-call info findings; each call line says whether it was checked."""
    tools = [_tool("broken", OPEN_A), _tool("gone", OPEN_A), _tool("plain")]
    results = {
        "broken": _result(is_error=True),
        "gone": {"$error": {"code": -32602, "message": "Invalid params"}},
        "plain": _result(),
    }
    (work / "fails.json").write_text(json.dumps({"tools": tools, "results": results}))
    (work / "fails-calls.json").write_text(
        json.dumps({"calls": [{"tool": "broken"}, {"tool": "gone"}, {"tool": "plain"}]})
    )
    server = ["--", PYTHON, str(SCENARIO_SERVER), "--scenario", "fails.json"]
    r = cli("probe", "--calls", "fails-calls.json", "--format", "json", "--record", "fails-rec.json", *server, cwd=work)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert {c["id"]: c["checked"] for c in data["calls"]} == {"broken": False, "gone": False, "plain": False}
    got = _findings(data)
    assert set(got) == {("probe-nothing-checked", ""), ("call-tool-error", "broken"), ("call-rpc-error", "gone")}
    message = got[("probe-nothing-checked", "")]["message"]
    assert "3 calls planned, 3 made, 2 failed" in message
    assert "1 result of tools that declare no outputSchema" in message
    assert "fix the failing calls" in message and "--calls FILE" in message
    text = cli("probe", "--replay", "fails-rec.json", cwd=work)  # a recording checked again: the same verdict
    assert text.returncode == 0 and "3 calls made, none checked against an outputSchema" in text.stdout.splitlines()[0]
    assert "call plain: result without structuredContent (not checked: no outputSchema)" in text.stdout
    # (once one result is checked the warning goes: test_every_finding's findings are exactly EXPECTED)


@pytest.mark.live
def test_cached_rejections_of_a_tool_without_an_output_schema_never_claim_one(work: Path) -> None:
    """The tool dropped its outputSchema; a cached version still has one. The findings say the tool declares
    none now, never that "its current outputSchema accepts" the result."""
    tools = [_tool("plain"), _tool("loose"), _tool("wire")]
    results = {
        "plain": _result(),
        "loose": _result({"a": 1}),
        "wire": {"content": [{"type": "text", "text": "[1]"}], "structuredContent": [1]},
    }
    (work / "dropped.json").write_text(json.dumps({"tools": tools, "results": results}))
    (work / "dropped-v0.json").write_text(json.dumps({"tools": [_tool(t["name"], OPEN_A) for t in tools]}))
    (work / "dropped-calls.json").write_text(json.dumps({"calls": [{"tool": t["name"]} for t in tools]}))
    r = cli(
        "probe",
        "--calls",
        "dropped-calls.json",
        "--against",
        "dropped-v0.json",
        "--",
        PYTHON,
        str(SCENARIO_SERVER),
        "--scenario",
        "dropped.json",
        cwd=work,
    )
    assert r.returncode == 1, r.stderr
    assert "current outputSchema" not in r.stdout, r.stdout
    assert (
        "call plain returned no structuredContent (isError false), which hosts that cached dropped-v0 reject "
        "(python-sdk, ts-sdk-v1, ts-sdk-v2): their cached outputSchema needs it; the tool declares no "
        "outputSchema now"
    ) in r.stdout
    assert (
        "call loose returned a result hosts that cached dropped-v0 reject (python-sdk, ts-sdk-v1, ts-sdk-v2); "
        "the tool declares no outputSchema now"
    ) in r.stdout
    assert "sent by live (scenario 1.0.0) in call wire, rejected by the SDK clients (" in r.stdout
    assert "before any outputSchema" in r.stdout


@pytest.mark.live
def test_the_auto_advice_for_examples_holds_on_pydantic(tmp_path: Path):
    """The advice's pydantic spelling, ``Field(examples=[…])``, on a real ``MCPServer``: the required argument is
    filled from its example and the read-only tool called (zod's spellings: tests/test_server_validators.py)."""
    r = cli("probe", "--auto", "--", PYTHON, str(SERVERS / "pydantic_examples_server.py"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "1 call made, 1 checked against an outputSchema; --auto left out 0 tools" in r.stderr, r.stderr


@pytest.mark.live
def test_a_call_the_cached_input_schema_allows_and_the_server_rejects_is_breaking(tmp_path: Path) -> None:
    """``probe --against v1``: a call written for v1's inputSchema (``list_messages`` without ``folder``, which v2
    requires) is answered by the real v2 server (FastMCP: pydantic) with an error: ``input-call-rejected``, the
    arguments as witness and the server's words as error. A call valid under both that fails (an unknown message
    id) stays the tool's own error (``call-tool-error``, info). A credential-named argument is masked, as in traffic."""
    calls = {
        "calls": [
            {
                "tool": "list_messages",
                "arguments": {"limit": 5, "api_key": "sk-live-0123456789abcdef"},
                "id": "old-call",
            },
            {"tool": "get_message", "arguments": {"message_id": "m-0000"}, "id": "read-missing"},
        ]
    }
    (tmp_path / "calls.json").write_text(json.dumps(calls), encoding="utf-8")
    demo = [PYTHON, "-m", "mcp_schema_audit.demo_server.mail_server", "--version", "2"]
    args = ["probe", "--calls", "calls.json", "--against", str(ROOT / "fixtures" / "probe" / "demo-v1.json")]
    r = cli(*args, "--format", "json", "--", *demo, cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    found = {f["rule"]: f for f in json.loads(r.stdout)["findings"]}
    rejected = found["input-call-rejected"]
    assert rejected["tool"] == "list_messages" and rejected["severity"] == "breaking"
    # the arguments are the witness, with a credential-named value masked (in the server's echo of them too)
    assert (
        rejected["witness"]["instance"] == {"limit": 5, "api_key": "***"} and rejected["witness"]["call"] == "old-call"
    )
    assert "sk-live-0123456789abcdef" not in r.stdout
    assert "folder" in rejected["witness"]["error"] and "Field required" in rejected["witness"]["error"]
    assert found["call-tool-error"]["tool"] == "get_message" and found["call-tool-error"]["severity"] == "info"
    text = cli(*args, "--", *demo, cwd=tmp_path)
    assert "allowed by the inputSchema cached from v1, rejected by the server running" in text.stdout, text.stdout
    assert "sk-live-0123456789abcdef" not in text.stdout
