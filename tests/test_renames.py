"""Renamed tools and arguments reported as one rename each (advice: accept both names for a while), not as a
removal plus an addition; a bare array of tools read as a listing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gate_helpers import cli
from runs import run_diff

from mcp_schema_audit.renames import looks_renamed, tool_renames
from mcp_schema_audit.snapshot import snapshot_from_data

SEND_OLD = {
    "name": "send",
    "inputSchema": {
        "type": "object",
        "properties": {"to": {"type": "string", "description": "who gets it"}, "body": {"type": "string"}},
        "required": ["to", "body"],
        "additionalProperties": False,
    },
}
SEND_NEW = {
    "name": "send",
    "inputSchema": {
        "type": "object",
        "properties": {"recipient": {"type": "string", "description": "who gets it"}, "body": {"type": "string"}},
        "required": ["recipient", "body"],
        "additionalProperties": False,
    },
}
SEARCH = {"type": "object", "properties": {"q": {"type": "string", "maxLength": 100}}, "required": ["q"]}


def diff(old_tools: list, new_tools: list):
    return run_diff(snapshot_from_data(old_tools, source="old.json"), snapshot_from_data(new_tools, source="new.json"))


def test_a_renamed_argument_is_one_breaking_finding_with_the_rename_advice():
    report = diff([SEND_OLD], [SEND_NEW])
    assert [(f.rule, f.severity, f.pointer, f.old, f.new) for f in report.findings] == [
        ("input-argument-renamed", "breaking", "/properties/recipient", "to", "recipient")
    ]
    f = report.findings[0]
    assert f.old_pointer == "/properties/to" and f.witness["instance"] == {"body": "a", "to": "a"}
    assert "accept both names for a while" in f.fix
    assert f.to_json()["fix"] == f.fix


def test_a_renamed_tool_is_one_finding():
    old = [{"name": "search_docs", "description": "Search the docs", "inputSchema": SEARCH}]
    new = [{"name": "docs_search", "description": "Search the documentation", "inputSchema": SEARCH}]
    report = diff(old, new)
    assert [(f.rule, f.tool, f.old, f.new) for f in report.findings] == [
        ("tool-renamed", "search_docs", "search_docs", "docs_search")
    ]
    f = report.findings[0]
    assert f.witness["error"] == "Unknown tool: search_docs" and "alias" in f.fix
    assert "listed as 'docs_search'" in f.message


def test_different_arguments_of_a_plain_type_are_not_a_rename():
    old = dict(
        SEND_OLD,
        inputSchema={
            **SEND_OLD["inputSchema"],
            "properties": {"cc": {"type": "string"}, "body": {"type": "string"}},
            "required": ["body"],
        },
    )
    new = dict(
        SEND_OLD,
        inputSchema={
            **SEND_OLD["inputSchema"],
            "properties": {"subject": {"type": "string"}, "body": {"type": "string"}},
            "required": ["subject", "body"],
        },
    )
    rules = sorted(f.rule for f in diff([old], [new]).findings)
    assert "input-argument-renamed" not in rules and "input-required-added" in rules


def test_two_candidates_are_no_rename():
    old = [{"name": "a", "inputSchema": SEARCH}]
    new = [{"name": "b", "inputSchema": SEARCH}, {"name": "c", "inputSchema": SEARCH}]
    assert tool_renames({t["name"]: t for t in old}, {t["name"]: t for t in new}).pairs == {}
    assert {f.rule for f in diff(old, new).findings} == {"tool-removed", "tool-added"}


def test_looks_renamed():
    assert looks_renamed(
        "to", {"type": "string", "description": "x"}, "recipient", {"type": "string", "description": "x"}
    )
    assert not looks_renamed("cc", {"type": "string"}, "subject", {"type": "string"})
    assert looks_renamed("user_id", {"type": "string"}, "userId", {"type": "string"})  # similar names
    assert not looks_renamed("a", {"type": "string", "maxLength": 3}, "b", {"type": "string", "maxLength": 4})


def test_a_bare_tools_array_is_a_snapshot_input(tmp_path: Path):
    (tmp_path / "old.json").write_text(json.dumps([SEND_OLD]), encoding="utf-8")
    (tmp_path / "new.json").write_text(json.dumps([SEND_NEW]), encoding="utf-8")
    r = cli("diff", str(tmp_path / "old.json"), str(tmp_path / "new.json"), "--format", "json")
    assert r.returncode == 1, r.stderr
    assert [f["rule"] for f in json.loads(r.stdout)["findings"]] == ["input-argument-renamed"]
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]", encoding="utf-8")
    r = cli("diff", str(bad), str(bad))
    assert r.returncode == 2 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_allow_is_another_name_of_ignore_in_diff(tmp_path: Path):
    """``[[allow]]`` (lint's name) silences a diff finding as ``[[ignore]]`` does; ``-o``/``--out`` write the report
    as ``--output`` does."""
    (tmp_path / "old.json").write_text(json.dumps([SEND_OLD]), encoding="utf-8")
    (tmp_path / "new.json").write_text(json.dumps([SEND_NEW]), encoding="utf-8")
    (tmp_path / ".schema-audit.toml").write_text(
        '[[allow]]\nrule = "input-argument-renamed"\ntool = "send"\nreason = "clients updated in #12"\n',
        encoding="utf-8",
    )
    for flag in ("-o", "--out", "--output"):
        r = cli("diff", "old.json", "new.json", "--format", "json", flag, "r.json", cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
        assert report["findings"] == [] and report["ignored"][0]["reason"] == "clients updated in #12"


def test_explain_takes_the_fingerprints_reports_print(tmp_path: Path):
    seed = Path(__file__).resolve().parents[1] / "fixtures" / "seed"
    out = tmp_path / "schema-audit-report"
    out.mkdir()
    made = cli(
        "diff", str(seed / "0.2.5.json"), str(seed / "0.2.6.json"), "-f", "json", "-o", str(out / "schema-audit.json")
    )
    assert made.returncode == 1, made.stderr
    finding = json.loads((out / "schema-audit.json").read_text(encoding="utf-8"))["findings"][0]
    r = cli("explain", finding["fingerprint"], cwd=tmp_path)  # the Action's report folder is the default
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"finding {finding['fingerprint']}: add_recipients: ")
    assert f"\n{finding['rule']} (tool output, default breaking)" in r.stdout and "\nfix: " in r.stdout
    assert cli("explain", f"[{finding['rule']}]").returncode == 0
    missing = cli("explain", "0123456789abcdef", cwd=tmp_path)
    assert missing.returncode == 2 and "no finding with fingerprint 0123456789abcdef" in missing.stderr
    nowhere = cli("explain", "0123456789abcdef", cwd=seed)
    assert nowhere.returncode == 2 and "--report FILE" in nowhere.stderr


SEND_CHANGED_OLD = {
    "name": "send",
    "inputSchema": {
        "type": "object",
        "properties": {
            "to": {"type": "string", "maxLength": 100, "description": "who gets it"},
            "priority": {"type": "string", "enum": ["low", "high"], "description": "How urgent."},
            "body": {"type": "string"},
        },
        "required": ["to", "body"],
        "additionalProperties": False,
    },
}
SEND_CHANGED_NEW = {
    "name": "send",
    "inputSchema": {
        "type": "object",
        "properties": {
            "recipient": {"type": "string", "maxLength": 50, "description": "who gets it"},
            "urgency": {"type": "string", "enum": ["low", "high", "urgent"], "description": "How urgent."},
            "body": {"type": "string"},
        },
        "required": ["recipient", "body"],
        "additionalProperties": False,
    },
}


def test_a_renamed_argument_whose_schema_changed_is_one_rename_and_its_changes():
    """``to`` → ``recipient`` with ``maxLength`` 100 → 50, ``priority`` → ``urgency`` with an enum value added: one
    rename each, and the changes reported on the new names (a call with the new name and the old bound fails)."""
    report = diff([SEND_CHANGED_OLD], [SEND_CHANGED_NEW])
    got = [(f.rule, f.severity, f.pointer, f.old, f.new) for f in report.findings]
    assert got == [
        ("input-argument-renamed", "breaking", "/properties/recipient", "to", "recipient"),
        ("input-constraint-tightened", "breaking", "/properties/recipient/maxLength", 100, 50),
        ("input-argument-renamed", "breaking", "/properties/urgency", "priority", "urgency"),
        ("input-enum-value-added", "info", "/properties/urgency/enum", ["low", "high"], ["low", "high", "urgent"]),
    ], got
    renamed, tightened = report.findings[0], report.findings[1]
    assert "its schema changed too" in renamed.message and "accept both names for a while" in renamed.fix
    assert renamed.witness["instance"] == {"to": "a", "body": "a"}  # the old name, now refused
    assert tightened.witness["instance"]["recipient"] == "a" * 51  # the new name with what the old bound allowed


def test_looks_renamed_changed():
    from mcp_schema_audit.renames import looks_renamed_changed

    to = {"type": "string", "maxLength": 100, "description": "who gets it"}
    assert looks_renamed_changed("to", to, "recipient", {**to, "maxLength": 50})
    assert looks_renamed_changed("user_id", {"type": "integer"}, "userId", {"type": "integer", "minimum": 0}) is False
    assert looks_renamed_changed(
        "user_id", {"type": "integer", "minimum": 1}, "userId", {"type": "integer", "minimum": 0}
    )
    # another type, other keywords, or nothing alike: no rename
    assert not looks_renamed_changed(
        "to", to, "recipient", {"type": "integer", "maximum": 5, "description": "who gets it"}
    )
    assert not looks_renamed_changed(
        "cc", {"type": "string", "maxLength": 3}, "subject", {"type": "string", "maxLength": 9}
    )
    # the same schema is looks_renamed's, not this one's
    assert not looks_renamed_changed("to", to, "recipient", dict(to))


def test_a_changed_rename_on_the_command_line(tmp_path: Path):
    (tmp_path / "old.json").write_text(json.dumps([SEND_CHANGED_OLD]), encoding="utf-8")
    (tmp_path / "new.json").write_text(json.dumps([SEND_CHANGED_NEW]), encoding="utf-8")
    r = cli("diff", str(tmp_path / "old.json"), str(tmp_path / "new.json"), "--format", "json")
    assert r.returncode == 1, r.stderr
    rules = [f["rule"] for f in json.loads(r.stdout)["findings"]]
    assert rules.count("input-argument-renamed") == 2 and "input-required-added" not in rules


def test_a_renamed_tool_is_rejected_by_the_servers_own_validator_never_by_sdk_profiles(tmp_path: Path):
    """The renamed tool's witness is rejected by the server (its framework's words, as for tool-removed), and the
    SDK host profiles are never named as the server."""
    old = [{"name": "search_docs", "description": "Search the docs", "inputSchema": SEARCH}]
    new = [{"name": "docs_search", "description": "Search the documentation", "inputSchema": SEARCH}]
    (tmp_path / "old.json").write_text(json.dumps(old), encoding="utf-8")
    (tmp_path / "new.json").write_text(json.dumps(new), encoding="utf-8")
    for validator in ("zod-strip", "published"):
        r = cli("diff", "old.json", "new.json", "--server-validator", validator, cwd=tmp_path)
        assert r.returncode == 1, r.stderr
        line = next(ln for ln in r.stdout.splitlines() if "rejected by" in ln)
        assert "rejected by the server running new" in line and "python-sdk" not in line, line
        if validator == "zod-strip":
            assert "(zod-strip)" in line, line


def _long_renames(count: int, length: int) -> tuple[list, list]:
    """One tool whose ``count`` arguments are all renamed (names and ``length``-character descriptions of random
    CJK characters: no two alike), each keeping its description."""
    import random

    rng = random.Random(2)
    alphabet = [chr(c) for c in range(0x4E00, 0x4E00 + 3000)]

    def text(n: int) -> str:
        return "".join(rng.choice(alphabet) for _ in range(n))

    described = [text(length) for _ in range(count)]
    sides = []
    for _ in ("old", "new"):
        props = {text(8): {"description": d} for d in described}
        sides.append([{"name": "t", "inputSchema": {"type": "object", "properties": props}}])
    return sides[0], sides[1]


def test_renamed_arguments_with_long_descriptions_are_still_found():
    old, new = _long_renames(60, 3_000)
    report = diff(old, new)
    assert [f.rule for f in report.findings] == ["input-argument-renamed"] * 60


@pytest.mark.timing
def test_rename_matching_honours_the_time_budget(tmp_path: Path):
    """60 renamed properties with 3,000-character descriptions took 33 s with ``--time-budget 10`` (a character
    ``SequenceMatcher`` per removed × added pair, and each shape made canonical again per pair); now under a
    second: shapes once, ``difflib``'s upper bounds first, a capped window, the pairs counted."""
    import random
    import sys

    import timing

    rng = random.Random(3)
    alphabet = [chr(c) for c in range(0x4E00, 0x4E00 + 3000)]
    paths = []
    for side in ("old", "new"):  # nothing alike: every pair is compared, none is a rename
        props = {
            rng.choice(alphabet) * 2 + f"{side}": {"description": "".join(rng.choice(alphabet) for _ in range(3000))}
            for i in range(60)
        }
        path = tmp_path / f"{side}.json"
        path.write_text(json.dumps({"tools": [{"name": "t", "inputSchema": {"type": "object", "properties": props}}]}))
        paths.append(str(path))
    proc, took = timing.run(
        [sys.executable, "-m", "mcp_schema_audit", "diff", "--time-budget", "10", "--format", "json", *paths],
        timeout=120,
        text=True,
    )
    assert proc.returncode in (0, 1), proc.stderr
    assert "input-argument-renamed" not in proc.stdout
    assert took.unloaded() < 10, took.describe()


