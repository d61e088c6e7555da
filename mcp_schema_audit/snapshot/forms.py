"""Input forms: which JSON a ``Snapshot`` is built from, and the checks that make its lists pairable.

Accepted (``snapshot_from_data``): a schema-audit snapshot envelope (format version 1 or 2, see ``model``); a
raw ``tools/list`` result ``{"tools": [...]}`` (with ``prompts``, ``resources``, ``resourceTemplates``,
``instructions``, ``serverInfo``/``server``, ``protocolVersion`` and ``capabilities`` beside it when
present); a JSON-RPC response wrapping one (``{"jsonrpc": "2.0", "result": {...}}``); the MCP Inspector
CLI's JSON output; a bare array of tools ``[{"name": …}, …]`` (what some tools and peers write). Everything
takes parsed JSON: reading and strictness are ``jsonio``'s.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from mcp_schema_audit.errors import InputError
from mcp_schema_audit.snapshot.model import (
    CACHED_LISTS,
    FORMAT_ID,
    LIST_SECTIONS,
    READABLE_VERSIONS,
    SECTIONS,
    Snapshot,
    merge_cache_hints,
)


def _got(value: Any) -> str:
    """``value``'s JSON type as an error line names it (``null``, ``an empty string``, ``an array``)."""
    if value is None:
        return "null"
    if value == "":
        return "an empty string"
    kinds = ((bool, "a boolean"), (int, "an integer"), (float, "a number"), (str, "a string"), (list, "an array"))
    return next((name for kind, name in kinds if isinstance(value, kind)), "an object")


def check_tools(tools: Any, source: str) -> list[dict[str, Any]]:
    """Check the tool list is pairable and return it sorted by name.

    Only what pairing needs is enforced: a list of objects, each with a non-empty string ``name``,
    names unique, ``inputSchema`` (when present) an object and ``outputSchema`` an object or boolean.
    Anything else (unknown fields, invalid JSON Schema, a missing ``type``) is kept as sent: the diff
    reports it as a finding. Raises ``InputError``.
    """
    if not isinstance(tools, list):
        raise InputError(f"{source}: 'tools' must be an array, got {_got(tools)}")
    seen: set[str] = set()
    for i, tool in enumerate(tools):
        if not isinstance(tool, dict):
            raise InputError(f"{source}: tools[{i}] is not an object")
        name = tool.get("name")
        if not isinstance(name, str) or not name:
            why = "every tool needs a non-empty string name" if name is None else f"its name is {_got(name)}"
            raise InputError(f"{source}: tools[{i}] has no name ({why})")
        if name in seen:
            raise InputError(f"{source}: duplicate tool name {name!r}")
        seen.add(name)
        if "inputSchema" in tool and not isinstance(tool["inputSchema"], dict):
            raise InputError(f"{source}: tool {name!r}: inputSchema is not an object (got {_got(tool['inputSchema'])})")
        out = tool.get("outputSchema")
        if out is not None and not isinstance(out, (dict, bool)):
            raise InputError(f"{source}: tool {name!r}: outputSchema is not an object (got {_got(out)})")
    return sorted(tools, key=lambda t: t["name"])


def check_section(items: Any, section: str, source: str) -> list[dict[str, Any]]:
    """Check list section ``section`` (``prompts``, ``resources``, ``resource_templates``) is pairable and
    return it sorted by identity (prompt and template ``name``, resource ``uri``).

    Enforced, as for tools, only what pairing needs: a list of objects, each with a non-empty string
    identity, identities unique; a prompt's ``arguments`` (when present and not null) a list of objects
    with unique non-empty string names; a template's ``uriTemplate`` a string. Everything else is kept
    as sent. Raises ``InputError``.
    """
    wire, key = LIST_SECTIONS[section]
    if not isinstance(items, list):
        raise InputError(f"{source}: '{wire}' must be an array, got {_got(items)}")
    seen: set[str] = set()
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise InputError(f"{source}: {wire}[{i}] is not an object")
        ident = item.get(key)
        if not isinstance(ident, str) or not ident:
            raise InputError(f"{source}: {wire}[{i}] has no {key}")
        if ident in seen:
            raise InputError(f"{source}: duplicate {key} {ident!r} in {wire}")
        seen.add(ident)
        if section == "prompts" and item.get("arguments") is not None:
            args = item["arguments"]
            if not isinstance(args, list):
                raise InputError(f"{source}: prompt {ident!r}: arguments is not a list")
            names: set[str] = set()
            for j, arg in enumerate(args):
                arg_name = arg.get("name") if isinstance(arg, dict) else None
                if not isinstance(arg_name, str) or not arg_name:
                    raise InputError(f"{source}: prompt {ident!r}: arguments[{j}] has no name")
                if arg_name in names:
                    raise InputError(f"{source}: prompt {ident!r}: duplicate argument {arg_name!r}")
                names.add(arg_name)
        if section == "resource_templates" and not isinstance(item.get("uriTemplate"), str):
            raise InputError(f"{source}: resource template {ident!r}: uriTemplate is not a string")
    return sorted(items, key=lambda item: item[key])


