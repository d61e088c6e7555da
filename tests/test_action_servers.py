"""The zero-setup Action with HTTP servers started by a ``start-command`` written the usual CI ways: the shell
leader exits once the port is open (``server & wait-for-port``), after a sleep (``server & sleep 2``), or the
server daemonizes (forks twice, ``setsid``). Each side's server is stopped as a whole, whatever its leader did,
so the pull request's side is captured from the pull request's server, and nothing is left running. Run in a
temporary git repository with the runner's environment, as tests/test_action_zero_setup.py does."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import PYTHON, ROOT, free_port
from test_action import run_action
from test_action_zero_setup import BUILD, commit, git, worktrees

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
SERVER = f"{PYTHON} dist/server.py --http {{port}}"
WAIT_FOR_PORT = """import socket, sys, time
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=0.5).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit(1)
"""
# the classic double fork: the server ends up in a session of its own, its parent gone
DAEMONIZE = """import os, sys
if os.fork():
    sys.exit(0)
os.setsid()
if os.fork():
    os._exit(0)
os.execvp(sys.argv[1], sys.argv[1:])
"""
SHAPES = {
    "wait-for-port": f"{SERVER} & {PYTHON} tools/wait_for_port.py {{port}}",
    "sleep": f"{SERVER} & sleep 2",
    "daemonizing": f"{PYTHON} tools/daemonize.py {SERVER}",
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """``main`` holds release 1, ``feature`` (the pull request) release 2; both carry the helper scripts."""
    path = tmp_path_factory.mktemp("repo")
    git(path, "init", "-q", "-b", "main")
    (path / ".gitignore").write_text("dist/\n")
    (path / "tools").mkdir()
    (path / "tools" / "wait_for_port.py").write_text(WAIT_FOR_PORT)
    (path / "tools" / "daemonize.py").write_text(DAEMONIZE)
    first = commit(path, 1, "release 1")
    git(path, "checkout", "-q", "-b", "feature")
    commit(path, 2, "release 2")
    return {"path": path, "first": first}


def _processes_mentioning(port: int, text: str = "--http {port}") -> list[str]:
    """Command lines of live processes that name ``port`` (a server left running)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[-1].split()[0]
        except OSError:
            continue
        if text.format(port=port) in cmd and str(port) in cmd and state != "Z":
            out.append(cmd)
    return out


