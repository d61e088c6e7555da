"""Capture failures explained: one line naming the stage, the cause and the next step (exit 3), secrets scrubbed."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence

from mcp_schema_audit.capture.process import STDERR_LINE_CHARS, STDERR_TAIL_LINES
from mcp_schema_audit.capture.state import RunState
from mcp_schema_audit.capture.wire import WireLog
from mcp_schema_audit.errors import CaptureError
from mcp_schema_audit.outputlines import quote_output
from mcp_schema_audit.words import oneline

_MESSAGE_CHARS = 300  #: longest piece of server-provided text (JSON-RPC error message) quoted in an error


_ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


def is_exception_group(exc: BaseException) -> bool:
    """Is ``exc`` an exception group (of the SDK's task groups), whichever class implements it
    (``BaseExceptionGroup`` from Python 3.11 on, the ``exceptiongroup`` backport's on 3.10)?"""
    return (
        isinstance(getattr(exc, "exceptions", None), (list, tuple))
        and isinstance(exc, BaseException)
        and type(exc).__name__.endswith("ExceptionGroup")
    )


def leaf_exceptions(exc: BaseException) -> Iterator[BaseException]:
    """The non-group exceptions inside ``exc`` (nested ``ExceptionGroup``s flattened), in order."""
    grouped: Sequence[BaseException] | None = getattr(exc, "exceptions", None) if is_exception_group(exc) else None
    if grouped is not None:
        for inner in grouped:
            yield from leaf_exceptions(inner)
    else:
        yield exc


def explain_failure(exc: BaseException, state: RunState, log: WireLog | None = None) -> CaptureError:
    """Turn whatever the SDK raised into one readable ``CaptureError`` (``log``: what the server wrote that
    is not JSON-RPC, quoted when a stdio server exits)."""
    import httpx2
    from mcp.shared.exceptions import MCPError
    from pydantic import ValidationError

    leaves = [leaf for leaf in leaf_exceptions(exc) if isinstance(leaf, Exception)]
    if not leaves:
        raise exc
    for leaf in leaves:
        if isinstance(leaf, CaptureError):
            return leaf
    for leaf in leaves:
        if isinstance(leaf, FileNotFoundError) and state.target.transport == "stdio":
            return CaptureError(f"command not found: {state.target.command[0]}")
        if isinstance(leaf, PermissionError) and state.target.transport == "stdio":
            return CaptureError(f"command not executable: {state.target.command[0]}")
    url = state.where()
    for leaf in leaves:
        if isinstance(leaf, httpx2.HTTPStatusError):
            response = leaf.response
            status = f"HTTP {response.status_code} {response.reason_phrase}".strip()
            return CaptureError(f"{status} from {url}", hint=_http_hint(status, state.target.transport))
    if state.http_error is not None and state.target.transport != "stdio":
        return CaptureError(
            f"{state.http_error} from {url} during {state.stage}",
            hint=_http_hint(state.http_error, state.target.transport),
        )
    for leaf in leaves:
        if isinstance(leaf, httpx2.ConnectError):
            return CaptureError(
                f"cannot connect to {url}: {first_line(leaf) or 'connection failed'}",
                hint="is the server running and listening on that host and port? Start it first "
                "(or give a stdio server's command after --)",
            )
        if isinstance(leaf, httpx2.TimeoutException):
            return CaptureError(f"HTTP timeout talking to {url} during {state.stage}")
        if isinstance(leaf, httpx2.HTTPError):
            return CaptureError(
                f"HTTP error talking to {url} during {state.stage}: {first_line(leaf) or type(leaf).__name__}"
            )
    tail = _stderr_tail(state)
    for leaf in leaves:
        if isinstance(leaf, MCPError):
            sent = _sent_by_server(leaf, log)  # -32000/-32001 are also codes servers use for their own errors
            if leaf.code == -32000 and not sent:  # the SDK's CONNECTION_CLOSED: the server went away
                if state.target.transport == "stdio":
                    what = f"server exited during {state.stage}"
                    if state.tree is not None and state.tree.running:
                        what = f"server closed its stdout during {state.stage} (still running)"
                    elif state.tree is not None and state.tree.ended:
                        what += f" ({state.tree.ended})"
                    noise = _stdout_noise(log)
                    if noise:
                        return CaptureError(
                            f"{what}; it wrote to stdout what is not JSON-RPC: {noise}"
                            + (f"; stderr: {tail}" if tail else ""),
                            hint="stdout must carry only JSON-RPC messages: is this an MCP server "
                            "over stdio, and does it log to stderr?",
                        )
                    return CaptureError(f"{what}: {tail or '(no stderr output)'}", hint=_unpassed_hint(state))
                return CaptureError(f"server closed the connection during {state.stage} ({url})")
            if leaf.code == -32001 and not sent:  # the SDK's REQUEST_TIMEOUT
                return CaptureError(
                    f"no answer during {state.stage}: {leaf.message}" + (f" | stderr: {tail}" if tail else "")
                )
            hint = (
                "the server may not speak 2026-07-28; try --protocol auto" if state.protocol == "2026-07-28" else None
            )
            return CaptureError(
                f"{state.stage} failed: JSON-RPC error {leaf.code}: {_clip(oneline(leaf.message))}", hint=hint
            )
    for leaf in leaves:
        if isinstance(leaf, ValidationError):
            return CaptureError(
                f"the server's answer during {state.stage} is not valid MCP ({leaf.error_count()} validation errors)"
            )
    for leaf in leaves:
        if isinstance(leaf, RuntimeError) and "protocol version" in str(leaf).lower():
            return CaptureError(f"protocol negotiation failed: {first_line(leaf)}")
    leaf = leaves[0]
    detail = first_line(leaf) or type(leaf).__name__
    suffix = f" | stderr: {tail}" if tail else ""
    return CaptureError(f"capture failed during {state.stage}: {type(leaf).__name__}: {detail}{suffix}")


#: The variables the MCP SDK's stdio client passes a server from the caller's environment (``--env`` adds more).
INHERITED_VARIABLES = frozenset({"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"})
_VARIABLE = re.compile(r"\b[A-Z][A-Z0-9_]{2,}\b")


def _unpassed_hint(state: RunState) -> str | None:
    """The next step when a stdio server that exited names, in its stderr, variables set in this process's
    environment that it did not get (the SDK passes only ``INHERITED_VARIABLES`` and ``--env``): ``give --env
    NOTES_DB_URL=…`` (names only, never values); ``None`` when it names none."""
    if state.target.transport != "stdio":
        return None
    named = _VARIABLE.findall(stderr_text(state))
    missing = sorted({n for n in named if n in os.environ and n not in INHERITED_VARIABLES} - set(state.target.env))
    if not missing:
        return None
    shown = missing[:3]
    flags = " ".join(f"--env {n}=…" for n in shown)
    return (
        f"{', '.join(shown)} {'is' if len(shown) == 1 else 'are'} set here but not passed to the server (the MCP "
        f"SDK passes a stdio server only {', '.join(sorted(INHERITED_VARIABLES))} and --env): give {flags}"
    )


def _sent_by_server(error: BaseException, log: WireLog | None) -> bool:
    """Did the server itself answer with this JSON-RPC error (its code and message are among the replies the wire
    tap saw), rather than the SDK making it up (connection closed, request timeout)?"""
    if log is None:
        return False
    code, message = getattr(error, "code", None), getattr(error, "message", None)
    return any(
        isinstance(err, dict) and err.get("code") == code and err.get("message") == message
        for _m, _res, err, _rid in log.replies
    )


def timeout_error(timeout_s: float, state: RunState, log: WireLog | None = None) -> CaptureError:
    """The ``CaptureError`` of a run that ran out of ``timeout_s`` during ``state.stage`` (with what the server
    wrote that is not JSON-RPC, its stderr tail, and the next step when there is one)."""
    message = f"timed out after {timeout_s:g} s during {state.stage}"
    if state.target.transport != "stdio":
        message += f" ({state.where()})"
    noisy = log is not None and bool(log.unparsable)
    if log is not None and noisy:
        noise = _stdout_noise(log) if state.target.transport == "stdio" else ""
        message += f"; the server sent {log.unparsable} message(s) that are not JSON-RPC" + (
            f": {noise}" if noise else ""
        )
    tail = _stderr_tail(state)
    if tail:
        message += f"; server stderr: {tail}"
    hint = None
    if noisy and state.target.transport == "stdio":
        # what it wrote is the problem, not the protocol: --protocol legacy would wait for the same answer
        hint = "stdout must carry only JSON-RPC messages: is this an MCP server over stdio, and does it log to stderr?"
    elif state.stage == "the handshake" and state.protocol == "auto":
        quiet = log is not None and not log.replies and not log.unparsable
        if quiet and log is not None and ("initialize" in log.sent or timeout_s > AUTO_PROBE_S):
            # past the probe the SDK sent initialize too: --protocol legacy would wait for the same silence
            message += "; the server answered neither server/discover nor initialize"
            hint = (
                "is this an MCP server over stdio? It must read JSON-RPC on stdin and answer on stdout"
                if state.target.transport == "stdio"
                else "is this URL an MCP endpoint?"
            )
        else:
            hint = (
                f"a legacy server that ignores server/discover costs a {AUTO_PROBE_S:g} s probe in auto mode; "
                "try --protocol legacy"
            )
    return CaptureError(message, hint=hint)


#: Seconds the SDK's auto mode waits for an answer to ``server/discover`` before it falls back to ``initialize``.
AUTO_PROBE_S = 10.0


def _stdout_noise(log: WireLog | None) -> str:
    """The last lines a stdio server wrote to stdout that are not JSON-RPC, cleaned and quoted; ``""`` if none."""
    if log is None:
        return ""
    shown = []
    for raw in log.noise:
        line = "".join(ch for ch in " ".join(_ANSI_RE.sub("", raw).split()) if ch.isprintable())
        if line:
            shown.append(repr(line if len(line) <= STDERR_LINE_CHARS else line[: STDERR_LINE_CHARS - 1] + "…"))
    if not shown and log.unparsable:
        return f"{log.unparsable} message(s)"
    return " | ".join(shown)


def _http_hint(status_line: str, transport: str = "http") -> str | None:
    """The next step for an HTTP error status on ``transport`` (``http``: --url, ``sse``: --sse), or None."""
    if status_line.startswith(("HTTP 401", "HTTP 403")):
        return "pass credentials with --header"
    if status_line.startswith("HTTP 404"):
        return "check the endpoint path: Streamable HTTP servers usually serve /mcp, legacy SSE servers /sse"
    if status_line.startswith("HTTP 405") and transport == "http":
        return "the endpoint refuses POST, as a legacy HTTP+SSE endpoint does: try --sse URL instead of --url"
    if status_line.startswith("HTTP 400") and transport == "sse":
        return (
            "the endpoint refused the SSE client's GET, as a Streamable HTTP endpoint does: "
            "try --url URL instead of --sse"
        )
    return None


def _stderr_tail(state: RunState) -> str:
    """The server's stderr on one line (``outputlines.quote_output``): the line that names the error (Node's
    ``Error: Cannot find module '…'``, Python's last ``…Error:`` line) and the last five lines, each trimmed,
    joined with ``" | "``; ``""`` if none."""
    return quote_output(stderr_text(state), tuple(state.secrets), STDERR_TAIL_LINES)


def stderr_text(state: RunState) -> str:
    """What the stdio server wrote to stderr, as kept (its first and last 16 KB); ``""`` if none."""
    return "" if state.errlog is None else state.errlog.tail().decode("utf-8", errors="replace")


def first_line(exc: BaseException) -> str:
    """The first line of ``exc``'s message, on one line and clipped (``""`` for an empty message)."""
    text = str(exc).strip()
    return _clip(oneline(text.splitlines()[0])) if text else ""


def _clip(text: str, limit: int = _MESSAGE_CHARS) -> str:
    """``text`` cut to ``limit`` characters (server-provided text in our one-line errors)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def short_repr(value: str, limit: int = 60) -> str:
    """``repr(value)`` of at most ``limit`` characters of ``value`` (then ``…``): server text in a message."""
    return repr(value) if len(value) <= limit else repr(value[:limit]) + "…"
