"""Hostile inputs to the GitHub Action (scripts/action_run.py run as a subprocess with the runner's files):
workflow commands forged through a server's stderr, and the error lines of the CLI that quote it; a pull request
that loosens its own configuration (in a temporary git repository with the runner's environment)."""

from __future__ import annotations

import html
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import PYTHON, ROOT
from test_action import SCRIPT, SEED, run_action, seed_inputs
from test_action_zero_setup import git

from mcp_schema_audit.report.markdown import md_escape

# a stdio "server" that prints workflow commands on its stderr and exits before the handshake
FORGER = (
    "import sys; sys.stderr.write('##[warning]forged annotation\\n##[add-mask]hidden\\n"
    "::stop-commands::tok\\nx ##[error]mid-line\\n'); sys.exit(1)"
)


def _commands(text: str) -> list[str]:
    """Lines of ``text`` that the runner would read as a workflow command (``::`` at a line's start, ``##[`` at
    any place)."""
    return [ln for ln in text.splitlines() if ln.lstrip().startswith("::") or "##[" in ln]


def test_a_server_stderr_forges_no_workflow_command_in_the_cli_error_line():
    proc = subprocess.run(
        [PYTHON, "-m", "mcp_schema_audit", "snapshot", "--out", "-", "--timeout", "30", "--", PYTHON, "-c", FORGER],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 3, proc.stderr
    assert "forged annotation" in proc.stderr and _commands(proc.stderr) == [], proc.stderr


def test_the_action_echoes_the_cli_stderr_without_workflow_commands(tmp_path: Path):
    r = run_action(tmp_path, base=str(SEED / "0.2.5.json"), command=f'{PYTHON} -c "{FORGER}"', timeout="30")
    assert r.code == 3, (r.stderr, r.summary)
    assert "forged annotation" in r.stderr
    assert _commands(r.stderr) == []
    # stdout holds the Action's own error annotation only
    assert [ln.split("::", 2)[1] for ln in _commands(r.stdout)] == ["error title=schema-audit"], r.stdout
    assert "##[" not in r.stdout


def test_the_install_command_echoed_to_the_log_forges_no_workflow_command(tmp_path: Path):
    """The Action echoes each setup command before it runs it: its text was written as given, so an input holding
    ``::error::`` at a line's start or ``##[add-mask]`` anywhere was a workflow command of the log."""
    install = "true\n::error title=forged::from install-command\necho done ##[add-mask]hidden"
    r = run_action(tmp_path, install_command=install, **seed_inputs())
    assert r.code == 1, r.stderr
    echoed = [ln for ln in r.stderr.splitlines() if ln.startswith("schema-audit: install-command")]
    assert echoed and all("from install-command" in ln for ln in echoed), r.stderr  # one line, all of it shown
    assert _commands(r.stderr) == [], r.stderr
    assert "forged" not in r.stdout


# --- the gate's policy comes from the base revision ------------------------------------------------------------

LOOSER = """fail_on = "never"
hosts = ["python-sdk"]
exclude_tools = ["debug_*"]

[severity]
"tool-removed" = "info"

[[ignore]]
rule = "*"
reason = "trust me"
"""


@pytest.fixture(scope="module")
def policy_repo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """``main`` has a strict ``.schema-audit.toml``; the pull request's commit replaces it by a looser one."""
    path = tmp_path_factory.mktemp("policy-repo")
    git(path, "init", "-q", "-b", "main")
    (path / ".schema-audit.toml").write_text('fail_on = "breaking"\n')
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "strict policy")
    first = git(path, "rev-parse", "HEAD")
    git(path, "checkout", "-q", "-b", "feature")
    (path / ".schema-audit.toml").write_text(LOOSER)
    git(path, "commit", "-q", "-am", "looser policy")
    return {"path": path, "first": first}


def _pr_run(tmp_path: Path, repo: dict[str, Any], labels: list[str] | None = None, **inputs: str):
    tmp_path.mkdir(parents=True, exist_ok=True)
    event = {
        "pull_request": {
            "number": 3,
            "labels": [{"name": n} for n in labels or []],
            "base": {"ref": "main", "sha": repo["first"]},
        }
    }
    return run_action(
        tmp_path,
        cwd=repo["path"],
        event=event,
        extra_env={"GITHUB_EVENT_NAME": "pull_request", "GITHUB_BASE_REF": "main"},
        output_dir=str(tmp_path / "out"),
        **seed_inputs(),
        **inputs,
    )


