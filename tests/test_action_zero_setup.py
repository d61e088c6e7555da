"""The Action's zero-setup pull-request gate: ``scripts/action_run.py`` in a temporary git repository with two
commits of a server (release 1, then the pull request's release 2), no committed snapshot. The base revision
is checked out in a git worktree, installed and built there, captured, diffed against the pull request's
side, and the worktree is removed."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import PYTHON, ROOT, SERVERS, free_port
from test_action import run_action

from mcp_schema_audit.prcheck import base as action_base

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
GIT = [
    "git",
    "-c",
    "user.name=t",
    "-c",
    "user.email=t@example.invalid",
    "-c",
    "commit.gpgsign=false",
    "-c",
    "tag.gpgsign=false",
]
WRAPPER = """import runpy, sys
sys.argv = [sys.argv[0], "--version", "{version}", *sys.argv[1:]]
runpy.run_path({server!r}, run_name="__main__")
"""
# the build copies the source into dist/ (ignored by git): a base that was not built has no server to start
INSTALL = "echo installed > installed.txt"
BUILD = "mkdir -p dist && cp src/server.py dist/server.py"
COMMAND = f"{PYTHON} dist/server.py"
SARIF_SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0-rtm.5.json").read_text(encoding="utf-8"))


def git(repo: Path, *args: str) -> str:
    return subprocess.run([*GIT, *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def commit(repo: Path, version: int, message: str) -> str:
    (repo / "src").mkdir(exist_ok=True)
    (repo / "src" / "server.py").write_text(WRAPPER.format(version=version, server=str(SERVERS / "surface_server.py")))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A repository: ``main`` holds release 1 (tagged v1.0.0), ``feature`` adds release 2 (the pull request)."""
    path = tmp_path_factory.mktemp("repo")
    git(path, "init", "-q", "-b", "main")
    (path / ".gitignore").write_text("dist/\ninstalled.txt\n")
    first = commit(path, 1, "release 1")
    git(path, "tag", "v1.0.0")
    git(path, "checkout", "-q", "-b", "feature")
    second = commit(path, 2, "release 2")
    git(path, "tag", "v2.0.0")
    return {"path": path, "first": first, "second": second}


def worktrees(repo: Path) -> list[str]:
    return [ln for ln in git(repo, "worktree", "list", "--porcelain").splitlines() if ln.startswith("worktree ")]


def runner_temp(tmp_path: Path) -> Path:
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    return temp


def test_base_ref_builds_captures_and_removes_the_base(repo: dict[str, Any], tmp_path: Path):
    temp = runner_temp(tmp_path)
    r = run_action(
        tmp_path,
        cwd=repo["path"],
        base_ref=repo["first"],
        command=COMMAND,
        install_command=INSTALL,
        build_command=BUILD,
        output_dir=str(tmp_path / "out"),
        upload_sarif="true",
        extra_env={"RUNNER_TEMP": str(temp)},
    )
    assert r.code == 1, r.stderr
    assert r.outputs["base-ref"] == repo["first"]
    base_snapshot = json.loads(Path(r.outputs["base-snapshot"]).read_text())
    assert base_snapshot["label"] == f"base-{repo['first'][:12]}" and base_snapshot["server"]["version"] == "1.0.0"
    head = json.loads(Path(r.outputs["snapshot"]).read_text())
    assert head["label"] == "pr" and head["server"]["version"] == "2.0.0"
    report = json.loads((tmp_path / "out" / "schema-audit.json").read_text())
    rules = {f["rule"] for f in report["findings"]}
    assert {
        "prompt-removed",
        "prompt-argument-required-added",
        "resource-template-uri-changed",
        "resource-template-variable-renamed",
        "server-instructions-changed",
    } <= rules
    assert r.outputs["breaking"] == str(report["summary"]["breaking"]) == "8"
    assert r.summary.startswith("### ❌ schema-audit diff: 8 breaking, 7 warning, 10 info")
    assert "prompt **review**" in r.summary and "add the label **schema-change-approved**" in r.summary
    assert any(ln.startswith("::error ") and "prompt review" in ln for ln in r.stdout.splitlines())
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(json.loads(Path(r.outputs["sarif-file"]).read_text()))
    # install and build ran on both sides; the base's worktree and its folder are gone
    assert (repo["path"] / "installed.txt").is_file() and (repo["path"] / "dist" / "server.py").is_file()
    assert "install-command in the base (base-ref " in r.stderr and "in the pull request's checkout" in r.stderr
    assert worktrees(repo["path"]) == [f"worktree {repo['path']}"] and list(temp.iterdir()) == []


