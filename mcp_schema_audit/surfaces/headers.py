"""The ``x-mcp-header`` annotation of inputSchema properties (MCP 2026-07-28 server/tools §x-mcp-header,
basic/transports/streamable-http §Custom Headers from Tool Parameters; SEP-2243).

``header_problems(tool)``: every constraint of the spec a tool's annotations break, as breaking findings
(``header-empty``, ``header-not-token``, ``header-duplicate``, ``header-not-primitive``, ``header-integer-unsafe``,
``header-not-reachable``): a Streamable HTTP client MUST drop such a tool from ``tools/list``. The witness is the
tool entry. ``header_changes(name, old, new)``: headers added, renamed or removed between two versions of a tool
(warnings: intermediaries route on ``Mcp-Param-*``).
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from mcp_schema_audit.findings import Finding, make_finding
from mcp_schema_audit.jsontext import pointer
from mcp_schema_audit.schema.dialects import subschemas
from mcp_schema_audit.wording import Text

KEY = "x-mcp-header"
#: RFC 9110 §5.1 field-name: 1*tchar.
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
#: IEEE 754 double's safe integers (the spec: −2^53+1 … 2^53−1).
SAFE_INTEGER = 2**53 - 1
_ALLOWED_TYPES = {"integer", "string", "boolean"}
#: The host profiles whose client drops such a tool from tools/list, as measured: python-sdk 2.3's ClientSession
#: (``mcp.shared.inbound.find_invalid_x_mcp_header``; tests/test_releases.py); the TS SDK v1 (1.32.2) keeps it.
DROPPING_HOSTS = ("python-sdk",)


def _annotated(schema: Any) -> bool:
    """Can ``schema`` hold an ``x-mcp-header`` at all? False only when its JSON text has no such key (most tools:
    then nothing is walked); True when it cannot be written (an integer beyond 64 bits): walk it."""
    try:
        return b'"x-mcp-header"' in orjson.dumps(schema)
    except (orjson.JSONEncodeError, TypeError):
        return True


def _reachable(schema: Any) -> dict[str, tuple[list[str], dict[str, Any]]]:
    """Pointer → (property path, subschema) of every property reachable from the root by ``properties`` keys only."""
    out: dict[str, tuple[list[str], dict[str, Any]]] = {}
    todo: list[tuple[list[Any], list[str], Any]] = [([], [], schema)]
    while todo and len(out) < 10_000:
        tokens, path, node = todo.pop()
        props = node.get("properties") if isinstance(node, dict) else None
        if not isinstance(props, dict):
            continue
        for key, sub in props.items():
            if isinstance(sub, dict):
                t = [*tokens, "properties", key]
                out[pointer(t)] = ([*path, key], sub)
                todo.append((t, [*path, key], sub))
    return out


def _type_problem(node: dict[str, Any]) -> str | None:
    types = node.get("type")
    names = types if isinstance(types, list) else [types]
    if types is None:
        return "declares no type (integer, string or boolean)"
    if any(t not in _ALLOWED_TYPES for t in names) or len(names) != 1:
        return f"has type {types!r}, not one of integer, string, boolean"
    return None


def _unsafe_integer(node: dict[str, Any]) -> str | None:
    if node.get("type") != "integer":
        return None
    values = [node.get(k) for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "const")]
    enum = node.get("enum")
    if isinstance(enum, list):
        values += enum
    for v in values:
        if isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) > SAFE_INTEGER:
            return f"allows {v!r}, beyond ±(2^53−1)"
    return None


def header_problems(tool: dict[str, Any]) -> list[Finding]:
    """Breaking findings for every invalid ``x-mcp-header`` of ``tool``'s inputSchema, sorted by pointer."""
    schema = tool.get("inputSchema")
    if not isinstance(schema, dict) or not _annotated(schema):
        return []
    name = tool["name"]
    reachable = _reachable(schema)
    out: list[Finding] = []
    seen: dict[str, str] = {}
    for tokens, node in subschemas(schema):
        if not isinstance(node, dict) or KEY not in node:
            continue
        ptr = pointer(tokens)
        value = node[KEY]
        problems: list[tuple[str, str]] = []
        if ptr not in reachable:
            problems.append(("header-not-reachable", "is not reachable from the root through properties keys only"))
        if not isinstance(value, str) or value == "":
            problems.append(("header-empty", "is empty" if value == "" else f"is {type(value).__name__}, not a name"))
        elif not _TOKEN.fullmatch(value):
            problems.append(("header-not-token", "is not an RFC 9110 token (1*tchar)"))
        elif value.lower() in seen:
            problems.append(("header-duplicate", f"repeats the header of {seen[value.lower()] or '(root)'}"))
        if isinstance(value, str) and value:
            seen.setdefault(value.lower(), ptr)
        kind = _type_problem(node)
        if kind:
            problems.append(("header-not-primitive", kind))
        elif unsafe := _unsafe_integer(node):
            problems.append(("header-integer-unsafe", unsafe))
        for rule, why in problems:
            detail = Text.of(
                "x-mcp-header {value} {why}: Streamable HTTP clients drop this tool", value=repr(value), why=why
            )
            f = make_finding(rule, name, f"{ptr}/{KEY}", detail, None, value)
            f.hosts = list(DROPPING_HOSTS)
            f.witness = {
                "instance": {k: tool.get(k) for k in ("name", "inputSchema") if k in tool},
                "accepted_by": "new",
                "instance_pointer": f"/inputSchema{ptr}/{KEY}",
                "error": f"tool {name} rejected: invalid x-mcp-header ({rule})",
            }
            out.append(f)
    return sorted(out, key=lambda f: (f.pointer, f.rule))


def _headers(schema: Any) -> dict[tuple[str, ...], str]:
    """Property path → header name, for the reachable annotated properties of an inputSchema."""
    if not _annotated(schema):
        return {}
    return {
        tuple(path): node[KEY]
        for path, node in _reachable(schema).values()
        if isinstance(node.get(KEY), str) and node[KEY]
    }


def header_changes(name: str, old: dict[str, Any], new: dict[str, Any]) -> list[Finding]:
    """Headers added, renamed or removed between tool ``name``'s old and new entries (warnings)."""
    before, after = _headers(old.get("inputSchema")), _headers(new.get("inputSchema"))
    out: list[Finding] = []
    for path in sorted(set(before) | set(after)):
        ptr = pointer([t for key in path for t in ("properties", key)]) + f"/{KEY}"
        o, n = before.get(path), after.get(path)
        if o == n:
            continue
        if o is None:
            rule, text = "header-added", "Mcp-Param-{n} now sent by Streamable HTTP clients"
        elif n is None:
            rule, text = "header-removed", "Mcp-Param-{o} no longer sent: rules keyed on it stop matching"
        else:
            rule, text = "header-renamed", "Mcp-Param-{o} → Mcp-Param-{n}: rules keyed on the old name stop matching"
        out.append(make_finding(rule, name, ptr, Text.of(text, o=str(o), n=str(n)), o, n))
    return out
