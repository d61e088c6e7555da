"""The GitHub Action's logic (scripts/action_run.py) run as a subprocess with fake GitHub files:
summary, outputs, annotations, exit codes, the approval-label bypass; action.yml and the pre-commit
hook definition checked against it."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from report_cases import unescaped

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "action_run.py"
#: The Action's scripts: the entry point, the inputs it parses, what it publishes.
SCRIPTS = [SCRIPT, *(ROOT / "scripts" / f"action_{m}.py" for m in ("inputs", "report", "policy"))]
SEED = ROOT / "fixtures" / "seed"


class Run:
    """One run of the action script: exit code, stdout/stderr, the summary and the outputs it wrote."""

    def __init__(self, proc: subprocess.CompletedProcess[str], workdir: Path) -> None:
        self.code = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.workdir = workdir
        summary = workdir / "summary.md"
        self.summary = summary.read_text(encoding="utf-8") if summary.exists() else ""
        out = workdir / "outputs.txt"
        self.outputs = _outputs(out.read_text(encoding="utf-8")) if out.exists() else {}


def _outputs(text: str) -> dict[str, str]:
    """``$GITHUB_OUTPUT`` as GitHub reads it: ``key=value`` lines and ``key<<DELIMITER`` … ``DELIMITER`` blocks."""
    out: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            key, delim = line.split("<<", 1)
            block = []
            for inner in lines:
                if inner == delim:
                    break
                block.append(inner)
            out[key] = "\n".join(block)
        elif "=" in line:
            key, value = line.split("=", 1)
            out[key] = value
    return out


def run_action(
    tmp_path: Path,
    *,
    labels: list[str] | None = None,
    event: dict | None = None,
    cwd: Path | None = None,
    extra_env: dict[str, str] | None = None,
    **inputs: str,
) -> Run:
    """Run the script with ``INPUT_*`` from ``inputs`` (``fail_on`` → ``INPUT_FAIL_ON``), a fake event, and
    ``extra_env`` (e.g. ``GITHUB_EVENT_NAME``, ``RUNNER_TEMP``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INPUT_", "GITHUB_"))}
    if event is None:
        event = {"action": "synchronize", "pull_request": {"number": 7, "labels": [{"name": n} for n in labels or []]}}
    event_path = tmp_path / "event.json"
    event_path.write_text(json.dumps(event), encoding="utf-8")
    env.update(
        {
            "GITHUB_EVENT_PATH": str(event_path),
            "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
            "GITHUB_OUTPUT": str(tmp_path / "outputs.txt"),
        }
    )
    for key, value in inputs.items():
        env["INPUT_" + key.upper()] = value
    env.update(extra_env or {})
    proc = subprocess.run(
        [sys.executable, str(SCRIPT)], cwd=cwd or tmp_path, env=env, capture_output=True, text=True, timeout=180
    )
    return Run(proc, tmp_path)


def seed_inputs(old: str = "0.2.5", new: str = "0.2.6") -> dict[str, str]:
    return {"base": str(SEED / f"{old}.json"), "snapshot": str(SEED / f"{new}.json")}


def test_breaking_change_fails_the_gate_with_summary_annotations_and_outputs(tmp_path: Path):
    r = run_action(tmp_path, **seed_inputs())
    assert r.code == 1, r.stderr
    first = r.summary.splitlines()[0]
    assert first.startswith("### ❌ schema-audit diff: 13 breaking, 0 warning, 1 info") and "gate failed" in first
    assert "<summary>Witness:" in r.summary
    assert "add the label **schema-change-approved**" in r.summary
    assert r.outputs["exit-code"] == "1" and r.outputs["passed"] == "false" and r.outputs["approved"] == "false"
    assert (r.outputs["breaking"], r.outputs["warning"], r.outputs["info"]) == ("13", "0", "1")
    assert r.outputs["sarif-file"] == "" and r.outputs["snapshot"] == str(SEED / "0.2.6.json")
    report_dir = tmp_path / "schema-audit-report"
    data = json.loads((report_dir / "schema-audit.json").read_text(encoding="utf-8"))
    assert data["summary"] == {"breaking": 13, "warning": 0, "info": 1}
    assert (report_dir / "schema-audit.md").read_text(encoding="utf-8") in r.summary
    # the page people open from the uploaded folder: always written, named by an output
    page = (report_dir / "schema-audit.html").read_text(encoding="utf-8")
    assert r.outputs["html-file"].endswith("schema-audit-report/schema-audit.html")
    assert page.startswith("<!DOCTYPE html>") and "Gate failed (fail-on: breaking)" in page
    commands = [ln for ln in r.stdout.splitlines() if ln.startswith("::")]
    assert sum(ln.startswith("::error ") for ln in commands) == 13
    assert commands[-1].startswith("::notice title=schema-audit diff::")
    assert "13 breaking, 0 warning, 1 info; gate failed" in r.stderr


def test_approval_label_turns_a_failed_gate_into_a_pass(tmp_path: Path):
    r = run_action(tmp_path, labels=["bug", "schema-change-approved"], **seed_inputs())
    assert r.code == 0, r.stderr
    assert r.outputs["approved"] == "true" and r.outputs["passed"] == "false" and r.outputs["exit-code"] == "0"
    assert "> **Approved:** the pull request carries the label **schema-change-approved**" in r.summary
    assert "gate failed, approved by label" in r.stderr
    # the headline says so at once, not a red failure with the approval far below
    first = r.summary.splitlines()[0]
    assert first.startswith("### ☑️ schema-audit diff: 13 breaking, 0 warning, 1 info"), first
    assert "gate failed, approved by label **schema-change-approved** (fail-on: breaking)" in first
    assert "❌" not in first
    # the report file (outputs.markdown-file) is the CLI's own report, unchanged
    assert (tmp_path / r.outputs["markdown-file"]).read_text(encoding="utf-8").startswith("### ❌")
    # no red failure marks on an approved run: the breaking findings are annotated as warnings
    annotations = [ln for ln in r.stdout.splitlines() if ln.startswith("::")]
    assert not any(ln.startswith("::error") for ln in annotations), annotations
    assert sum(ln.startswith("::warning ") and "schema-audit breaking" in ln for ln in annotations) == 13


def test_an_approved_headline_of_several_configurations_names_the_label():
    sys.path.insert(0, str(ROOT / "scripts"))
    import action_report

    combined = "### ❌ schema-audit: 3 breaking, 0 warning, 0 info in 2 configurations — gate failed\n\n---\n"
    got = action_report.approved_headline(combined, "ok <b>")
    assert got.splitlines()[0] == (
        "### ☑️ schema-audit: 3 breaking, 0 warning, 0 info in 2 configurations — gate "
        "failed, approved by label **ok \\<b>**"
    )
    assert got.endswith("\n\n---\n")
    passed = "### ✅ schema-audit diff: 0 breaking — gate passed\n"
    assert action_report.approved_headline(passed, "x") == passed


def test_custom_and_disabled_approval_label(tmp_path: Path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "c").mkdir()
    r = run_action(tmp_path / "a", labels=["schema-change-approved"], approval_label="api-break-ok", **seed_inputs())
    assert r.code == 1 and "**api\\-break-ok**" not in r.summary and "**api-break-ok**" in r.summary
    r = run_action(tmp_path / "b", labels=["api-break-ok"], approval_label="api-break-ok", **seed_inputs())
    assert r.code == 0 and r.outputs["approved"] == "true"
    r = run_action(tmp_path / "c", labels=["schema-change-approved"], approval_label="", **seed_inputs())
    assert r.code == 1 and r.outputs["approved"] == "false" and "add the label" not in r.summary


def test_no_pull_request_in_the_event_means_no_bypass(tmp_path: Path):
    r = run_action(
        tmp_path, event={"ref": "refs/heads/main", "labels": [{"name": "schema-change-approved"}]}, **seed_inputs()
    )
    assert r.code == 1 and r.outputs["approved"] == "false"
    for odd in (
        {"pull_request": {"labels": 5}},
        {"pull_request": {"labels": {"name": "schema-change-approved"}}},
        {"pull_request": 3},
        ["not", "an", "object"],
    ):
        r = run_action(tmp_path, event=odd, **seed_inputs())  # an event of another shape: no label, no crash
        assert r.code == 1 and r.outputs["approved"] == "false" and "Traceback" not in r.stderr, r.stderr


def test_empty_diff_passes(tmp_path: Path):
    r = run_action(tmp_path, **seed_inputs("0.2.4", "0.2.5"))
    assert r.code == 0, r.stderr
    assert r.summary.startswith("### ✅ schema-audit diff: 0 breaking, 0 warning, 0 info — gate passed")
    assert "No schema changes." in r.summary and "Approved" not in r.summary and "add the label" not in r.summary
    assert r.outputs["passed"] == "true"
    assert [ln for ln in r.stdout.splitlines() if ln.startswith("::")] == [
        ln for ln in r.stdout.splitlines() if ln.startswith("::notice title=schema-audit diff::")
    ]


@pytest.mark.parametrize(("fail_on", "code"), [("never", 0), ("info", 1), ("warning", 1), ("breaking", 1)])
def test_fail_on_is_passed_through(tmp_path: Path, fail_on: str, code: int):
    r = run_action(tmp_path, fail_on=fail_on, annotations="false", **seed_inputs())
    assert r.code == code, r.stderr
    assert f"(fail-on: {fail_on})" in r.summary.splitlines()[0]
    assert not r.stdout.strip()  # annotations off


def test_info_only_change_fails_only_at_fail_on_info(tmp_path: Path):
    old = {"tools": [{"name": "t", "description": "a", "inputSchema": {"type": "object"}}]}
    new = {"tools": [{"name": "t", "description": "b", "inputSchema": {"type": "object"}}]}
    (tmp_path / "o.json").write_text(json.dumps(old))
    (tmp_path / "n.json").write_text(json.dumps(new))
    for fail_on, code in (("warning", 0), ("info", 1)):
        d = tmp_path / fail_on
        d.mkdir()
        r = run_action(d, base=str(tmp_path / "o.json"), snapshot=str(tmp_path / "n.json"), fail_on=fail_on)
        assert r.code == code, r.stderr


def test_sarif_and_junit_files(tmp_path: Path):
    r = run_action(tmp_path, upload_sarif="true", formats="junit, text", **seed_inputs())
    assert r.code == 1
    sarif = Path(r.outputs["sarif-file"])
    assert sarif == Path("schema-audit-report/schema-audit.sarif")
    log = json.loads((tmp_path / sarif).read_text(encoding="utf-8"))
    assert log["version"] == "2.1.0" and len(log["runs"][0]["results"]) == 14
    junit = ET.parse(tmp_path / r.outputs["junit-file"]).getroot()
    assert junit.find("testsuite").get("failures") == "7"
    assert "gate FAILED" in (tmp_path / r.outputs["text-file"]).read_text(encoding="utf-8")


def test_defer_exit_leaves_the_verdict_in_the_outputs(tmp_path: Path):
    r = run_action(tmp_path, defer_exit="true", **seed_inputs())
    assert r.code == 0 and r.outputs["exit-code"] == "1"


def test_errors_are_reported_and_never_bypassed(tmp_path: Path):
    r = run_action(
        tmp_path,
        labels=["schema-change-approved"],
        base=str(tmp_path / "missing.json"),
        snapshot=str(SEED / "0.2.6.json"),
    )
    assert r.code == 2, r.stderr
    assert r.summary.startswith("### ⚠️ schema-audit could not run (exit 2)")
    assert "missing.json" in r.summary and r.outputs["exit-code"] == "2"
    assert r.stdout.startswith("::error title=schema-audit::reading input base failed: schema-audit: error: ")


def test_a_stale_report_is_never_read_and_option_like_values_stay_values(tmp_path: Path):
    """A report left by an earlier run in the same output folder is not this run's: with input args that end the
    diff early (--help: exit 0, no report) the gate must not pass on the old file. A base or snapshot spelt
    like an option is a name, never an option."""
    first = run_action(tmp_path, **seed_inputs())
    assert first.code == 1 and (tmp_path / "schema-audit-report" / "schema-audit.json").is_file()
    again = run_action(tmp_path, args="--help", **seed_inputs())
    assert again.code == 2 and again.outputs["exit-code"] == "2" and again.outputs.get("passed") != "true", again.stdout
    assert "wrote no report" in again.stdout
    for key in ("base", "snapshot"):
        odd = run_action(tmp_path, **{**seed_inputs(), key: "--help"})
        assert odd.code == 2 and "no snapshot '--help'" in odd.stdout, odd.stdout


def test_a_snapshot_that_cannot_load_stops_the_run_before_any_setup(tmp_path: Path):
    """A missing base (or NEW) snapshot is found before install-command, build-command or a capture runs."""
    for inputs, named in (
        ({"base": str(tmp_path / "gone.json"), "command": f"touch {tmp_path / 'captured'}"}, "gone.json"),
        ({"base": str(SEED / "0.2.5.json"), "snapshot": "no-such-label"}, "no-such-label"),
    ):
        r = run_action(tmp_path, install_command=f"touch {tmp_path / 'installed'}", **inputs)
        assert r.code == 2, r.stderr
        assert named in r.stdout and "Traceback" not in r.stderr
        assert not (tmp_path / "installed").exists() and not (tmp_path / "captured").exists()


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"snapshot": "x.json"}, "input base is required"),
        ({"base": "a.json"}, "give exactly one of the inputs snapshot, command, url, sse"),
        ({"base": "a.json", "snapshot": "b.json", "url": "http://127.0.0.1:9/mcp"}, "(got snapshot, url)"),
        ({"base": "a.json", "snapshot": "b.json", "fail_on": "sometimes"}, "input fail-on must be one of"),
        ({"base": "a.json", "snapshot": "b.json", "formats": "pdf"}, "input formats: unknown pdf"),
        ({"base": "a.json", "snapshot": "b.json", "annotations": "maybe"}, "input annotations must be true or false"),
        ({"base": "a.json", "snapshot": "b.json", "summary": "bogus"}, "input summary must be true or false"),
        ({"base": "a.json", "snapshot": "b.json", "upload_sarif": "2"}, "input upload-sarif must be true or false"),
        (
            {"base": "a.json", "snapshot": "b.json", "mode": "sideways"},
            "input mode must be one of backward, forward, full",
        ),
        (
            {"base": "a.json", "snapshot": "b.json", "hosts": "python-sdk, ie6"},
            "input hosts: unknown host profile 'ie6'",
        ),
        (
            {"base": "a.json", "snapshot": "b.json", "severity": "output-enum-value-added"},
            "input severity: expected RULE=LEVEL",
        ),
        ({"base": "a.json", "snapshot": "b.json", "severity": "x=fatal"}, "input severity: expected RULE=LEVEL"),
        (
            {
                "base": "a.json",
                "snapshot": "b.json",
                "severity": "output-enum-value-added=info, output-enum-valu-added=info",
            },
            "input severity: unknown rule 'output-enum-valu-added'",
        ),
        ({"base": "a.json", "snapshot": "b.json", "label": "a b"}, "input label must be letters"),
        ({"base": "a.json", "command": "srv", "env": "A=1\nNOEQUALS"}, "input env: expected KEY=VALUE, got 'NOEQUALS'"),
        ({"base": "a.json", "command": "srv", "env": "=1"}, "input env: expected KEY=VALUE, got '=1'"),
        ({"base": "a.json", "command": "srv", "protocol": "2099"}, "input protocol must be one of auto, legacy"),
        ({"base": "a.json", "command": "srv", "timeout": "soon"}, "input timeout must be a positive number"),
        ({"base": "a.json", "command": "srv", "timeout": "-1"}, "input timeout must be a positive number"),
        (
            {"base": "a.json", "url": "http://127.0.0.1:9/mcp", "header_env": "Authorization"},
            "input header-env: expected Name=ENV_VAR, got 'Authorization'",
        ),
        (
            {"base": "a.json", "url": "http://127.0.0.1:9/mcp", "header_env": "Authorization=SA_TEST_UNSET_VAR"},
            "environment variable SA_TEST_UNSET_VAR is not set",
        ),
        (
            {"base": "a.json", "configurations": '[{"name": "a", "command": "srv", "env": ["NOEQUALS"]}]'},
            "input configurations[0] (a) env: expected KEY=VALUE, got 'NOEQUALS'",
        ),
        (
            {"base": "a.json", "configurations": '[{"name": "a", "command": "srv", "command": "other"}]'},
            "duplicate key 'command' in input configurations",
        ),
        # strict JSON (the package's reader): an escaped lone surrogate would have crashed the capture later
        (
            {"base": "a.json", "configurations": '[{"name": "a", "command": "srv", "env": {"A": "\\ud800"}}]'},
            "input configurations: a string escapes a lone UTF-16 surrogate",
        ),
        ({"base": "a.json", "configurations": '[{"name": "a",'}, "input configurations: not valid JSON: "),
        (
            {"base": "a.json", "configurations": '[{"name": "a", "command": "srv", "timeout": "x"}]'},
            "input configurations[0] (a): timeout must be a positive number",
        ),
        (
            {"base": "a.json", "configurations": '[{"name": "a", "command": "srv", "protocol": "x"}]'},
            "input configurations[0] (a): protocol must be one of",
        ),
        (
            {"base": "a.json", "command": "srv", "header_env": "Authorization=HOME"},
            "inputs: header-env does not apply to command (a stdio command has no HTTP headers",
        ),
        (
            {"base": "a.json", "url": "http://127.0.0.1:9/mcp", "env": "A=1"},
            "inputs: env does not apply to url (env and cwd reach only a stdio command or a start-command)",
        ),
        (
            {"base": "a.json", "snapshot": "b.json", "timeout": "5", "protocol": "legacy"},
            "inputs: protocol, timeout does not apply to snapshot (nothing is captured",
        ),
        (
            {"base": "a.json", "configurations": '[{"name": "a", "command": "srv", "start-command": "npm start"}]'},
            "input configurations[0] (a): start-command does not apply to command",
        ),
    ],
)
def test_bad_inputs_exit_2(tmp_path: Path, inputs: dict[str, str], message: str):
    r = run_action(tmp_path, **inputs)
    assert r.code == 2 and message in r.summary and message in r.stdout


