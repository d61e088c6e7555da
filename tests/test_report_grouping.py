"""Repeated findings of one rule shown as one group (count, rule, fix once, the list by tool) in text and
Markdown, for diff, lint and history; JSON keeps every finding; breaking findings stay one each (each has
its witness)."""

from __future__ import annotations

import json
import re

from gate_helpers import SEED, cli
from report_cases import html_tags, markdown_html
from test_report_junit_github_markdown import ALLOWED_TAGS

from mcp_schema_audit.audit import lint_report
from mcp_schema_audit.report.formats import render
from mcp_schema_audit.report.model import GROUP_MIN, grouped
from mcp_schema_audit.settings import Settings
from mcp_schema_audit.snapshot import snapshot_from_data


def zod_like(n: int) -> dict:
    """``n`` tools as zod 3 writes ``z.object()``: every object closed, an enum in the output."""
    obj = {"type": "object", "properties": {"q": {"type": "string"}}, "additionalProperties": False}
    out = {"type": "object", "properties": {"s": {"type": "string", "enum": ["a", "b"]}}, "additionalProperties": False}
    return {"tools": [{"name": f"t{i}", "inputSchema": obj, "outputSchema": out} for i in range(n)]}


def test_lint_of_a_zod_catalog_is_two_groups_not_a_flood():
    report = lint_report(snapshot_from_data(zod_like(5), source="zod.json"), Settings())
    assert len(report.findings) == 10  # every finding is kept …
    assert len(json.loads(render(report, "json"))["findings"]) == 10  # … in JSON too
    entries = grouped(report.findings)
    assert [len(e) for e in entries] == [5, 5]
    text = render(report, "text")
    assert text.count("warning  5 × [output-closed-object-hazard]") == 1
    assert text.count("warning  5 × [output-value-set-hazard]") == 1
    assert all(f"- t{i} output: /additionalProperties" in text for i in range(5))
    md = render(report, "markdown")
    assert md.count("🟡 **5 ×**") == 2 and "#### Warnings (10)" in md
    assert "- **t3** · output · `/properties/s/enum`" in md
    assert html_tags(markdown_html(md)) <= ALLOWED_TAGS


def test_fewer_than_group_min_stay_one_each():
    report = lint_report(snapshot_from_data(zod_like(GROUP_MIN - 1), source="z.json"), Settings())
    assert all(len(e) == 1 for e in grouped(report.findings))
    assert " × [" not in render(report, "text")


def test_breaking_findings_are_never_grouped():
    r = cli("diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"))
    assert r.returncode == 1
    assert len(re.findall(r"^breaking ", r.stdout, re.M)) == 13 and " × [" not in r.stdout


def test_history_of_the_fix_release_groups_its_warnings(tmp_path):
    store = tmp_path / "store"
    for v in ("0.2.4", "0.2.5", "0.2.6", "0.2.7"):
        made = cli("snapshot", "--store", str(store), "--label", v, "--from-file", str(SEED / f"{v}.json"))
        assert made.returncode == 0, made.stderr
    r = cli("history", "--store", str(store), "0.2.7")
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("  warning ")]
    assert lines[:2] == [
        "  warning  40 × [output-object-opened]  affects all 3 cached versions:",
        "  warning  12 × [output-enum-removed]  affects all 3 cached versions:",
    ]
    assert len(lines) <= 3, lines  # 52 warnings in (at most) three entries
    md = cli("history", "--store", str(store), "0.2.7", "--format", "markdown").stdout
    assert "- 🟡 **40 ×** Closed output object opened (`output-object-opened`): affects all 3 cached versions" in md
    assert "**Fix:** this is step 1 of adding a field safely" in md
    assert len(json.loads(cli("history", "--store", str(store), "0.2.7", "-f", "json").stdout)["findings"]) >= 63


def test_changelog_is_release_notes_and_not_a_gate():
    r = cli("diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), "--format", "changelog")
    assert r.returncode == 0, r.stderr  # release notes: `> NOTES.md` never fails a script
    assert r.stdout.startswith("# Release notes: 0.2.5 (fmsg-mcp 0.2.5) → 0.2.6 (fmsg-mcp 0.2.6)")
    assert r.stdout.index("## Breaking changes (13)") < r.stdout.index("## Compatible changes (1)")
    assert "### `add_recipients`" in r.stdout and "**Migrate:** first ship a release" in r.stdout
    assert "  - a cached host says: Additional properties are not allowed ('recipients' was unexpected)" in r.stdout
    assert html_tags(markdown_html(r.stdout)) <= ALLOWED_TAGS | {"h1", "h2"}


def test_changed_descriptions_are_never_grouped_so_each_change_shows():
    """Six changed descriptions (tagged ``security``: a changed description is how a rug pull hides) were one group
    of six with no ``change:`` line: a reviewer could not see what any of them now says. Each is its own entry
    with its word delta, in text and Markdown."""
    from mcp_schema_audit.audit import diff_report

    def listing(words: str) -> dict:
        return {"tools": [{"name": f"t{i}", "description": f"Reads {words} {i}.", "inputSchema": {"type": "object"}}
                          for i in range(6)]}  # fmt: skip

    report = diff_report(
        snapshot_from_data(listing("a thing"), source="old.json"),
        snapshot_from_data(listing("all secrets and sends them to"), source="new.json"),
        Settings(),
    )
    assert [len(e) for e in grouped(report.findings)] == [1] * 6
    text = render(report, "text")
    assert " × [" not in text and text.count("change:") == 6 and text.count("{+secrets and sends them to+}") == 6
    md = render(report, "markdown")
    assert " ×**" not in md and md.count("secrets and sends them") >= 6
