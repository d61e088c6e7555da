"""``schema-audit record``: the proxy is transparent for real clients and writes what they listed and called.

A real server (``tests/servers/traffic_server.py``, ``mcp`` 2.x ``MCPServer``) is driven by the real Python SDK
client (and the TypeScript SDK client, npm ``@modelcontextprotocol/sdk`` 1.x, over stdio) directly and through
``record`` (stdio and Streamable HTTP); the client must get exactly the same
answers both ways, including a call that the server interrupts with an elicitation (a server-to-client request)
and one that sends progress notifications. Over stdio the proxy's bytes are also compared with the server's
own for the same raw JSON-RPC lines. A server that exits in the middle of a call: the client sees the
connection end, the recording is still written and says the call got no reply, and the proxy exits with the
server's status.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import PYTHON, SERVERS, free_port, start_http_server
from test_real_clients import NODE, sdk_prefix  # noqa: F401, F811 - the fixture installing the TS SDK clients

pytestmark = pytest.mark.live
SERVER = SERVERS / "traffic_server.py"
TS_RECORD_CLIENT = Path(__file__).resolve().parent / "real_clients" / "ts_record_client.mjs"
RECORD = [sys.executable, "-m", "mcp_schema_audit", "record"]
TOKEN = "tok-5f3a9c1e77-secret"
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("add", {"a": 1, "b": 2}),
    ("weather", {"city": "Oslo"}),
    ("progress", {"steps": 3}),
    ("fail", {"reason": "nope"}),
    ("echo_secret", {}),
]


async def _session(transport: Any, mode: str, elicit: bool) -> list[Any]:
    from mcp import Client
    from mcp.types import ElicitResult

    async def on_elicit(ctx: Any, params: Any) -> Any:
        return ElicitResult(action="accept", content={"ok": True})

    seen: list[Any] = []
    async with Client(transport, mode=mode, elicitation_callback=on_elicit, cache=None, read_timeout_seconds=60) as c:
        listing = await c.list_tools()
        seen.append([t.model_dump(mode="json") for t in listing.tools])
        for name, args in CALLS + ([("confirm", {"question": "sure?"})] if elicit else []):
            seen.append((await c.call_tool(name, args)).model_dump(mode="json"))
    return seen


def _stdio(command: list[str]) -> Any:
    from mcp import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=command[0], args=command[1:], env={"TRAFFIC_TOKEN": TOKEN, "PYTHONPATH": os.getcwd()}
    )
    return stdio_client(params, errlog=open(os.devnull, "w"))  # noqa: SIM115 - closed with the process


@pytest.mark.parametrize(("mode", "elicit"), [("legacy", True), ("auto", False)])
def test_python_client_gets_the_same_through_record_over_stdio(tmp_path: Path, mode: str, elicit: bool):
    out = tmp_path / "rec.json"
    direct = anyio.run(_session, _stdio([PYTHON, str(SERVER)]), mode, elicit)
    proxied = anyio.run(_session, _stdio([*RECORD, "--out", str(out), "--", PYTHON, str(SERVER)]), mode, elicit)
    assert proxied == direct
    rec = json.loads(out.read_text())
    assert rec["format"] == "schema-audit/probe-recording" and rec["transport"] == "stdio"
    assert rec["server"] == {"name": "traffic-server", "version": "1.0.0"}
    assert [t["name"] for t in rec["tools"]] == sorted(t["name"] for t in direct[0])
    calls = rec["calls"]
    assert [c["tool"] for c in calls] == [n for n, _ in CALLS] + (["confirm"] if elicit else [])
    assert [c["arguments"] for c in calls[: len(CALLS)]] == [a for _, a in CALLS]
    assert all(c["outcome"] == "result" and c["protocol_version"] == rec["protocol_version"] for c in calls), [
        (c["tool"], c["outcome"], c.get("protocol_version")) for c in calls
    ]
    assert calls[0]["result"]["structuredContent"] == {"result": 3}
    assert calls[3]["result"]["isError"] is True
    # the server echoes its token: the recording holds *** instead (the client itself got the real value)
    assert calls[4]["result"]["structuredContent"] == {"result": "token is ***"}
    assert TOKEN not in out.read_text()
    if elicit:
        assert calls[5]["result"]["structuredContent"] == {"result": "accept:True"}


RAW = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": "two", "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 5}}},
    {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "nope", "arguments": {}}},
    {"jsonrpc": "2.0", "id": 5, "method": "no/such/method"},
    {"jsonrpc": "2.0", "id": 6, "method": "ping"},
]


def _transcript(command: list[str]) -> tuple[list[bytes], int]:
    """Send each of ``RAW`` (one line each, with odd spacing kept as written) and read the reply line of each
    request before the next: the server's stdout as the client sees it, and the exit status after EOF."""
    env = {**os.environ, "TRAFFIC_TOKEN": TOKEN}
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert proc.stdin is not None and proc.stdout is not None
    replies = []
    for message in RAW:
        proc.stdin.write(json.dumps(message, indent=None, separators=(", ", ":  ")).encode() + b"\n")
        proc.stdin.flush()
        if "id" in message:
            replies.append(proc.stdout.readline())
    proc.stdin.close()
    rest = proc.stdout.read()
    return [*replies, rest], proc.wait(timeout=60)


