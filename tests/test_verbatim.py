"""Server text is data, never a template: names, enum values, descriptions and patterns holding ``{``, ``}``,
``{V}``, ``%s``, ``\\1``, ``$1``, Markdown, HTML or ANSI come out of every format as they went in, escaped only by
that format's own escaping, in both modes (hosts cached OLD, and hosts cached NEW). The HTML page, read by a
parser as a browser reads it, shows the text as sent and holds no tag, attribute or link of the server's."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from report_cases import parse_page
from runs import render, run_diff

from mcp_schema_audit.engine import compare_schemas
from mcp_schema_audit.engine.issue import short
from mcp_schema_audit.report.escape import html_text, one_line
from mcp_schema_audit.report.github import gh_data
from mcp_schema_audit.report.markdown import md_escape
from mcp_schema_audit.report.model import detail
from mcp_schema_audit.report.sarif import sarif_text
from mcp_schema_audit.report.text import tx
from mcp_schema_audit.snapshot import snapshot_from_data

#: Pieces that a template engine, a regex substitution or a Markdown/HTML/terminal reader would act on.
HOSTILE = [
    "{",
    "}",
    "{V}",
    "{P}",
    "{served}",
    "{cached}",
    "{0}",
    "{x!r}",
    "%s",
    "%(a)s",
    "\\1",
    "$1",
    "$&",
    "**b**",
    "_i_",
    "`c`",
    "<b>x</b>",
    "&amp;",
    "[l](http://x)",
    "\x1b[31m",
    "the new schema",
    "{{",
]
token = st.lists(st.sampled_from(HOSTILE) | st.sampled_from(["a", "Z", " ", "-"]), min_size=1, max_size=6).map("".join)


def test_the_reported_case_shows_the_value_as_sent():
    """The issue's case: an added enum value ``'{V} x'`` was shown as ``'cached x'``."""
    (f,) = [x for x in compare_schemas({"enum": ["a"]}, {"enum": ["a", "{V} x"]}, "output") if x.rule.endswith("added")]
    assert f.detail_text == "value '{V} x' of the new schema is not in the cached schema's enum [\"a\"]"


def _pair(name: str, value: str, text: str) -> tuple[Any, Any]:
    """OLD and NEW listings of one tool named ``name``: NEW adds ``value`` to an output enum, changes the
    description to ``text`` and gains a property called ``value``."""

    def tool(values: list[str], description: str, extra: dict[str, Any]) -> dict[str, Any]:
        props = {"status": {"enum": values}, **extra}
        return {
            "name": name,
            "description": description,
            "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object", "properties": props, "additionalProperties": False},
        }

    old = tool(["ok"], "Old words.", {})
    new = tool(["ok", value], text, {value: {"type": "string"}})
    return (
        snapshot_from_data({"tools": [old]}, source="old.json", label="v1"),
        snapshot_from_data({"tools": [new]}, source="new.json", label="v2"),
    )


def _shown(report: Any, fmt: str, f: Any) -> str:
    """How ``f``'s detail must read in ``fmt``: the detail escaped by that format's own escaping."""
    if fmt == "text":
        return tx(detail(f))
    if fmt == "markdown":
        return md_escape(detail(f))
    if fmt == "github":
        return gh_data(detail(f))
    if fmt == "json":
        return f.message
    if fmt == "html":  # the page's text as a browser shows it: one line, nothing hidden
        return one_line(detail(f))
    return detail(f)


def _texts(out: str, fmt: str) -> str:
    """Every string of a machine format's document, joined (JSON and SARIF values, JUnit XML text)."""
    if fmt in ("json", "sarif"):
        strings: list[str] = []

        def walk(x: Any) -> None:
            if isinstance(x, str):
                strings.append(x)
            elif isinstance(x, dict):
                for v in x.values():
                    walk(v)
            elif isinstance(x, list):
                for v in x:
                    walk(v)

        walk(json.loads(out))
        return "\n".join(strings)
    if fmt == "junit":
        return "\n".join(e.text or "" for e in ET.fromstring(out).iter())
    if fmt == "html":  # parse_page also checks that only the page's own tags, attributes and links are there
        return parse_page(out).shown
    return out


@settings(max_examples=60, deadline=None)
@given(name=token, value=token, text=token)
def test_server_text_is_shown_verbatim_in_every_format_and_mode(name: str, value: str, text: str):
    value, text = value + "1", text + " words"  # never empty, never equal to the old ones
    old, new = _pair(name, value, text)
    for mode in ("backward", "forward"):
        report = run_diff(old, new, mode=mode, fail_on="never")
        by_rule = {f.rule: f for f in report.findings}
        if mode == "backward":  # hosts cached v1; the server (v2) sends the new value
            assert by_rule["output-enum-value-added"].detail_text == (
                f'value {short(value)} of the new schema is not in the cached schema\'s enum ["ok"]'
            )
            assert by_rule["output-property-added-to-closed-object"].detail_text.startswith(f"property {value!r} ")
            assert all(f.message.startswith(f"{name}: ") for f in report.findings)
        else:  # hosts cached v2; the server (v1) never sends it
            lead = "[forward: hosts cached v2, server runs v1] "
            assert by_rule["output-enum-value-removed"].detail_text == (
                f"{lead}values {short([value])} are listed only by the cached v2 schema"
            )
            assert by_rule["output-property-removed"].detail_text == (
                f"{lead}property {value!r} is listed only by the cached v2 schema"
            )
            assert all(f.message.startswith(f"{lead}{name}: ") for f in report.findings)
        for fmt in ("text", "json", "markdown", "sarif", "github", "junit", "html"):
            out = render(report, fmt)
            shown = _texts(out, fmt)
            for f in report.findings:
                if fmt == "github" and f.severity == "info":
                    continue  # annotations are for breaking changes and warnings
                want = _shown(report, fmt, f)
                if fmt == "sarif":
                    want = sarif_text(detail(f))
                assert want in shown, (mode, fmt, f.rule, want)
                if fmt == "html":  # in the source: html.escape'd, nothing else
                    assert html_text(detail(f)) in out, (mode, f.rule)
            if fmt == "html":  # the tool's name heads its section, as sent
                assert one_line(name) in shown.splitlines(), (mode, name)
            if fmt == "json":  # the new description, as sent
                assert {f["new"] for f in json.loads(out)["findings"] if f["rule"] == "tool-description-changed"} == {
                    text
                }
