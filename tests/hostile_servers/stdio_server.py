"""A raw JSON-RPC MCP "server" on stdio (no SDK) that misbehaves on purpose, one way per ``--mode``.

It speaks just enough of the legacy handshake (``initialize``, then ``tools/list``) for the capture
to reach the stage each mode breaks; use it with ``schema-audit snapshot --protocol legacy``.
Every loop is bounded (``MAX_REQUESTS`` requests, ``MAX_SECONDS`` of life) so a test that forgets
to stop it cannot leave it running for long.

Modes:

- ``ok``: a correct server with two tools (sanity check of the harness).
- ``silent``: reads requests, never answers.
- ``garbage``: answers every request with non-JSON lines on stdout (HTML, log lines, binary).
- ``noise-then-ok``: writes log lines to stdout before each correct answer (a sloppy but working server).
- ``exit-handshake``: reads ``initialize``, prints a marker (and ``$SECRET_TOKEN``, as careless servers
  do) to stderr, exits 1.
- ``list-error``: ``tools/list`` answers JSON-RPC error -32603 (``--error-code`` another one: -32000 and -32001
  are also the codes the SDK gives a closed connection and a request timeout).
- ``cursor-repeat``: every page's ``nextCursor`` is ``"again"``.
- ``endless-pages``: a new ``nextCursor`` on every page, forever.
- ``huge``: a ``tools/list`` page of about ``--huge-mb`` MB (default 100), written in chunks.
- ``bad-tools``: ``tools/list`` has two tools named ``dup``.
- ``not-a-list``: ``tools/list`` result ``{"tools": "nope"}``.
- ``surrogate``: a tool name that is a lone UTF-16 surrogate escape (``"\\ud800"``), valid JSON text
  that no UTF-8 file can hold.
- ``echo-env``: a correct server whose tool description is fixed, and which prints the value of
  ``$SECRET_TOKEN`` to stderr (the capture must never repeat it).
- ``spawn-ignore-term``: ignores SIGTERM, starts a child that ignores SIGTERM too (pids written to
  ``--pid-file``), never answers.
- ``stderr-flood``: writes to stderr as fast as it can, never answers.
- ``setsid-child``: starts a child that calls ``os.setsid()`` (leaving the server's session and
  process group) and starts a grandchild, then answers like ``ok`` and exits at the end of stdin;
  the child and the grandchild sleep on. Lines ``server PID``, ``child PID PGID SID``, ``grandchild
  PID`` go to ``--pid-file``.
- ``setsid-child-hang``: the same child (ignoring SIGTERM, as its grandchild does), then like
  ``spawn-ignore-term``: ignores SIGTERM and stdin, never answers.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time

MAX_REQUESTS = 10_000
MAX_SECONDS = 120.0
STARTED = time.monotonic()
TOOLS = [
    {
        "name": "echo",
        "description": "Echo a string.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    },
    {"name": "ping", "description": "Ping.", "inputSchema": {"type": "object", "properties": {}}},
]


def send(obj: dict | str) -> None:
    line = obj if isinstance(obj, str) else json.dumps(obj)
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def result(req_id: object, res: dict) -> dict:
    return {"jsonrpc": "2.0", "id": req_id, "result": res}


def handshake(req: dict) -> dict:
    version = (req.get("params") or {}).get("protocolVersion", "2025-06-18")
    return result(
        req["id"],
        {
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "hostile", "version": "0.0.1"},
        },
    )


def huge_page(req_id: object, megabytes: int) -> None:
    """Write one tools/list answer of about ``megabytes`` MB without building it in memory."""
    head = json.dumps({"jsonrpc": "2.0", "id": req_id})[:-1] + ', "result": {"tools": ['
    sys.stdout.write(head)
    chunk = "x" * (1024 * 1024)
    for i in range(megabytes):
        sep = "," if i else ""
        try:
            sys.stdout.write(f'{sep}{{"name": "t{i}", "description": "{chunk}", "inputSchema": {{"type": "object"}}}}')
        except BrokenPipeError:
            return
    sys.stdout.write("]}}\n")
    sys.stdout.flush()


def spawn_and_linger(pid_file: str) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep({MAX_SECONDS})",
        ]
    )
    with open(pid_file, "w", encoding="utf-8") as fh:
        fh.write(f"{os.getpid()} {child.pid}\n")
    deadline = STARTED + MAX_SECONDS
    while time.monotonic() < deadline:  # ignore stdin EOF too
        time.sleep(0.2)


def spawn_setsid_child(pid_file: str, ignore_term: bool) -> None:
    """Start the child (``--mode setsid-sleeper``) and wait until it has left our session."""
    with open(pid_file, "a", encoding="utf-8") as fh:
        fh.write(f"server {os.getpid()}\n")
    subprocess.Popen(
        [
            sys.executable,
            os.path.abspath(__file__),
            "--mode",
            "setsid-sleeper",
            "--pid-file",
            pid_file,
            *(["--ignore-term"] if ignore_term else []),
        ]
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        with open(pid_file, encoding="utf-8") as fh:
            if "grandchild" in fh.read():
                return
        time.sleep(0.02)
    print("hostile: the setsid child never reported", file=sys.stderr, flush=True)
    sys.exit(1)


def setsid_sleeper(pid_file: str, ignore_term: bool) -> None:
    """The child of ``setsid-child``: a new session, a grandchild in it, then sleep."""
    os.setsid()
    code = "import time\n"
    if ignore_term:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        code += "import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    grandchild = subprocess.Popen([sys.executable, "-c", code + f"time.sleep({MAX_SECONDS})"])
    with open(pid_file, "a", encoding="utf-8") as fh:
        fh.write(f"child {os.getpid()} {os.getpgid(0)} {os.getsid(0)}\ngrandchild {grandchild.pid}\n")
    time.sleep(MAX_SECONDS)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", required=True)
    parser.add_argument("--pid-file")
    parser.add_argument("--huge-mb", type=int, default=100)
    parser.add_argument("--error-code", type=int, default=-32603)
    parser.add_argument("--ignore-term", action="store_true")
    args = parser.parse_args()
    mode = args.mode
    if mode == "setsid-sleeper":
        setsid_sleeper(args.pid_file, args.ignore_term)
        return 0
    if mode == "setsid-child-hang":
        spawn_setsid_child(args.pid_file, ignore_term=True)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        while time.monotonic() - STARTED < MAX_SECONDS:  # ignore stdin EOF too
            time.sleep(0.2)
        return 0
    if mode == "setsid-child":
        spawn_setsid_child(args.pid_file, ignore_term=False)
    if mode == "spawn-ignore-term":
        spawn_and_linger(args.pid_file)
        return 0
    if mode == "stderr-flood":
        line = "flood " * 10_000 + "\n"
        while time.monotonic() - STARTED < MAX_SECONDS:
            try:
                sys.stderr.write(line)
            except (BrokenPipeError, OSError):
                return 0
        return 0
    pages = 0
    for count, raw in enumerate(sys.stdin):
        if count >= MAX_REQUESTS or time.monotonic() - STARTED > MAX_SECONDS:
            return 0
        try:
            req = json.loads(raw)
        except ValueError:
            continue
        method, req_id = req.get("method"), req.get("id")
        if req_id is None:
            continue  # a notification
        if mode == "silent":
            continue
        if mode == "garbage":
            send("<html><body>502 Bad Gateway</body></html>")
            send("INFO starting up... \x1b[31mred\x1b[0m {not json")
            continue
        if mode == "exit-handshake":
            token = os.environ.get("SECRET_TOKEN")
            print(
                "hostile: FATAL cannot load config" + (f" (token {token})" if token else ""),
                file=sys.stderr,
                flush=True,
            )
            return 1
        if mode == "noise-then-ok":
            send("INFO this server logs to stdout (it should not)")
        if mode == "echo-env" and method == "initialize":
            print(f"hostile: token is {os.environ.get('SECRET_TOKEN', '')}", file=sys.stderr, flush=True)
        if method == "initialize":
            send(handshake(req))
        elif method == "tools/list":
            pages += 1
            if mode == "list-error":
                send(
                    {
                        "jsonrpc": "2.0",
                        "id": req_id,
                        "error": {"code": args.error_code, "message": "tool registry unavailable"},
                    }
                )
            elif mode == "cursor-repeat":
                send(result(req_id, {"tools": [dict(TOOLS[0], name=f"t{pages}")], "nextCursor": "again"}))
            elif mode == "endless-pages":
                send(result(req_id, {"tools": [dict(TOOLS[0], name=f"t{pages}")], "nextCursor": f"c{pages}"}))
            elif mode == "huge":
                huge_page(req_id, args.huge_mb)
            elif mode == "bad-tools":
                send(result(req_id, {"tools": [dict(TOOLS[0], name="dup"), dict(TOOLS[1], name="dup")]}))
            elif mode == "not-a-list":
                send(result(req_id, {"tools": "nope"}))
            elif mode == "surrogate":
                send(
                    '{"jsonrpc": "2.0", "id": ' + json.dumps(req_id) + ', "result": {"tools": [{"name": "\\ud800", '
                    '"inputSchema": {"type": "object"}}]}}'
                )
            else:
                send(result(req_id, {"tools": TOOLS}))
        elif method == "ping":
            send(result(req_id, {}))
        else:
            send({"jsonrpc": "2.0", "id": req_id, "error": {"code": -32601, "message": "Method not found"}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
