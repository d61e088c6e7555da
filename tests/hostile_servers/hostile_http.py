"""A plain HTTP server on 127.0.0.1 that misbehaves on purpose, for capture and no-fetch tests.

Not MCP: every path is one way of failing. ``HostileHTTPServer`` runs in a background thread of the
test process and records every request (method, path, headers) in ``requests``, so a test can
assert that nothing was fetched, or that a header reached the server but no output.

Paths (any method):

- ``/status/<code>``: answers ``<code>`` (401 with ``WWW-Authenticate``) and a short text body.
- ``/html``: ``200 text/html``, a login page instead of JSON-RPC.
- ``/json-garbage``: ``200 application/json`` whose body is not JSON.
- ``/stream``: ``200 text/event-stream`` that sends a keep-alive comment every 0.2 s and never ends.
- ``/silent``: reads the request and never answers.
- ``/huge``: ``200 application/json``, a JSON-RPC response of ``huge_mb`` MB, streamed.
- anything else: ``404``.

Every handler loop is bounded by ``stop()`` and by ``MAX_SECONDS``; the server binds 127.0.0.1 only.
"""

from __future__ import annotations

import http.server
import threading
import time
from typing import Any

MAX_SECONDS = 120.0


class HostileHTTPServer:
    """``with HostileHTTPServer() as srv: srv.url("/html")``; ``srv.requests`` lists what arrived."""

    def __init__(self, huge_mb: int = 100) -> None:
        self.requests: list[dict[str, Any]] = []
        self.huge_mb = huge_mb
        self._stop = threading.Event()
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def _body(self, code: int, ctype: str, body: bytes, extra: dict[str, str] | None = None) -> None:
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                for k, v in (extra or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

            def _handle(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                if 0 < length <= 1_000_000:
                    self.rfile.read(length)
                owner.requests.append({"method": self.command, "path": self.path, "headers": dict(self.headers)})
                path = self.path.split("?", 1)[0]
                if path.startswith("/status/"):
                    code = int(path.split("/")[2])
                    extra = {"WWW-Authenticate": 'Bearer realm="mcp"'} if code == 401 else None
                    self._body(code, "text/plain", f"status {code}\n".encode(), extra)
                elif path == "/html":
                    self._body(200, "text/html", b"<!doctype html><html><body><form>Sign in</form></body></html>")
                elif path == "/json-garbage":
                    self._body(200, "application/json", b"{this is not json")
                elif path == "/stream":
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Cache-Control", "no-cache")
                    self.end_headers()
                    started = time.monotonic()
                    while not owner._stop.is_set() and time.monotonic() - started < MAX_SECONDS:
                        try:
                            self.wfile.write(b": keep-alive\n\n")
                            self.wfile.flush()
                        except OSError:
                            return
                        owner._stop.wait(0.2)
                    self.close_connection = True
                elif path == "/silent":
                    owner._stop.wait(MAX_SECONDS)
                    self.close_connection = True
                elif path == "/huge":
                    chunk = b"x" * (1024 * 1024)
                    head = b'{"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "t", "description": "'
                    tail = b'", "inputSchema": {"type": "object"}}]}}'
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(head) + len(tail) + owner.huge_mb * len(chunk)))
                    self.end_headers()
                    try:
                        self.wfile.write(head)
                        for _ in range(owner.huge_mb):
                            if owner._stop.is_set():
                                return
                            self.wfile.write(chunk)
                        self.wfile.write(tail)
                    except OSError:
                        return
                else:
                    self._body(404, "text/plain", b"not found\n")

            do_GET = do_POST = do_DELETE = do_PUT = _handle

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def __enter__(self) -> HostileHTTPServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()


if __name__ == "__main__":  # manual use: python hostile_http.py, then point schema-audit at the printed URLs
    with HostileHTTPServer() as srv:
        print(srv.url("/"), flush=True)
        time.sleep(MAX_SECONDS)
