"""The host and model-provider profiles (``schema.portability``): every rule case's verdict, the profiles' size,
every rule's record (source, evidence, its own example fires it).

The rule cases live in ``tests/cases/portability/cases.json``: ``{"id", "host", "tool": the tool entry, "state":
usable|degraded|unusable, "rules": the host rules that fire, optional "index"/"listed"/"server"}``. The same
schemas are run through the providers' own code in ``tests/test_portability_providers.py``.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import gen_hosts_doc  # noqa: E402

from mcp_schema_audit.schema.portability import ALL_RULES, HOST_NAMES, PROFILES, Tool, judge_listing, judge_tool
from mcp_schema_audit.schema.portability.record import EVIDENCE

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "cases" / "portability" / "cases.json").read_text(encoding="utf-8")
)


def case_tool(case: dict[str, Any]) -> Tool:
    return Tool(case["tool"], case.get("index", 0), case.get("listed", 1), case.get("server", ""))


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_rule_case(case: dict[str, Any]) -> None:
    verdict = judge_tool(case_tool(case), case["host"])
    assert verdict.state == case["state"], [(r.id, h.words) for r, h in verdict.hits]
    assert sorted({r.id for r, _ in verdict.hits}) == case["rules"]


def test_seven_profiles_each_with_eight_cases_of_every_state() -> None:
    assert set(HOST_NAMES) == {"openai-strict", "openai", "gemini", "anthropic", "claude-code", "vscode", "cursor"}
    for host in HOST_NAMES:
        states = Counter(c["state"] for c in CASES if c["host"] == host)
        assert sum(states.values()) >= 8, host
        assert states["usable"] and states["unusable"], host
    degraded_hosts = {c["host"] for c in CASES if c["state"] == "degraded"}
    # the hosts that only accept or refuse (their documented rules never drop part of a tool)
    assert degraded_hosts == {"openai-strict", "gemini"}


def test_every_rule_is_documented_and_has_a_firing_case() -> None:
    assert len(ALL_RULES) > 4  # the MCP Inspector's --strict lint has four generic rules
    fired = {rule for c in CASES for rule in c["rules"]}
    ids = [r.id for r in ALL_RULES]
    assert len(ids) == len(set(ids))
    for rule in ALL_RULES:
        assert rule.id in fired, f"no rule case fires {rule.id}"
        assert rule.source and rule.behaviour and rule.title and rule.evidence in EVIDENCE
        assert set(rule.hosts) <= set(HOST_NAMES)
        if rule.effect not in ("accepts",):
            assert rule.fix, rule.id


@pytest.mark.parametrize("rule", [r for r in ALL_RULES if r.before.startswith("{")], ids=lambda r: r.id)
def test_a_rules_own_example_fires_it(rule: Any) -> None:
    example = json.loads(rule.before)
    is_entry = any(k in example for k in ("name", "_meta", "inputSchema", "outputSchema"))
    entry = {
        "name": "t",
        "inputSchema": {"type": "object"},
        **(example if is_entry else {"description": "d", "inputSchema": example}),
    }
    for host in rule.hosts:
        assert rule.id in {r.id for r, _ in judge_tool(Tool(entry), host).hits}, (host, rule.id)


def test_a_failing_listing_takes_every_tool_with_it() -> None:
    good = {"name": "good", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}
    bad = {"name": "bad", "inputSchema": {"type": "object", "additionalProperties": False}}
    verdicts = {v.tool: v for v in judge_listing([good, bad], ["gemini", "vscode"])["gemini"]}
    assert verdicts["bad"].listing_fails and verdicts["bad"].state == "unusable"
    assert verdicts["good"].state == "unusable" and verdicts["good"].lost_with == ("bad",)
    assert not verdicts["good"].hits
    assert [v.state for v in judge_listing([good, bad], ["vscode"])["vscode"]] == ["usable", "usable"]


@pytest.mark.parametrize("schema", [None, 3, [], "x", {"type": "object", "properties": []}, {"$ref": 5}, True])
def test_hostile_schemas_never_raise(schema: Any) -> None:
    for host in PROFILES:
        judge_tool(Tool({"name": 7, "inputSchema": schema, "_meta": [], "outputSchema": "x"}), host)


def test_hosts_doc_is_generated_from_the_profiles_and_the_corpus() -> None:
    text = (Path(__file__).resolve().parent.parent / "docs" / "hosts.md").read_text(encoding="utf-8")
    assert text == gen_hosts_doc.render(), "docs/hosts.md is out of date: run python scripts/gen_hosts_doc.py"
    for host in HOST_NAMES:
        assert f"### {host}\n" in text


SPELLED = {
    "type": "object",
    "properties": {
        "id": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        "mode": {"const": "fast"},
        "v": True,
        "tags": {"type": "array"},
        "k": {"oneOf": [{"type": "string", "minLength": 1}, {"type": "integer"}]},
        "o": {"oneOf": [{"type": "number"}, {"type": "integer"}]},
    },
}


@pytest.mark.parametrize(
    ("host", "pointer", "spelling"),
    [
        ("cursor", "/properties/id/anyOf", '{"type":["string","integer"]}'),
        ("gemini", "/properties/mode/const", '{"enum":["fast"]}'),
        ("gemini", "/properties/v", "{}"),
        ("openai", "/properties/tags", '{"items":{},"type":"array"}'),
        ("gemini", "/properties/k/oneOf", '{"anyOf":[{"minLength":1,"type":"string"},{"type":"integer"}]}'),
        ("cursor", "/properties/k/oneOf", None),  # anyOf is no better on Cursor
        ("gemini", "/properties/o/oneOf", None),  # an integer matches both branches: anyOf is not equivalent
        ("gemini", "/properties/k/oneOf/0/minLength", None),  # no mechanical spelling
    ],
)
def test_a_portable_spelling_is_shown_only_when_the_engine_finds_it_equivalent(
    host: str, pointer: str, spelling: str | None
) -> None:
    from mcp_schema_audit.portable import spelled

    tool = {"name": "t", "description": "d", "inputSchema": SPELLED}
    rule, hit = next((r, h) for r, h in judge_tool(Tool(tool), host).hits if h.pointer == pointer)
    assert spelled(tool, rule, hit, [host]) == spelling


def test_the_optional_required_fix_names_the_parameter_and_its_type():
    """openai-strict makes an optional parameter required: the fix spells that parameter, with its own type and
    null allowed (not the rule's example ``limit``)."""
    from mcp_schema_audit.schema.portability import Tool as HostTool
    from mcp_schema_audit.schema.portability import judge_tool as judge

    schema = {
        "type": "object",
        "properties": {"q": {"type": "string"}, "extra": {"type": "string"}, "tags": {"enum": ["a", "b"]}},
        "required": ["q"],
    }
    hits = {
        h.parameter: h.fix
        for r, h in judge(HostTool({"name": "t", "inputSchema": schema}), "openai-strict").hits
        if r.id == "openai-strict-optional-required"
    }
    assert hits["extra"].startswith('required, with null allowed: "extra": {"type":["string","null"]}')
    assert '"tags": {"anyOf":[{"enum":["a","b"]},{"type":"null"}]}' in hits["tags"]
    assert "zod: .nullish()" in hits["extra"] and "q" not in hits


def test_optional_advice_fits_a_field_that_already_takes_null_or_has_a_default() -> None:
    """pydantic's ``tags: list[str] | None = None`` already takes null: the advice is to read null as not given
    (it suggested wrapping it in a second anyOf with null); ``limit: int = 10``: null must be read as the default
    (``X | None = None`` alone would lose the 10)."""
    schema = {
        "type": "object",
        "properties": {
            "q": {"type": "string"},
            "tags": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}], "default": None},
            "limit": {"type": "integer", "default": 10},
        },
        "required": ["q"],
    }
    hits = {
        h.parameter: h
        for r, h in judge_tool(Tool({"name": "t", "inputSchema": schema}), "openai-strict").hits
        if r.id == "openai-strict-optional-required"
    }
    assert hits["tags"].fix == "take null as not given on the server (zod: .nullish(); pydantic's X | None = None does)"
    assert "already accepts" in hits["tags"].words and '"anyOf"' not in hits["tags"].fix
    assert hits["limit"].fix.endswith("; apply the default 10 when null comes")
