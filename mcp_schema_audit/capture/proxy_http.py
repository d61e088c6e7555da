"""``record --listen HOST:PORT --url UPSTREAM``: a transparent proxy for the Streamable HTTP transport.

Every HTTP request the client sends to ``http://HOST:PORT<path>`` goes to the upstream origin at the same
path and query (so a client of ``http://127.0.0.1:9000/mcp`` reaches ``UPSTREAM``'s ``/mcp``), with its
method, headers (``Mcp-Session-Id``, ``MCP-Protocol-Version``, ``Authorization``, ``Last-Event-ID`` …) and body
unchanged; only hop-by-hop headers are left to each connection, and ``Accept-Encoding`` is not passed on, so
the upstream answers uncompressed and the proxy can read what it forwards. The response comes back with its
status and headers, its body streamed chunk by chunk as the upstream sends it: a JSON reply, an SSE stream of
a POST (progress, server-to-client requests, the reply) or of a GET (the session's server-initiated stream),
a 202, a DELETE's answer. Each chunk is sent on before the ``TrafficRecorder`` reads it.

Sessions: requests are paired with replies per ``Mcp-Session-Id``; the ``initialize`` request, sent before
the server names the session, is moved to the session its response names. Header values whose names say they
are credentials (``Authorization`` …) are masked in the recording from the first request that carries them.
An upstream that cannot be reached gets the client a ``502`` with one line of text.
"""

from __future__ import annotations

import itertools
import socket
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from mcp_schema_audit.capture.recorder import TrafficRecorder
from mcp_schema_audit.capture.target import environment_secrets, redact_url
from mcp_schema_audit.errors import UsageError

_HOP = {
    b"host",
    b"connection",
    b"keep-alive",
    b"transfer-encoding",
    b"te",
    b"trailer",
    b"upgrade",
    b"proxy-authorization",
    b"proxy-connection",
    b"accept-encoding",
    b"content-length",
}
_RESPONSE_HOP = {b"connection", b"keep-alive", b"transfer-encoding", b"trailer", b"upgrade"}


