"""Report renderers: golden files per format, schema validation (JSON report, SARIF 2.1.0), JUnit
parsed back, and server text rendered inertly in every format.

Golden files live in ``tests/golden/<case>.<format-suffix>``; ``SCHEMA_AUDIT_UPDATE_GOLDEN=1
python -m pytest tests/test_report.py`` rewrites them (review the diff before committing).
"""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from markdown_it import MarkdownIt
from runs import (
    RENDERERS,
    render_github,
    render_json,
    render_junit,
    render_markdown,
    render_sarif,
    render_text,
    run_diff,
)

from mcp_schema_audit import __version__
from mcp_schema_audit.findings import Finding
from mcp_schema_audit.report.escape import inert
from mcp_schema_audit.report.github import gh_data, gh_property
from mcp_schema_audit.report.json import report_json_schema
from mcp_schema_audit.report.markdown import MARKDOWN_BUDGET, md_code, md_escape, md_fence
from mcp_schema_audit.report.model import Report
from mcp_schema_audit.report.sarif import artifact_uri, sarif_text
from mcp_schema_audit.rules import RULES
from mcp_schema_audit.schema import HOST_PROFILES
from mcp_schema_audit.snapshot import load_snapshot, snapshot_from_data
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
}
assert set(SUFFIX) == set(RENDERERS)