def test_a_pull_request_cannot_lower_its_own_gate(policy_repo: dict[str, Any], tmp_path: Path):
    r = _pr_run(tmp_path, policy_repo)
    assert r.code == 1, (r.stderr, r.summary)
    assert r.outputs["breaking"] == "13" and r.outputs["passed"] == "false"
    assert "> **Policy:** this pull request changes the schema-audit configuration" in r.summary
    shown = html.unescape(r.summary)
    assert "the gate uses the base revision's configuration (merge base of HEAD with main)" in shown
    for override in (
        "fail_on breaking → never",
        "hosts: ts-sdk-v1, ts-sdk-v2 no longer counted",
        "exclude_tools adds debug_*",
        "severity of tool-removed: breaking → info",
        "ignore entry added: rule=*, reason=trust me",
    ):
        assert f"> - {md_escape(override)}" in r.summary, (override, r.summary)  # Markdown's own escapes only
    assert "policy: the pull request lowers the gate (not applied): fail_on breaking → never" in r.stderr


def test_the_approval_label_or_the_policy_input_applies_the_pull_requests_policy(
    policy_repo: dict[str, Any], tmp_path: Path
):
    labelled = _pr_run(tmp_path / "label", policy_repo, labels=["schema-change-approved"])
    assert labelled.code == 0, (labelled.stderr, labelled.summary)
    assert labelled.outputs["breaking"] == "0" and ", and they apply:" in labelled.summary
    trusted = _pr_run(tmp_path / "trusted", policy_repo, policy="pull-request")
    assert trusted.code == 0 and trusted.outputs["breaking"] == "0", trusted.summary
    assert "fail_on breaking → never" in html.unescape(trusted.summary)
    bad = _pr_run(tmp_path / "bad", policy_repo, policy="mine")
    assert bad.code == 2 and "input policy must be one of base, pull-request" in bad.summary


def test_a_stricter_pull_request_policy_applies_at_once(policy_repo: dict[str, Any], tmp_path: Path):
    stricter = tmp_path / "repo"
    subprocess.run(["git", "clone", "-q", str(policy_repo["path"]), str(stricter)], check=True)
    (stricter / ".schema-audit.toml").write_text('fail_on = "info"\n')
    r = _pr_run(tmp_path, {"path": stricter, "first": policy_repo["first"]})
    assert r.code == 1 and "**Policy:**" not in r.summary, r.summary
    assert r.outputs["info"] == "1"


def _policy_pair(tmp_path: Path, base_toml: str | None, head_toml: str | None) -> dict[str, Any]:
    """A repository whose ``main`` commits ``base_toml`` as ``.schema-audit.toml`` and whose pull request's commit
    has ``head_toml`` there (``None``: no file); and two listings that differ by a description only (one info
    finding: only a ``fail_on`` below ``breaking`` fails on it)."""
    path = tmp_path / "repo"
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    (path / "README").write_text("x\n")
    for toml, message in ((base_toml, "base"), (head_toml, "pr")):
        if message == "pr":
            git(path, "checkout", "-q", "-b", "feature")
        if toml is None:
            (path / ".schema-audit.toml").unlink(missing_ok=True)
        else:
            (path / ".schema-audit.toml").write_text(toml)
        git(path, "add", "-A")
        git(path, "commit", "-q", "--allow-empty", "-m", message)
        if message == "base":
            first = git(path, "rev-parse", "HEAD")
    for name, text in (("old", "Reads a thing."), ("new", "Reads a thing, now faster.")):
        tool = {"name": "read", "description": text, "inputSchema": {"type": "object"}}
        (tmp_path / f"{name}.json").write_text(json.dumps({"tools": [tool]}))
    return {"path": path, "first": first}


def _policy_run(tmp_path: Path, repo: dict[str, Any], files: Path | None = None, **inputs: str):
    files = files or tmp_path
    tmp_path.mkdir(parents=True, exist_ok=True)
    event = {"pull_request": {"number": 3, "labels": [], "base": {"ref": "main", "sha": repo["first"]}}}
    return run_action(
        tmp_path,
        cwd=repo["path"],
        event=event,
        extra_env={"GITHUB_EVENT_NAME": "pull_request", "GITHUB_BASE_REF": "main"},
        output_dir=str(tmp_path / "out"),
        base=str(files / "old.json"),
        snapshot=str(files / "new.json"),
        **inputs,
    )


def test_the_configurations_fail_on_applies_when_the_input_is_empty(tmp_path: Path):
    """The ``fail-on`` input was passed as ``--fail-on breaking`` always, so no configuration's ``fail_on`` ever
    applied: a base policy of ``fail_on = "info"`` passed a pull request with an info finding."""
    repo = _policy_pair(tmp_path, 'fail_on = "info"\n', 'fail_on = "info"\n')
    r = _policy_run(tmp_path, repo)
    assert r.code == 1 and r.outputs["info"] == "1", (r.stderr, r.summary)
    assert "(fail-on: info)" in r.summary.splitlines()[0]
    given = _policy_run(tmp_path / "given", repo, tmp_path, fail_on="never")  # the input, when set, decides
    assert given.code == 0 and "(fail-on: never)" in given.summary.splitlines()[0], given.summary


