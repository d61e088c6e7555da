"""Every list a server advertises, walked page by page as raw wire JSON: ``tools/list`` (always),
``prompts/list``, ``resources/list`` and ``resources/templates/list`` (when the server advertises the
capability), plus the ``instructions`` of the handshake.

Like tools, prompts, resources and templates are kept exactly as sent: the transport tap records each
page's raw JSON-RPC ``result`` before the SDK's models parse it, and a page the SDK refuses to parse is
still kept.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mcp_schema_audit.capture.failures import short_repr
from mcp_schema_audit.capture.state import RunState
from mcp_schema_audit.capture.wire import WireLog, last_result
from mcp_schema_audit.errors import CaptureError, InputError
from mcp_schema_audit.snapshot import LIST_SECTIONS, check_section, merge_cache_hints

if TYPE_CHECKING:
    from mcp.client import ClientSession
    from mcp.types import PaginatedRequest, PaginatedResult

#: JSON-RPC "Method not found": a server that advertises ``resources`` but serves no templates answers
#: ``resources/templates/list`` with it; that is an empty list, not a failure.
METHOD_NOT_FOUND = -32601
#: List section → (method, the capability that announces it).
_METHODS = {
    "prompts": ("prompts/list", "prompts"),
    "resources": ("resources/list", "resources"),
    "resource_templates": ("resources/templates/list", "resources"),
}


def _types(method: str) -> tuple[Callable[..., PaginatedRequest[Any]], type[PaginatedResult]]:
    """The SDK's request and result model classes of list ``method`` (the request class called with ``params``)."""
    import mcp.types as t

    types: dict[str, tuple[Callable[..., PaginatedRequest[Any]], type[PaginatedResult]]] = {
        "tools/list": (t.ListToolsRequest, t.ListToolsResult),
        "prompts/list": (t.ListPromptsRequest, t.ListPromptsResult),
        "resources/list": (t.ListResourcesRequest, t.ListResourcesResult),
        "resources/templates/list": (t.ListResourceTemplatesRequest, t.ListResourceTemplatesResult),
    }
    return types[method]


async def walk_list(
    session: ClientSession,
    log: WireLog,
    method: str,
    key: str,
    version: str | None,
    max_pages: int,
    state: RunState,
) -> list[dict[str, Any]]:
    """Send list request ``method`` until the raw result has no ``nextCursor``; return the raw results in order.

    ``key`` is the result's list (``tools``, ``prompts``, ``resources``, ``resourceTemplates``). Raises
    ``CaptureError`` for more than ``max_pages`` pages, a page without the list, a cursor that is not a
    string or repeats; JSON-RPC errors propagate as the SDK raises them (``MCPError``).
    """
    from mcp.types import PaginatedRequestParams
    from mcp.types.version import MODERN_PROTOCOL_VERSIONS
    from pydantic import ValidationError

    request_cls, result_cls = _types(method)
    modern = version in MODERN_PROTOCOL_VERSIONS  # no-handshake era: an empty cursor is a cursor
    pages: list[dict[str, Any]] = []
    seen: set[str] = set()
    cursor: str | None = None
    while True:
        if len(pages) >= max_pages:
            raise CaptureError(f"server has more than {max_pages} pages of {method} (the page limit)")
        number = len(pages) + 1
        state.stage = f"{method} (page {number})"
        mark = len(log.replies)
        request = request_cls(params=PaginatedRequestParams(cursor=cursor) if cursor is not None else None)
        try:
            await session.send_request(request, result_cls)
        except ValidationError:
            # The SDK's wire model rejected the page (e.g. one tool's inputSchema has no "type").
            # The raw result was recorded by the tap before parsing: keep it as sent.
            if not log.results(method, mark):
                raise
        raw = last_result(log.results(method, mark))
        if not isinstance(raw.get(key), list):
            raise CaptureError(f"{method} page {number} has no {key!r} list")
        pages.append(raw)
        next_cursor = raw.get("nextCursor")
        if next_cursor is None or (next_cursor == "" and not modern):
            # Before 2026-07-28 an empty cursor is read as the end (as most clients do); from
            # 2026-07-28 on it is a valid cursor.
            return pages
        if not isinstance(next_cursor, str):
            raise CaptureError(f"{method} page {number} has a nextCursor that is not a string")
        if next_cursor in seen or next_cursor == cursor:
            raise CaptureError(
                f"server repeated cursor {short_repr(next_cursor)} on {method} page {number}: paging would never end"
            )
        seen.add(next_cursor)
        cursor = next_cursor


def advertised(capabilities: dict[str, Any], capability: str) -> bool:
    """True when the handshake's raw ``capabilities`` advertise ``capability`` (present, not null or false)."""
    return capabilities.get(capability) not in (None, False)


async def walk_surfaces(
    session: ClientSession,
    log: WireLog,
    version: str | None,
    max_pages: int,
    state: RunState,
    capabilities: dict[str, Any],
    hints: dict[str, dict[str, Any]] | None = None,
) -> tuple[dict[str, list[dict[str, Any]]], dict[str, Any]]:
    """Walk ``prompts/list``, ``resources/list`` and ``resources/templates/list`` (each only when its capability
    is advertised; a list not advertised is ``[]``: a host sees none).

    Returns ``(sections, meta)``: ``sections`` maps ``prompts``, ``resources``, ``resource_templates`` to the
    raw items of all pages, sorted (``snapshot.check_section``); ``meta`` holds ``list_pages`` (method → pages
    walked) and ``not_served`` (methods answered with Method not found, recorded as empty). ``hints``, when
    given, receives each walked list's caching hints (``snapshot.merge_cache_hints``: method → ``ttlMs`` and
    ``cacheScope``, only for lists that sent any). Raises
    ``CaptureError`` for an unpairable list (an item without its name or uri, duplicates) or a paging
    failure; other JSON-RPC errors propagate.
    """
    from mcp.shared.exceptions import MCPError

    sections: dict[str, list[dict[str, Any]]] = {}
    pages_of: dict[str, int] = {}
    not_served: list[str] = []
    for section, (method, capability) in _METHODS.items():
        if not advertised(capabilities, capability):
            sections[section] = []
            continue
        wire = LIST_SECTIONS[section][0]
        try:
            pages = await walk_list(session, log, method, wire, version, max_pages, state)
        except MCPError as exc:
            if exc.code != METHOD_NOT_FOUND:
                raise
            not_served.append(method)
            sections[section] = []
            continue
        pages_of[method] = len(pages)
        if hints is not None and (found := merge_cache_hints(pages)):
            hints[method] = found
        try:
            sections[section] = check_section([item for page in pages for item in page[wire]], section, method)
        except InputError as exc:
            raise CaptureError(str(exc)) from None
    meta: dict[str, Any] = {"list_pages": pages_of}
    if not_served:
        meta["not_served"] = not_served
    return sections, meta
