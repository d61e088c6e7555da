"""``record``: a transparent MCP proxy that writes what real clients list and call (stdio or Streamable HTTP)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from mcp_schema_audit import __version__
from mcp_schema_audit.cli import source
from mcp_schema_audit.cli.app import command
from mcp_schema_audit.cli.common import err
from mcp_schema_audit.errors import UsageError

_RECORD_HELP = """Stand between a host (or your end-to-end tests) and an MCP server, forward every message
both ways unchanged, and write what was listed and called to FILE.

stdio: the host launches 'schema-audit record --out FILE -- SERVER_CMD...' in place of SERVER_CMD; the
server inherits the environment, the working folder and stderr; the exit status is the server's.
Streamable HTTP: 'schema-audit record --out FILE --listen 127.0.0.1:PORT --url UPSTREAM' serves the
upstream's paths on PORT (a client of http://127.0.0.1:PORT/mcp reaches UPSTREAM's /mcp) until Ctrl-C or
SIGTERM (exit 0).

FILE is a probe recording (probe --replay, diff/history --samples and --traffic read it): the tools of
every tools/list result seen, and each tools/call's arguments, result or error, protocol version and
duration. It is written atomically every --flush-interval seconds and at the end, also when the server
crashes mid-call. Values of environment variables and request headers whose names say they are
credentials (TOKEN, KEY, SECRET, PASSWORD, AUTH ...) are replaced by *** in it; arguments and results
over --max-chars are not kept (the call says how big they were).
"""

Out = Annotated[
    Path,
    typer.Option(
        "--out", "--output", "-o", metavar="FILE", help="The recording to write (replaced; --output and -o too)."
    ),
]
Listen = Annotated[
    str | None,
    typer.Option("--listen", metavar="ADDRESS", help="Streamable HTTP: serve the proxy at HOST:PORT (with --url)."),
]
UpstreamUrl = Annotated[
    str | None, typer.Option("--url", metavar="URL", help="Streamable HTTP: the upstream server's endpoint.")
]
RecordLabel = Annotated[
    str | None, typer.Option("--label", metavar="NAME", help="The recording's label (default: the server's name).")
]
MaxChars = Annotated[
    int,
    typer.Option(
        "--max-chars", metavar="N", help="Largest arguments or result (JSON characters) kept per call.", min=1
    ),
]
FlushInterval = Annotated[
    float,
    typer.Option("--flush-interval", metavar="SECONDS", help="Write the recording this often while running."),
]


@command(
    "Proxy an MCP server and record the calls clients make.",
    _RECORD_HELP,
    exits="over stdio the server's own exit status (128 + N after signal N); over HTTP 0 after Ctrl-C or "
    "SIGTERM; 2 bad options (no server, --listen without --url, an address that cannot be bound); 3 the "
    "server command cannot be started.",
)
def record(
    out: Out,
    command: source.ServerCommand = None,
    listen: Listen = None,
    url: UpstreamUrl = None,
    label: RecordLabel = None,
    max_chars: MaxChars = 1_000_000,
    flush_interval: FlushInterval = 2.0,
) -> None:
    recorder, write_failed = _recorder(out, command, listen, url, label, max_chars, flush_interval)
    if command:
        from mcp_schema_audit.capture.proxy import run_stdio_proxy

        raise typer.Exit(run_stdio_proxy(command, recorder, flush_s=flush_interval, on_write_error=write_failed))
    from mcp_schema_audit.capture.proxy_http import listen_address, run_http_proxy

    assert listen is not None and url is not None
    run_http_proxy(
        listen_address(listen),
        url,
        recorder,
        flush_s=flush_interval,
        on_listening=lambda where: err(f"recording to {out}; listening on {where}"),
        on_write_error=write_failed,
    )
    err(f"recorded {len(recorder.calls)} tool call(s) to {out}")


def _recorder(
    out: Path,
    command: list[str] | None,
    listen: str | None,
    url: str | None,
    label: str | None,
    max_chars: int,
    flush_interval: float,
) -> tuple[Any, Callable[[OSError], None]]:
    """The options checked (``UsageError``), the recorder, and what to do when the file cannot be written."""
    from mcp_schema_audit.capture.recorder import TrafficRecorder
    from mcp_schema_audit.capture.target import environment_secrets

    if not flush_interval > 0:
        raise UsageError(f"--flush-interval must be a positive number of seconds, got {flush_interval!r}")
    if bool(command) == bool(listen or url):
        raise UsageError("give either -- SERVER_COMMAND... (stdio) or --listen HOST:PORT with --url URL (HTTP)")
    if not command and not (listen and url):
        raise UsageError("Streamable HTTP needs both --listen HOST:PORT and --url URL")
    if out.is_dir():
        raise UsageError(f"--out {out}: is a folder")
    recorder = TrafficRecorder(
        out,
        label=label,
        transport="stdio" if command else "http",
        secrets=environment_secrets(dict(os.environ)),
        max_chars=max_chars,
        version=__version__,
    )
    warned: list[str] = []

    def write_failed(exc: OSError) -> None:
        if not warned:
            warned.append(str(exc))
            err(f"cannot write the recording {out}: {exc.strerror or exc} (the traffic is still forwarded)")

    return recorder, write_failed
