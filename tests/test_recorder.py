"""``capture.recorder.TrafficRecorder``: what ``record`` keeps of the messages it forwards, message by message.

The live tests (``tests/test_record_live.py``) drive real clients and servers through the proxies; these feed the
recorder the raw lines the proxies hand it, for the cases a real server rarely produces on demand: a
cancelled call, a batch, a reply too large to keep, a reply no JSON reader takes, a server-to-client request
whose id is also a pending client request's, sessions over HTTP, secrets, and the file it writes being read
back by ``probe --replay``/``--samples``/``--traffic``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcp_schema_audit.capture.recorder import TrafficRecorder
from mcp_schema_audit.capture.target import environment_secrets
from mcp_schema_audit.probe import load_recording
from mcp_schema_audit.traffic import read_calls


def _line(message: Any) -> bytes:
    return json.dumps(message).encode()


def _call(rid: Any, tool: str, args: dict[str, Any] | None = None) -> bytes:
    return _line(
        {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": tool, "arguments": args or {}}}
    )


def _result(rid: Any, structured: Any) -> bytes:
    return _line({"jsonrpc": "2.0", "id": rid, "result": {"content": [], "structuredContent": structured}})


def _handshake(rec: TrafficRecorder, session: str = "") -> None:
    rec.from_client(_line({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}), session)
    init = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "1"}}
    rec.from_server(_line({"jsonrpc": "2.0", "id": 0, "result": init}), session)
    rec.from_client(_line({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}), session)
    tools = [{"name": "t", "inputSchema": {"type": "object"}}]
    rec.from_server(_line({"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}}), session)


def test_outcomes_of_every_kind(tmp_path: Path):
    rec = TrafficRecorder(tmp_path / "r.json", max_chars=200)
    _handshake(rec)
    rec.from_client(_call(2, "t", {"a": 1}))
    rec.from_server(_result(2, {"ok": True}))
    rec.from_client(_call(3, "t"))
    rec.from_client(_line({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}}))
    rec.from_client(_call(4, "t"))
    rec.from_server(_line({"jsonrpc": "2.0", "id": 4, "error": {"code": -32602, "message": "bad"}}))
    rec.from_client(_call(5, "t"))
    rec.from_server(_result(5, {"big": "x" * 500}))
    rec.from_client(_call(6, "t"))
    rec.from_server(b'{"jsonrpc": "2.0", "id": 6, "result": {"structuredContent": {"v": NaN}}}')
    rec.from_client(_call(7, "t"))  # never answered
    data = rec.to_json()
    assert data["protocol_version"] == "2025-06-18" and data["server"] == {"name": "s", "version": "1"}
    assert [c["outcome"] for c in data["calls"]] == [
        "result",
        "cancelled",
        "rpc-error",
        "too-large",
        "not-json",
        "no-reply",
    ]
    assert data["calls"][3]["chars"] > 500 and "result" not in data["calls"][3]
    assert data["calls"][2]["error"] == {"code": -32602, "message": "bad"}
    assert all(c["protocol_version"] == "2025-06-18" for c in data["calls"])
    rec.flush()
    loaded = load_recording(tmp_path / "r.json")  # what probe --replay and --samples read
    assert [c["outcome"] for c in loaded.calls][0] == "result" and loaded.snapshot.tools[0]["name"] == "t"
    assert [(c.tool, c.arguments, c.result) for c in read_calls(tmp_path / "r.json")][0] == (
        "t",
        {"a": 1},
        {"content": [], "structuredContent": {"ok": True}},
    )


def test_batches_and_server_to_client_requests(tmp_path: Path):
    rec = TrafficRecorder(tmp_path / "r.json")
    _handshake(rec)
    rec.from_client(b"[" + _call(9, "t", {"n": 1}) + b"," + _call(10, "t", {"n": 2}) + b"]")
    # the server asks the client something with id 9 (its own id space): that is no reply to call 9
    rec.from_server(_line({"jsonrpc": "2.0", "id": 9, "method": "roots/list"}))
    rec.from_client(_line({"jsonrpc": "2.0", "id": 9, "result": {"roots": []}}))
    rec.from_server(b"[" + _result(10, {"n": 2}) + b"," + _result(9, {"n": 1}) + b"]")
    calls = rec.to_json()["calls"]
    assert [(c["arguments"], c["result"]["structuredContent"]) for c in calls] == [
        ({"n": 1}, {"n": 1}),
        ({"n": 2}, {"n": 2}),
    ]


def test_http_sessions_are_kept_apart(tmp_path: Path):
    rec = TrafficRecorder(tmp_path / "r.json", transport="http")
    rec.from_client(_line({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}), "\0pending-1")
    rec.bind_session("\0pending-1", "S1")
    init = {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s"}}
    rec.from_server(_line({"jsonrpc": "2.0", "id": 0, "result": init}), "S1")
    rec.from_client(_call(1, "t"), "S1")
    rec.from_client(_call(1, "t"), "S2", protocol="2025-06-18")  # the same id in another session
    rec.from_server(_result(1, {"s": 2}), "S2")
    rec.from_server(_result(1, {"s": 1}), "S1")
    calls = rec.to_json()["calls"]
    assert [c["result"]["structuredContent"] for c in calls] == [{"s": 1}, {"s": 2}]
    assert [c["protocol_version"] for c in calls] == ["2025-11-25", "2025-06-18"]


def test_secrets_are_masked_in_what_is_kept(tmp_path: Path):
    env = {"GITHUB_TOKEN": "ghp_abcdefghij1234567890", "XDG_SESSION_CLASS": "user", "PATH": "/usr/bin:/bin"}
    secrets = environment_secrets(env)
    assert secrets == ["ghp_abcdefghij1234567890"]  # short values and names that say nothing are left
    rec = TrafficRecorder(tmp_path / "r.json", secrets=secrets)
    rec.add_secrets(environment_secrets({"Authorization": "Bearer sk-live-0123456789"}))
    _handshake(rec)
    rec.from_client(_call(2, "t", {"token": "ghp_abcdefghij1234567890", "user": "user"}))
    rec.from_server(_result(2, {"echo": "auth sk-live-0123456789 for user"}))
    rec.flush()
    text = (tmp_path / "r.json").read_text()
    assert "ghp_abcdefghij1234567890" not in text and "sk-live-0123456789" not in text
    call = json.loads(text)["calls"][0]
    assert call["arguments"] == {"token": "***", "user": "user"}
    assert call["result"]["structuredContent"] == {"echo": "auth *** for user"}


def test_flush_writes_only_what_changed(tmp_path: Path):
    path = tmp_path / "r.json"
    rec = TrafficRecorder(path)
    assert rec.flush() is True and rec.flush() is False
    _handshake(rec)
    assert rec.flush() is True and json.loads(path.read_text())["tools"][0]["name"] == "t"


def test_a_long_recording_is_read_as_traffic(tmp_path: Path):
    # canonical JSON sorts the keys: "calls" comes first and "format" only after every call
    rec = TrafficRecorder(tmp_path / "r.json")
    _handshake(rec)
    for i in range(2000):
        rec.from_client(_call(i + 10, "t", {"n": i, "pad": "x" * 50}))
        rec.from_server(_result(i + 10, {"n": i}))
    rec.flush()
    assert (tmp_path / "r.json").stat().st_size > 1 << 17
    calls = list(read_calls(tmp_path / "r.json"))
    assert len(calls) == 2000 and calls[-1].arguments["n"] == 1999
