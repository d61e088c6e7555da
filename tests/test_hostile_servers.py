"""Hostile stdio servers through the real CLI: exit 3 with one line within ``--timeout`` + ``SHUTDOWN_GRACE_S``,
and nothing the server started (its group, children that called ``setsid()``) left running.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest
from conftest import PYTHON, ROOT
from hostile_cli import SHUTDOWN_GRACE_S, Run, assert_clean_failure, cli, stdio_server
from timing import until_reached

pytestmark = pytest.mark.timing  # bounds on time (``hostile_cli``): run by scripts/under_load.py

# ---- hostile servers: exit 3, one line, bounded, nothing left running ----------------------------


STDIO_CASES: dict[str, tuple[list[str], list[str], str, float]] = {
    # case: (snapshot options, server command, expected error, timeout); "{t}": the timeout of the attempt
    "never-answers": (["--timeout", "{t}"], stdio_server("silent"), r"timed out after {t} s during the handshake", 3),
    "garbage-stdout": (["--timeout", "{t}"], stdio_server("garbage"), r"timed out after {t} s.*not JSON-RPC", 3),
    "exits-mid-handshake": (
        ["--timeout", "20"],
        stdio_server("exit-handshake"),
        r"server exited during the handshake \(exit status 1\): hostile: FATAL cannot load config",
        20,
    ),
    "tools-list-error": (
        ["--timeout", "20"],
        stdio_server("list-error"),
        r"tools/list \(page 1\) failed: JSON-RPC error -32603: tool registry unavailable",
        20,
    ),
    # the codes the SDK also gives a closed connection and a timeout: the server's own error, its message kept
    "tools-list-error-32000": (
        ["--timeout", "20"],
        stdio_server("list-error", "--error-code", "-32000"),
        r"tools/list \(page 1\) failed: JSON-RPC error -32000: tool registry unavailable",
        20,
    ),
    "tools-list-error-32001": (
        ["--timeout", "20"],
        stdio_server("list-error", "--error-code", "-32001"),
        r"tools/list \(page 1\) failed: JSON-RPC error -32001: tool registry unavailable",
        20,
    ),
    "cursor-repeats": (["--timeout", "20"], stdio_server("cursor-repeat"), r"repeated cursor 'again'", 20),
    "endless-pages": (["--timeout", "20", "--max-pages", "5"], stdio_server("endless-pages"), r"more than 5 pages", 20),
    "tools-list-100MB": (
        ["--timeout", "{t}"],
        stdio_server("huge", "--huge-mb", "100"),
        r"timed out after {t} s|too large",
        8,
    ),
    "duplicate-tool-names": (["--timeout", "20"], stdio_server("bad-tools"), r"duplicate tool name 'dup'", 20),
    "tools-not-a-list": (["--timeout", "20"], stdio_server("not-a-list"), r"no 'tools' list", 20),
    # the SDK drops a reply it cannot parse: the capture names it at once instead of waiting out --timeout 30
    "lone-surrogate-name": (
        ["--timeout", "30"],
        stdio_server("surrogate"),
        r"reply to tools/list cannot be read by an MCP client \(Invalid JSON: .*surrogate",
        4,
    ),
    # --timeout above the budget: the run must end with the error, not at a deadline its start-up spent
    "command-not-found": (["--timeout", "30"], ["--", "schema-audit-no-such-server-x"], r"command not found", 10),
}
#: The cases that end at their deadline, and what their error line says once the run reached the server before
#: it (the CLI's start-up counts in its --timeout: a busy machine can spend a short one before the handshake).
REACHED = {
    "never-answers": r"during the handshake",
    "garbage-stdout": r"not JSON-RPC",
    "tools-list-100MB": r"too large|during tools/list",
}


@pytest.mark.live
@pytest.mark.parametrize("case", list(STDIO_CASES))
def test_hostile_stdio_server(case: str, tmp_path: Path) -> None:
    options, command, pattern, timeout = STDIO_CASES[case]

    def attempt(t: float) -> Run:
        opts = [f"{t:g}" if o == "{t}" else o for o in options]
        return cli(
            "snapshot", "--protocol", "legacy", "--out", str(tmp_path / "snap.json"), *opts, *command, cwd=tmp_path
        )

    if case in REACHED:  # ends at its deadline: only the waits for a CPU after it delayed the end
        run, timeout = until_reached(attempt, lambda r: bool(re.search(REACHED[case], r.stderr)), timeout)
        since = timeout
    else:
        run, since = attempt(timeout), 0.0
    assert_clean_failure(run, 3, pattern.replace("{t}", f"{timeout:g}"))
    assert run.timing.unloaded(since) < timeout + SHUTDOWN_GRACE_S, f"{case}: {run.timing.describe(since)}"
    assert not (tmp_path / "snap.json").exists()


@pytest.mark.live
def test_sloppy_server_logging_to_stdout_still_works(tmp_path: Path) -> None:
    run = cli(
        "snapshot",
        "--protocol",
        "legacy",
        "--timeout",
        "20",
        "--out",
        str(tmp_path / "s.json"),
        *stdio_server("noise-then-ok"),
        cwd=tmp_path,
    )
    assert run.code == 0, run.stderr
    assert [t["name"] for t in json.loads((tmp_path / "s.json").read_text())["tools"]] == ["echo", "ping"]


@pytest.mark.live
def test_stderr_flood_does_not_fill_the_disk(tmp_path: Path) -> None:
    """A server writing stderr as fast as it can: the capture keeps a bounded tail, never a growing file.

    ``RLIMIT_FSIZE`` (inherited by the server) is 32 MiB: were its stderr a file, the server would die
    of SIGXFSZ within a second and the error would say it exited; it must run until the timeout.
    """

    def attempt(t: float) -> Run:
        return cli(
            "snapshot",
            "--protocol",
            "legacy",
            "--timeout",
            f"{t:g}",
            "--out",
            str(tmp_path / "s.json"),
            *stdio_server("stderr-flood"),
            cwd=tmp_path,
            fsize=32 * 1024 * 1024,
        )

    run, timeout = until_reached(attempt, lambda r: "server stderr: " in r.stderr, 4)  # the flood had begun
    line = assert_clean_failure(run, 3, rf"timed out after {timeout:g} s during the handshake")
    assert len(line) < 2000
    assert run.timing.unloaded(timeout) < timeout + SHUTDOWN_GRACE_S, run.timing.describe(timeout)


def _live_group_members(pgid: int) -> list[str]:
    """Processes of group ``pgid`` that are not zombies (a zombie is dead, waiting for its reaper)."""
    alive = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        state, pgrp = fields[0], int(fields[2])
        if pgrp == pgid and state not in ("Z", "X"):
            alive.append(f"{entry.name} {stat[:80]}")
    return alive


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return state[state.rindex(")") + 2] not in ("Z", "X")


@pytest.mark.live
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_server_ignoring_sigterm_with_children_is_killed(tmp_path: Path) -> None:
    def pid_file(t: float) -> Path:
        return tmp_path / f"pids-{t:g}"

    def attempt(t: float) -> tuple[Run, float]:
        run = cli(
            "snapshot",
            "--protocol",
            "legacy",
            "--timeout",
            f"{t:g}",
            "--out",
            str(tmp_path / "s.json"),
            *stdio_server("spawn-ignore-term", "--pid-file", str(pid_file(t))),
            cwd=tmp_path,
        )
        return run, t

    def started(outcome: tuple[Run, float]) -> bool:  # the server and its child were running at the deadline
        return pid_file(outcome[1]).exists() and len(pid_file(outcome[1]).read_text().split()) == 2

    try:
        (run, timeout), _ = until_reached(attempt, started, 3)
        assert_clean_failure(run, 3, rf"timed out after {timeout:g} s")
        assert run.timing.unloaded(timeout) < timeout + SHUTDOWN_GRACE_S, run.timing.describe(timeout)
        server_pid, child_pid = map(int, pid_file(timeout).read_text().split())
        assert not _alive(server_pid), "the server survived"
        assert not _alive(child_pid), "the server's child survived"
        assert _live_group_members(server_pid) == []
    finally:
        for path in tmp_path.glob("pids-*"):
            for pid in map(int, path.read_text().split()):
                if _alive(pid):
                    os.kill(pid, signal.SIGKILL)


@pytest.mark.live
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_sigterm_stops_the_run_and_its_server_like_ctrl_c(tmp_path: Path) -> None:
    """SIGTERM (``timeout``, a cancelled CI job) to schema-audit: the server that ignores SIGTERM and its child
    are stopped, nothing is written, one line 'terminated', exit 143 (the server was left running before)."""
    pid_file = tmp_path / "pids"
    env = {k: v for k, v in os.environ.items() if k != "SCHEMA_AUDIT_DEBUG"}
    env.update({"NO_COLOR": "1", "PYTHONPATH": str(ROOT)})
    proc = subprocess.Popen(
        [
            PYTHON,
            "-m",
            "mcp_schema_audit",
            "snapshot",
            "--protocol",
            "legacy",
            "--timeout",
            "60",
            "--out",
            str(tmp_path / "s.json"),
            *stdio_server("spawn-ignore-term", "--pid-file", str(pid_file)),
        ],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while not (pid_file.exists() and len(pid_file.read_text().split()) >= 2) and time.monotonic() < deadline:
            time.sleep(0.05)
        server_pid, child_pid = map(int, pid_file.read_text().split())
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=SHUTDOWN_GRACE_S + 5)
        assert proc.returncode == 143, err
        assert err.strip().splitlines()[-1] == "schema-audit: terminated" and "Traceback" not in err, err
        assert out == "" and not (tmp_path / "s.json").exists()
        assert not _alive(server_pid), "the server survived"
        assert not _alive(child_pid), "the server's child survived"
    finally:
        if proc.poll() is None:
            proc.kill()
        if pid_file.exists():
            for pid in map(int, pid_file.read_text().split()):
                if _alive(pid):
                    os.kill(pid, signal.SIGKILL)


def _pid_file_entries(pid_file: Path) -> dict[str, list[int]]:
    """``{"server": [pid], "child": [pid, pgid, sid], "grandchild": [pid]}`` as the hostile server wrote them."""
    entries: dict[str, list[int]] = {}
    for line in pid_file.read_text().splitlines():
        role, *numbers = line.split()
        entries[role] = [int(n) for n in numbers]
    return entries


def _live_session_members(sid: int) -> list[str]:
    """Processes of session ``sid`` that are not zombies."""
    alive = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2 :].split()
            if int(fields[3]) == sid and fields[0] not in ("Z", "X"):
                alive.append(f"{entry.name} {stat[:80]}")
    return alive


@pytest.mark.live
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
@pytest.mark.parametrize(("mode", "timeout", "code"), [("setsid-child", 20, 0), ("setsid-child-hang", 3, 3)])
def test_server_children_that_left_the_group_are_stopped(mode: str, timeout: int, code: int, tmp_path: Path) -> None:
    """A child that called ``setsid()`` (and its own child) escapes the SDK's process-group kill: the
    capture stops it anyway, after a clean capture (the server exits at the end of stdin) and after a
    timeout (the server and the child ignore SIGTERM); a bystander process is left alone."""

    def pid_file(t: float) -> Path:
        return tmp_path / f"pids-{t:g}"

    def attempt(t: float) -> tuple[Run, float]:
        run = cli(
            "snapshot",
            "--protocol",
            "legacy",
            "--timeout",
            f"{t:g}",
            "--out",
            str(tmp_path / "s.json"),
            *stdio_server(mode, "--pid-file", str(pid_file(t))),
            cwd=tmp_path,
        )
        return run, t

    def started(outcome: tuple[Run, float]) -> bool:  # server, child and grandchild were running at the deadline
        path = pid_file(outcome[1])
        return path.exists() and {"server", "child", "grandchild"} <= set(_pid_file_entries(path))

    bystander = subprocess.Popen([PYTHON, "-c", "import time; time.sleep(120)"], start_new_session=True)
    try:
        if code == 0:
            run, _ = attempt(timeout)
            entries = _pid_file_entries(pid_file(timeout))
            assert run.code == 0, run.stderr
            assert [t["name"] for t in json.loads((tmp_path / "s.json").read_text())["tools"]] == ["echo", "ping"]
        else:
            (run, timeout), _ = until_reached(attempt, started, timeout)
            entries = _pid_file_entries(pid_file(timeout))
            assert_clean_failure(run, 3, rf"timed out after {timeout:g} s")
            assert run.timing.unloaded(timeout) < timeout + SHUTDOWN_GRACE_S, run.timing.describe(timeout)
        (server_pid,), (child_pid, child_pgid, child_sid), (grandchild_pid,) = (
            entries["server"],
            entries["child"],
            entries["grandchild"],
        )
        assert child_sid == child_pgid == child_pid != server_pid, "the child did not leave the server's session"
        assert not _alive(server_pid), "the server survived"
        assert not _alive(child_pid), "the setsid child survived"
        assert not _alive(grandchild_pid), "the setsid child's child survived"
        assert _live_group_members(server_pid) == [] and _live_session_members(child_sid) == []
        assert bystander.poll() is None, "a process that is not the server's descendant was killed"
    finally:
        bystander.kill()
        bystander.wait()
        for path in tmp_path.glob("pids-*"):
            for numbers in _pid_file_entries(path).values():
                if _alive(numbers[0]):
                    os.kill(numbers[0], signal.SIGKILL)