def test_a_fail_on_the_pull_request_drops_is_a_real_lowering_and_not_applied(tmp_path: Path):
    """The pull request removes ``fail_on = "info"``: its file inherits the default (``breaking``), a lowering
    the summary names; the base's policy applies, so the info finding fails the gate (the line said "not
    applied" while the run gated on ``breaking`` all the same)."""
    repo = _policy_pair(tmp_path, 'fail_on = "info"\n', "")
    r = _policy_run(tmp_path, repo)
    assert r.code == 1, (r.stderr, r.summary)
    assert "policy: the pull request lowers the gate (not applied): fail_on info → breaking" in r.stderr
    assert "> - fail_on info → breaking" in html.unescape(r.summary)
    given = _policy_run(tmp_path / "given", repo, tmp_path, fail_on="info")  # the input decides: no file lowers fail_on
    assert given.code == 1 and "fail_on" not in given.stderr and "**Policy:**" not in given.summary, given.stderr


def _linked_repo(tmp_path: Path, links: dict[str, str]) -> dict[str, Any]:
    """``_policy_pair`` whose base commits ``conf/audit.toml`` (``fail_on = "info"``) and the symbolic links
    ``links`` (name → target); the pull request's commit changes nothing of them."""
    repo = _policy_pair(tmp_path, None, None)
    path = repo["path"]
    git(path, "checkout", "-q", "main")
    (path / "conf").mkdir()
    (path / "conf" / "audit.toml").write_text('fail_on = "info"\n')
    for name, target in links.items():
        (path / name).symlink_to(target)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "linked policy")
    repo["first"] = git(path, "rev-parse", "HEAD")
    git(path, "checkout", "-q", "-B", "feature")
    git(path, "commit", "-q", "--allow-empty", "-m", "pr")
    return repo


@pytest.mark.parametrize(
    "links",
    [
        {".schema-audit.toml": "conf/audit.toml"},
        {".schema-audit.toml": "./cfg/audit.toml", "cfg": "conf"},  # a link to a folder on the way, then the file
        {".schema-audit.toml": "step", "step": "conf/../conf/audit.toml"},
    ],
)
def test_a_configuration_committed_as_a_symlink_is_read_through_it(tmp_path: Path, links: dict[str, str]):
    """``git show`` of a link gives the link's text (``conf/audit.toml``): every pull request was exit 2 (not TOML).
    The link is followed inside the base revision's tree, so its target's ``fail_on = "info"`` gates."""
    r = _policy_run(tmp_path, _linked_repo(tmp_path, links))
    assert r.code == 1 and r.outputs["info"] == "1", (r.stderr, r.summary)
    assert "(fail-on: info)" in r.summary.splitlines()[0]


@pytest.mark.parametrize(
    ("links", "said"),
    [
        ({".schema-audit.toml": "../outside.toml"}, "a symbolic link on its way leaves the repository"),
        ({".schema-audit.toml": "/etc/passwd"}, "a symbolic link on its way leaves the repository (/etc/passwd)"),
        ({".schema-audit.toml": "a", "a": "b", "b": "a"}, "more than 40 symbolic links on its way (a loop)"),
        ({".schema-audit.toml": "conf"}, "a folder, not a configuration file"),
    ],
)
def test_a_configuration_link_that_leaves_the_tree_or_loops_is_one_line(
    tmp_path: Path, links: dict[str, str], said: str
):
    r = _policy_run(tmp_path, _linked_repo(tmp_path, links))
    assert r.code == 2, (r.stderr, r.summary)
    assert r.stdout == f"::error title=schema-audit::the base revision's configuration: .schema-audit.toml: {said}\n"