def listen_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``127.0.0.1:9000``; ``[::1]:9000``; port 0 picks a free one) as ``(host, port)``. Raises
    ``UsageError`` for anything else."""
    host, sep, port = text.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise UsageError(f"--listen must be HOST:PORT, e.g. 127.0.0.1:9000 (got {text!r})")
    return host, int(port)


class HttpProxy:
    """The ASGI application of the proxy (``__call__``) for ``upstream`` (an http(s) URL)."""

    def __init__(self, upstream: str, recorder: TrafficRecorder, flush_s: float = 2.0) -> None:
        parts = urlsplit(upstream)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise UsageError(f"--url must be an http:// or https:// URL, got {redact_url(upstream)!r}")
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.recorder = recorder
        self.flush_s = flush_s
        self.client: Any = None
        self._temp = itertools.count(1)
        self.on_write_error: Callable[[OSError], None] | None = None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http":
            await self._forward(scope, receive, send)

    async def _lifespan(self, receive: Any, send: Any) -> None:
        import anyio
        import httpx2

        message = await receive()
        if message["type"] != "lifespan.startup":
            return
        self.client = httpx2.AsyncClient(timeout=httpx2.Timeout(30, read=None), follow_redirects=False)
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._flusher)
            await send({"type": "lifespan.startup.complete"})
            await receive()  # lifespan.shutdown
            tg.cancel_scope.cancel()
        await self.client.aclose()
        self._flush(force=True)
        await send({"type": "lifespan.shutdown.complete"})

    async def _flusher(self) -> None:
        import anyio

        while True:
            await anyio.sleep(self.recorder.next_flush(self.flush_s))
            await anyio.to_thread.run_sync(self._flush)  # a long write does not hold up the traffic

    def _flush(self, *, force: bool = False) -> None:
        try:
            self.recorder.flush(force=force)
        except OSError as exc:
            if self.on_write_error is not None:
                self.on_write_error(exc)

    async def _forward(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        import httpx2

        body = bytearray()
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = [(k, v) for k, v in scope["headers"] if k.lower() not in _HOP]
        named = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        lower = {k.lower(): v for k, v in named.items()}
        self.recorder.add_secrets(environment_secrets(named))
        session = lower.get("mcp-session-id") or f"\0pending-{next(self._temp)}"
        if body:
            self.recorder.from_client(bytes(body), session, lower.get("mcp-protocol-version"))
        url = self.origin + scope.get("raw_path", scope["path"].encode()).decode("latin-1")
        if scope.get("query_string"):
            url += "?" + scope["query_string"].decode("latin-1")
        request = self.client.build_request(scope["method"], url, headers=headers, content=bytes(body))
        try:
            response = await self.client.send(request, stream=True)
        except httpx2.HTTPError as exc:
            text = f"schema-audit record: the upstream server cannot be reached: {type(exc).__name__}\n".encode()
            await send({"type": "http.response.start", "status": 502, "headers": [(b"content-type", b"text/plain")]})
            await send({"type": "http.response.body", "body": text})
            return
        try:
            await self._relay(response, session, send)
        finally:
            await response.aclose()

    async def _relay(self, response: Any, session: str, send: Any) -> None:
        named = response.headers.get("mcp-session-id")
        if named and session.startswith("\0pending-"):
            self.recorder.bind_session(session, named)
            session = named
        out = [(k, v) for k, v in response.headers.raw if k.lower() not in _RESPONSE_HOP]
        await send({"type": "http.response.start", "status": response.status_code, "headers": out})
        kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
        reader = _SseReader(self.recorder, session) if kind == "text/event-stream" else None
        whole = bytearray()
        import httpx2

        try:
            async for chunk in response.aiter_raw():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
                if reader is not None:
                    reader.feed(chunk)
                elif kind == "application/json" and len(whole) <= 2 * self.recorder.max_chars + 1024:
                    whole += chunk
        except httpx2.HTTPError:
            pass  # the upstream went away mid-response (it crashed): the client's response ends here, as it did
        await send({"type": "http.response.body", "body": b""})
        if reader is None and whole:
            self.recorder.from_server(bytes(whole), session)


class _SseReader:
    """Server-sent events, split as they arrive: each event's ``data`` lines, joined, go to the recorder."""

    def __init__(self, recorder: TrafficRecorder, session: str) -> None:
        self.recorder, self.session = recorder, session
        self.pending = b""
        self.data: list[bytes] = []

    def feed(self, chunk: bytes) -> None:
        lines = (self.pending + chunk).split(b"\n")
        self.pending = lines.pop()
        if len(self.pending) > 64 * 1024 * 1024:
            self.pending = b""
        for line in lines:
            line = line.removesuffix(b"\r")
            if not line:
                if self.data:
                    self.recorder.from_server(b"\n".join(self.data), self.session)
                self.data = []
            elif line.startswith(b"data:"):
                self.data.append(line[5:].removeprefix(b" "))


def _quiet(signum: int, frame: Any) -> None:
    pass


def run_http_proxy(
    listen: tuple[str, int],
    upstream: str,
    recorder: TrafficRecorder,
    *,
    flush_s: float = 2.0,
    on_listening: Callable[[str], None] | None = None,
    on_write_error: Callable[[OSError], None] | None = None,
) -> None:
    """Serve the proxy on ``listen`` until SIGINT/SIGTERM; the recording is flushed every ``flush_s`` seconds
    and at the end. ``on_listening`` hears the address it serves (``http://host:port``, the port chosen when 0
    was asked). Raises ``UsageError`` when the address cannot be bound."""
    import uvicorn

    app = HttpProxy(upstream, recorder, flush_s)
    app.on_write_error = on_write_error
    host, port = listen
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise UsageError(f"--listen {host}:{port}: cannot listen there: {exc.strerror or exc}") from None
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False, timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    if on_listening is not None:
        on_listening(f"http://{shown}:{bound}")
    import signal

    # uvicorn stops on SIGINT/SIGTERM, then raises the signal again for the handler it found: a quiet one, so
    # that stopping the proxy is its normal end (exit 0), not an interruption
    previous = {s: signal.signal(s, _quiet) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        server.run(sockets=[sock])
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        sock.close()
        app._flush(force=True)
