"""Will hosts notice a release? Version rules, the 2026-07-28 caching hints, x-mcp-header, extensions, MCP Apps
and deprecations, against real python-sdk MCPServer releases (``tests/servers/release_server.py``: the SDK emits
``ttlMs``/``cacheScope``, ``capabilities.extensions`` and ``x-mcp-header`` itself) over stdio and Streamable HTTP,
and from files where the SDK refuses to serve the shape (invalid x-mcp-header)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import PYTHON, SERVERS, ServerProcess

from mcp_schema_audit.audit import diff_report, lint_report
from mcp_schema_audit.capture import CaptureTarget, capture
from mcp_schema_audit.lint import lint_snapshot
from mcp_schema_audit.report.json import report_json_schema
from mcp_schema_audit.report.markdown import render_report as render_markdown
from mcp_schema_audit.report.text import render_report as render_text
from mcp_schema_audit.rules import RULES
from mcp_schema_audit.settings import Settings
from mcp_schema_audit.snapshot import Snapshot, load_snapshot_file, snapshot_from_data

SERVER = SERVERS / "release_server.py"
GATE = Settings(version_gate="semver")
PROTOCOL = "2026-07-28"

#: (rule, surface name or tool, pointer, severity) between releases 1 and 2, whatever the transport.
R1_TO_R2 = {
    ("apps-ui-resource-missing", "preview", "/_meta/ui/resourceUri", "breaking"),
    ("tool-removed", "read", "", "breaking"),
    ("extension-removed", "capabilities", "/extensions/com.example~1audit", "breaking"),
    ("version-bump-too-small", "serverInfo", "/version", "breaking"),
    ("header-renamed", "send", "/properties/to/x-mcp-header", "warning"),
    ("extension-settings-changed", "capabilities", "/extensions/com.example~1search", "warning"),
    ("cache-scope-changed", "tools/list", "/cacheScope", "warning"),
    ("cache-ttl-increased", "tools/list", "/ttlMs", "warning"),
}


def keyed(report: Any) -> set[tuple[str, str, str, str]]:
    return {(f.rule, f.tool or f.name, f.pointer, f.severity) for f in report.findings}


def stdio(version: int) -> Snapshot:
    target = CaptureTarget("stdio", command=[PYTHON, str(SERVER), "--version", str(version)])
    return capture(target, label=f"r{version}", protocol=PROTOCOL, timeout_s=60)


@pytest.fixture(scope="module")
def releases() -> dict[int, Snapshot]:
    return {v: stdio(v) for v in (1, 2, 3)}


@pytest.fixture(scope="module")
def http_releases(http_server_factory: Any) -> dict[int, Snapshot]:
    servers: dict[int, ServerProcess] = {
        v: http_server_factory(lambda port, v=v: [PYTHON, str(SERVER), "--version", str(v), "--http", str(port)])
        for v in (1, 2)
    }
    return {
        v: capture(CaptureTarget("http", url=s.url("/mcp")), label=f"r{v}", protocol=PROTOCOL, timeout_s=60)
        for v, s in servers.items()
    }


def test_the_sdk_server_sends_caching_hints_and_extensions_and_the_snapshot_keeps_them(
    releases: dict[int, Snapshot], tmp_path: Path
) -> None:
    r1 = releases[1]
    assert r1.protocol_version == PROTOCOL and r1.server["version"] == "1.0.0"
    assert r1.list_cache["tools/list"] == {"ttlMs": 86_400_000, "cacheScope": "public"}
    # MCPServer's default hint for the lists it was given none for: immediately stale, private
    assert r1.list_cache["prompts/list"] == {"ttlMs": 0, "cacheScope": "private"}
    assert r1.capabilities["extensions"] == {"com.example/audit": {}, "com.example/search": {"maxResults": 10}}
    # the snapshot file (format 3) holds the hints and reads back the same
    path = tmp_path / "r1.json"
    path.write_text(json.dumps(r1.to_json()), encoding="utf-8")
    data = json.loads(path.read_text())
    assert data["format_version"] == 3 and data["list_cache"]["tools/list"]["ttlMs"] == 86_400_000
    assert load_snapshot_file(path).list_cache == r1.list_cache


def test_a_version_2_snapshot_is_still_read_without_hints(releases: dict[int, Snapshot]) -> None:
    data = releases[1].to_json()
    data["format_version"] = 2
    data.pop("list_cache")
    old = snapshot_from_data(data, source="old.json")
    assert old.list_cache == {}
    found = keyed(diff_report(old, releases[2]))
    assert not any(rule.startswith("cache-") for rule, *_ in found)  # nothing to compare the hints with
    assert ("tool-removed", "read", "", "breaking") in found


def test_every_release_rule_over_stdio(releases: dict[int, Snapshot]) -> None:
    report = diff_report(releases[1], releases[2], GATE)
    assert keyed(report) >= R1_TO_R2, sorted(R1_TO_R2 - keyed(report))
    assert report.suggested_version == "2.0.0"
    assert report.rollout == "hosts may keep 1.0.0's listing up to 24 h: lower ttlMs one TTL before the release"
    bump = next(f for f in report.findings if f.rule == "version-bump-too-small")
    assert bump.witness and bump.witness["error"]  # the breaking finding's own witness, confirmed by a validator


def test_every_release_rule_over_streamable_http(http_releases: dict[int, Snapshot]) -> None:
    assert http_releases[1].transport == "http" and http_releases[1].list_cache["tools/list"]["ttlMs"] == 86_400_000
    report = diff_report(http_releases[1], http_releases[2], GATE)
    assert keyed(report) >= R1_TO_R2, sorted(R1_TO_R2 - keyed(report))
    assert report.suggested_version == "2.0.0"


def test_a_change_with_the_version_unchanged_is_a_warning(releases: dict[int, Snapshot]) -> None:
    report = diff_report(releases[1], releases[3], GATE)
    assert ("version-unchanged", "serverInfo", "/version", "warning") in keyed(report)
    assert report.suggested_version == "1.1.0" and report.passed  # a tool added: a minor bump
    assert diff_report(releases[1], releases[1], GATE).suggested_version == "1.0.0"  # nothing changed


def test_a_rollback_is_breaking_for_apps_hosts_in_forward_mode(releases: dict[int, Snapshot]) -> None:
    # hosts cached release 2 and the server runs 1: release 1 lists ui://mail/preview, nothing to render breaks
    up = diff_report(releases[2], releases[1])
    assert "apps-ui-resource-missing" not in {f.rule for f in up.findings}
    # forward: hosts cached release 1 (its preview tool points at ui://mail/preview), the server rolled back to 2
    down = diff_report(releases[2], releases[1], Settings(mode="forward"))
    assert any(f.rule == "apps-ui-resource-missing" and "forward" in f.tags for f in down.findings)


def test_the_reports_show_the_suggested_version(releases: dict[int, Snapshot]) -> None:
    report = diff_report(releases[1], releases[2], GATE)
    data = report.to_json()
    jsonschema.validate(data, report_json_schema())
    assert data["suggested_version"] == "2.0.0" and "24 h" in data["rollout"]
    text = render_text(report)
    assert "suggested version: 2.0.0 (serverInfo.version 1.0.0 -> 1.1.0)" in text
    assert "fix: keep the tool" in text and "lower ttlMs one TTL before the release" in text
    assert "suggested version: 2.0.0" in render_markdown(report)
    plain = diff_report(releases[1], releases[2])  # without the gate: no version finding, JSON only
    assert "version-bump-too-small" not in {f.rule for f in plain.findings}
    assert plain.to_json()["suggested_version"] == "2.0.0" and "suggested version" not in render_text(plain)


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcp_schema_audit", *args], capture_output=True, text=True, timeout=120, cwd=cwd
    )


def test_version_sources_that_disagree(releases: dict[int, Snapshot], tmp_path: Path) -> None:
    for v in (1, 3):
        (tmp_path / f"r{v}.json").write_text(json.dumps(releases[v].to_json()), encoding="utf-8")
    (tmp_path / "package.json").write_text('{"name": "mail", "version": "1.0.0"}', encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "mail"\nversion = "1.0.0"\n', encoding="utf-8")
    (tmp_path / "server.json").write_text('{"name": "io.example/mail", "version": "0.9.0"}', encoding="utf-8")
    agree = _cli("diff", "r1.json", "r3.json", "--version-source", "package.json", "--version-source",
                 "pyproject.toml", "--format", "json", cwd=tmp_path)  # fmt: skip
    assert agree.returncode == 0, agree.stderr
    assert not any(f["rule"] == "version-sources-disagree" for f in json.loads(agree.stdout)["findings"])
    (tmp_path / ".schema-audit.toml").write_text('version_sources = ["package.json", "server.json"]\n')
    apart = _cli("diff", "r1.json", "r3.json", "--format", "json", cwd=tmp_path)
    found = [f for f in json.loads(apart.stdout)["findings"] if f["rule"] == "version-sources-disagree"]
    assert len(found) == 1 and "server.json '0.9.0'" in found[0]["message"], found
    missing = _cli("diff", "r1.json", "r3.json", "--version-source", "nope.json", cwd=tmp_path)
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "nope.json" in missing.stderr
    assert "Traceback" not in missing.stderr


@pytest.mark.parametrize(
    ("name", "text", "says"),
    [
        (
            "pyproject.toml",
            '[project]\nversion = "1.0.0"\nx = ' + "[" * 3000 + "]" * 3000 + "\n",
            "invalid TOML: nested too deeply",
        ),
        ("package.json", '{"version": "1.0.0", "x": ' + "[" * 100_000 + "]" * 100_000 + "}", "JSON nested too deeply"),
        ("server.json", '{"version": "1.0.0", "x": ' + "[" * 100_000 + "]" * 100_000 + "}", "JSON nested too deeply"),
    ],
)
def test_a_version_source_nested_too_deeply_is_exit_2(
    releases: dict[int, Snapshot], tmp_path: Path, name: str, text: str, says: str
) -> None:
    """A version source nested thousands deep is bad input, one line naming the file (was: exit 4 RecursionError
    for the pyproject.toml, 3,000 arrays deep), from the flag and from the config's ``version_sources``."""
    (tmp_path / "r1.json").write_text(json.dumps(releases[1].to_json()), encoding="utf-8")
    (tmp_path / "pkg").mkdir()  # not the folder's own pyproject.toml: that one the config loader reads first
    (tmp_path / "pkg" / name).write_text(text, encoding="utf-8")
    for how in (["--version-source", f"pkg/{name}"], []):
        if not how:
            (tmp_path / ".schema-audit.toml").write_text(f'version_sources = ["pkg/{name}"]\n')
        r = _cli("diff", "r1.json", "r1.json", *how, cwd=tmp_path)
        assert r.returncode == 2, r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"schema-audit: error: pkg/{name}: {says}"), lines