def test_an_output_folder_that_is_a_symlink_is_refused(tmp_path: Path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("precious")
    work = tmp_path / "work"
    work.mkdir()
    (work / "reports").symlink_to(outside, target_is_directory=True)
    for output_dir in ("reports", "reports/sub"):
        r = run_action(work, cwd=work, output_dir=output_dir, **seed_inputs())
        assert r.code == 2, (r.stderr, r.summary)
        assert "is a symbolic link; give a real folder" in r.summary
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"]


# --- a cancelled job -----------------------------------------------------------------------------------------


def _wait_for(path: Path, count: int) -> None:
    deadline = time.monotonic() + 60
    while not (path.exists() and len(path.read_text().split()) >= count) and time.monotonic() < deadline:
        time.sleep(0.1)


def _gone(pid: str) -> bool:
    stat = Path(f"/proc/{pid}/stat")
    return not stat.exists() or stat.read_text().rsplit(")", 1)[1].split()[0] in ("Z", "X")


def _action(tmp_path: Path, **inputs: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INPUT_", "GITHUB_"))}
    (tmp_path / "event.json").write_text(json.dumps({"pull_request": {"number": 1, "labels": []}}))
    env.update(
        GITHUB_EVENT_PATH=str(tmp_path / "event.json"),
        GITHUB_STEP_SUMMARY=str(tmp_path / "summary.md"),
        GITHUB_OUTPUT=str(tmp_path / "outputs.txt"),
        **{"INPUT_" + k.upper(): v for k, v in inputs.items()},
    )
    return subprocess.Popen([PYTHON, str(SCRIPT)], cwd=tmp_path, env=env, stderr=subprocess.PIPE, text=True)


@pytest.mark.live
def test_sigterm_is_forwarded_to_the_cli_which_stops_its_server(tmp_path: Path):
    pids = tmp_path / "pids"
    hostile = ROOT / "tests" / "hostile_servers" / "stdio_server.py"
    command = f"{PYTHON} {hostile} --mode spawn-ignore-term --pid-file {pids}"
    proc = _action(tmp_path, base=str(SEED / "0.2.5.json"), command=command, timeout="120")
    _wait_for(pids, 2)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=90)
    assert proc.returncode == 143, err
    assert err.strip().splitlines()[-1].startswith("schema-audit: cancelled (SIGTERM)"), err
    assert "Traceback" not in err
    assert all(_gone(pid) for pid in pids.read_text().split())  # the server and its child, deaf to SIGTERM
    outputs = (tmp_path / "outputs.txt").read_text()
    assert (
        "exit-code=143" in outputs and "schema-audit was cancelled (exit 143)" in (tmp_path / "summary.md").read_text()
    )


def test_sigterm_during_a_setup_command_stops_its_process_group(policy_repo: dict[str, Any], tmp_path: Path):
    pids = tmp_path / "setup-pids"
    install = f"sleep 300 & echo $! > {pids}; sleep 301 & echo $! >> {pids}; wait"
    (tmp_path / "event.json").write_text(json.dumps({"pull_request": {"number": 1, "labels": []}}))
    env_inputs = {"base_ref": policy_repo["first"], "command": "true", "install_command": install}
    proc = subprocess.Popen(
        [PYTHON, str(SCRIPT)],
        cwd=policy_repo["path"],
        env={
            **{k: v for k, v in os.environ.items() if not k.startswith(("INPUT_", "GITHUB_"))},
            "GITHUB_EVENT_PATH": str(tmp_path / "event.json"),
            "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
            "GITHUB_OUTPUT": str(tmp_path / "outputs.txt"),
            "RUNNER_TEMP": str(tmp_path),
            "INPUT_OUTPUT_DIR": str(tmp_path / "out"),
            **{"INPUT_" + k.upper(): v for k, v in env_inputs.items()},
        },
        stderr=subprocess.PIPE,
        text=True,
    )
    _wait_for(pids, 2)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert all(_gone(pid) for pid in pids.read_text().split()), pids.read_text()
    assert git(policy_repo["path"], "worktree", "list").count("\n") == 0  # the base's worktree is gone too


def test_the_combined_markdown_of_several_configurations_fits_one_comment(tmp_path: Path):
    """178,877 characters once, although docs/ci.md posts it with ``gh pr comment --body-file`` (65,536 at most)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import action_report
    from action_inputs import Configuration

    witness = "<details><summary>Witness: x</summary>\n\n````json\n" + '{"a": 1}\n' * 40 + "````\n\n</details>\n"
    checks = []
    for name in ("stdio", "http", "read-only"):
        folder = tmp_path / name
        folder.mkdir()
        md = folder / "schema-audit.md"
        md.write_text("### ❌ schema-audit diff: 900 breaking\n\n" + ("- finding\n\n" + witness) * 150)
        check = action_report.Checked(Configuration(name=name), folder, exit_code=1)
        check.files["markdown-file"] = str(md)
        checks.append(check)
    result = action_report.Result(counts={"breaking": 2700, "warning": 0, "info": 0})
    text = action_report.combined_markdown(result, checks)
    assert (
        len(text) <= action_report.COMMENT_LIMIT < sum(len(Path(c.files["markdown-file"]).read_text()) for c in checks)
    )
    assert text.count("**Configuration ") == 3 and text.count("✂️ Cut to fit one comment") == 3
    assert text.count("<details>") == text.count("</details>")
    fences = [ln for ln in text.splitlines() if ln.startswith("````")]
    assert len(fences) % 2 == 0
    small = action_report.combined_markdown(result, checks, limit=10**7)
    assert "✂️" not in small and len(small) > action_report.COMMENT_LIMIT


@pytest.mark.live
def test_sigint_to_the_whole_group_reaches_the_cli_once(tmp_path: Path):
    """GitHub cancels a job with SIGINT (then SIGTERM) to the step's process group: the CLI runs in a session of
    its own and gets the Action's forwarded SIGTERM only, so its clean-up is not cut short by a second signal."""
    pids = tmp_path / "pids"
    hostile = ROOT / "tests" / "hostile_servers" / "stdio_server.py"
    command = f"{PYTHON} {hostile} --mode spawn-ignore-term --pid-file {pids}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INPUT_", "GITHUB_"))}
    (tmp_path / "event.json").write_text(json.dumps({"pull_request": {"number": 1, "labels": []}}))
    env.update(
        GITHUB_EVENT_PATH=str(tmp_path / "event.json"),
        GITHUB_OUTPUT=str(tmp_path / "outputs.txt"),
        INPUT_BASE=str(SEED / "0.2.5.json"),
        INPUT_COMMAND=command,
        INPUT_TIMEOUT="120",
    )
    proc = subprocess.Popen(
        [PYTHON, str(SCRIPT)], cwd=tmp_path, env=env, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    _wait_for(pids, 2)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=90)
    assert proc.returncode == 143, err
    assert err.strip().splitlines()[-1].startswith("schema-audit: cancelled (SIGINT)"), err
    assert "Traceback" not in err and all(_gone(pid) for pid in pids.read_text().split())
    assert "exit-code=143" in (tmp_path / "outputs.txt").read_text()


