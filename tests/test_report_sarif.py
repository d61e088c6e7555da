"""The SARIF report: valid against the SARIF 2.1.0 schema, its content, artifact locations and regions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from report_cases import ALL_CASES, ROOT, sarif_validator, seed_report
from runs import RENDERERS, render_sarif, run_diff

from mcp_schema_audit import __version__
from mcp_schema_audit.report.sarif import artifact_uri
from mcp_schema_audit.rules import RULES
from mcp_schema_audit.snapshot import load_snapshot, snapshot_from_data

pytestmark = pytest.mark.usefixtures("at_repo_root")  # sources are repository-relative paths


# --- sarif ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", list(ALL_CASES))
def test_sarif_validates_against_the_sarif_2_1_0_schema(case: str):
    log = json.loads(RENDERERS["sarif"](ALL_CASES[case]()))
    sarif_validator().validate(log)
    assert log["version"] == "2.1.0"


def test_sarif_content():
    report = seed_report()
    log = json.loads(render_sarif(report))
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "schema-audit" and driver["version"] == __version__
    rules = driver["rules"]
    # only the rules the findings use, in catalog order (not all of the catalog's rules)
    assert [r["id"] for r in rules] == [rule for rule in RULES if rule in {f.rule for f in report.findings}]
    level = {"breaking": "error", "warning": "warning", "info": "note"}
    for r in rules:
        rule = RULES[r["id"]]
        assert r["shortDescription"]["text"] == rule.title
        assert r["fullDescription"]["text"] == rule.rationale
        assert r["defaultConfiguration"]["level"] == level[rule.severity]
        assert rule.rationale in r["help"]["text"]
        if rule.before:
            assert rule.before in r["help"]["text"]
    assert len(run["results"]) == len(report.findings) == 14
    by_fp = {f.fingerprint: f for f in report.findings}
    for res in run["results"]:
        f = by_fp[res["partialFingerprints"]["schemaAudit/v1"]]
        assert res["ruleId"] == f.rule and rules[res["ruleIndex"]]["id"] == f.rule
        assert res["level"] == level[f.severity]
        loc = res["locations"][0]
        assert loc["physicalLocation"]["artifactLocation"]["uri"] == "fixtures/seed/0.2.6.json"
        assert loc["logicalLocations"][0]["fullyQualifiedName"] == f"{f.tool}/outputSchema#{f.pointer}"
        props = res["properties"]
        assert (props["tool"], props["direction"], props["pointer"]) == (f.tool, f.direction, f.pointer)
        assert props["witness"] == f.witness
        assert f.tool in res["message"]["text"]
    assert run["results"][0]["level"] == "error"  # breaking first
    assert run["properties"]["gate"] == {"fail_on": "breaking", "passed": False}


def test_sarif_removed_tool_points_at_the_old_snapshot_and_ignored_are_suppressed(tmp_path: Path):
    old = snapshot_from_data(
        {
            "tools": [
                {"name": "gone", "inputSchema": {"type": "object"}},
                {"name": "kept", "inputSchema": {"type": "object"}, "description": "a"},
            ]
        },
        source="snaps/old.json",
    )
    new = snapshot_from_data(
        {"tools": [{"name": "kept", "inputSchema": {"type": "object"}, "description": "b"}]},
        source=str(ROOT / "snaps" / "new file.json"),
    )
    report = run_diff(old, new)
    desc = [f for f in report.findings if f.rule == "tool-description-changed"]
    report.findings = [f for f in report.findings if f not in desc]
    report.ignored = [(desc[0], "reviewed [by](http://evil) security")]
    log = json.loads(render_sarif(report))
    sarif_validator().validate(log)
    results = {r["ruleId"]: r for r in log["runs"][0]["results"]}
    gone = results["tool-removed"]
    assert gone["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "snaps/old.json"
    sup = results["tool-description-changed"]
    assert sup["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "snaps/new%20file.json"
    assert sup["suppressions"][0]["kind"] == "external"
    assert sup["suppressions"][0]["justification"] == r"reviewed \[by\](http://evil) security"


def test_sarif_every_result_has_a_physical_location_even_without_a_source():
    old = snapshot_from_data({"tools": [{"name": "a b", "inputSchema": {"type": "object"}}]}, source="", label="v 1")
    new = snapshot_from_data({"tools": []}, source="", label="v2")
    log = json.loads(render_sarif(run_diff(old, new)))
    sarif_validator().validate(log)
    [res] = log["runs"][0]["results"]
    assert res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == ".schema-audit/snapshots/v%201.json"


def test_artifact_uri_forms():
    assert artifact_uri("fixtures/seed/0.2.6.json") == "fixtures/seed/0.2.6.json"
    assert artifact_uri("./a/b.json") == "a/b.json"
    assert artifact_uri("git:origin/main:.schema-audit/snapshots/v1.json") == ".schema-audit/snapshots/v1.json"
    assert artifact_uri(str(ROOT / "x" / "y z.json")) == "x/y%20z.json"
    assert artifact_uri("/elsewhere/s.json").startswith("file:///")
    assert artifact_uri("c:odd.json") == "c%3Aodd.json"
    assert artifact_uri("") is None


# --- sarif regions ------------------------------------------------------------------------------------


def test_sarif_results_carry_a_region_at_the_tool_line():
    report = seed_report()
    log = json.loads(render_sarif(report))
    sarif_validator().validate(log)
    lines = (ROOT / "fixtures" / "seed" / "0.2.6.json").read_text(encoding="utf-8").splitlines()
    results = log["runs"][0]["results"]
    assert results
    for res in results:
        region = res["locations"][0]["physicalLocation"]["region"]
        line = region["startLine"]
        assert isinstance(line, int) and line > 1
        assert lines[line - 1].strip() == f'"name": "{res["properties"]["tool"]}",', (line, lines[line - 1])


def test_sarif_region_is_line_1_without_a_file_and_for_git_refs():
    from mcp_schema_audit.report.model import Report as _Report

    old = snapshot_from_data({"tools": [{"name": "gone", "inputSchema": {"type": "object"}}]}, source="", label="a")
    new = snapshot_from_data({"tools": []}, source="git:origin/main:snaps/new.json", label="b")
    for report in (run_diff(old, new), _Report(old=new, new=old, findings=run_diff(old, new).findings)):
        log = json.loads(render_sarif(report))
        sarif_validator().validate(log)
        assert [r["locations"][0]["physicalLocation"]["region"] for r in log["runs"][0]["results"]] == [
            {"startLine": 1}
        ]


def test_sarif_removed_tool_region_points_into_the_old_file(tmp_path: Path):
    old_file = tmp_path / "old.json"
    old_file.write_text(
        '{"jsonrpc": "2.0", "id": 1, "result": {"tools": [\n'
        '  {"inputSchema": {"type": "object", "properties": {"name": {"const": "gone"}}},\n'
        '   "description": "x",\n'
        '   "name": "gone"}\n]}}\n'
    )
    new_file = tmp_path / "new.json"
    new_file.write_text('{"tools": []}')
    report = run_diff(load_snapshot(str(old_file)), load_snapshot(str(new_file)))
    [res] = json.loads(render_sarif(report))["runs"][0]["results"]
    assert res["ruleId"] == "tool-removed"
    assert res["locations"][0]["physicalLocation"]["region"] == {"startLine": 4}  # the tool's own "name"


def test_locate_tool_lines_forms_and_garbage():
    from mcp_schema_audit.snapshot import locate_tool_lines

    assert locate_tool_lines(
        '{"format": "schema-audit/snapshot",\n "tools": [\n {"name": "a"},\n {"x": 1,\n "name": "b"}]}'
    ) == {"a": 3, "b": 5}
    assert locate_tool_lines('{"result": {"tools": [{"name": "a"}]}}') == {"a": 1}
    for bad in ("", "[]", "nope", '{"tools": 3}', '{"tools": [1, {"name": 2}]}', '{"tools": [{"name": "a"'):
        assert isinstance(locate_tool_lines(bad), dict)


def test_merged_logs_describe_every_rule_once_with_renumbered_indexes():
    """Each log describes only the rules it uses: the merged run holds the union, every ``ruleIndex`` pointing
    at its own rule."""
    from mcp_schema_audit.report.sarif import merge_logs

    seed = json.loads(render_sarif(seed_report()))
    old = snapshot_from_data({"tools": [{"name": "gone", "inputSchema": {"type": "object"}}]}, source="o.json")
    new = snapshot_from_data({"tools": []}, source="n.json")
    other = json.loads(render_sarif(run_diff(old, new)))
    assert [r["id"] for r in other["runs"][0]["tool"]["driver"]["rules"]] == ["tool-removed"]
    merged = json.loads(merge_logs([("seed", seed), ("other", other)]))
    run = merged["runs"][0]
    ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert len(ids) == len(set(ids)) and "tool-removed" in ids
    for res in run["results"]:
        assert ids[res["ruleIndex"]] == res["ruleId"]
    assert {res["properties"]["configuration"] for res in run["results"]} == {"seed", "other"}


def test_locating_findings_reads_each_snapshot_once_not_once_per_finding():
    """``locate.snapshot_of_item`` gathers a snapshot's tool names once: SARIF, JUnit and GitHub annotations of
    30,000 findings scanned the 30,000 tools once per finding (164 s for ``--format github``)."""
    from mcp_schema_audit.findings import make_finding
    from mcp_schema_audit.locate import snapshot_of_item
    from mcp_schema_audit.snapshot import snapshot_from_data

    scans = [0]

    class Counting(list):  # type: ignore[type-arg]
        def __iter__(self):  # type: ignore[no-untyped-def]
            scans[0] += 1
            return super().__iter__()

    snap = snapshot_from_data(
        {"tools": [{"name": f"t{i}", "inputSchema": {"type": "object"}} for i in range(2000)]}, source="s.json"
    )
    other = snapshot_from_data({"tools": []}, source="o.json")
    snap.tools = Counting(snap.tools)
    for i in range(0, 2000, 2):
        f = make_finding("tool-added", f"t{i}", "", "added", None, None)
        assert snapshot_of_item(f, [other, snap]) is snap
    assert scans[0] <= 2, scans


def test_junit_files_each_finding_under_its_case_once(monkeypatch):
    """JUnit filed findings by scanning every finding for every case: 8,000 tools added took 38 s. Each finding is
    now looked at once (``junit_case`` once per finding), and the XML is the same (the goldens)."""
    from runs import run_diff

    from mcp_schema_audit.report import junit, render
    from mcp_schema_audit.snapshot import snapshot_from_data

    tools = [{"name": f"t{i}", "inputSchema": {"type": "object"}} for i in range(300)]
    old = snapshot_from_data({"tools": tools[:1]}, source="a.json", label="a")
    new = snapshot_from_data({"tools": tools}, source="b.json", label="b")
    report = run_diff(old, new)
    calls = [0]
    real = junit.junit_case

    def counted(f):  # type: ignore[no-untyped-def]
        calls[0] += 1
        return real(f)

    monkeypatch.setattr(junit, "junit_case", counted)
    assert render(report, "junit").count("<testcase") == 300
    assert calls[0] <= len(report.findings) + len(report.ignored), calls
