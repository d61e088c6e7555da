"""The gate's config: .schema-audit.toml and [tool.schema-audit], the ignore list, severity overrides, hosts."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from gate_helpers import SEED, cli

from mcp_schema_audit.config import IgnoreEntry, load_config
from mcp_schema_audit.diff import diff_with_mode
from mcp_schema_audit.errors import UsageError
from mcp_schema_audit.policy import apply_policy
from mcp_schema_audit.snapshot import snapshot_from_data


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


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("/dev/zero", "not a regular file (a FIFO, device or socket is never read)"),
        ("fifo", "not a regular file (a FIFO, device or socket is never read)"),
        ("folder", "is a directory, not a configuration file"),
        ("latin1.toml", "not UTF-8"),
    ],
)
def test_a_config_that_is_a_device_fifo_folder_or_not_utf8_is_one_line(tmp_path: Path, given: str, said: str):
    """``--config /dev/zero`` read until memory ran out; a FIFO hung on its open: each is exit 2 with one line, and a
    ``.schema-audit.toml`` committed as a link to one (a pull request can commit links) is refused the same way,
    never skipped for the defaults."""
    import os

    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "folder").mkdir()
    (tmp_path / "latin1.toml").write_bytes(b'fail_on = "never" # caf\xe9\n')
    r = cli("diff", str(SEED / "v0.2.5.json"), str(SEED / "v0.2.6.json"), "--config", given, cwd=tmp_path, timeout=60)
    assert r.returncode == 2 and r.stdout == "", (r.stdout, r.stderr[-500:])
    assert r.stderr.count("\n") == 1 and said in r.stderr and "cannot read config" in r.stderr, r.stderr
    (tmp_path / ".schema-audit.toml").symlink_to(given if given.startswith("/") else tmp_path / given)
    linked = cli("diff", str(SEED / "v0.2.5.json"), str(SEED / "v0.2.6.json"), cwd=tmp_path, timeout=60)
    assert linked.returncode == 2 and said in linked.stderr and linked.stderr.count("\n") == 1, linked.stderr
