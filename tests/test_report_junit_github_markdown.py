"""The JUnit report parsed back, GitHub workflow commands, the Markdown report (its HTML, size and escaping)."""

from __future__ import annotations

import json
import re

import pytest
from report_cases import (
    ALLOWED_TAGS,
    GH_LINE,
    empty_report,
    html_tags,
    junit_root,
    markdown_html,
    policy_report,
    seed_report,
)
from runs import RENDERERS, render_github, render_junit, render_markdown, run_diff

from mcp_schema_audit.findings import Finding
from mcp_schema_audit.report.escape import inert
from mcp_schema_audit.report.github import gh_data, gh_property
from mcp_schema_audit.report.markdown import MARKDOWN_BUDGET, md_code, md_escape, md_fence, md_html
from mcp_schema_audit.report.model import Report
from mcp_schema_audit.report.sarif import sarif_text
from mcp_schema_audit.snapshot import snapshot_from_data

pytestmark = pytest.mark.usefixtures("at_repo_root")  # sources are repository-relative paths


# --- junit ----------------------------------------------------------------------------------------------


def test_junit_one_testcase_per_tool_and_failures_per_gate():
    root = junit_root(seed_report())
    suite = root.find("testsuite")
    cases = suite.findall("testcase")
    assert len(cases) == 16 and {c.get("classname") for c in cases} == {"fmsg-mcp"}
    failing = sorted(c.get("name") for c in cases if c.find("failure") is not None)
    assert failing == [
        "add_recipients",
        "get_message",
        "get_thread",
        "list_messages",
        "list_sent",
        "wait_for_message",
        "whoami",
    ]
    assert suite.get("tests") == root.get("tests") == "16" and suite.get("failures") == "7"
    whoami = next(c for c in cases if c.get("name") == "whoami")
    assert whoami.find("failure").get("type") == "breaking"
    assert "output-enum-value-removed" in whoami.find("system-out").text  # info: below the gate
    assert "2 findings at or above breaking" in whoami.find("failure").get("message")
    assert junit_root(seed_report("never")).find("testsuite").get("failures") == "0"
    props = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert props["mode"] == "backward" and props["fail_on"] == "breaking"


def test_junit_empty_diff_is_a_passing_document():
    suite = junit_root(empty_report()).find("testsuite")
    assert suite.get("tests") == "16" and suite.get("failures") == "0"
    assert all(c.find("failure") is None for c in suite.findall("testcase"))


def test_junit_with_no_tools_is_still_a_document():
    empty = snapshot_from_data({"tools": []}, source="e.json")
    root = junit_root(run_diff(empty, empty))
    assert root.tag == "testsuites" and root.find("testsuite").get("tests") == "0"


# --- github workflow commands ---------------------------------------------------------------------------


def test_github_one_line_per_finding_plus_summary():
    report = seed_report()
    lines = render_github(report).splitlines()
    assert len(lines) == len(report.findings) + 1
    assert all(GH_LINE.match(line) for line in lines)
    assert sum(line.startswith("::error ") for line in lines) == 13
    assert sum(line.startswith("::notice ") for line in lines) == 2  # the info finding and the summary
    assert re.match(
        r"::error file=fixtures/seed/0\.2\.6\.json,line=[1-9][0-9]*,title=schema-audit breaking%3A ", lines[0]
    )
    assert lines[-1].startswith("::notice title=schema-audit diff::") and "gate FAILED" in lines[-1]


def test_github_empty_diff_still_says_something():
    lines = render_github(empty_report()).splitlines()
    assert len(lines) == 1 and lines[0].startswith("::notice title=schema-audit diff::") and "gate passed" in lines[0]


def test_github_escaping():
    assert gh_data("50% a\nb\rc") == "50%25 a%0Ab\\x0dc"
    assert gh_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"


# --- markdown -------------------------------------------------------------------------------------------


def test_markdown_structure():
    md = render_markdown(seed_report())
    first = md.splitlines()[0]
    assert first.startswith("### ❌ schema-audit diff: 13 breaking, 0 warning, 1 info") and "gate failed" in first
    assert md.index("#### Breaking (13)") < md.index("<details><summary>1 info finding</summary>")
    assert md.count("<summary>Witness:") == 13
    html = markdown_html(md)
    assert html_tags(html) <= ALLOWED_TAGS
    # every witness instance is a JSON code block that parses back
    blocks = re.findall(r'<pre><code class="language-json">(.*?)</code></pre>', html, re.S)
    assert len(blocks) == 13
    import html as htmllib

    first_witness = json.loads(htmllib.unescape(blocks[0]))
    assert first_witness == seed_report().findings[0].witness["instance"]


def test_markdown_empty_and_policy():
    md = render_markdown(empty_report())
    assert md.startswith("### ✅ schema-audit diff: 0 breaking, 0 warning, 0 info — gate passed")
    assert "No schema changes." in md
    md = render_markdown(policy_report())
    assert "1 finding ignored by the config" in md and "Expired ignore entry" in md
    assert "#### Warnings (1)" in md and "Reason:" in md
    assert "mode: full" in md and "hosts: python\\-sdk" not in md and "python-sdk, ts-sdk-v2" in md


