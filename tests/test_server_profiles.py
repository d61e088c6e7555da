"""Server validator profiles without servers: inference from real listings (``tests/data/server_validators``,
captured from the servers ``tests/test_server_validators.py`` runs), what each profile does with a witness, the
frameworks' words, and how input findings are judged by ``diff``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcp_schema_audit.diff import diff_snapshots
from mcp_schema_audit.engine.servers import PROFILES, chosen, infer, judge, server_view
from mcp_schema_audit.settings import RunLimits
from mcp_schema_audit.snapshot import snapshot_from_data
from mcp_schema_audit.vocabulary import SERVER_VALIDATORS

LISTINGS = json.loads(
    (Path(__file__).parent / "data" / "server_validators" / "listings.json").read_text(encoding="utf-8")
)["listings"]
INFERRED = {
    "zod3-strip": ("zod-strip", "drop", "zod3"),
    "zod3-strict": ("zod-strip", "drop", "zod3"),  # zod 3 writes .strict() like z.object
    "zod3-passthrough": ("zod-passthrough", "keep", "zod3"),
    "zod3-lowlevel": ("zod-strip", "drop", "zod3"),
    "zod4-strip": ("zod-strip", "schema", "zod4"),
    "zod4-strict": ("zod-strip", "schema", "zod4"),
    "zod4-passthrough": ("zod-strip", "schema", "zod4"),
    "zod4-lowlevel": ("zod-strip", "drop", "zod4"),
    "zod4-lowlevel-strict": ("zod-strip", "drop", "zod4"),
    "pydantic": ("pydantic-ignore", "schema", "pydantic"),
    "jsonschema": ("published", "schema", "jsonschema"),
}


def test_every_listing_is_covered() -> None:
    assert set(LISTINGS) == set(INFERRED)
    assert ("auto", *PROFILES) == SERVER_VALIDATORS


@pytest.mark.parametrize("server", list(INFERRED))
def test_infer_reads_the_framework_from_the_listing(server: str) -> None:
    v = infer(LISTINGS[server])
    assert (v.name, v.extras, v.wording) == INFERRED[server]
    assert v.inferred_from  # always says why


def test_infer_of_nothing_is_published() -> None:
    assert infer([]).name == "published"
    assert infer([{"name": "t", "inputSchema": {"type": "object"}}]).name == "published"


def test_a_named_zod_profile_speaks_the_listings_zod() -> None:
    assert chosen("zod-strict", LISTINGS["zod4-lowlevel"]).wording == "zod4"
    assert chosen("zod-strict", LISTINGS["zod3-strip"]).wording == "zod3"
    assert chosen("pydantic-forbid", LISTINGS["zod4-strip"]).wording == "pydantic"
    assert not chosen("zod-strict", LISTINGS["zod4-strip"]).inferred_from


CLOSED = {
    "type": "object",
    "properties": {
        "a": {"type": "string"},
        "n": {"type": "integer"},
        "c": {"type": "string", "default": "x"},
        "opts": {"type": "object", "properties": {"x": {"type": "string"}}, "additionalProperties": False},
    },
    "required": ["a", "c"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    ("profile", "arguments", "field", "expected"),
    [
        # unknown keys, at the root and nested
        ("zod-strip", {"a": "v", "b": 1}, "dropped", ["/b"]),
        ("pydantic-ignore", {"a": "v", "opts": {"x": "v", "y": 1}}, "dropped", ["/opts/y"]),
        ("zod-passthrough", {"a": "v", "b": 1, "opts": {"y": 2}}, "kept", ["/opts/y", "/b"]),
        (
            "published",
            {"a": "v", "c": "x", "b": 1},
            "rejected",
            [("", "Additional properties are not allowed ('b' was unexpected)")],
        ),
        ("zod-strict", {"a": "v", "opts": {"y": 1}}, "rejected", [("/opts", "Unrecognized key(s) in object: 'y'")]),
        ("pydantic-forbid", {"a": "v", "opts": {"y": 1}}, "rejected", [("/opts/y", "Extra inputs are not permitted")]),
        # defaults
        ("zod-strip", {"a": "v"}, "filled", ["/c"]),
        ("pydantic-ignore", {"a": "v"}, "filled", ["/c"]),
        ("published", {"a": "v"}, "rejected", [("", "'c' is a required property")]),
        # types: pydantic's lax mode takes numeric strings
        ("pydantic-ignore", {"a": "v", "n": "7"}, "coerced", ["/n"]),
        ("pydantic-ignore", {"a": "v", "n": "-3"}, "coerced", ["/n"]),
        ("zod-strip", {"a": "v", "n": "7"}, "rejected", [("/n", "Expected integer, received string")]),
        (
            "pydantic-ignore",
            {"a": "v", "n": 2.5},
            "rejected",
            [("/n", "Input should be a valid integer, got a number with a fractional part")],
        ),
    ],
)
def test_judge(profile: str, arguments: Any, field: str, expected: list[Any]) -> None:
    outcome = judge(PROFILES[profile], CLOSED, arguments)
    assert getattr(outcome, field) == expected
    assert bool(outcome.error) == bool(outcome.rejected)


@pytest.mark.parametrize(
    ("wording", "arguments", "lines"),
    [
        ("zod3", {}, ["Required at a"]),
        ("zod4", {}, ["Invalid input: expected string, received undefined at a"]),
        ("zod3", {"a": 1}, ["Expected string, received number at a"]),
        ("zod4", {"a": 1}, ["Invalid input: expected string, received number at a"]),
        ("zod3", {"a": "v", "e": "z"}, ["Invalid enum value. Expected 'p' | 'q', received 'z' at e"]),
        ("zod4", {"a": "v", "e": "z"}, ['Invalid option: expected one of "p"|"q" at e']),
        ("pydantic", {"a": "v", "e": "z"}, ["e\n  Input should be 'p' or 'q'"]),
        ("pydantic", {}, ["a\n  Field required"]),
        ("jsonschema", {}, ["'a' is a required property"]),
    ],
)
def test_rejections_in_the_frameworks_words(wording: str, arguments: Any, lines: list[str]) -> None:
    from dataclasses import replace

    schema = {"type": "object", "properties": {"a": {"type": "string"}, "e": {"enum": ["p", "q"]}}, "required": ["a"]}
    v = replace(PROFILES["published" if wording == "jsonschema" else "zod-strip"], wording=wording)  # type: ignore[arg-type]
    assert judge(v, schema, arguments).error.split("\n", 1 if wording == "pydantic" else -1) == (
        [lines[0]] if wording != "pydantic" else lines[0].split("\n", 1)
    )


def test_server_view_touches_only_subschemas() -> None:
    schema = {
        "type": "object",
        "properties": {"additionalProperties": {"const": {"additionalProperties": False}}},
        "additionalProperties": False,
    }
    view = server_view(PROFILES["zod-strip"], schema)
    assert "additionalProperties" not in view
    assert view["properties"]["additionalProperties"]["const"] == {"additionalProperties": False}
    assert schema["additionalProperties"] is False  # a copy


def _snapshot(tools: list[dict[str, Any]], label: str) -> Any:
    return snapshot_from_data({"tools": tools}, source=label, label=label)


def test_diff_judges_inputs_by_the_served_version() -> None:
    """Backward: the server runs NEW, so NEW's listing picks the validator; forward: OLD's."""
    old = [{"name": "t", "inputSchema": {**CLOSED, "$schema": "http://json-schema.org/draft-07/schema#"}}]
    props = {k: v for k, v in CLOSED["properties"].items() if k != "n"}
    new = [
        {
            "name": "t",
            "inputSchema": {**CLOSED, "properties": props, "$schema": "http://json-schema.org/draft-07/schema#"},
        }
    ]
    findings = diff_snapshots(_snapshot(old, "1"), _snapshot(new, "2"), RunLimits())
    [f] = [f for f in findings if f.direction == "input"]
    assert (f.rule, f.severity, f.hosts) == ("input-argument-ignored", "warning", [])
    assert f.server == {"validator": "zod-strip", "inferred": True, "outcome": "dropped", "error": ""}
    published = diff_snapshots(_snapshot(old, "1"), _snapshot(new, "2"), RunLimits(), "published")
    [g] = [g for g in published if g.direction == "input"]
    assert (g.rule, g.severity, g.server and g.server["outcome"]) == (
        "input-property-removed-from-closed-object",
        "breaking",
        "rejected",
    )


def test_every_format_says_the_server_drops_a_stripped_argument_not_that_it_rejects_it() -> None:
    """An argument zod strips is dropped without an error: the Markdown summary, the HTML report and JUnit said
    "rejected by the server running 2 (zod-strip, inferred)" (the text report and JSON said what happens)."""
    from runs import run_diff

    from mcp_schema_audit.report import render

    old = [{"name": "t", "inputSchema": {**CLOSED, "$schema": "http://json-schema.org/draft-07/schema#"}}]
    props = {k: v for k, v in CLOSED["properties"].items() if k != "n"}
    new = [
        {
            "name": "t",
            "inputSchema": {**CLOSED, "properties": props, "$schema": "http://json-schema.org/draft-07/schema#"},
        }
    ]
    report = run_diff(_snapshot(old, "1"), _snapshot(new, "2"))
    assert [f.rule for f in report.findings if f.direction == "input"] == ["input-argument-ignored"]
    for fmt in ("markdown", "html", "junit", "github"):
        out = render(report, fmt)
        assert "rejected by the server" not in out, fmt
    said = render(report, "markdown")
    assert "dropped without an error by the server running 2 (zod-strip, inferred)" in said


def test_junit_keeps_a_multi_line_server_error_on_its_lines() -> None:
    """zod's error for two new required arguments has a line per issue: JUnit showed them joined by a literal
    ``\\n``; it now shows each on its own line (as the text report does)."""
    from runs import run_diff

    from mcp_schema_audit.report import render

    d7 = {"$schema": "http://json-schema.org/draft-07/schema#"}
    old = [{"name": "t", "inputSchema": {**CLOSED, **d7}}]
    props = {**CLOSED["properties"], "r1": {"type": "string"}, "r2": {"type": "string"}}
    new = [{"name": "t", "inputSchema": {**CLOSED, **d7, "properties": props, "required": ["a", "c", "r1", "r2"]}}]
    report = run_diff(_snapshot(old, "1"), _snapshot(new, "2"))
    errors = [f.witness["error"] for f in report.findings if f.witness and "\n" in str(f.witness.get("error"))]
    assert errors, [(f.rule, f.witness) for f in report.findings]
    junit = render(report, "junit")
    assert "\\n" not in junit
    for line in errors[0].splitlines()[1:]:
        assert f"\n    {line.strip()}" in junit, junit


def test_an_ignored_argument_whose_call_fails_anyway_says_so_once() -> None:
    """An optional argument renamed beside a new required one: the old call carrying it is dropped by zod and fails
    for the missing argument. The finding said "drops it without an error, (the witness call fails for another
    reason) (…; the call fails for another reason: Required at a Required at b)"; now the detail says what the
    validator does, and the reason once why the call fails, zod's issues apart."""
    from mcp_schema_audit.report.model import detail

    d7 = {"$schema": "http://json-schema.org/draft-07/schema#", "additionalProperties": False}

    def tool(props: list[str], required: list[str]) -> list[dict[str, Any]]:
        schema = {**d7, "type": "object", "properties": {p: {"type": "string"} for p in props}, "required": required}
        return [{"name": "t", "inputSchema": schema}]

    old, new = (
        tool(["customer", "verbose"], ["customer"]),
        tool(["customer_name", "region"], ["customer_name", "region"]),
    )
    [f] = [
        f
        for f in diff_snapshots(_snapshot(old, "1"), _snapshot(new, "2"), RunLimits())
        if f.rule == "input-argument-ignored"
    ]
    assert detail(f).endswith("drops it without an error"), detail(f)
    assert f.reason.count("fails for another reason") == 1 and f.reason.endswith(
        "a call carrying it fails for another reason: Required at customer_name; Required at region"
    ), f.reason