def test_a_report_file_committed_as_a_symlink_is_replaced_not_written_through(tmp_path: Path):
    outside = tmp_path / "outside.txt"
    outside.write_text("precious")
    out = tmp_path / "out"
    for name in ("a", "b"):
        (out / name).mkdir(parents=True)
    out.joinpath("schema-audit.md").symlink_to(outside)
    out.joinpath("a", "schema-audit.json").symlink_to(outside)
    configurations = [{"name": n, "command": f"{PYTHON} -c 'import sys; sys.exit(1)'"} for n in ("a", "b")]
    r = run_action(
        tmp_path, base=str(SEED / "0.2.5.json"), configurations=json.dumps(configurations), output_dir=str(out)
    )
    assert r.code == 3, (r.stderr, r.summary)
    assert outside.read_text() == "precious"
    assert (
        not out.joinpath("schema-audit.md").is_symlink()
        and "**Configuration a**" in out.joinpath("schema-audit.md").read_text()
    )


def test_a_set_up_command_that_rewrites_the_configuration_changes_no_gate(tmp_path: Path):
    """The policy is decided before the pull request's install/build commands run, and diff reads the file as it
    was then: a command writing ``fail_on = "never"`` into the checkout's .schema-audit.toml (diff used to read
    the rewritten file when the committed one lowered nothing) leaves the gate failing."""
    repo = _policy_pair(tmp_path, 'fail_on = "info"\n', 'fail_on = "info"\n')
    r = _policy_run(tmp_path, repo, install_command="printf 'fail_on = \"never\"\\n' > .schema-audit.toml")
    assert r.code == 1 and "(fail-on: info)" in r.summary.splitlines()[0], (r.stderr, r.summary)


def test_a_flood_of_lowering_lines_keeps_the_summary_small(tmp_path: Path):
    """A pull request adding 2,000 ignore entries: the summary and the log name the first 50 and count the rest
    (20,000 made a 1.96 MB summary, past GitHub's 1 MiB step-summary limit, which drops it whole)."""
    entries = "".join(f'[[ignore]]\nrule = "*"\ntool = "t{i}"\nreason = "r"\n' for i in range(2000))
    repo = _policy_pair(tmp_path, 'fail_on = "info"\n', 'fail_on = "info"\n' + entries)
    r = _policy_run(tmp_path, repo)
    assert r.code == 1, (r.stderr, r.summary[:2000])
    assert len(r.summary) < 60_000 and "… and 1950 more" in r.summary, len(r.summary)
    assert r.stderr.count("policy: the pull request lowers the gate") == 50
    assert "policy: … and 1950 more lowerings" in r.stderr


REWRITE = "printf 'fail_on = \"never\"\\n' > {path}"


