"""What ``record`` keeps of the JSON-RPC traffic it forwards: the listing and every ``tools/call``.

The proxies (``proxy``: stdio, ``proxy_http``: Streamable HTTP) hand every message they forward, after
forwarding it, to a ``TrafficRecorder`` (``from_client``/``from_server``, one JSON-RPC line or body at a time,
raw bytes). The recorder pairs requests with replies per session and direction (a server-to-client request's
id never answers a client's request), and builds a recording in the probe recording's format
(``probe.recording``: ``format: schema-audit/probe-recording``, version 1), so ``probe --replay``,
``--samples`` and ``--traffic`` all read it:

- ``tools``: every tool of every ``tools/list`` result seen (the last entry of each name), sorted by name;
- ``calls``: one record per ``tools/call`` request, in request order: ``{"id", "tool", "arguments",
  "outcome", "result" | "error", "protocol_version", "duration_s", "chars"?}``; ``outcome`` is ``result``,
  ``rpc-error``, ``too-large`` (over ``max_chars``: ``chars`` says how big, nothing kept), ``not-json``
  (a NaN/Infinity, or text no JSON reader takes), ``cancelled`` (``notifications/cancelled``) or
  ``no-reply`` (the server ended, or the recording was written, before it answered);
- ``server``, ``protocol_version``, ``capabilities`` from the handshake (``initialize`` or ``server/discover``).

Secrets (``secrets``: what the environment and request headers hold, see ``target.environment_secrets``) are
replaced by ``***`` in arguments, results and errors before they are kept.
"""

from __future__ import annotations

import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import orjson

from mcp_schema_audit.capture.target import scrub_secrets
from mcp_schema_audit.snapshot import atomic_write_text, canonical_json

#: The recording's format (shared with ``probe --record``; ``probe.recording`` reads it).
RECORDING_FORMAT = "schema-audit/probe-recording"
RECORDING_VERSION = 1
#: Default cap on one call's arguments and on its result (characters of the JSON as sent).
MAX_CHARS = 1_000_000
#: Messages longer than this are forwarded but not read at all (bytes).
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
_PROTOCOL_META = "io.modelcontextprotocol/protocolVersion"
_SERVER_META = "io.modelcontextprotocol/serverInfo"