def test_every_bad_input_is_named_at_once(tmp_path: Path):
    """Several bad inputs: one run names them all, a line each (in the summary, and in the one ::error
    annotation as %0A-separated lines), not only the first met; nothing is captured."""
    r = run_action(
        tmp_path,
        base="a.json",
        base_ref="HEAD",
        command=f"touch {tmp_path / 'captured'}",
        fail_on="sometimes",
        hosts="ie6",
        severity="output-enum-valu-added=info",
        formats="pdf",
        label="a b",
        annotations="maybe",
    )
    assert r.code == 2, r.stderr
    for message in (
        "not both",
        "input fail-on must be one of",
        "input hosts: unknown host profile 'ie6'",
        "input severity: unknown rule 'output-enum-valu-added'",
        "input formats: unknown pdf",
        "input label must be letters",
        "input annotations must be true or false",
    ):
        assert message in r.summary and message in r.stdout, message
    [annotation] = [line for line in r.stdout.splitlines() if line.startswith("::error")]
    assert annotation.count("%0A") == 6
    assert not (tmp_path / "captured").exists()


def test_cli_flags_reach_diff(tmp_path: Path):
    r = run_action(
        tmp_path,
        mode="full",
        hosts="python-sdk\nts-sdk-v2",
        severity="output-property-added-to-closed-object=warning",
        **seed_inputs(),
    )
    data = json.loads((tmp_path / "schema-audit-report" / "schema-audit.json").read_text(encoding="utf-8"))
    assert data["mode"] == "full" and data["hosts"] == ["python-sdk", "ts-sdk-v2"]
    assert "mode: full" in r.summary
    assert all(
        f["severity"] == "warning" for f in data["findings"] if f["rule"] == "output-property-added-to-closed-object"
    )
    (tmp_path / "bogus").mkdir()
    r = run_action(tmp_path / "bogus", args="--mode bogus", **seed_inputs())
    assert r.code == 2 and "--mode" in r.summary


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_base_from_git(tmp_path: Path):
    repo = tmp_path / "repo"
    snaps = repo / ".schema-audit" / "snapshots"
    snaps.mkdir(parents=True)
    shutil.copy(SEED / "0.2.5.json", snaps / "latest.json")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    subprocess.run([*git, "add", "."], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "release"], cwd=repo, check=True)
    shutil.copy(SEED / "0.2.6.json", snaps / "latest.json")  # the pull request's version, uncommitted
    work = tmp_path / "work"
    work.mkdir()
    r = run_action(
        work,
        cwd=repo,
        base="git:HEAD:.schema-audit/snapshots/latest.json",
        snapshot=".schema-audit/snapshots/latest.json",
        output_dir=str(work / "out"),
        upload_sarif="true",
    )
    assert r.code == 1, r.stderr
    assert r.summary.startswith("### ❌ schema-audit diff: 13 breaking")
    log = json.loads((work / "out" / "schema-audit.sarif").read_text(encoding="utf-8"))
    uri = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == ".schema-audit/snapshots/latest.json"
    assert re.search(r"::error file=\.schema-audit/snapshots/latest\.json,line=[1-9][0-9]*,title=", r.stdout)