# --- x-mcp-header, from files: MCPServer refuses to register invalid headers --------------------------------


def _tool(props: dict[str, Any]) -> dict[str, Any]:
    return {"name": "t", "inputSchema": {"type": "object", "properties": props}}


HEADER_RULES = [r for r in RULES.values() if r.family == "lint.header"]


@pytest.mark.parametrize("rule", HEADER_RULES, ids=lambda r: r.id)
def test_each_header_rule_fires_on_its_example_and_the_python_sdk_drops_that_tool(rule: Any) -> None:
    from mcp.shared.inbound import find_invalid_x_mcp_header

    good, bad = _tool(json.loads(rule.before)), _tool(json.loads(rule.after))
    snap = snapshot_from_data({"tools": [bad]}, source="x.json")
    found = [f for f in lint_snapshot(snap) if f.rule.startswith("header-")]
    assert [f.rule for f in found] == [rule.id] and found[0].severity == "breaking" and found[0].witness
    assert "Streamable HTTP clients drop this tool" in found[0].detail_text
    assert not [f for f in lint_snapshot(snapshot_from_data({"tools": [good]}, source="y.json")) if "header" in f.rule]
    # the python-sdk client's own check (mcp.shared.inbound, used by ClientSession to drop tools) agrees, except on
    # declared integer bounds: mcp 2.3 checks an integer's type, not the range its schema allows
    sdk = find_invalid_x_mcp_header(bad["inputSchema"])
    assert sdk is None if rule.id == "header-integer-unsafe" else sdk is not None
    assert find_invalid_x_mcp_header(good["inputSchema"]) is None


