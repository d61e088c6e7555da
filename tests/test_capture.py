"""Live capture tests: real MCP servers in subprocesses (stdio, Streamable HTTP, SSE), no protocol mocks."""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import timing
from conftest import DEMO_MAIL_SERVER, PYTHON, ROOT, SERVERS, ServerProcess
from gate_helpers import cli
from timing import Timing

from mcp_schema_audit.capture import CaptureTarget, capture, redact_url
from mcp_schema_audit.errors import CaptureError, UsageError
from mcp_schema_audit.snapshot import Snapshot, canonical_json

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
V1_TOOLS = [
    "archive_message",
    "get_message",
    "list_messages",
    "mailbox_stats",
    "send_message",
    "wait_for_message",
    "whoami",
]
V2_TOOLS = ["get_message", "list_messages", "mailbox_stats", "send_message", "wait_for_message", "whoami"]
META_KEYS = {
    "captured_at",
    "duration_s",
    "sdk_version",
    "schema_audit_version",
    "pages",
    "instructions_present",
    "list_pages",
}
CANARY = "canary-7f3a9c1e5b"


def demo(version: int, *extra: str) -> CaptureTarget:
    return CaptureTarget("stdio", command=[PYTHON, str(DEMO_MAIL_SERVER), "--version", str(version), *extra])


def server_target(name: str, *args: str, env: dict[str, str] | None = None) -> CaptureTarget:
    return CaptureTarget("stdio", command=[PYTHON, str(SERVERS / name), *args], env=env or {})


def names(snapshot: Snapshot) -> list[str]:
    return [tool["name"] for tool in snapshot.tools]


@pytest.fixture(scope="module")
def demo_v1() -> Snapshot:
    return capture(demo(1), label="v1", protocol="auto", timeout_s=30)


@pytest.fixture(scope="module")
def demo_v2() -> Snapshot:
    return capture(demo(2), label="v2", protocol="auto", timeout_s=30)


@pytest.fixture(scope="module")
def demo_v2_http(http_server_factory: Any) -> ServerProcess:
    return http_server_factory(lambda port: [PYTHON, str(DEMO_MAIL_SERVER), "--version", "2", "--http", str(port)])


# ---- stdio ------------------------------------------------------------------------------------


@pytest.mark.live
def test_stdio_v1_auto(demo_v1: Snapshot) -> None:
    assert names(demo_v1) == V1_TOOLS  # sorted by name
    assert demo_v1.label == "v1"
    assert demo_v1.protocol_version == "2026-07-28"  # auto: server/discover succeeded
    assert demo_v1.transport == "stdio"
    assert demo_v1.server == {"name": "demo-mail", "title": "Demo Mail", "version": "1.0.0"}
    assert "tools" in demo_v1.capabilities
    assert set(demo_v1.meta) == META_KEYS
    assert demo_v1.meta["pages"] == 1
    assert demo_v1.meta["instructions_present"] is True
    assert demo_v1.meta["sdk_version"].startswith("2.")
    assert demo_v1.meta["captured_at"].endswith("Z")
    assert isinstance(demo_v1.meta["duration_s"], float) and demo_v1.meta["duration_s"] > 0
    tools = demo_v1.tool_map()
    assert tools["get_message"]["outputSchema"]["additionalProperties"] is False
    assert "thread_id" not in tools["get_message"]["outputSchema"]["properties"]
    assert tools["send_message"]["outputSchema"]["properties"]["status"]["enum"] == ["queued", "sent"]
    assert tools["whoami"]["outputSchema"]["required"] == ["address", "display_name"]
    assert "required" not in tools["list_messages"]["inputSchema"]


