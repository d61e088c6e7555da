"""The server-source options ``snapshot`` and ``probe`` share (stdio command after ``--``, ``--url``, ``--sse``,
``--header``, ``--header-env``, ``--env``, ``--cwd``, ``--protocol``, ``--timeout``), declared once, and the
``CaptureTarget`` they describe."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Annotated, Any

import typer

from mcp_schema_audit.cli.common import err, parse_pairs
from mcp_schema_audit.errors import UsageError

ServerCommand = Annotated[
    list[str] | None,
    typer.Argument(
        metavar="[-- SERVER_COMMAND...]",
        show_default=False,
        help="stdio server: everything after -- is the command and its arguments.",
    ),
]
Url = Annotated[
    str | None, typer.Option("--url", metavar="URL", help="Streamable HTTP endpoint, e.g. http://127.0.0.1:8000/mcp.")
]
Sse = Annotated[str | None, typer.Option("--sse", metavar="URL", help="Legacy HTTP+SSE endpoint URL.")]
Header = Annotated[
    list[str] | None,
    typer.Option(
        "--header",
        "-H",
        metavar="'NAME: VALUE'",
        help="HTTP header 'Name: value' (repeatable). Never stored or printed.",
    ),
]
HeaderEnv = Annotated[
    list[str] | None,
    typer.Option(
        "--header-env",
        metavar="NAME=ENV_VAR",
        help="HTTP header whose whole value is the environment variable ENV_VAR: "
        "'Authorization=MCP_TOKEN' with MCP_TOKEN='Bearer abc…' sends 'Authorization: "
        "Bearer abc…' (repeatable). Never stored or printed.",
    ),
]
Env = Annotated[
    list[str] | None,
    typer.Option(
        "--env",
        "-e",
        metavar="KEY=VALUE",
        help=(
            "KEY=VALUE for the stdio server (repeatable). The MCP SDK passes the server only HOME, LOGNAME, PATH, "
            "SHELL, TERM and USER from this environment: pass anything else it needs here. Values are never stored."
        ),
    ),
]
Cwd = Annotated[Path | None, typer.Option("--cwd", metavar="DIR", help="Working directory of the stdio server.")]
Protocol = Annotated[
    str,
    typer.Option(
        "--protocol",
        metavar="auto|legacy|2026-07-28",
        help=(
            "auto | legacy | 2026-07-28. auto probes server/discover and falls back to the initialize handshake; a "
            "legacy server that ignores unknown requests costs the SDK's 10 s probe timeout (use legacy)."
        ),
    ),
]


def at_most_a_day(value: float | None) -> float | None:
    """Option callback: seconds beyond a day (``inf``, ``1e309``) are a mistake, never "wait forever"."""
    if value is not None and value != value:
        raise typer.BadParameter("nan is not a number of seconds")
    if value is not None and not value <= MAX_SECONDS:
        raise typer.BadParameter(f"{value:g} is more than {MAX_SECONDS:g} seconds (a day)")
    return value


#: The longest --timeout/--call-timeout: a day.
MAX_SECONDS = 86_400.0
Timeout = Annotated[
    float,
    typer.Option(
        "--timeout",
        min=0.1,
        callback=at_most_a_day,
        metavar="SECONDS",
        help="Seconds for the whole run: connect, handshake, tools/list (probe: and every call), disconnect.",
    ),
]
MaxPages = Annotated[
    int, typer.Option("--max-pages", min=1, metavar="N", help="Give up after this many tools/list pages.")
]
Verbose = Annotated[
    bool,
    typer.Option(
        "--verbose",
        "-v",
        help="Show the MCP SDK's own log messages on stderr, and a failed stdio server's whole stderr.",
    ),
]


@dataclass(frozen=True)
class ServerSource:
    """The server options of ``snapshot`` and ``probe`` as given: exactly one of ``command`` (stdio), ``url``
    (Streamable HTTP) and ``sse``, with their headers (``NAME: VALUE``, ``NAME=ENV_VAR``), the stdio server's
    environment (``KEY=VALUE``) and folder, the protocol, ``timeout`` (seconds for the whole run), ``max_pages``
    and ``verbose`` (the SDK's own log on stderr)."""

    command: list[str] | None = None
    url: str | None = None
    sse: str | None = None
    header: tuple[str, ...] = ()
    header_env: tuple[str, ...] = ()
    env: tuple[str, ...] = ()
    cwd: Path | None = None
    protocol: str = "auto"
    timeout: float = 60.0
    max_pages: int = 1000
    verbose: bool = False

    @classmethod
    def of(cls, options: dict[str, Any]) -> ServerSource:
        """The source a command's parameters name (``locals()`` of ``snapshot``/``probe``: ``command``, ``url``,
        ``sse``, ``header``, ``header_env``, ``env``, ``cwd``, ``protocol``, ``timeout``, ``max_pages``,
        ``verbose``; a repeatable option not given is None there)."""
        values = {f.name: options[f.name] for f in fields(cls) if f.name in options}
        for name in ("header", "header_env", "env"):
            values[name] = tuple(values.get(name) or ())
        return cls(**values)

    @property
    def live(self) -> bool:
        """True when a live server was given (a command after ``--``, ``--url`` or ``--sse``)."""
        return has_server(self.command, self.url, self.sse)

    def target(self) -> tuple[Any, str]:
        """``(CaptureTarget, where)``: see ``build_target``."""
        return build_target(
            self.command, self.url, self.sse, list(self.header), list(self.header_env), list(self.env), self.cwd
        )


#: Longest server command shown in a progress line (a longer one is cut with ``…``).
COMMAND_CHARS = 200


def shown_command(command: list[str]) -> str:
    """``command`` as a shell would read it (``shlex.join``), on one line, its credentials masked
    (``capture.target.command_secrets``: before it is cut, so no part of one shows), at most ``COMMAND_CHARS``
    characters."""
    import shlex

    from mcp_schema_audit.capture.target import command_secrets, scrub_message

    text = scrub_message(" ".join(shlex.join(command).split()), command_secrets(command))
    return text if len(text) <= COMMAND_CHARS else text[: COMMAND_CHARS - 1] + "…"


@contextlib.contextmanager
def server_output_shown(verbose: bool) -> Iterator[None]:
    """Under ``-v``, a capture that fails prints the stdio server's whole kept stderr (cleaned, secrets masked)
    before its one-line error; the error is raised again either way."""
    from mcp_schema_audit.errors import CaptureError

    try:
        yield
    except CaptureError as exc:
        if verbose and exc.output:
            err("server stderr:")
            for line in exc.output:
                err(f"  {line}")
        raise


def has_server(command: list[str] | None, url: str | None, sse: str | None) -> bool:
    """True when a live server source was given (a command after ``--``, ``--url`` or ``--sse``)."""
    return bool(command) or bool(url) or bool(sse)


def check_protocol(protocol: str) -> str:
    """``protocol`` when it is ``auto``, ``legacy`` or ``2026-07-28``; else ``UsageError``."""
    if protocol not in ("auto", "legacy", "2026-07-28"):
        raise UsageError(f"--protocol must be auto, legacy or 2026-07-28 (got {protocol!r})")
    return protocol


def build_target(
    command: list[str] | None,
    url: str | None,
    sse: str | None,
    header: list[str],
    header_env: list[str],
    env: list[str],
    cwd: Path | None,
) -> tuple[Any, str]:
    """``(CaptureTarget, where)`` for exactly one of ``command`` (stdio), ``url`` (Streamable HTTP) and ``sse``;
    ``where`` names it for progress lines (the command line, ``shown_command``, or the URL with credentials and
    query values masked).

    Headers from ``--header-env`` are read from the environment here. Raises ``UsageError`` for a missing or
    ambiguous source, a malformed ``NAME: VALUE``/``KEY=VALUE``, an unset environment variable, a URL that is
    not http(s).
    """
    from mcp_schema_audit.capture import CaptureTarget, redact_url

    if sum(1 for x in (bool(command), url, sse) if x) != 1:
        raise UsageError("give exactly one server: -- SERVER_COMMAND..., --url or --sse")
    headers = parse_pairs(header, ":", "--header")
    for name, var in parse_pairs(header_env, "=", "--header-env").items():
        if var not in os.environ:
            raise UsageError(f"--header-env {name}: environment variable {var} is not set")
        headers[name] = os.environ[var]
    if command:
        target = CaptureTarget(
            "stdio", command=list(command), env=parse_pairs(env, "=", "--env"), cwd=str(cwd) if cwd else None
        )
        return target, shown_command(command)
    endpoint = url or sse or ""
    if not endpoint.lower().startswith(("http://", "https://")):
        raise UsageError("--url/--sse must be an http:// or https:// URL")
    return CaptureTarget("http" if url else "sse", url=endpoint, headers=headers), redact_url(endpoint)


def capturing(where: str, side: str = "") -> float:
    """Say on stderr that a capture of ``where`` starts (``[SIDE: ]capturing from WHERE …``: ``snapshot``, ``check``
    and ``demo`` alike); returns the start, in ``time.monotonic`` seconds, for ``captured``."""
    err(f"{side + ': ' if side else ''}capturing from {where} …")
    return time.monotonic()


def captured(snap: Any, started: float, side: str = "", wrote: str | None = None) -> None:
    """Say on stderr what the capture begun at ``started`` holds and how long it took: ``[SIDE: ]wrote FILE (7 tools,
    0 prompts, …, 2026-07-28; 1.2 s)``, or without ``wrote`` ``[SIDE: ]7 tools, …; 1.2 s``."""
    holds = f"{snap.holds()}; {time.monotonic() - started:.1f} s"
    err((side + ": " if side else "") + (f"wrote {wrote} ({holds})" if wrote else holds))