def test_a_new_invalid_header_is_breaking_in_a_diff_and_a_removed_one_a_warning() -> None:
    old = snapshot_from_data({"tools": [_tool({"r": {"type": "string", "x-mcp-header": "Region"}})]}, source="a.json")
    bad = snapshot_from_data({"tools": [_tool({"r": {"type": "number", "x-mcp-header": "Region"}})]}, source="b.json")
    gone = snapshot_from_data({"tools": [_tool({"r": {"type": "string"}})]}, source="c.json")
    assert ("header-not-primitive", "t", "/properties/r/x-mcp-header", "breaking") in keyed(diff_report(old, bad))
    assert ("header-removed", "t", "/properties/r/x-mcp-header", "warning") in keyed(diff_report(old, gone))
    assert ("header-added", "t", "/properties/r/x-mcp-header", "warning") in keyed(diff_report(gone, old))


def test_a_header_is_found_beside_a_number_json_text_cannot_hold_in_64_bits() -> None:
    """The walk is skipped only for a schema whose JSON text has no ``x-mcp-header`` key; one that cannot be
    written that way (an integer beyond 64 bits) is walked."""
    props = {"n": {"type": "integer", "maximum": 2**70}, "r": {"type": "number", "x-mcp-header": "Region"}}
    snap = snapshot_from_data({"tools": [_tool(props)]}, source="x.json")
    assert [f.rule for f in lint_snapshot(snap) if f.rule.startswith("header-")] == ["header-not-primitive"]