class TrafficRecorder:
    """The recording of one proxied server, built message by message (thread-safe).

    ``path``: where ``flush`` writes it (atomically); ``label``: the recording's label (default: the server's
    name once known); ``transport``: ``stdio`` or ``http``; ``secrets``: values masked in what is kept;
    ``max_chars``: the cap on one call's arguments and result."""

    def __init__(
        self,
        path: Path,
        *,
        label: str | None = None,
        transport: str = "stdio",
        secrets: list[str] | None = None,
        max_chars: int = MAX_CHARS,
        version: str = "",
    ) -> None:
        self.path = path
        self.label = label
        self.transport = transport
        self.secrets = sorted(set(secrets or []), key=len, reverse=True)
        self.max_chars = max_chars
        self.version = version
        self.started = time.monotonic()
        self.recorded_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
        self.server: dict[str, Any] = {}
        self.capabilities: dict[str, Any] = {}
        self.protocol_version: str | None = None
        self.tools: dict[str, dict[str, Any]] = {}
        self.calls: list[dict[str, Any]] = []
        self.messages = {"client": 0, "server": 0, "unread": 0}
        #: (session, request id) of client requests awaiting a reply → (method, call record or None, start)
        self._pending: dict[tuple[str, Any], tuple[str, dict[str, Any] | None, float]] = {}
        self._session_protocol: dict[str, str] = {}
        self._lock = threading.Lock()
        self._dirty = True
        self.write_s = 0.0  #: how long the last write took (seconds)

    def add_secrets(self, values: list[str]) -> None:
        """Mask ``values`` too (e.g. an ``Authorization`` header seen on a request) from now on."""
        with self._lock:
            fresh = [v for v in values if v and v not in self.secrets]
            if fresh:
                self.secrets = sorted({*self.secrets, *fresh}, key=len, reverse=True)

    # -- messages ---------------------------------------------------------------------------------------------

    def from_client(self, raw: bytes, session: str = "", protocol: str | None = None) -> None:
        """One message (a JSON-RPC object or batch, raw bytes) the client sent, already forwarded.
        ``protocol``: the ``MCP-Protocol-Version`` header it came with (HTTP)."""
        for message in self._parse(raw, "client") or []:
            with self._lock:
                self._client_message(message, session, protocol, len(raw))

    def from_server(self, raw: bytes, session: str = "") -> None:
        """One message the server sent (a reply, a notification or a server-to-client request)."""
        parsed = self._parse(raw, "server")
        if parsed is None:
            self._unreadable_reply(raw, session)
            return
        for message in parsed:
            with self._lock:
                self._server_message(message, session, len(raw))

    def bind_session(self, old: str, new: str) -> None:
        """Requests sent before the server named the session (``initialize`` over HTTP) move to session ``new``."""
        with self._lock:
            for key in [k for k in self._pending if k[0] == old]:
                self._pending[(new, key[1])] = self._pending.pop(key)
            if old in self._session_protocol:
                self._session_protocol[new] = self._session_protocol.pop(old)

    def _parse(self, raw: bytes, side: str) -> list[dict[str, Any]] | None:
        self.messages[side] += 1
        text = raw.strip()
        if not text:
            return []
        if len(text) > MAX_MESSAGE_BYTES:
            self.messages["unread"] += 1
            return []
        try:
            value = orjson.loads(text)
        except (orjson.JSONDecodeError, RecursionError):
            self.messages["unread"] += 1
            return None
        items = value if isinstance(value, list) else [value]
        return [m for m in items if isinstance(m, dict)]

    def _unreadable_reply(self, raw: bytes, session: str) -> None:
        """A server message orjson refuses (a NaN, a lone surrogate): the call it answers becomes ``not-json``."""
        import json
        import re

        found = re.search(rb'"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,20})', raw[:4096]) or re.search(
            rb'"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,20})\s*}?\s*$', raw[-4096:]
        )
        if not found:
            return
        try:
            rid = json.loads(found.group(1))
        except ValueError:
            return
        with self._lock:
            pending = self._pending.pop((session, rid), None)
            if pending and pending[1] is not None:
                record = pending[1]
                record["outcome"] = "not-json"
                record["error"] = {
                    "message": "the reply is not JSON an MCP client reads (NaN, Infinity, a lone surrogate)"
                }
                self._finish(record, pending[2])

    def _client_message(self, m: dict[str, Any], session: str, protocol: str | None, size: int) -> None:
        method, rid = m.get("method"), m.get("id")
        if not isinstance(method, str):
            return  # a reply to a server-to-client request
        params: dict[str, Any] = m["params"] if isinstance(m.get("params"), dict) else {}
        meta: dict[str, Any] = params["_meta"] if isinstance(params.get("_meta"), dict) else {}
        proto = protocol or (meta.get(_PROTOCOL_META) if isinstance(meta.get(_PROTOCOL_META), str) else None)
        if method == "notifications/cancelled":
            pending = self._pending.pop((session, params.get("requestId")), None)
            if pending and pending[1] is not None:
                pending[1]["outcome"] = "cancelled"
                self._finish(pending[1], pending[2])
            return
        if rid is None or isinstance(rid, bool) or not isinstance(rid, (str, int)):
            return  # a notification
        record: dict[str, Any] | None = None
        if method == "tools/call":
            args = params.get("arguments", {})
            record = {
                "id": str(len(self.calls) + 1),
                "tool": str(params.get("name")),
                "outcome": "no-reply",
            }
            proto = proto or self._session_protocol.get(session) or self.protocol_version
            if proto:
                record["protocol_version"] = proto
            if size > self.max_chars and _chars(args) > self.max_chars:
                record["arguments"] = {}
                record["arguments_chars"] = _chars(args)
            else:
                record["arguments"] = self._masked(args)
            self.calls.append(record)
            self._dirty = True
        self._pending[(session, rid)] = (method, record, time.monotonic())

    def _server_message(self, m: dict[str, Any], session: str, size: int) -> None:
        if "method" in m or ("result" not in m and "error" not in m):
            return  # a notification or a server-to-client request: forwarded, not recorded
        pending = self._pending.pop((session, m.get("id")), None)
        if pending is None:
            return
        method, record, start = pending
        result = m.get("result")
        if method in ("initialize", "server/discover") and isinstance(result, dict):
            self._handshake(method, result, session)
        elif method == "tools/list" and isinstance(result, dict) and isinstance(result.get("tools"), list):
            for tool in result["tools"]:
                if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                    self.tools[tool["name"]] = self._masked(tool)
            self._dirty = True
        if record is None:
            return
        if "error" in m:
            record["outcome"] = "rpc-error"
            record["error"] = self._masked(m["error"]) if isinstance(m["error"], dict) else {"message": str(m["error"])}
        elif not isinstance(result, dict):
            record["outcome"] = "rpc-error"
            record["error"] = {"message": "the reply's result is not an object"}
        elif size > self.max_chars and (chars := _chars(result)) > self.max_chars:
            record["outcome"] = "too-large"
            record["chars"] = chars
        else:
            record["outcome"] = "result"
            record["result"] = self._masked(result)
        self._finish(record, start)

    def _handshake(self, method: str, result: dict[str, Any], session: str) -> None:
        proto = result.get("protocolVersion")
        meta: dict[str, Any] = result["_meta"] if isinstance(result.get("_meta"), dict) else {}
        if not isinstance(proto, str) and method == "server/discover":
            versions = result.get("supportedVersions")
            proto = versions[0] if isinstance(versions, list) and versions and isinstance(versions[0], str) else None
        if isinstance(proto, str):
            self.protocol_version = proto
            self._session_protocol[session] = proto
        info = result.get("serverInfo") if isinstance(result.get("serverInfo"), dict) else meta.get(_SERVER_META)
        if isinstance(info, dict):
            self.server = {k: v for k, v in self._masked(info).items() if k in ("name", "title", "version")}
        if isinstance(result.get("capabilities"), dict):
            self.capabilities = self._masked(result["capabilities"])
        self._dirty = True

    def _finish(self, record: dict[str, Any], start: float) -> None:
        record["duration_s"] = round(time.monotonic() - start, 3)
        self._dirty = True

    def _masked(self, value: Any) -> Any:
        if not self.secrets or not isinstance(value, (dict, list, str)):
            return value
        return scrub_secrets(orjson.loads(orjson.dumps(value)) if not isinstance(value, str) else value, self.secrets)

    # -- the file ---------------------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The recording as a JSON-ready dict (a copy: safe to serialize while messages go on arriving)."""
        with self._lock:
            label = self.label or str(self.server.get("name") or self.path.stem)
            return orjson.loads(
                orjson.dumps(
                    {
                        "format": RECORDING_FORMAT,
                        "format_version": RECORDING_VERSION,
                        "label": label,
                        "server": self.server,
                        "protocol_version": self.protocol_version,
                        "transport": self.transport,
                        "capabilities": self.capabilities,
                        "tools": [self.tools[name] for name in sorted(self.tools)],
                        "calls": self.calls,
                        "meta": {
                            "recorded_at": self.recorded_at,
                            "recorded_by": "schema-audit record",
                            "schema_audit_version": self.version,
                            "duration_s": round(time.monotonic() - self.started, 3),
                            "messages": dict(self.messages),
                        },
                    }
                )
            )

    def flush(self, *, force: bool = False) -> bool:
        """Write the recording to ``path`` atomically when anything changed since the last write (always with
        ``force``). Returns whether it wrote. Raises ``OSError`` when the file cannot be written."""
        with self._lock:
            if not (self._dirty or force):
                return False
            self._dirty = False
        started = time.monotonic()
        atomic_write_text(self.path, canonical_json(self.to_json(), str(self.path)))
        self.write_s = time.monotonic() - started
        return True

    def next_flush(self, interval: float) -> float:
        """Seconds until the next periodic write: ``interval``, or ten times the last write's duration when that
        is longer (a long session's recording is not rewritten more than a tenth of the time)."""
        return max(interval, 10 * self.write_s)


def _chars(value: Any) -> int:
    try:
        return len(orjson.dumps(value))
    except (TypeError, orjson.JSONEncodeError):
        return 0
