"""One connection to a server: the transport, the SDK client session and the handshake, under one deadline
(``run_connected``, shared by ``capture`` and ``probe``); and the capture itself: every page of tools/list and
of every other list the server advertises (prompts, resources, resource templates)."""

from __future__ import annotations

import contextlib
import importlib.metadata
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, TypeVar

from mcp_schema_audit import __version__
from mcp_schema_audit.capture.failures import (
    explain_failure,
    first_line,
    is_exception_group,
    leaf_exceptions,
    stderr_text,
    timeout_error,
)
from mcp_schema_audit.capture.process import ProcessTree, StderrTail, tracked
from mcp_schema_audit.capture.state import RunState
from mcp_schema_audit.capture.surfaces import walk_list, walk_surfaces
from mcp_schema_audit.capture.target import (
    CaptureTarget,
    check_arguments,
    connect_url_and_headers,
    message_secrets,
    reply_secrets,
    scrub_message,
)
from mcp_schema_audit.capture.wire import WireLog, last_result, tapped
from mcp_schema_audit.errors import CaptureError, InputError, SchemaAuditError
from mcp_schema_audit.outputlines import clean_lines
from mcp_schema_audit.snapshot import SECTIONS, Snapshot, check_tools, merge_cache_hints

if TYPE_CHECKING:
    import httpx2
    from mcp.client import ClientSession, Transport

SERVER_INFO_META_KEY = "io.modelcontextprotocol/serverInfo"


@dataclass
class Connection:
    """One open connection: the SDK's ``ClientSession``, the wire log, the run's state, what the handshake said.

    ``handshake`` is the raw ``initialize``/``server/discover`` result (``{}`` when there was none);
    ``version`` the negotiated protocol version; ``deadline`` the ``time.monotonic()`` value the whole run
    must end by (``timeout_s`` after it started). Only code inside ``capture`` uses it.
    """

    session: ClientSession
    log: WireLog
    state: RunState
    handshake: dict[str, Any]
    version: str | None
    timeout_s: float
    deadline: float

    def remaining_s(self) -> float:
        """Seconds left of the run's budget (may be negative)."""
        return self.deadline - time.monotonic()


T = TypeVar("T")


def run_connected(
    target: CaptureTarget,
    protocol: str,
    timeout_s: float,
    work: Callable[[Connection], Awaitable[T]],
    *,
    clock_started: float | None = None,
) -> T:
    """Open one connection to ``target`` (spawn or connect, handshake), run ``await work(conn)``, disconnect.

    The one way ``capture`` and ``probe`` reach a server: transport, wire tap, SDK client, process tree and
    stderr tail of a stdio server, secrets kept out of messages, and one deadline (``timeout_s`` seconds)
    over everything, clean-up included. Raises ``CaptureError`` (one line, secrets removed) for every
    failure to reach the server or to finish in time; a ``SchemaAuditError`` that ``work`` raises for
    another reason (a ``UsageError``, an ``InputError``) comes through unchanged. Call ``check_arguments``
    first. ``clock_started`` (a ``time.monotonic()`` value, e.g. when the CLI started) starts the clock of
    ``timeout_s`` earlier than now, so that the whole command ends within it; the messages still name
    ``timeout_s``.
    """
    import anyio

    return anyio.run(_run_connected, target, protocol, timeout_s, work, clock_started)


async def _run_connected(
    target: CaptureTarget,
    protocol: str,
    timeout_s: float,
    work: Callable[[Connection], Awaitable[T]],
    clock_started: float | None = None,
) -> T:
    import anyio

    spent = 0.0 if clock_started is None else max(0.0, time.monotonic() - clock_started)
    left = max(0.05, timeout_s - spent)
    state = RunState(target=target, protocol=protocol, secrets=message_secrets(target))
    log = WireLog(reply_secrets(target))
    with contextlib.ExitStack() as files:
        if target.transport == "stdio":
            state.errlog = StderrTail()
            files.callback(state.errlog.close)
            state.tree = ProcessTree(state.errlog.writer.fileno())
            files.callback(state.tree.close)  # runs first: after the SDK stopped the server
        # A bare deadline scope (not anyio.fail_after) so that a timeout is recognised even when the
        # cancellation surfaces as some other exception from the SDK's task groups.
        scope = anyio.CancelScope(deadline=anyio.current_time() + left)
        deadline = time.monotonic() + left
        outcome: list[T] = []  # what work returned, once it did (a cancelled scope swallows the cancellation)
        error: CaptureError | None = None
        try:
            with scope:
                outcome.append(await _connected(target, protocol, timeout_s, deadline, state, log, work))
        except BaseException as exc:  # noqa: BLE001 - every failure becomes one CaptureError
            other = _other_error(exc)
            if other is not None:
                raise other from None
            if scope.cancel_called:
                error = timeout_error(timeout_s, state, log)
            elif not isinstance(exc, Exception) and not is_exception_group(exc):
                raise  # KeyboardInterrupt, SystemExit, an outer cancellation
            else:
                error = explain_failure(exc, state, log)
        if error is None and not outcome:
            error = timeout_error(timeout_s, state, log)
        if error is not None:
            output = tuple(clean_lines(stderr_text(state), tuple(state.secrets), line_chars=1000))
            raise CaptureError(scrub_message(str(error), state.secrets), hint=error.hint, output=output)
    return outcome[0]


