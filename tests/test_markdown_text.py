"""Markdown reads as the server sent it: backslash escapes only where markup could form (none in code spans), no
character references for ASCII punctuation, nothing of the server's links, images, HTML, mentions or references;
multi-line witness errors keep their lines in Markdown and HTML; every finding's fix is shown (text, history
JSON, the changelog next to its change)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from gate_helpers import cli
from markdown_it import MarkdownIt
from report_cases import parse_page, seed_report
from runs import render, run_diff

from mcp_schema_audit.findings import Finding
from mcp_schema_audit.history import check_history
from mcp_schema_audit.lint import lint_snapshot
from mcp_schema_audit.report.json import history_json_schema
from mcp_schema_audit.report.model import Report
from mcp_schema_audit.snapshot import load_snapshot, snapshot_from_data

NAME = "_hidden_tool"
DESCRIPTION = "Calls __init__ and [link](http://x) <b>bold</b> a*b ~~s~~ $x$ a|b &amp; `c` @user #12 www.x.com"
ENUM = 'enum ["sunny", "cloudy"]'
GFM = MarkdownIt("commonmark").enable(["table", "strikethrough"])
#: Inline HTML and HTML blocks the reports write themselves.
OWN_INLINE_HTML = {"<br>", "<sub>", "</sub>"}
OWN_BLOCK_TAGS = {"details", "summary"}


def _tool(description: str, values: list[str], required: list[str]) -> dict[str, Any]:
    return {
        "name": NAME,
        "description": description,
        "inputSchema": {"type": "object", "properties": {"library_id": {"type": "string"}}, "required": required},
        "outputSchema": {
            "type": "object",
            "properties": {"w": {"enum": values}},
            "required": ["w"],
            "additionalProperties": False,
        },
    }


def _pair() -> tuple[Any, Any]:
    old = snapshot_from_data({"tools": [_tool("Old.", ["sunny", "cloudy"], [])]}, source="a.json", label="a")
    new = snapshot_from_data(
        {"tools": [_tool(DESCRIPTION, ["sunny", "cloudy", "rainy"], ["library_id"])]}, source="b.json", label="b"
    )
    return old, new


def shown_text(md: str) -> str:
    """What a reader sees: the text of every inline run (code spans included), our zero-width spaces removed."""
    out = []
    for tok in GFM.parse(md):
        if tok.type == "inline":
            out.append("".join(c.content for c in tok.children or [] if c.type in ("text", "code_inline")))
    return "\n".join(out).replace("\u200b", "")


def check_inert(md: str) -> None:
    """(a) no character reference for ASCII punctuation; (c) no link, image, autolink or HTML of the server's."""
    refs = re.findall(r"&#(x[0-9a-fA-F]+|[0-9]+);", md)
    assert not refs, refs
    for tok in GFM.parse(md):
        if tok.type == "html_block":
            assert set(re.findall(r"</?([A-Za-z][A-Za-z0-9-]*)", tok.content)) <= OWN_BLOCK_TAGS, tok.content
        for c in tok.children or []:
            assert c.type not in ("link_open", "image"), (c.type, c.content)
            if c.type == "html_inline":
                assert c.content in OWN_INLINE_HTML, c.content
    assert "@user" not in md and "#12" not in md and "http://" not in md and "www.x" not in md


def _outputs() -> dict[str, str]:
    old, new = _pair()
    report = run_diff(old, new, fail_on="never")
    lint = Report(old=None, new=new, findings=lint_snapshot(new), kind="lint")
    hist = check_history(new, [old])
    hist.fail_on = "breaking"
    return {
        "diff markdown": render(report, "markdown"),
        "diff changelog": render(report, "changelog"),
        "lint markdown": render(lint, "markdown"),
        "history markdown": render(hist, "markdown"),
        "history changelog": render(hist, "changelog"),
    }


@pytest.mark.parametrize("which", ["diff markdown", "diff changelog", "lint markdown", "history markdown"])
def test_server_text_renders_as_sent_and_stays_inert(which: str):
    md = _outputs()[which]
    check_inert(md)
    shown = shown_text(md)
    assert NAME in shown, which
    if which in ("diff markdown", "diff changelog"):
        assert ENUM in shown, which
    if which == "diff markdown":  # the description's word delta, as sent
        assert DESCRIPTION in shown
        assert "**\\_hidden_tool**" in md and "\\_\\_init\\_\\_" in md and "\\[link](" in md and "\\<b>bold\\</b>" in md
        assert "a\\*b" in md and 'enum \\["sunny", "cloudy"]' in md and "a\\|b" in md and "\\`c\\`" in md


def test_history_changelog_is_inert_too():
    md = _outputs()["history changelog"]
    check_inert(md)
    assert NAME in shown_text(md) and ENUM in shown_text(md)


def test_a_pipe_in_a_table_cell_stays_in_its_cell():
    old = snapshot_from_data({"tools": [{**_tool("x", ["a"], []), "name": "a|b_c"}]}, source="a.json", label="v|1")
    new = snapshot_from_data({"tools": [{**_tool("x", ["a", "b"], []), "name": "a|b_c"}]}, source="b.json", label="v2")
    hist = check_history(new, [old])
    md = render(hist, "markdown")
    check_inert(md)
    html = GFM.render(md)
    assert "<td>a|b_c</td>" in html and "<th>v|1</th>" in html