def _many_tools(side: str, count: int) -> list[dict]:
    """``count`` tools of 50 shapes (one argument ``a0`` … ``a49``): every shape listed by many removed and many
    added tools, so none is a unique pairing, and one tool ``<side>_unique`` of its own shape."""
    tools = [
        {
            "name": f"{side}_{i}",
            "description": f"tool number {i} does things",
            "inputSchema": {"type": "object", "properties": {f"a{i % 50}": {"type": "string"}}},
        }
        for i in range(count)
    ]
    return [*tools, {"name": f"{side}_unique", "inputSchema": {"type": "object", "properties": {"n": SEARCH}}}]


def test_a_tool_rename_is_found_among_thousands_of_removed_and_added_tools():
    """1,500 tools removed and 1,500 added (50 shapes, 30 a side each: none unique) and one tool renamed with a
    shape of its own: the rename is found, the others stay removed + added (was: 45,000 pairs past the budget of
    20,000, no rename at all; at first 2.25 M pairs compared, 13.6 s)."""
    renamed = tool_renames(
        {t["name"]: t for t in _many_tools("old", 1_500)}, {t["name"]: t for t in _many_tools("new", 1_500)}
    )
    assert renamed.pairs == {"old_unique": "new_unique"}


def test_an_argument_rename_is_found_beside_a_plain_shape_past_the_pair_budget():
    """150 plain arguments removed and 150 added (``{"type": "string"}``, names alike: 22,500 pairs, past
    ``PAIR_BUDGET``) stay removed + added; the rename of an argument with a shape of its own is still found."""
    from mcp_schema_audit.renames import PAIR_BUDGET

    assert PAIR_BUDGET < 150 * 150
    sides = []
    for side in ("old", "new"):
        props: dict = {f"{side}_arg_{i}": {"type": "string"} for i in range(150)}
        props[f"{side}_limit"] = {"type": "integer", "minimum": 1, "maximum": 9}
        sides.append([{"name": "t", "inputSchema": {"type": "object", "properties": props}}])
    report = diff(*sides)
    rules = [(f.rule, f.old, f.new) for f in report.findings if f.rule == "input-argument-renamed"]
    assert rules == [("input-argument-renamed", "old_limit", "new_limit")]
    # the plain ones were not searched, and the report says so: a tag on each, one note for the run
    tagged = [f for f in report.findings if "renames-not-searched" in f.tags]
    assert len(tagged) == 300 and {f.rule for f in tagged} == {"input-property-removed", "input-property-added"}
    assert not any("renames-not-searched" in f.tags for f in report.findings if "limit" in f.pointer)
    notes = [n for n in report.notes if n.startswith("renames were not searched")]
    assert notes == [
        "renames were not searched for 300 removed or added tools or arguments (t): more than 20,000 pairs to "
        "compare with one shape; they are reported as removed and added (tag renames-not-searched)"
    ]