# --- deprecations and cache scope lint ------------------------------------------------------------------------


def test_lint_names_deprecated_features_with_their_earliest_removal() -> None:
    snap = snapshot_from_data({"tools": [], "capabilities": {"logging": {}}}, source="x.json")
    found = [f for f in lint_report(snap).findings if f.rule == "deprecated-feature-used"]
    assert len(found) == 1 and "2027-07-28" in found[0].detail_text and "OpenTelemetry" in found[0].detail_text
    sse = Snapshot(label="s", tools=[], transport="sse")
    assert "three months after SEP-2596" in lint_snapshot(sse)[0].detail_text


def test_lint_public_list_that_varies_by_credentials(releases: dict[int, Snapshot]) -> None:
    # two captures of release 1 "with different credentials": one sees a tool the other does not
    other = Snapshot(**{**releases[1].__dict__, "label": "r1-guest", "tools": releases[1].tools[:1]})
    found = [f for f in lint_snapshot(releases[1], baseline=other) if f.rule == "cache-scope-public-list-varies"]
    assert [f.name for f in found] == ["tools/list"] and "read" in found[0].detail_text
    assert not [f for f in lint_snapshot(releases[1], baseline=releases[1]) if f.rule.startswith("cache-")]
    assert not [f for f in lint_snapshot(releases[1], baseline=releases[2]) if f.rule.startswith("cache-")]


# --- probe: multi round-trip results ------------------------------------------------------------------------


def _probe(target: CaptureTarget) -> tuple[list[dict[str, Any]], set[tuple[str, str, str, str]]]:
    from mcp_schema_audit.capture.calls import PlannedCall, probe_server
    from mcp_schema_audit.probe import check_records

    call = PlannedCall(id="f1", tool="forward", arguments={"to": "a@example.com"})
    listing, _, records = probe_server(target, lambda _: [call], label="live", protocol=PROTOCOL, timeout_s=60)
    found = check_records(listing, records, [])
    return records, {(f.rule, f.tool, f.pointer, f.severity) for f in found}


MRTR = {
    ("probe-input-required", "forward", "/resultType", "warning"),
    (
        "probe-elicitation-schema-unsupported",
        "forward",
        "/inputRequests/confirm/params/requestedSchema/properties/address",
        "warning",
    ),
    ("deprecated-feature-used", "forward", "/inputRequests/summary", "warning"),
}