def test_two_configurations_one_section_each(repo: dict[str, Any], tmp_path: Path):
    port = free_port()
    configurations = [
        {"name": "stdio", "command": COMMAND},
        {
            "name": "http",
            "url": f"http://127.0.0.1:{port}/mcp",
            "start-command": f"{COMMAND} --http {port}",
            "protocol": "legacy",
            "env": {"DOCS_MODE": "http"},
        },
    ]
    r = run_action(
        tmp_path,
        cwd=repo["path"],
        base_ref=repo["first"],
        configurations=json.dumps(configurations),
        build_command=BUILD,
        output_dir=str(tmp_path / "out"),
        upload_sarif="true",
        formats="junit",
    )
    assert r.code == 1, r.stderr
    out = tmp_path / "out"
    reports = {name: json.loads((out / name / "schema-audit.json").read_text()) for name in ("stdio", "http")}
    assert reports["stdio"]["new"]["protocol_version"] == "2026-07-28"
    assert reports["http"]["new"]["protocol_version"] == "2025-11-25"
    stdio_rules = {f["rule"] for f in reports["stdio"]["findings"]}
    http_rules = {f["rule"] for f in reports["http"]["findings"]}
    assert "server-capability-removed" in stdio_rules and "server-capability-removed" not in http_rules
    for key in ("breaking", "warning", "info"):
        assert r.outputs[key] == str(sum(rep["summary"][key] for rep in reports.values()))
    assert r.outputs["json-file"].splitlines() == [
        str(out / "stdio" / "schema-audit.json"),
        str(out / "http" / "schema-audit.json"),
    ]
    assert len(r.outputs["junit-file"].splitlines()) == 2 and len(r.outputs["base-snapshot"].splitlines()) == 2
    assert r.outputs["html-file"].splitlines() == [str(out / n / "schema-audit.html") for n in ("stdio", "http")]
    assert (
        r.summary.startswith("### ❌ schema-audit: ")
        and "in 2 configurations — gate failed" in r.summary.splitlines()[0]
    )
    assert r.summary.index("**Configuration stdio**") < r.summary.index("**Configuration http**")
    errors = [ln for ln in r.stdout.splitlines() if ln.startswith("::error ")]
    assert any("::[stdio] " in ln for ln in errors) and any("::[http] " in ln for ln in errors)
    log = json.loads((out / "schema-audit.sarif").read_text())
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(log)
    results = log["runs"][0]["results"]
    assert {res["properties"]["configuration"] for res in results} == {"stdio", "http"}
    assert len(results) == sum(len(rep["findings"]) for rep in reports.values())
    assert worktrees(repo["path"]) == [f"worktree {repo['path']}"]
    # the http servers were stopped: the port is free again
    import socket

    with socket.socket() as sock:
        assert sock.connect_ex(("127.0.0.1", port)) != 0


def test_a_failing_build_of_the_base_is_a_capture_error_and_leaves_nothing(repo: dict[str, Any], tmp_path: Path):
    r = run_action(
        tmp_path,
        cwd=repo["path"],
        base_ref=repo["first"],
        command=COMMAND,
        build_command="echo compiling; echo 'error TS2322: bad type' >&2; exit 2",
        output_dir=str(tmp_path / "out"),
        labels=["schema-change-approved"],
    )
    assert r.code == 3, r.stderr
    assert "build-command in the base" in r.summary and "error TS2322: bad type" in r.summary
    assert r.outputs["exit-code"] == "3" and r.outputs["approved"] == "false"
    assert worktrees(repo["path"]) == [f"worktree {repo['path']}"]


