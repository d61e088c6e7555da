"""Benchmark ``--traffic``: the rate (recorded calls per second) at which ``diff`` counts a 100,000-call file.

Run: ``python benchmarks/bench_traffic.py [--calls N]`` (prints figures; not a test; about a minute on one core).

The catalog: 5 tools, each changed between OLD and NEW in its input (a tightened bound, a new pattern, an
enum value removed) or output (a field added to a closed object), so every call is judged on both sides. The
traffic: N calls spread over the tools, a quarter of them affected, each with arguments and a result, written
three ways: JSON Lines, a recording (``schema-audit record``'s format) and OTLP/JSON (one export request per
1,000 spans, as the Collector's file exporter writes). Each file goes through ``audit.diff_report`` with
``traffic=[file]`` (format detection, streaming, counting, the traffic-only findings); the figure is
calls / (run time - the same diff without traffic), the best of ``--runs`` runs (default 1).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

CLOSED = {
    "type": "object",
    "properties": {"id": {"type": "string"}, "score": {"type": "number"}},
    "required": ["id"],
    "additionalProperties": False,
}


def _catalog(new: bool) -> dict[str, Any]:
    def tool(name: str, props: dict[str, Any]) -> dict[str, Any]:
        return {"name": name, "inputSchema": {"type": "object", "properties": props}, "outputSchema": CLOSED}

    limit = {"type": "integer", **({"maximum": 50} if new else {})}
    code = {"type": "string", **({"pattern": "^[a-z]+$"} if new else {})}
    kind = {"enum": ["a", "b"] if new else ["a", "b", "c"]}
    tools = [
        tool(f"search{i}", {"q": {"type": "string"}, "limit": limit, "code": code, "kind": kind}) for i in range(5)
    ]
    if new:
        tools[0]["outputSchema"] = {**CLOSED, "properties": {**CLOSED["properties"], "extra": {"type": "string"}}}
    return {"tools": tools}


def _call(i: int) -> dict[str, Any]:
    bad = i % 4 == 0
    args = {"q": f"query {i}", "limit": 100 if bad else 10, "code": "A1" if bad else "abc", "kind": "c" if bad else "a"}
    content = {"id": f"r-{i}", "score": 0.5, **({"extra": "x"} if bad else {})}
    result = {"content": [{"type": "text", "text": json.dumps(content)}], "structuredContent": content}
    return {"tool": f"search{i % 5}", "arguments": args, "result": result}


def _write(folder: Path, calls: int) -> dict[str, Path]:
    jsonl, rec, otlp = folder / "calls.jsonl", folder / "recording.json", folder / "traces.json"
    with jsonl.open("w") as f:
        for i in range(calls):
            f.write(json.dumps(_call(i)) + "\n")
    records = [
        {"id": str(i), "tool": c["tool"], "arguments": c["arguments"], "outcome": "result", "result": c["result"]}
        for i, c in ((i, _call(i)) for i in range(calls))
    ]
    rec.write_text(
        json.dumps(
            {
                "format": "schema-audit/probe-recording",
                "format_version": 1,
                "label": "bench",
                "tools": _catalog(False)["tools"],
                "calls": records,
            },
            sort_keys=True,  # as record writes it: the calls before the format key
        )
    )
    with otlp.open("w") as f:
        for start in range(0, calls, 1000):
            spans = []
            for i in range(start, min(calls, start + 1000)):
                c = _call(i)
                attrs = {
                    "mcp.method.name": "tools/call",
                    "gen_ai.tool.name": c["tool"],
                    "gen_ai.tool.call.arguments": json.dumps(c["arguments"]),
                    "gen_ai.tool.call.result": json.dumps(c["result"]),
                }
                spans.append(
                    {
                        "name": f"tools/call {c['tool']}",
                        "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attrs.items()],
                    }
                )
            f.write(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}) + "\n")
    return {"jsonl": jsonl, "recording": rec, "otlp": otlp}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=1, help="runs per format (the best is shown)")
    parser.add_argument("--formats", default="jsonl,recording,otlp", help="comma-separated: jsonl, recording, otlp")
    args = parser.parse_args()
    from mcp_schema_audit.audit import diff_report
    from mcp_schema_audit.settings import RunLimits, Settings
    from mcp_schema_audit.snapshot import snapshot_from_data

    old = snapshot_from_data(_catalog(False), source="old.json", label="old")
    new = snapshot_from_data(_catalog(True), source="new.json", label="new")
    limits = RunLimits(jobs=1)
    with tempfile.TemporaryDirectory() as tmp:
        files = _write(Path(tmp), args.calls)
        start = time.perf_counter()
        diff_report(old, new, Settings(), limits)
        base = time.perf_counter() - start
        for kind, path in files.items():
            if kind not in args.formats.split(","):
                continue
            best = float("inf")
            for _ in range(args.runs):
                start = time.perf_counter()
                report = diff_report(old, new, Settings(), limits, traffic=[path])
                best = min(best, time.perf_counter() - start)
            counted = {(f.tool, f.direction): f.traffic for f in report.findings if f.traffic}
            mib = path.stat().st_size / 2**20
            rate = args.calls / max(best - base, 1e-9)
            print(
                f"{kind:<9} {args.calls:,} calls, {mib:6.1f} MiB: {best:5.2f} s ({base:.2f} s without traffic) "
                f"-> {rate:,.0f} calls/s; search0 input {counted.get(('search0', 'input'))}, "
                f"output {counted.get(('search0', 'output'))}"
            )


if __name__ == "__main__":
    main()