@pytest.mark.parametrize("given", [".schema-audit.toml", ""])
def test_a_deleted_configuration_that_a_set_up_command_writes_again_changes_no_gate(tmp_path: Path, given: str):
    """The pull request deletes the committed file and its install command writes a looser one where it was: the
    file read when the policy was decided was missing, so the pull request's policy is the defaults (a lowering
    of the base's ``fail_on = "info"``, shown and not applied), and what the command wrote is never read (it
    was: exit 0, no policy line). With the ``config`` input naming the file and without it alike."""
    repo = _policy_pair(tmp_path, 'fail_on = "info"\n', None)
    r = _policy_run(tmp_path, repo, config=given, install_command=REWRITE.format(path=".schema-audit.toml"))
    assert r.code == 1 and "(fail-on: info)" in r.summary.splitlines()[0], (r.stderr, r.summary)
    assert "fail_on info → breaking" in html.unescape(r.summary), r.summary


def test_an_absolute_config_input_inside_the_repository_is_the_pull_requests_file(tmp_path: Path):
    """``config: ${{ github.workspace }}/.schema-audit.toml``: an absolute path inside the repository names the
    pull request's file, whose base version decides (an absolute path turned the policy off: exit 0)."""
    repo = _policy_pair(tmp_path, 'fail_on = "info"\n', 'fail_on = "never"\n')
    r = _policy_run(tmp_path, repo, config=str(repo["path"] / ".schema-audit.toml"))
    assert r.code == 1 and "(fail-on: info)" in r.summary.splitlines()[0], (r.stderr, r.summary)
    assert "policy: the pull request lowers the gate (not applied): fail_on info → never" in r.stderr, r.stderr


def test_a_config_input_outside_the_repository_is_read_before_any_command_runs(tmp_path: Path):
    """A file outside the repository (a workflow step wrote it) is no pull-request content: it applies, as it was
    when the run started; an install command rewriting it changes nothing."""
    repo = _policy_pair(tmp_path, None, None)
    outside = tmp_path / "ci-policy" / "sa.toml"
    outside.parent.mkdir()
    outside.write_text('fail_on = "info"\n', encoding="utf-8")
    r = _policy_run(tmp_path, repo, config=str(outside), install_command=REWRITE.format(path=outside))
    assert r.code == 1 and "(fail-on: info)" in r.summary.splitlines()[0], (r.stderr, r.summary)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("which", ["GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT"])
def test_a_github_file_that_cannot_be_written_is_one_error_line_and_never_a_pass(tmp_path: Path, which: str):
    """A full disk under ``$GITHUB_STEP_SUMMARY`` or ``$GITHUB_OUTPUT`` (``/dev/full``: every write is ENOSPC) was a
    traceback, with the outputs never written, and exit 1 for a gate that passed. Now: one ``::error`` line
    naming the file, the other file written, and exit 2 for the passing gate."""
    r = run_action(tmp_path, extra_env={which: "/dev/full"}, fail_on="never", **seed_inputs())
    assert r.code == 2, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr, r.stderr
    assert "::error title=schema-audit::cannot write /dev/full: No space left on device" in r.stdout, r.stdout
    if which == "GITHUB_STEP_SUMMARY":
        assert r.outputs["exit-code"] == "0" and r.outputs["passed"] == "true", r.outputs
    else:
        assert r.summary.startswith("### ✅ schema-audit diff: 13 breaking"), r.summary[:200]


def _changed_pr(tmp_path: Path, base_toml: str, change: Any) -> dict[str, Any]:
    """``_policy_pair`` whose base commits ``base_toml`` as ``.schema-audit.toml`` and ``ci/sa.toml``, and whose pull
    request's commit is what ``change(repo path)`` makes of the tree (links committed as links)."""
    repo = _policy_pair(tmp_path, base_toml, base_toml)
    path = repo["path"]
    git(path, "checkout", "-q", "main")
    (path / "ci").mkdir()
    (path / "ci" / "sa.toml").write_text(base_toml)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "ci policy")
    repo["first"] = git(path, "rev-parse", "HEAD")
    git(path, "checkout", "-q", "-B", "feature")
    change(path)
    git(path, "add", "-A")
    git(path, "commit", "-q", "--allow-empty", "-m", "pr")
    return repo


def _write(relative: str, data: str | bytes):
    def change(path: Path) -> None:
        target = path / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data.encode() if isinstance(data, str) else data)

    return change


def _folder_instead(relative: str):
    def change(path: Path) -> None:
        (path / relative).unlink()
        (path / relative).mkdir()
        (path / relative / "x").write_text('fail_on = "never"\n')

    return change


def _link_instead(relative: str, target: str):
    def change(path: Path) -> None:
        (path / relative).unlink()
        (path / relative).symlink_to(target)

    return change