def test_an_unbuilt_base_names_the_setup_inputs(repo: dict[str, Any], tmp_path: Path):
    """The base is checked out from git alone: its server's missing file is a capture error whose line names the
    inputs that would make it (install-command, build-command), not only "No such file or directory"."""
    r = run_action(tmp_path, cwd=repo["path"], base_ref=repo["first"], command=COMMAND, output_dir=str(tmp_path / "o"))
    assert r.code == 3, r.stderr
    assert "No such file or directory" in r.summary, r.summary
    assert "give install-command and build-command (e.g. 'npm ci' and 'npm run build')" in r.summary, r.summary
    assert worktrees(repo["path"]) == [f"worktree {repo['path']}"]


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"base": "a.json", "base_ref": "HEAD", "command": "x"}, "not both"),
        ({"base_ref": "no-such-branch", "command": "x"}, "revision 'no-such-branch' not found"),
        ({"base_ref": "HEAD", "url": "http://127.0.0.1:9/mcp"}, "give start-command"),
        ({"base_ref": "HEAD", "snapshot": "x.json"}, "with base-ref, give command or url"),
        ({"base": "a.json", "configurations": '[{"name": "a"}]'}, "give exactly one of command, url, sse"),
        ({"base": "a.json", "configurations": "{}"}, "must be a non-empty JSON list"),
        ({"base": "a.json", "configurations": '[{"name": "a b", "command": "x"}]'}, "name must be"),
        ({"base": "a.json", "configurations": '[{"name": "a", "command": "x", "port": "1"}]'}, "unknown key(s) port"),
        ({"base": "a.json", "command": "x", "configurations": "[]"}, "replaces the inputs command"),
    ],
)
def test_zero_setup_input_errors_exit_2(repo: dict[str, Any], tmp_path: Path, inputs: dict[str, str], message: str):
    r = run_action(tmp_path, cwd=repo["path"], output_dir=str(tmp_path / "out"), **inputs)
    assert r.code == 2, (r.stderr, r.summary)
    assert message in r.summary, r.summary
    assert worktrees(repo["path"]) == [f"worktree {repo['path']}"]


# --- the default base revision ---------------------------------------------------------------------------------