def test_the_users_own_reason_keeps_its_issue_reference():
    base = seed_report()
    f = base.findings[0]
    report = Report(old=base.old, new=base.new, findings=[], ignored=[(f, "accepted in #12 by @api-team a_b*c")])
    md = render(report, "markdown")
    assert "accepted in #12 by @api-team a_b\\*c" in md and "accepted in #12 by @api-team a_b*c" in shown_text(md)


# --- a pydantic error of two lines ------------------------------------------------------------------------------

PYDANTIC = "library_id\n  Field required"


def _two_line_report() -> Report:
    base = seed_report()
    f = next(x for x in base.findings if x.severity == "breaking" and x.witness and x.witness.get("error"))
    two = Finding(**{**f.__dict__, "witness": {**f.witness, "error": PYDANTIC}})
    return Report(old=base.old, new=base.new, findings=[two])


def test_a_multi_line_witness_error_keeps_its_lines_in_markdown_html_and_changelog():
    report = _two_line_report()
    md = render(report, "markdown")
    assert "\\nField" not in md and "\\n  Field" not in md
    blocks = [t.content for t in GFM.parse(md) if t.type == "fence"]
    assert PYDANTIC + "\n" in blocks, blocks
    page = parse_page(render(report, "html"))
    assert PYDANTIC in page.text and "\\n" not in "".join(t for t in page.text if "Field required" in t)
    notes = render(report, "changelog")
    assert "library_id<br>  Field required" in notes
    assert "library_id<br>  Field required" in GFM.render(notes)  # a line break where it is shown


# --- the fix of every finding --------------------------------------------------------------------------------


def test_text_prints_the_fix_of_a_single_warning(tmp_path: Path):
    """A non-grouped host warning (``host-tool-degraded``: one optional argument on openai-strict) has its fix."""
    tool = {
        "name": "search",
        "inputSchema": {"type": "object", "properties": {"limit": {"type": "integer"}}, "additionalProperties": False},
    }
    path = tmp_path / "head.json"
    path.write_text(json.dumps({"tools": [tool]}), encoding="utf-8")
    r = cli("lint", str(path), "--host", "openai-strict")
    lines = r.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if "[host-tool-degraded]" in line)
    assert lines[at].startswith("warning"), lines
    fix = [line for line in lines[at:] if line.strip().startswith("fix: ")]
    assert fix and '"limit"' in fix[0], lines


def test_history_text_and_json_carry_each_findings_fix():
    hist = check_history(
        load_snapshot("fixtures/seed/0.2.7.json"),
        [load_snapshot(f"fixtures/seed/{v}.json") for v in ("0.2.4", "0.2.5", "0.2.6")],
    )
    hist.fail_on = "breaking"
    data = json.loads(render(hist, "json"))
    jsonschema.validate(data, history_json_schema())
    groups = hist.grouped()
    assert [g.get("fix", "") for g in data["findings"]] == [g.fix for g in groups]
    assert any(g.fix for g in groups)
    text = render(hist, "text")
    breaking = next(g for g in groups if g.severity == "breaking" and g.fix)
    assert f"           fix: {breaking.fix}" in text


def test_changelog_puts_each_migration_under_its_own_change():
    notes = render(seed_report(), "changelog")
    tokens = GFM.parse(notes)
    depth, migrations = 0, 0
    for i, tok in enumerate(tokens):
        depth += {"bullet_list_open": 1, "bullet_list_close": -1}.get(tok.type, 0)
        if tok.type == "inline" and "Migrate:" in tok.content:
            migrations += 1
            assert depth == 2 and tok.content.count("Migrate:") == 1, tok.content  # a nested item of its change
            assert tokens[i - 2].type == "list_item_open"
    breaking_or_warning = [f for f in seed_report().findings if f.severity != "info" and f.fix]
    assert migrations == len(breaking_or_warning) > 1
    assert not re.search(r"^\*\*Migrate", notes, re.M)


def test_diff_text_and_changelog_give_a_host_warnings_own_fix(tmp_path: Path):
    """``host-newly-degraded`` (a warning, alone): its fix in text, and as the change's Migrate item in the
    changelog."""

    def listing(props: dict[str, Any]) -> str:
        schema = {"type": "object", "properties": props, "required": ["q"], "additionalProperties": False}
        path = tmp_path / f"{len(props)}.json"
        path.write_text(json.dumps({"tools": [{"name": "search", "inputSchema": schema}]}), encoding="utf-8")
        return str(path)

    old, new = listing({"q": {"type": "string"}}), listing({"q": {"type": "string"}, "limit": {"type": "integer"}})
    lines = cli("diff", old, new, "--host", "openai-strict").stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if "[host-newly-degraded]" in line)
    assert lines[at].startswith("warning") and lines[at + 2].strip().startswith(
        'fix: required, with null allowed: "limit"'
    )
    notes = cli("diff", old, new, "--host", "openai-strict", "--format", "changelog").stdout
    item = next(t.content for t in GFM.parse(notes) if t.type == "inline" and "Migrate:" in t.content)
    assert 'Migrate:** required, with null allowed: "limit": {"type":\\["integer","null"]}' in item
