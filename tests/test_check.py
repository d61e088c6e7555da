"""``schema-audit check``: the pull-request check in one local command, in a temporary git repository with two
commits of a real MCP server (release 1 on ``main``, release 2 on ``feature``, no committed snapshot); and the
crash messages of a server that does not start (the line that names the error kept, the whole stderr under
``-v``, the full command in the progress line), in the CLI and in the Action's annotation."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import PYTHON, SERVERS, free_port
from test_action import SEED, run_action
from test_action_zero_setup import BUILD, COMMAND, INSTALL, WRAPPER, worktrees
from test_action_zero_setup import repo as repo  # noqa: F401  (the fixture: a repository with two releases)

from mcp_schema_audit.outputlines import error_line, quote_output

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
BREAKING = {"prompt-removed", "prompt-argument-required-added", "resource-template-uri-changed"}


def cli(*args: str, cwd: Path, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcp_schema_audit", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


def test_check_builds_the_base_ref_captures_both_and_diffs(repo: dict[str, Any], tmp_path: Path):
    (repo["path"] / "installed.txt").unlink(missing_ok=True)
    keep = tmp_path / "kept"
    r = cli(
        "check",
        "--base-ref",
        "main",
        "--install-command",
        INSTALL,
        "--build-command",
        BUILD,
        "--keep",
        str(keep),
        "--format",
        "json",
        "--",
        *COMMAND.split(),
        cwd=repo["path"],
    )
    assert r.returncode == 1, r.stderr
    report = json.loads(r.stdout)
    assert {f["rule"] for f in report["findings"]} >= BREAKING
    assert report["old"]["label"] == "main" and report["new"]["label"] == "head"
    assert json.loads((keep / "base.json").read_text())["server"]["version"] == "1.0.0"
    assert json.loads((keep / "head.json").read_text())["server"]["version"] == "2.0.0"
    # set up on both sides, the base's worktree removed; the progress line names the whole command
    assert "install-command in the base (base-ref main)" in r.stderr and "in the current checkout" in r.stderr
    assert f"capturing from {COMMAND}" in r.stderr
    for side in ("base", "head"):  # and what each capture holds
        snap = json.loads((keep / f"{side}.json").read_text())
        assert f"snapshot of the {side}: {len(snap['tools'])} tool" in r.stderr, r.stderr
    assert (repo["path"] / "installed.txt").is_file()
    assert worktrees(repo["path"]) == [f"worktree {repo['path']}"]


def test_check_finds_what_the_action_finds(repo: dict[str, Any], tmp_path: Path):
    """One flow: the Action's zero-setup gate and the local command report the same findings."""
    local = cli(
        "check",
        "--base-ref",
        repo["first"],
        "--build-command",
        BUILD,
        "-f",
        "json",
        "--",
        *COMMAND.split(),
        cwd=repo["path"],
    )
    action = run_action(
        tmp_path,
        cwd=repo["path"],
        base_ref=repo["first"],
        command=COMMAND,
        build_command=BUILD,
        output_dir=str(tmp_path / "out"),
    )
    assert local.returncode == action.code == 1, (local.stderr, action.stderr)
    mine = json.loads(local.stdout)
    theirs = json.loads((tmp_path / "out" / "schema-audit.json").read_text())
    assert [f["fingerprint"] for f in mine["findings"]] == [f["fingerprint"] for f in theirs["findings"]]


def test_check_over_http_starts_each_sides_server(repo: dict[str, Any], tmp_path: Path):
    port = free_port()
    r = cli(
        "check", "--base-ref", repo["first"], "--build-command", BUILD,
        "--start-command", f"{COMMAND} --http {port}", "--url", f"http://127.0.0.1:{port}/mcp", "--protocol", "legacy",
        "-f", "json", cwd=repo["path"],
    )  # fmt: skip
    assert r.returncode == 1, r.stderr
    assert "prompt-removed" in {f["rule"] for f in json.loads(r.stdout)["findings"]}
    for side in ("base", "head"):  # a progress line for each side's start-command, as for install and build
        assert f"{side} server: {COMMAND} --http {port} (waiting for 127.0.0.1:{port})" in r.stderr, r.stderr
    import socket

    with socket.socket() as sock:
        assert sock.connect_ex(("127.0.0.1", port)) != 0  # both servers were stopped