def test_default_base_on_a_pull_request_and_on_tag_pushes(
    repo: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.chdir(repo["path"])
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 1, "base": {"ref": "main", "sha": repo["first"]}}}))
    pr = action_base.resolve_base(
        "", {"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(event), "GITHUB_BASE_REF": "main"}
    )
    assert pr.sha == repo["first"] and pr.why == "merge base of HEAD with main"
    assert pr.label == f"main-{repo['first'][:7]}"  # the branch's name, and which of its commits (not its tip)
    # without the event's sha: the target branch by name
    pr = action_base.resolve_base("", {"GITHUB_EVENT_NAME": "pull_request", "GITHUB_BASE_REF": "main"})
    assert pr.sha == repo["first"]
    tag = action_base.resolve_base("", {"GITHUB_EVENT_NAME": "push", "GITHUB_REF": "refs/tags/v2.0.0"})
    assert (tag.sha, tag.label) == (repo["first"], "v1.0.0")
    with pytest.raises(action_base.FirstRelease):
        action_base.resolve_base("", {"GITHUB_EVENT_NAME": "push", "GITHUB_REF": "refs/tags/v1.0.0"})
    with pytest.raises(action_base.BaseError, match="input base is required"):
        action_base.resolve_base("", {"GITHUB_EVENT_NAME": "push", "GITHUB_REF": "refs/heads/main"})
    with pytest.raises(action_base.BaseError, match="target branch nope"):
        action_base.resolve_base("", {"GITHUB_EVENT_NAME": "pull_request", "GITHUB_BASE_REF": "nope"})
    assert action_base.resolve_base("v1.0.0", {}).label == "v1.0.0"
    # a name close to a branch or tag here is suggested (main/master, a tag without its v, a typo)
    for wrong, near in (("master", "main"), ("1.0.0", "v1.0.0"), ("featrue", "feature")):
        with pytest.raises(action_base.BaseError, match=f"did you mean '{near}'"):
            action_base.resolve_base(wrong, {}, option="--base-ref")
    # HEAD beside check's other side, "head": the sha names it instead
    assert action_base.resolve_base("HEAD", {}).label == f"base-{git(repo['path'], 'rev-parse', 'HEAD')[:12]}"


def test_first_tag_passes_with_nothing_to_compare(repo: dict[str, Any], tmp_path: Path):
    r = run_action(
        tmp_path,
        cwd=repo["path"],
        command=COMMAND,
        event={"ref": "refs/tags/v1.0.0"},
        extra_env={"GITHUB_EVENT_NAME": "push", "GITHUB_REF": "refs/tags/v1.0.0"},
        output_dir=str(tmp_path / "out"),
    )
    assert r.code == 0, r.stderr
    assert r.summary.startswith("### ✅ schema-audit: nothing to compare") and "v1.0.0 is the first tag" in r.summary
    assert r.outputs["passed"] == "true"


def test_a_tag_push_names_the_tag_and_gives_no_pull_request_advice(repo: dict[str, Any], tmp_path: Path):
    """A tag push compares the previous tag with the tagged commit: the new side was labelled ``pr`` and the summary
    ended "add the label … to the pull request", with no pull request. The tag names the new side and the advice
    is for pull requests only."""
    r = run_action(
        tmp_path,
        cwd=repo["path"],
        command=COMMAND,
        build_command=BUILD,
        event={"ref": "refs/tags/v2.0.0"},
        extra_env={
            "GITHUB_EVENT_NAME": "push",
            "GITHUB_REF": "refs/tags/v2.0.0",
            "RUNNER_TEMP": str(runner_temp(tmp_path)),
        },
        output_dir=str(tmp_path / "out"),
    )
    assert r.code == 1, (r.stderr, r.summary)
    assert "**v1.0.0 (" in r.summary and "**v2.0.0 (" in r.summary and "**pr (" not in r.summary, r.summary
    assert "to the pull request" not in r.summary, r.summary


def test_the_documented_workflows_use_only_real_inputs():
    """Every ``with:`` of the action in docs/ci.md and the README names an input of action.yml, and the zero-setup
    workflows for a TypeScript and a Python server are there, without any committed snapshot."""
    import re

    from test_action import _action_inputs

    inputs = set(_action_inputs((ROOT / "action.yml").read_text(encoding="utf-8")))
    checked = 0
    for doc in (ROOT / "docs" / "ci.md", ROOT / "README.md"):
        for block in re.findall(r"```yaml\n(.*?)```", doc.read_text(encoding="utf-8"), re.S):
            lines = block.splitlines()
            for i, line in enumerate(lines):
                ours = "uses: OWNER/schema-audit@" in line or (i == 0 and line.strip() == "with:")
                if not ours:
                    continue
                start = (
                    i
                    if line.strip() == "with:"
                    else next(j for j in range(i, len(lines)) if lines[j].strip().startswith("with:"))
                )
                flow = re.match(r"^\s*with:\s*\{(.*)\}\s*$", lines[start])
                if flow:  # with: {command: …, install-command: …}
                    for key in re.findall(r"(?:^|,)\s*([a-z][a-z0-9-]*):", flow.group(1)):
                        assert key in inputs, (doc.name, key)
                        checked += 1
                    continue
                indent = len(lines[start]) - len(lines[start].lstrip()) + 2
                for inner in lines[start + 1 :]:
                    if inner.strip() and len(inner) - len(inner.lstrip()) < indent:
                        break
                    m = re.match(rf"^ {{{indent}}}([a-z][a-z0-9-]*):", inner)
                    if m:
                        assert m.group(1) in inputs, (doc.name, m.group(1))
                        checked += 1
    assert checked >= 25
    ci = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    zero = ci.split("## Zero setup", 1)[1].split("## The snapshot store", 1)[0]
    assert "### A TypeScript server" in zero and "### A Python server" in zero and "fetch-depth: 0" in zero
    assert not re.search(r"^\s+base:", zero, re.M) and "snapshots/" not in zero  # no committed snapshot


def test_a_start_command_that_dies_is_a_capture_error_without_its_secrets(repo: dict[str, Any], tmp_path: Path):
    configurations = [
        {
            "name": "http",
            "url": f"http://127.0.0.1:{free_port()}/mcp",
            "start-command": 'echo "token is $API_TOKEN"; exit 7',
            "env": {"API_TOKEN": "s3cr3t-t0ken"},
        }
    ]
    r = run_action(
        tmp_path,
        cwd=repo["path"],
        base=str(ROOT / "fixtures" / "seed" / "0.2.5.json"),
        configurations=json.dumps(configurations),
        output_dir=str(tmp_path / "out"),
    )
    assert r.code == 3, r.stderr
    assert "start-command exited with 7" in r.summary and "token is ***" in r.summary
    assert "s3cr3t-t0ken" not in r.summary + r.stdout + r.stderr


def test_the_pull_requests_build_runs_after_the_base_is_captured(repo: dict[str, Any], tmp_path: Path):
    """A build that writes outside the checkout (a shared output folder, a global link) cannot make the base's
    capture read the pull request's server: every base is captured before the pull request's setup runs."""
    shared = tmp_path / "shared"
    r = run_action(
        tmp_path,
        cwd=repo["path"],
        base_ref=repo["first"],
        command=f"{PYTHON} {shared / 'server.py'}",
        build_command=f"mkdir -p {shared} && cp src/server.py {shared / 'server.py'}",
        output_dir=str(tmp_path / "out"),
        extra_env={"RUNNER_TEMP": str(runner_temp(tmp_path))},
    )
    assert r.code == 1, r.stderr
    assert json.loads(Path(r.outputs["base-snapshot"]).read_text())["server"]["version"] == "1.0.0"
    assert json.loads(Path(r.outputs["snapshot"]).read_text())["server"]["version"] == "2.0.0"
    assert r.outputs["breaking"] == "8"
