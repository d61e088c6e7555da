"""One capture run: the transport, the SDK client session, the handshake and every page of every advertised list, under one deadline."""

from __future__ import annotations

import contextlib
import importlib.metadata
import os
import time
from datetime import datetime, timezone
from typing import Any

from mcp_schema_audit import __version__
from mcp_schema_audit.capture.failures import (
    _explain,
    _is_group,
    _timeout_error,
)
from mcp_schema_audit.capture.process import _ProcessTree, _StderrTail, _tracked
from mcp_schema_audit.capture.state import _State
from mcp_schema_audit.capture.surfaces import walk_list, walk_surfaces
from mcp_schema_audit.capture.target import (
    CaptureTarget,
    _check_arguments,
    _scrub,
    _secrets_of,
    connect_url_and_headers,
)
from mcp_schema_audit.capture.wire import _last, _tapped, _WireLog
from mcp_schema_audit.errors import CaptureError, InputError
from mcp_schema_audit.snapshot import SECTIONS, Snapshot, check_tools

SERVER_INFO_META_KEY = "io.modelcontextprotocol/serverInfo"


def capture(
    target: CaptureTarget,
    *,
    label: str,
    protocol: str = "auto",
    timeout_s: float = 60.0,
    max_pages: int = 1000,
) -> Snapshot:
    """Connect to the server, list every tool (all pages) and every prompt, resource and resource template (all
    pages, when the server advertises the capability), disconnect, and return the snapshot.

    ``protocol``: ``"auto"`` (probe ``server/discover``, fall back to the ``initialize`` handshake;
    a silent legacy server costs the SDK's fixed 10 s probe timeout), ``"legacy"`` (``initialize``
    handshake only, 2024-11-05 … 2025-11-25) or ``"2026-07-28"`` (pinned, no handshake).
    ``timeout_s`` (seconds) bounds the whole capture: spawn or connect, handshake and every page.
    ``max_pages`` caps the number of pages of each list. Stopping a stdio server that ignores the
    end of its stdin adds up to ~4 s after a failure (the SDK's close, SIGTERM, SIGKILL grace periods).
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
    _check_arguments(target, protocol, timeout_s, max_pages)
    import anyio

    return anyio.run(_capture_async, target, label, protocol, timeout_s, max_pages)


async def _capture_async(target: CaptureTarget, label: str, protocol: str, timeout_s: float, max_pages: int) -> Snapshot:
    import anyio

    started = time.monotonic()
    captured_at = datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
    state = _State(target=target, protocol=protocol, secrets=_secrets_of(target))
    log = _WireLog()
    with contextlib.ExitStack() as files:
        if target.transport == "stdio":
            state.errlog = _StderrTail()
            files.callback(state.errlog.close)
            state.tree = _ProcessTree(state.errlog.writer.fileno())
            files.callback(state.tree.close)  # runs first: after the SDK stopped the server
        # A bare deadline scope (not anyio.fail_after) so that a timeout is recognised even when the
        # cancellation surfaces as some other exception from the SDK's task groups.
        scope = anyio.CancelScope(deadline=anyio.current_time() + timeout_s)
        outcome = None
        error: CaptureError | None = None
        try:
            with scope:
                outcome = await _session(target, protocol, timeout_s, max_pages, state, log)
        except BaseException as exc:  # noqa: BLE001 - every failure becomes one CaptureError
            if scope.cancel_called:
                error = _timeout_error(timeout_s, state, log)
            elif not isinstance(exc, Exception) and not _is_group(exc):
                raise  # KeyboardInterrupt, SystemExit, an outer cancellation
            else:
                error = _explain(exc, state)
        if error is None and outcome is None:
            error = _timeout_error(timeout_s, state, log)
        if error is not None:
            raise CaptureError(_scrub(str(error), state.secrets), hint=error.hint)

    assert outcome is not None
    pages, handshake, protocol_version, first_page, (sections, surface_meta) = outcome
    instructions = handshake.get("instructions")
    try:
        tools = check_tools([tool for page in pages for tool in page["tools"]], "tools/list")
    except InputError as exc:
        raise CaptureError(_scrub(str(exc), state.secrets)) from None
    return Snapshot(
        label=label,
        tools=tools,
        server=_server_info(handshake, first_page),
        protocol_version=protocol_version,
        capabilities=dict(handshake.get("capabilities") or {}) if isinstance(handshake.get("capabilities"), dict) else {},
        transport=target.transport,
        prompts=sections["prompts"],
        resources=sections["resources"],
        resource_templates=sections["resource_templates"],
        instructions=instructions if isinstance(instructions, str) else None,
        captured=frozenset(SECTIONS),
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


async def _session(
    target: CaptureTarget, protocol: str, timeout_s: float, max_pages: int, state: _State, log: _WireLog
) -> tuple[list[dict[str, Any]], dict[str, Any], str | None, dict[str, Any], tuple[dict[str, Any], dict[str, Any]]]:
    """Open the transport and the SDK client, walk every page of every advertised list; return (tools pages,
    handshake, version, tools page 1, (the other lists, their meta): ``capture.surfaces.walk_surfaces``)."""
    from mcp import Client
    from mcp.types import Implementation

    async with contextlib.AsyncExitStack() as stack:
        transport = await _open_transport(target, timeout_s, state, stack)
        state.stage = "the handshake"
        client = Client(
            _tapped(transport, log),
            mode=protocol,
            cache=None,
            read_timeout_seconds=timeout_s,
            client_info=Implementation(name="schema-audit", version=__version__),
        )
        async with client:
            session = client.session
            handshake: dict[str, Any] = {}
            if session.initialize_result is not None:
                handshake = _last(log.results("initialize"))
            elif protocol == "auto":
                handshake = _last(log.results("server/discover"))
            else:
                handshake = await _discover_pinned(session, log)
            version = client.protocol_version
            pages = await _walk_pages(session, log, version, max_pages, state)
            caps = handshake.get("capabilities") if isinstance(handshake.get("capabilities"), dict) else {}
            surfaces = await walk_surfaces(session, log, version, max_pages, state, caps)
    return pages, handshake, version, pages[0] if pages else {}, surfaces


async def _open_transport(target: CaptureTarget, timeout_s: float, state: _State, stack: contextlib.AsyncExitStack) -> Any:
    """The SDK transport context manager for ``target`` (not entered); HTTP clients go on ``stack``."""
    if target.transport == "stdio":
        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client

        if target.cwd is not None and not os.path.isdir(target.cwd):
            raise CaptureError(f"working directory not found: {target.cwd}")
        params = StdioServerParameters(
            command=target.command[0], args=list(target.command[1:]), env=dict(target.env) or None, cwd=target.cwd
        )
        transport = stdio_client(params, errlog=state.errlog.writer if state.errlog else None)  # type: ignore[arg-type]
        return _tracked(transport, state.tree) if state.tree is not None else transport

    import httpx2

    async def on_response(response: Any) -> None:
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
            httpx2.AsyncClient(headers=headers, timeout=http_timeout, event_hooks={"response": [on_response]})
        )
        return streamable_http_client(url, http_client=http)

    from mcp.client.sse import sse_client

    def client_factory(headers: dict[str, str] | None = None, timeout: Any = None, auth: Any = None) -> Any:
        return httpx2.AsyncClient(
            headers=headers, timeout=timeout or http_timeout, auth=auth, event_hooks={"response": [on_response]}
        )

    return sse_client(
        url,
        headers=headers,
        timeout=min(30.0, timeout_s),
        sse_read_timeout=timeout_s,
        httpx_client_factory=client_factory,
    )


async def _discover_pinned(session: Any, log: _WireLog) -> dict[str, Any]:
    """With a pinned version the SDK sends no handshake; ask ``server/discover`` once for identity.

    The answer is optional: an error leaves capabilities and server info empty.
    """
    from mcp.shared.exceptions import MCPError

    mark = len(log.replies)
    try:
        await session.send_discover(session.protocol_version)
    except MCPError:
        return {}
    return _last(log.results("server/discover", mark))


async def _walk_pages(session: Any, log: _WireLog, version: str | None, max_pages: int, state: _State) -> list[dict[str, Any]]:
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
