"""The probe's pure parts without a server: host verdicts and their wording, the ``--auto`` choice, the calls
file, findings from call records, witness capping, recordings, and the packaging of every subpackage."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from mcp_schema_audit.capture.calls import PlannedCall
from mcp_schema_audit.errors import InputError, UsageError
from mcp_schema_audit.probe import Recording, call_summary, cap_instance, check_records, load_recording, write_recording
from mcp_schema_audit.probe.check import result_notes
from mcp_schema_audit.probe.hosts import host_verdict, js_truthy, schema_pointer
from mcp_schema_audit.probe.plan import auto_arguments, load_calls_file, plan_calls, render_plan
from mcp_schema_audit.schema import SchemaDoc
from mcp_schema_audit.schema.ajvtext import ajv_message
from mcp_schema_audit.snapshot import Snapshot, snapshot_from_data

ROOT = Path(__file__).resolve().parent.parent
A = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}


def _errors(schema: Any, instance: Any, profile: str = "ts-sdk-v1") -> list[Any]:
    return SchemaDoc(schema).errors(instance, profile)


@pytest.mark.parametrize(
    "schema, instance, text",
    [
        ({"type": "string"}, 1, "data must be string"),
        ({"type": ["string", "null"]}, 1, "data must be string,null"),
        ({**A, "additionalProperties": False}, {"a": "x", "b": 1}, "data must NOT have additional properties"),
        (A, {}, "data must have required property 'a'"),
        ({"properties": {"s": {"enum": ["a"]}}}, {"s": "b"}, "data/s must be equal to one of the allowed values"),
        ({"properties": {"s": {"const": "a"}}}, {"s": "b"}, "data/s must be equal to constant"),
        ({"minimum": 3}, 1, "data must be >= 3"),
        ({"exclusiveMaximum": 3}, 3, "data must be < 3"),
        ({"maxLength": 2}, "abc", "data must NOT have more than 2 characters"),
        ({"minItems": 2}, [1], "data must NOT have fewer than 2 items"),
        ({"type": "string", "format": "date-time"}, "x", 'data must match format "date-time"'),
        ({"pattern": "^a$"}, "b", 'data must match pattern "^a$"'),
        ({"multipleOf": 2}, 3, "data must be multiple of 2"),
        ({"properties": {"l": {"items": {"type": "integer"}}}}, {"l": [1, "x"]}, "data/l/1 must be integer"),
    ],
)
def test_ajv_messages(schema: Any, instance: Any, text: str) -> None:
    errors = _errors(schema, instance)
    assert errors and ajv_message(errors[0]) == text


def test_js_truthiness() -> None:
    assert [js_truthy(v) for v in (None, False, 0, 0.0, "", {}, [], "x", 1, True)] == [
        False,
        False,
        False,
        False,
        False,
        True,
        True,
        True,
        True,
        True,
    ]


def test_host_verdicts_follow_each_client() -> None:
    doc = SchemaDoc(A)
    kinds = {}
    for name, result in {
        "ok": {"content": [], "structuredContent": {"a": "x"}},
        "missing": {"content": []},
        "missing-error": {"content": [], "isError": True},
        "bad-error": {"content": [], "isError": True, "structuredContent": {"a": 1}},
        "null": {"content": [], "structuredContent": None},
        "array": {"content": [], "structuredContent": [1]},
    }.items():
        kinds[name] = {p: host_verdict(p, "t", doc, result).kind for p in ("python-sdk", "ts-sdk-v1", "ts-sdk-v2")}
    assert kinds["ok"] == {"python-sdk": "", "ts-sdk-v1": "", "ts-sdk-v2": ""}
    assert kinds["missing"] == {"python-sdk": "missing", "ts-sdk-v1": "missing", "ts-sdk-v2": "missing"}
    assert kinds["missing-error"] == {"python-sdk": "", "ts-sdk-v1": "", "ts-sdk-v2": ""}
    assert kinds["bad-error"] == {"python-sdk": "", "ts-sdk-v1": "schema", "ts-sdk-v2": ""}
    assert kinds["null"] == {"python-sdk": "schema", "ts-sdk-v1": "wire", "ts-sdk-v2": "wire"}
    # python-sdk's objection to an array comes from its own wire model (the probe records it as sdk_error)
    assert kinds["array"] == {"python-sdk": "schema", "ts-sdk-v1": "wire", "ts-sdk-v2": "wire"}
    assert (
        host_verdict(
            "python-sdk",
            "t",
            doc,
            {"content": [], "structuredContent": [1]},
            wire_error="structuredContent: Input should be a valid dictionary",
        ).kind
        == "wire"
    )
    assert not host_verdict("python-sdk", "t", None, {"content": []}).rejected  # no outputSchema: nothing checked
    with pytest.raises(ValueError):
        host_verdict("ts-sdk-v9", "t", doc, {"content": []})


def test_a_schema_the_host_cannot_use_fails_every_call() -> None:
    broken = {"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}}
    verdict = host_verdict("python-sdk", "t", SchemaDoc(broken), {"content": [], "structuredContent": {"a": 1}})
    assert verdict.rejected and verdict.kind == "bad-schema" and "Invalid schema for tool t" in verdict.message


def test_schema_pointer_resolves_ref_hops() -> None:
    schema = {
        "type": "object",
        "properties": {"r": {"anyOf": [{"$ref": "#/$defs/M"}, {"type": "null"}]}},
        "$defs": {"M": {"type": "object", "additionalProperties": False}},
    }
    from jsonschema.exceptions import best_match

    best = best_match(_errors(schema, {"r": {"x": 1}}, "python-sdk"))
    assert schema_pointer(SchemaDoc(schema), best) == "/$defs/M/additionalProperties"


# ---- --auto and the calls file ---------------------------------------------------------------------------


def _tool(name: str, annotations: Any = None, **inp: Any) -> dict[str, Any]:
    tool: dict[str, Any] = {"name": name, "inputSchema": {"type": "object", **inp}}
    if annotations is not None:
        tool["annotations"] = annotations
    return tool


RO = {"readOnlyHint": True}


@pytest.mark.parametrize(
    "tool, arguments, why",
    [
        (_tool("t", RO), {}, "read-only, no required arguments"),
        (_tool("t"), None, "not annotated readOnlyHint: true"),
        (
            _tool("t", {"readOnlyHint": "true"}),
            None,
            'annotated readOnlyHint: "true" (only a literal true counts as read-only)',
        ),
        (_tool("t", {"readOnlyHint": True, "destructiveHint": True}), None, "annotated destructiveHint: true"),
        (_tool("t", RO, properties={"a": {"const": 1}}, required=["a"]), {"a": 1}, "read-only, a from const"),
        (_tool("t", RO, properties={"a": {"enum": ["x"]}}, required=["a"]), {"a": "x"}, "a from its only enum value"),
        (_tool("t", RO, properties={"a": {"enum": ["x", "y"]}}, required=["a"]), None, "required argument 'a' has no"),
        (
            _tool("t", RO, properties={"a": {"type": "integer", "default": 5}}, required=["a"]),
            {"a": 5},
            "a from default",
        ),
        (_tool("t", RO, properties={"a": {"examples": ["e1", "e2"]}}, required=["a"]), {"a": "e1"}, "a from examples"),
        (
            _tool("t", RO, properties={"a": {"$ref": "#/$defs/A"}}, required=["a"], **{"$defs": {"A": {"const": 2}}}),
            {"a": 2},
            "a from const",
        ),
        (
            _tool("t", RO, properties={"a": {"type": "integer", "default": "x"}}, required=["a"]),
            None,
            "the filled arguments are invalid",
        ),
        (_tool("t", RO, required=["a"]), None, "required argument 'a' has no"),
        (_tool("t", RO, properties={"o": {"type": "string"}}), {}, "no required arguments"),  # optional: left out
    ],
)
def test_auto_arguments(tool: dict[str, Any], arguments: Any, why: str) -> None:
    got, reason = auto_arguments(tool)
    assert got == arguments and why in reason, reason


def test_calls_file_forms_and_errors(tmp_path: Path) -> None:
    path = tmp_path / "calls.json"
    path.write_text(
        json.dumps({"calls": [{"tool": "a"}, {"tool": "a", "arguments": {"x": 1}}, {"tool": "b", "id": "B"}]})
    )
    calls = load_calls_file(path)
    assert [(c.id, c.tool, c.arguments) for c in calls] == [("a", "a", {}), ("a#2", "a", {"x": 1}), ("B", "b", {})]
    for bad, message in [
        ([], "a calls file is a JSON object with a 'calls' list"),
        ({"calls": {}}, "a calls file is a JSON object"),
        ({"calls": [], "extra": 1}, "unknown key 'extra'"),
        ({"calls": ["a"]}, "calls[0] is not an object"),
        ({"calls": [{"tool": ""}]}, "calls[0] has no tool name"),
        ({"calls": [{"tool": "a", "arguments": [1]}]}, "arguments must be a JSON object"),
        ({"calls": [{"tool": "a", "id": "x"}, {"tool": "b", "id": "x"}]}, "duplicate id 'x'"),
        ({"calls": [{"tool": "a", "args": {}}]}, "unknown key 'args'"),
        ({"calls": [{"tool": "a"}] * 1001}, "more than the limit of 1000"),
    ]:
        path.write_text(json.dumps(bad))
        with pytest.raises(InputError, match=re.escape(message)):
            load_calls_file(path)


def test_plan_keeps_the_calls_file_order_then_auto_and_marks_unlisted_tools() -> None:
    listing = snapshot_from_data({"tools": [_tool("r", RO), _tool("w"), _tool("x", RO)]}, source="s.json")
    listed = [PlannedCall("first", "w", {"k": 1}, "listed"), PlannedCall("r", "r", {}, "listed")]
    calls, skipped = plan_calls(listing, listed, auto=True)
    assert [(c.id, c.tool) for c in calls] == [("first", "w"), ("r", "r"), ("x", "x")]
    assert skipped == []
    assert [c.tool for c in plan_calls(listing, listed, auto=False)[0]] == ["w", "r"]
    with pytest.raises(UsageError, match="names no tool the server lists, only tool.s. it does not list: 'nope'"):
        plan_calls(listing, [PlannedCall("n", "nope")], auto=True)
    # a tool this release does not list stays in the plan, not to be called, as long as a listed one is named
    mixed, _ = plan_calls(listing, [PlannedCall("n", "nope", {}, "listed"), *listed], auto=False)
    assert [(c.tool, c.listed) for c in mixed] == [("nope", False), ("w", True), ("r", True)]
    assert mixed[0].why == "listed; the server does not list it: not called"
    text = render_plan(calls, [{"tool": "w", "why": "not annotated readOnlyHint: true"}])
    assert text.splitlines()[0] == "probe plan (dry run, nothing is called): 3 calls"
    assert '  call first: w {"k": 1}  (listed)' in text and "not called by --auto (1):" in text


def test_each_tool_auto_leaves_out_says_why_and_what_to_add() -> None:
    """SDK defaults set no annotation: --auto calls nothing, and says per tool what would change that."""
    required = _tool("needs", RO)
    required["inputSchema"] = {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}
    destructive = _tool("wipe", {"readOnlyHint": True, "destructiveHint": True})
    listing = snapshot_from_data({"tools": [_tool("plain"), required, destructive]}, source="s.json")
    calls, skipped = plan_calls(listing, [], auto=True)
    assert calls == []
    add = {s["tool"]: (s["why"], s["add"]) for s in skipped}
    assert add["plain"][0] == "not annotated readOnlyHint: true" and "annotate it readOnlyHint: true" in add["plain"][1]
    assert "@mcp.tool(annotations={'readOnlyHint': True})" in add["plain"][1] and "--calls FILE" in add["plain"][1]
    assert add["needs"][0].startswith("required argument 'id'")
    assert "give each such argument examples" in add["needs"][1]
    # a default would make the argument optional in the listing: a change of the tool's contract for the probe
    assert "default" not in add["needs"][1] and add["needs"][1].startswith("call the tool from a calls file")
    assert add["wipe"] == (
        "annotated destructiveHint: true",
        "call it from a calls file (--calls FILE) with arguments safe to send",
    )
    text = render_plan(calls, skipped)
    assert "  plain: not annotated readOnlyHint: true; add: if it only reads, annotate it readOnlyHint: true" in text
    # every required argument it cannot fill, in one reason; the advice in the server's framework's words
    two = _tool("two", RO)
    two["inputSchema"] = {"type": "object", "properties": {"city": {}, "scope": {}}, "required": ["city", "scope"]}
    _, [skip] = plan_calls(snapshot_from_data({"tools": [two]}, source="s.json"), [], auto=True)
    assert skip["why"] == "required arguments 'city', 'scope' have no const, single enum value, default or example"
    from mcp_schema_audit.probe.plan import what_to_add

    assert "pydantic: Field(examples=[…])" in what_to_add(skip["why"], "pydantic")
    assert "zod" not in what_to_add(skip["why"], "pydantic") and "pydantic" not in what_to_add(skip["why"], "zod4")
    assert "TypeScript: registerTool" in what_to_add("not annotated readOnlyHint: true")  # unknown: both spellings
    assert "TypeScript" not in what_to_add("not annotated readOnlyHint: true", "pydantic")
    assert json.loads(render_plan(calls, skipped, "json"))["skipped"][0]["add"] == add["needs"][1]


# ---- findings from records ---------------------------------------------------------------------------------


def _listing(tools: list[dict[str, Any]]) -> Snapshot:
    return snapshot_from_data({"tools": tools}, source="live.json", label="live")


def _record(call_id: str, tool: str, result: Any = None, **extra: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "id": call_id,
        "tool": tool,
        "arguments": {},
        "outcome": "result" if result is not None else extra.pop("outcome"),
        **extra,
    }
    if result is not None:
        rec["result"] = result
    return rec


def test_one_finding_per_problem_naming_every_call_and_cohort() -> None:
    closed = {**A, "additionalProperties": False}
    now = _listing([{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": A}])
    cached = [
        snapshot_from_data(
            {"tools": [{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": closed}]},
            source=f"{label}.json",
            label=label,
        )
        for label in ("v1", "v2")
    ]
    text = [{"type": "text", "text": json.dumps({"a": "x", "b": 1})}]
    records = [_record(f"c{i}", "t", {"content": text, "structuredContent": {"a": "x", "b": 1}}) for i in range(3)]
    findings = check_records(now, records, cached)
    assert [(f.rule, f.hosts) for f in findings] == [
        ("result-rejected-by-cached-schema", ["python-sdk", "ts-sdk-v1", "ts-sdk-v2"])
    ]
    w = findings[0].witness
    assert w is not None and w["calls"] == ["c0", "c1", "c2"] and w["cohorts"] == ["v1", "v2"]
    assert findings[0].old_pointer == "/additionalProperties" and findings[0].new_pointer is None
    # the fingerprint does not depend on the cohorts or calls: history groups one finding over cohorts
    again = check_records(now, records[:1], cached[1:])
    assert again[0].fingerprint == findings[0].fingerprint


def test_text_block_rules() -> None:
    now = _listing(
        [
            {
                "name": "t",
                "inputSchema": {"type": "object"},
                "outputSchema": {"type": "object", "properties": {"result": {"type": "integer"}}},
            }
        ]
    )

    def rules(result: dict[str, Any]) -> set[str]:
        return {f.rule for f in check_records(now, [_record("c", "t", result)], [])}

    assert rules({"content": [{"type": "text", "text": '{"result": 3}'}], "structuredContent": {"result": 3}}) == set()
    assert rules({"content": [{"type": "text", "text": "3"}], "structuredContent": {"result": 3}}) == set()  # wrapper
    assert rules({"content": [{"type": "text", "text": "three"}], "structuredContent": {"result": 3}}) == {
        "result-text-missing"
    }
    assert rules({"content": [], "structuredContent": {"result": 3}}) == {"result-text-missing"}


def test_a_list_as_the_python_sdk_renders_it_carries_its_text() -> None:
    """MCPServer renders a returned list as {"result": [...]} with one text block per item (none for an empty
    list; a string item as itself): that is the result as text, not a missing one. Results made by the real SDK."""
    import asyncio

    from mcp.server.mcpserver import MCPServer
    from pydantic import BaseModel

    class Alert(BaseModel):
        level: str
        text: str

    server = MCPServer("lists")

    def alerts(n):  # type: ignore[no-untyped-def]
        return [Alert(level="high", text=f"a{i}") for i in range(n)]

    def names():  # type: ignore[no-untyped-def]
        return ["x", "y z", "3"]

    # real annotation objects (this module's annotations are strings, and Alert is local)
    alerts.__annotations__ = {"n": int, "return": list[Alert]}
    names.__annotations__ = {"return": list[str]}
    server.tool()(alerts)
    server.tool()(names)

    async def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = await server.call_tool(name, arguments)
        return result.model_dump(mode="json", by_alias=True, exclude_none=True)

    listing = _listing(
        [{"name": "alerts", "inputSchema": {"type": "object"}}, {"name": "names", "inputSchema": {"type": "object"}}]
    )
    for name, arguments in (("alerts", {"n": 2}), ("alerts", {"n": 0}), ("names", {})):
        result = asyncio.run(call(name, arguments))
        assert "structuredContent" in result, result
        assert not check_records(listing, [_record("c", name, result)], []), (name, result)
    # the items must be the list's own, in order, and every block text
    broken = {"content": [{"type": "text", "text": "x"}], "structuredContent": {"result": ["x", "y"]}}
    assert {f.rule for f in check_records(listing, [_record("c", "names", broken)], [])} == {"result-text-missing"}
    swapped = {
        "content": [{"type": "text", "text": "y"}, {"type": "text", "text": "x"}],
        "structuredContent": {"result": ["x", "y"]},
    }
    assert {f.rule for f in check_records(listing, [_record("c", "names", swapped)], [])} == {"result-text-missing"}


def test_call_outcomes_are_one_finding_each() -> None:
    now = _listing([{"name": "t", "inputSchema": {"type": "object"}}])
    records = [
        _record("a", "t", outcome="timeout", error={"message": "no answer within 1 s"}),
        _record("b", "t", outcome="not-called", error={"message": "the run's --timeout was spent"}),
        _record("c", "t", outcome="rpc-error", error={"code": -32602, "message": "bad"}),
        _record("d", "t", outcome="too-large", error={"message": "too big"}, chars=99),
        _record("e", "t", {"content": [], "resultType": "input_required"}),
    ]
    got = [(f.rule, f.severity, f.message.split(": ", 2)[-1]) for f in check_records(now, records, [])]
    assert ("call-timeout", "info", "call a: no answer within 1 s") in got
    assert ("call-timeout", "info", "call b not made: the run's --timeout was spent") in got
    assert ("call-rpc-error", "info", "call c: JSON-RPC error -32602: bad") in got
    assert ("call-result-too-large", "warning", "call d: too big: not checked") in got
    assert any(r == "call-rpc-error" and "resultType 'input_required'" in m for r, _, m in got)
    assert any(r == "probe-input-required" and "call e answered input_required" in m for r, _, m in got)
    assert len({f.fingerprint for f in check_records(now, records, [])}) == 6


def test_a_call_of_an_unlisted_tool_names_the_cached_versions_that_list_it() -> None:
    now = _listing([{"name": "t", "inputSchema": {"type": "object"}}])
    v1 = snapshot_from_data(
        {"tools": [{"name": "gone", "inputSchema": {"type": "object"}}]}, source="v1.json", label="v1"
    )
    record = _record("g", "gone", outcome="not-listed", error={"message": "the server does not list tool 'gone'"})
    [f] = check_records(now, [record], [v1])
    assert (f.rule, f.severity, f.tool) == ("call-tool-not-listed", "info", "gone")
    assert f.message.endswith(
        "call g not made: the server does not list tool 'gone', which hosts that cached v1 "
        "still call (the diff against them reports tool-removed)"
    ), f.message
    assert check_records(now, [record], [])[0].message.endswith("the server does not list tool 'gone'")
    assert call_summary(record) == {
        "id": "g",
        "tool": "gone",
        "outcome": "not-listed",
        "message": "the server does not list tool 'gone'",
    }


OPTIONAL = {"type": ["object", "null"], "properties": {"id": {"type": "string"}}}
STRICT = {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
def test_results_are_judged_in_the_era_of_their_connection(era: str) -> None:
    """On 2026-07-28 structuredContent may be any JSON value, null included, and the outputSchema any schema: a null
    under type ["object", "null"] is valid (it was result-malformed), a null under an object schema is still
    rejected, by its schema. ts-sdk-v1, which never negotiates 2026-07-28, is not judged on such a value."""
    tools = [
        {"name": "maybe", "inputSchema": {"type": "object"}, "outputSchema": OPTIONAL},
        {"name": "strict", "inputSchema": {"type": "object"}, "outputSchema": STRICT},
        {"name": "nums", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}},
    ]
    listing = snapshot_from_data({"tools": tools, "protocolVersion": era}, source="live.json", label="live")
    assert listing.protocol_version == era
    records = [
        _record("m", "maybe", {"content": [{"type": "text", "text": "null"}], "structuredContent": None}),
        _record("s", "strict", {"content": [{"type": "text", "text": "null"}], "structuredContent": None}),
        _record("n", "nums", {"content": [{"type": "text", "text": "[1]"}], "structuredContent": [1]}),
    ]
    got = {(f.tool, f.rule): f.hosts for f in check_records(listing, records, [])}
    if era == "2026-07-28":
        assert got == {("strict", "result-violates-own-schema"): ["python-sdk", "ts-sdk-v2"]}
        [note] = result_notes(listing, records)
        assert note.startswith("calls m, s, n not judged for ts-sdk-v1") and "2026-07-28 connection" in note
    else:
        assert got == {
            ("maybe", "result-malformed"): ["ts-sdk-v1", "ts-sdk-v2"],
            ("strict", "result-malformed"): ["ts-sdk-v1", "ts-sdk-v2"],
            ("strict", "result-violates-own-schema"): ["python-sdk"],
            ("nums", "result-malformed"): ["ts-sdk-v1", "ts-sdk-v2"],
        }
        assert result_notes(listing, records) == []
    # a recording of the other era (--samples) is judged in its own era, whatever the listing's
    modern = check_records(listing, records[:1], [], protocol="2026-07-28")
    legacy = check_records(listing, records[:1], [], protocol="2025-11-25")
    assert modern == [] and [f.rule for f in legacy] == ["result-malformed"]


def test_text_rendered_by_the_python_sdk_is_not_reported() -> None:
    """The SDK's MCPServer wraps a -> str return as {"result": s} with s itself as the text, a None as no block, a
    list item by item: its author cannot change that, so no result-text-missing; a report note names the SDK."""
    listing = _listing([{"name": "t", "inputSchema": {"type": "object"}}])

    def text(*texts: str) -> list[dict[str, str]]:
        return [{"type": "text", "text": t} for t in texts]

    rendered = {
        "str": {"content": text("hello x"), "structuredContent": {"result": "hello x"}},
        "none": {"content": [], "structuredContent": {"result": None}},
        "list": {"content": text("a", '{\n  "k": 1\n}'), "structuredContent": {"result": ["a", {"k": 1}]}},
        "nested": {"content": text("a", "b"), "structuredContent": {"result": [["a"], [None, "b"]]}},
    }
    records = [_record(k, "t", v) for k, v in rendered.items()]
    assert check_records(listing, records, []) == []
    [note] = result_notes(listing, records)
    assert note.startswith("calls str, none, list, nested: the text blocks are how the Python SDK's MCPServer")
    assert "result-text-missing is not reported for them" in note
    # JSON in a text block is no rendering of the SDK's: no note; what the author wrote is still reported
    plain = _record("json", "t", {"content": text('{"result": "x"}'), "structuredContent": {"result": "x"}})
    assert check_records(listing, [plain], []) == [] and result_notes(listing, [plain]) == []
    for bad in (
        {"content": text("hello"), "structuredContent": {"result": "hello x"}},  # not the value
        {"content": [], "structuredContent": {"result": "x"}},  # a str renders as a block
        {"content": text("x"), "structuredContent": {"id": "x"}},  # no wrapper: its JSON is needed
        {"content": text("a", "b", "c"), "structuredContent": {"result": ["a", "b"]}},
    ):
        assert {f.rule for f in check_records(listing, [_record("c", "t", bad)], [])} == {"result-text-missing"}, bad
        assert result_notes(listing, [_record("c", "t", bad)]) == []


def test_cap_instance() -> None:
    small = {"a": [1, 2, 3]}
    assert cap_instance(small) == (small, False)
    big = {"k": "x" * 10_000, "l": list(range(5_000)), "d": {str(i): i for i in range(500)}}
    capped, truncated = cap_instance(big)
    assert truncated and len(json.dumps(capped)) <= 4_000 and capped["k"].endswith("…")
    deep: Any = 1
    for _ in range(200):
        deep = [deep, "y" * 50]
    capped, truncated = cap_instance(deep)
    assert truncated and len(json.dumps(capped)) <= 4_000


# ---- recordings ------------------------------------------------------------------------------------------


def test_recording_round_trip_and_errors(tmp_path: Path) -> None:
    snap = _listing([{"name": "t", "inputSchema": {"type": "object"}}])
    rec = Recording(snapshot=snap, calls=[_record("c", "t", {"content": []})], meta={"recorded_at": "x"})
    path = tmp_path / "rec.json"
    write_recording(rec, path)
    back = load_recording(path)
    assert back.snapshot.tools == snap.tools and back.calls == rec.calls and back.source == str(path)
    for bad, message in [
        ({"format": "schema-audit/snapshot"}, "not a probe recording"),
        ({**rec.to_json(), "format_version": 9}, "format_version 9 is not supported"),
        ({**rec.to_json(), "calls": {}}, "'calls' must be a list"),
        ({**rec.to_json(), "calls": [{"id": "c", "tool": "t", "outcome": "weird"}]}, "unknown outcome 'weird'"),
        ({**rec.to_json(), "calls": [{"id": "c", "tool": "t", "outcome": "result"}]}, "needs a result object"),
        ({**rec.to_json(), "calls": [rec.calls[0], rec.calls[0]]}, "duplicate id 'c'"),
    ]:
        path.write_text(json.dumps(bad))
        with pytest.raises(InputError, match=re.escape(message)):
            load_recording(path)
    with pytest.raises(InputError, match="NaN|cannot write"):
        write_recording(
            Recording(snapshot=snap, calls=[_record("c", "t", {"content": [], "x": float("nan")})]),
            tmp_path / "nan.json",
        )
    assert not (tmp_path / "nan.json").exists()


def test_every_subpackage_is_packaged() -> None:
    """A wheel holds only the packages pyproject.toml lists: every folder with an __init__.py must be there."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "mcp_schema_audit").rglob("__init__.py")}
    assert found <= listed, sorted(found - listed)