def _sections_of(holder: dict[str, Any], source: str, *, wire: bool) -> dict[str, Any]:
    """The list sections and ``instructions`` found in ``holder`` (an envelope when not ``wire``, else a raw
    result with wire names: ``prompts``, ``resources``, ``resourceTemplates``), checked: Snapshot kwargs
    plus ``captured`` (the names found). Raises ``InputError``."""
    out: dict[str, Any] = {}
    captured: set[str] = set()
    for section, (wire_key, _) in LIST_SECTIONS.items():
        key = wire_key if wire else section
        if key in holder and holder[key] is not None:
            out[section] = check_section(holder[key], section, source)
            captured.add(section)
    if "instructions" in holder:
        text = holder["instructions"]
        if text is not None and not isinstance(text, str):
            raise InputError(f"{source}: instructions must be a string or null")
        out["instructions"] = text
        captured.add("instructions")
    out["captured"] = captured
    return out


def snapshot_from_data(data: Any, *, source: str, label: str | None = None) -> Snapshot:
    """Build a Snapshot from any accepted JSON form.

    Accepted: a snapshot envelope; a raw ``tools/list`` result (``{"tools": [...]}``, extra keys such
    as ``server``/``protocolVersion``/``capabilities`` used when present); a JSON-RPC response wrapping
    one (``{"jsonrpc": "2.0", "result": {...}}``); the MCP Inspector CLI's JSON output
    (``{"result": {...}}`` or a bare result); a bare array of tools (read as ``{"tools": [...]}``). ``label``
    overrides the envelope's label; otherwise a raw file's label is the file name without ``.json``. Raises
    ``InputError``.
    """
    if isinstance(data, list):
        data = {"tools": data}  # a bare tools array: each item is checked as a tool below
    if not isinstance(data, dict):
        raise InputError(
            f"{source}: expected a JSON object (a snapshot or a tools/list result) or an array of tools, "
            f"got {_got(data)}"
        )
    if "format" in data and data.get("format") == FORMAT_ID:
        version = data.get("format_version")
        if version not in READABLE_VERSIONS or isinstance(version, bool):
            raise InputError(
                f"{source}: snapshot format_version {version!r} is not supported (this schema-audit reads "
                f"{', '.join(map(str, READABLE_VERSIONS))})",
                hint="upgrade schema-audit or re-capture the snapshot",
            )
        tools = check_tools(data.get("tools"), source)
        server = _object(data.get("server"))
        caps = _object(data.get("capabilities"))
        meta = _object(data.get("meta"))
        lab = label or data.get("label")
        if not isinstance(lab, str) or not lab:
            lab = _default_label(source)
        proto = data.get("protocol_version")
        transport = str(data.get("transport") or "file")
        if version == 1:
            # version 1 held tools and capabilities; capabilities came from the server unless imported
            sections: dict[str, Any] = {"captured": {"capabilities"} if transport != "file" else set()}
        else:
            sections = _sections_of(data, source, wire=False)
            declared = data.get("captured")
            if not isinstance(declared, list) or not all(isinstance(x, str) for x in declared):
                raise InputError(f"{source}: 'captured' must be a list of section names")
            unknown = set(declared) - set(SECTIONS)
            if unknown:
                raise InputError(f"{source}: 'captured' names unknown section(s) {', '.join(sorted(unknown))}")
            missing = [x for x in declared if x != "capabilities" and x not in sections["captured"]]
            if missing:
                raise InputError(f"{source}: 'captured' names {', '.join(missing)} but the snapshot has no such key")
            sections["captured"] = set(declared)
        sections["captured"] = frozenset(sections["captured"])
        sections["list_cache"] = _list_cache(data.get("list_cache"), source) if version >= 3 else {}
        return Snapshot(
            label=lab,
            tools=tools,
            server=server,
            protocol_version=proto if isinstance(proto, str) else None,
            capabilities=caps,
            transport=transport,
            meta=meta,
            source=source,
            **sections,
        )
    if data.get("format") == "schema-audit/probe-recording":
        raise InputError(
            f"{source}: is a probe recording, not a snapshot",
            hint="diff and history read a recording with --samples or --traffic; probe with --replay or --against",
        )
    if "format" in data and isinstance(data.get("format"), str) and data["format"].startswith("schema-audit/"):
        raise InputError(f"{source}: unknown format {data['format']!r}")
    if "error" in data and "result" not in data and "tools" not in data:
        err = data["error"]
        msg = err.get("message") if isinstance(err, dict) else err
        raise InputError(f"{source}: is a JSON-RPC error response, not a tools/list result: {str(msg)[:200]}")
    result = data
    if "tools" not in data and isinstance(data.get("result"), dict):
        result = data["result"]
    if "tools" not in result:
        raise InputError(
            f"{source}: not a snapshot or a tools/list result (no 'tools' key)",
            hint='expected a schema-audit snapshot, {"tools": [...]}, a JSON-RPC response or MCP Inspector CLI JSON',
        )
    tools = check_tools(result["tools"], source)
    server = {}
    raw_server = data.get("server") or data.get("serverInfo") or result.get("serverInfo")
    if isinstance(raw_server, dict):
        server = {k: raw_server.get(k) for k in ("name", "title", "version") if raw_server.get(k) is not None}
    proto = data.get("protocolVersion") or result.get("protocolVersion")
    raw_caps = data.get("capabilities", result.get("capabilities"))
    caps = raw_caps if isinstance(raw_caps, dict) else {}
    # the other lists and the instructions, with their wire names, beside "tools" (or at the top level)
    sections = _sections_of({**{k: v for k, v in data.items() if k != "result"}, **result}, source, wire=True)
    if isinstance(raw_caps, dict):
        sections["captured"].add("capabilities")
    sections["captured"] = frozenset(sections["captured"])
    hints = merge_cache_hints([result])  # a tools/list result's own ttlMs and cacheScope (2026-07-28)
    sections["list_cache"] = {"tools/list": hints} if hints else {}
    return Snapshot(
        label=label or _default_label(source),
        tools=tools,
        server=server,
        protocol_version=proto if isinstance(proto, str) else None,
        capabilities=caps,
        transport="file",
        meta={"source_form": "tools/list"},
        source=source,
        **sections,
    )