def test_tool_pairings_decided_by_shape_are_never_left_unsearched():
    """A tool's shape (its inputSchema and outputSchema) is never plain: its pairs are decided by bucket, none
    compared, so 1,500 tools removed and 1,500 added are all searched: no tag, no note."""
    report = diff(_many_tools("old", 1_500), _many_tools("new", 1_500))
    assert not any(f.tags for f in report.findings) and not any("renames" in n for n in report.notes)


@pytest.mark.timing
def test_tool_pairing_is_linear_and_honours_the_time_budget(tmp_path: Path):
    """12,000 tools removed and 12,000 added, 50 shapes: the pairing buckets by shape (no pair compared) and the
    text report computes each group's shared fix once (was n² in both: 1,500 a side took 13.6 s past
    ``--time-budget 2``, 6,000 still ran at 90 s; 12,000 a side now about 2.5 s)."""
    import sys

    import timing

    paths = []
    for side in ("old", "new"):
        path = tmp_path / f"{side}.json"
        path.write_text(json.dumps({"tools": _many_tools(side, 12_000)}))
        paths.append(str(path))
    proc, took = timing.run(
        [sys.executable, "-m", "mcp_schema_audit", "diff", "--time-budget", "5", *paths], timeout=120, text=True
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.count("[tool-renamed]") == 1 and "old_unique" in proc.stdout
    assert took.unloaded() < 15, took.describe()


def _send(props: dict, required: list[str]) -> dict:
    return {"name": "send", "inputSchema": {"type": "object", "properties": props, "required": required}}


def test_the_only_required_argument_swapped_for_another_of_one_plain_shape_is_a_rename():
    """``to`` → ``recipient`` (both plain strings, both required, nothing alike in name): every cached call sends
    ``to`` and none ``recipient``, so it is one rename with the rename advice, not "make it optional"."""
    old = _send({"to": {"type": "string"}, "body": {"type": "string"}}, ["to", "body"])
    new = _send({"recipient": {"type": "string"}, "body": {"type": "string"}}, ["recipient", "body"])
    [f] = diff([old], [new]).findings
    assert (f.rule, f.severity, f.old, f.new) == ("input-argument-renamed", "breaking", "to", "recipient")
    # an optional one added beside it is no rename (cc dropped, subject added: test above)
    optional = _send({"recipient": {"type": "string"}, "body": {"type": "string"}}, ["body"])
    assert "input-argument-renamed" not in {f.rule for f in diff([old], [optional]).findings}


def test_an_argument_gone_is_not_also_made_optional():
    """A required argument removed is its removal alone: no ``input-required-removed`` ("made optional") for an
    argument that no longer exists (the changelog listed it under compatible changes)."""
    old = _send({"to": {"type": "string"}, "body": {"type": "string"}}, ["to", "body"])
    new = _send({"body": {"type": "string"}}, ["body"])
    assert [(f.rule, f.pointer) for f in diff([old], [new]).findings] == [("input-property-removed", "/properties/to")]
    made_optional = _send({"to": {"type": "string"}, "body": {"type": "string"}}, ["body"])
    assert [f.rule for f in diff([old], [made_optional]).findings] == ["input-required-removed"]