def test_check_compares_two_live_servers(repo: dict[str, Any], tmp_path: Path):
    git_show = subprocess.run(
        ["git", "show", f"{repo['first']}:src/server.py"], cwd=repo["path"], capture_output=True, text=True, check=True
    )
    old = tmp_path / "old_server.py"
    old.write_text(git_show.stdout)
    r = cli(
        "check", "--base-command", f"{PYTHON} {old}", "--head-command", f"{PYTHON} src/server.py",
        "-f", "json", cwd=repo["path"],
    )  # fmt: skip
    assert r.returncode == 1, r.stderr
    report = json.loads(r.stdout)
    assert {f["rule"] for f in report["findings"]} >= BREAKING and report["old"]["label"] == "base"
    same = cli("check", "-b", f"{PYTHON} {old}", "-t", f"{PYTHON} {old}", "-f", "json", cwd=tmp_path)  # short forms
    assert same.returncode == 0 and json.loads(same.stdout)["findings"] == [], same.stderr


def test_check_against_a_stored_snapshot(tmp_path: Path):
    for version in (1, 2):
        (tmp_path / f"v{version}.py").write_text(
            WRAPPER.format(version=version, server=str(SERVERS / "surface_server.py"))
        )
    made = cli("snapshot", "--out", "v1.json", "--label", "v1", "--", PYTHON, "v1.py", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    r = cli("check", "--base", "v1.json", "-f", "json", "--", PYTHON, "v2.py", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    report = json.loads(r.stdout)
    assert report["old"]["label"] == "v1" and {f["rule"] for f in report["findings"]} >= BREAKING
    # the sides named as diff names them (a first-hour user's release notes read "base-1e99a432ac48 → head")
    named = cli(
        "check", "--base", "v1.json", "--old-label", "cached", "--new-label", "pr", "-f", "json",
        "--", PYTHON, "v2.py", cwd=tmp_path,
    )  # fmt: skip
    assert named.returncode == 1, named.stderr
    report = json.loads(named.stdout)
    assert (report["old"]["label"], report["new"]["label"]) == ("cached", "pr")
    # diff's version gate and time guard, as flags (they were config keys only): 1.0.0 served against a cached
    # 2.0.0 with breaking changes is no major bump
    gated = cli(
        "check", "--base", "v1.json", "--version-gate", "semver", "-f", "json", "--", PYTHON, "v1.py", cwd=tmp_path
    )
    assert gated.returncode == 0 and json.loads(gated.stdout)["findings"] == [], gated.stderr
    made = cli("snapshot", "--out", "v2.json", "--label", "v2", "--", PYTHON, "v2.py", cwd=tmp_path)
    gated = cli(
        "check", "--base", "v2.json", "--version-gate", "semver", "-f", "json", "--", PYTHON, "v1.py", cwd=tmp_path
    )
    assert gated.returncode == 1 and made.returncode == 0, gated.stderr
    assert "version-bump-too-small" in {f["rule"] for f in json.loads(gated.stdout)["findings"]}
    bad = cli("check", "--base", "v2.json", "--time-budget", "-1", "--", PYTHON, "v1.py", cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.strip().endswith(
        "--time-budget must be a number of seconds ≥ 0 (got -1.0)"
    )
    assert "capturing" not in bad.stderr  # a usage error before anything starts


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--", "x"], "give the base once: --base-ref REV"),
        (["--base-ref", "main"], "give the current server"),
        (["--base-ref", "main", "--head-command", "a", "--", "b"], "give the current server once"),
        (["--base-ref", "main", "--base", "x.json", "--", "b"], "(got --base-ref and --base)"),
        (
            ["--base-ref", "no-such-rev", "--", "b"],
            "--base-ref: revision 'no-such-rev' not found in this repository (fetch it first: git fetch)",
        ),
        (["--base-ref", "main", "--url", "http://127.0.0.1:9/mcp"], "give start-command"),
        (["--base-command", "a", "--start-command", "s", "--", "b"], "--start-command starts the --url/--sse server"),
        (["--base-command", "'unclosed", "--", "b"], "--base-command: No closing quotation"),
    ],
)
def test_check_usage_errors_are_one_line_exit_2(repo: dict[str, Any], args: list[str], message: str):
    r = cli("check", *args, cwd=repo["path"])
    assert r.returncode == 2, r.stderr
    assert message in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert worktrees(repo["path"]) == [f"worktree {repo['path']}"]


def test_check_base_ref_outside_a_git_repository_says_so(tmp_path: Path):
    """Outside a git work tree the line says that, and names check's own options (not the Action's input or
    actions/checkout's fetch-depth)."""
    folder = tmp_path / "not-a-repo"
    folder.mkdir()
    r = cli("check", "--base-ref", "main", "--", "b", cwd=folder)
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip().splitlines() == [
        f"schema-audit: error: not a git repository: {folder} (--base-ref needs the server's git checkout: run it "
        "there, or give the base with --base SNAPSHOT)"
    ]


def test_a_failing_build_is_exit_3_with_the_error_line(repo: dict[str, Any]):
    build = "echo compiling; echo 'src/a.ts(3,1): error TS2322: bad type' >&2; for i in 1 2 3 4 5 6; do echo $i; done"
    build += "; exit 2"
    r = cli("check", "--base-ref", "main", "--build-command", build, "--", *COMMAND.split(), cwd=repo["path"])
    assert r.returncode == 3, r.stderr
    assert "build-command in the base" in r.stderr and "error TS2322: bad type | … | 2 | 3 | 4 | 5 | 6" in r.stderr
    assert worktrees(repo["path"]) == [f"worktree {repo['path']}"]


def test_an_unbuilt_base_names_the_setup_options(repo: dict[str, Any]):
    """``check --base-ref`` without --build-command: the base's server file is missing (git does not track dist/),
    and the hint names the options that would make it; with an install command given, only the build's."""
    r = cli("check", "--base-ref", "main", "--", *COMMAND.split(), cwd=repo["path"])
    assert r.returncode == 3 and "No such file or directory" in r.stderr, r.stderr
    assert "give --install-command and --build-command (e.g. 'npm ci' and 'npm run build')" in r.stderr, r.stderr
    r = cli("check", "--base-ref", "main", "--install-command", INSTALL, "--", *COMMAND.split(), cwd=repo["path"])
    assert r.returncode == 3 and "give --build-command (e.g. 'npm run build')" in r.stderr, r.stderr
    # a build whose compiler an install would have put there (sh: tsc: not found) names the install
    build = "no-such-compiler-tsc --project ."
    r = cli("check", "--base-ref", "main", "--build-command", build, "--", *COMMAND.split(), cwd=repo["path"])
    assert r.returncode == 3 and "not found" in r.stderr, r.stderr
    assert "give --install-command (e.g. 'npm ci')" in r.stderr, r.stderr
    assert worktrees(repo["path"]) == [f"worktree {repo['path']}"]


# --- crash messages ------------------------------------------------------------------------------------------------

NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_node_crash_keeps_its_error_line_and_v_prints_the_whole_stderr(tmp_path: Path):
    missing = tmp_path / "dist" / "index.js"
    r = cli("snapshot", "--out", str(tmp_path / "s.json"), "--", "node", str(missing), "--port", "0", cwd=tmp_path)
    assert r.returncode == 3
    error = r.stderr.strip().splitlines()[-1]
    assert f"Error: Cannot find module '{missing}'" in error and "Node.js v" in error, r.stderr
    assert f"from node {missing} --port 0 …" in r.stderr  # the whole command, not "node …"
    assert "at Module._resolveFilename" not in r.stderr  # the stack stays out of the one line…
    verbose = cli("snapshot", "-v", "--out", str(tmp_path / "s.json"), "--", "node", str(missing), cwd=tmp_path)
    assert verbose.returncode == 3 and "server stderr:" in verbose.stderr
    assert "Module._resolveFilename" in verbose.stderr  # … and shows under -v


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_node_fetch_failure_keeps_its_error_line(tmp_path: Path):
    script = tmp_path / "index.js"
    script.write_text(
        "fetch('http://127.0.0.1:9/').catch((e) => { console.error(e); process.exit(1); });\n", encoding="utf-8"
    )
    r = cli("snapshot", "--out", str(tmp_path / "s.json"), "--", "node", str(script), cwd=tmp_path)
    assert r.returncode == 3 and "TypeError: fetch failed" in r.stderr.strip().splitlines()[-1], r.stderr


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_node_syntax_error_keeps_the_file_and_line(tmp_path: Path):
    """A SyntaxError names no file: Node prints ``FILE:LINE`` and the source line before it. The one line keeps
    them (it kept four of Node's internal stack frames and left them out)."""
    script = tmp_path / "server.mjs"
    script.write_text("const a = 1;\nconsole.log((a;\n", encoding="utf-8")
    r = cli("snapshot", "--out", str(tmp_path / "s.json"), "--", "node", str(script), cwd=tmp_path)
    error = r.stderr.strip().splitlines()[-1]
    assert r.returncode == 3 and "SyntaxError: " in error, r.stderr
    assert f"(at file://{script}:2: console.log((a;)" in error, error  # an ES module: a file URL


def test_a_server_that_writes_noise_and_hangs_is_told_about_its_stdout(tmp_path: Path):
    """A timeout after text on stdout that is not JSON-RPC names that text and the stdout advice; it said "try
    --protocol legacy", which times out the same way."""
    script = tmp_path / "noisy.py"
    script.write_text("import time\nprint('hello world, not json', flush=True)\ntime.sleep(120)\n", encoding="utf-8")
    out = tmp_path / "s.json"
    r = cli("snapshot", "--timeout", "4", "--out", str(out), "--", sys.executable, str(script), cwd=tmp_path)
    error = r.stderr.strip().splitlines()[-1]
    assert r.returncode == 3 and "that are not JSON-RPC: 'hello world, not json'" in error, r.stderr
    assert "does it log to stderr?" in error and "--protocol legacy" not in error, error


def test_python_crash_keeps_the_exception_line(tmp_path: Path):
    script = tmp_path / "server.py"
    script.write_text(
        "import logging, sys\n"
        "for i in range(8):\n    print(f'starting step {i}', file=sys.stderr)\n"
        "def load():\n    import no_such_module_xyz\n"
        "try:\n    load()\nexcept ImportError as e:\n    raise RuntimeError('cannot load the tools') from e\n",
        encoding="utf-8",
    )
    r = cli("snapshot", "--out", str(tmp_path / "s.json"), "--", PYTHON, str(script), cwd=tmp_path)
    assert r.returncode == 3
    assert "RuntimeError: cannot load the tools" in r.stderr.strip().splitlines()[-1], r.stderr


def test_a_variable_set_here_but_not_passed_names_env(tmp_path: Path):
    """The SDK passes a stdio server only a few variables: a server that exits on one it needs, set in the caller's
    environment, gets the hint to pass it with --env (its name only, never its value); passed, it starts."""
    import os

    script = tmp_path / "server.py"
    script.write_text("import os\nos.environ['SA_TEST_NOTES_DB_URL']\n", encoding="utf-8")
    args = ["snapshot", "--out", str(tmp_path / "s.json"), "--", PYTHON, str(script)]
    env = {**os.environ, "SA_TEST_NOTES_DB_URL": "postgres://u:s3cretpass@db/x"}
    r = subprocess.run(
        [sys.executable, "-m", "mcp_schema_audit", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 3 and "KeyError: 'SA_TEST_NOTES_DB_URL'" in r.stderr, r.stderr
    assert "SA_TEST_NOTES_DB_URL is set here but not passed to the server" in r.stderr, r.stderr
    assert "give --env SA_TEST_NOTES_DB_URL=…" in r.stderr and "s3cretpass" not in r.stderr
    plain = cli(*args, cwd=tmp_path)  # not set here: no such hint
    assert plain.returncode == 3 and "set here but not passed" not in plain.stderr, plain.stderr


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_actions_annotation_keeps_the_error_line(tmp_path: Path):
    missing = tmp_path / "dist" / "index.js"
    r = run_action(tmp_path, base=str(SEED / "0.2.5.json"), command=f"node {missing}")
    assert r.code == 3
    error = [ln for ln in r.stdout.splitlines() if ln.startswith("::error")]
    assert len(error) == 1 and "Error: Cannot find module" in error[0], r.stdout
    assert "Error: Cannot find module" in r.summary


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Python: the exception raised last, after its traceback (not the first "…Error:" in a chained one)
        (
            "Traceback (most recent call last):\n  File 'a'\nKeyError: 'x'\n\nDuring handling…\n"
            "Traceback (most recent call last):\n  File 'b'\nValueError: bad\n",
            "ValueError: bad",
        ),
        ("node:internal/x:1\n throw err;\n ^\nError [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod'\n at x\n",
         "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod'"),
        ("Uncaught TypeError: fetch failed\n  at y\n", "Uncaught TypeError: fetch failed"),
        ("npm error code ENOENT\nnpm error path /x\n", "npm error code ENOENT"),
        ("> tsc\nsrc/a.ts(3,1): error TS2322: bad\n", "src/a.ts(3,1): error TS2322: bad"),
        ("all fine\nstill fine\n", None),
    ],
)  # fmt: skip
def test_error_line(text: str, expected: str | None):
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    found = error_line(lines)
    assert (lines[found] if found is not None else None) == expected


def test_quote_output_masks_secrets_and_bounds_lines():
    text = "Error: token s3cr3t refused\n" + "".join(f"line {i} " + "x" * 300 + "\n" for i in range(9))
    quoted = quote_output(text, secrets=("s3cr3t",))
    assert quoted.startswith("Error: token *** refused | … | line 4 ") and "s3cr3t" not in quoted
    assert all(len(part) <= 160 for part in quoted.split(" | "))


def test_quote_output_puts_a_python_error_line_first():
    """Python's error line ends its traceback, among the last lines: it is quoted first all the same (once), as
    Node's is, so the one-line error starts with what went wrong."""
    text = "Traceback (most recent call last):\n  File 'server.py', line 3\n    import missing\n"
    text += "ModuleNotFoundError: x\n"
    assert quote_output(text) == (
        "ModuleNotFoundError: x | Traceback (most recent call last): | File 'server.py', line 3 | import missing"
    )


def test_quote_output_keeps_the_rest_of_a_python_exception_message(tmp_path: Path):
    """A server whose settings fail pydantic's validation at start (the real pydantic, run as a server would run):
    its exception names each field on the lines after its first one, and only the last five lines were quoted, so
    the first field (``api_url``) was cut off behind ``…``. The lines after the error line are quoted now."""
    script = tmp_path / "settings.py"
    script.write_text(
        "from pydantic import BaseModel\n\nclass Settings(BaseModel):\n    api_url: str\n    port: int\n\n"
        "Settings(port='x')\n"
    )
    run = subprocess.run([PYTHON, str(script)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 1 and "Traceback (most recent call last):" in run.stderr, run.stderr
    quoted = quote_output(run.stderr)
    assert quoted.startswith(
        "pydantic_core._pydantic_core.ValidationError: 2 validation errors for Settings | api_url | "
    ), quoted
    assert " | port | " in quoted and "Input should be a valid integer" in quoted, quoted


def test_check_applies_the_tool_filter_as_diff_does(tmp_path: Path):
    """The config file's ``exclude_tools`` (and ``--tool``) scope ``check`` exactly as they scope ``diff``: the same
    findings and the same note from the same two servers (tests/servers/release_server.py, releases 1 and 2)."""
    release = str(SERVERS / "release_server.py")
    k = tmp_path / "k"
    sides = ["-b", f"{PYTHON} {release} --version 1", "-t", f"{PYTHON} {release} --version 2", "-f", "json"]
    full = json.loads(cli("check", *sides, "--keep", str(k), cwd=tmp_path).stdout)
    tools = sorted({f["tool"] for f in full["findings"] if f["surface"] == "tool" and f["tool"]})
    assert len(tools) >= 2, tools
    config = tmp_path / "filter.toml"
    config.write_text(f'exclude_tools = ["{tools[0]}"]\n')
    checked = json.loads(cli("check", *sides, "--config", str(config), cwd=tmp_path).stdout)
    diffed = cli(
        "diff", str(k / "base.json"), str(k / "head.json"), "-f", "json", "--config", str(config), cwd=tmp_path
    )
    b = json.loads(diffed.stdout)
    assert tools[0] not in {f["tool"] for f in checked["findings"]}
    assert [f["fingerprint"] for f in checked["findings"]] == [f["fingerprint"] for f in b["findings"]]
    assert any(n.startswith("tool filter") for n in checked["notes"]) and checked["notes"] == b["notes"]
    only = json.loads(cli("check", *sides, "--tool", tools[1], cwd=tmp_path).stdout)
    assert {f["tool"] for f in only["findings"] if f["surface"] == "tool"} == {tools[1]}


def test_a_base_ref_that_is_only_a_remote_branch_names_it(tmp_path: Path):
    """In a clone on another branch, ``main`` exists only as ``origin/main``: ``git fetch`` would not make it, so
    the line names the remote-tracking branch (check's --base-ref and diff's git: input alike)."""
    up = tmp_path / "up"
    up.mkdir()
    git = ["git", "-c", "user.email=a@b", "-c", "user.name=a", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q", str(up)], check=True)
    (up / "tools.json").write_text("[]", encoding="utf-8")
    subprocess.run([*git, "-C", str(up), "add", "."], check=True)
    subprocess.run([*git, "-C", str(up), "commit", "-qm", "one"], check=True)
    clone = tmp_path / "clone"
    subprocess.run([*git, "clone", "-q", str(up), str(clone)], check=True)
    subprocess.run([*git, "-C", str(clone), "checkout", "-q", "-b", "feature"], check=True)
    subprocess.run([*git, "-C", str(clone), "branch", "-q", "-D", "main"], check=True)
    r = cli("check", "--base-ref", "main", "--", "b", cwd=clone)
    assert r.returncode == 2 and r.stderr.strip().splitlines() == [
        "schema-audit: error: --base-ref: revision 'main' not found in this repository (did you mean 'origin/main'? "
        "'main' is only a remote-tracking branch here)"
    ], r.stderr
    r = cli("diff", "git:main:tools.json", "tools.json", cwd=clone)
    assert r.returncode == 2 and "write git:origin/main:tools.json" in r.stderr, r.stderr


def test_check_sets_up_the_current_checkout_only_after_the_base_is_captured(repo: dict[str, Any], tmp_path: Path):
    """As the Action: a build writing outside the checkout cannot replace the base's server before its capture."""
    shared = tmp_path / "shared"
    build = f"mkdir -p {shared} && cp src/server.py {shared / 'server.py'}"
    r = cli(
        "check",
        "--base-ref",
        "main",
        "--build-command",
        build,
        "-f",
        "json",
        "--",
        PYTHON,
        str(shared / "server.py"),
        cwd=repo["path"],
    )
    assert r.returncode == 1, r.stderr
    report = json.loads(r.stdout)
    assert {f["rule"] for f in report["findings"]} >= BREAKING
    assert r.stderr.index("build-command in the base") < r.stderr.index("snapshot of the base")
    assert r.stderr.index("snapshot of the base") < r.stderr.index("build-command in the current checkout")


def test_an_unbuilt_python_base_gets_a_python_install_hint():
    """A Python server whose base checkout lacks its virtual environment (git does not track .venv) or a module
    is told to make one, not to run npm (a new user's ``check --base-ref HEAD~1 -- .venv/bin/python server.py``)."""
    from mcp_schema_audit.prcheck.sides import unbuilt_hint

    def spell(key: str) -> str:
        return f"--{key}"

    for message in ("command not found: .venv/bin/python", "ModuleNotFoundError: No module named 'mcp'"):
        hint = unbuilt_hint(message, [], spell) or ""
        assert hint.startswith("give --install-command (e.g. 'python3 -m venv .venv && .venv/bin/pip install -e .')")
        assert "npm" not in hint
    node = unbuilt_hint("Error: Cannot find module 'zod'", [], spell) or ""
    assert node.startswith("give --install-command and --build-command (e.g. 'npm ci' and 'npm run build')")
    # the user's own venv, named relative to the folder: the other way is its absolute path
    relative = unbuilt_hint("command not found: venv/bin/python", [], spell) or ""
    tail = "a relative command is resolved in the base's checkout, where the virtual environment is not"
    assert relative.endswith("or give the interpreter as an absolute path ('$PWD/venv/bin/python' from here): " + tail)
    assert "absolute path" not in (unbuilt_hint("command not found: /srv/venv/bin/python", [], spell) or "")
    assert "absolute path" not in node
