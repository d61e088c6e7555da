"""The CI gate: modes, history and cohorts, conflicts, lint, config and ignore list, git inputs, exit codes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_schema_audit.config import IgnoreEntry, load_config
from mcp_schema_audit.diff import diff_with_mode
from mcp_schema_audit.errors import UsageError
from mcp_schema_audit.history import order_snapshots, version_key
from mcp_schema_audit.lint import lint_snapshot
from mcp_schema_audit.policy import apply_policy
from mcp_schema_audit.snapshot import load_snapshot, snapshot_from_data

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "fixtures" / "seed"


def cli(*args: str, cwd: Path | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcp_schema_audit", *args],
        capture_output=True,
        text=True,
        cwd=cwd or ROOT,
        timeout=timeout,
    )


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


def test_modes_forward_and_full():
    old = snapshot_from_data(
        {
            "tools": [
                {
                    "name": "t",
                    "inputSchema": {"type": "object"},
                    "outputSchema": {"type": "object", "properties": {"a": {"type": "string"}}},
                }
            ]
        },
        source="old",
    )
    new = snapshot_from_data(
        {
            "tools": [
                {
                    "name": "t",
                    "inputSchema": {"type": "object"},
                    "outputSchema": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                }
            ]
        },
        source="new",
    )
    backward = diff_with_mode(old, new, "backward")
    assert [(f.rule, f.severity) for f in backward] == [("output-required-added", "warning")]
    forward = diff_with_mode(old, new, "forward")
    assert [(f.rule, f.severity) for f in forward] == [("output-required-removed", "breaking")]
    assert forward[0].tags == ["forward"] and forward[0].witness["instance"] == {}
    full = diff_with_mode(old, new, "full")
    assert sorted(f.rule for f in full) == ["output-required-added", "output-required-removed"]
    with pytest.raises(UsageError):
        diff_with_mode(old, new, "sideways")


@pytest.mark.parametrize("fail_on,code", [("breaking", 1), ("warning", 1), ("info", 1), ("never", 0)])
def test_exit_code_per_fail_on_with_breaking_findings(fail_on: str, code: int):
    r = cli("diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), "--fail-on", fail_on, "--format", "json")
    assert r.returncode == code and json.loads(r.stdout)["gate"] == {"fail_on": fail_on, "passed": code == 0}


@pytest.mark.parametrize("fail_on,code", [("breaking", 0), ("warning", 1), ("info", 1), ("never", 0)])
def test_exit_code_per_fail_on_with_only_warnings(fail_on: str, code: int):
    r = cli("diff", str(SEED / "0.2.6.json"), str(SEED / "0.2.7.json"), "--fail-on", fail_on)
    assert r.returncode == code, r.stderr


def test_config_ignore_by_fingerprint_and_pattern_with_expiry(tmp_path: Path):
    report = json.loads(cli("diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), "--format", "json").stdout)
    breaking = [f for f in report["findings"] if f["severity"] == "breaking"]
    whoami_fp = next(f["fingerprint"] for f in breaking if f["tool"] == "whoami")
    (tmp_path / ".schema-audit.toml").write_text(f'''
fail_on = "breaking"
[[ignore]]
fingerprint = "{whoami_fp}"
reason = "whoami hosts reconnect on deploy"
[[ignore]]
rule = "output-property-added-to-closed-object"
tool = "list_*"
reason = "list tools are re-listed by every host we support"
[[ignore]]
tool = "*"
reason = "this one has expired and must not apply"
expires = 2020-01-01
''')
    r = cli("diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), "--format", "json", cwd=tmp_path)
    data = json.loads(r.stdout)
    assert r.returncode == 1  # other breaking findings remain
    tools_left = {f["tool"] for f in data["findings"] if f["rule"] == "output-property-added-to-closed-object"}
    assert not any(t.startswith("list_") for t in tools_left)
    assert whoami_fp not in {f["fingerprint"] for f in data["findings"]}
    assert data["expired_ignores"] == [
        {"tool": "*", "reason": "this one has expired and must not apply", "expires": "2020-01-01"}
    ]
    assert len(data["findings"]) == len(report["findings"]) - len(data["ignored"])
    reasons = json.dumps(data["ignored"])
    assert "whoami hosts reconnect on deploy" in reasons and "list tools are re-listed" in reasons
    assert "must not apply" not in reasons


def test_ignore_entries_need_a_reason_and_valid_dates(tmp_path: Path):
    cfg = tmp_path / "c.toml"
    cfg.write_text('[[ignore]]\nrule = "tool-removed"\n')
    with pytest.raises(UsageError, match="reason"):
        load_config(cfg)
    cfg.write_text('[[ignore]]\nrule = "tool-removed"\nreason = "x"\nexpires = "soon"\n')
    with pytest.raises(UsageError, match="expires"):
        load_config(cfg)
    cfg.write_text("unknown_key = 1\n")
    r = cli("diff", str(SEED / "0.2.4.json"), str(SEED / "0.2.5.json"), "--config", str(cfg))
    assert r.returncode == 2 and "unknown key" in r.stderr and "did you mean" not in r.stderr
    # a misspelt key names the one it is close to
    for text, hint in (
        ('fail-on = "warning"\n', "unknown key(s) fail-on; did you mean fail_on?"),
        ('[[ignore]]\ntol = "x"\nreason = "r"\n', "unknown key(s) tol; did you mean tool?"),
    ):
        cfg.write_text(text)
        with pytest.raises(UsageError, match=re.escape(hint)):
            load_config(cfg)


def test_pyproject_tool_table_is_read(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text('[tool.schema-audit]\nfail_on = "never"\n')
    r = cli("diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr


def _warnings(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if ln.startswith("schema-audit: warning:")]


@pytest.mark.parametrize("table", ["schema_audit", "schemaaudit", "mcp-schema-audit"])
def test_a_misspelled_pyproject_table_is_a_warning_not_silence(tmp_path: Path, table: str):
    """[tool.schema_audit] never applies: every command that reads the config says so, naming the spelling."""
    (tmp_path / "pyproject.toml").write_text(f'[tool.{table}]\nfail_on = "never"\n')
    r = cli("diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), cwd=tmp_path)
    assert r.returncode == 1, r.stderr  # the setting did not apply: the gate still fails on breaking
    assert _warnings(r.stderr) == [
        f"schema-audit: warning: pyproject.toml: [tool.{table}] is ignored: schema-audit "
        "reads [tool.schema-audit] (with a hyphen); rename the table so its settings apply"
    ]
    r = cli("lint", str(SEED / "0.2.5.json"), "--config", "pyproject.toml", cwd=tmp_path)  # named explicitly too
    assert len(_warnings(r.stderr)) == 1 and f"[tool.{table}] is ignored" in r.stderr, r.stderr
    (tmp_path / "pyproject.toml").write_text('[tool.schema-audit]\nfail_on = "never"\n')
    r = cli("diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), cwd=tmp_path)
    assert r.returncode == 0 and _warnings(r.stderr) == [], r.stderr


def test_two_config_files_say_which_one_is_used(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.schema-audit]\nfail_on = "never"\n')
    (tmp_path / ".schema-audit.toml").write_text('mode = "backward"\n')
    r = cli("diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), cwd=tmp_path)
    assert r.returncode == 1, r.stderr  # .schema-audit.toml wins: pyproject's fail_on = "never" does not apply
    assert _warnings(r.stderr) == [
        "schema-audit: warning: using .schema-audit.toml; [tool.schema-audit] in pyproject.toml is ignored (one "
        "config file is read: move its settings into .schema-audit.toml, or delete .schema-audit.toml to use "
        "pyproject.toml)"
    ]
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')  # no table there: nothing to say
    r = cli("diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), cwd=tmp_path)
    assert r.returncode == 1 and _warnings(r.stderr) == [], r.stderr
    r = cli("diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), "--config", ".schema-audit.toml", cwd=tmp_path)
    assert _warnings(r.stderr) == [], r.stderr


def test_format_ignore_prints_pasteable_entries(tmp_path: Path):
    r = cli("diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), "--format", "ignore")
    assert r.returncode == 0 and r.stdout.count("[[ignore]]") > 5  # a config generator, not a gate
    text = r.stdout.replace('reason = ""', 'reason = "accepted"')
    (tmp_path / ".schema-audit.toml").write_text(text)
    r2 = cli("diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), "--format", "json", cwd=tmp_path)
    assert r2.returncode == 0 and json.loads(r2.stdout)["findings"] == []


def test_severity_override_and_host_restriction():
    r = cli(
        "diff",
        str(SEED / "0.2.5.json"),
        str(SEED / "0.2.6.json"),
        "--format",
        "json",
        "--severity",
        "output-property-added-to-closed-object=info",
        "--severity",
        "output-enum-value-added=info",
        "--severity",
        "output-required-removed=warning",
    )
    assert r.returncode == 0, r.stderr
    assert cli("diff", "a", "b", "--severity", "no-such-rule=info").returncode == 2
    old = snapshot_from_data(
        {
            "tools": [
                {
                    "name": "t",
                    "inputSchema": {"type": "object"},
                    "outputSchema": {
                        "type": "object",
                        "properties": {"at": {"type": "string", "format": "date-time"}},
                        "required": ["at"],
                    },
                }
            ]
        },
        source="o",
    )
    new = snapshot_from_data(
        {
            "tools": [
                {
                    "name": "t",
                    "inputSchema": {"type": "object"},
                    "outputSchema": {"type": "object", "properties": {"at": {"type": "string"}}, "required": ["at"]},
                }
            ]
        },
        source="n",
    )
    findings = diff_with_mode(old, new)
    assert [(f.rule, f.severity) for f in findings] == [("output-format-changed", "breaking")]
    py_only = apply_policy(findings, hosts=["python-sdk"]).findings
    assert py_only[0].severity == "info" and "not selected" in py_only[0].reason
    ts = apply_policy(findings, hosts=["ts-sdk-v2"]).findings
    assert ts[0].severity == "breaking" and ts[0].hosts == ["ts-sdk-v2"]
    entry = IgnoreEntry(reason="r", rule="output-*", pointer="/properties/at*")
    assert len(apply_policy(findings, ignore=[entry]).ignored) == 1


def git(*args: str, cwd: Path) -> None:
    subprocess.run(
        ["git", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        env={
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@e",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@e",
            "PATH": "/usr/bin:/bin:/usr/local/bin",
            "HOME": str(cwd),
        },
    )


def test_git_inputs(tmp_path: Path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git("init", "-q", "-b", "main", cwd=repo)
    snap = repo / "snap.json"
    snap.write_text((SEED / "0.2.5.json").read_text())
    git("add", "snap.json", cwd=repo)
    git("commit", "-qm", "0.2.5", cwd=repo)
    snap.write_text((SEED / "0.2.6.json").read_text())
    r = cli("diff", "git:HEAD:snap.json", "snap.json", "--format", "json", cwd=repo)
    assert r.returncode == 1, r.stderr
    assert json.loads(r.stdout)["summary"]["breaking"] > 5
    r = cli("diff", "git:origin/main:snap.json", "snap.json", cwd=repo)
    assert r.returncode == 2 and "not found" in r.stderr and "'git fetch origin main'" in r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    r = cli("diff", "git:HEAD:missing.json", "snap.json", cwd=repo)
    assert r.returncode == 2 and "no file 'missing.json'" in r.stderr


def test_a_missing_remote_tracking_ref_names_the_fetch_that_works(tmp_path: Path):
    """``git:origin/main:PATH`` when origin/main is not in the clone: the hint is ``git fetch origin main`` (not
    ``origin origin/main``, which fails), and running it makes the same diff work; a plain branch name keeps
    ``git fetch origin NAME``; in a shallow clone (fetched as actions/checkout does) ``--depth=1``."""
    upstream = tmp_path / "upstream"
    upstream.mkdir()
    git("init", "-q", "-b", "main", cwd=upstream)
    (upstream / "snap.json").write_text((SEED / "0.2.5.json").read_text())
    git("add", "snap.json", cwd=upstream)
    git("commit", "-qm", "0.2.5", cwd=upstream)
    git("checkout", "-qb", "feature", cwd=upstream)
    (upstream / "other.txt").write_text("x")
    git("add", "other.txt", cwd=upstream)
    git("commit", "-qm", "feature", cwd=upstream)
    git("checkout", "-q", "main", cwd=upstream)

    repo = tmp_path / "repo"  # a clone that knows origin but has not fetched it
    repo.mkdir()
    git("init", "-q", "-b", "work", cwd=repo)
    git("remote", "add", "origin", str(upstream), cwd=repo)
    (repo / "snap.json").write_text((SEED / "0.2.6.json").read_text())
    r = cli("diff", "git:origin/main:snap.json", "snap.json", cwd=repo)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "revision 'origin/main' not found" in r.stderr and "'git fetch origin main'" in r.stderr, r.stderr
    r = cli("diff", "git:refs/remotes/origin/feature:snap.json", "snap.json", cwd=repo)
    assert "'git fetch origin feature'" in r.stderr, r.stderr
    r = cli("diff", "git:origin/main~1:snap.json", "snap.json", cwd=repo)  # an ancestor: its branch is fetched
    assert "'git fetch origin main'" in r.stderr, r.stderr
    r = cli("diff", "git:v0.2.5:snap.json", "snap.json", cwd=repo)  # a tag or branch name: fetched as given
    assert r.returncode == 2 and "'git fetch origin v0.2.5'" in r.stderr, r.stderr
    git("fetch", "-q", "origin", "main", cwd=repo)  # the command the hint gave
    r = cli("diff", "git:origin/main:snap.json", "snap.json", "--format", "json", cwd=repo)
    assert r.returncode == 1 and json.loads(r.stdout)["summary"]["breaking"] > 5, r.stderr

    shallow = tmp_path / "shallow"  # as actions/checkout does: init, remote add, fetch one commit of the PR
    shallow.mkdir()
    git("init", "-q", "-b", "work", cwd=shallow)
    git("remote", "add", "origin", upstream.as_uri(), cwd=shallow)
    git("fetch", "-q", "--depth=1", "origin", "+refs/heads/feature:refs/remotes/origin/feature", cwd=shallow)
    git("checkout", "-q", "--detach", "origin/feature", cwd=shallow)
    r = cli("diff", "git:origin/main:snap.json", "snap.json", cwd=shallow)
    assert r.returncode == 2 and "shallow clone" in r.stderr, r.stderr
    assert "'git fetch --depth=1 origin main'" in r.stderr, r.stderr
    r = cli("diff", "git:origin/main^:snap.json", "snap.json", cwd=shallow)
    assert "'git fetch origin main'" in r.stderr, r.stderr  # an ancestor needs more than --depth=1
    git("fetch", "-q", "--depth=1", "origin", "main", cwd=shallow)
    r = cli("diff", "git:origin/main:snap.json", "snap.json", cwd=shallow)
    assert r.returncode == 0, r.stderr  # the same file on both sides


def test_lint_hazards_listing_breakers_and_baseline(tmp_path: Path):
    snap = load_snapshot(str(SEED / "0.2.5.json"))
    findings = lint_snapshot(snap)
    rules = {f.rule for f in findings}
    assert rules == {"output-closed-object-hazard", "output-value-set-hazard"}
    assert all(f.severity == "warning" for f in findings)
    assert any(f.tool == "whoami" and f.pointer == "/properties/transport/enum" for f in findings)
    drift = [
        f
        for f in lint_snapshot(load_snapshot(str(SEED / "0.2.6.json")), baseline=snap)
        if f.rule == "output-required-drift"
    ]
    assert [(f.tool, f.pointer) for f in drift] == [("whoami", "/properties/directory_names")]
    bad = snapshot_from_data(
        {
            "protocolVersion": "2025-11-25",
            "tools": [
                {"name": "a", "inputSchema": {"properties": {}}},
                {"name": "b", "inputSchema": {"type": "object", "properties": {"x": True}}},
                {"name": "c", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}},
                {
                    "name": "d",
                    "inputSchema": {"type": "object"},
                    "outputSchema": {"type": "object", "properties": {"s": {"type": "string", "pattern": "([a-z"}}},
                },
                {"name": "e", "inputSchema": {"type": "object", "properties": {"x": {"type": "text"}}}},
                {
                    "name": "f",
                    "inputSchema": {"type": "object"},
                    "outputSchema": {
                        "$schema": "https://json-schema.org/draft/2020-12/schema",
                        "type": "object",
                        "unevaluatedProperties": False,
                    },
                },
            ],
        },
        source="bad",
    )
    got = {(f.tool, f.rule, f.severity) for f in lint_snapshot(bad)}
    assert ("a", "input-schema-not-object", "breaking") in got
    assert ("b", "schema-boolean-property", "breaking") in got
    assert ("c", "output-schema-not-object", "breaking") in got
    assert ("d", "output-schema-uncompilable", "breaking") in got
    assert ("e", "schema-metaschema-invalid", "breaking") in got
    assert ("f", "dialect-portability", "warning") in got
    (tmp_path / ".schema-audit.toml").write_text(
        '[[allow]]\nrule = "output-*-hazard"\ntool = "*"\nreason = "we re-list on every call"\n'
    )
    r = cli("lint", str(SEED / "0.2.5.json"), "--fail-on", "warning", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    r = cli("lint", str(SEED / "0.2.5.json"), "--fail-on", "warning")
    assert r.returncode == 1


def test_uncompilable_output_schema_names_the_hosts_that_cannot_compile_it():
    def tool(name: str, pattern: str, **extra: object) -> dict:
        return {
            "name": name,
            "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object", "properties": {"s": {"type": "string", "pattern": pattern, **extra}}},
        }

    no_type = tool("nullable_no_type", "^a$")
    no_type["outputSchema"]["properties"]["s"] = {"nullable": True, "enum": ["a", None]}  # Ajv: needs "type"

    snap = snapshot_from_data(
        {
            "protocolVersion": "2025-11-25",
            "tools": [
                tool("python_only", "^(?P<n>a)$"),  # Python named group: a SyntaxError for new RegExp(p, "u")
                tool("ecma_only", "^\\p{L}+$"),  # Unicode property escape: Python re rejects it
                no_type,
                tool("fine", "^[a-z]+$"),
            ],
        },
        source="regex",
    )
    got = {f.tool: (f.pointer, sorted(f.hosts)) for f in lint_snapshot(snap) if f.rule == "output-schema-uncompilable"}
    assert got["python_only"] == ("/properties/s/pattern", ["ts-sdk-v1", "ts-sdk-v2"])
    assert got["ecma_only"] == ("/properties/s/pattern", ["python-sdk"])
    assert got["nullable_no_type"][1] == ["ts-sdk-v1", "ts-sdk-v2"]
    assert "fine" not in got


def test_new_listing_breaker_in_diff_is_breaking():
    old = snapshot_from_data(
        {"protocolVersion": "2025-11-25", "tools": [{"name": "a", "inputSchema": {"type": "object"}}]}, source="o"
    )
    new = snapshot_from_data(
        {
            "protocolVersion": "2025-11-25",
            "tools": [
                {"name": "a", "inputSchema": {"type": "object"}},
                {"name": "z", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}},
            ],
        },
        source="n",
    )
    findings = diff_with_mode(old, new)
    assert ("z", "output-schema-not-object", "breaking") in {(f.tool, f.rule, f.severity) for f in findings}


def test_rules_and_explain():
    r = cli("rules", "--format", "json")
    ids = {x["id"] for x in json.loads(r.stdout)}
    assert {"tool-removed", "output-property-added-to-closed-object", "input-required-added"} <= ids
    r = cli("explain", "output-enum-value-added")
    assert r.returncode == 0 and "before:" in r.stdout and "host error:" in r.stdout
    assert cli("explain", "nope").returncode == 2


def test_lint_value_set_hazard_skips_conditions_and_exclusions():
    snap = snapshot_from_data(
        {
            "tools": [
                {
                    "name": "t",
                    "inputSchema": {"type": "object"},
                    "outputSchema": {
                        "type": "object",
                        "properties": {"s": {"type": "string", "not": {"const": "x"}}, "k": {"enum": ["a", "b"]}},
                        "if": {"properties": {"k": {"const": "a"}}},
                        "then": {"required": ["s"]},
                        "dependentSchemas": {"s": {"properties": {"k": {"const": "b"}}}},
                    },
                }
            ]
        },
        source="x",
    )
    hazards = [(f.rule, f.pointer) for f in lint_snapshot(snap) if f.rule == "output-value-set-hazard"]
    assert hazards == [("output-value-set-hazard", "/properties/k/enum")]


def test_forward_mode_maps_witnesses_values_and_pointers_back_to_the_command_line():
    old = snapshot_from_data(
        {
            "tools": [
                {
                    "name": "t",
                    "inputSchema": {"type": "object"},
                    "outputSchema": {"type": "object", "required": ["s"], "properties": {"s": {"enum": ["a", "b"]}}},
                }
            ]
        },
        source="o",
        label="v1",
    )
    new = snapshot_from_data(
        {
            "tools": [
                {
                    "name": "t",
                    "inputSchema": {"type": "object"},
                    "outputSchema": {"type": "object", "required": ["s"], "properties": {"s": {"enum": ["a"]}}},
                }
            ]
        },
        source="n",
        label="v2",
    )
    [f] = [f for f in diff_with_mode(old, new, "forward") if f.severity == "breaking"]
    assert f.rule == "output-enum-value-added" and f.tags == ["forward"]
    assert f.witness["accepted_by"] == "old" and f.witness["instance"] == {"s": "b"}  # OLD is what the server runs
    assert f.old == ["a", "b"] and f.new == ["a"]
    assert f.message.startswith("[forward: hosts cached v2, server runs v1] t: Output enum gained a value at ")
    assert "the served v1 schema" in f.message and "the cached v2 schema" in f.message
    # the backward half of full mode is untouched
    back = [g for g in diff_with_mode(old, new, "full") if "forward" not in g.tags]
    assert [(g.rule, g.old, g.new) for g in back] == [("output-enum-value-removed", ["a", "b"], ["a"])]


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
    assert sum("affects all 3 cached versions" in line for line in lines) > 10
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
    for raw in ("<img", "<b>", "](http", "@channel", "\n::error"):
        assert raw not in md, raw
    assert html.count("<tr>") == 2  # header + the one tool, its label cell escaped (no extra column from '|')
    assert html.count("<th>") == 4
    # one row per value added (distinct findings, distinct fingerprints), each with the versions it breaks:
    # 'b' is new to 1.0 only, 'c' to 1.0 and 2.0
    rows = sorted(line for line in md.splitlines() if "output-enum-value-added" in line)
    assert len(rows) == 2, rows
    assert sum("affects 1.0 &#124; &#60;b&#62;x&#60;/b&#62;, 2.0" in row for row in rows) == 1, rows
    assert sum(row.endswith("affects 1.0 &#124; &#60;b&#62;x&#60;/b&#62;") for row in rows) == 1, rows


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


def test_full_mode_reports_a_tool_level_change_once():
    """A description change is the same finding whichever side is cached: --mode full lists it once."""
    old = snapshot_from_data(
        {"tools": [{"name": "t", "description": "one", "inputSchema": {"type": "object"}}]}, source="old"
    )
    new = snapshot_from_data(
        {"tools": [{"name": "t", "description": "two", "inputSchema": {"type": "object"}}]}, source="new"
    )
    full = diff_with_mode(old, new, "full")
    assert [f.rule for f in full] == ["tool-description-changed"], [(f.rule, f.tags) for f in full]
    assert len(diff_with_mode(old, new, "forward")) == 1


def test_forward_wording_leaves_quoted_server_values_alone():
    """Role words ("the new schema") are rewritten with labels, but never inside a quoted server value."""

    def snap(values, source):
        return snapshot_from_data(
            {
                "tools": [
                    {
                        "name": "t",
                        "inputSchema": {"type": "object"},
                        "outputSchema": {"type": "object", "properties": {"s": {"enum": values}}, "required": ["s"]},
                    }
                ]
            },
            source=source,
        )

    forward = diff_with_mode(snap(["ok", "the new server"], "v1.json"), snap(["ok"], "v2.json"), "forward")
    msgs = [f.message for f in forward if f.severity == "breaking"]
    assert msgs and all("'the new server'" in m and "the served v1 schema" in m for m in msgs), msgs


@pytest.mark.parametrize(
    ("toml", "needle"),
    [
        ("store = 5\n", "store must be a string, not an integer (5)"),
        ('store = ""\n', "store must not be empty"),
        ("fail_on = 1\n", "fail_on must be a string, one of breaking"),
        ("mode = []\n", "mode must be a string, one of backward"),
        ("format = true\n", "format must be a string, one of text"),
        ('hosts = "python-sdk"\n', "hosts must be an array of host profiles, not a string"),
        ("hosts = [1]\n", "hosts must be a string, one of python-sdk"),
        ("hosts = []\n", "hosts is empty: name at least one of python-sdk"),
        (
            '[severity]\n"output-object-closed" = 3\n',
            "[severity] output-object-closed must be a string, not an integer",
        ),
        ('[[ignore]]\nfingerprint = 5\nreason = "r"\n', "[[ignore]] #1: fingerprint must be a string, not an integer"),
        ('[[ignore]]\nfingerprint = "ABC"\nreason = "r"\n', "fingerprint must be 16 lowercase hex digits"),
        ('[[ignore]]\nrule = ["*"]\nreason = "r"\n', "[[ignore]] #1: rule must be a string, not an array (['*'])"),
        ('[[ignore]]\ntool = 1.5\nreason = "r"\n', "tool must be a string, not a float"),
        ('[[ignore]]\npointer = {a = 1}\nreason = "r"\n', "pointer must be a string, not a table"),
        ('[[ignore]]\nname = 2020-01-01\nreason = "r"\n', "name must be a string, not a date"),
        ('[[ignore]]\ndirection = false\nrule = "*"\nreason = "r"\n', "direction must be a string, not a boolean"),
        ('[[ignore]]\nrule = "*"\nreason = 5\n', "reason must be a string, not an integer"),
        ('[[allow]]\nsurface = 1\nreason = "r"\n', "[[allow]] #1: surface must be a string, not an integer"),
    ],
)
def test_config_values_of_the_wrong_type_are_exit_2(tmp_path: Path, toml: str, needle: str):
    """A config value of the wrong type was accepted and turned into text (``store = 5`` a folder named 5,
    ``[[ignore]] rule = ["*"]`` or ``fingerprint = 5`` entries that never matched, ``hosts = []`` no host
    selected, so every breaking finding became info and the gate passed): each is exit 2, one line naming the
    key, from .schema-audit.toml and from [tool.schema-audit] in pyproject.toml alike."""
    for name, text in (
        (".schema-audit.toml", toml),
        (
            "pyproject.toml",
            "[tool.schema-audit]\n"
            + toml.replace("[severity]", "[tool.schema-audit.severity]")
            .replace("[[ignore]]", "[[tool.schema-audit.ignore]]")
            .replace("[[allow]]", "[[tool.schema-audit.allow]]"),
        ),
    ):
        folder = tmp_path / name
        folder.mkdir()
        (folder / name).write_text(text, encoding="utf-8")
        r = cli("diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), cwd=folder)
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 2 and len(lines) == 1 and lines[0].startswith("schema-audit: error: "), (name, r.stderr)
        assert needle in lines[0], (name, lines[0])
        assert r.stdout == ""
