"""The CI gate: modes (backward, forward, full), exit codes per --fail-on, forward wording, rules and explain.

History and cohorts: ``test_gate_history.py``; config and ignore list: ``test_gate_config.py``; git inputs:
``test_gate_git.py``; lint and listing breakers: ``test_gate_lint.py``.
"""

from __future__ import annotations

import json

import pytest
from gate_helpers import SEED, cli

from mcp_schema_audit.diff import diff_with_mode
from mcp_schema_audit.errors import UsageError
from mcp_schema_audit.snapshot import snapshot_from_data


def test_modes_forward_and_full():
    old = snapshot_from_data(
        {
            "tools": [
                {
                    "name": "t",
                    "inputSchema": {"type": "object"},
                    "outputSchema": {"type": "object", "properties": {"a": {"type": "string"}}},
                }
            ]
        },
        source="old",
    )
    new = snapshot_from_data(
        {
            "tools": [
                {
                    "name": "t",
                    "inputSchema": {"type": "object"},
                    "outputSchema": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                }
            ]
        },
        source="new",
    )
    backward = diff_with_mode(old, new, "backward")
    assert [(f.rule, f.severity) for f in backward] == [("output-required-added", "warning")]
    forward = diff_with_mode(old, new, "forward")
    assert [(f.rule, f.severity) for f in forward] == [("output-required-removed", "breaking")]
    assert forward[0].tags == ["forward"] and forward[0].witness["instance"] == {}
    full = diff_with_mode(old, new, "full")  # the rollback hazard's warning gives way to the break it is
    assert sorted(f.rule for f in full) == ["output-required-removed"]
    with pytest.raises(UsageError):
        diff_with_mode(old, new, "sideways")


@pytest.mark.parametrize("fail_on,code", [("breaking", 1), ("warning", 1), ("info", 1), ("never", 0)])
def test_exit_code_per_fail_on_with_breaking_findings(fail_on: str, code: int):
    r = cli("diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), "--fail-on", fail_on, "--format", "json")
    assert r.returncode == code and json.loads(r.stdout)["gate"] == {"fail_on": fail_on, "passed": code == 0}


@pytest.mark.parametrize("fail_on,code", [("breaking", 0), ("warning", 1), ("info", 1), ("never", 0)])
def test_exit_code_per_fail_on_with_only_warnings(fail_on: str, code: int):
    r = cli("diff", str(SEED / "0.2.6.json"), str(SEED / "0.2.7.json"), "--fail-on", fail_on)
    assert r.returncode == code, r.stderr


def test_rules_and_explain():
    r = cli("rules", "--format", "json")
    ids = {x["id"] for x in json.loads(r.stdout)}
    assert {"tool-removed", "output-property-added-to-closed-object", "input-required-added"} <= ids
    r = cli("explain", "output-enum-value-added")
    assert r.returncode == 0 and "before:" in r.stdout and "host error:" in r.stdout
    assert cli("explain", "nope").returncode == 2


def test_forward_mode_maps_witnesses_values_and_pointers_back_to_the_command_line():
    old = snapshot_from_data(
        {
            "tools": [
                {
                    "name": "t",
                    "inputSchema": {"type": "object"},
                    "outputSchema": {"type": "object", "required": ["s"], "properties": {"s": {"enum": ["a", "b"]}}},
                }
            ]
        },
        source="o",
        label="v1",
    )
    new = snapshot_from_data(
        {
            "tools": [
                {
                    "name": "t",
                    "inputSchema": {"type": "object"},
                    "outputSchema": {"type": "object", "required": ["s"], "properties": {"s": {"enum": ["a"]}}},
                }
            ]
        },
        source="n",
        label="v2",
    )
    [f] = [f for f in diff_with_mode(old, new, "forward") if f.severity == "breaking"]
    assert f.rule == "output-enum-value-added" and f.tags == ["forward"]
    assert f.witness["accepted_by"] == "old" and f.witness["instance"] == {"s": "b"}  # OLD is what the server runs
    assert f.old == ["a", "b"] and f.new == ["a"]
    assert f.message.startswith("[forward: hosts cached v2, server runs v1] t: Output enum gained a value at ")
    assert "the served v1 schema" in f.message and "the cached v2 schema" in f.message
    # the backward half of full mode is untouched
    back = [g for g in diff_with_mode(old, new, "full") if "forward" not in g.tags]
    assert [(g.rule, g.old, g.new) for g in back] == [("output-enum-value-removed", ["a", "b"], ["a"])]


def test_full_mode_reports_a_tool_level_change_once():
    """A description change is the same finding whichever side is cached: --mode full lists it once."""
    old = snapshot_from_data(
        {"tools": [{"name": "t", "description": "one", "inputSchema": {"type": "object"}}]}, source="old"
    )
    new = snapshot_from_data(
        {"tools": [{"name": "t", "description": "two", "inputSchema": {"type": "object"}}]}, source="new"
    )
    full = diff_with_mode(old, new, "full")
    assert [f.rule for f in full] == ["tool-description-changed"], [(f.rule, f.tags) for f in full]
    assert len(diff_with_mode(old, new, "forward")) == 1


def test_forward_wording_leaves_quoted_server_values_alone():
    """Role words ("the new schema") are rewritten with labels, but never inside a quoted server value."""

    def snap(values, source):
        return snapshot_from_data(
            {
                "tools": [
                    {
                        "name": "t",
                        "inputSchema": {"type": "object"},
                        "outputSchema": {"type": "object", "properties": {"s": {"enum": values}}, "required": ["s"]},
                    }
                ]
            },
            source=source,
        )

    forward = diff_with_mode(snap(["ok", "the new server"], "v1.json"), snap(["ok"], "v2.json"), "forward")
    msgs = [f.message for f in forward if f.severity == "breaking"]
    assert msgs and all("'the new server'" in m and "the served v1 schema" in m for m in msgs), msgs