def _other_error(exc: BaseException) -> SchemaAuditError | None:
    """A ``SchemaAuditError`` that is not about reaching the server (raised by the work itself), found
    inside ``exc`` (an exception group of the SDK's task groups included); else None."""
    for leaf in leaf_exceptions(exc):
        if isinstance(leaf, SchemaAuditError) and not isinstance(leaf, CaptureError):
            return leaf
    return None


async def _connected(
    target: CaptureTarget,
    protocol: str,
    timeout_s: float,
    deadline: float,
    state: RunState,
    log: WireLog,
    work: Callable[[Connection], Awaitable[T]],
) -> T:
    """Open the transport and the SDK client, learn the handshake, run ``work``."""
    from mcp import Client
    from mcp.types import Implementation

    async with contextlib.AsyncExitStack() as stack:
        transport = await _open_transport(target, timeout_s, state, stack)
        state.stage = "the handshake"
        client = Client(
            tapped(transport, log),
            mode=protocol,
            cache=None,
            read_timeout_seconds=timeout_s,
            client_info=Implementation(name="schema-audit", version=__version__),
        )
        async with client:
            session = client.session
            handshake: dict[str, Any] = {}
            if session.initialize_result is not None:
                handshake = last_result(log.results("initialize"))
            elif protocol == "auto":
                handshake = last_result(log.results("server/discover"))
            else:
                handshake = await _discover_pinned(session, log)
            conn = Connection(
                session=session,
                log=log,
                state=state,
                handshake=handshake,
                version=client.protocol_version,
                timeout_s=timeout_s,
                deadline=deadline,
            )
            return await work(conn)


def capture(
    target: CaptureTarget,
    *,
    label: str,
    protocol: str = "auto",
    timeout_s: float = 60.0,
    max_pages: int = 1000,
    clock_started: float | None = None,
) -> Snapshot:
    """Connect to the server, list every tool (all pages) and every prompt, resource and resource template (all
    pages, when the server advertises the capability), disconnect, and return the snapshot.

    ``protocol``: ``"auto"`` (probe ``server/discover``, fall back to the ``initialize`` handshake;
    a silent legacy server costs the SDK's fixed 10 s probe timeout), ``"legacy"`` (``initialize``
    handshake only, 2024-11-05 … 2025-11-25) or ``"2026-07-28"`` (pinned, no handshake).
    ``timeout_s`` (seconds) bounds the whole capture: spawn or connect, handshake and every page.
    ``clock_started``: see ``run_connected``. ``max_pages`` caps the number of pages of each list.
    Stopping a stdio server that ignores the end of its stdin adds up to ~4 s after a failure (the
    SDK's close, SIGTERM, SIGKILL grace periods), but ~0.1 s after a timeout (``process.tracked``
    stops it at once).
    On Linux, descendants of a stdio server that are still running once the server has stopped (also
    those that left its process group with ``setsid()``) are then stopped too: SIGTERM, up to 1 s,
    SIGKILL; processes that are not descendants of the server are never signalled.

    The snapshot holds ``label``; ``tools``: the raw tool objects of all pages, sorted by name;
    ``server``: ``name``/``title``/``version`` as the server reported them (keys present only when
    sent); ``protocol_version`` (negotiated); ``capabilities`` (raw, from the handshake result);
    ``transport``; ``prompts``, ``resources``, ``resource_templates`` (raw, sorted; ``[]`` when the capability
    is not advertised or the list is answered with Method not found) and ``instructions`` (from the
    handshake), all in ``captured``; ``meta``: ``captured_at`` (ISO-8601 UTC), ``duration_s`` (seconds, 3
    decimals), ``sdk_version``, ``schema_audit_version``, ``pages`` (of ``tools/list``),
    ``instructions_present``, ``list_pages`` (method → pages of the other lists), ``not_served`` (lists
    answered with Method not found, when any).

    Raises ``UsageError`` for an unusable ``target``/``protocol``/limits, and ``CaptureError``
    (one line, secrets removed) when the server cannot be started or reached, exits, times out,
    answers with an error, or sends a listing that cannot be paired (no tool name, duplicates,
    a repeating cursor, more than ``max_pages`` pages).
    """
    check_arguments(target, protocol, timeout_s, max_pages)
    started = time.monotonic()
    captured_at = utc_now()

    async def work(conn: Connection) -> Snapshot:
        return await list_tools(conn, label=label, max_pages=max_pages, started=started, captured_at=captured_at)

    return run_connected(target, protocol, timeout_s, work, clock_started=clock_started)


