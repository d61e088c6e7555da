"""Reports and helpers shared by the ``tests/test_report*.py`` modules: the report of each case (seed, empty,
policy, probe, lint, history), rendering, and the validators and parsers the modules check formats with.

The cases read repository-relative paths: the test modules run with the repository root as the working
directory (the ``at_repo_root`` fixture of ``conftest.py``).
"""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import jsonschema
from markdown_it import MarkdownIt
from runs import RENDERERS, render_junit, run_diff

from mcp_schema_audit.findings import Finding
from mcp_schema_audit.report.html import CSP as HTML_CSP
from mcp_schema_audit.report.json import report_json_schema
from mcp_schema_audit.report.model import Report
from mcp_schema_audit.snapshot import load_snapshot
from mcp_schema_audit.wording import Text

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
SARIF_SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0-rtm.5.json").read_text(encoding="utf-8"))
UPDATE = os.environ.get("SCHEMA_AUDIT_UPDATE_GOLDEN") == "1"
SUFFIX = {
    "text": "txt",
    "json": "json",
    "markdown": "md",
    "sarif": "sarif",
    "github": "github.txt",
    "junit": "junit.xml",
    "changelog": "changelog.md",
    "html": "html",
}
assert set(SUFFIX) == set(RENDERERS)


def seed_report(fail_on: str = "breaking") -> Report:
    return run_diff(
        load_snapshot("fixtures/seed/0.2.5.json"), load_snapshot("fixtures/seed/0.2.6.json"), fail_on=fail_on
    )


def empty_report() -> Report:
    return run_diff(load_snapshot("fixtures/seed/0.2.4.json"), load_snapshot("fixtures/seed/0.2.5.json"))


def policy_report() -> Report:
    """The seed diff after a policy: one finding ignored, one expired entry, a warning, mode full, two hosts."""
    base = seed_report()
    keep = [f for f in base.findings if f.tool != "add_recipients"]
    ignored = [
        (f, "recipients ships with the 0.2.6 host update (ticket 42)")
        for f in base.findings
        if f.tool == "add_recipients"
    ]
    warn = Finding(
        rule="output-pattern-changed",
        severity="warning",
        tool="whoami",
        direction="output",
        pointer="/properties/address/pattern",
        detail=Text.literal("pattern '^[a-z]+@[a-z.]+$' became '^.+@.+$'"),
        old="^[a-z]+@[a-z.]+$",
        new="^.+@.+$",
        old_pointer="/properties/address/pattern",
        new_pointer="/properties/address/pattern",
        reason="no witness found within the sampling budget: review by hand",
    )
    return Report(
        old=base.old,
        new=base.new,
        findings=sorted([*keep, warn], key=lambda f: (f.tool, f.pointer)),
        fail_on="warning",
        notes=list(base.notes),
        mode="full",
        hosts=["python-sdk", "ts-sdk-v2"],
        ignored=ignored,
        expired_ignores=[
            {"rule": "output-enum-value-added", "tool": "whoami", "reason": "rollout", "expires": "2026-01-31"}
        ],
    )


def probe_report() -> Report:
    """The recorded probe of the demo server's release 2 (fixtures/probe), replayed against release 1."""
    from runs import run_probe

    from mcp_schema_audit.probe import load_recording

    rec = load_recording(Path("fixtures/probe/demo-v2.recording.json"))
    return run_probe(
        rec.snapshot,
        rec.calls,
        [load_snapshot("fixtures/probe/demo-v1.json")],
        artifact="fixtures/probe/demo-v2.recording.json",
    )


def lint_report() -> Report:
    """A lint of 0.2.6 with 0.2.5 as the baseline of output required sets."""
    from mcp_schema_audit.lint import lint_snapshot

    snap, base = load_snapshot("fixtures/seed/0.2.6.json"), load_snapshot("fixtures/seed/0.2.5.json")
    return Report(old=base, new=snap, findings=lint_snapshot(snap, baseline=base), kind="lint", baseline=base)


def history_report() -> Any:
    """0.2.7 against every older seed release."""
    from mcp_schema_audit.history import check_history

    hist = check_history(
        load_snapshot("fixtures/seed/0.2.7.json"),
        [load_snapshot(f"fixtures/seed/{v}.json") for v in ("0.2.4", "0.2.5", "0.2.6")],
    )
    hist.fail_on = "breaking"
    return hist


CASES = {
    "seed": seed_report,
    "empty": empty_report,
    "policy": policy_report,
    "probe": probe_report,
    "lint": lint_report,
}
#: Every report kind, history included (golden files of every format).
ALL_CASES = {**CASES, "history": history_report}


def render(report: Any, fmt: str) -> str:
    from runs import render as render_any

    return render_any(report, fmt, color=False, width=120)


# --- validators and parsers of the formats ----------------------------------------------------------


