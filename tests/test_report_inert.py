"""Server text rendered inertly in every format: no escape sequence, workflow command, markup or HTML of the
server's reaches a terminal, a CI log or a comment."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from report_cases import (
    ALLOWED_TAGS,
    GH_LINE,
    SUFFIX,
    html_tags,
    markdown_html,
    md_prose,
    parse_page,
    render,
    report_validator,
    sarif_validator,
    unescaped,
)
from runs import render_text, run_diff

from mcp_schema_audit.report.escape import inert
from mcp_schema_audit.report.model import Report
from mcp_schema_audit.snapshot import snapshot_from_data

pytestmark = pytest.mark.usefixtures("at_repo_root")  # sources are repository-relative paths


# --- hostile server text in every format ----------------------------------------------------------------

EVIL = (
    "\x1b[31mred\x1b[0m [bold red]x[/] [link=http://evil]y[/link] <img src=x onerror=alert(1)> "
    "](http://evil) ![i](http://evil/i.png) @channel `tick` ``` </failure> ]]> %0A::error::boom "
    "<!-- c --> <script>alert(1)</script> *em* _u_ ~~s~~ | a | $x$ &amp; #1\n::error::line2\r\n# heading\n"
    "- item\n=====\n\u202eevil"
)


def hostile_report() -> Report:
    def tool(name: str, desc: str, enum: list[str]) -> dict[str, Any]:
        return {
            "name": name,
            "description": desc,
            "inputSchema": {"type": "object"},
            "outputSchema": {
                "type": "object",
                "additionalProperties": False,
                "required": ["v"],
                "properties": {"v": {"enum": enum}},
            },
        }

    old = snapshot_from_data(
        {"tools": [tool(EVIL, "old", ["a"]), tool("gone" + EVIL, "x", ["a"])]}, source="o.json", label="old"
    )
    new = snapshot_from_data({"tools": [tool(EVIL, EVIL, ["a", EVIL])]}, source="n.json", label="new")
    report = run_diff(old, new, fail_on="info")
    assert {f.rule for f in report.findings} >= {"output-enum-value-added", "tool-description-changed", "tool-removed"}
    return report


def test_hostile_text_is_inert_in_every_format():
    report = hostile_report()
    outs = {fmt: render(report, fmt) for fmt in SUFFIX}
    for fmt, out in outs.items():
        assert "\x1b" not in out and "\r" not in out and "\u202e" not in out, fmt
        out.encode("utf-8")

    # no line of any format can read as a workflow command in a CI log, except github's own commands
    for fmt, out in outs.items():
        for line in out.splitlines():
            if fmt != "github":
                assert not line.lstrip().startswith("::"), (fmt, line)
            assert not line.lstrip().startswith("##["), (fmt, line)

    # text: rich markup shown literally, ANSI as visible escapes, one line per server string
    assert "\\x1b[31mred" in outs["text"] and "[bold red]x[/]" in outs["text"]
    assert "::error" not in outs["text"] and ":\\x3aerror:\\x3aline2" in outs["text"]
    narrow = render_text(report, width=40)
    assert not any(line.lstrip().startswith("::") for line in narrow.splitlines())

    # json: faithful data (the exact tool name round-trips), no raw control bytes in the document
    data = json.loads(outs["json"])
    assert EVIL in {f["tool"] for f in data["findings"]}
    report_validator().validate(data)

    # markdown: nothing but our own structure renders
    md = outs["markdown"]
    html = markdown_html(md)
    assert html_tags(html) <= ALLOWED_TAGS, html_tags(html) - ALLOWED_TAGS
    for bad in ("<img", "<script", "<a ", "<!--", "<h1", "<h2", "<ul>\n<li>item", "<del>", "<table"):
        assert bad not in html.replace("<summary>", ""), bad
    prose = md_prose(md)  # outside the fenced witness blocks
    # in the source, markup characters only with their backslash escape (a raw HTML block has references)
    for raw in ("<img", "[bold", "![i]", "</failure>", "<script", "<!--", "*em*", "~~s~~", "$x$", "&amp;", "| a |"):
        assert not unescaped(raw, prose), raw
    for raw in ("@channel", "http://evil", "\n# heading", "\n- item", "\n=====", "\n::error", "&#"):
        assert raw not in prose, raw
    assert "@\u200bchannel" in prose and "\\<img src=x onerror=alert(1)>" in prose
    # the witness (an output value equal to EVIL) is fenced by more backticks than it contains
    blocks = re.findall(r'<pre><code class="language-json">(.*?)</code></pre>', html, re.S)
    assert blocks and any("onerror" in b for b in blocks)
    assert all("&lt;img" in b for b in blocks if "onerror" in b)

    # sarif: schema-valid; message texts inert and without embedded links
    log = json.loads(outs["sarif"])
    sarif_validator().validate(log)
    for res in log["runs"][0]["results"]:
        text = res["message"]["text"]
        assert not re.search(r"(?<!\\)[\[\]]", text.replace("\\\\", "")), text
        assert "\x1b" not in text and "\n" not in text.replace(EVIL, "")
    assert EVIL in {r["properties"]["tool"] for r in log["runs"][0]["results"]}

    # github: one command per finding + summary; the injected "::error::" never starts a line
    lines = outs["github"].splitlines()
    assert len(lines) == len(report.findings) + 1
    assert all(GH_LINE.match(line) for line in lines)
    assert not any(line.startswith("::error::") for line in lines)
    assert "%250A::error::boom" in outs["github"] and "%0A::error::line2" in outs["github"]

    # junit: well-formed, names exact (inert), no CDATA end or stray failure tags from the text
    root = ET.fromstring(outs["junit"].encode("utf-8"))
    names = {c.get("name") for c in root.iter("testcase")}
    one_line = inert(EVIL).replace("\t", "\\t").replace("\n", "\\n")
    assert one_line in names and "gone" + one_line in names
    assert "]]>" not in outs["junit"]
    assert outs["junit"].count("</failure>") == len(list(root.iter("failure"))) == 2
    failure_text = "".join(f.text or "" for f in root.iter("failure"))
    assert "</failure>" in failure_text and "<img src=x" in failure_text  # shown as text, parsed back

    # html: only the page's own tags, attributes and links (parse_page); server text shown as sent, one line
    page = parse_page(outs["html"])
    assert one_line in page.text and "gone" + one_line in page.text  # the tools' section headings
    for raw in ("<img", "<script", "<!--", "</failure>"):
        assert raw not in outs["html"], raw
    assert (
        "&lt;img src=x onerror=alert(1)&gt;" in outs["html"] and "&lt;script&gt;alert(1)&lt;/script&gt;" in outs["html"]
    )
    assert any(one_line in block for block in page.text)  # the witness (the enum value) in its <pre>, decoded


def test_hostile_probe_results_are_inert_in_every_format():
    """A probe whose tool name, results, tool error text and call ids are hostile: nothing renders, nothing
    starts a workflow command, JSON keeps the exact values, witnesses are fenced and capped."""
    from runs import run_probe

    closed = {"type": "object", "properties": {"v": {"type": "string"}}, "additionalProperties": False}
    listing = snapshot_from_data(
        {"tools": [{"name": EVIL, "inputSchema": {"type": "object"}, "outputSchema": closed}]}, source="", label="live"
    )
    listing.source = ""
    records = [
        {
            "id": "c1" + EVIL,
            "tool": EVIL,
            "arguments": {},
            "outcome": "result",
            "result": {"content": [{"type": "text", "text": EVIL}], "structuredContent": {"v": EVIL, EVIL: EVIL * 200}},
        },
        {
            "id": "c2",
            "tool": EVIL,
            "arguments": {},
            "outcome": "result",
            "result": {"content": [{"type": "text", "text": EVIL}], "isError": True},
        },
        {"id": "c3", "tool": EVIL, "arguments": {}, "outcome": "rpc-error", "error": {"code": -32603, "message": EVIL}},
    ]
    report = run_probe(listing, records, [], fail_on="info", artifact="calls.json")
    assert {f.rule for f in report.findings} == {
        "result-violates-own-schema",
        "result-text-missing",
        "call-tool-error",
        "call-rpc-error",
    }
    own = next(f for f in report.findings if f.rule == "result-violates-own-schema")
    assert own.witness is not None and own.witness["truncated"] is True  # capped: the real value is 70 KB
    assert len(json.dumps(own.witness["instance"])) <= 4_000
    outs = {fmt: render(report, fmt) for fmt in SUFFIX}
    for fmt, out in outs.items():
        assert "\x1b" not in out and "\r" not in out and "\u202e" not in out, fmt
        for line in out.splitlines():
            if fmt != "github":
                assert not line.lstrip().startswith("::"), (fmt, line)
    data = json.loads(outs["json"])
    report_validator().validate(data)
    assert data["kind"] == "probe" and [c["id"] for c in data["calls"]] == ["c1" + EVIL, "c2", "c3"]
    html = markdown_html(outs["markdown"])
    assert html_tags(html) <= ALLOWED_TAGS, html_tags(html) - ALLOWED_TAGS
    prose = md_prose(outs["markdown"])
    for raw in ("<img", "<script"):
        assert not unescaped(raw, prose), raw
    for raw in ("http://evil", "@channel", "\n# heading", "\n::error"):
        assert raw not in prose, raw
    log = json.loads(outs["sarif"])
    sarif_validator().validate(log)
    assert [a["location"]["uri"] for a in log["runs"][0]["artifacts"]] == ["calls.json"]
    page = parse_page(outs["html"])
    flat = inert(EVIL).replace("\t", "\\t").replace("\n", "\\n")
    assert flat in page.text and "<img" not in outs["html"] and "<script" not in outs["html"]
    lines = outs["github"].splitlines()
    assert all(GH_LINE.match(line) for line in lines) and len(lines) == len(report.findings) + 1
    ET.fromstring(outs["junit"].encode("utf-8"))
