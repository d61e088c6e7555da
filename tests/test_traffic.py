"""``--traffic``: real calls as evidence for ``diff`` and ``history``, in each format, and hostile traffic files.

Formats: JSON Lines written here; OTLP/JSON produced by the real OpenTelemetry SDK (``opentelemetry-sdk``
spans with the GenAI/MCP attributes, encoded by ``opentelemetry-exporter-otlp-proto-common`` and written as
protobuf JSON, one export request per line as the Collector's file exporter does, and one pretty object for
the whole file); a recording made by ``schema-audit record`` between the real Python SDK client and a real
server (``tests/servers/traffic_server.py``).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import PYTHON, SERVERS
from hostile_cli import assert_clean_failure, cli

from mcp_schema_audit.errors import InputError


def _tool(name: str, props: dict[str, Any], out: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    tool: dict[str, Any] = {"name": name, "inputSchema": {"type": "object", "properties": props, **extra}}
    if out is not None:
        tool["outputSchema"] = out
    return tool


CLOSED_HITS = {
    "type": "object",
    "properties": {"hits": {"type": "array"}},
    "required": ["hits"],
    "additionalProperties": False,
}
OLD = {
    "tools": [
        _tool("search", {"q": {"type": "string"}, "limit": {"type": "integer"}}, CLOSED_HITS, required=["q"]),
        _tool("get", {"id": {"type": "string"}}, required=["id"]),
        _tool("login", {"user": {"type": "string"}, "password": {"type": "string"}}),
        _tool("untouched", {"x": {"type": "integer"}}),
        _tool("gone", {}),
    ]
}
NEW = {
    "tools": [
        _tool(
            "search",
            {"q": {"type": "string"}, "limit": {"type": "integer", "maximum": 50}},
            CLOSED_HITS,
            required=["q"],
        ),
        _tool("get", {"id": {"type": "string", "pattern": "^c-"}}, required=["id"]),
        _tool("login", {"user": {"type": "string", "minLength": 3}, "password": {"type": "string"}}),
        _tool("untouched", {"x": {"type": "integer", "maximum": 9}}),
    ]
}
SECRET = "hunter2-Sup3rS3cret-pass"


def _calls() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(10):
        extra = {"extra": 1} if i == 0 else {}
        out.append(
            {
                "tool": "search",
                "arguments": {"q": "x", "limit": 10 if i < 8 else 100},
                "result": {"content": [], "structuredContent": {"hits": [], **extra}},
            }
        )
    out += [{"tool": "get", "arguments": {"id": "c-1" if i else "zz"}} for i in range(4)]
    out.append({"tool": "login", "arguments": {"user": "al", "password": SECRET}})
    out.append({"tool": "gone", "arguments": {}})
    return out


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "old.json").write_text(json.dumps(OLD))
    (tmp_path / "new.json").write_text(json.dumps(NEW))
    (tmp_path / "calls.jsonl").write_text("".join(json.dumps(c) + "\n" for c in _calls()))
    return tmp_path


def _by_rule(report: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(f["tool"], f["rule"]): f for f in report["findings"]}


def _check_counts(report: dict[str, Any]) -> None:
    found = _by_rule(report)
    assert found["search", "input-constraint-tightened"]["traffic"] == {"calls": 10, "affected": 2}
    assert found["get", "input-constraint-tightened"]["traffic"] == {"calls": 4, "affected": 1}
    assert found["gone", "tool-removed"]["traffic"] == {"calls": 1, "affected": 1}
    assert found["untouched", "input-constraint-tightened"]["traffic"] == {"calls": 0, "affected": 0}
    # a break only the traffic shows: the result with an extra field, rejected by the closed cached schema
    real = found["search", "result-violates-own-schema"]
    assert real["severity"] == "breaking" and real["traffic"] == {"calls": 10, "affected": 1}
    assert real["witness"]["source"] == "traffic" and real["witness"]["instance"]["extra"] == 1


def test_jsonl_counts_every_finding(files: Path):
    run = cli("diff", "old.json", "new.json", "--traffic", "calls.jsonl", "-f", "json", cwd=files)
    report = run.report()
    _check_counts(report)
    login = _by_rule(report)["login", "input-constraint-tightened"]
    assert login["traffic"] == {"calls": 1, "affected": 1}
    assert SECRET not in run.stdout  # the secret of a recorded call never reaches the report
    assert any(n.startswith("traffic: 16 recorded call(s) of 4 tool(s)") for n in report["notes"])
    import jsonschema

    from mcp_schema_audit.report.json import report_json_schema

    jsonschema.validate(report, report_json_schema())  # the report contract covers traffic


def test_text_and_markdown_say_how_many_recorded_calls(files: Path):
    text = cli("diff", "old.json", "new.json", "--traffic", "calls.jsonl", cwd=files).stdout
    assert "traffic: affected 2 of 10 recorded calls" in text
    assert "traffic: no recorded calls: potentially affected" in text
    md = cli("diff", "old.json", "new.json", "--traffic", "calls.jsonl", "-f", "markdown", cwd=files).stdout
    assert "*Traffic: affected 1 of 4 recorded calls*" in md
    calm = {"tools": [_tool("get", {"id": {"type": "string", "pattern": "^c-"}}, required=["id"])]}
    (files / "calm.jsonl").write_text(json.dumps({"tool": "get", "arguments": {"id": "c-2"}}) + "\n")
    (files / "old1.json").write_text(json.dumps({"tools": [OLD["tools"][1]]}))
    (files / "new1.json").write_text(json.dumps(calm))
    text = cli("diff", "old1.json", "new1.json", "--traffic", "calm.jsonl", cwd=files).stdout
    assert "traffic: unaffected in 1 recorded call" in text


def test_a_break_only_traffic_shows_on_inputs(files: Path):
    # NEW's server (pydantic-forbid: extra keys rejected) gets an argument OLD's open schema allowed and lists
    old = {"tools": [_tool("echo", {"text": {"type": "string"}})]}
    (files / "o.json").write_text(json.dumps(old))
    (files / "n.json").write_text(json.dumps(old))
    args = {"text": "a", "lang": "en", "api_key": SECRET}
    (files / "t.jsonl").write_text(json.dumps({"tool": "echo", "arguments": args}) + "\n")
    run = cli(
        "diff",
        "o.json",
        "n.json",
        "--traffic",
        "t.jsonl",
        "--server-validator",
        "pydantic-forbid",
        "-f",
        "json",
        cwd=files,
    )
    report = run.report()
    (f,) = report["findings"]
    assert f["rule"] == "input-recorded-call-rejected" and f["severity"] == "breaking"
    # the real call is the witness, with the value of a key named like a credential masked
    assert f["witness"]["instance"] == {"text": "a", "lang": "en", "api_key": "***"}
    assert f["witness"]["call"].endswith("t.jsonl:1") and SECRET not in run.stdout
    assert "Extra inputs are not permitted" in f["witness"]["error"]
    assert f["traffic"] == {"calls": 1, "affected": 1}
    assert report["gate"]["passed"] is False


def test_traffic_threshold_policy(files: Path):
    def severities(*extra: str) -> dict[tuple[str, str], str]:
        run = cli("diff", "old.json", "new.json", "--traffic", "calls.jsonl", "-f", "json", *extra, cwd=files)
        return {k: f["severity"] for k, f in _by_rule(run.report()).items()}

    schema_first = severities()
    assert schema_first["search", "input-constraint-tightened"] == "breaking"
    three = severities("--traffic-threshold", "3")
    assert three["search", "input-constraint-tightened"] == "warning"  # 2 of 10 < 3
    assert three["untouched", "input-constraint-tightened"] == "breaking"  # no traffic: potentially affected
    share = severities("--traffic-threshold", "20%")
    assert share["search", "input-constraint-tightened"] == "breaking"  # 2 of 10 = 20%
    assert share["get", "input-constraint-tightened"] == "breaking"  # 1 of 4
    assert severities("--traffic-threshold", "30%")["search", "input-constraint-tightened"] == "warning"
    (files / ".schema-audit.toml").write_text('traffic_threshold = "3"\n')
    assert severities()["search", "input-constraint-tightened"] == "warning"
    assert_clean_failure(cli("diff", "old.json", "new.json", "--traffic-threshold", "lots", cwd=files), 2)


def test_history_counts_each_cohort(files: Path):
    run = cli("history", "new.json", "--against", "old.json", "--traffic", "calls.jsonl", "-f", "json", cwd=files)
    (cohort,) = run.report()["cohorts"]
    found = {(f["tool"], f["rule"]): f for f in cohort["findings"]}
    assert found["search", "input-constraint-tightened"]["traffic"] == {"calls": 10, "affected": 2}
    assert found["search", "result-violates-own-schema"]["witness"]["source"] == "traffic"
    text = cli("history", "new.json", "--against", "old.json", "--traffic", "calls.jsonl", cwd=files).stdout
    assert "traffic: old: affected 2 of 10 recorded calls" in text
    assert "traffic: old: no recorded calls: potentially affected" in text


# -- OTLP/JSON from the real OpenTelemetry SDK ----------------------------------------------------------------


def _otlp_spans(calls: list[dict[str, Any]]) -> list[Any]:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from opentelemetry.trace import Status, StatusCode

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("mcp-host")
    with tracer.start_as_current_span("initialize", attributes={"mcp.method.name": "initialize"}):
        pass
    for c in calls:
        attrs = {
            "mcp.method.name": "tools/call",
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": c["tool"],
            "gen_ai.tool.call.arguments": json.dumps(c["arguments"]),
        }
        if "result" in c:
            attrs["gen_ai.tool.call.result"] = json.dumps(c["result"])
        with tracer.start_as_current_span(f"tools/call {c['tool']}", attributes=attrs) as span:
            if c["tool"] == "gone":
                span.set_status(Status(StatusCode.ERROR, "Unknown tool"))
    provider.shutdown()
    return list(exporter.get_finished_spans())


def _otlp_json(spans: list[Any], *, indent: int | None = None) -> str:
    from google.protobuf.json_format import MessageToJson
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    return MessageToJson(encode_spans(spans), indent=indent)


def test_otlp_file_exporter_lines_from_the_real_sdk(files: Path):
    spans = _otlp_spans(_calls())
    # the Collector's file exporter: one ExportTraceServiceRequest per line; split the spans over three lines
    lines = [_otlp_json(spans[i : i + 6]).replace("\n", "") for i in range(0, len(spans), 6)]
    (files / "traces.json").write_text("\n".join(lines) + "\n")
    assert '"gen_ai.tool.call.arguments"' in lines[0] and '"stringValue"' in lines[0]
    report = cli("diff", "old.json", "new.json", "--traffic", "traces.json", "-f", "json", cwd=files).report()
    _check_counts(report)
    # one pretty-printed export request for the whole file works the same
    (files / "trace-pretty.json").write_text(_otlp_json(spans, indent=2))
    again = cli("diff", "old.json", "new.json", "--traffic", "trace-pretty.json", "-f", "json", cwd=files).report()
    _check_counts(again)


def test_traffic_files_add_up(files: Path):
    calls = _calls()
    (files / "a.jsonl").write_text("".join(json.dumps(c) + "\n" for c in calls[:5]))
    (files / "b.json").write_text(_otlp_json(_otlp_spans(calls[5:])).replace("\n", "") + "\n")
    report = cli(
        "diff", "old.json", "new.json", "--traffic", "a.jsonl", "--traffic", "b.json", "-f", "json", cwd=files
    ).report()
    _check_counts(report)


# -- a recording of `schema-audit record`, with the real Python SDK client ------------------------------------


def test_recording_of_record_as_traffic(tmp_path: Path):
    from mcp import Client, StdioServerParameters, stdio_client

    rec = tmp_path / "rec.json"

    async def run() -> None:
        command = [
            sys.executable,
            "-m",
            "mcp_schema_audit",
            "record",
            "--out",
            str(rec),
            "--",
            PYTHON,
            str(SERVERS / "traffic_server.py"),
        ]
        params = StdioServerParameters(command=command[0], args=command[1:], env={"PYTHONPATH": os.getcwd()})
        async with Client(stdio_client(params, errlog=open(os.devnull, "w")), mode="legacy", cache=None) as c:  # noqa: SIM115
            await c.list_tools()
            for a in (1, 5, 50, 500):
                await c.call_tool("add", {"a": a, "b": 1})
            await c.call_tool("weather", {"city": "Oslo"})

    anyio.run(run)
    recording = json.loads(rec.read_text())
    assert [c["outcome"] for c in recording["calls"]] == ["result"] * 5
    tools = recording["tools"]
    old = json.loads(json.dumps(tools))
    new = json.loads(json.dumps(tools))
    for t in old:
        if t["name"] == "weather":  # hosts cached a closed schema without the field the server sends
            del t["outputSchema"]["properties"]["conditions"]
            t["outputSchema"]["required"] = ["temperature"]
            t["outputSchema"]["additionalProperties"] = False
    for t in new:
        if t["name"] == "add":
            t["inputSchema"]["properties"]["a"]["maximum"] = 10
    (tmp_path / "old.json").write_text(json.dumps({"tools": old}))
    (tmp_path / "new.json").write_text(json.dumps({"tools": new}))
    report = cli("diff", "old.json", "new.json", "--traffic", "rec.json", "-f", "json", cwd=tmp_path).report()
    found = _by_rule(report)
    assert found["add", "input-constraint-tightened"]["traffic"] == {"calls": 4, "affected": 2}
    weather = [f for f in report["findings"] if f["tool"] == "weather" and f["direction"] == "output"]
    assert weather and all(f["traffic"] == {"calls": 1, "affected": 1} for f in weather)


# -- hostile traffic files ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "pattern"),
    [
        (b'{"tool": "get", "arguments": {"id": "c-1"}}\n{"tool": "get", "argu\n', r"calls\.jsonl:2: not JSON"),
        (b'{"tool": "get", "arguments": ' + b"[" * 5000 + b"]" * 5000 + b"}\n", r"calls\.jsonl:1: nested too deeply"),
        (b'{"tool": "get", "arguments": ' + b"[" * 200 + b"]" * 200 + b"}\n", r"deeper than 128 levels"),
        (b'{"tool": 5}\n', r'string "tool"'),
        (b"hello world\n", r"not a traffic file"),
        (b"", r"the file is empty"),
        (b'{"format": "schema-audit/probe-recording", "calls": [{"tool": "get", "arguments": {', r"not valid JSON"),
    ],
)
def test_hostile_traffic_file_is_one_line_and_exit_2(files: Path, content: bytes, pattern: str):
    (files / "calls.jsonl").write_bytes(content)
    run = cli("diff", "old.json", "new.json", "--traffic", "calls.jsonl", cwd=files)
    assert_clean_failure(run, 2, pattern)


def test_missing_traffic_file_and_forward_mode(files: Path):
    assert_clean_failure(cli("diff", "old.json", "new.json", "--traffic", "nope.jsonl", cwd=files), 2, "cannot read")
    run = cli("diff", "old.json", "new.json", "--traffic", "calls.jsonl", "--mode", "forward", cwd=files)
    assert_clean_failure(run, 2, "--mode forward")


def test_a_huge_line_is_refused_without_loading_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from mcp_schema_audit.traffic import read

    monkeypatch.setattr(read, "MAX_LINE_BYTES", 1000)
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"tool": "get", "arguments": {"id": "x" * 5000}}) + "\n")
    with pytest.raises(InputError, match=r"t\.jsonl:1: a line over"):
        list(read.read_calls(path))


def test_a_huge_file_streams(tmp_path: Path):
    from mcp_schema_audit.traffic import read

    path = tmp_path / "t.jsonl"
    line = (json.dumps({"tool": "get", "arguments": {"id": "c-1"}}) + "\n").encode()
    with path.open("wb") as f:
        for _ in range(50):
            f.write(line * 2000)
    seen = []
    count = sum(1 for _ in read.read_calls(path, lambda done, size: seen.append((done, size))))
    assert count == 100_000 and seen and seen[-1][1] == path.stat().st_size and seen[-1][0] <= seen[-1][1]