@pytest.mark.live
def test_stdio_v2_changes(demo_v2: Snapshot) -> None:
    assert names(demo_v2) == V2_TOOLS  # archive_message removed
    assert demo_v2.server["version"] == "2.0.0"
    assert demo_v2.protocol_version == "2026-07-28"
    tools = demo_v2.tool_map()
    message = tools["get_message"]["outputSchema"]
    assert message["additionalProperties"] is False and "thread_id" in message["properties"]  # closed object grew
    assert tools["send_message"]["outputSchema"]["properties"]["status"]["enum"] == ["queued", "sent", "scheduled"]
    assert tools["whoami"]["outputSchema"]["required"] == ["address"]  # display_name now optional
    assert tools["list_messages"]["inputSchema"]["required"] == ["folder"]  # new required input


@pytest.mark.live
def test_stdio_legacy_protocol_and_env(demo_v2: Snapshot) -> None:
    # No --version: the server reads DEMO_MAIL_VERSION from the env we pass (merged on the allow-list).
    target = CaptureTarget(
        "stdio", command=[PYTHON, str(DEMO_MAIL_SERVER)], env={"DEMO_MAIL_VERSION": "2"}, cwd=str(ROOT)
    )
    snap = capture(target, label="legacy", protocol="legacy", timeout_s=30)
    assert snap.protocol_version in HANDSHAKE_VERSIONS
    assert snap.server["version"] == "2.0.0"
    assert snap.tools == demo_v2.tools  # MCPServer's object schemas are the same in both eras
    assert "DEMO_MAIL_VERSION" not in canonical_json(snap.to_json())


# ---- Streamable HTTP and SSE ------------------------------------------------------------------


@pytest.mark.live
def test_http_capture_keeps_no_secrets(demo_v2_http: ServerProcess, demo_v2: Snapshot) -> None:
    url = demo_v2_http.url("/mcp")
    target = CaptureTarget("http", url=url, headers={"Authorization": f"Bearer {CANARY}"})
    snap = capture(target, label="http", protocol="auto", timeout_s=20)
    text = canonical_json(snap.to_json())
    assert CANARY not in text
    assert url not in text and str(demo_v2_http.port) not in text
    assert snap.transport == "http"
    assert snap.protocol_version == "2026-07-28"
    assert snap.server["name"] == "demo-mail"
    assert snap.tools == demo_v2.tools  # same server, same tools whatever the transport


@pytest.mark.live
def test_http_pinned_2026(demo_v2_http: ServerProcess) -> None:
    snap = capture(CaptureTarget("http", url=demo_v2_http.url()), label="pinned", protocol="2026-07-28", timeout_s=20)
    assert snap.protocol_version == "2026-07-28"
    assert snap.server["version"] == "2.0.0"  # from the extra server/discover
    assert "tools" in snap.capabilities
    assert names(snap) == V2_TOOLS


@pytest.mark.live
def test_http_wrong_path_is_404(demo_v2_http: ServerProcess) -> None:
    url = demo_v2_http.url("/nope").replace("http://", f"http://user:{CANARY}@") + f"?token={CANARY}"
    with pytest.raises(
        CaptureError, match=r"HTTP 404 Not Found from http://127\.0\.0\.1:\d+/nope\?token=REDACTED"
    ) as info:
        capture(CaptureTarget("http", url=url, headers={"X-Api-Key": CANARY}), label="x", timeout_s=30)
    assert CANARY not in info.value.one_line()
    assert "\n" not in info.value.one_line()