def test_a_tool_that_starts_answering_input_required_over_stdio() -> None:
    def target(v: int) -> CaptureTarget:
        return CaptureTarget("stdio", command=[PYTHON, str(SERVER), "--version", str(v)])

    records, found = _probe(target(1))
    assert records[0]["outcome"] == "result" and not any(rule.startswith("probe-input") for rule, *_ in found)
    records, found = _probe(target(2))
    # the raw input_required result is recorded as sent (the --record file keeps it)
    assert records[0]["result"]["resultType"] == "input_required"
    assert set(records[0]["result"]["inputRequests"]) == {"confirm", "summary"}
    assert found >= MRTR, sorted(MRTR - found)
    ok = "/inputRequests/confirm/params/requestedSchema/properties/ok"  # a boolean: inside the subset
    assert not [k for k in found if k[2] == ok]


def test_a_tool_that_starts_answering_input_required_over_streamable_http(http_server_factory: Any) -> None:
    server = http_server_factory(lambda port: [PYTHON, str(SERVER), "--version", "2", "--http", str(port)])
    records, found = _probe(CaptureTarget("http", url=server.url("/mcp")))
    assert records[0]["result"]["resultType"] == "input_required" and found >= MRTR


def _probe_cli(server: list[str], tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    calls = tmp_path / "calls.json"
    calls.write_text('{"calls": [{"tool": "forward", "arguments": {"to": "a@example.com"}, "id": "f1"}]}')
    return _cli("probe", "--calls", str(calls), "--protocol", PROTOCOL, *extra, *server, cwd=tmp_path)


def _introduced(out: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    assert out.returncode == 1, out.stderr  # breaking: the gate fails
    report = json.loads(out.stdout)
    rules = [f["rule"] for f in report["findings"]]
    # the call's probe-input-required warning is replaced by the breaking finding; the requestedSchema lint stays
    assert "probe-input-required" not in rules and "probe-elicitation-schema-unsupported" in rules
    return [f for f in report["findings"] if f["rule"] == "probe-input-required-introduced"]


def _assert_introduced(found: list[dict[str, Any]], cohort: str) -> None:
    assert len(found) == 1, found
    f = found[0]
    assert (f["tool"], f["severity"], f["pointer"]) == ("forward", "breaking", "/resultType")
    w = f["witness"]
    assert w["call"] == "f1" and w["cohorts"] == [cohort] and w["before"] == {cohort: "f1"}
    assert w["instance"]["resultType"] == "input_required"
    assert set(w["instance"]["inputRequests"]) == {"confirm", "summary"}
    assert w["needs"] == ["elicitation", "sampling"] and "elicitation or sampling" in f["message"]


def test_probe_against_a_recording_finds_a_call_that_newly_answers_input_required_over_stdio(tmp_path: Path) -> None:
    """Release 1 (the python-sdk MCPServer) answers ``forward`` at once; release 2 returns the SDK's own
    ``InputRequiredResult`` (2026-07-28 multi round-trip: the SDK emits the raw result itself). ``probe --against``
    release 1's recording finds the change, with the new result and the call as witness."""

    def server(v: int) -> list[str]:
        return ["--", PYTHON, str(SERVER), "--version", str(v)]

    first = _probe_cli(server(1), tmp_path, "--label", "r1", "--record", "r1.json")
    assert first.returncode == 0, first.stderr
    out = _probe_cli(server(2), tmp_path, "--label", "r2", "--against", "r1.json", "--format", "json")
    _assert_introduced(_introduced(out), "r1")
    # a recording of release 2 replayed against release 1's: the same finding, without a server
    _probe_cli(server(2), tmp_path, "--label", "r2", "--record", "r2.json")
    replay = _cli("probe", "--replay", "r2.json", "--against", "r1.json", "--format", "json", cwd=tmp_path)
    _assert_introduced(_introduced(replay), "r1")
    # against release 1's snapshot (no calls recorded) there is nothing to compare: the warning stays
    snap = _cli("snapshot", "--out", "r1.snap.json", "--label", "r1", "--protocol", PROTOCOL, *server(1), cwd=tmp_path)
    assert snap.returncode == 0, snap.stderr
    plain = _cli("probe", "--replay", "r2.json", "--against", "r1.snap.json", "--format", "json", cwd=tmp_path)
    rules = {f["rule"] for f in json.loads(plain.stdout)["findings"]}
    assert "probe-input-required" in rules and "probe-input-required-introduced" not in rules
    # text names the rule and the cohort
    text = _cli("probe", "--replay", "r2.json", "--against", "r1.json", cwd=tmp_path)
    assert text.returncode == 1 and "probe-input-required-introduced" in text.stdout and "r1" in text.stdout


def test_probe_against_a_recording_finds_a_call_that_newly_answers_input_required_over_http(
    http_server_factory: Any, tmp_path: Path
) -> None:
    servers = {
        v: http_server_factory(lambda port, v=v: [PYTHON, str(SERVER), "--version", str(v), "--http", str(port)])
        for v in (1, 2)
    }
    first = _probe_cli(["--url", servers[1].url("/mcp")], tmp_path, "--label", "r1", "--record", "r1.json")
    assert first.returncode == 0, first.stderr
    out = _probe_cli(["--url", servers[2].url("/mcp")], tmp_path, "--against", "r1.json", "--format", "json")
    _assert_introduced(_introduced(out), "r1")


def test_diff_names_a_recording_given_as_a_snapshot(tmp_path: Path) -> None:
    (tmp_path / "rec.json").write_text(json.dumps({"format": "schema-audit/probe-recording", "tools": []}))
    out = _cli("diff", "rec.json", "rec.json", cwd=tmp_path)
    assert out.returncode == 2 and "is a probe recording" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.parametrize(
    ("schema", "problems"),
    [
        ({"type": "object", "properties": {"n": {"type": "string", "format": "email", "maxLength": 9}}}, 0),
        ({"type": "object", "properties": {"c": {"type": "string", "oneOf": [{"const": "r", "title": "Red"}]}}}, 0),
        ({"type": "object", "properties": {"c": {"type": "array", "items": {"type": "string", "enum": ["a"]}}}}, 0),
        ({"type": "object", "properties": {"c": {"type": "array", "items": {"type": "integer"}}}}, 1),
        ({"type": "object", "properties": {"n": {"type": "string", "format": "hostname", "pattern": "x"}}}, 2),
        ({"type": "object", "properties": {"n": {"$ref": "#/$defs/n"}}, "$defs": {}}, 2),
        ({"type": "array"}, 1),
    ],
)
def test_the_restricted_elicitation_subset(schema: dict[str, Any], problems: int) -> None:
    from mcp_schema_audit.probe.mrtr import schema_problems

    assert len(schema_problems(schema)) == problems, schema_problems(schema)


def test_the_python_sdk_client_over_streamable_http_drops_the_tool_lint_flags(http_server_factory: Any) -> None:
    """Release 4 serves ``lookup`` with an x-mcp-header on a number: schema-audit's raw capture keeps it and lint
    calls it breaking; the python-sdk ``Client`` over Streamable HTTP lists every tool but that one."""
    import anyio
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    server = http_server_factory(lambda port: [PYTHON, str(SERVER), "--version", "4", "--http", str(port)])
    snap = capture(CaptureTarget("http", url=server.url("/mcp")), label="r4", protocol=PROTOCOL, timeout_s=60)
    found = [f for f in lint_snapshot(snap) if f.rule.startswith("header-")]
    assert [(f.rule, f.tool) for f in found] == [("header-not-primitive", "lookup")]

    async def listed() -> list[str]:
        async with Client(streamable_http_client(server.url("/mcp")), cache=None, read_timeout_seconds=20) as client:
            return sorted(t.name for t in (await client.list_tools()).tools)

    names = anyio.run(listed)
    assert "lookup" in {t["name"] for t in snap.tools} and "lookup" not in names
    assert names == sorted(t["name"] for t in snap.tools if t["name"] != "lookup")


@pytest.mark.parametrize(
    ("list_cache", "words"),
    [
        ([], "'list_cache' must be an object"),
        ({"tools/call": {}}, "is not the hints of a list method"),
        ({"tools/list": {"ttlMs": "1h"}}, "ttlMs is not an integer"),
        ({"tools/list": {"cacheScope": 1}}, "cacheScope is not a string"),
    ],
)
def test_a_malformed_list_cache_is_one_line_and_exit_2(
    releases: dict[int, Snapshot], tmp_path: Path, list_cache: Any, words: str
) -> None:
    data = releases[1].to_json()
    data["list_cache"] = list_cache
    (tmp_path / "bad.json").write_text(json.dumps(data), encoding="utf-8")
    out = _cli("lint", "bad.json", cwd=tmp_path)
    assert out.returncode == 2 and words in out.stderr and out.stderr.count("\n") <= 2, out.stderr
    assert "Traceback" not in out.stderr


def test_explain_a_release_rule() -> None:
    out = _cli("explain", "cache-ttl-increased", cwd=Path.cwd())
    assert out.returncode == 0 and "server/utilities/caching" in out.stdout


def _listing(version: str | None, tools: list[str]) -> Snapshot:
    info = {"serverInfo": {"name": "m", "version": version}} if version is not None else {}
    return snapshot_from_data(
        {**info, "tools": [{"name": n, "inputSchema": {"type": "object"}} for n in tools]}, source=f"{version}.json"
    )


@pytest.mark.parametrize(
    ("old", "new", "tools", "suggested", "rules"),
    [
        ("0.2.5", "0.2.6", ["a"], "0.3.0", {"version-bump-too-small"}),  # 0.x: breaking needs a minor bump
        ("0.2.5", "0.3.0", ["a"], "0.3.0", set()),
        ("1.4.2", "2.0.0-rc.1", ["a"], "2.0.0-rc.1", set()),  # a pre-release of the major is enough
        ("v1.4.2", "1.5.0", ["a", "b", "c"], "1.5.0", set()),  # a tool added: minor
        ("1.4.2", "1.4.2", ["a", "b", "c"], "1.5.0", {"version-unchanged"}),
        ("1.4.2", "1.3.0", ["a"], "2.0.0", {"version-bump-too-small"}),  # a rollback that breaks
    ],
)
def test_semver_verdicts(old: str, new: str, tools: list[str], suggested: str, rules: set[str]) -> None:
    report = diff_report(_listing(old, ["a", "b"]), _listing(new, tools), GATE)
    assert report.suggested_version == suggested
    assert {f.rule for f in report.findings if f.rule.startswith("version-")} == rules


def test_versions_that_cannot_be_judged_are_a_note() -> None:
    report = diff_report(_listing(None, ["a", "b"]), _listing("1.0.0", ["a"]), GATE)
    assert report.suggested_version is None and any("sent no serverInfo.version" in n for n in report.notes)
    odd = diff_report(_listing("main", ["a", "b"]), _listing("next", ["a"]), GATE)
    assert any("is not a version" in n for n in odd.notes) and odd.suggested_version is None


def test_which_recorded_calls_count_as_the_same_call() -> None:
    """A call is paired by id and tool, else by tool and arguments; only a complete answer there counts, and only an
    input_required result or the -32021 error here."""
    from mcp_schema_audit.probe.mrtr import introduced_findings

    asks = {"resultType": "input_required", "inputRequests": {"r": {"method": "roots/list"}}}
    done = {"content": [], "resultType": "complete"}
    new = [
        {"id": "x", "tool": "t", "arguments": {"a": 1}, "outcome": "result", "result": asks},
        {"id": "y", "tool": "u", "arguments": {}, "outcome": "rpc-error", "error": {"code": -32021}},
        {"id": "z", "tool": "v", "arguments": {}, "outcome": "rpc-error", "error": {"code": -32602}},
    ]
    old = [
        {"id": "t#1", "tool": "t", "arguments": {"a": 1}, "outcome": "result", "result": done},  # same arguments
        {"id": "y", "tool": "u", "arguments": {}, "outcome": "result", "result": {"content": [], "isError": True}},
        {"id": "z", "tool": "v", "arguments": {}, "outcome": "result", "result": done},
    ]
    found = introduced_findings(new, [("v1", old)])
    assert [(f.tool, f.witness["before"], f.witness["needs"]) for f in found] == [  # type: ignore[index]
        ("t", {"v1": "t#1"}, ["roots"]),
        ("u", {"v1": "y"}, []),
    ]
    assert not introduced_findings(new, [("v1", [{**old[0], "arguments": {"a": 2}}])])
    assert not introduced_findings(new[:1], [("v1", [{**old[0], "outcome": "timeout"}])])