@pytest.mark.live
def test_capture_a_stdio_server(tmp_path: Path):
    base = tmp_path / "v1.json"
    cap = subprocess.run(
        [
            sys.executable,
            "-m",
            "mcp_schema_audit",
            "snapshot",
            "--out",
            str(base),
            "--label",
            "v1",
            "--",
            sys.executable,
            "-m",
            "mcp_schema_audit.demo_server.mail_server",
            "--version",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert cap.returncode == 0, cap.stderr
    command = shlex.join([sys.executable, "-m", "mcp_schema_audit.demo_server.mail_server", "--version", "2"])
    r = run_action(tmp_path, base=str(base), command=command, label="pr-42", timeout="90")
    assert r.code == 1, r.stderr
    snap = json.loads((tmp_path / "schema-audit-report" / "snapshot.json").read_text(encoding="utf-8"))
    assert snap["label"] == "pr-42" and r.outputs["snapshot"] == "schema-audit-report/snapshot.json"
    assert "tool-removed" in r.summary and "output-property-added-to-closed-object" in r.summary


def test_summary_escapes_the_label_text(tmp_path: Path):
    r = run_action(tmp_path, approval_label="ok <img src=x> @team [x](http://evil)", **seed_inputs())
    tail = r.summary.split("</sub>")[-1]
    assert "\\<img" in tail and not unescaped("<img", tail) and not unescaped("[x]", tail)
    assert "@team" not in tail and "http://" not in tail and "@\u200bteam" in tail


# --- action.yml and .pre-commit-hooks.yaml -------------------------------------------------------------


def _action_inputs(text: str) -> list[str]:
    block = text.split("\ninputs:\n", 1)[1].split("\noutputs:\n", 1)[0]
    return re.findall(r"^  ([a-z][a-z0-9-]*):\s*$", block, re.M)


def test_the_installed_cli_is_on_the_path_of_later_steps(tmp_path: Path):
    """action.yml installs the CLI into $RUNNER_TEMP/schema-audit-venv and calls it by path: the script appends
    that venv's bin folder to $GITHUB_PATH, so a later `run: schema-audit probe …` step finds the command."""
    temp = tmp_path / "runner-temp"
    bin_dir = temp / "schema-audit-venv" / "bin"
    bin_dir.mkdir(parents=True)
    shim = bin_dir / "schema-audit"  # what pip's console script does: run the CLI with the venv's Python
    shim.write_text(
        f'#!/bin/sh\nPYTHONPATH={shlex.quote(str(ROOT))} exec {shlex.quote(sys.executable)} -m mcp_schema_audit "$@"\n',
        encoding="utf-8",
    )
    shim.chmod(0o755)
    github_path = tmp_path / "github-path.txt"
    r = run_action(
        tmp_path, extra_env={"RUNNER_TEMP": str(temp), "GITHUB_PATH": str(github_path)}, **seed_inputs("0.2.5", "0.2.5")
    )
    assert r.code == 0, r.stderr
    assert github_path.read_text(encoding="utf-8").splitlines() == [str(bin_dir)]
    # a later step: the runner puts every $GITHUB_PATH line in front of PATH
    env = {**os.environ, "PATH": os.pathsep.join([str(bin_dir), "/usr/bin:/bin"])}
    later = subprocess.run(["schema-audit", "--version"], env=env, capture_output=True, text=True, timeout=60)
    assert later.returncode == 0 and later.stdout.startswith("schema-audit"), later.stderr
    (tmp_path / "none").mkdir()  # no venv (the CLI came from elsewhere): nothing is added
    r = run_action(
        tmp_path / "none",
        extra_env={"RUNNER_TEMP": str(tmp_path / "none"), "GITHUB_PATH": str(tmp_path / "none" / "path.txt")},
        **seed_inputs("0.2.5", "0.2.5"),
    )
    assert r.code == 0 and not (tmp_path / "none" / "path.txt").exists(), r.stderr


def test_action_yml_maps_every_input_to_the_script():
    text = (ROOT / "action.yml").read_text(encoding="utf-8")
    inputs = _action_inputs(text)
    assert {"base", "snapshot", "command", "url", "fail-on", "formats", "upload-sarif", "approval-label"} <= set(inputs)
    env = dict(re.findall(r"^\s+(INPUT_[A-Z_]+): \$\{\{ inputs\.([a-z0-9-]+) \}\}\s*$", text, re.M))
    handled_elsewhere = {"python-version", "package", "sarif-category"}
    assert set(env.values()) | handled_elsewhere == set(inputs)
    for var, name in env.items():
        assert var == "INPUT_" + name.upper().replace("-", "_")
    script = "\n".join(path.read_text(encoding="utf-8") for path in SCRIPTS)
    read = set(re.findall(r'\b(?:input_value|flag|lenient_flag|list_items|line_items)\("([a-z-]+)"', script))
    assert 'for k in ("snapshot", "command", "url", "sse")' in script and '"INPUT_APPROVAL_LABEL"' in script
    read |= {"snapshot", "command", "url", "sse", "approval-label"}
    assert {n.upper().replace("-", "_") for n in read} - {"DEFER_EXIT"} == {v[len("INPUT_") :] for v in env}
    assert "INPUT_DEFER_EXIT: 'true'" in text
    assert "github/codeql-action/upload-sarif@" in text and "$GITHUB_STEP_SUMMARY" not in text  # script writes it
    # nothing from inputs is interpolated into shell code
    for run_block in re.findall(r"run: (\|\n(?:\s{8}.*\n)+|.*\n)", text):
        assert "${{" not in run_block


def test_pre_commit_hook_definition():
    text = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    assert re.search(r"^- id: schema-audit-lint$", text, re.M)
    assert re.search(r"^  entry: schema-audit lint$", text, re.M)
    assert re.search(r"^  language: python$", text, re.M)
    files = re.search(r"^  files: (.+)$", text, re.M).group(1).strip()
    assert files == r"\.schema-audit/snapshots/.*\.json$"
    pattern = re.compile(files)
    assert pattern.search(".schema-audit/snapshots/v0.2.5.json")
    assert pattern.search("servers/mail/.schema-audit/snapshots/v1.json")
    assert not pattern.search(".schema-audit/config.json") and not pattern.search("snapshots/v1.json")
    # what pre-commit runs: the entry with the matching files as arguments
    r = subprocess.run(
        [sys.executable, "-m", "mcp_schema_audit", "lint", str(SEED / "0.2.5.json"), str(SEED / "0.2.7.json")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode in (0, 1), r.stderr
    assert "0.2.5" in r.stdout and "0.2.7" in r.stdout


def _action_outputs(text: str) -> set[str]:
    block = re.split(r"\n(?=\S)", text.split("\noutputs:\n", 1)[1], maxsplit=1)[0]  # up to the next top-level key
    return set(re.findall(r"^  ([a-z0-9-]+):\s*$", block, re.M))


def test_action_yml_declares_every_output_the_script_writes(tmp_path: Path):
    r = run_action(tmp_path, upload_sarif="true", formats="junit, text, github", **seed_inputs())
    assert r.code == 1 and {"junit-file", "text-file", "github-file", "sarif-file"} <= set(r.outputs)
    declared = _action_outputs((ROOT / "action.yml").read_text(encoding="utf-8"))
    assert set(r.outputs) <= declared, set(r.outputs) - declared
    # every report file the script can write has its output (the formats input names a format of the registry)
    from mcp_schema_audit.report.formats import FORMATS

    formats = [name for name, fmt in FORMATS.items() if fmt.gate]
    assert {f"{fmt}-file" for fmt in formats} <= declared
    for name in declared:
        assert f"value: ${{{{ steps.run.outputs.{name} }}}}" in (ROOT / "action.yml").read_text(encoding="utf-8")


def test_action_script_help_prints_help_and_leaves_nothing_behind(tmp_path: Path):
    for args, code in ((["--help"], 0), (["-h"], 0), (["--bogus"], 2)):
        proc = subprocess.run(
            [sys.executable, str(SCRIPT), *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
            env={k: v for k, v in os.environ.items() if not k.startswith("INPUT_")},
        )
        assert proc.returncode == code, proc.stderr
        assert "usage: action_run.py" in (proc.stdout if code == 0 else proc.stderr)
        assert list(tmp_path.iterdir()) == []
    assert (
        "INPUT_SNAPSHOT"
        in subprocess.run([sys.executable, str(SCRIPT), "--help"], capture_output=True, text=True, timeout=60).stdout
    )


def test_a_bad_input_stops_the_run_before_anything_starts(tmp_path: Path):
    """An env line without ``=`` beside a start-command was a traceback (ValueError in ``_capture``) after the
    server had been started, with nothing in GITHUB_OUTPUT: every input is parsed first, so it is one
    ``::error::`` line, exit 2 (in the outputs too, with defer-exit), and no command ran, no folder was made."""
    r = run_action(
        tmp_path,
        base=str(SEED / "0.2.5.json"),
        url="http://127.0.0.1:9/mcp",
        start_command=f"touch {tmp_path / 'started'}",
        install_command=f"touch {tmp_path / 'installed'}",
        env="NOEQUALS",
        defer_exit="true",
        output_dir=str(tmp_path / "out"),
    )
    assert r.code == 0 and r.outputs["exit-code"] == "2", r.stderr
    assert r.stdout == "::error title=schema-audit::input env: expected KEY=VALUE, got 'NOEQUALS'\n"
    assert "Traceback" not in r.stderr
    assert not (tmp_path / "started").exists() and not (tmp_path / "installed").exists()
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("word", ["false", "FALSE", "no", "Off", "0"])
def test_every_boolean_input_reads_false_words(tmp_path: Path, word: str):
    """summary, annotations and upload-sarif share one parser: each false word turns them off."""
    r = run_action(tmp_path, summary=word, annotations=word, upload_sarif=word, **seed_inputs())
    assert r.code == 1, r.stderr
    assert r.summary == "" and "::error" not in r.stdout and "::notice" not in r.stdout, r.stdout
    assert r.outputs["sarif-file"] == "" and r.outputs["upload-sarif"] == "false"


@pytest.mark.parametrize("word", ["true", "Yes", "ON", "1"])
def test_every_boolean_input_reads_true_words(tmp_path: Path, word: str):
    r = run_action(tmp_path, summary=word, upload_sarif=word, **seed_inputs())
    assert r.code == 1, r.stderr
    assert r.summary and r.outputs["sarif-file"] and r.outputs["upload-sarif"] == "true"


# --- the Action's own text goes through the package's escapers -----------------------------------------------
# (scripts/action_run.py had copies that missed U+061C, U+180E, U+FFF9-FFFB, U+FFFE/FFFF and lone surrogates,
# broke no "www." and put no zero-width space after "#"; a lone surrogate in an input crashed the summary)


def test_summary_escapes_what_the_old_copy_of_the_escapers_missed(tmp_path: Path):
    label = "ok\u061c\u180e\ufff9\ufffa\ufffb\ufffe\uffff see www.example.com and #12\tnow"
    r = run_action(tmp_path, approval_label=label, **seed_inputs())
    assert r.code == 1, r.stderr
    tail = r.summary.split("</sub>")[-1]
    shown = "ok" + "".join(f"\\u{c}" for c in ("061c", "180e", "fff9", "fffa", "fffb", "fffe", "ffff"))
    assert f"add the label **{shown} see www\u200b.example.com" in tail  # no autolink
    assert "and #\u200b12\\tnow**" in tail  # no issue reference; a tab is shown, not folded into a space
    assert not any(ch in tail for ch in "\u061c\u180e\ufff9\ufffa\ufffb\ufffe\uffff\t")


def test_an_error_line_escapes_what_the_old_copy_missed(tmp_path: Path):
    """The ``::error`` line and the summary's fence show an input's U+FFF9 and U+180E as escapes (the copy of
    ``inert`` passed them through)."""
    (tmp_path / "file").write_text("", encoding="utf-8")
    r = run_action(tmp_path, output_dir=f"{tmp_path / 'file'}/r\ufff9\u180e", **seed_inputs())
    assert r.code == 2 and "Traceback" not in r.stderr, r.stderr
    shown = f"cannot create output-dir {tmp_path / 'file'}/r\\ufff9\\u180e: "
    assert f"::error title=schema-audit::{shown}" in r.stdout and f"\n{shown}" in r.summary
    assert "\ufff9" not in r.stdout + r.summary and "\u180e" not in r.stdout + r.summary


def test_a_lone_surrogate_in_an_input_is_escaped_not_a_crash(tmp_path: Path):
    """An input with bytes that are not UTF-8 reaches Python as lone surrogates (``\\udcff``): the summary shows it
    escaped (the copy passed it through, and writing the summary raised UnicodeEncodeError: a traceback)."""
    r = run_action(tmp_path, approval_label="ok\udcff", **seed_inputs())
    assert r.code == 1 and "Traceback" not in r.stderr, r.stderr
    assert "add the label **ok\\udcff**" in r.summary


def test_the_merged_sarif_of_several_configurations_escapes_server_text(tmp_path: Path):
    """A server name (and tool name) with U+FFF9, U+202E or a lone surrogate: each configuration's SARIF escapes
    them (``json_text``), and so does the merged log now (the copy wrote them raw with ``json.dumps``, and a
    lone surrogate could not be written at all)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import action_inputs
    import action_report

    old = {"server": {"name": "mail\ufff9\u202e", "version": "1"}, "tools": [{"name": "a\ufffb", "inputSchema": {}}]}
    new = {"server": {"name": "mail\ufff9\u202e", "version": "2"}, "tools": []}
    (tmp_path / "old.json").write_text(json.dumps(old), encoding="utf-8")
    (tmp_path / "new.json").write_text(json.dumps(new), encoding="utf-8")
    checks = []
    for name in ("stdio", "http"):
        out = tmp_path / f"{name}.sarif"
        subprocess.run(
            [sys.executable, "-m", "mcp_schema_audit", "diff", "--format", "sarif", "--fail-on", "never"]
            + ["--output", str(out), str(tmp_path / "old.json"), str(tmp_path / "new.json")],
            cwd=tmp_path,
            check=True,
            timeout=120,
        )
        cfg = action_inputs.Configuration(name=name, command=["srv"])
        checks.append(action_report.Checked(cfg, tmp_path, files={"sarif-file": str(out)}))
    text = action_report.merged_sarif(checks)
    assert not any(ch in text for ch in "\ufff9\ufffb\u202e"), "raw control characters in the merged SARIF"
    assert "mail\\ufff9\\u202e" in text and "a\\ufffb" in text
    log = json.loads(text)
    run = log["runs"][0]
    assert list(run["properties"]["configurations"]) == ["stdio", "http"]
    assert run["properties"]["configurations"]["http"]["new"]["server"]["name"] == "mail\ufff9\u202e"
    results = run["results"]
    assert [r["properties"]["configuration"] for r in results] == ["stdio", "http"]
    assert results[1]["message"]["text"].startswith("[http] ")
    assert results[1]["partialFingerprints"]["schemaAudit/configuration"] == "http"

    from mcp_schema_audit.report.sarif import merge_logs

    lone = json.loads(text.replace("mail\\ufff9", "mail\\ud800", 1))
    merged = merge_logs([("a", lone)])
    assert "mail\\ud800" in merged and merged.encode("utf-8")  # valid UTF-8: the surrogate is an escape
    assert lone["runs"][0]["results"][0]["message"]["text"].startswith("[stdio] ")  # the input is not changed