def _plain_http(handler: type[http.server.BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serve ``handler`` on 127.0.0.1 (a free port, one thread per request) while the caller yields its URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture()
def status_401_server() -> Iterator[str]:
    """A plain HTTP server (not MCP) that answers every request 401, like a gateway without credentials."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            self.rfile.read(int(self.headers.get("content-length") or 0))
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Bearer realm="mcp"')
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_GET = do_POST

        def log_message(self, *args: object) -> None:
            pass

    yield from _plain_http(Handler)


@pytest.mark.live
@pytest.mark.parametrize(("transport", "path"), [("http", "/mcp"), ("sse", "/sse")])
def test_http_401(status_401_server: str, transport: str, path: str) -> None:
    target = CaptureTarget(transport, url=status_401_server + path, headers={"Authorization": f"Bearer {CANARY}"})
    with pytest.raises(CaptureError, match=r"^HTTP 401 Unauthorized from http://127\.0\.0\.1:\d+/") as info:
        capture(target, label="x", protocol="legacy", timeout_s=30)
    assert CANARY not in info.value.one_line()


@pytest.mark.live
def test_http_connection_refused() -> None:
    from conftest import free_port

    with pytest.raises(CaptureError, match=r"cannot connect to http://127\.0\.0\.1:\d+/mcp") as info:
        capture(CaptureTarget("http", url=f"http://127.0.0.1:{free_port()}/mcp"), label="x", timeout_s=30)
    assert "is the server running and listening on that host and port?" in info.value.one_line()


@pytest.mark.live
def test_sse_capture(http_server_factory: Any, demo_v1: Snapshot) -> None:
    server = http_server_factory(lambda port: [PYTHON, str(DEMO_MAIL_SERVER), "--version", "1", "--sse", str(port)])
    snap = capture(
        CaptureTarget("sse", url=server.url("/sse"), headers={"X-Token": CANARY}),
        label="sse",
        protocol="legacy",
        timeout_s=20,
    )
    assert snap.transport == "sse"
    assert snap.protocol_version in HANDSHAKE_VERSIONS
    assert snap.tools == demo_v1.tools
    assert CANARY not in canonical_json(snap.to_json())


# ---- paging and raw capture -------------------------------------------------------------------


@pytest.mark.live
def test_paging_keeps_raw_tools_from_every_page() -> None:
    snap = capture(server_target("paging_server.py"), label="paged", protocol="legacy", timeout_s=30)
    assert snap.meta["pages"] == 3
    assert snap.protocol_version in HANDSHAKE_VERSIONS
    assert names(snap) == ["alpha_search", "array_output", "untyped_input", "zeta_echo"]
    tools = snap.tool_map()
    # unknown fields the SDK models would drop
    assert tools["alpha_search"]["x-vendor"] == {"tier": "gold", "rateLimit": 10}
    assert tools["alpha_search"]["_meta"] == {"com.example/owner": "search-team"}
    # page 2 fails the SDK's wire model (pydantic ValidationError), yet both tools are kept as sent
    assert tools["array_output"]["outputSchema"] == {"type": "array", "items": {"type": "integer"}}
    assert tools["untyped_input"]["inputSchema"] == {"properties": {"n": {"type": "integer"}}}
    assert snap.server == {"name": "paging-test", "version": "0.3.0"}


@pytest.mark.live
@pytest.mark.parametrize(
    ("args", "max_pages", "expected"),
    [
        (["--mode", "repeat"], 1000, r"server repeated cursor 'page-2' on tools/list page 2"),
        (["--mode", "error"], 1000, r"tools/list \(page 1\) failed: JSON-RPC error -32603: tool registry unavailable"),
        ([], 2, r"more than 2 pages of tools/list"),
    ],
    ids=["repeated-cursor", "jsonrpc-error", "page-cap"],
)
def test_paging_failures(args: list[str], max_pages: int, expected: str) -> None:
    with pytest.raises(CaptureError, match=expected):
        capture(
            server_target("paging_server.py", *args), label="x", protocol="legacy", timeout_s=30, max_pages=max_pages
        )


@pytest.mark.live
@pytest.mark.parametrize(("protocol", "pages"), [("auto", 3), ("legacy", 1)])
def test_empty_cursor(protocol: str, pages: int) -> None:
    # 2026-07-28: "" is a cursor like any other; before it, an empty nextCursor ends the listing.
    snap = capture(server_target("paging_server.py", "--mode", "empty"), label="x", protocol=protocol, timeout_s=30)
    assert snap.meta["pages"] == pages
    assert len(snap.tools) == {3: 4, 1: 1}[pages]


# ---- failures ---------------------------------------------------------------------------------


@pytest.mark.timing
@pytest.mark.live
def test_hang_times_out() -> None:
    def attempt(t: float) -> tuple[str, Timing]:
        with timing.measure() as timed, pytest.raises(CaptureError) as info:
            capture(server_target("hang_server.py"), label="x", protocol="legacy", timeout_s=t)
        return str(info.value), timed

    # the server must have started (its stderr line) when the deadline fires: a busy machine may need longer
    (message, timed), timeout = timing.until_reached(attempt, lambda outcome: "hang_server: started" in outcome[0], 3)
    assert message.startswith(
        f"timed out after {timeout:g} s during the handshake; server stderr: hang_server: started"
    )
    # the deadline, plus the SDK's stdin-close grace for the shutdown of a server that exits on EOF
    assert timed.unloaded(timeout) < timeout + 4, timed.describe(timeout)


@pytest.mark.live
def test_a_silent_server_past_the_discover_probe_is_not_told_to_try_legacy() -> None:
    """Auto mode waits 10 s for ``server/discover``, then sends ``initialize``: with a longer ``--timeout`` a server
    that answers nothing was still told "try --protocol legacy", which waits for the same silence. Past the probe the
    message says neither was answered and asks whether this is an MCP server; under it, the legacy hint stays."""
    with pytest.raises(CaptureError) as info:
        capture(server_target("hang_server.py"), label="x", protocol="auto", timeout_s=13)
    said = info.value.one_line()
    assert "the server answered neither server/discover nor initialize" in said, said
    assert "--protocol legacy" not in said and "is this an MCP server over stdio?" in said, said


@pytest.mark.live
def test_crash_reports_stderr_without_secrets() -> None:
    target = server_target("crash_server.py", env={"CRASH_TOKEN": CANARY})
    with pytest.raises(CaptureError, match=r"^server exited during the handshake \(exit status 1\): ") as info:
        capture(target, label="x", protocol="auto", timeout_s=20)
    message = info.value.one_line()
    assert "crash_server: FATAL config file /etc/demo-mail.toml is missing" in message
    assert CANARY not in message and "using token ***" in message
    assert "\n" not in message


@pytest.mark.live
def test_how_the_server_ended_is_said() -> None:
    """The SDK's stdio client reaps the server and keeps no exit status: "server exited" said neither the status nor
    a signal, and a server that closed its stdout but kept running was "capture failed: AssertionError" (the SDK
    asserts an ``anyio`` process before it signals one, and the capped stdout's wrapper was not one)."""
    cases = [
        ("read line; kill -9 $$", r"^server exited during the handshake \(killed by SIGKILL\): \(no stderr output\)"),
        ("read line; exit 7", r"^server exited during the handshake \(exit status 7\)"),
        ("exec 1>&-; sleep 20", r"^server closed its stdout during the handshake \(still running\)"),
    ]
    for script, expected in cases:
        with pytest.raises(CaptureError, match=expected):
            capture(CaptureTarget("stdio", command=["sh", "-c", script]), label="x", protocol="auto", timeout_s=20)


@pytest.mark.live
def test_a_server_outliving_its_closed_stdin_is_captured() -> None:
    """A server whose process lives on after its stdin closes (here a shell that runs the server, then ignores
    SIGTERM and sleeps: the SDK waits, then signals the group) is captured, as the real SDK client does it: it failed
    with ``AssertionError`` after 31 s, exit 3."""
    script = f"{PYTHON} {DEMO_MAIL_SERVER} --version 1; trap '' TERM; sleep 60"
    snapshot = capture(CaptureTarget("stdio", command=["sh", "-c", script]), label="x", protocol="auto", timeout_s=40)
    assert len(snapshot.tools) == 7, names(snapshot)


@pytest.mark.live
def test_missing_command() -> None:
    with pytest.raises(CaptureError, match=r"^command not found: schema-audit-no-such-server$"):
        capture(CaptureTarget("stdio", command=["schema-audit-no-such-server", "--flag"]), label="x", timeout_s=30)


def test_bad_arguments_are_usage_errors() -> None:
    with pytest.raises(UsageError, match="unknown transport"):
        capture(CaptureTarget("websocket", url="ws://x"), label="x")
    with pytest.raises(UsageError, match="unknown protocol"):
        capture(demo(1), label="x", protocol="2025-06-18")
    with pytest.raises(UsageError, match="no server command"):
        capture(CaptureTarget("stdio"), label="x")
    with pytest.raises(UsageError, match="must be http:// or https://"):
        capture(CaptureTarget("http", url="ftp://127.0.0.1/mcp"), label="x")


def test_redact_url() -> None:
    assert redact_url("https://ada:s3cret@example.org:8443/mcp?token=abc&x=1#frag") == (
        "https://example.org:8443/mcp?token=REDACTED&x=REDACTED"
    )
    assert redact_url("http://127.0.0.1:8000/mcp") == "http://127.0.0.1:8000/mcp"
    assert redact_url("http://[::1]:9/mcp") == "http://[::1]:9/mcp"
    assert redact_url("http://[::1/mcp") == "<invalid URL>"
    assert "s3cret" not in repr(CaptureTarget("http", url="http://u:s3cret@h/mcp", headers={"A": "s3cret"}))


def test_importing_capture_does_not_import_the_sdk() -> None:
    code = "import sys, mcp_schema_audit.capture; assert 'mcp' not in sys.modules and 'anyio' not in sys.modules"
    subprocess.run([PYTHON, "-c", code], cwd=ROOT, check=True, timeout=30)


# ---- the server's process tree (Linux /proc) ---------------------------------------------------

_SETSID_GRANDCHILD = (
    "import os, subprocess, sys, time\n"
    "child = subprocess.Popen([sys.executable, '-c', 'import os, sys, time\\nos.setsid()\\n"
    "print(os.getpid(), flush=True)\\ntime.sleep(60)'], stdout=subprocess.PIPE)\n"
    "print(child.pid, child.stdout.readline().decode().strip(), flush=True)\n"
    "time.sleep(60)\n"
)


def _stat_fields(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()


def _running(pid: int) -> bool:
    fields = _stat_fields(pid)
    return fields is not None and fields[0] not in ("Z", "X")


@pytest.mark.timing
@pytest.mark.live
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="follows processes through /proc")
def test_process_tree_stops_descendants_that_left_the_group_and_nothing_else() -> None:
    """The tracker of capture.process, on real processes: a "server" (our child, stderr on our pipe) whose
    child called setsid() is stopped with that child; a bystander, also our child, is never signalled,
    not even when its pid is recorded with another start time (a reused pid)."""
    from mcp_schema_audit.capture.process import ProcessTree

    bystander = subprocess.Popen([PYTHON, "-c", "import time; time.sleep(60)"], start_new_session=True)
    read_fd, write_fd = os.pipe()
    tree = ProcessTree(write_fd)
    server = None
    try:
        tree.before_spawn()
        server = subprocess.Popen(
            [PYTHON, "-c", _SETSID_GRANDCHILD], stdout=subprocess.PIPE, stderr=write_fd, start_new_session=True
        )
        tree.attach()
        assert tree.server is not None and tree.server[0] == server.pid
        assert server.stdout is not None
        child_pid, reported = map(int, server.stdout.readline().split())
        assert reported == child_pid and _stat_fields(child_pid)[3] == str(child_pid)  # type: ignore[index]  # own session
        tree.scan()
        assert child_pid in tree.known and bystander.pid not in tree.known
        bystander_start = int(_stat_fields(bystander.pid)[19])  # type: ignore[index]
        tree.known[bystander.pid] = bystander_start + 1  # as if a recorded descendant's pid had been reused
        with timing.measure() as timed:
            tree.close()
        assert timed.unloaded() < tree.TERM_GRACE_S + tree.KILL_WAIT_S, timed.describe()
        server.wait(timeout=5)
        assert not _running(child_pid), "the setsid child survived"
        assert bystander.poll() is None, "a process that is not a descendant was signalled"
    finally:
        os.close(read_fd)
        os.close(write_fd)
        for proc in (bystander, server):
            if proc is not None:
                proc.kill()
                proc.wait()


@pytest.mark.live
def test_verbose_logs_redact_url_credentials(demo_v2_http: ServerProcess, tmp_path: Path) -> None:
    """``-v`` turns on the SDK's and httpx's logs, which print each request's URL: a token in its query or its
    userinfo was written to the log 8 times (an attack round). Now every such value reads ``REDACTED``."""
    url = demo_v2_http.url("/mcp") + "?api_key=" + CANARY + "&plain=1"
    r = cli("snapshot", "--url", url, "--out", str(tmp_path / "s.json"), "-v", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "HTTP Request" in r.stderr and "api_key=REDACTED" in r.stderr, r.stderr[-2000:]
    assert CANARY not in r.stderr and CANARY not in r.stdout
    assert CANARY not in (tmp_path / "s.json").read_text(encoding="utf-8")


def _json_replies(chunks: Callable[[], Iterator[bytes]]) -> Iterator[str]:
    """A plain HTTP server answering every POST ``200 application/json`` with the bytes of ``chunks()`` (until the
    client stops reading): what a hostile or broken server may send."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            self.rfile.read(int(self.headers.get("content-length") or 0))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            with contextlib.suppress(OSError):  # the client stopped reading
                for chunk in chunks():
                    self.wfile.write(chunk)

        def log_message(self, *args: object) -> None:
            pass

    yield from _plain_http(Handler)


@pytest.fixture()
def endless_json_server() -> Iterator[str]:
    """One JSON-RPC reply whose string never ends (200 MiB, then the connection closes)."""

    def chunks() -> Iterator[bytes]:
        yield b'{"jsonrpc":"2.0","id":0,"result":{"x":"'
        for _ in range(3200):
            yield b"A" * 65536

    yield from _json_replies(chunks)


@pytest.mark.live
def test_an_http_reply_past_64_mib_is_one_error_line(endless_json_server: str) -> None:
    """The SDK reads a JSON reply whole: an endless body grew the process to 4 GB within ``--timeout`` and ended in
    ``MemoryError``. The body stops at ``MAX_RESPONSE_BYTES`` (64 MiB): exit 3 naming the limit."""
    target = CaptureTarget("http", url=endless_json_server + "/mcp")
    with pytest.raises(CaptureError, match=r"the server's HTTP response is too large \(over 64 MiB\)") as info:
        capture(target, label="x", protocol="legacy", timeout_s=60)
    assert info.value.exit_code == 3 and "\n" not in info.value.one_line()


@pytest.mark.live
def test_credentials_on_the_server_command_line_are_masked(tmp_path: Path) -> None:
    """``-- python srv.py --api-key=SECRET`` printed the key in the progress line (``capturing … from python
    srv.py --api-key=…``), and a server echoing its argv had it stored in the snapshot's server name, instructions
    and tool description. An option named like a credential (``--api-key=V``, ``--token V``, ``DB_PASSWORD=V``)
    and a URL's password on the command line are masked like ``--env`` values, in both."""
    server = "argv_echo_server.py"  # run from its folder: the whole command line fits the progress line
    secrets = [CANARY, "tok-" + CANARY, "pw-" + CANARY, "url-" + CANARY]
    command = [
        PYTHON,
        server,
        f"--api-key={secrets[0]}",
        "--token",
        secrets[1],
        f"DB_PASSWORD={secrets[2]}",
        f"postgres://app:{secrets[3]}@db/main",
        "--port",
        "8080",
    ]
    stderr, text = _echoed_without(secrets, command, tmp_path)
    assert "--api-key=*** --token *** DB_PASSWORD=*** postgres://app:***@db/main --port 8080" in stderr, stderr
    assert "--port 8080" in text  # everyday values stay
    long = cli(
        "snapshot",
        "--out",
        str(tmp_path / "long.json"),
        "--timeout",
        "60",
        "--",
        PYTHON,
        server,
        "--label=" + "x" * 120,
        f"--api-key={secrets[0]}",
        cwd=ROOT / "tests" / "servers",
    )
    assert long.returncode == 0 and "…" in long.stderr, long.stderr  # cut after masking: no part of the key
    assert CANARY[:6] not in long.stderr, long.stderr


def test_headers_and_url_paths_on_the_server_command_line_are_masked(tmp_path: Path) -> None:
    """mcp-remote's usage, ``-- npx mcp-remote URL --header "Authorization: Bearer X"``: the header's value was
    shown in the progress line and stored from the server's echo; so were ``--pat``, ``--passphrase`` and
    ``--bearer`` values, a header after ``=`` or as two arguments, a key in a URL's path (``/key/X``,
    ``;token=X``) or in its query after the first parameter, a token in a JSON argument, and the bare token of a
    ``Bearer X`` value the server echoes alone."""
    server = "argv_echo_server.py"
    secrets = ["hdr-" + CANARY, "pat-" + CANARY, "pp-" + CANARY, "br-" + CANARY, "eq-" + CANARY, "path-" + CANARY]
    secrets += ["mx-" + CANARY, "q-" + CANARY, "js-" + CANARY, "two-" + CANARY, "bare" + CANARY]
    command = [
        PYTHON,
        server,
        f"https://mcp.example.com/mcp/key/{secrets[5]}/sse;token={secrets[6]}",
        f"https://mcp.example.com/mcp?region=eu&api_key={secrets[7]}",
        "--config",
        json.dumps({"github": {"githubToken": secrets[8]}}),
        "--header",
        "X-Api-Key",
        secrets[9],
        f"--auth-header=Bearer {secrets[10]}",
        "--header",
        f"Authorization: Bearer {secrets[0]}",
        "--pat",
        secrets[1],
        "--passphrase",
        secrets[2],
        "--bearer",
        secrets[3],
        f"--header=X-Api-Key: {secrets[4]}",
        "--header",
        "Accept: application/json",
    ]
    _, text = _echoed_without(secrets, command, tmp_path)
    assert "Accept: application/json" in text  # an everyday header stays


def _echoed_without(secrets: list[str], command: list[str], tmp_path: Path) -> tuple[str, str]:
    """Snapshot ``tests/servers/argv_echo_server.py`` run as ``command`` (from its folder): ``(stderr, snapshot
    text)``, asserting that no secret of ``secrets`` is in either."""
    out = tmp_path / "snap.json"
    r = cli("snapshot", "--out", str(out), "--timeout", "60", "--", *command, cwd=ROOT / "tests" / "servers")
    assert r.returncode == 0, r.stderr
    text = out.read_text(encoding="utf-8")
    for secret in secrets:
        assert secret not in r.stderr and secret not in text, (secret, r.stderr)
    return r.stderr, text


@pytest.mark.parametrize(
    ("option", "words"),
    [("--objects=2500000", "holds more than 4,000,000 JSON values"), ("--bytes=70000000", "over 64 MiB")],
)
def test_a_stdio_message_past_its_bounds_is_refused_before_the_sdk_parses_it(option: str, words: str) -> None:
    """A 4 MB tools/list reply of two million ``{}`` grew the capture to 827 MB and overran ``--timeout`` (26 s
    for 5 s) in the SDK's own parse; a long line has no bound at all in the SDK. Each stdio message is now counted
    on its bytes as it arrives: exit 3, one line, at a fraction of that memory (peak measured in the child)."""
    import subprocess

    code = (
        "import resource, sys\n"
        "from mcp_schema_audit.cli.app import main\n"
        "try:\n    main()\nexcept SystemExit as e:\n"
        "    print('peak', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr); raise\n"
    )
    server = [PYTHON, str(ROOT / "tests" / "servers" / "flood_server.py"), option]
    r = subprocess.run(
        [PYTHON, "-c", code, "snapshot", "--protocol", "legacy", "--timeout", "150", "--out", "-", "--", *server],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert r.returncode == 3, r.stderr
    assert words in r.stderr and "Traceback" not in r.stderr, r.stderr
    peak_kib = int(r.stderr.rsplit("peak", 1)[1].split()[0])
    assert peak_kib < 400 * 1024, peak_kib  # was 827 MB for the objects; the bytes never had a bound


@pytest.fixture()
def object_flood_server() -> Iterator[str]:
    """One JSON-RPC reply of 2.5 million empty objects (7.5 MB)."""
    yield from _json_replies(
        lambda: iter([b'{"jsonrpc":"2.0","id":0,"result":{"x":[' + b",".join([b"{}"] * 2_500_000) + b"]}}"])
    )


@pytest.mark.live
def test_an_http_reply_of_too_many_objects_is_one_error_line(object_flood_server: str) -> None:
    """Under the 64 MiB bound, a 7.5 MB body of 2.5 million ``{}`` is 2.5 million Python objects once the SDK parses
    it: the body is counted as it arrives and stops past ``MAX_JSON_VALUES`` (exit 3, one line)."""
    target = CaptureTarget("http", url=object_flood_server + "/mcp")
    with pytest.raises(CaptureError, match=r"holds more than 4,000,000 JSON values") as info:
        capture(target, label="x", protocol="legacy", timeout_s=60)
    assert info.value.exit_code == 3 and "\n" not in info.value.one_line()


def test_a_bearer_value_on_the_command_line_is_masked_with_and_without_its_scheme() -> None:
    """``--auth-header=Bearer X``: a server that echoes the token alone had it stored (the scheme was stripped only
    for ``--env`` and header values)."""
    from mcp_schema_audit.capture.target import command_secrets

    token = "Tk4nQ8zP2mXc9v"
    assert {f"Bearer {token}", token} <= set(command_secrets(["npx", f"--auth-header=Bearer {token}"]))
    assert {f"Bearer {token}", token} <= set(command_secrets(["npx", "--api-key", f"Bearer {token}"]))


def test_a_capture_without_a_label_is_named_by_its_out_file(tmp_path: Path) -> None:
    """``snapshot --out v1.json`` with no ``--label`` labels the snapshot ``v1`` (as a raw file is read), so two
    captures diff as two versions instead of ``snapshot -> snapshot``; on stdout the label is ``snapshot``."""
    for version in ("1", "2"):
        r = cli(
            "snapshot",
            "--out",
            f"v{version}.json",
            "--",
            PYTHON,
            str(DEMO_MAIL_SERVER),
            "--version",
            version,
            cwd=tmp_path,
        )
        assert r.returncode == 0, r.stderr
        assert json.loads((tmp_path / f"v{version}.json").read_text(encoding="utf-8"))["label"] == f"v{version}"
    r = cli("diff", "v1.json", "v2.json", "--fail-on", "never", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.startswith("schema-audit diff: v1 (demo-mail 1.0.0) -> v2"), r.stdout
    r = cli("snapshot", "--out", "-", "--", PYTHON, str(DEMO_MAIL_SERVER), "--version", "1", cwd=tmp_path)
    assert r.returncode == 0 and json.loads(r.stdout)["label"] == "snapshot", r.stderr