@pytest.fixture(autouse=True)
def _at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sources are repository-relative paths, as in a CI checkout (and stable in the golden files)."""
    monkeypatch.chdir(ROOT)


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


# --- golden files --------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", list(SUFFIX))
@pytest.mark.parametrize("case", list(ALL_CASES))
def test_golden(case: str, fmt: str):
    out = render(ALL_CASES[case](), fmt)
    path = GOLDEN / f"{case}.{SUFFIX[fmt]}"
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(out, encoding="utf-8", newline="\n")
    assert path.is_file(), f"missing golden file {path}: run with SCHEMA_AUDIT_UPDATE_GOLDEN=1"
    expected = path.read_text(encoding="utf-8")
    assert out == expected, f"{path.name} differs (SCHEMA_AUDIT_UPDATE_GOLDEN=1 rewrites it; review the diff)"


def test_renderers_are_pure_and_deterministic():
    for fmt in SUFFIX:
        assert render(seed_report(), fmt) == render(seed_report(), fmt)
    report = seed_report()
    before = json.dumps(report.to_json(), sort_keys=True)
    for fmt in SUFFIX:
        render(report, fmt)
    assert json.dumps(report.to_json(), sort_keys=True) == before


# --- json + its schema ----------------------------------------------------------------------------------


def _validator() -> jsonschema.Draft202012Validator:
    schema = report_json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def _undocumented(value: Any, schema: dict[str, Any], root: dict[str, Any], path: str = "") -> list[str]:
    """Keys present in ``value`` that the schema node does not list (the schema must document every key)."""
    if "$ref" in schema:
        schema = root["$defs"][schema["$ref"].split("/")[-1]]
    for alt in schema.get("anyOf", []):
        if value is not None and alt.get("type") != "null":
            return _undocumented(value, alt, root, path)
    out = []
    if isinstance(value, dict) and "properties" in schema:
        for k, v in value.items():
            if k not in schema["properties"]:
                out.append(f"{path}/{k}")
            else:
                out += _undocumented(v, schema["properties"][k], root, f"{path}/{k}")
    elif isinstance(value, list) and "items" in schema:
        for i, v in enumerate(value):
            out += _undocumented(v, schema["items"], root, f"{path}/{i}")
    return out


@pytest.mark.parametrize("case", list(CASES))
def test_json_report_validates_against_its_schema(case: str):
    data = json.loads(render_json(CASES[case]()))
    _validator().validate(data)
    schema = report_json_schema()
    assert _undocumented(data, schema, schema) == []


def test_json_report_keys_and_policy_fields():
    data = json.loads(render_json(policy_report()))
    assert data["mode"] == "full" and data["hosts"] == ["python-sdk", "ts-sdk-v2"]
    assert [i["finding"]["tool"] for i in data["ignored"]] == ["add_recipients"]
    assert data["ignored"][0]["reason"].startswith("recipients ships")
    assert data["expired_ignores"][0]["expires"] == "2026-01-31"
    assert data["gate"] == {"fail_on": "warning", "passed": False}
    default = json.loads(render_json(seed_report()))
    assert default["mode"] == "backward" and default["hosts"] == list(HOST_PROFILES)
    assert default["ignored"] == [] and default["expired_ignores"] == []
    # keys of the original contract are all still there
    assert {"report_version", "schema_audit_version", "old", "new", "findings", "summary", "gate", "notes"} <= set(
        default
    )


def test_report_schema_file_is_package_data_and_fresh_each_call():
    a = report_json_schema()
    a["title"] = "changed"
    assert report_json_schema()["title"] != "changed"
    assert (ROOT / "mcp_schema_audit" / "report_schema.json").is_file()
    assert report_json_schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_json_schema_rejects_a_broken_report():
    data = json.loads(render_json(seed_report()))
    data["findings"][0]["severity"] = "fatal"
    del data["gate"]["passed"]
    errors = list(_validator().iter_errors(data))
    assert len(errors) == 2


def test_lone_surrogates_are_escaped_and_json_round_trips():
    # (a lone surrogate in a tool *name* currently fails in Finding.fingerprint: engine, not the renderers)
    def snap(desc: str, enum: list[str]) -> Any:
        return snapshot_from_data(
            {
                "tools": [
                    {
                        "name": "t",
                        "description": desc,
                        "inputSchema": {"type": "object"},
                        "outputSchema": {"type": "object", "required": ["v"], "properties": {"v": {"enum": enum}}},
                    }
                ]
            },
            source="s.json",
        )

    report = run_diff(snap("a", ["a"]), snap("b\ud800", ["a", "\udc00z"]))
    assert {f.rule for f in report.findings} >= {"tool-description-changed", "output-enum-value-added"}
    for fmt in SUFFIX:
        render(report, fmt).encode("utf-8")  # never raises
    data = json.loads(render_json(report))
    assert "\udc00z" in json.dumps(data, ensure_ascii=False)
    assert "\\udc00z" in render_markdown(report)


# --- sarif ----------------------------------------------------------------------------------------------


def _sarif_validator() -> jsonschema.Draft4Validator:
    jsonschema.Draft4Validator.check_schema(SARIF_SCHEMA)
    return jsonschema.Draft4Validator(SARIF_SCHEMA, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)


@pytest.mark.parametrize("case", list(ALL_CASES))
def test_sarif_validates_against_the_sarif_2_1_0_schema(case: str):
    log = json.loads(RENDERERS["sarif"](ALL_CASES[case]()))
    _sarif_validator().validate(log)
    assert log["version"] == "2.1.0"


def test_sarif_content():
    report = seed_report()
    log = json.loads(render_sarif(report))
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "schema-audit" and driver["version"] == __version__
    rules = driver["rules"]
    assert [r["id"] for r in rules] == list(RULES)
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
    _sarif_validator().validate(log)
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
    _sarif_validator().validate(log)
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


# --- junit ----------------------------------------------------------------------------------------------


def _junit(report: Report) -> ET.Element:
    text = render_junit(report)
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>')
    return ET.fromstring(text.encode("utf-8"))


def test_junit_one_testcase_per_tool_and_failures_per_gate():
    root = _junit(seed_report())
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
    assert _junit(seed_report("never")).find("testsuite").get("failures") == "0"
    props = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert props["mode"] == "backward" and props["fail_on"] == "breaking"


def test_junit_empty_diff_is_a_passing_document():
    suite = _junit(empty_report()).find("testsuite")
    assert suite.get("tests") == "16" and suite.get("failures") == "0"
    assert all(c.find("failure") is None for c in suite.findall("testcase"))


def test_junit_with_no_tools_is_still_a_document():
    empty = snapshot_from_data({"tools": []}, source="e.json")
    root = _junit(run_diff(empty, empty))
    assert root.tag == "testsuites" and root.find("testsuite").get("tests") == "0"


# --- github workflow commands ---------------------------------------------------------------------------

_GH_LINE = re.compile(r"^::(error|warning|notice) (file=[^,:]*,line=[1-9][0-9]*,)?title=[^,:]*::.*$")


def test_github_one_line_per_finding_plus_summary():
    report = seed_report()
    lines = render_github(report).splitlines()
    assert len(lines) == len(report.findings) + 1
    assert all(_GH_LINE.match(line) for line in lines)
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

#: ``s``: our own strikethrough around the removed words of a description's delta (``md_delta``)
_ALLOWED_TAGS = {
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


def _html(md: str) -> str:
    return MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(md)


def _tags(html: str) -> set[str]:
    return {t.lower() for t in re.findall(r"</?([A-Za-z][A-Za-z0-9-]*)", html)}


def test_markdown_structure():
    md = render_markdown(seed_report())
    first = md.splitlines()[0]
    assert first.startswith("### ❌ schema-audit diff: 13 breaking, 0 warning, 1 info") and "gate failed" in first
    assert md.index("#### Breaking (13)") < md.index("<details><summary>1 info finding</summary>")
    assert md.count("<summary>Witness:") == 13
    html = _html(md)
    assert _tags(html) <= _ALLOWED_TAGS
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
    assert "mode: full" in md and "hosts: python&#45;sdk" not in md and "python-sdk, ts-sdk-v2" in md


def test_markdown_stays_under_the_comment_limit():
    base = seed_report()
    f = base.findings[1]
    many = [Finding(**{**f.__dict__, "tool": f"tool_{i:04d}"}) for i in range(3000)]
    report = Report(old=base.old, new=base.new, findings=many)
    md = render_markdown(report)
    assert len(md) <= 65_536 and len(md) <= MARKDOWN_BUDGET
    assert re.search(r"\*\d+ breaking more in the JSON report", md)


def test_md_escape_units():
    assert md_escape("a*b_c`d") == "a&#42;b&#95;c&#96;d"
    assert md_escape("<img src=x onerror=alert(1)>") == "&#60;img src=x onerror=alert&#40;1&#41;&#62;"
    assert md_escape("@channel") == "@\u200bchannel"
    assert md_escape("see #12") == "see &#35;\u200b12"
    assert md_escape("http://evil") == "http:\u200b//evil"
    assert md_escape("WWW.evil.com") == "WWW\u200b.evil.com"
    assert md_escape("a\nb\tc") == "a&#92;nb&#92;tc"  # visible \n, \t; the backslash itself escaped
    assert md_escape("&lt;") == "&#38;lt;"
    assert md_escape("\u200b") == "&#92;u200b"  # a server's own zero-width space is shown, not kept
    assert md_code("a`b") == "`` a`b ``" and md_code("/x") == "`/x`"
    assert md_fence("x ```` y", "json").startswith("`````json\n")


def test_sarif_text_and_inert_units():
    assert sarif_text(r"see [x](1) \o/") == r"see \[x\](1) \\o/"
    assert inert("\x1b[31m\u202e\ufeff\ud800") == "\\x1b[31m\\u202e\\ufeff\\ud800"
    assert inert("tab\tline\n") == "tab\tline\n"


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
    _validator().validate(data)

    # markdown: nothing but our own structure renders
    md = outs["markdown"]
    html = _html(md)
    assert _tags(html) <= _ALLOWED_TAGS, _tags(html) - _ALLOWED_TAGS
    for bad in ("<img", "<script", "<a ", "<!--", "<h1", "<h2", "<ul>\n<li>item", "<del>", "<table"):
        assert bad not in html.replace("<summary>", ""), bad
    prose = re.sub(r"(`{3,}).*?\1", "", md, flags=re.S)  # outside the fenced witness blocks
    for raw in (
        "<img",
        "](http",
        "[bold",
        "@channel",
        "http://evil",
        "</failure>",
        "<script",
        "*em*",
        "~~s~~",
        "$x$",
        "&amp;",
        "\n# heading",
        "\n- item",
        "\n=====",
        "\n::error",
    ):
        assert raw not in prose, raw
    assert "@\u200bchannel" in prose and "&#60;img src=x onerror=alert&#40;1&#41;&#62;" in prose
    # the witness (an output value equal to EVIL) is fenced by more backticks than it contains
    blocks = re.findall(r'<pre><code class="language-json">(.*?)</code></pre>', html, re.S)
    assert blocks and any("onerror" in b for b in blocks)
    assert all("&lt;img" in b for b in blocks if "onerror" in b)

    # sarif: schema-valid; message texts inert and without embedded links
    log = json.loads(outs["sarif"])
    _sarif_validator().validate(log)
    for res in log["runs"][0]["results"]:
        text = res["message"]["text"]
        assert not re.search(r"(?<!\\)[\[\]]", text.replace("\\\\", "")), text
        assert "\x1b" not in text and "\n" not in text.replace(EVIL, "")
    assert EVIL in {r["properties"]["tool"] for r in log["runs"][0]["results"]}

    # github: one command per finding + summary; the injected "::error::" never starts a line
    lines = outs["github"].splitlines()
    assert len(lines) == len(report.findings) + 1
    assert all(_GH_LINE.match(line) for line in lines)
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
    _validator().validate(data)
    assert data["kind"] == "probe" and [c["id"] for c in data["calls"]] == ["c1" + EVIL, "c2", "c3"]
    html = _html(outs["markdown"])
    assert _tags(html) <= _ALLOWED_TAGS, _tags(html) - _ALLOWED_TAGS
    prose = re.sub(r"(`{3,}).*?\1", "", outs["markdown"], flags=re.S)
    for raw in ("<img", "](http", "@channel", "<script", "\n# heading", "\n::error"):
        assert raw not in prose, raw
    log = json.loads(outs["sarif"])
    _sarif_validator().validate(log)
    assert [a["location"]["uri"] for a in log["runs"][0]["artifacts"]] == ["calls.json"]
    lines = outs["github"].splitlines()
    assert all(_GH_LINE.match(line) for line in lines) and len(lines) == len(report.findings) + 1
    ET.fromstring(outs["junit"].encode("utf-8"))


# --- forward findings name the snapshots as given on the command line ----------------------------------


def _forward_pair(old_label: str = "v0.2.5", new_label: str = "v0.2.6") -> tuple[Any, Any]:
    """OLD sends enum value 'b' that NEW dropped; NEW adds an optional argument OLD's closed object rejects
    and a tool OLD lacks: each is a break only for hosts that cached NEW while the server runs OLD."""

    def snap(label: str, enum: list[str], props: dict[str, Any], extra: bool) -> Any:
        tools = [
            {
                "name": "t",
                "inputSchema": {"type": "object", "properties": props, "additionalProperties": False},
                "outputSchema": {"type": "object", "required": ["s"], "properties": {"s": {"enum": enum}}},
            }
        ]
        if extra:
            tools.append({"name": "u", "inputSchema": {"type": "object"}})
        return snapshot_from_data({"tools": tools}, source=f"{label}.json", label=label)

    return snap(old_label, ["a", "b"], {}, False), snap(new_label, ["a"], {"x": {"type": "string"}}, True)


def test_forward_witnesses_and_text_name_the_versions_in_every_format():
    old, new = _forward_pair()
    report = run_diff(old, new, mode="forward")
    by_rule = {f.rule: f for f in report.findings}
    assert set(by_rule) == {"output-enum-value-added", "input-property-removed-from-closed-object", "tool-removed"}
    assert all("forward" in f.tags for f in report.findings)
    # the served side is OLD: an output witness is accepted by OLD; argument witnesses come from the cached NEW
    out, arg, gone = (
        by_rule["output-enum-value-added"],
        by_rule["input-property-removed-from-closed-object"],
        by_rule["tool-removed"],
    )
    assert (out.witness["accepted_by"], arg.witness["accepted_by"], gone.witness["accepted_by"]) == (
        "old",
        "new",
        "new",
    )
    assert out.old == ["a", "b"] and out.new == ["a"]  # old = OLD's value, new = NEW's value
    assert (arg.old_pointer, arg.new_pointer, arg.old, arg.new) == (
        "/additionalProperties",
        "/properties/x",
        False,
        {"type": "string"},
    )
    served = "accepted by v0.2.5 (served), rejected by hosts that cached v0.2.6 (python-sdk, ts-sdk-v1, ts-sdk-v2)"
    cached = "accepted by v0.2.6 (cached), rejected by the server running v0.2.5 (python-sdk, ts-sdk-v1, ts-sdk-v2)"
    text = render(report, "text")
    assert served in text and cached in text
    assert "the served v0.2.5 schema" in out.message and "the cached v0.2.6 schema" in out.message
    for f in report.findings:
        assert f.message.startswith("[forward: hosts cached v0.2.6, server runs v0.2.5] ")
        assert "the new schema" not in f.message and "the new server" not in f.message, f.message
    assert "the old schema" not in text and "(new accepts)" not in render(report, "junit")
    md = render(report, "markdown")
    assert md_escape(served) in md and md_escape(cached) in md
    sarif = json.loads(render(report, "sarif"))
    texts = " ".join(r["message"]["text"] for r in sarif["runs"][0]["results"])
    assert sarif_text(served) in texts and sarif_text(cached) in texts
    assert {r["properties"]["witness"]["accepted_by"] for r in sarif["runs"][0]["results"]} == {"old", "new"}
    github = render(report, "github")
    assert gh_data(served) in github and gh_data(cached) in github
    junit = _junit(report)
    junit_text = " ".join((e.text or "") for e in junit.iter("failure"))
    assert (
        "witness, accepted by v0.2.5 (served)" in junit_text
        and f"rejected by {served.split('rejected by ')[1]}" in junit_text
    )
    data = json.loads(render_json(report))
    _validator().validate(data)
    assert {f["rule"]: f["witness"]["accepted_by"] for f in data["findings"]} == {
        "output-enum-value-added": "old",
        "input-property-removed-from-closed-object": "new",
        "tool-removed": "new",
    }


def test_backward_witness_text_uses_labels_too_and_full_mode_mixes_both():
    old, new = _forward_pair()
    report = run_diff(new, old, mode="full")  # now v0.2.6 is OLD and the backward findings are the breaks
    text = render(report, "text")
    backward = [f for f in report.findings if "forward" not in f.tags and f.severity == "breaking"]
    assert backward and {f.witness["accepted_by"] for f in backward} == {"new", "old"}
    assert "accepted by v0.2.5 (served), rejected by hosts that cached v0.2.6" in text
    assert "accepted by v0.2.6 (cached), rejected by the server running v0.2.5" in text


def test_forward_fingerprints_are_those_of_the_swapped_diff():
    from mcp_schema_audit.diff import diff_snapshots

    old, new = _forward_pair()
    forward = run_diff(old, new, mode="forward").findings
    swapped = diff_snapshots(new, old)
    assert sorted(f.fingerprint for f in forward) == sorted(f.fingerprint for f in swapped)
    assert [f.witness["accepted_by"] for f in swapped if f.witness] != [
        f.witness["accepted_by"] for f in forward if f.witness
    ]


def test_hostile_labels_stay_inert_in_forward_wording():
    evil = "v1](http://evil) <img src=x onerror=alert(1)> [bold red]x[/] \x1b[31m @channel ::error::x"
    old, new = _forward_pair(evil, "v2")
    report = run_diff(old, new, mode="forward")
    outs = {fmt: render(report, fmt) for fmt in SUFFIX}
    for fmt, out in outs.items():
        assert "\x1b" not in out, fmt
        for line in out.splitlines():
            if fmt != "github":
                assert not line.lstrip().startswith("::"), (fmt, line)
    html = _html(outs["markdown"])
    assert _tags(html) <= _ALLOWED_TAGS and "<img" not in html and "<a " not in html
    prose = re.sub(r"(`{3,}).*?\1", "", outs["markdown"], flags=re.S)
    assert "](http" not in prose and "@channel" not in prose
    log = json.loads(outs["sarif"])
    _sarif_validator().validate(log)
    for res in log["runs"][0]["results"]:
        assert not re.search(r"(?<!\\)[\[\]]", res["message"]["text"].replace("\\\\", "")), res["message"]["text"]
    assert "[bold red]x[/]" in outs["text"] and "\\x1b[31m" in outs["text"]
    ET.fromstring(outs["junit"].encode("utf-8"))


# --- sarif regions ------------------------------------------------------------------------------------


def test_sarif_results_carry_a_region_at_the_tool_line():
    report = seed_report()
    log = json.loads(render_sarif(report))
    _sarif_validator().validate(log)
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
        _sarif_validator().validate(log)
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
