"""Issue 13: the gate never passes silently, and errors say what to do (each through the real CLI).

Live tests start real servers (``tests/hostile_servers/``, ``tests/servers/``, the demo mail server); no
protocol mocks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import timing
from timing import Timing, until_reached

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "fixtures" / "seed"
HOSTILE_STDIO = ROOT / "tests" / "hostile_servers" / "stdio_server.py"
DEMO = ROOT / "fixtures" / "demo_server" / "mail_server.py"


def cli(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcp_schema_audit", *args],
        capture_output=True,
        text=True,
        cwd=cwd or ROOT,
        timeout=timeout,
    )


def error_line(r: subprocess.CompletedProcess[str], code: int) -> str:
    """The one error line of a failed run (exit ``code``), asserting that there is exactly one."""
    lines = [ln for ln in r.stderr.strip().splitlines() if not ln.startswith("schema-audit: capturing")]
    assert r.returncode == code and len(lines) == 1 and lines[0].startswith("schema-audit: error: "), r.stderr
    assert "Traceback" not in r.stderr
    return lines[0]


@pytest.mark.live
def test_pinned_protocol_against_a_handshake_era_server_is_exit_3(tmp_path: Path):
    """A server of the initialize era answers server/discover with Method not found: the pinned version was not
    negotiated, so no snapshot may record it."""
    r = cli(
        "snapshot",
        "--store",
        str(tmp_path),
        "--label",
        "x",
        "--protocol",
        "2026-07-28",
        "--",
        sys.executable,
        str(HOSTILE_STDIO),
        "--mode",
        "ok",
    )
    line = error_line(r, 3)
    assert "does not speak protocol 2026-07-28" in line and "Method not found" in line
    assert "--protocol auto" in line and "--protocol legacy" in line
    assert not (tmp_path / "snapshots" / "x.json").exists()
    r = cli(
        "snapshot",
        "--store",
        str(tmp_path),
        "--label",
        "x",
        "--protocol",
        "legacy",
        "--",
        sys.executable,
        str(HOSTILE_STDIO),
        "--mode",
        "ok",
    )
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "snapshots" / "x.json").read_text())["protocol_version"] != "2026-07-28"
    # a server that speaks 2026-07-28 still captures pinned
    r = cli(
        "snapshot",
        "--store",
        str(tmp_path),
        "--label",
        "y",
        "--protocol",
        "2026-07-28",
        "--",
        sys.executable,
        str(DEMO),
        "--version",
        "1",
    )
    assert r.returncode == 0, r.stderr
    snap = json.loads((tmp_path / "snapshots" / "y.json").read_text())
    assert snap["protocol_version"] == "2026-07-28" and snap["server"]


@pytest.mark.parametrize(
    ("toml", "where"),
    [
        ('[[ignore]]\nrule = "output-enum-value-add"\nreason = "accepted"\n', "[[ignore]] #1: "),
        ('[[allow]]\nrule = "output-enum-value-add"\nreason = "accepted"\n', "[[allow]] #1: "),
        ('[severity]\noutput-enum-value-add = "info"\n', ""),
    ],
)
def test_unknown_rule_in_the_config_is_exit_2_with_a_did_you_mean(tmp_path: Path, toml: str, where: str):
    """An [[ignore]] rule that matches no rule id never matches a finding: refused like [severity]'s."""
    (tmp_path / "c.toml").write_text(toml)
    cmd = (
        ("lint", str(SEED / "0.2.6.json"))
        if "allow" in toml
        else ("diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"))
    )
    line = error_line(cli(*cmd, "--config", str(tmp_path / "c.toml")), 2)
    assert f"c.toml: {where}unknown rule 'output-enum-value-add'; did you mean output-enum-value-added" in line
    (tmp_path / "c.toml").write_text('[[ignore]]\nrule = "output-enum-*"\nreason = "a pattern that matches"\n')
    r = cli("diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), "--config", str(tmp_path / "c.toml"))
    assert r.returncode in (0, 1) and "error" not in r.stderr, r.stderr
    (tmp_path / "c.toml").write_text('[[ignore]]\nrule = "qqqqqq"\nreason = "nothing close"\n')
    line = error_line(
        cli("diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), "--config", str(tmp_path / "c.toml")), 2
    )
    assert "unknown rule 'qqqqqq' (see 'schema-audit rules')" in line


def test_explain_suggests_the_closest_rule_ids():
    line = error_line(cli("explain", "output-enum-value-add"), 2)
    assert line.startswith(
        "schema-audit: error: unknown rule 'output-enum-value-add'; did you mean output-enum-value-added or "
    )
    line = error_line(cli("explain", "no-such-thing-at-all"), 2)
    assert line.endswith("unknown rule 'no-such-thing-at-all' (see 'schema-audit rules')")
    assert cli("explain", "output-enum-value-added").returncode == 0


@pytest.mark.parametrize(
    "args",
    [
        ["rules"],
        ["rules", "--format", "json"],
        ["explain", "output-enum-value-added"],
        ["--help"],
        ["--version"],
        ["diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), "--format", "json"],
    ],
)
def test_a_closed_pipe_ends_any_command_quietly(args: list[str]):
    """`schema-audit rules | head -1`: the reader closes the pipe before the writer is done. The run ends with
    exit 141 (128 + SIGPIPE, as `yes | head -1` shows with pipefail) and says nothing: no 'internal error'."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcp_schema_audit", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # before the interpreter has even started: every write meets a closed pipe
    stderr = proc.stderr.read()
    code = proc.wait(timeout=60)
    assert code == 141 and stderr == "", (code, stderr)


def _run_with_fds(
    args: list[str], tmp_path: Path, *, close: tuple[int, ...] = (), stdout: str | None = None
) -> tuple[int, str]:
    """Run the CLI with file descriptors ``close``d (``>&-``, ``2>&-``) or stdout at the file ``stdout``
    (``/dev/full``); returns (exit code, stderr)."""
    import os

    err = tmp_path / "stderr.txt"
    script = "exec " + " ".join([sys.executable, "-m", "mcp_schema_audit", *args])
    script += "".join(f" {fd}>&-" for fd in close) + (f" >{stdout}" if stdout else "")
    if 2 not in close:
        script += f" 2>{err}"
    code = subprocess.run(
        ["bash", "-c", script], cwd=tmp_path, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)}
    ).returncode
    return code, err.read_text() if err.exists() else ""


def test_a_closed_or_full_stdout_or_stderr_is_an_exit_code_never_a_traceback(tmp_path: Path):
    """`>&-`, `2>&-`, `>/dev/full`: the run ends with a code that tells (141: no reader, 2: no room), one line
    or none, never a traceback or exit 1 ('gate failed'); a command that writes nothing to stdout is unaffected."""
    old, new = str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json")
    code, err = _run_with_fds(["rules"], tmp_path, close=(1,))
    assert code == 141 and "Traceback" not in err, (code, err)
    code, err = _run_with_fds(["diff", old, str(tmp_path / "missing.json")], tmp_path, close=(2,))
    assert code == 2, code  # the error itself has nowhere to go; its code still says what happened
    code, err = _run_with_fds(["snapshot", "--from-file", new, "--out", str(tmp_path / "s.json")], tmp_path, close=(1,))
    assert code == 0 and (tmp_path / "s.json").is_file() and "Traceback" not in err, (code, err)
    if Path("/dev/full").exists():
        for args in (["diff", old, new, "--format", "json"], ["rules"], ["--help"]):
            code, err = _run_with_fds(args, tmp_path, stdout="/dev/full")
            assert code == 2 and "No space left on device" in err and "internal error" not in err, (args, code, err)
            assert len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["snapshot", "--out", "x.json", "--timeout", "inf", "--", "true"],
            "'--timeout': inf is more than 86400 seconds",
        ),
        (["snapshot", "--out", "x.json", "--timeout", "1e309", "--", "true"], "'--timeout': inf is more than 86400"),
        (["probe", "--auto", "--call-timeout", "inf", "--", "true"], "'--call-timeout': inf is more than 86400"),
        (["demo", "--timeout", "nan"], "'--timeout': nan is not a number of seconds"),
        (["diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), "--output", ""], "--output needs a file name"),
        (["snapshot", "--from-file", str(SEED / "0.2.6.json"), "--out", " "], "--out needs a file name"),
    ],
)
def test_values_that_could_never_work_are_usage_errors(args: list[str], message: str, tmp_path: Path):
    """An endless --timeout waited forever on a hanging server; an empty --output tried to write '.'."""
    r = cli(*args, cwd=tmp_path, timeout=60)
    assert r.returncode == 2 and message in error_line(r, 2), r.stderr


def test_json_errors_read_as_one_sentence(tmp_path: Path):
    (tmp_path / "ctl.json").write_text('{"tools": "a\tb"}')
    r = cli("diff", "ctl.json", "ctl.json", cwd=tmp_path)
    assert "Invalid control character at line 1 column 13" in error_line(r, 2), r.stderr


def test_a_pipe_closed_after_the_first_line(tmp_path: Path):
    """The shell form itself, with pipefail so that the exit code is schema-audit's."""
    cmd = f"set -o pipefail; {sys.executable} -m mcp_schema_audit rules | head -1"
    r = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode in (0, 141) and r.stderr == "" and len(r.stdout.splitlines()) == 1, r


def test_diff_tells_two_files_of_one_name_apart(tmp_path: Path):
    """a/tools.json and b/tools.json both carry the label "tools": the report must not read "tools -> tools"."""
    for folder, version in (("a", "0.2.5"), ("b", "0.2.6")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "tools.json").write_text((SEED / f"{version}.json").read_text())
    r = cli("diff", "a/tools.json", "b/tools.json", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert r.stdout.startswith("schema-audit diff: a/tools (fmsg-mcp 0.2.5) -> b/tools (fmsg-mcp 0.2.6)\n")
    assert "accepted by b/tools (served), rejected by hosts that cached a/tools" in r.stdout
    assert "tools -> tools" not in r.stdout
    r = cli("diff", str(tmp_path / "a" / "tools.json"), str(tmp_path / "b" / "tools.json"), "--format", "json")
    data = json.loads(r.stdout)
    assert (data["old"]["label"], data["new"]["label"]) == ("a/tools", "b/tools")
    r = cli(
        "diff",
        "a/tools.json",
        "b/tools.json",
        "--old-label",
        "main",
        "--new-label",
        "pr 42",
        "--format",
        "json",
        cwd=tmp_path,
    )
    data = json.loads(r.stdout)
    assert (data["old"]["label"], data["new"]["label"]) == ("main", "pr 42")
    r = cli("diff", "a/tools.json", "b/tools.json", "--new-label", "pr", cwd=tmp_path)
    assert r.stdout.startswith("schema-audit diff: tools (fmsg-mcp 0.2.5) -> pr (fmsg-mcp 0.2.6)"), r.stdout[:200]
    for bad in ("", "two\nlines"):
        line = error_line(cli("diff", "a/tools.json", "b/tools.json", "--old-label", bad, cwd=tmp_path), 2)
        assert "--old-label must be one line of text" in line
    # different names keep their labels; one path at two git revisions reads REV:name
    r = cli("diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"))
    assert r.stdout.startswith("schema-audit diff: 0.2.5 (fmsg-mcp 0.2.5) -> 0.2.6 ")
    r = cli("diff", "git:HEAD:fixtures/seed/0.2.5.json", "fixtures/seed/0.2.5.json")
    assert r.returncode == 0 and r.stdout.startswith(
        "schema-audit diff: HEAD:0.2.5 (fmsg-mcp 0.2.5) -> worktree:0.2.5 "
    ), r


TIMEOUT_S = 3  #: the --timeout of the first attempt (doubled while a busy machine spends it starting up)


def _timed(*args: str) -> tuple[Timing, subprocess.CompletedProcess[str]]:
    r, timed = timing.run([sys.executable, "-m", "mcp_schema_audit", *args], timeout=120, text=True, cwd=ROOT)
    return timed, r


@pytest.mark.timing
@pytest.mark.live
@pytest.mark.parametrize(
    "server",
    [
        [str(HOSTILE_STDIO), "--mode", "silent"],  # reads requests, never answers, exits at the end of stdin
        [str(ROOT / "tests" / "servers" / "hang_server.py"), "--ignore-eof"],  # ignores the end of stdin too
        [str(HOSTILE_STDIO), "--mode", "spawn-ignore-term"],  # ignores stdin and SIGTERM, so does its child
    ],
)
@pytest.mark.parametrize("protocol", ["legacy", "auto"])
def test_timeout_is_honoured_within_a_second_on_stdio(tmp_path: Path, server: list[str], protocol: str):
    """The whole run, interpreter start and the server's shutdown included, ends within --timeout + 1 s (less the
    time it waited for a CPU after the deadline: ``tests/timing.py``). The server must be running when the
    deadline fires: on a busy machine the CLI's start-up can spend a short --timeout, and the attempt is
    repeated with a longer one."""
    spawns = "spawn-ignore-term" in server

    def attempt(t: float) -> tuple[Timing, subprocess.CompletedProcess[str], Path]:
        pids = tmp_path / f"pids-{t:g}"
        extra = ["--pid-file", str(pids)] if spawns else []
        timed, r = _timed(
            "snapshot",
            "--store",
            str(tmp_path),
            "--label",
            "x",
            "--timeout",
            f"{t:g}",
            "--protocol",
            protocol,
            "--",
            sys.executable,
            *server,
            *extra,
        )
        return timed, r, pids

    def reached(outcome: tuple[Timing, subprocess.CompletedProcess[str], Path]) -> bool:
        _, r, pids = outcome
        if spawns:  # the server and its child had started
            return pids.exists() and len(pids.read_text().split()) == 2
        return (
            "hang_server: started" in r.stderr if "hang_server.py" in server[0] else "during the handshake" in r.stderr
        )

    (timed, r, pids), timeout = until_reached(attempt, reached, TIMEOUT_S)
    assert f"timed out after {timeout:g} s" in error_line(r, 3)
    assert timed.unloaded(timeout) < timeout + 1, timed.describe(timeout)
    if spawns:  # the server and its child, both deaf to SIGTERM, are gone
        for pid in pids.read_text().split():
            stat = Path(f"/proc/{pid}/stat")
            assert not stat.exists() or stat.read_text().rsplit(")", 1)[1].split()[0] in ("Z", "X"), pid


@pytest.mark.timing
@pytest.mark.live
@pytest.mark.parametrize("flag", ["--url", "--sse"])
def test_timeout_is_honoured_within_a_second_on_http(tmp_path: Path, flag: str):
    """A server that accepts the connection and never answers."""
    sys.path.insert(0, str(ROOT / "tests" / "hostile_servers"))
    from hostile_http import HostileHTTPServer

    with HostileHTTPServer() as srv:

        def attempt(t: float) -> tuple[Timing, subprocess.CompletedProcess[str], int]:
            before = len(srv.requests)
            timed, r = _timed(
                "snapshot", "--store", str(tmp_path), "--label", "x", "--timeout", f"{t:g}", flag, srv.url("/silent")
            )
            return timed, r, len(srv.requests) - before

        (timed, r, _), timeout = until_reached(attempt, lambda outcome: outcome[2] > 0, TIMEOUT_S)
    assert f"timed out after {timeout:g} s" in error_line(r, 3)
    assert timed.unloaded(timeout) < timeout + 1, timed.describe(timeout)


@pytest.mark.live
def test_url_at_an_sse_endpoint_and_sse_at_a_streamable_endpoint_say_which_flag(http_server_factory, tmp_path: Path):
    """HTTP 405 to --url (a legacy SSE endpoint refuses POST) → --sse; HTTP 400 to --sse (a Streamable HTTP
    endpoint refuses the SSE GET) → --url. Both servers are the demo mail server, started for real."""
    sse = http_server_factory(lambda port: [sys.executable, str(DEMO), "--version", "1", "--sse", str(port)])
    http = http_server_factory(lambda port: [sys.executable, str(DEMO), "--version", "2", "--http", str(port)])
    line = error_line(
        cli("snapshot", "--store", str(tmp_path), "--label", "a", "--timeout", "20", "--url", sse.url("/sse")), 3
    )
    assert "HTTP 405" in line and "try --sse URL instead of --url" in line
    line = error_line(
        cli("snapshot", "--store", str(tmp_path), "--label", "b", "--timeout", "20", "--sse", http.url("/mcp")), 3
    )
    assert "HTTP 400" in line and "try --url URL instead of --sse" in line
    for flag, server, path in (("--sse", sse, "/sse"), ("--url", http, "/mcp")):  # the suggested flag works
        r = cli(
            "snapshot", "--store", str(tmp_path), "--label", flag.strip("-"), "--timeout", "20", flag, server.url(path)
        )
        assert r.returncode == 0, r.stderr


@pytest.mark.parametrize(
    ("args", "fixed"),
    [
        (["snapshot", "--label", "x", "python", "-m", "mod"], "schema-audit snapshot --label x -- python -m mod"),
        (
            ["probe", "--auto", "--timeout", "5", "node", "dist/index.js", "--port", "3"],
            "schema-audit probe --auto --timeout 5 -- node dist/index.js --port 3",
        ),
    ],
)
def test_a_server_command_without_the_double_dash_says_where_it_goes(tmp_path: Path, args: list[str], fixed: str):
    line = error_line(cli(*args, cwd=tmp_path), 2)
    assert "the server command goes after --" in line and line.endswith(f": {fixed})"), line
    assert "Possible options" not in line
    # our own typo is still click's message with the help pointer
    line = error_line(cli("snapshot", "--label", "x", "--bogus", cwd=tmp_path), 2)
    assert "No such option: --bogus" in line and "snapshot --help'" in line and "goes after --" not in line


@pytest.mark.parametrize(
    ("flag", "suggested"),
    [
        ("--bogus", None),
        ("--fail-onn", "--fail-on"),
        ("--jbs", "--jobs"),
        ("--formt", "--format"),
        ("--fail", "--fail-on"),
    ],
)
def test_an_unknown_option_suggests_only_close_names(tmp_path: Path, flag: str, suggested: str | None):
    """Suggestions come from the command's own options compared without their dashes: ``--bogus`` is close to
    none of diff's (click offered ``--host, --jobs, --out``), a typo gets its option."""
    line = error_line(cli("diff", flag, "x", "a.json", "b.json", cwd=tmp_path), 2)
    assert f"No such option: {flag}" in line and "Possible options" not in line, line
    if suggested is None:
        assert "did you mean" not in line, line
    else:
        assert f"(did you mean {suggested}?)" in line, line


@pytest.mark.live
def test_a_stdio_server_that_writes_non_json_to_stdout_and_exits(tmp_path: Path):
    """What the server wrote on stdout is the clue, not "(no stderr output)".

    Each server reads the CLI's first request before it writes and exits: one that exits before the request
    is written makes the SDK's stdin writer close the read stream (a broken pipe), and the lines not yet
    delivered are lost (on a busy machine, the last one): a race of the SDK's, not what this test is about."""
    script = "import sys; sys.stdin.readline(); print('Listening on port 3000'); print('\\x1b[31mready\\x1b[0m')"
    line = error_line(
        cli(
            "snapshot", "--store", str(tmp_path), "--label", "x", "--timeout", "20", "--", sys.executable, "-c", script
        ),
        3,
    )
    assert "server exited during the handshake (exit status 0); it wrote to stdout what is not JSON-RPC: " in line
    assert "'Listening on port 3000' | 'ready'" in line and "no stderr output" not in line
    assert "\x1b" not in line and "stdout must carry only JSON-RPC" in line
    script = "import sys; sys.stdin.readline(); print('oops'); print('FATAL config missing', file=sys.stderr)"
    line = error_line(
        cli(
            "snapshot", "--store", str(tmp_path), "--label", "x", "--timeout", "20", "--", sys.executable, "-c", script
        ),
        3,
    )
    assert "'oops'; stderr: FATAL config missing" in line
    script = "import sys; sys.stdin.readline(); print('FATAL config missing', file=sys.stderr)"
    line = error_line(
        cli(
            "snapshot", "--store", str(tmp_path), "--label", "x", "--timeout", "20", "--", sys.executable, "-c", script
        ),
        3,
    )
    assert line.endswith("server exited during the handshake (exit status 0): FATAL config missing")


def test_git_input_outside_a_repository(tmp_path: Path):
    env_cmd = [sys.executable, "-m", "mcp_schema_audit", "diff", "git:HEAD:a.json", "git:HEAD:b.json"]
    import os

    r = subprocess.run(
        env_cmd,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
        env={**os.environ, "GIT_CEILING_DIRECTORIES": str(tmp_path.parent)},
    )
    line = error_line(r, 2)
    assert f"git:HEAD:a.json: not a git repository: {tmp_path}" in line and "give the snapshot file's path" in line


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["diff", "a.json", "b.json", "--format", "jsno"], "(got 'jsno'; did you mean json?)"),
        (["diff", "a.json", "b.json", "--mode", "ful"], "(got 'ful'; did you mean full?)"),
        (["rules", "--format", "jsn"], "(got 'jsn'; did you mean json?)"),
        (["diff", "a.json", "b.json", "--format", "zzz"], "(got 'zzz')"),
    ],
)
def test_a_value_outside_the_choices_suggests_a_close_one(tmp_path: Path, args: list[str], said: str):
    line = error_line(cli(*args, cwd=tmp_path), 2)
    assert "must be one of" in line and line.endswith(said), line


def test_explain_of_a_fingerprint_keeps_a_multi_line_error_on_its_lines(tmp_path: Path):
    """pydantic's error is "loc" then "  message": ``explain FINGERPRINT --report`` shows it on two lines, not
    with a literal ``\\n`` (each line still inert: a control character is shown, not sent)."""
    report = {
        "findings": [
            {
                "fingerprint": "0747016cf42e22e8",
                "rule": "input-required-added",
                "message": "property 'q' is required",
                "tool": "search",
                "direction": "input",
                "pointer": "/properties/q",
                "witness": {"instance": {}, "accepted_by": "old", "error": "q\n  Field required\x1b[31m"},
            }
        ]
    }
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report), encoding="utf-8")
    out = cli("explain", "0747016cf42e22e8", "--report", str(path))
    assert out.returncode == 0, out.stderr
    assert "  witness rejected with: q\n    Field required\\x1b[31m\n" in out.stdout, out.stdout