def _port_free(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
@pytest.mark.parametrize("shape", list(SHAPES))
def test_background_start_commands_capture_each_side_from_its_own_server(
    repo: dict[str, Any], tmp_path: Path, shape: str
):
    port = free_port()
    r = run_action(
        tmp_path,
        cwd=repo["path"],
        base_ref=repo["first"],
        url=f"http://127.0.0.1:{port}/mcp",
        start_command=SHAPES[shape].format(port=port),
        protocol="legacy",
        build_command=BUILD,
        output_dir=str(tmp_path / "out"),
    )
    assert r.code == 1, (r.stderr, r.summary)
    base = json.loads(Path(r.outputs["base-snapshot"]).read_text())
    head = json.loads(Path(r.outputs["snapshot"]).read_text())
    assert (base["server"]["version"], head["server"]["version"]) == ("1.0.0", "2.0.0")
    assert int(r.outputs["breaking"]) >= 7 and "No schema changes" not in r.summary
    assert "not by a process of start-command" not in r.stderr
    assert _port_free(port) and _processes_mentioning(port) == []
    assert worktrees(repo["path"]) == [f"worktree {repo['path']}"]


def test_a_port_already_taken_before_the_start_is_a_capture_error_naming_it(repo: dict[str, Any], tmp_path: Path):
    port = free_port()
    squatter = socket.socket()
    squatter.bind(("127.0.0.1", port))
    squatter.listen()
    try:
        r = run_action(
            tmp_path,
            cwd=repo["path"],
            base_ref=repo["first"],
            url=f"http://127.0.0.1:{port}/mcp",
            start_command=SHAPES["sleep"].format(port=port),
            build_command=BUILD,
            output_dir=str(tmp_path / "out"),
            labels=["schema-change-approved"],
        )
    finally:
        squatter.close()
    assert r.code == 3, (r.stderr, r.summary)
    assert f"port {port} on 127.0.0.1 is already in use (by pid {os.getpid()} " in r.summary
    assert r.outputs["approved"] == "false"
    assert _processes_mentioning(port) == []


def test_a_start_command_whose_server_exits_fails_the_run(repo: dict[str, Any], tmp_path: Path):
    port = free_port()
    r = run_action(
        tmp_path,
        cwd=repo["path"],
        base_ref=repo["first"],
        url=f"http://127.0.0.1:{port}/mcp",
        start_command=f"{PYTHON} -c 'import sys; sys.exit(5)' & echo started",
        build_command=BUILD,
        output_dir=str(tmp_path / "out"),
        timeout="30",
    )
    assert r.code == 3, (r.stderr, r.summary)
    assert "start-command exited with 0 and left no process running before 127.0.0.1:" in r.summary


DRIVER = """import os, sys
sys.path.insert(0, {scripts!r})
from mcp_schema_audit.prcheck import base as action_base, processes as action_servers
print(action_servers.become_subreaper(), flush=True)
with action_base.started_server({command!r}, {url!r}, {cwd!r}, dict(os.environ), "test", timeout_s=60):
    print(action_servers.listening("127.0.0.1", {port}), flush=True)
print(action_servers.listening("127.0.0.1", {port}), flush=True)
"""


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
def test_a_daemon_that_ignores_sigterm_is_killed(tmp_path: Path):
    """Under the Action: a double-forked server that ignores SIGTERM came back to the Action's process (a
    child subreaper) and is killed after the grace period; its port is free afterwards."""
    port = free_port()
    (tmp_path / "daemonize.py").write_text(DAEMONIZE)
    stubborn = (
        "import signal, socket, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
        f"s = socket.socket(); s.bind(('127.0.0.1', {port})); s.listen(); time.sleep(300)"
    )
    driver = DRIVER.format(
        scripts=str(ROOT / "scripts"),
        command=f'{PYTHON} daemonize.py {PYTHON} -c "{stubborn}"',
        url=f"http://127.0.0.1:{port}/mcp",
        cwd=str(tmp_path),
        port=port,
    )
    proc = subprocess.run([PYTHON, "-c", driver], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "True", "False"], proc.stderr
    assert _port_free(port)
    assert _processes_mentioning(port, "time.sleep(300)") == []


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
@pytest.mark.parametrize("shape", ["daemonizing", "sleep"])
def test_schema_audit_check_leaves_no_daemon_running(repo: dict[str, Any], tmp_path: Path, shape: str):
    """``schema-audit check`` was no child subreaper (only the Action's script was): a double-forked server
    went to init, out of reach of its side's stop, and kept running after ``check`` had exited."""
    port = free_port()
    proc = subprocess.run(
        [
            PYTHON, "-m", "mcp_schema_audit", "check", "--base-ref", repo["first"],
            "--url", f"http://127.0.0.1:{port}/mcp", "--start-command", SHAPES[shape].format(port=port),
            "--build-command", BUILD, "--protocol", "legacy", "--format", "json",
        ],
        cwd=repo["path"], capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["summary"]["breaking"] >= 7
    assert _port_free(port) and _processes_mentioning(port) == [], proc.stderr


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
def test_a_daemon_an_install_command_starts_is_stopped_with_the_run(tmp_path: Path):
    """A setup command's process group is stopped after it, but a daemon it double-forked (``setsid``) is in no
    group of it: it came back to the Action (a child subreaper) and kept running after the job step."""
    from test_action import seed_inputs

    (tmp_path / "daemonize.py").write_text(DAEMONIZE)
    r = run_action(
        tmp_path, install_command=f"{PYTHON} {tmp_path / 'daemonize.py'} sleep 3141 > /dev/null 2>&1", **seed_inputs()
    )
    assert r.code == 1, r.stderr
    assert _processes_mentioning(3141, "sleep {port}") == []


def test_a_daemon_holding_the_set_up_commands_output_does_not_hold_the_step(tmp_path: Path):
    """A daemon an install-command leaves running with its output inherited keeps that output open: the step
    waits for the command, not for the daemon (a pipe waited until the daemon ended, or the 1,800 s timeout),
    and the daemon is stopped with the run."""
    from test_action import seed_inputs

    (tmp_path / "daemonize.py").write_text(DAEMONIZE)
    r = run_action(
        tmp_path,
        install_command=f"echo installing; {PYTHON} {tmp_path / 'daemonize.py'} sleep 2718",
        **seed_inputs(),
    )
    assert r.code == 1, r.stderr
    assert "installing" in r.stderr
    assert _processes_mentioning(2718, "sleep {port}") == []