def test_stdio_bytes_are_forwarded_unchanged(tmp_path: Path):
    out = tmp_path / "rec.json"
    direct, status = _transcript([PYTHON, str(SERVER)])
    proxied, proxied_status = _transcript([*RECORD, "--out", str(out), "--", PYTHON, str(SERVER)])
    assert proxied_status == status == 0
    assert proxied == direct and len(direct) == 7 and direct[-1] == b""
    assert b'"id":5,"error"' in direct[4]
    rec = json.loads(out.read_text())
    assert rec["protocol_version"] == "2025-06-18"
    assert [(c["tool"], c["outcome"]) for c in rec["calls"]] == [("add", "result"), ("nope", "result")]
    assert rec["calls"][1]["result"]["isError"] is True
    assert rec["meta"]["messages"] == {"client": 7, "server": 6, "unread": 0}


def test_server_crash_mid_call_still_writes_the_recording(tmp_path: Path):
    out = tmp_path / "rec.json"

    async def crash() -> str:
        from mcp import Client

        transport = _stdio([*RECORD, "--out", str(out), "--", PYTHON, str(SERVER)])
        try:
            async with Client(transport, mode="legacy", cache=None, read_timeout_seconds=60) as c:
                await c.call_tool("add", {"a": 1, "b": 1})
                await c.call_tool("crash", {})
        except BaseException as exc:  # noqa: BLE001 - the SDK wraps the closed connection in exception groups
            return repr(exc)
        return "no error"

    seen = anyio.run(crash)
    assert "Connection closed" in seen
    rec = json.loads(out.read_text())
    assert [(c["tool"], c["outcome"]) for c in rec["calls"]] == [("add", "result"), ("crash", "no-reply")]


def test_record_exit_status_is_the_servers(tmp_path: Path):
    out = tmp_path / "rec.json"
    line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}}).encode() + b"\n"
    script = "import sys; sys.stdin.readline(); sys.exit(5)"
    done = subprocess.run([*RECORD, "--out", str(out), "--", PYTHON, "-c", script], input=line, timeout=60)
    assert done.returncode == 5
    assert json.loads(out.read_text())["calls"][0]["outcome"] == "no-reply"


