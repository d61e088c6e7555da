"""Lint: hazards for the next release, listing-time breakers (also in a diff), the value-set hazard."""

from __future__ import annotations

from pathlib import Path

from gate_helpers import SEED, cli

from mcp_schema_audit.diff import diff_with_mode
from mcp_schema_audit.lint import lint_snapshot
from mcp_schema_audit.snapshot import load_snapshot, snapshot_from_data


def test_lint_hazards_listing_breakers_and_baseline(tmp_path: Path):
    snap = load_snapshot(str(SEED / "0.2.5.json"))
    findings = lint_snapshot(snap)
    rules = {f.rule for f in findings}
    assert rules == {"output-closed-object-hazard", "output-value-set-hazard"}
    assert all(f.severity == "warning" for f in findings)
    assert any(f.tool == "whoami" and f.pointer == "/properties/transport/enum" for f in findings)
    drift = [
        f
        for f in lint_snapshot(load_snapshot(str(SEED / "0.2.6.json")), baseline=snap)
        if f.rule == "output-required-drift"
    ]
    assert [(f.tool, f.pointer) for f in drift] == [("whoami", "/properties/directory_names")]
    bad = snapshot_from_data(
        {
            "protocolVersion": "2025-11-25",
            "tools": [
                {"name": "a", "inputSchema": {"properties": {}}},
                {"name": "b", "inputSchema": {"type": "object", "properties": {"x": True}}},
                {"name": "c", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}},
                {
                    "name": "d",
                    "inputSchema": {"type": "object"},
                    "outputSchema": {"type": "object", "properties": {"s": {"type": "string", "pattern": "([a-z"}}},
                },
                {"name": "e", "inputSchema": {"type": "object", "properties": {"x": {"type": "text"}}}},
                {
                    "name": "f",
                    "inputSchema": {"type": "object"},
                    "outputSchema": {
                        "$schema": "https://json-schema.org/draft/2020-12/schema",
                        "type": "object",
                        "unevaluatedProperties": False,
                    },
                },
            ],
        },
        source="bad",
    )
    got = {(f.tool, f.rule, f.severity) for f in lint_snapshot(bad)}
    assert ("a", "input-schema-not-object", "breaking") in got
    assert ("b", "schema-boolean-property", "breaking") in got
    assert ("c", "output-schema-not-object", "breaking") in got
    assert ("d", "output-schema-uncompilable", "breaking") in got
    assert ("e", "schema-metaschema-invalid", "warning") in got  # no SDK client checks an inputSchema
    assert ("f", "dialect-portability", "warning") in got
    (tmp_path / ".schema-audit.toml").write_text(
        '[[allow]]\nrule = "output-*-hazard"\ntool = "*"\nreason = "we re-list on every call"\n'
    )
    r = cli("lint", str(SEED / "0.2.5.json"), "--fail-on", "warning", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    r = cli("lint", str(SEED / "0.2.5.json"), "--fail-on", "warning")
    assert r.returncode == 1


def test_uncompilable_output_schema_names_the_hosts_that_cannot_compile_it():
    def tool(name: str, pattern: str, **extra: object) -> dict:
        return {
            "name": name,
            "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object", "properties": {"s": {"type": "string", "pattern": pattern, **extra}}},
        }

    no_type = tool("nullable_no_type", "^a$")
    no_type["outputSchema"]["properties"]["s"] = {"nullable": True, "enum": ["a", None]}  # Ajv: needs "type"

    snap = snapshot_from_data(
        {
            "protocolVersion": "2025-11-25",
            "tools": [
                tool("python_only", "^(?P<n>a)$"),  # Python named group: a SyntaxError for new RegExp(p, "u")
                tool("ecma_only", "^\\p{L}+$"),  # Unicode property escape: Python re rejects it
                no_type,
                tool("fine", "^[a-z]+$"),
            ],
        },
        source="regex",
    )
    got = {f.tool: (f.pointer, sorted(f.hosts)) for f in lint_snapshot(snap) if f.rule == "output-schema-uncompilable"}
    assert got["python_only"] == ("/properties/s/pattern", ["ts-sdk-v1", "ts-sdk-v2"])
    assert got["ecma_only"] == ("/properties/s/pattern", ["python-sdk"])
    assert got["nullable_no_type"][1] == ["ts-sdk-v1", "ts-sdk-v2"]
    assert "fine" not in got


def test_new_listing_breaker_in_diff_is_breaking():
    old = snapshot_from_data(
        {"protocolVersion": "2025-11-25", "tools": [{"name": "a", "inputSchema": {"type": "object"}}]}, source="o"
    )
    new = snapshot_from_data(
        {
            "protocolVersion": "2025-11-25",
            "tools": [
                {"name": "a", "inputSchema": {"type": "object"}},
                {"name": "z", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}},
            ],
        },
        source="n",
    )
    findings = diff_with_mode(old, new)
    assert ("z", "output-schema-not-object", "breaking") in {(f.tool, f.rule, f.severity) for f in findings}


