"""Budgets inside one tool: a single tool's schemas cannot escape ``--time-budget`` or the counted work budgets.
Before: a 640-entry ``dependentRequired`` chain took minutes with ``--time-budget 20`` (exit 0), a ``required``
list of 50,000 names 47 s (list membership in a loop), 30,000 required output keys 28 s."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import timing

pytestmark = pytest.mark.timing
CLI = [sys.executable, "-m", "mcp_schema_audit"]


def _props(n: int) -> dict[str, dict[str, str]]:
    return {f"p{i}": {"type": "string"} for i in range(n)}


def _pair(tmp_path: Path, old: dict, new: dict, where: str = "inputSchema") -> list[str]:
    paths = []
    for name, schema in (("old", old), ("new", new)):
        tool = {"name": "t", "description": "d", "inputSchema": {"type": "object"}, where: schema}
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps({"tools": [tool]}), encoding="utf-8")
        paths.append(str(path))
    return paths


def _diff(paths: list[str], *extra: str, timeout: float = 120) -> tuple[int, dict | None, str, timing.Timing]:
    proc, took = timing.run([*CLI, "diff", "--format", "json", *extra, *paths], timeout=timeout, text=True)
    report = json.loads(proc.stdout) if proc.stdout.strip() else None
    return proc.returncode, report, proc.stderr, took


def test_a_dependent_required_chain_stops_inside_the_tool_at_the_time_budget(tmp_path: Path):
    n = 640
    paths = _pair(
        tmp_path,
        {"type": "object", "properties": _props(n)},
        {
            "type": "object",
            "properties": _props(n),
            "dependentRequired": {f"p{i}": [f"p{i + 1}"] for i in range(n - 1)},
        },
    )
    code, report, err, took = _diff(paths, "--time-budget", "1")
    if code == 4:  # the guard fired inside the tool's walk: one line, no report
        assert (
            report is None and "inside one tool (the --time-budget guard" in err and len(err.strip().splitlines()) == 1
        )
    else:  # or the counted work budget decided first (a fast machine): undecided, never minutes
        assert code == 0 and {f["rule"] for f in report["findings"]} == {"schema-undecidable"}, err
    assert took.unloaded() < 20, took.describe()
    # without a time limit the counted work budget decides, the same on every machine
    code, report, err, took = _diff(paths, "--time-budget", "0")
    assert code == 0 and {f["rule"] for f in report["findings"]} == {"schema-undecidable"}, err
    assert took.unloaded() < 40, took.describe()


def test_a_long_required_list_is_compared_with_sets(tmp_path: Path):
    n = 50_000
    required = [f"p{i}" for i in range(n)]
    paths = _pair(
        tmp_path,
        {"type": "object", "properties": _props(n), "required": required},
        {"type": "object", "properties": _props(n), "required": required[1:] + ["zz"]},
    )
    code, report, err, took = _diff(paths)
    assert code in (0, 1) and report is not None, err
    assert took.unloaded() < 40, took.describe()


def test_thirty_thousand_required_output_keys_take_linear_time(tmp_path: Path):
    n = 30_000
    paths = _pair(
        tmp_path,
        {"type": "object", "properties": _props(n)},
        {"type": "object", "properties": _props(n), "required": list(_props(n))},
        where="outputSchema",
    )
    code, report, err, took = _diff(paths)
    assert code == 0 and report is not None, err
    assert report["summary"]["warning"] == n and {f["rule"] for f in report["findings"]} == {"output-required-added"}
    assert took.unloaded() < 60, took.describe()


def test_regex_searches_count_against_the_work_budget_wherever_they_run():
    """Every regex search counts (``SEARCHES_PER_PAIR`` a node pair), not only the ``patternProperties`` loop of
    a declared key: a ``propertyNames`` pattern whose names are read against 20,000 ``patternProperties`` ran
    millions of uncounted searches (16 s) before the work budget stopped it; now the searches are the budget."""
    sys.path.insert(0, str(Path(__file__).parent))
    from runs import run_diff

    from mcp_schema_audit.engine.meter import SEARCHES_PER_PAIR, WORK_BUDGET
    from mcp_schema_audit.schema.regex_cost import regex_searches
    from mcp_schema_audit.snapshot import snapshot_from_data

    patterns = {f"^p{i}_[a-z]+$": {"type": "string"} for i in range(20_000)}
    old = {"type": "object", "additionalProperties": {"type": "string"}, "propertyNames": {"pattern": "^q[a-z]{2}$"}}
    new = {"type": "object", "patternProperties": patterns, "additionalProperties": False}
    snaps = [
        snapshot_from_data({"tools": [{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": s}]}, source=f)
        for s, f in ((old, "old.json"), (new, "new.json"))
    ]
    before = regex_searches()
    report = run_diff(*snaps, jobs=1)
    searched = regex_searches() - before
    assert {f.rule for f in report.findings} == {"schema-undecidable"}
    assert "work budget exceeded" in report.findings[0].message
    # at most the budget's worth of searches per direction, plus one pair's prepaid run of patternProperties
    assert searched <= 2 * (WORK_BUDGET * SEARCHES_PER_PAIR + 2 * len(patterns)), searched


def _allof_copies(n: int, copies: int, max_length: int) -> dict:
    """``n`` string properties bounded by ``max_length``, re-declared by ``copies`` ``allOf`` members: the walk merges
    the members once, but every validation of the whole schema walks each of them (a costly whole-schema
    validation for each of the ``n`` witnesses)."""
    return {
        "type": "object",
        "properties": {f"p{i}": {"type": "string", "maxLength": max_length} for i in range(n)},
        "allOf": [{"title": f"c{j}", "properties": _props(n)} for j in range(copies)],
    }


def test_confirming_and_judging_witnesses_count_against_the_tools_budget(tmp_path: Path):
    """The walk was counted; the confirmation of each witness on both whole schemas and the server validator's
    judgement of it were not (300 tightened arguments under 20 ``allOf`` copies: 9.5 s, 1,800 uncounted
    validations of a 170 KB schema). Now they charge the tool's meter: the witnesses past the budget are reported
    unproven (a warning naming the spent budget), and the run is bounded."""
    tool = _allof_copies(300, 20, 10), _allof_copies(300, 20, 5)
    doubled = tmp_path / "doubled"
    doubled.mkdir()
    for name, schema in (("old", tool[0]), ("new", tool[1])):  # the same pair in two tools: a cached walk
        tools = [{"name": t, "inputSchema": schema} for t in ("a", "b")]
        (doubled / f"{name}.json").write_text(json.dumps({"tools": tools}), encoding="utf-8")
    code, report, err, took = _diff([str(doubled / "old.json"), str(doubled / "new.json")], "-j", "1")
    assert code == 1 and report is not None, err
    verdicts: dict[str, dict[str, int]] = {}
    for f in report["findings"]:
        assert f["rule"] == "input-constraint-tightened", f
        counts = verdicts.setdefault(f["tool"], {})
        counts[f["severity"]] = counts.get(f["severity"], 0) + 1
        if f["severity"] == "warning":
            assert "work budget was spent before" in f["reason"] and "not proven" in f["reason"], f["reason"]
    a = verdicts["a"]
    assert a.get("breaking", 0) > 0 and a.get("warning", 0) > 0 and sum(a.values()) == 300, a
    assert verdicts["b"] == a, "a walk answered from the cache must leave the later stages the same budget"
    assert took.unloaded() < 30, took.describe()


def test_a_spent_meter_leaves_witnesses_unchecked_and_unjudged():
    """A stage after the walk gets what the walk left: with the budget spent, ``confirm`` and ``judge_inputs``
    report the break unproven instead of validating."""
    from mcp_schema_audit.engine import compare_schemas, servers
    from mcp_schema_audit.engine.arguments import UNJUDGED, judge_inputs
    from mcp_schema_audit.engine.confirm import UNCHECKED, issue_to_finding
    from mcp_schema_audit.engine.meter import VALIDATION_BUDGET, Meter
    from mcp_schema_audit.engine.walk import new_context
    from mcp_schema_audit.schema import SchemaDoc

    old, new = _allof_copies(3, 1, 10), _allof_copies(3, 1, 5)
    fresh = compare_schemas(old, new, "input", "t")
    assert [f.severity for f in fresh] == ["breaking"] * 3
    spent = Meter()
    spent.add((0, VALIDATION_BUDGET))
    walked = compare_schemas(old, new, "input", "u", meter=spent)  # nothing left even for the walk: undecided
    assert [f.rule for f in walked] == ["schema-undecidable"] and "validation budget" in walked[0].message
    p_doc, v_doc = SchemaDoc(old), SchemaDoc(new)
    issues = new_context(p_doc, v_doc).compare(old, new)  # the walk on a budget of its own, then confirmation
    unchecked = [issue_to_finding(i, "u", "input", p_doc, v_doc, spent) for i in issues]
    assert [f.severity for f in unchecked] == ["warning"] * 3 and all(UNCHECKED in f.reason for f in unchecked)
    validator = servers.PROFILES["published"]
    assert [f.severity for f in judge_inputs(fresh, new, validator, old)] == ["breaking"] * 3
    unjudged = judge_inputs(fresh, new, validator, old, spent)
    assert [f.severity for f in unjudged] == ["warning"] * 3 and all(UNJUDGED in f.reason for f in unjudged)