@pytest.mark.parametrize(
    ("config", "change", "said"),
    [
        ("", _write(".schema-audit.toml", "fail_on = [never\n"), ".schema-audit.toml: invalid TOML"),
        ("", _write(".schema-audit.toml", 'fail_on = "never"\nsevrity = {}\n'), "did you mean severity?"),
        ("ci/sa.toml", _folder_instead("ci/sa.toml"), "is a directory, not a configuration file"),
        ("ci/sa.toml", _write("ci/sa.toml", b'fail_on = "never" # \xff\n'), "not UTF-8"),
        ("ci/sa.toml", _link_instead("ci/sa.toml", "/dev/zero"), "leaves the repository (/dev/zero)"),
    ],
)
def test_a_pull_request_configuration_that_does_not_load_is_exit_2_never_the_defaults(
    tmp_path: Path, config: str, change: Any, said: str
):
    """The pull request's own file is there but does not load (invalid TOML, an unknown key, a folder in its place,
    not UTF-8, a link to ``/dev/zero``): it was frozen as the defaults and applied with nothing compared, so the
    base's ``fail_on = "info"`` was lost (exit 0, no Policy section; ``/dev/zero`` filled memory). Now exit 2 with
    one line naming the pull request's configuration, as the CLI says of an invalid file."""
    repo = _changed_pr(tmp_path, 'fail_on = "info"\n', change)
    r = _policy_run(tmp_path, repo, config=config)
    assert r.code == 2, (r.stdout, r.stderr, r.summary)
    line = r.stdout.strip()
    assert line.startswith("::error title=schema-audit::the pull request's configuration: "), r.stdout
    assert said in line and "\n" not in line and "Traceback" not in r.stderr, (line, r.stderr)


def test_an_absolute_config_input_whose_file_the_pull_request_made_a_link_is_still_its_file(tmp_path: Path):
    """``config: ${{ github.workspace }}/ci/sa.toml`` and the pull request makes ``ci/sa.toml`` a link to ``/dev/null``:
    the path was resolved through the link, landed outside the repository and passed for the workflow's own file,
    applied with nothing compared (exit 0). Inside or outside is now decided from the path as written: the pull
    request's file, a link out of the checkout, exit 2. A link to nothing is exit 2 too (only a deleted file is
    the defaults)."""
    repo = _changed_pr(tmp_path, 'fail_on = "info"\n', _link_instead("ci/sa.toml", "/dev/null"))
    r = _policy_run(tmp_path, repo, config=str(repo["path"] / "ci" / "sa.toml"))
    assert r.code == 2, (r.stdout, r.stderr, r.summary)
    said = "::error title=schema-audit::the pull request's configuration: ci/sa.toml: a symbolic link on its way"
    assert r.stdout.startswith(said + " leaves the repository (/dev/null)"), r.stdout
    gone = _changed_pr(tmp_path / "gone", 'fail_on = "info"\n', _link_instead("ci/sa.toml", "../nothing.toml"))
    r = _policy_run(tmp_path / "gone", gone, config=str(gone["path"] / "ci" / "sa.toml"))
    assert r.code == 2 and "cannot read: No such file or directory" in r.stdout, (r.stdout, r.stderr)


@pytest.mark.parametrize(("config", "target"), [("", "/etc/hostname"), ("ci/sa.toml", "../../outside.toml")])
def test_a_pull_request_configuration_linked_out_of_the_checkout_is_exit_2(tmp_path: Path, config: str, target: str):
    """The pull request's file a link out of the checkout (the runner's own files, or the workspace next to it):
    refused like such a link in the base revision, before anything is read (it was read, and a file that did not
    parse as a configuration was quoted in errors)."""
    (tmp_path / "outside.toml").write_text('fail_on = "never"\n')
    relative = config or ".schema-audit.toml"
    repo = _changed_pr(tmp_path, 'fail_on = "info"\n', _link_instead(relative, target))
    r = _policy_run(tmp_path, repo, config=config)
    assert r.code == 2, (r.stdout, r.stderr, r.summary)
    said = f"::error title=schema-audit::the pull request's configuration: {relative}: a symbolic link on its way"
    assert r.stdout.startswith(said + " leaves the repository ("), r.stdout


def test_an_absolute_config_input_through_the_workflows_own_link_to_the_workspace_is_inside(tmp_path: Path):
    """A workflow that reaches its workspace through a link of its own (``/tmp/ws`` → the checkout) names the pull
    request's file all the same: the folders above the repository are resolved, the ones inside are not."""
    repo = _changed_pr(tmp_path, 'fail_on = "info"\n', _write("ci/sa.toml", 'fail_on = "never"\n'))
    alias = tmp_path / "alias"
    alias.symlink_to(repo["path"])
    r = _policy_run(tmp_path, repo, config=str(alias / "ci" / "sa.toml"))
    assert r.code == 1 and "(fail-on: info)" in r.summary.splitlines()[0], (r.stdout, r.stderr, r.summary)
    assert "fail_on info → never" in r.stderr, r.stderr