def test_lint_value_set_hazard_skips_conditions_and_exclusions():
    snap = snapshot_from_data(
        {
            "tools": [
                {
                    "name": "t",
                    "inputSchema": {"type": "object"},
                    "outputSchema": {
                        "type": "object",
                        "properties": {"s": {"type": "string", "not": {"const": "x"}}, "k": {"enum": ["a", "b"]}},
                        "if": {"properties": {"k": {"const": "a"}}},
                        "then": {"required": ["s"]},
                        "dependentSchemas": {"s": {"properties": {"k": {"const": "b"}}}},
                    },
                }
            ]
        },
        source="x",
    )
    hazards = [(f.rule, f.pointer) for f in lint_snapshot(snap) if f.rule == "output-value-set-hazard"]
    assert hazards == [("output-value-set-hazard", "/properties/k/enum")]


def test_a_tool_without_an_input_schema_is_never_silent(tmp_path: Path):
    """MCP requires every tool's inputSchema, and the Python SDK's own ``ListToolsResult`` refuses a listing that
    lacks one: lint says it is missing (not "must have type object"), a diff where both versions lack it says so in
    a note, and a release that drops it is a breaking finding."""
    import json

    import mcp.types
    import pytest
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="inputSchema"):
        mcp.types.ListToolsResult.model_validate({"tools": [{"name": "t"}]})
    old, new, typed = tmp_path / "old.json", tmp_path / "new.json", tmp_path / "typed.json"
    old.write_text(json.dumps({"tools": [{"name": "t", "description": "a"}]}), encoding="utf-8")
    new.write_text(json.dumps({"tools": [{"name": "t", "description": "b"}]}), encoding="utf-8")
    typed.write_text(json.dumps({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}), encoding="utf-8")
    snap = cli("snapshot", "--from-file", str(new), "--out", str(tmp_path / "s.json"))
    assert snap.returncode == 0 and "warning: 1 tool listed without an inputSchema (t)" in snap.stderr, snap.stderr
    lint = cli("lint", "--format", "json", str(new))
    [f] = json.loads(lint.stdout)["findings"]
    assert lint.returncode == 1 and f["rule"] == "input-schema-not-object" and "has no inputSchema" in f["message"]
    both = cli("diff", "--format", "json", str(old), str(new))
    assert both.returncode == 0, both.stderr
    assert any("without an inputSchema in both versions (t)" in n for n in json.loads(both.stdout)["notes"])
    dropped = cli("diff", "--format", "json", str(typed), str(new))
    rules = {(f["rule"], f["severity"]) for f in json.loads(dropped.stdout)["findings"]}
    assert dropped.returncode == 1 and ("input-schema-not-object", "breaking") in rules, dropped.stdout


def test_listing_breakers_say_which_hosts_lose_the_listing_and_which_every_call(tmp_path: Path):
    """Who refuses a listing-time breaker, and how, as the real clients do (tests/test_real_clients.py): a
    boolean property costs TS SDK v1 the whole tools/list; an outputSchema whose validation never ends fails every
    call of the tool on all three; an invalid regex costs TS SDK v1 the listing and python-sdk/TS v2 every call
    (two findings: Python's re and Ajv refuse it with their own words).
    (The line once said "with the whole tools/list" for every one of them.)"""
    import json

    tools = {
        "bool": {"type": "object", "properties": {"a": True}},
        "endless": {"type": "object", "allOf": [{"$ref": "#"}]},
        "regex": {"type": "object", "properties": {"a": {"type": "string", "pattern": "^(a$"}}},
    }
    for side, listed in (("old", {}), ("new", tools)):
        entries = [
            {"name": name, "inputSchema": {"type": "object"}, "outputSchema": listed.get(name, {"type": "object"})}
            for name in tools
        ]
        (tmp_path / f"{side}.json").write_text(json.dumps({"protocolVersion": "2025-11-25", "tools": entries}))
    r = cli("diff", str(tmp_path / "old.json"), str(tmp_path / "new.json"), "-f", "json")
    assert r.returncode == 1, r.stderr
    found = {f["tool"]: f for f in json.loads(r.stdout)["findings"] if f["severity"] == "breaking"}
    assert found["endless"]["rule"] == "output-schema-unvalidatable"
    assert found["endless"]["hosts"] == ["python-sdk", "ts-sdk-v1", "ts-sdk-v2"]
    text = cli("diff", str(tmp_path / "old.json"), str(tmp_path / "new.json")).stdout
    said = [
        ln.strip().split("rejected by ", 1)[1].split(":", 1)[0] for ln in text.splitlines() if "rejected by SDK" in ln
    ]
    assert said == [
        "SDK clients (ts-sdk-v1) with the whole tools/list",  # bool
        "SDK clients (python-sdk, ts-sdk-v1, ts-sdk-v2) on every call of the tool",  # endless
        "SDK clients (python-sdk) on every call of the tool",  # regex: Python's re
        "SDK clients (ts-sdk-v1) with the whole tools/list; SDK clients (ts-sdk-v2) on every call of the tool",  # Ajv
    ], text


def test_diff_and_lint_give_the_same_advice_to_open_an_object():
    """``diff`` (a field added to a closed object) and ``lint`` (the closed-object hazard) name the same way to open
    it per framework: ``diff`` once gave zod 4's ``z.looseObject()`` with no version, which zod 3 lacks."""
    from mcp_schema_audit.rules import RULES

    for rule in ("output-property-added-to-closed-object", "output-closed-object-hazard"):
        assert "zod 3: .passthrough(), zod 4: z.looseObject(); pydantic: no extra='forbid'" in RULES[rule].fix, rule
