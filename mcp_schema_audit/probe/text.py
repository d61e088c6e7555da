"""Does a real result carry its ``structuredContent`` as text too? The spec asks a tool that returns
``structuredContent`` to return its serialized JSON in a text content block as well, so that clients that ignore
``structuredContent`` still see the result (MCP spec 2025-06-18+ server/tools, Structured Content).

``text_verdict`` tells three cases apart: a text block carries the JSON (or, for a ``{"result": …}`` wrapper, the
wrapped value's JSON); the blocks are the Python SDK ``MCPServer``'s own rendering of a wrapped return value,
which the tool's author cannot change (``mcp.server.mcpserver``: a ``str`` as itself, ``None`` as no block, a
list item by item, anything else as indented JSON); or neither, which ``result-text-missing`` reports.
"""

from __future__ import annotations

import json
from typing import Any

from mcp_schema_audit.jsontext import stable_text

NO_TEXT = "structuredContent without any text content block (clients that ignore structuredContent see nothing)"
#: Who renders a wrapped return value as text blocks of its own making (named in the probe report's note).
PYTHON_MCPSERVER = "the Python SDK's MCPServer"


def text_verdict(result: dict[str, Any]) -> tuple[str, str]:
    """``(why, renderer)`` for a result with ``structuredContent``: ``("", "")`` when a text block carries its
    JSON; ``("", PYTHON_MCPSERVER)`` when the blocks are that SDK's rendering of the ``{"result": …}`` wrapper's
    value (not reported: the author cannot change it); else ``(why it lacks the text, "")``."""
    content = blocks if isinstance(blocks := result.get("content"), list) else []
    texts = [
        text
        for b in content
        if isinstance(b, dict) and b.get("type") == "text" and isinstance(text := b.get("text"), str)
    ]
    structured: Any = result.get("structuredContent")
    wrapped = isinstance(structured, dict) and list(structured) == ["result"]
    wanted = {_canon(structured)}
    if wrapped:
        wanted.add(_canon(structured["result"]))  # the {"result": …} wrapper of non-object returns (MCPServer, fastmcp)
    for text in texts:
        if _parsed(text) in wanted:
            return "", ""
    if wrapped and len(texts) == len(content) and _same_blocks(texts, _rendered(structured["result"])):
        return "", PYTHON_MCPSERVER
    if not texts:
        return NO_TEXT, ""
    return (
        f"structuredContent without a text block carrying its JSON ({len(texts)} text block"
        f"{'s' if len(texts) != 1 else ''}, none parses to the same JSON)",
        "",
    )


def _rendered(value: Any, depth: int = 0) -> list[tuple[bool, Any]]:
    """The text blocks ``MCPServer`` makes of a returned ``value`` (``_convert_to_content``), each as ``(exact,
    expected)``: a string block is that string exactly, any other block parses to ``value``'s JSON."""
    if value is None or depth > 32:
        return []
    if isinstance(value, list):
        return [block for item in value for block in _rendered(item, depth + 1)]
    if isinstance(value, str):
        return [(True, value)]
    return [(False, _canon(value))]


def _same_blocks(texts: list[str], expected: list[tuple[bool, Any]]) -> bool:
    return len(texts) == len(expected) and all(
        text == want if exact else _parsed(text) == want for text, (exact, want) in zip(texts, expected, strict=True)
    )


def _parsed(text: str) -> str | None:
    """The canonical JSON of ``text`` parsed, or None when it is not JSON."""
    try:
        return _canon(json.loads(text))
    except (ValueError, RecursionError):
        return None


def _canon(value: Any) -> str:
    try:
        return stable_text(value)
    except RecursionError:
        return repr(value)
