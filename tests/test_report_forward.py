"""Forward findings (hosts that cached NEW while the server runs OLD) name the snapshots as given on the
command line, in every format."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from report_cases import (
    ALLOWED_TAGS,
    SUFFIX,
    html_tags,
    junit_root,
    markdown_html,
    render,
    report_validator,
    sarif_validator,
)
from runs import render_json, run_diff

from mcp_schema_audit.report.github import gh_data
from mcp_schema_audit.report.markdown import md_escape
from mcp_schema_audit.report.sarif import sarif_text
from mcp_schema_audit.snapshot import snapshot_from_data

pytestmark = pytest.mark.usefixtures("at_repo_root")  # sources are repository-relative paths


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
    cached = "accepted by v0.2.6 (cached), rejected by the server running v0.2.5 (published, inferred)"
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
    junit = junit_root(report)
    junit_text = " ".join((e.text or "") for e in junit.iter("failure"))
    assert (
        "witness, accepted by v0.2.5 (served)" in junit_text
        and f"rejected by {served.split('rejected by ')[1]}" in junit_text
    )
    data = json.loads(render_json(report))
    report_validator().validate(data)
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


def test_full_mode_reports_a_rollback_hazard_once_as_the_forward_break():
    """``output-required-added`` is a warning about a rollback (hosts that cached the new schema reject the old
    version's results without the field). ``--mode full`` also finds that rollback as the forward
    ``output-required-removed`` break on the same property: only the break is shown, not both; backward mode keeps
    the warning, the only word on it there."""

    def listing(label: str, required: list[str]) -> Any:
        props = {"n": {"type": "string"}, "m": {"type": "string"}}
        tool = {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object", "properties": props}}
        tool["outputSchema"]["required"] = required
        return snapshot_from_data({"tools": [tool]}, source=f"{label}.json", label=label)

    old, new = listing("v1", ["n"]), listing("v2", ["n", "m"])
    full = [(f.rule, "forward" in f.tags, f.pointer) for f in run_diff(old, new, mode="full").findings]
    assert full == [("output-required-removed", True, "/properties/m")]
    backward = [(f.rule, f.severity) for f in run_diff(old, new).findings]
    assert backward == [("output-required-added", "warning")]


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
    html = markdown_html(outs["markdown"])
    assert html_tags(html) <= ALLOWED_TAGS and "<img" not in html and "<a " not in html
    prose = re.sub(r"(`{3,}).*?\1", "", outs["markdown"], flags=re.S)
    assert "http://" not in prose and "@channel" not in prose
    log = json.loads(outs["sarif"])
    sarif_validator().validate(log)
    for res in log["runs"][0]["results"]:
        assert not re.search(r"(?<!\\)[\[\]]", res["message"]["text"].replace("\\\\", "")), res["message"]["text"]
    assert "[bold red]x[/]" in outs["text"] and "\\x1b[31m" in outs["text"]
    ET.fromstring(outs["junit"].encode("utf-8"))