def utc_now() -> str:
    """The current time as ISO-8601 UTC to the second, ``Z`` suffix (``2026-11-30T21:58:26Z``)."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


async def list_tools(conn: Connection, *, label: str, max_pages: int, started: float, captured_at: str) -> Snapshot:
    """Walk every ``tools/list`` page on ``conn`` and return the listing as a ``Snapshot`` (see ``capture``).

    ``started`` is the ``time.monotonic()`` value the run began at (for ``meta.duration_s``), ``captured_at``
    its ISO-8601 UTC time. Raises ``CaptureError`` for a listing that cannot be paired or paged.
    """
    pages = await _walk_pages(conn.session, conn.log, conn.version, max_pages, conn.state)
    first_page = pages[0] if pages else {}
    handshake = conn.handshake
    caps = found if isinstance(found := handshake.get("capabilities"), dict) else {}
    hints: dict[str, dict[str, Any]] = {}
    if found_hints := merge_cache_hints(pages):
        hints["tools/list"] = found_hints
    sections, surface_meta = await walk_surfaces(
        conn.session, conn.log, conn.version, max_pages, conn.state, caps, hints
    )
    instructions = handshake.get("instructions")
    bad = conn.log.non_json_reply()
    if bad is not None:
        raise CaptureError(
            f"the server sent a non-JSON number (NaN/Infinity) at {bad[0]} {bad[1]}: JSON has "
            "no such numbers, and hosts that parse strictly (JSON.parse) refuse the message"
        )
    try:
        tools = check_tools([tool for page in pages for tool in page["tools"]], "tools/list")
    except InputError as exc:
        raise CaptureError(scrub_message(str(exc), conn.state.secrets)) from None
    return Snapshot(
        label=label,
        tools=tools,
        server=_server_info(handshake, first_page),
        protocol_version=conn.version,
        capabilities=dict(handshake.get("capabilities") or {})
        if isinstance(handshake.get("capabilities"), dict)
        else {},
        transport=conn.state.target.transport,
        prompts=sections["prompts"],
        resources=sections["resources"],
        resource_templates=sections["resource_templates"],
        instructions=instructions if isinstance(instructions, str) else None,
        captured=frozenset(SECTIONS),
        list_cache=hints,
        meta={
            "captured_at": captured_at,
            "duration_s": round(time.monotonic() - started, 3),
            "sdk_version": _sdk_version(),
            "schema_audit_version": __version__,
            "pages": len(pages),
            "instructions_present": isinstance(handshake.get("instructions"), str) and bool(handshake["instructions"]),
            **surface_meta,
        },
    )


async def _open_transport(
    target: CaptureTarget, timeout_s: float, state: RunState, stack: contextlib.AsyncExitStack[bool | None]
) -> Transport:
    """The SDK transport context manager for ``target`` (not entered); HTTP clients go on ``stack``."""
    if target.transport == "stdio":
        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client

        from mcp_schema_audit.capture.httpcap import cap_stdio

        if target.cwd is not None and not os.path.isdir(target.cwd):
            raise CaptureError(f"working directory not found: {target.cwd}")
        params = StdioServerParameters(
            command=target.command[0], args=list(target.command[1:]), env=dict(target.env) or None, cwd=target.cwd
        )
        # the SDK annotates errlog as TextIO but only hands it to the subprocess as its stderr, where any file with a
        # fileno() serves: ours is the binary write end of the stderr pipe (StderrTail)
        errlog = state.errlog.writer if state.errlog else None
        cap_stdio()  # each message bounded before the SDK parses it
        transport = stdio_client(params, errlog=errlog)  # type: ignore[arg-type]
        return tracked(transport, state.tree) if state.tree is not None else transport

    import httpx2

    from mcp_schema_audit.capture.httpcap import CappedTransport

    async def on_response(response: httpx2.Response) -> None:
        if target.transport == "http" and response.request.method != "POST":
            return  # the optional GET stream and the closing DELETE may be refused (405): not a failure
        if response.status_code >= 400:
            state.http_error = f"HTTP {response.status_code} {response.reason_phrase}".strip()
        else:
            state.http_error = None

    http_timeout = httpx2.Timeout(min(30.0, timeout_s), read=timeout_s)
    url, headers = connect_url_and_headers(target.url or "", target.headers)
    if target.transport == "http":
        from mcp.client.streamable_http import streamable_http_client

        http = await stack.enter_async_context(
            httpx2.AsyncClient(
                headers=headers,
                timeout=http_timeout,
                event_hooks={"response": [on_response]},
                transport=CappedTransport(),
            )
        )
        return streamable_http_client(url, http_client=http)

    from mcp.client.sse import sse_client

    def client_factory(
        headers: dict[str, str] | None = None, timeout: httpx2.Timeout | None = None, auth: httpx2.Auth | None = None
    ) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(
            headers=headers,
            timeout=timeout or http_timeout,
            auth=auth,
            event_hooks={"response": [on_response]},
            transport=CappedTransport(),
        )

    return sse_client(
        url,
        headers=headers,
        timeout=min(30.0, timeout_s),
        sse_read_timeout=timeout_s,
        httpx_client_factory=client_factory,
    )


async def _discover_pinned(session: ClientSession, log: WireLog) -> dict[str, Any]:
    """With a pinned version the SDK sends no handshake; ask ``server/discover`` once, which negotiates it.

    A server that refuses it (``Method not found``: a server of the ``initialize`` era) or does not list
    the pinned version among its ``supportedVersions`` did not agree to that version, so no snapshot may
    record it: ``CaptureError`` (exit 3) with the way out (``--protocol auto`` or ``legacy``).
    """
    from mcp.shared.exceptions import MCPError

    version = session.protocol_version
    assert version is not None  # a pinned mode: the SDK adopted the version before it handed out the session
    hint = "use --protocol auto, which negotiates the version, or --protocol legacy for the initialize handshake"
    mark = len(log.replies)
    try:
        await session.send_discover(version)
    except MCPError as exc:
        raise CaptureError(
            f"the server does not speak protocol {version}: it answered server/discover with "
            f"error {exc.error.code}: {first_line(exc)}",
            hint=hint,
        ) from None
    result = last_result(log.results("server/discover", mark))
    supported = result.get("supportedVersions")
    if isinstance(supported, list) and version not in supported:
        shown = ", ".join(str(v) for v in supported[:8] if isinstance(v, str))
        raise CaptureError(
            f"the server does not speak protocol {version}: server/discover lists only {shown or 'no version'}",
            hint=hint,
        )
    return result


async def _walk_pages(
    session: ClientSession, log: WireLog, version: str | None, max_pages: int, state: RunState
) -> list[dict[str, Any]]:
    """Send ``tools/list`` until the raw result has no ``nextCursor``; return the raw results in order."""
    return await walk_list(session, log, "tools/list", "tools", version, max_pages, state)


def _server_info(handshake: dict[str, Any], first_page: dict[str, Any]) -> dict[str, Any]:
    """``{name, title, version}`` from ``serverInfo`` (handshake) or the 2026 ``_meta`` stamp."""
    candidates = [handshake.get("serverInfo")]
    for holder in (handshake, first_page):
        meta = holder.get("_meta")
        if isinstance(meta, dict):
            candidates.append(meta.get(SERVER_INFO_META_KEY))
    for info in candidates:
        if isinstance(info, dict):
            return {k: info[k] for k in ("name", "title", "version") if isinstance(info.get(k), str)}
    return {}


def _sdk_version() -> str | None:
    try:
        return importlib.metadata.version("mcp")
    except importlib.metadata.PackageNotFoundError:
        return None