def test_importing_probe_and_report_does_not_import_the_sdk() -> None:
    import subprocess
    import sys

    code = (
        "import sys, mcp_schema_audit.probe, mcp_schema_audit.probe.plan, mcp_schema_audit.capture.calls, "
        "mcp_schema_audit.report, mcp_schema_audit.cli; assert 'mcp' not in sys.modules and 'anyio' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=30)


PROBE_RULES = (
    "result-violates-own-schema",
    "result-missing-structured-content",
    "result-malformed",
    "result-rejected-by-cached-schema",
    "result-text-missing",
    "call-tool-error",
    "call-rpc-error",
    "call-timeout",
    "call-result-too-large",
    "probe-input-required",
)


@pytest.mark.parametrize("rule_id", PROBE_RULES)
def test_probe_rules_are_documented_and_explained(rule_id: str) -> None:
    from typer.testing import CliRunner

    from mcp_schema_audit.cli import app
    from mcp_schema_audit.rules import RULES

    rule = RULES[rule_id]
    for name in ("title", "rationale", "before", "after", "error", "source", "fix"):
        assert getattr(rule, name), f"{rule_id} has no {name}"
    out = CliRunner().invoke(app, ["explain", rule_id])
    assert out.exit_code == 0 and out.stdout.startswith(f"{rule_id} (") and f"fix: {rule.fix}" in out.stdout


def test_call_timeout_seconds_read_as_a_person_writes_them() -> None:
    """What was left of --timeout (1.52588… s) reads 1.53 s; a --call-timeout stays as given (30, 0.25)."""
    from mcp_schema_audit.capture.calls import _seconds

    assert [_seconds(x) for x in (30.0, 2, 1.52588, 0.04, 0.25, 0.001)] == ["30", "2", "1.53", "0.04", "0.25", "0.01"]


#: patterns every profile refuses before any regex engine sees them (docs/security.md, regex size)
_ALTERNATIVES = "^(" + "|".join(f"x{i}" for i in range(2500)) + "|aaa)$"


@pytest.mark.parametrize("where", ["own", "cached"])
def test_a_refused_pattern_check_is_undecided_never_a_rejection(where: str) -> None:
    """An outputSchema whose pattern is over the size limits: the result is neither valid nor invalid (a
    ``result-undecided`` warning with our refusal as its reason), not a break that names hosts."""
    refused = {"type": "object", "properties": {"code": {"type": "string", "pattern": _ALTERNATIVES}}}
    plain = {"type": "object", "properties": {"code": {"type": "string"}}}
    now = _listing(
        [{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": refused if where == "own" else plain}]
    )
    cached = (
        [
            snapshot_from_data(
                {"tools": [{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": refused}]},
                source="v1.json",
                label="v1",
            )
        ]
        if where == "cached"
        else []
    )
    text = [{"type": "text", "text": json.dumps({"code": "aaa"})}]
    findings = check_records(now, [_record("c0", "t", {"content": text, "structuredContent": {"code": "aaa"}})], cached)
    assert [(f.rule, f.severity, f.hosts) for f in findings] == [("result-undecided", "warning", [])]
    assert "2,501 alternatives (over 2,000)" in findings[0].message
    assert ("hosts that cached v1" in findings[0].message) == (where == "cached")
    # a pattern the real validators do decide stays a verdict: 'aaa' is too short for a{100000000}
    counted = {"type": "object", "properties": {"code": {"type": "string", "pattern": "^a{100000000}$"}}}
    now = _listing([{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": counted}])
    findings = check_records(now, [_record("c0", "t", {"content": text, "structuredContent": {"code": "aaa"}})], [])
    assert [(f.rule, f.hosts) for f in findings] == [
        ("result-violates-own-schema", ["python-sdk", "ts-sdk-v1", "ts-sdk-v2"])
    ]


def test_nothing_checked_advises_only_what_applies_to_the_tools_left_out() -> None:
    """Tools already annotated readOnlyHint: true, left out only for required arguments without examples: the
    advice names the calls file and examples, not the annotation they already have (a new user was told to add
    it)."""
    from mcp_schema_audit.probe.check import nothing_checked

    skipped = [{"tool": "get", "why": "required argument 'id' has no const, single enum value, default or example"}]
    f = nothing_checked([], auto=True, skipped=skipped)
    assert "--calls FILE" in f.detail.render() and "examples" in f.detail.render()
    assert "readOnlyHint" not in f.detail.render()
    plain = nothing_checked([], auto=True, skipped=[{"tool": "w", "why": "not annotated readOnlyHint: true"}])
    assert "readOnlyHint: true so --auto may call them" in plain.detail.render()
    assert "examples" not in plain.detail.render().split("Next:")[1]


def test_a_result_wrong_in_three_places_is_three_findings() -> None:
    """A result whose type, enum value and extra key the cached schema each rejects: one finding per place, each
    with the words python-sdk raises for it (it raises one error; the TS SDKs list them all), not one finding at
    the first place with the others only inside the TS messages (a new user fixed just that one)."""
    cached_schema = {
        "type": "object",
        "properties": {"temperature": {"type": "string"}, "condition": {"enum": ["sunny", "rain"]}},
        "additionalProperties": False,
    }
    open_schema = {"type": "object"}
    now = _listing([{"name": "w", "inputSchema": {"type": "object"}, "outputSchema": open_schema}])
    cached = [
        snapshot_from_data(
            {"tools": [{"name": "w", "inputSchema": {"type": "object"}, "outputSchema": cached_schema}]},
            source="v1.json",
            label="v1",
        )
    ]
    result = {"temperature": 21, "condition": "snow", "station": "x"}
    text = [{"type": "text", "text": json.dumps(result)}]
    findings = check_records(now, [_record("c", "w", {"content": text, "structuredContent": result})], cached)
    places = {f.old_pointer: f for f in findings if f.rule == "result-rejected-by-cached-schema"}
    assert set(places) == {"/properties/temperature/type", "/properties/condition/enum", "/additionalProperties"}
    for f in places.values():
        assert f.hosts == ["python-sdk", "ts-sdk-v1", "ts-sdk-v2"], f
    said = places["/properties/condition/enum"].witness["errors"]["python-sdk"]
    assert "'snow' is not one of ['sunny', 'rain']" in said, said