def test_an_ignore_reason_keeps_its_issue_reference_while_server_text_stays_inert():
    """The user's own reason in ``[[ignore]]`` links ``#12`` on GitHub; a tool named ``#13 @all`` does not."""
    base = seed_report()
    f = base.findings[0]
    hostile = Finding(**{**f.__dict__, "tool": "see #13 @all"})
    report = Report(
        old=base.old, new=base.new, findings=[], ignored=[(hostile, "accepted in #12 by @api-team <b>x</b>")]
    )
    md = render_markdown(report)
    assert "ignored: accepted in #12 by @api-team \\<b>x\\</b>" in md
    assert "**see #\u200b13 @\u200ball**" in md and html_tags(markdown_html(md)) <= ALLOWED_TAGS


def test_fix_advice_is_in_every_format():
    """The rule's ``fix`` reaches JSON (``fix``), Markdown, annotations, JUnit and SARIF (result and rule help)."""
    report = seed_report()
    f = next(f for f in report.findings if f.fix)
    assert json.loads(RENDERERS["json"](report))["findings"][report.findings.index(f)]["fix"] == f.fix
    assert f"**Fix:** {md_escape(f.fix)}" in render_markdown(report)
    assert any(ln.endswith(f" | fix: {f.fix}") for ln in RENDERERS["github"](report).splitlines())
    assert f"  fix: {f.fix}" in render_junit(report)
    log = json.loads(RENDERERS["sarif"](report))
    rule = next(r for r in log["runs"][0]["tool"]["driver"]["rules"] if r["id"] == f.rule)
    assert f"fix: {f.fix}" in rule["help"]["text"] and "**Fix:**" in rule["help"]["markdown"]
    assert any(res["properties"].get("fix") == f.fix for res in log["runs"][0]["results"])


def test_markdown_stays_under_the_comment_limit():
    base = seed_report()
    f = base.findings[1]
    many = [Finding(**{**f.__dict__, "tool": f"tool_{i:04d}"}) for i in range(3000)]
    report = Report(old=base.old, new=base.new, findings=many)
    md = render_markdown(report)
    assert len(md) <= 65_536 and len(md) <= MARKDOWN_BUDGET
    assert re.search(r"\*\d+ breaking more in the JSON report", md)


def test_md_escape_units():
    # only what could form markup is escaped: snake_case, parentheses and "!" stay as they are
    # (CommonMark backslash escapes, read as they are in the raw Markdown; no character references)
    assert md_escape("a*b_c`d") == "a\\*b_c\\`d"
    assert md_escape("get_user_info(id) !") == "get_user_info(id) !"
    assert md_escape("_x_ __y") == "\\_x\\_ \\_\\_y"
    assert md_escape("<img src=x onerror=alert(1)>") == "\\<img src=x onerror=alert(1)>"
    assert md_escape("[a](http://x) ![i](y)") == "\\[a](http:\u200b//x) !\\[i](y)"
    assert md_escape("a|b ~~c~~ $x$") == "a\\|b \\~\\~c\\~\\~ \\$x\\$"
    assert md_escape("@channel") == "@\u200bchannel"
    assert md_escape("see #12") == "see #\u200b12" and md_escape("#tag") == "#tag"
    assert md_escape("http://evil") == "http:\u200b//evil"
    assert md_escape("WWW.evil.com") == "WWW\u200b.evil.com"
    assert md_escape("a\nb\tc") == "a\\nb\\tc"  # visible \n, \t (a backslash before a letter escapes nothing)
    assert md_escape("a\\*") == "a\\\\\\*" and md_escape("end\\") == "end\\\\"  # before punctuation, at the end
    assert md_escape("&lt; & b &#x41;") == "\\&lt; & b \\&#x41;"
    assert md_escape("\u200b") == "\\u200b"  # a server's own zero-width space is shown, not kept
    assert md_code("a`b") == "`` a`b ``" and md_code("/x") == "`/x`" and md_code("a_b*c") == "`a_b*c`"
    assert md_fence("x ```` y", "json").startswith("`````json\n")
    # the user's own text (an ignore reason): issue references and mentions keep working, markup stays inert
    assert md_escape("accepted in #12 by @api-team <b>", references=True) == "accepted in #12 by @api-team \\<b>"
    # in a raw HTML block (the <summary> line) a backslash would show: character references there
    assert md_html("a_b <i> & @x #1") == "a_b &lt;i&gt; &amp; @\u200bx #\u200b1"


def test_sarif_text_and_inert_units():
    assert sarif_text(r"see [x](1) \o/") == r"see \[x\](1) \\o/"
    assert inert("\x1b[31m\u202e\ufeff\ud800") == "\\x1b[31m\\u202e\\ufeff\\ud800"
    assert inert("tab\tline\n") == "tab\tline\n"