@pytest.mark.parametrize("made", ["missing", "folder"])
def test_a_config_input_outside_the_repository_that_cannot_be_read_is_exit_2(tmp_path: Path, made: str):
    """The workflow's own file outside the repository missing or a folder: it was frozen as the defaults and
    applied (exit 0, whatever the base's policy); now exit 2 naming it."""
    repo = _policy_pair(tmp_path, 'fail_on = "info"\n', 'fail_on = "info"\n')
    outside = tmp_path / "ci-policy" / "sa.toml"
    if made == "folder":
        outside.mkdir(parents=True)
    r = _policy_run(tmp_path, repo, config=str(outside))
    assert r.code == 2, (r.stdout, r.stderr, r.summary)
    assert r.stdout.startswith(f"::error title=schema-audit::the config input's file: cannot read config {outside}")


def _event_run(tmp_path: Path, repo_path: Path, name: str, event: dict[str, Any], **inputs: str):
    tmp_path.mkdir(parents=True, exist_ok=True)
    return run_action(
        tmp_path,
        cwd=repo_path,
        event=event,
        extra_env={"GITHUB_EVENT_NAME": name},
        output_dir=str(tmp_path / "out"),
        **seed_inputs(),
        **inputs,
    )


def test_a_merge_group_reads_the_gate_policy_from_its_base(policy_repo: dict[str, Any], tmp_path: Path):
    """On ``merge_group`` events the pull request's own file decided the gate (``fail_on = "never"``: 13 breaking,
    exit 0, no policy line): only ``pull_request`` events were looked at. The merge group's ``base_sha`` is the
    base now, as the pull request's is."""
    event = {"merge_group": {"base_sha": policy_repo["first"], "base_ref": "refs/heads/main", "head_sha": "x"}}
    r = _event_run(tmp_path, policy_repo["path"], "merge_group", event)
    assert r.code == 1 and r.outputs["breaking"] == "13", (r.stderr, r.summary)
    assert "policy: the pull request lowers the gate (not applied): fail_on breaking → never" in r.stderr


def test_a_shallow_fetch_of_the_base_branch_reads_the_policy_from_its_tip(policy_repo: dict[str, Any], tmp_path: Path):
    """``git fetch --depth=1 origin main`` (docs/ci.md's alternative to ``fetch-depth: 0``) leaves no merge base: the
    pull request's file applied with nothing said. The event's base sha is in the clone: its policy decides."""
    clone = tmp_path / "shallow"
    url = f"file://{policy_repo['path']}"
    subprocess.run(["git", "clone", "-q", "--depth=1", "--branch", "feature", url, str(clone)], check=True)
    subprocess.run(
        ["git", "fetch", "-q", "--depth=1", "origin", "main:refs/remotes/origin/main"], cwd=clone, check=True
    )
    assert subprocess.run(["git", "merge-base", "HEAD", "origin/main"], cwd=clone, capture_output=True).returncode
    event = {"pull_request": {"number": 3, "labels": [], "base": {"ref": "main", "sha": policy_repo["first"]}}}
    r = _event_run(tmp_path / "run", clone, "pull_request", event)
    assert r.code == 1 and r.outputs["breaking"] == "13", (r.stderr, r.summary)
    assert "the gate uses the base revision's configuration (the tip of main the event names)" in html.unescape(
        r.summary
    )


def test_a_pull_request_whose_base_is_not_in_the_clone_fails_closed(policy_repo: dict[str, Any], tmp_path: Path):
    """A clone of the pull request's commit alone (``actions/checkout``'s default depth): no base revision to read
    the policy from. It was the pull request's own file, silently; now exit 2 naming the fix, unless the workflow
    chose ``policy: pull-request``."""
    clone = tmp_path / "alone"
    url = f"file://{policy_repo['path']}"
    subprocess.run(["git", "clone", "-q", "--depth=1", "--branch", "feature", url, str(clone)], check=True)
    event = {"pull_request": {"number": 3, "labels": [], "base": {"ref": "main", "sha": policy_repo["first"]}}}
    for name in ("pull_request", "merge_group"):
        if name == "merge_group":
            event = {"merge_group": {"base_sha": policy_repo["first"], "base_ref": "refs/heads/main"}}
        r = _event_run(tmp_path / name, clone, name, event)
        assert r.code == 2 and r.outputs.get("passed") != "true", (r.stderr, r.summary)
        said = r.stdout + r.stderr + r.summary
        assert "the gate's policy is read from the base revision, which is not in this clone" in said, said
        assert "fetch-depth: 0" in said and "Traceback" not in said
    trusted = _event_run(
        tmp_path / "trusted", clone, "pull_request", {"pull_request": {"number": 3}}, policy="pull-request"
    )
    assert trusted.code == 0 and "fail-on never" in trusted.summary, (trusted.stderr, trusted.summary)  # its own