def _list_cache(value: Any, source: str) -> dict[str, dict[str, Any]]:
    """A version-3 envelope's ``list_cache``, checked: absent or null is ``{}``; otherwise an object keyed by list
    methods of ``CACHED_LISTS``, each an object whose ``ttlMs`` (when present) is an integer and ``cacheScope`` a
    string. Raises ``InputError``."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InputError(f"{source}: 'list_cache' must be an object")
    out: dict[str, dict[str, Any]] = {}
    for method, hints in value.items():
        if method not in CACHED_LISTS or not isinstance(hints, dict):
            raise InputError(f"{source}: list_cache[{method!r}] is not the hints of a list method")
        ttl = hints.get("ttlMs")
        if ttl is not None and (not isinstance(ttl, int) or isinstance(ttl, bool)):
            raise InputError(f"{source}: list_cache[{method!r}].ttlMs is not an integer")
        if hints.get("cacheScope") is not None and not isinstance(hints["cacheScope"], str):
            raise InputError(f"{source}: list_cache[{method!r}].cacheScope is not a string")
        out[method] = {k: hints[k] for k in ("ttlMs", "cacheScope") if hints.get(k) is not None}
    return out


def _object(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else ``{}`` (an envelope's optional object members)."""
    return value if isinstance(value, dict) else {}


@functools.lru_cache(maxsize=256)
def _default_label(source: str) -> str:
    """The label of a file without one: its name without ``.json`` (``fixtures/v2.json`` → ``v2``)."""
    name = Path(source).name
    return name[: -len(".json")] if name.endswith(".json") else name
