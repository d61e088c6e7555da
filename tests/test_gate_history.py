"""The history gate: cohorts, conflicts, the order of stored versions, grouped findings, formats."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from gate_helpers import ROOT, SEED, cli
from report_cases import unescaped

from mcp_schema_audit.history import order_snapshots, version_key
from mcp_schema_audit.snapshot import snapshot_from_data


@pytest.fixture()
def seed_store(tmp_path: Path) -> Path:
    store = tmp_path / "store"
    for v in ("0.2.4", "0.2.5", "0.2.6", "0.2.7"):
        r = cli("snapshot", "--store", str(store), "--label", v, "--from-file", str(SEED / f"{v}.json"))
        assert r.returncode == 0, r.stderr
    return store


def test_history_shows_cohorts_and_the_transport_conflict(seed_store: Path):
    r = cli("history", "0.2.7", "--store", str(seed_store), "--format", "json")
    assert r.returncode == 1, r.stderr  # 0.2.7 still breaks hosts that cached 0.2.4/0.2.5
    data = json.loads(r.stdout)
    assert [c["label"] for c in data["cohorts"]] == ["0.2.4", "0.2.5", "0.2.6"]
    assert data["matrix"]["whoami"] == {"0.2.4": "warning", "0.2.5": "warning", "0.2.6": "warning"}
    assert data["matrix"]["get_thread"]["0.2.5"] == "breaking" and data["matrix"]["get_thread"]["0.2.6"] == "warning"
    # 0.2.4 and 0.2.5 cache the same value set: one group, one conflict with 0.2.6
    assert data["conflicts"] == [
        {
            "tool": "whoami",
            "pointer": "/properties/transport",
            "cohorts": ["0.2.4", "0.2.5", "0.2.6"],
            "values": {"0.2.4": ["stdio", "http"], "0.2.5": ["stdio", "http"], "0.2.6": ["stdio", "streamable-http"]},
            "common": ["stdio"],
        }
    ]
    text = cli("history", "0.2.7", "--store", str(seed_store)).stdout
    assert "whoami /properties/transport: cohorts 0.2.4, 0.2.5 and 0.2.6" in text
    assert 'all of them accept only ["stdio"]' in text


def test_history_against_named_cohorts_and_ordering(seed_store: Path):
    r = cli("history", "0.2.6", "--store", str(seed_store), "--against", "0.2.5", "--format", "json")
    data = json.loads(r.stdout)
    assert [c["label"] for c in data["cohorts"]] == ["0.2.5"] and data["conflicts"] == []
    assert version_key("v0.2.10") > version_key("v0.2.9")
    snaps = [snapshot_from_data({"tools": []}, source=f"{v}.json") for v in ("1.10.0", "1.2.0", "1.9.1")]
    assert [s.label for s in order_snapshots(snaps)] == ["1.2.0", "1.9.1", "1.10.0"]


def test_history_of_a_first_release_passes_with_a_note(tmp_path: Path):
    """No older snapshot: no host can have cached one, so nothing can break (exit 0, a note, no report)."""
    r = cli("history", str(SEED / "0.2.5.json"), "--store", str(tmp_path))
    assert r.returncode == 0 and r.stdout == "", r.stderr
    assert r.stderr.startswith("schema-audit: nothing to check:") and len(r.stderr.splitlines()) == 1


def test_history_keeps_capture_order_and_refuses_an_undecidable_one(tmp_path: Path):
    """Capture zeta (demo v1) then alpha (demo v2); an imported file of the same server (no capture time) must
    not turn the gate into "nothing to check": alpha is still checked against zeta only when that is decidable."""
    store = str(tmp_path / "st")
    demo = str(ROOT / "fixtures" / "demo_server" / "mail_server.py")
    for label, version in (("zeta", "1"), ("alpha", "2")):
        r = cli("snapshot", "--store", store, "--label", label, "--", sys.executable, demo, "--version", version)
        assert r.returncode == 0, r.stderr
    r = cli("history", "alpha", "--store", store)
    assert r.returncode == 1 and "zeta: 7 breaking" in r.stdout, r.stderr
    tools = json.loads((tmp_path / "st" / "snapshots" / "zeta.json").read_text())["tools"]
    (tmp_path / "raw.json").write_text(json.dumps({"tools": tools}))  # no serverInfo, no capture time
    assert (
        cli("snapshot", "--store", store, "--label", "imp", "--from-file", str(tmp_path / "raw.json")).returncode == 0
    )
    for new, other in (("alpha", "'imp'"), ("imp", "'alpha', 'zeta'")):
        r = cli("history", new, "--store", store)
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 2 and r.stdout == "" and len(lines) == 1, r.stderr
        assert f"cannot tell which stored versions are older than '{new}'" in lines[0] and other in lines[0]
        assert "--against" in lines[0] and "nothing to check" not in r.stderr
        # the import has no server name: the message says why it counts as the same server's
        assert "a file without a server name matches any" in lines[0]
    r = cli("history", "alpha", "--store", store, "--against", "zeta")  # the way out the error names
    assert r.returncode == 1 and "zeta: 7 breaking" in r.stdout, r.stderr
    r = cli("history", "zeta", "--store", store, "--against", "imp", "--fail-on", "info")
    assert r.returncode == 0, r.stderr  # same tools: nothing changed
    # a store of imported files only keeps the label order; captured-only stores the capture order
    only = str(tmp_path / "only")
    for label in ("v1.10", "v1.9"):
        assert (
            cli("snapshot", "--store", only, "--label", label, "--from-file", str(tmp_path / "raw.json")).returncode
            == 0
        )
    r = cli("history", "v1.10", "--store", only, "--format", "json")
    assert r.returncode == 0 and [c["label"] for c in json.loads(r.stdout)["cohorts"]] == ["v1.9"], r.stderr
    r = cli("history", "zeta", "--store", store)  # captured first: truly nothing older, and the import is undecided
    assert r.returncode == 2 and "'imp'" in r.stderr, r.stderr


def test_history_refuses_a_capture_order_its_versions_contradict(tmp_path: Path):
    """v2.0.0 captured first, v1.0.0 (an older release) captured after it: by capture time alone v2.0.0 has
    nothing older and the gate passed silently. The versions contradict that order: exit 2, naming --against."""
    store = str(tmp_path / "st")
    demo = str(ROOT / "fixtures" / "demo_server" / "mail_server.py")
    for label, version in (("v2.0.0", "2"), ("v1.0.0", "1")):
        r = cli("snapshot", "--store", store, "--label", label, "--", sys.executable, demo, "--version", version)
        assert r.returncode == 0, r.stderr
    for new, other, how in (
        ("v2.0.0", "'v1.0.0' was captured after it", "lower"),
        ("v1.0.0", "'v2.0.0' was captured before it", "higher"),
    ):
        r = cli("history", new, "--store", store)
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 2 and r.stdout == "" and len(lines) == 1, r.stderr
        assert other in lines[0] and how in lines[0] and "--against" in lines[0], lines[0]
    r = cli("history", "v2.0.0", "--store", store, "--against", "v1.0.0")
    assert r.returncode == 1 and "v1.0.0: 7 breaking" in r.stdout, r.stderr


def test_history_text_lists_each_finding_once_with_the_versions_it_affects(seed_store: Path):
    r = cli("history", "0.2.7", "--store", str(seed_store))
    assert r.returncode == 1, r.stderr
    lines = r.stdout.splitlines()
    head = "breaking add_recipients output /properties/recipients [output-property-added-to-closed-object]"
    hits = [line for line in lines if head in line]
    assert len(hits) == 1 and hits[0].endswith("affects 0.2.4, 0.2.5"), hits
    assert any(
        line.endswith("whoami output /properties/directory_names [output-required-added]  affects 0.2.6")
        for line in lines
    )
    # 40 and 12 warnings of one rule that affect the same versions: one group each, the pointers listed by tool
    assert "  warning  40 × [output-object-opened]  affects all 3 cached versions:" in lines
    assert "  warning  12 × [output-enum-removed]  affects all 3 cached versions:" in lines
    assert "           add_recipients output: /additionalProperties" in lines
    assert not any(line.startswith("Cohort ") for line in lines)  # no per-cohort repetition any more
    # each (rule, tool, direction, pointer) appears on exactly one line
    keys = [line.split("  affects")[0].split(None, 1)[1] for line in lines if "  affects " in line]
    assert len(keys) == len(set(keys)) > 0
    assert lines[-1] == (
        "0.2.4: 10 breaking, 52 warning · 0.2.5: 10 breaking, 52 warning · "
        "0.2.6: 0 breaking, 53 warning; gate FAILED (--fail-on breaking)"
    )
    data = json.loads(cli("history", "0.2.7", "--store", str(seed_store), "--format", "json").stdout)
    grouped = {(g["tool"], g["pointer"], g["rule"]): g for g in data["findings"]}
    assert grouped[("add_recipients", "/properties/recipients", "output-property-added-to-closed-object")][
        "cohorts"
    ] == {"0.2.4": "breaking", "0.2.5": "breaking"}
    assert data["notes"] == [] and len(data["findings"]) == len(grouped)


def test_history_cohort_ranges_and_mixed_severities():
    from mcp_schema_audit.report.cohorts import GroupedFinding, affects, version_ranges

    order = ["1", "2", "3", "4", "5", "6"]
    assert version_ranges(["1", "2", "3", "5", "6"], order) == "1 to 3 (3 versions), 5, 6"
    g = GroupedFinding("r", "t", "output", "", "0" * 16, cohorts={"1": "breaking", "2": "warning", "3": "breaking"})
    assert g.severity == "breaking" and g.at_least("breaking") == ["1", "3"]
    assert affects(g, order) == "affects 1, 3 (breaking); 2 (warning)"
    assert affects(GroupedFinding("r", "t", "output", "", "f", cohorts=dict.fromkeys(order, "warning")), order) == (
        "affects all 6 cached versions"
    )
    assert (
        affects(GroupedFinding("r", "t", "output", "", "f", cohorts=dict.fromkeys("ab", "info")), ["a", "b"], ("info",))
        == "affects both cached versions"
    )


EVIL_TOOL = "w|ho <img src=x onerror=alert(1)> [x](http://evil) @channel `t` ::error::x"


@pytest.fixture()
def hostile_history(tmp_path: Path) -> list[str]:
    def write(label: str, enum: list[str]) -> str:
        path = tmp_path / f"{label.split()[0]}.json"
        path.write_text(
            json.dumps(
                {
                    "format": "schema-audit/snapshot",
                    "format_version": 1,
                    "label": label,
                    "tools": [
                        {
                            "name": EVIL_TOOL,
                            "inputSchema": {"type": "object"},
                            "outputSchema": {"type": "object", "required": ["v"], "properties": {"v": {"enum": enum}}},
                        }
                    ],
                },
                indent=2,
            )
        )
        return str(path)

    return [
        write("1.0 | <b>x</b>", ["a"]),
        write("2.0", ["a", "b"]),
        write("2.5", ["a", "b", "c"]),
        write("3.0", ["a", "b", "c"]),
    ]


def test_history_markdown_is_escaped_and_grouped(hostile_history: list[str]):
    from markdown_it import MarkdownIt

    *cohorts, new = hostile_history
    r = cli("history", new, *[x for c in cohorts for x in ("--against", c)], "--format", "markdown")
    assert r.returncode == 1, r.stderr
    md = r.stdout
    assert md.startswith("### ❌ schema-audit history: 3.0 against 3 cached versions")
    html = MarkdownIt("commonmark").enable(["table"]).render(md)
    tags = {t.lower() for t in re.findall(r"</?([A-Za-z][A-Za-z0-9-]*)", html)}
    assert tags <= {
        "h3",
        "h4",
        "p",
        "strong",
        "em",
        "code",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "details",
        "summary",
        "sub",
        "ul",
        "li",
        "blockquote",
        "br",
    }, tags
    for raw in ("<img", "<b>", "[x]"):  # only with their backslash escape (references in a raw HTML line)
        assert not unescaped(raw, md), raw
    for raw in ("http://", "@channel", "\n::error", "&#"):
        assert raw not in md, raw
    assert html.count("<tr>") == 2  # header + the one tool, its label cell escaped (no extra column from '|')
    assert html.count("<th>") == 4
    # one row per value added (distinct findings, distinct fingerprints), each with the versions it breaks:
    # 'b' is new to 1.0 only, 'c' to 1.0 and 2.0
    rows = sorted(line for line in md.splitlines() if "output-enum-value-added" in line)
    assert len(rows) == 2, rows
    assert sum("affects 1.0 \\| \\<b>x\\</b>, 2.0" in row for row in rows) == 1, rows
    assert sum("affects 1.0 \\| \\<b>x\\</b> — **Fix:** " in row for row in rows) == 1, rows


def test_history_sarif_validates_and_locates_findings_in_new(hostile_history: list[str]):
    import jsonschema

    *cohorts, new = hostile_history
    r = cli("history", new, *[x for c in cohorts for x in ("--against", c)], "--format", "sarif")
    assert r.returncode == 1, r.stderr
    log = json.loads(r.stdout)
    schema = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0-rtm.5.json").read_text(encoding="utf-8"))
    jsonschema.Draft4Validator(schema).validate(log)
    results = log["runs"][0]["results"]
    enum = [res for res in results if res["ruleId"] == "output-enum-value-added"]
    assert len(enum) == 2 and all(res["level"] == "error" for res in enum)
    assert sorted((res["properties"]["cohorts"] for res in enum), key=len) == [
        {"1.0 | <b>x</b>": "breaking"},
        {"1.0 | <b>x</b>": "breaking", "2.0": "breaking"},
    ]
    assert len({res["partialFingerprints"]["schemaAudit/v1"] for res in enum}) == 2
    lines = Path(new).read_text().splitlines()
    for res in results:
        loc = res["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"].endswith("3.0.json")
        assert lines[loc["region"]["startLine"] - 1].strip().startswith('"name": ')
        assert not re.search(r"(?<!\\)[\[\]]", res["message"]["text"].replace("\\\\", ""))
    assert log["runs"][0]["properties"]["gate"] == {"fail_on": "breaking", "passed": False}


def test_history_rejects_unknown_formats(seed_store: Path):
    r = cli("history", "0.2.7", "--store", str(seed_store), "--format", "yaml")
    assert r.returncode == 2 and "--format must be one of text, json, markdown, sarif, github, junit" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
