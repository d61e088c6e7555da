"""Calling tools on a live server (``probe``): the listing, then each planned ``tools/call``, raw results kept.

Each result is taken from the wire tap as the server sent it, before the SDK parses it: the SDK's
``ClientSession.call_tool`` would validate ``structuredContent`` against the listed ``outputSchema`` and
raise (``RuntimeError: Invalid structured content …``), and its models drop unknown fields. Calls go
through ``ClientSession.send_request`` with a typed ``tools/call`` request (so the transport adds what the
protocol needs, e.g. the ``Mcp-Name`` header) and a permissive result type, so no model validation can hide
or reject what the server sent; when the negotiated revision's wire model refuses the result anyway, the
raw result is still kept and the SDK's objection is noted (``sdk_error``).

A call that gets no answer within its timeout, or a JSON-RPC error answer, is an outcome, not a failure
of the run; a server that exits or breaks the connection is (``CaptureError``, exit 3).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from mcp_schema_audit.capture.session import Connection, list_tools, run_connected, utc_now
from mcp_schema_audit.capture.target import CaptureTarget, check_arguments, scrub_message
from mcp_schema_audit.jsontext import non_json_number_at
from mcp_schema_audit.snapshot import Snapshot
from mcp_schema_audit.words import oneline

if TYPE_CHECKING:
    from pydantic import ValidationError

#: A result whose JSON text is longer than this (characters) is neither checked nor recorded (``too-large``).
MAX_RESULT_CHARS = 16 * 1024 * 1024
#: Seconds of the run's budget kept for disconnecting (a stdio server is given up to ~4 s to stop).
SHUTDOWN_RESERVE_S = 2.0
_MESSAGE_CHARS = 300
_CANCELLED_CODE = -32001  # the SDK's REQUEST_TIMEOUT
_CLOSED_CODE = -32000  # the SDK's CONNECTION_CLOSED
#: What became of one planned call (``call_record``).
CallOutcome = Literal["result", "rpc-error", "timeout", "too-large", "not-json", "not-called", "not-listed"]


@dataclass
class PlannedCall:
    """One ``tools/call`` to make: ``id`` (unique in the plan), ``tool`` (a tool's name), ``arguments`` (a JSON
    object, sent as given) and ``why`` (one line: the calls file, or the ``--auto`` reason). ``listed`` False: the
    server does not list the tool (a calls file written for another release), so the call is not made and its
    record says so (``not-listed``)."""

    id: str
    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)
    why: str = ""
    listed: bool = True


def call_record(
    call: PlannedCall,
    outcome: CallOutcome,
    *,
    result: dict[str, Any] | None = None,
    error: dict[str, Any] | None = None,
    sdk_error: str | None = None,
    duration_s: float | None = None,
    size: int | None = None,
) -> dict[str, Any]:
    """The JSON-ready record of one call (the shape ``--record`` files hold in ``calls``):

    ``{"id", "tool", "arguments", "outcome", "result", "error", "sdk_error", "duration_s", "chars"}`` where
    ``outcome`` is ``"result"`` (``result`` = the raw ``tools/call`` result as sent: ``content``,
    ``structuredContent``, ``isError``, ``_meta`` …), ``"rpc-error"`` (``error`` = the raw JSON-RPC error:
    ``code``, ``message``, ``data``), ``"timeout"`` (``error.message`` says why), ``"too-large"`` (``chars``:
    the result's size; not kept), ``"not-json"`` (the result holds a number JSON cannot hold, NaN or
    Infinity: ``error.message`` says where; not kept), ``"not-called"`` (the run's budget was spent first) or
    ``"not-listed"`` (the server does not list the tool: nothing was sent).
    Keys that do not apply are left out.
    """
    out: dict[str, Any] = {"id": call.id, "tool": call.tool, "arguments": call.arguments, "outcome": outcome}
    if result is not None:
        out["result"] = result
    if error is not None:
        out["error"] = error
    if sdk_error:
        out["sdk_error"] = sdk_error
    if duration_s is not None:
        out["duration_s"] = round(duration_s, 3)
    if size is not None:
        out["chars"] = size
    return out


def probe_server(
    target: CaptureTarget,
    plan: Callable[[Snapshot], list[PlannedCall]],
    *,
    label: str,
    protocol: str = "auto",
    timeout_s: float = 60.0,
    call_timeout_s: float = 30.0,
    max_pages: int = 1000,
    dry_run: bool = False,
    clock_started: float | None = None,
) -> tuple[Snapshot, list[PlannedCall], list[dict[str, Any]]]:
    """List the server's tools, let ``plan(listing)`` choose the calls, make them one after the other.

    Returns ``(listing, planned calls, call records)`` with one record per planned call, in plan order
    (``call_record``); with ``dry_run`` nothing is called and the records are empty. ``plan`` may raise a
    ``SchemaAuditError`` (e.g. a calls file naming a tool the server does not list): it comes through
    unchanged and nothing is called. ``timeout_s`` bounds the whole run (connect, listing, every call,
    disconnect); each call gets at most ``call_timeout_s`` seconds and never more than what is left of the
    run (minus ``SHUTDOWN_RESERVE_S`` to disconnect): a call that gets no answer in time is a ``timeout``
    record, and calls the budget no longer reaches are ``not-called``. Raises ``UsageError`` for unusable
    arguments and ``CaptureError`` when the server cannot be reached, exits, breaks the protocol, or the
    listing does not complete within ``timeout_s``. ``clock_started``: see ``run_connected``.
    """
    check_arguments(target, protocol, timeout_s, max_pages)
    if not call_timeout_s > 0:
        from mcp_schema_audit.errors import UsageError

        raise UsageError(f"call timeout must be a positive number of seconds, got {call_timeout_s!r}")
    started = time.monotonic()
    captured_at = utc_now()

    async def work(conn: Connection) -> tuple[Snapshot, list[PlannedCall], list[dict[str, Any]]]:
        listing = await list_tools(conn, label=label, max_pages=max_pages, started=started, captured_at=captured_at)
        planned = plan(listing)
        if dry_run:
            return listing, planned, []
        records = [await call_tool(conn, call, call_timeout_s) for call in planned]
        return listing, planned, records

    return run_connected(target, protocol, timeout_s, work, clock_started=clock_started)


async def call_tool(conn: Connection, call: PlannedCall, call_timeout_s: float) -> dict[str, Any]:
    """Make one ``tools/call`` on ``conn`` and return its record (``call_record``).

    Raises what the SDK raises when the connection is lost (the run's failure handling turns it into a
    ``CaptureError``); a JSON-RPC error answer, a timeout or an oversized result are records.
    """
    from mcp.shared.exceptions import MCPError
    from mcp.types import CallToolRequest, CallToolRequestParams
    from pydantic import TypeAdapter, ValidationError

    if not call.listed:  # a host calls only the tools a listing gave it: nothing is sent
        return call_record(call, "not-listed", error={"message": f"the server does not list tool {call.tool!r}"})
    budget = min(call_timeout_s, conn.remaining_s() - SHUTDOWN_RESERVE_S)
    if budget <= 0.05:
        return call_record(call, "not-called", error={"message": "the run's --timeout was spent before this call"})
    conn.state.stage = f"tools/call {call.tool!r} (call {call.id!r})"
    request = CallToolRequest(params=CallToolRequestParams(name=call.tool, arguments=call.arguments))
    sdk_error: str | None = None
    failure: MCPError | None = None
    before = conn.log.sent.get("tools/call")
    unparsable = conn.log.unparsable
    began = time.monotonic()
    try:
        await conn.session.send_request(
            request,
            # the SDK bounds the result type to pydantic models, but validates through any TypeAdapter: a dict one
            # takes every result as sent (the raw result is read from the wire tap anyway)
            TypeAdapter(dict[str, Any]),  # type: ignore[type-var]
            request_read_timeout_seconds=budget,
        )
    except MCPError as exc:
        failure = exc
    except ValidationError as exc:
        sdk_error = _clip(
            f"the SDK's {conn.version or ''} wire model rejects the result: "
            f"{exc.error_count()} validation error(s), first: {_first_error(exc)}"
        )
    duration = time.monotonic() - began
    sent = conn.log.sent.get("tools/call")
    reply = conn.log.reply(sent) if sent is not None and sent != before else None
    if reply is None:
        if failure is not None and failure.code == _CLOSED_CODE:
            raise failure  # the server went away: the run fails (exit 3)
        if failure is not None and failure.code == _CANCELLED_CODE:
            why = f"no answer within {_seconds(budget)} s" + (
                " (the call timeout)" if budget >= call_timeout_s else " (what was left of the run's --timeout)"
            )
            if conn.log.unparsable > unparsable:
                why += (
                    f"; meanwhile the server sent {conn.log.unparsable - unparsable} message(s) that are not "
                    "JSON-RPC (not JSON, or nested too deeply to parse)"
                )
            return call_record(call, "timeout", error={"message": why}, duration_s=duration)
        message = oneline(str(failure)) if failure is not None else (sdk_error or "no reply was recorded")
        return call_record(
            call, "rpc-error", error={"message": scrub_message(_clip(message), conn.state.secrets)}, duration_s=duration
        )
    result, error = reply
    if error is not None:
        error = {k: error[k] for k in ("code", "message", "data") if k in error}  # secrets: masked by the tap
        if conn.log.non_json_reply(sent) is not None:  # NaN/Infinity in the error: keep what JSON can hold
            error = {k: v for k, v in error.items() if k == "message" or non_json_number_at(v) is None}
        if isinstance(error.get("message"), str):
            error["message"] = scrub_message(_clip(error["message"]), conn.state.secrets)
        return call_record(call, "rpc-error", error=error, duration_s=duration)
    assert result is not None  # secrets: masked by the tap as the result arrived
    bad = conn.log.non_json_reply(sent)
    if bad is not None:
        return call_record(
            call,
            "not-json",
            duration_s=duration,
            error={"message": f"the server sent a non-JSON number (NaN/Infinity) at {bad[1]}"},
        )
    size = _size(result)
    if size > MAX_RESULT_CHARS:
        return call_record(
            call,
            "too-large",
            size=size,
            duration_s=duration,
            error={
                "message": f"the result is {size} characters of JSON, more than the "
                f"{MAX_RESULT_CHARS} this probe checks or records"
            },
        )
    return call_record(call, "result", result=result, sdk_error=sdk_error, duration_s=duration)


def _size(value: Any) -> int:
    try:
        return len(json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str))
    except (ValueError, RecursionError):
        return MAX_RESULT_CHARS + 1


def _first_error(exc: ValidationError) -> str:
    try:
        first = exc.errors()[0]
        where = "/".join(str(p) for p in first.get("loc", ()))
        return f"{where}: {first.get('msg', '')}" if where else str(first.get("msg", ""))
    except Exception:  # noqa: BLE001 - a message is all we want
        return oneline(str(exc))[:200]


def _clip(text: str) -> str:
    text = oneline(text)
    return text if len(text) <= _MESSAGE_CHARS else text[: _MESSAGE_CHARS - 1] + "…"


def _seconds(value: float) -> str:
    """Seconds for a message, to a hundredth: 30, 0.25, 1.53 (never 1.52588), at least 0.01."""
    return f"{max(round(value, 2), 0.01):g}"