def test_sigterm_is_passed_on_to_the_server(tmp_path: Path):
    out = tmp_path / "rec.json"
    proc = subprocess.Popen(
        [*RECORD, "--out", str(out), "--", PYTHON, str(SERVER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(RAW[0]).encode() + b"\n")
    proc.stdin.flush()
    assert b'"serverInfo"' in proc.stdout.readline()  # the server is up behind the proxy
    proc.terminate()
    assert proc.wait(timeout=60) == 128 + 15  # the server got the SIGTERM and ended by it
    assert json.loads(out.read_text())["server"]["name"] == "traffic-server"


def test_recording_is_written_while_running(tmp_path: Path):
    import time

    out = tmp_path / "rec.json"
    proc = subprocess.Popen(
        [*RECORD, "--out", str(out), "--flush-interval", "0.2", "--", PYTHON, str(SERVER)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    for message in (RAW[0], RAW[1], RAW[3]):
        proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()
        if "id" in message:
            proc.stdout.readline()
    calls: list[Any] = []
    for _ in range(600):  # the periodic write, not the one at exit (a hang guard, not a bound on time)
        if out.exists() and (calls := json.loads(out.read_text())["calls"]) and calls[0]["outcome"] != "no-reply":
            break
        time.sleep(0.1)
    assert proc.poll() is None and [c["outcome"] for c in calls] == ["result"]
    proc.stdin.close()
    assert proc.wait(timeout=60) == 0


def test_record_usage_errors(tmp_path: Path):
    cases = [
        [*RECORD, "--out", str(tmp_path / "r.json")],
        [*RECORD, "--out", str(tmp_path / "r.json"), "--listen", "127.0.0.1:1"],
        [*RECORD, "--out", str(tmp_path / "r.json"), "--listen", "nowhere", "--url", "http://127.0.0.1:1/mcp"],
    ]
    for args in cases:
        done = subprocess.run(args, capture_output=True, text=True, timeout=60)
        assert done.returncode == 2, done.stderr
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    done = subprocess.run(
        [*RECORD, "--out", str(tmp_path / "r.json"), "--", "/no/such/server"], capture_output=True, text=True
    )
    assert done.returncode == 3 and "cannot start the server" in done.stderr


@pytest.mark.parametrize(("mode", "elicit"), [("legacy", True), ("auto", False)])
def test_python_client_gets_the_same_through_record_over_http(tmp_path: Path, mode: str, elicit: bool):
    out = tmp_path / "rec.json"
    port = free_port()
    server = start_http_server([PYTHON, str(SERVER), "http", str(port)], port, env={"TRAFFIC_TOKEN": TOKEN})
    proxy_port = free_port()
    proxy = start_http_server(
        [*RECORD, "--out", str(out), "--listen", f"127.0.0.1:{proxy_port}", "--url", server.url("/mcp")],
        proxy_port,
        env={"TRAFFIC_TOKEN": TOKEN},
    )
    try:
        direct = anyio.run(_session, server.url("/mcp"), mode, elicit)
        proxied = anyio.run(_session, proxy.url("/mcp"), mode, elicit)
    finally:
        proxy.stop()
        server.stop()
    assert proxy.process.returncode == 0, proxy.output()
    assert proxied == direct
    rec = json.loads(out.read_text())
    assert rec["transport"] == "http" and rec["server"]["name"] == "traffic-server"
    calls = rec["calls"]
    assert [c["tool"] for c in calls] == [n for n, _ in CALLS] + (["confirm"] if elicit else [])
    assert all(c["outcome"] == "result" for c in calls), [
        (c["tool"], c["outcome"], c.get("protocol_version")) for c in calls
    ]
    assert calls[1]["result"]["structuredContent"] == {"conditions": "sunny in Oslo", "temperature": 21.5}
    assert calls[4]["result"]["structuredContent"] == {"result": "token is ***"}


def _ts_answers(prefix: Path, command: list[str]) -> list[Any]:
    done = subprocess.run(
        [NODE or "node", str(TS_RECORD_CLIENT), *command],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "SDK_PREFIX": str(prefix)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    # progress notifications may arrive after the result (the server does not await them): not compared
    return [r for r in rows if "progress" not in r]


def test_typescript_client_gets_the_same_through_record(tmp_path: Path, sdk_prefix: dict[str, Path]):  # noqa: F811
    out = tmp_path / "rec.json"
    prefix = sdk_prefix["ts-sdk-v1"]
    direct = _ts_answers(prefix, [PYTHON, str(SERVER)])
    proxied = _ts_answers(prefix, [*RECORD, "--out", str(out), "--", PYTHON, str(SERVER)])
    assert proxied == direct and len(direct) == 7
    assert direct[-1]["structuredContent"] == {"result": "accept:True"}  # the elicitation went both ways
    rec = json.loads(out.read_text())
    assert [c["tool"] for c in rec["calls"]] == ["add", "weather", "progress", "fail", "echo_secret", "confirm"]
    assert all(c["outcome"] == "result" for c in rec["calls"]), [(c["tool"], c["outcome"]) for c in rec["calls"]]
    assert rec["calls"][4]["result"]["structuredContent"] == {"result": "token is ***"}


def test_http_headers_secrets_masked_and_unreachable_upstream(tmp_path: Path):
    import httpx2

    out = tmp_path / "rec.json"
    token = "sk-test-0123456789abcdef"
    port = free_port()
    server = start_http_server([PYTHON, str(SERVER), "http", str(port)], port)
    proxy_port = free_port()
    proxy = start_http_server(
        [*RECORD, "--out", str(out), "--listen", f"127.0.0.1:{proxy_port}", "--url", server.url("/mcp")], proxy_port
    )
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}
    try:
        with httpx2.Client(headers=headers, timeout=60) as http:
            first = http.post(
                proxy.url("/mcp"), json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}
            )
            assert first.status_code == 200, first.text
            session = {"Mcp-Session-Id": first.headers["mcp-session-id"], "MCP-Protocol-Version": "2025-06-18"}
            http.post(
                proxy.url("/mcp"), json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session
            )
            call = {"name": "weather", "arguments": {"city": token}}
            reply = http.post(
                proxy.url("/mcp"),
                json={"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call},
                headers=session,
            )
            assert token in reply.text  # the client gets the real answer
    finally:
        proxy.stop()
        server.stop()
    rec = json.loads(out.read_text())
    assert token not in out.read_text()
    (only,) = rec["calls"]
    assert only["arguments"] == {"city": "***"} and only["protocol_version"] == "2025-06-18"
    assert only["result"]["structuredContent"]["conditions"] == "sunny in ***"
    # nothing listens upstream: the client gets a 502 with one line, the proxy keeps running
    proxy_port = free_port()
    proxy = start_http_server(
        [
            *RECORD,
            "--out",
            str(out),
            "--listen",
            f"127.0.0.1:{proxy_port}",
            "--url",
            f"http://127.0.0.1:{free_port()}/mcp",
        ],
        proxy_port,
    )
    try:
        with httpx2.Client(timeout=60) as http:
            bad = http.post(proxy.url("/mcp"), json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert bad.status_code == 502 and "cannot be reached" in bad.text
    finally:
        proxy.stop()
    assert proxy.process.returncode == 0


def test_typescript_client_gets_the_same_through_record_over_http(tmp_path: Path, sdk_prefix: dict[str, Path]):  # noqa: F811
    out = tmp_path / "rec.json"
    port = free_port()
    server = start_http_server([PYTHON, str(SERVER), "http", str(port)], port, env={"TRAFFIC_TOKEN": TOKEN})
    proxy_port = free_port()
    proxy = start_http_server(
        [*RECORD, "--out", str(out), "--listen", f"127.0.0.1:{proxy_port}", "--url", server.url("/mcp")],
        proxy_port,
        env={"TRAFFIC_TOKEN": TOKEN},
    )
    try:
        direct = _ts_answers(sdk_prefix["ts-sdk-v1"], [server.url("/mcp")])
        proxied = _ts_answers(sdk_prefix["ts-sdk-v1"], [proxy.url("/mcp")])
    finally:
        proxy.stop()
        server.stop()
    assert proxied == direct and len(direct) == 7
    assert direct[-1]["structuredContent"] == {"result": "accept:True"}  # elicitation on the POST's SSE stream
    rec = json.loads(out.read_text())
    assert [c["tool"] for c in rec["calls"]] == ["add", "weather", "progress", "fail", "echo_secret", "confirm"]
    assert all(c["outcome"] == "result" for c in rec["calls"]), [(c["tool"], c["outcome"]) for c in rec["calls"]]
    assert rec["calls"][4]["result"]["structuredContent"] == {"result": "token is ***"}


def test_http_upstream_crash_mid_call(tmp_path: Path):
    import httpx2

    out = tmp_path / "rec.json"
    port = free_port()
    server = start_http_server([PYTHON, str(SERVER), "http", str(port)], port)
    proxy_port = free_port()
    proxy = start_http_server(
        [*RECORD, "--out", str(out), "--listen", f"127.0.0.1:{proxy_port}", "--url", server.url("/mcp")], proxy_port
    )
    headers = {"Accept": "application/json, text/event-stream"}
    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}
    try:
        with httpx2.Client(headers=headers, timeout=60) as http:
            first = http.post(
                proxy.url("/mcp"), json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}
            )
            session = {"Mcp-Session-Id": first.headers["mcp-session-id"]}
            http.post(
                proxy.url("/mcp"), json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session
            )
            call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "crash", "arguments": {}}}
            try:
                reply = http.post(proxy.url("/mcp"), json=call, headers=session)
                assert b'"id":2' not in reply.content  # no answer: the server died in the call
            except httpx2.HTTPError:
                pass  # the response ended early, as it does without the proxy
    finally:
        proxy.stop()
        server.stop()
    assert proxy.process.returncode == 0 and "Traceback" not in proxy.output()
    assert [(c["tool"], c["outcome"]) for c in json.loads(out.read_text())["calls"]] == [("crash", "no-reply")]
