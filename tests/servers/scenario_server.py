"""An MCP server (raw JSON-RPC, no SDK) that lists chosen tools and answers each ``tools/call`` with a chosen
result, byte for byte: the probe and the real-client tests need results an SDK server would reshape or refuse.

Run it::

    python scenario_server.py --scenario FILE               # stdio
    python scenario_server.py --scenario FILE --http PORT   # Streamable HTTP on http://127.0.0.1:PORT/mcp

The scenario file: ``{"name": "…", "version": "…", "tools": [raw tool objects],
"results": {"tool name": <answer>}}``. An answer is the raw ``tools/call`` result, or a directive:

- ``{"$error": {"code": -32602, "message": "…"}}``: a JSON-RPC error answer (``$VAR`` in the message is
  replaced from the environment, as a server that leaks its secrets would);
- ``{"$sleep": SECONDS, "result": {...}}``: answer after a pause (no answer within a call timeout);
- ``{"$expand": {...}}``: the result given, ``$VAR`` in its strings replaced from the environment;
- ``{"$huge_mb": N}``: a result of about N MB (``content`` holds one huge text block), written in chunks;
- ``{"$deep": N}``: a result whose ``structuredContent`` is nested N arrays deep;
- ``{"$raw": "<JSON text>"}``: the result as this exact text (e.g. ``{"structuredContent": {"n": NaN}}``);
- ``{"$garbage": true}``: a line that is not JSON, and no answer;
- ``{"$exit": true}``: the server exits without answering.

Optional scenario keys: ``instructions`` (sent in the handshake); ``tools_raw`` (the ``tools/list`` result as
this exact JSON text, e.g. with ``NaN`` or ``1e400``); ``echo: true`` (``$VAR`` in the name, version, instructions
and tools replaced as in ``$expand``: a server that echoes its secrets into its listing). Over HTTP every request
header is also a variable: ``$HDR_X_API_KEY`` is the ``X-Api-Key`` header of the request.

It speaks the ``initialize`` handshake (any version it is offered, else 2025-11-25) and answers
``server/discover`` with -32601, so clients in ``auto`` mode fall back at once. Over HTTP each POST gets
one ``application/json`` answer (202 for notifications). Every loop is bounded (``MAX_SECONDS``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MAX_SECONDS = 300.0
STARTED = time.monotonic()
SUPPORTED = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")


def expand(value: Any, variables: dict[str, str]) -> Any:
    """``value`` (JSON) with ``$NAME`` in its strings replaced from the environment and ``variables``."""
    names = {**os.environ, **variables}
    text = re.sub(r"\$(\w+)", lambda m: names.get(m.group(1), m.group(0)), json.dumps(value))
    return json.loads(text)


def respond(
    scenario: dict[str, Any],
    request: dict[str, Any],
    write: Callable[[str], None],
    variables: dict[str, str] | None = None,
) -> str | None:
    """The JSON text answering ``request`` (None for a notification or a directive that answers itself
    through ``write``, raw text chunks of the answer). ``variables``: more ``$NAME`` values (HTTP headers)."""
    variables = variables or {}
    if scenario.get("echo"):
        scenario = {
            **scenario,
            **expand(
                {k: scenario[k] for k in ("name", "version", "instructions", "tools") if k in scenario}, variables
            ),
        }
    method, req_id = request.get("method"), request.get("id")
    params = request.get("params") or {}
    log = scenario.get("$log")
    if log and method:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(
                json.dumps(
                    {
                        "method": method,
                        "tool": params.get("name") if method == "tools/call" else None,
                        "arguments": params.get("arguments") if method == "tools/call" else None,
                    }
                )
                + "\n"
            )
    if req_id is None:
        return None

    def result(value: Any) -> str:
        return json.dumps({"jsonrpc": "2.0", "id": req_id, "result": value})

    def error(code: int, message: str) -> str:
        return json.dumps({"jsonrpc": "2.0", "id": req_id, "error": {"code": code, "message": message}})

    if method == "initialize":
        version = params.get("protocolVersion")
        return result(
            {
                "protocolVersion": version if version in SUPPORTED else "2025-11-25",
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": scenario.get("name", "scenario"), "version": scenario.get("version", "1.0.0")},
                **({"instructions": scenario["instructions"]} if "instructions" in scenario else {}),
            }
        )
    if method == "ping":
        return result({})
    if method == "tools/list":
        if "tools_raw" in scenario:
            return result_text(req_id, scenario["tools_raw"])
        return result({"tools": scenario.get("tools", [])})
    if method != "tools/call":
        return error(-32601, f"Method not found: {method}")
    answer = scenario.get("results", {}).get(params.get("name"))
    if answer is None:
        return error(-32602, f"Unknown tool: {params.get('name')}")
    if not isinstance(answer, dict):
        return result(answer)
    if "$error" in answer:
        err = dict(answer["$error"])
        if isinstance(err.get("message"), str):  # "$VAR" in a message: a server that leaks its environment
            err["message"] = expand(err["message"], variables)
        return json.dumps({"jsonrpc": "2.0", "id": req_id, "error": err})
    if "$sleep" in answer:
        time.sleep(float(answer["$sleep"]))
        return result(answer.get("result", {"content": []}))
    if answer.get("$exit"):
        sys.stdout.flush()
        os._exit(3)
    if answer.get("$garbage"):
        write("<html>this is not JSON-RPC</html>\n")
        return None
    if "$expand" in answer:  # "$VAR" in any string of the result: a server that echoes its environment
        return result(expand(answer["$expand"], variables))
    if "$raw" in answer:
        return result_text(req_id, answer["$raw"])
    if "$deep" in answer:
        depth = int(answer["$deep"])
        inner = "[" * depth + "]" * depth
        return result_text(req_id, '{"content": [], "structuredContent": {"v": ' + inner + "}}")
    if "$huge_mb" in answer:
        head = json.dumps({"jsonrpc": "2.0", "id": req_id})[:-1] + ', "result": {"content": [{"type": "text", "text": "'
        write(head)
        chunk = "x" * (1024 * 1024)
        for _ in range(int(answer["$huge_mb"])):
            write(chunk)
        write('"}]}}\n')
        return None
    return result(answer)


def result_text(req_id: Any, raw_result: str) -> str:
    """A JSON-RPC result whose ``result`` is the raw JSON text given (not re-serialized)."""
    return json.dumps({"jsonrpc": "2.0", "id": req_id})[:-1] + ', "result": ' + raw_result + "}"


def serve_stdio(scenario: dict[str, Any]) -> None:
    """One thread per request (as SDK servers do: a slow call does not hold up the next), writes serialized."""
    lock = threading.Lock()

    def write(text: str) -> None:
        with lock:
            sys.stdout.write(text)
            sys.stdout.flush()

    def handle(request: dict[str, Any]) -> None:
        answer = respond(scenario, request, write)
        if answer is not None:
            write(answer + "\n")

    for line in sys.stdin:
        if time.monotonic() - STARTED > MAX_SECONDS:
            return
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError:
            continue
        if not isinstance(request, dict):
            continue
        threading.Thread(target=handle, args=(request,), daemon=True).start()


def serve_http(scenario: dict[str, Any], port: int) -> None:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # keep the test logs quiet
            pass

        def do_GET(self) -> None:  # noqa: N802 - no server-initiated stream
            self.send_response(405)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_DELETE(self) -> None:  # noqa: N802
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers.get("Content-Length") or 0)
            try:
                request = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                request = {}
            chunks: list[str] = []
            streamed = {"started": False}

            def write(text: str) -> None:
                if not streamed["started"]:
                    streamed["started"] = True
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Connection", "close")
                    self.end_headers()
                self.wfile.write(text.encode("utf-8"))
                chunks.append("")

            headers = {"HDR_" + re.sub(r"\W", "_", k).upper(): v for k, v in self.headers.items()}
            answer = respond(scenario, request if isinstance(request, dict) else {}, write, headers)
            if streamed["started"]:
                self.close_connection = True
                return
            if answer is None:
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            body = answer.encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    httpd.daemon_threads = True
    timer = threading.Timer(MAX_SECONDS, httpd.shutdown)
    timer.daemon = True
    timer.start()
    httpd.serve_forever()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", required=True, help="scenario JSON file")
    parser.add_argument(
        "--http", type=int, metavar="PORT", default=None, help="serve Streamable HTTP on 127.0.0.1:PORT"
    )
    parser.add_argument(
        "--log",
        metavar="FILE",
        default=None,
        help="append one JSON line per request received (method; tool name and arguments of a call)",
    )
    args = parser.parse_args()
    with open(args.scenario, encoding="utf-8") as fh:
        scenario = json.load(fh)
    scenario["$log"] = args.log
    if args.http is not None:
        serve_http(scenario, args.http)
    else:
        serve_stdio(scenario)
    return 0


if __name__ == "__main__":
    sys.exit(main())
