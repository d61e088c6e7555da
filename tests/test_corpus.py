"""Real ``tools/list`` captures of published servers (``fixtures/corpus/<server>/<version>.json``).

Every file must load as it is, every consecutive version pair must diff, and the known changes
between versions (see ``fixtures/corpus/README.md``) must come out with the right rules and severities.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from jsonschema.validators import Draft202012Validator, validator_for
from referencing import Registry

from mcp_schema_audit.engine.servers import infer, judge

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "corpus"
RANK = {"info": 0, "warning": 1, "breaking": 2}


def _version_key(path: Path) -> tuple[int, ...]:
    return tuple(int(x) for x in path.stem.split("."))


SERVERS = {d.name: sorted(d.glob("*.json"), key=_version_key) for d in sorted(CORPUS.iterdir()) if d.is_dir()}
FILES = [f for files in SERVERS.values() for f in files]
PAIRS = [(s, a.stem, b.stem) for s, files in SERVERS.items() for a, b in zip(files, files[1:], strict=False)]


def raw_tools(server: str, version: str) -> dict[str, dict[str, Any]]:
    data = json.loads((CORPUS / server / f"{version}.json").read_text(encoding="utf-8"))
    return {t["name"]: t for t in data["tools"]}


@cache
def diff(server: str, old: str, new: str) -> tuple[Any, ...]:
    from mcp_schema_audit.diff import diff_snapshots
    from mcp_schema_audit.snapshot import load_snapshot

    a = load_snapshot(str(CORPUS / server / f"{old}.json"))
    b = load_snapshot(str(CORPUS / server / f"{new}.json"))
    return tuple(diff_snapshots(a, b))


def brief(findings: Any) -> list[tuple[str, str, str, str]]:
    return sorted((f.tool, f.rule, f.severity, f.pointer) for f in findings)


def is_valid(schema: Any, instance: Any, *, formats: bool = False) -> bool:
    cls = validator_for(schema, default=Draft202012Validator)
    return cls(schema, registry=Registry(), format_checker=cls.FORMAT_CHECKER if formats else None).is_valid(instance)


def by_rule(findings: Any, rule: str) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for f in findings:
        if f.rule == rule:
            out.setdefault(f.tool, []).append(f)
    return out


def test_corpus_is_complete() -> None:
    assert {s: [f.stem for f in fs] for s, fs in SERVERS.items()} == {
        "mcp-neo4j-data-modeling": ["0.1.1", "0.2.0"],
        "mcp-server-time": ["2026.10.10", "2026.10.19"],
        "sentry-mcp-server": ["0.36.0", "0.39.0"],
        "server-everything": ["2025.12.18", "2026.1.14"],
        "server-memory": ["2025.9.25", "2025.11.25", "2026.8.31"],
    }


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_every_file_loads(path: Path) -> None:
    from mcp_schema_audit.snapshot import load_snapshot

    data = json.loads(path.read_text(encoding="utf-8"))
    snap = load_snapshot(str(path))
    assert [t["name"] for t in snap.tools] == sorted(t["name"] for t in data["tools"])
    assert snap.tool_map() == {t["name"]: t for t in data["tools"]}  # kept exactly as sent
    assert snap.server.get("name") == data["server"]["name"]
    assert snap.protocol_version == data["protocolVersion"]


@pytest.mark.parametrize("pair", PAIRS, ids=[f"{s}:{a}->{b}" for s, a, b in PAIRS])
def test_every_consecutive_pair_diffs(pair: tuple[str, str, str]) -> None:
    server, old, new = pair
    findings = diff(server, old, new)
    assert findings, "every pair in the corpus has changes"
    told, tnew = raw_tools(server, old), raw_tools(server, new)
    for f in findings:
        assert f.severity in RANK
        if f.surface != "tool":  # the server's capabilities and instructions (the corpus has no other lists)
            assert f.surface == f.direction == "server" and f.tool == "" and f.severity != "breaking", f
            continue
        assert f.direction in ("input", "output", "tool")
        assert f.tool in told or f.tool in tnew
        if f.severity != "breaking" or f.direction == "tool":
            continue
        key = "outputSchema" if f.direction == "output" else "inputSchema"
        o, n = told[f.tool].get(key), tnew[f.tool].get(key)
        w = f.witness
        assert w is not None, (f.tool, f.rule, f.pointer)
        acc, rej = (n, o) if f.direction == "output" else (o, n)
        inst = w["instance"]
        confirmed = [
            fm for fm in (False, True) if is_valid(acc, inst, formats=fm) and not is_valid(rej, inst, formats=fm)
        ]
        assert confirmed, (f.tool, f.rule, f.pointer, inst)
        if f.server is not None and f.server["validator"] != "published":
            # judged by the server's own framework (zod, pydantic): the error is that framework's, for the
            # listing the server serves, and the server really rejects the witness
            assert f.server["outcome"] == "rejected" and not f.hosts, (f.tool, f.rule, f.server)
            validator = infer(list(tnew.values()))
            assert validator.name == f.server["validator"], (validator, f.server)
            outcome = judge(validator, n, inst)
            assert outcome.rejected and w["error"] == outcome.error, (f.tool, f.rule, outcome, w["error"])
            continue
        cls = validator_for(rej, default=Draft202012Validator)
        checker = cls.FORMAT_CHECKER if confirmed[0] else None
        errors = [e.message for e in cls(rej, registry=Registry(), format_checker=checker).iter_errors(inst)]
        assert len(errors) == 1 and w["error"].startswith(errors[0]), (
            f.tool,
            f.rule,
            f.pointer,
            inst,
            errors,
            w["error"],
        )  # isolated witness


# ------------------------------------------------------------------------------------------------
# server-everything: the camelCase -> kebab-case rename
# ------------------------------------------------------------------------------------------------


#: server-everything's renames that kept the schemas (camelCase to kebab-case): one tool-renamed finding each
EVERYTHING_RENAMED = {
    "add": "get-sum",
    "annotatedMessage": "get-annotated-message",
    "getResourceLinks": "get-resource-links",
    "longRunningOperation": "trigger-long-running-operation",
}


def test_everything_renames_with_the_same_schemas_are_renames_the_rest_remove_plus_add() -> None:
    old, new = raw_tools("server-everything", "2025.12.18"), raw_tools("server-everything", "2026.1.14")
    findings = diff("server-everything", "2025.12.18", "2026.1.14")
    removed, added = by_rule(findings, "tool-removed"), by_rule(findings, "tool-added")
    renamed = by_rule(findings, "tool-renamed")
    assert {k: v[0].new for k, v in renamed.items()} == EVERYTHING_RENAMED, brief(findings)
    assert all(len(v) == 1 and v[0].severity == "breaking" for v in renamed.values())
    # `echo` kept its name; every other tool was renamed, four of them with their schemas unchanged
    assert set(removed) == set(old) - {"echo"} - set(EVERYTHING_RENAMED) and len(removed) == 6, brief(findings)
    assert set(added) == set(new) - {"echo"} - set(EVERYTHING_RENAMED.values()) and len(added) == 7, brief(findings)
    assert all(len(v) == 1 and v[0].severity == "breaking" for v in removed.values())
    assert all(len(v) == 1 and v[0].severity == "info" for v in added.values())
    echo = [f for f in findings if f.tool == "echo"]
    assert "tool-description-changed" in {f.rule for f in echo}, brief(echo)
    assert all(f.severity == "info" for f in echo), brief(echo)  # description, title: nothing structural
    # a removed (or renamed) tool is one finding, not one per schema keyword
    gone = set(removed) | set(renamed)
    assert not [f for f in findings if f.tool in gone and f.rule not in ("tool-removed", "tool-renamed")], brief(
        findings
    )


# ------------------------------------------------------------------------------------------------
# sentry-mcp-server 0.36.0 -> 0.39.0
# ------------------------------------------------------------------------------------------------

SENTRY_REMOVED = {
    "create_dsn",
    "create_project",
    "create_team",
    "find_dsns",
    "find_releases",
    "find_teams",
    "get_doc",
    "get_event_attachment",
    "get_issue_tag_values",
    "get_profile_details",
    "get_replay_details",
    "search_docs",
    "search_issue_events",
    "update_project",
    "whoami",
}


@pytest.fixture(scope="module")
def sentry() -> tuple[Any, ...]:
    return diff("sentry-mcp-server", "0.36.0", "0.39.0")


def test_sentry_tools_removed_and_added(sentry: tuple[Any, ...]) -> None:
    removed = [f for f in sentry if f.rule == "tool-removed"]
    assert len(removed) == 15 and {f.tool for f in removed} == SENTRY_REMOVED, brief(removed)
    assert all(f.severity == "breaking" for f in removed)
    added = {f.tool: f.severity for f in sentry if f.rule == "tool-added"}
    assert added == {"execute_sentry_tool": "info", "search_sentry_tools": "info"}


def test_sentry_input_enum_gains_and_loses_values(sentry: tuple[Any, ...]) -> None:
    res = [f for f in sentry if f.tool == "get_sentry_resource" and f.direction == "input"]
    lost = [f for f in res if f.rule == "input-enum-value-removed"]
    assert lost and all(f.severity == "breaking" and f.pointer.startswith("/properties/resourceType") for f in lost), (
        brief(res)
    )
    assert {f.witness["instance"]["resourceType"] for f in lost} <= {"span", "breadcrumbs", "snapshotImage"}
    gained = [f for f in res if f.rule == "input-enum-value-added"]
    assert gained and all(f.severity == "info" and f.pointer.startswith("/properties/resourceType") for f in gained), (
        brief(res)
    )
    assert "monitor" in json.dumps([f.new for f in gained]) + " ".join(f.message for f in gained)

    sort = [f for f in sentry if f.tool == "search_issues" and f.pointer.startswith("/properties/sort")]
    assert [(f.rule, f.severity) for f in sort] == [("input-enum-value-added", "info")], brief(sort)


def test_sentry_breaking_tools_are_exactly_the_real_breaks(sentry: tuple[Any, ...]) -> None:
    """Removed tools, the lost resourceType values and `environment: null` no longer accepted by
    search_events. The new `maximum: 2^53-1` on update_issue's integer arguments (zod 4 adds it to every
    `.int()`) is representation drift at the interoperability limit (RFC 7493 §2.2): info, not a break."""
    breaking = {f.tool for f in sentry if f.severity == "breaking"}
    assert breaking == SENTRY_REMOVED | {"get_sentry_resource", "search_events"}, brief(
        f for f in sentry if f.severity == "breaking"
    )
    env = [f for f in sentry if f.tool == "search_events" and f.severity == "breaking"]
    assert env and all(f.pointer.startswith("/properties/environment") for f in env), brief(env)
    assert all(f.witness["instance"]["environment"] is None for f in env)
    upd = [f for f in sentry if f.tool == "update_issue" and f.rule == "interop-bound-changed"]
    assert upd and all(f.pointer.startswith("/properties/ignore") and f.severity == "info" for f in upd), brief(upd)
    assert not [f for f in sentry if f.tool == "update_issue" and f.severity != "info"], brief(sentry)


def test_sentry_equivalent_and_open_changes_are_not_alarms(sentry: tuple[Any, ...]) -> None:
    # sort: anyOf [string, null] -> type [string, null] is the same instance set
    sort = [f for f in sentry if f.tool == "search_events" and f.pointer.startswith("/properties/sort")]
    assert all(f.severity == "info" for f in sort), brief(sort)
    # the input objects lost additionalProperties:false: every old call is still accepted
    shared = {
        "analyze_issue_with_seer",
        "find_organizations",
        "find_projects",
        "get_sentry_resource",
        "search_events",
        "search_issues",
        "update_issue",
    }
    opened = {f.tool for f in sentry if f.rule == "input-object-opened" and f.pointer in ("", "/additionalProperties")}
    assert opened == shared, brief(sentry)
    assert all(f.severity == "info" for f in sentry if f.rule == "input-object-opened")
    out = {f.tool: f.severity for f in sentry if f.rule == "output-schema-added"}
    assert out == {"find_organizations": "info", "find_projects": "info"}
    for tool in ("analyze_issue_with_seer", "find_organizations", "find_projects", "search_issues"):
        assert all(f.severity != "breaking" for f in sentry if f.tool == tool)


# ------------------------------------------------------------------------------------------------
# server-memory, mcp-server-time, mcp-neo4j-data-modeling: outputSchemas appear
# ------------------------------------------------------------------------------------------------


def test_memory_output_schemas_appear_and_inputs_open() -> None:
    names = set(raw_tools("server-memory", "2025.11.25"))
    findings = diff("server-memory", "2025.9.25", "2025.11.25")
    added = by_rule(findings, "output-schema-added")
    assert set(added) == names and len(names) == 9, brief(findings)
    assert all(len(v) == 1 and v[0].severity == "info" for v in added.values())
    opened = {
        f.tool for f in findings if f.rule == "input-object-opened" and f.pointer in ("", "/additionalProperties")
    }
    assert opened == names, brief(findings)
    assert not [f for f in findings if f.severity == "breaking"], brief(findings)
    # $schema draft-07 appears (default dialect was 2020-12), but no keyword of these schemas reads
    # differently in the two dialects: info, not a warning on every tool
    assert not [f for f in findings if f.direction == "input" and f.severity != "info"], brief(findings)
    dialect = {(f.tool, f.rule, f.severity) for f in findings if f.rule.startswith("dialect-changed")}
    assert dialect == {(n, "dialect-changed-no-effect", "info") for n in names}, brief(findings)


def test_memory_annotations_only() -> None:
    findings = diff("server-memory", "2025.11.25", "2026.8.31")
    # annotations appear, all explicit and none riskier than the spec defaults of an absent annotation
    assert not [f for f in findings if f.direction in ("input", "output")], brief(findings)
    assert all(f.severity == "info" for f in findings), brief(findings)


def test_time_open_output_schemas_appear() -> None:
    findings = diff("mcp-server-time", "2026.10.10", "2026.10.19")
    assert {f.tool for f in findings if f.rule == "output-schema-added"} == {"get_current_time", "convert_time"}
    # inputs only gained `title` annotations (pydantic): nothing above info
    assert all(f.severity == "info" for f in findings), brief(findings)


def test_neo4j_output_schemas_with_refs_appear() -> None:
    names = set(raw_tools("mcp-neo4j-data-modeling", "0.2.0"))
    findings = diff("mcp-neo4j-data-modeling", "0.1.1", "0.2.0")
    assert {f.tool for f in findings if f.rule == "output-schema-added"} == names and len(names) == 9
    assert {f.tool for f in findings if f.rule == "tool-description-changed"} == {
        "get_node_cypher_ingest_query",
        "get_relationship_cypher_ingest_query",
    }
    # inputs only changed `title` annotations next to $ref: nothing above info
    assert all(f.severity == "info" for f in findings), brief(findings)