def report_validator() -> jsonschema.Draft202012Validator:
    schema = report_json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def undocumented_keys(value: Any, schema: dict[str, Any], root: dict[str, Any], path: str = "") -> list[str]:
    """Keys present in ``value`` that the schema node does not list (the schema must document every key)."""
    if "$ref" in schema:
        schema = root["$defs"][schema["$ref"].split("/")[-1]]
    for alt in schema.get("anyOf", []):
        if value is not None and alt.get("type") != "null":
            return undocumented_keys(value, alt, root, path)
    out = []
    if isinstance(value, dict) and "properties" in schema:
        for k, v in value.items():
            if k not in schema["properties"]:
                out.append(f"{path}/{k}")
            else:
                out += undocumented_keys(v, schema["properties"][k], root, f"{path}/{k}")
    elif isinstance(value, list) and "items" in schema:
        for i, v in enumerate(value):
            out += undocumented_keys(v, schema["items"], root, f"{path}/{i}")
    return out


def sarif_validator() -> jsonschema.Draft4Validator:
    jsonschema.Draft4Validator.check_schema(SARIF_SCHEMA)
    return jsonschema.Draft4Validator(SARIF_SCHEMA, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)


def junit_root(report: Report) -> ET.Element:
    text = render_junit(report)
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>')
    return ET.fromstring(text.encode("utf-8"))


GH_LINE = re.compile(r"^::(error|warning|notice) (file=[^,:]*,line=[1-9][0-9]*,)?title=[^,:]*::.*$")

#: ``s``: our own strikethrough around the removed words of a description's delta (``md_delta``)
ALLOWED_TAGS = {
    "h3",
    "h4",
    "p",
    "strong",
    "em",
    "code",
    "pre",
    "br",
    "details",
    "summary",
    "sub",
    "ul",
    "li",
    "blockquote",
    "s",
}


def unescaped(raw: str, md: str) -> bool:
    """True when ``raw`` occurs in the Markdown source ``md`` without a backslash escape on its first character
    (an even number of backslashes before it): where it would act as markup."""
    return re.search(r"(?<!\\)(?:\\\\)*" + re.escape(raw), md) is not None


def md_prose(md: str) -> str:
    """The Markdown source ``md`` without its fenced code blocks (fences at a line's start only)."""
    return re.sub(r"(?ms)^(`{3,})[^`\n]*\n.*?^\1$", "", md)


def markdown_html(md: str) -> str:
    return MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(md)


def html_tags(html: str) -> set[str]:
    return {t.lower() for t in re.findall(r"</?([A-Za-z][A-Za-z0-9-]*)", html)}


# --- the HTML page (``--format html``) ------------------------------------------------------------------

#: Every tag the HTML report writes itself; server text never adds one.
PAGE_TAGS = {
    "html", "head", "meta", "title", "style", "body", "header", "main", "footer", "section", "nav", "article",
    "h1", "h2", "h3", "p", "strong", "em", "code", "pre", "span", "a", "ul", "li", "table", "tr", "th", "td",
    "details", "summary", "del", "ins",
}  # fmt: skip
#: Every attribute it writes (``href`` only to a fragment of the page itself, checked by ``parse_page``).
PAGE_ATTRS = {"lang", "charset", "http-equiv", "content", "name", "class", "id", "href", "open"}


@dataclass
class Page:
    """An HTML report as a browser's parser reads it: ``tags`` (name, attribute names), ``hrefs``, ``text`` (the
    character data, references decoded, one string per run between two tags), ``comments`` and ``style``."""

    tags: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    hrefs: list[str] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    csp: list[str] = field(default_factory=list)

    @property
    def shown(self) -> str:
        """All the text, runs joined by a newline."""
        return "\n".join(self.text)


class _PageParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page = Page()
        self.stack: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.page.tags.append((tag, tuple(a for a, _ in attrs)))
        values = dict(attrs)
        if "href" in values:
            self.page.hrefs.append(values["href"] or "")
        if tag == "meta" and (values.get("http-equiv") or "").lower() == "content-security-policy":
            self.page.csp.append(values.get("content") or "")
        self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if self.stack and self.stack[-1] == tag:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        if not self.stack or self.stack[-1] != "style":
            self.page.text.append(data)

    def handle_comment(self, data: str) -> None:
        self.page.comments.append(data)


def parse_page(out: str) -> Page:
    """``out`` (an HTML report) parsed, and checked to hold only the page's own markup: known tags and attributes,
    links to its own fragments only, no comment, exactly one CSP that fetches nothing."""
    parser = _PageParser()
    parser.feed(out)
    parser.close()
    page = parser.page
    assert {t for t, _ in page.tags} <= PAGE_TAGS, {t for t, _ in page.tags} - PAGE_TAGS
    attrs = {a for _, names in page.tags for a in names}
    assert attrs <= PAGE_ATTRS, attrs - PAGE_ATTRS
    assert all(re.fullmatch(r"#s[0-9]+", h) for h in page.hrefs), page.hrefs
    assert not page.comments, page.comments
    assert page.csp == [HTML_CSP], page.csp
    assert out.startswith("<!DOCTYPE html>\n")
    return page
