"""Snapshot model, loading of every accepted input form, canonical JSON and the snapshot store.

A snapshot is a versioned envelope around what one server advertises: its ``tools/list`` and, from
format version 2 on, its ``prompts/list``, ``resources/list``, ``resources/templates/list``,
capabilities and instructions::

    {
      "format": "schema-audit/snapshot", "format_version": 2,
      "label": "v0.2.6",
      "server": {"name": str|None, "title": str|None, "version": str|None},
      "protocol_version": str|None,          # negotiated, e.g. "2025-11-25" or "2026-07-28"
      "capabilities": {...},                 # server capabilities as sent
      "instructions": str|null,              # the server's instructions (null: it sent none)
      "transport": "stdio"|"http"|"sse"|"file",
      "tools": [tool, ...],                  # exactly as sent, sorted by name
      "prompts": [prompt, ...],              # exactly as sent, sorted by name
      "resources": [resource, ...],          # exactly as sent, sorted by uri
      "resource_templates": [template, ...], # exactly as sent, sorted by name
      "captured": ["capabilities", ...],     # which of SECTIONS were captured
      "tool_hashes": {name: "sha256:…"},     # content hash per tool (pinning)
      "meta": {...}                          # volatile facts; never compared by diff
    }

``captured`` names the sections that hold what the server advertised: a live capture records all of
them (a list whose capability the server does not advertise is captured as ``[]``: a host sees none);
a ``tools/list`` file records only those it contains. ``instructions``, ``prompts``, ``resources`` and
``resource_templates`` are written only when captured; ``diff`` compares a section only when both
snapshots captured it. Version-1 files (tools and capabilities only) are still read.

Never stored: header values, environment values, credentials embedded in URLs, the server command line.
"""

from __future__ import annotations

import contextlib
import errno
import fnmatch
import functools
import hashlib
import json
import math
import os
import re
import secrets
import stat
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mcp_schema_audit.errors import InputError, UsageError

FORMAT_ID = "schema-audit/snapshot"
FORMAT_VERSION = 2
#: Format versions this schema-audit reads (version 1: tools and capabilities only).
READABLE_VERSIONS = (1, 2)
#: The sections of a snapshot besides ``tools`` that a capture records and ``diff`` compares.
SECTIONS = ("capabilities", "instructions", "prompts", "resources", "resource_templates")
#: List sections: snapshot key → (wire key of the list result, the key that identifies an item).
LIST_SECTIONS = {
    "prompts": ("prompts", "name"),
    "resources": ("resources", "uri"),
    "resource_templates": ("resourceTemplates", "name"),
}
DEFAULT_STORE = Path(".schema-audit")
#: Upper bound on the size of any JSON input we read, in bytes (a tools/list is rarely above 1 MiB).
MAX_INPUT_BYTES = 64 * 1024 * 1024
_LABEL_RE = re.compile(r"^[A-Za-z0-9_+][A-Za-z0-9._+-]{0,127}\Z")  # \Z: no trailing newline
#: A ``\uD800``–``\uDFFF`` escape in JSON text (may decode to a lone surrogate no UTF-8 file can hold).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass
class Snapshot:
    """One server's tools at one version.

    ``tools`` is a list of raw tool objects (dicts, as sent on the wire) sorted by ``name``.
    ``meta`` holds volatile facts (capture time, duration, SDK version, page count) that diff ignores.
    """

    label: str
    tools: list[dict[str, Any]]
    server: dict[str, Any] = field(default_factory=dict)
    protocol_version: str | None = None
    capabilities: dict[str, Any] = field(default_factory=dict)
    transport: str = "file"
    meta: dict[str, Any] = field(default_factory=dict)
    source: str = ""  #: where it was read from (path or label); not serialized
    #: tool name → 1-based line of its ``"name"`` key in the file it was read from (``load_snapshot`` of a
    #: file or store label only; empty otherwise, e.g. for ``git:REF:PATH``). Not serialized.
    tool_lines: dict[str, int] = field(default_factory=dict)
    #: Raw ``prompts/list`` prompts sorted by name; ``None`` when not captured.
    prompts: list[dict[str, Any]] | None = None
    #: Raw ``resources/list`` resources sorted by uri; ``None`` when not captured.
    resources: list[dict[str, Any]] | None = None
    #: Raw ``resources/templates/list`` templates sorted by name; ``None`` when not captured.
    resource_templates: list[dict[str, Any]] | None = None
    #: The server's instructions (``None``: it sent none, or they were not captured: see ``captured``).
    instructions: str | None = None
    #: Which of ``SECTIONS`` hold what the server advertised (see the module docstring).
    captured: frozenset[str] = frozenset()
    #: ``(section, item key)`` → 1-based line of the item's key in the file (``prompts``, ``resources``,
    #: ``resource_templates``), filled in like ``tool_lines``. Not serialized.
    item_lines: dict[tuple[str, str], int] = field(default_factory=dict)
    #: The bytes of the file the snapshot was read from, until ``tool_lines``/``item_lines`` are located in
    #: them (on first use: only SARIF and GitHub annotations need lines). Not serialized.
    _file_text: bytes | None = field(default=None, repr=False, compare=False)

    def tool_map(self) -> dict[str, dict[str, Any]]:
        """Tools keyed by name (names are unique: checked on load)."""
        return {t["name"]: t for t in self.tools}

    def section_map(self, section: str) -> dict[str, dict[str, Any]] | None:
        """The items of list section ``section`` (``prompts``, ``resources``, ``resource_templates``)
        keyed by their identity (prompt and template name, resource uri); ``None`` when not captured."""
        items = getattr(self, section)
        if items is None:
            return None
        key = LIST_SECTIONS[section][1]
        return {item[key]: item for item in items}

    def line_of(self, tool: str, section: str = "tools") -> int:
        """1-based line of ``tool``'s ``"name"`` key in the snapshot file (for ``section`` other than
        ``tools``: the line of that section's item keyed ``tool``), or 1 when unknown."""
        self._locate()
        line = self.tool_lines.get(tool) if section == "tools" else self.item_lines.get((section, tool))
        return line if isinstance(line, int) and line >= 1 else 1

    def _locate(self) -> None:
        """Fill ``tool_lines`` and ``item_lines`` from the file's text, once (then drop the text)."""
        if self._file_text is None:
            return
        text, self._file_text = self._file_text.decode("utf-8"), None
        self.tool_lines = locate_tool_lines(text)
        for section, (wire, key) in LIST_SECTIONS.items():
            if getattr(self, section):  # only walk the text again for sections that hold items
                for ident, line in locate_tool_lines(text, (section, wire), key).items():
                    self.item_lines[(section, ident)] = line

    def filtered(self, include: list[str] | None = None, exclude: list[str] | None = None) -> Snapshot:
        """A copy holding only the tools whose name matches a glob of ``include`` (all when empty/None)
        and none of ``exclude`` (``fnmatch`` globs, case-sensitive). ``self`` is not changed."""
        self._locate()
        keep = [t for t in self.tools if tool_selected(t["name"], include, exclude)]
        return replace(
            self,
            tools=keep,
            tool_lines={n: ln for n, ln in self.tool_lines.items() if tool_selected(n, include, exclude)},
        )

    def to_json(self) -> dict[str, Any]:
        """The envelope as a JSON-ready dict (see the module docstring)."""
        out: dict[str, Any] = {
            "format": FORMAT_ID,
            "format_version": FORMAT_VERSION,
            "label": self.label,
            "server": self.server,
            "protocol_version": self.protocol_version,
            "capabilities": self.capabilities,
            "transport": self.transport,
            "tools": self.tools,
            "captured": sorted(self.captured),
            "tool_hashes": {t["name"]: tool_hash(t) for t in self.tools},
            "meta": self.meta,
        }
        if "instructions" in self.captured:
            out["instructions"] = self.instructions
        for section in LIST_SECTIONS:
            if section in self.captured and getattr(self, section) is not None:
                out[section] = getattr(self, section)
        return out


def canonical_json(value: Any, dest: str | None = None) -> str:
    """Serialize as canonical JSON: sorted keys, 2-space indent, UTF-8 text, final newline.

    Raises ``InputError`` for values JSON cannot represent (NaN, Infinity), strings UTF-8 cannot hold
    (lone surrogates) and values nested too deeply to serialize; its message names ``dest`` (the file the
    text is for) when given.
    """
    what = f"cannot write {dest}" if dest else "cannot write canonical JSON"
    try:
        text = json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    except ValueError as exc:
        raise InputError(f"{what}: {exc}") from exc
    except RecursionError as exc:
        raise InputError(f"{what}: a value is nested too deeply") from exc
    if _SURROGATE.search(text):
        raise InputError(f"{what}: a string holds a lone UTF-16 surrogate, which UTF-8 cannot encode")
    return text


def tool_hash(tool: dict[str, Any]) -> str:
    """``sha256:<hex>`` over the canonical JSON of name, description, inputSchema, outputSchema, annotations.

    Key order inside the tool does not change the hash; other tool fields (``_meta``, icons) do not count.
    """
    core = {k: tool.get(k) for k in ("name", "description", "inputSchema", "outputSchema", "annotations")}
    text = json.dumps(core, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def tool_selected(name: str, include: list[str] | None = None, exclude: list[str] | None = None) -> bool:
    """True when ``name`` matches one of the ``include`` globs (or ``include`` is empty/None) and none of
    ``exclude``. Globs are ``fnmatch`` patterns (``*``, ``?``, ``[seq]``), case-sensitive."""
    if include and not any(fnmatch.fnmatchcase(name, g) for g in include):
        return False
    return not (exclude and any(fnmatch.fnmatchcase(name, g) for g in exclude))


_WS = re.compile(r"[ \t\n\r]*")


def locate_tool_lines(text: str, arrays: tuple[str, ...] = ("tools",), key: str = "name") -> dict[str, int]:
    """Tool name → 1-based line of that tool's own ``"name"`` key, for the JSON text of any accepted input
    form (snapshot envelope, ``{"tools": [...]}``, ``{"result": {"tools": [...]}}``).

    Only the top-level ``name`` key of each entry of the ``tools`` array counts (a property called
    ``name`` inside a schema does not). Best effort and never raises: a text it cannot walk (not
    JSON, another shape) gives ``{}`` and callers fall back to line 1. ``arrays`` and ``key`` locate
    the items of another list instead (e.g. ``("resources",)`` and ``"uri"``): the first top-level
    array named by one of ``arrays``, each entry's ``key``.
    """
    decoder = json.JSONDecoder()

    def skip(i: int) -> int:
        return _WS.match(text, i).end()  # type: ignore[union-attr]

    def members(i: int) -> Any:
        """Yield ``(key, key_index, value_index)`` of the object starting at ``i``; return its end."""
        i = skip(i)
        if text[i : i + 1] != "{":
            raise ValueError("not an object")
        i = skip(i + 1)
        if text[i : i + 1] == "}":
            return
        while True:
            if text[i : i + 1] != '"':
                raise ValueError("key expected")
            key, after = json.decoder.scanstring(text, i + 1)
            j = skip(after)
            if text[j : j + 1] != ":":
                raise ValueError("colon expected")
            start = skip(j + 1)
            yield key, i, start
            _, end = decoder.raw_decode(text, start)
            i = skip(end)
            if text[i : i + 1] == ",":
                i = skip(i + 1)
                continue
            if text[i : i + 1] == "}":
                return
            raise ValueError("comma expected")

    def tools_array(i: int, depth: int) -> int | None:
        """Index of the ``tools`` array in the object at ``i`` (or in its ``result`` object)."""
        found = None
        for member, _, start in members(i):
            if member in arrays and text[start : start + 1] == "[":
                return start
            if member == "result" and depth == 0 and text[start : start + 1] == "{":
                found = tools_array(start, 1)
        return found

    out: dict[str, int] = {}
    line, counted = 1, 0  # lines are counted incrementally: linear in the size of the text
    try:
        i = tools_array(0, 0)
        if i is None:
            return {}
        i = skip(i + 1)
        while text[i : i + 1] not in ("]", ""):
            start = i
            _, end = decoder.raw_decode(text, start)
            if text[start : start + 1] == "{":
                for member, key_at, value_at in members(start):
                    if member == key:
                        name, _ = decoder.raw_decode(text, value_at)
                        if isinstance(name, str) and name not in out:
                            line += text.count("\n", counted, key_at)
                            counted = key_at
                            out[name] = line
                        break
            i = skip(end)
            if text[i : i + 1] == ",":
                i = skip(i + 1)
    except (ValueError, IndexError, RecursionError, AttributeError, TypeError):
        return out
    return out


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _parse_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"number {text[:40]} is out of range")
    return value


def _parse_int(text: str) -> int:
    """An integer within the range of a double (what JavaScript hosts can represent at all)."""
    if len(text.lstrip("-")) > 309:
        raise ValueError(f"number {text[:40]}… ({len(text)} digits) is out of range")
    value = int(text)
    try:
        float(value)
    except OverflowError:
        raise ValueError(f"number {text[:40]} is out of range") from None
    return value


def _lone_surrogate(value: Any) -> str | None:
    """The first string (or key) in ``value`` holding a lone UTF-16 surrogate, or ``None``. Iterative."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


class _DuplicateKey(ValueError):
    """A JSON object names one key twice (raised from ``_unique_keys``; ``parse_json_text`` words it)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook``: the object as a dict, or ``_DuplicateKey`` when a key repeats. JSON parsers keep
    the last of two equal keys (Python, orjson) or the first (some others): a file whose meaning depends on
    which is never read (``"format_version": 2, "format_version": 1`` silently dropped prompts and resources).
    ``dict(pairs)`` runs in C; only an object that lost an entry is searched for the key."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return out


def parse_json_text(text: str | bytes, source: str) -> Any:
    """Parse strict JSON (no NaN/Infinity, no numbers beyond the range of a double, valid UTF-8, no
    ``\\uD800``-style escapes of lone surrogates, no key twice in one object).

    Raises ``InputError`` naming ``source`` and the position of the problem (``duplicate key 'X' in SOURCE``).
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"{source}: not valid UTF-8 (byte {exc.start})") from exc
    elif _SURROGATE.search(text):
        raise InputError(f"{source}: text holds a lone UTF-16 surrogate (not valid Unicode)")
    try:
        value = json.loads(
            text,
            parse_constant=_reject_constant,
            parse_float=_parse_float,
            parse_int=_parse_int,
            object_pairs_hook=_unique_keys,
        )
    except _DuplicateKey as exc:
        raise InputError(f"duplicate key {_shown_key(exc.key)} in {source}") from exc
    except json.JSONDecodeError as exc:
        what = exc.msg[:-3] if exc.msg.endswith(" at") else exc.msg  # "Invalid control character at"
        raise InputError(f"{source}: not valid JSON: {what} at line {exc.lineno} column {exc.colno}") from exc
    except RecursionError as exc:
        raise InputError(f"{source}: JSON nested too deeply") from exc
    except ValueError as exc:
        raise InputError(f"{source}: {exc}") from exc
    if _SURROGATE_ESCAPE.search(text):
        bad = _lone_surrogate(value)
        if bad is not None:
            raise InputError(f"{source}: a string escapes a lone UTF-16 surrogate (not valid Unicode): {bad[:40]!r}")
    return value


def _shown_key(key: str) -> str:
    """A key for a one-line message: quoted, escaped (no control characters reach a terminal), shortened."""
    return repr(key if len(key) <= 60 else key[:60] + "…")


def read_json_file(path: Path) -> Any:
    """Read and parse a regular JSON file of at most ``MAX_INPUT_BYTES``. Raises ``InputError``.

    FIFOs, devices (``/dev/zero``) and sockets are refused before they are opened; a file that grows
    past the limit while being read is refused too.
    """
    return parse_json_text(_read_file_bytes(path), str(path))


def _read_file_bytes(path: Path) -> bytes:
    """The bytes of a regular file of at most ``MAX_INPUT_BYTES`` (see ``read_json_file``). Raises ``InputError``."""
    try:
        info = path.stat()
        if stat.S_ISDIR(info.st_mode):
            raise InputError(f"{path}: is a directory, not a JSON file")
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"{path}: not a regular file (a FIFO, device or socket is never read)")
        if info.st_size > MAX_INPUT_BYTES:
            raise InputError(f"{path}: file is {info.st_size} bytes, more than the {MAX_INPUT_BYTES}-byte limit")
        with path.open("rb") as fh:
            data = fh.read(MAX_INPUT_BYTES + 1)
        if len(data) > MAX_INPUT_BYTES:
            raise InputError(f"{path}: file is more than the {MAX_INPUT_BYTES}-byte limit")
    except IsADirectoryError as exc:
        raise InputError(f"{path}: is a directory, not a JSON file") from exc
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    return data


def check_tools(tools: Any, source: str) -> list[dict[str, Any]]:
    """Check the tool list is pairable and return it sorted by name.

    Only what pairing needs is enforced: a list of objects, each with a non-empty string ``name``,
    names unique, ``inputSchema`` (when present) an object and ``outputSchema`` an object or boolean.
    Anything else (unknown fields, invalid JSON Schema, a missing ``type``) is kept as sent: the diff
    reports it as a finding. Raises ``InputError``.
    """
    if not isinstance(tools, list):
        raise InputError(f"{source}: 'tools' must be a list, got {type(tools).__name__}")
    seen: set[str] = set()
    for i, tool in enumerate(tools):
        if not isinstance(tool, dict):
            raise InputError(f"{source}: tools[{i}] is not an object")
        name = tool.get("name")
        if not isinstance(name, str) or not name:
            raise InputError(f"{source}: tools[{i}] has no name")
        if name in seen:
            raise InputError(f"{source}: duplicate tool name {name!r}")
        seen.add(name)
        if "inputSchema" in tool and not isinstance(tool["inputSchema"], dict):
            raise InputError(f"{source}: tool {name!r}: inputSchema is not an object")
        out = tool.get("outputSchema")
        if out is not None and not isinstance(out, (dict, bool)):
            raise InputError(f"{source}: tool {name!r}: outputSchema is not an object")
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
        raise InputError(f"{source}: '{wire}' must be a list, got {type(items).__name__}")
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
    (``{"result": {...}}`` or a bare result). ``label`` overrides the envelope's label; otherwise a raw
    file's label is the file name without ``.json``. Raises ``InputError``.
    """
    if not isinstance(data, dict):
        raise InputError(
            f"{source}: expected a JSON object (a snapshot or a tools/list result), got {type(data).__name__}"
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
        server = data.get("server") if isinstance(data.get("server"), dict) else {}
        caps = data.get("capabilities") if isinstance(data.get("capabilities"), dict) else {}
        meta = data.get("meta") if isinstance(data.get("meta"), dict) else {}
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
    server: dict[str, Any] = {}
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


@functools.lru_cache(maxsize=256)
def _default_label(source: str) -> str:
    name = Path(source).name
    return name[: -len(".json")] if name.endswith(".json") else name


def check_label(label: str) -> str:
    """Return ``label`` if usable as a store file name (letters, digits, ``._+-``, ≤128). Raises ``UsageError``."""
    if not _LABEL_RE.match(label or ""):
        raise UsageError(f"invalid label {label!r}: use letters, digits and . _ + - (not starting with . or -)")
    return label


def store_path(store: Path, label: str) -> Path:
    """Path of the snapshot labelled ``label`` in ``store``: ``<store>/snapshots/<label>.json``."""
    return store / "snapshots" / f"{check_label(label)}.json"


def load_snapshot_file(path: Path) -> Snapshot:
    """Load the snapshot (or any accepted input form) in the file ``path``; ``line_of`` gives the line of
    each tool in the file (for SARIF regions), located on first use. Raises ``InputError``."""
    data = _read_file_bytes(path)
    snap = snapshot_from_data(parse_json_text(data, str(path)), source=str(path))
    snap._file_text = data  # lines are located on first use (``Snapshot.line_of``)
    return snap


def load_snapshot(ref: str, *, store: Path = DEFAULT_STORE) -> Snapshot:
    """Load a snapshot named by ``ref``: an existing file path, or else a label in ``store``.

    ``line_of`` locates tools in the file on first use. Raises ``InputError`` when neither
    exists or the content is not an accepted form.
    """
    path = Path(ref)
    if path.is_file():
        return load_snapshot_file(path)
    if _LABEL_RE.match(ref):
        stored = store / "snapshots" / f"{ref}.json"
        if stored.is_file():
            return load_snapshot_file(stored)
    if path.exists():
        raise InputError(f"{ref}: not a regular file")
    if ref.endswith(".json") or os.sep in ref or "/" in ref:
        raise InputError(f"{ref}: no such file (and no label {ref!r} in store {store})")
    raise InputError(
        f"no snapshot {ref!r}: not a file, and no label {ref!r} in store {store}",
        hint=f"capture it with: schema-audit snapshot --label {ref} -- <server command>"
        if _LABEL_RE.match(ref)
        else None,
    )


#: Temporary files of :func:`atomic_write_text` are named ``.<target name>.<12 hex>.schema-audit.tmp``
#: (``.<first 96 characters>~<8 hex of the whole name>`` for target names longer than 128 characters).
TEMP_SUFFIX = ".schema-audit.tmp"
#: A temporary file of the same target older than this (seconds since its last modification) is left
#: over from a killed writer and is removed by the next write of that target.
STALE_TEMP_AGE_S = 3600.0
_TEMP_TOKEN_RE = r"[0-9a-f]{12}"


def _temp_prefix(name: str) -> str:
    """``"." + name`` for a temporary file of the target ``name``, kept short enough for a file name."""
    if len(name) <= 128:
        return f".{name}"
    return f".{name[:96]}~{hashlib.sha256(name.encode('utf-8', 'surrogateescape')).hexdigest()[:8]}"


def temp_name_pattern(path: Path) -> re.Pattern[str]:
    """The regex the names of ``path``'s temporary files match (another target's temporary files do not)."""
    return re.compile(re.escape(_temp_prefix(path.name)) + r"\." + _TEMP_TOKEN_RE + re.escape(TEMP_SUFFIX) + r"\Z")


def remove_stale_temp_files(path: Path, *, max_age_s: float = STALE_TEMP_AGE_S, now: float | None = None) -> list[Path]:
    """Delete temporary files that a killed :func:`atomic_write_text` of ``path`` left in ``path``'s folder.

    Only regular files (never symlinks or folders) whose name matches :func:`temp_name_pattern` and
    whose modification time is more than ``max_age_s`` seconds before ``now`` (default: the current
    time, seconds since the epoch) are removed. A running write finishes within seconds and its file's
    time moves with every write, so it is not touched; should a writer stall for longer than
    ``max_age_s``, its final rename fails (``InputError``) and the target stays as it was. Returns the
    removed paths. Never raises: a folder that cannot be listed or a file that cannot be removed is
    skipped.
    """
    pattern = temp_name_pattern(path)
    limit = (time.time() if now is None else now) - max_age_s
    removed: list[Path] = []
    try:
        entries = list(os.scandir(path.parent))
    except OSError:
        return removed
    for entry in entries:
        if not pattern.match(entry.name):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISREG(info.st_mode) and info.st_mtime < limit:
                os.unlink(entry.path)
                removed.append(Path(entry.path))
        except OSError:
            continue
    return removed


def _create_temp(path: Path) -> tuple[int, str]:
    """Create and open a new temporary file next to ``path``; returns ``(fd, name)``.

    The file is created with mode 0o666 so that the kernel applies the umask (and a default ACL of the
    folder), as for any file a program creates. Raises ``OSError``.
    """
    prefix = _temp_prefix(path.name)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(100):
        name = str(path.parent / f"{prefix}.{secrets.token_hex(6)}{TEMP_SUFFIX}")
        try:
            return os.open(name, flags, 0o666), name
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", str(path.parent))


def atomic_write_text(path: Path, text: str, *, exclusive: bool = False) -> None:
    """Write ``text`` (UTF-8, ``\\n`` line ends) to ``path`` atomically: a temporary file in the same
    folder, fsync, rename.

    A crash or a kill at any point leaves the old file intact (and at worst a temporary file named
    ``.<name>.<12 hex>.schema-audit.tmp``, see :func:`temp_name_pattern`); before writing, temporary
    files of the same target older than ``STALE_TEMP_AGE_S`` seconds are removed. Permissions: a new
    file gets mode 0o666 minus the umask (0o644 with umask 022), like any file a program creates; a
    replaced file keeps its mode. Creates missing parent folders. An existing target that is not a
    regular file or a folder (``/dev/null``, a FIFO, a terminal) is written to directly, never
    replaced. ``exclusive``: never replace an existing ``path``, even one that appeared while the text
    was prepared (the temporary file is hard-linked into place, which fails if the name exists): a
    concurrent writer of the same snapshot label loses with ``InputError`` instead of silently
    overwriting. Raises ``InputError`` (naming ``path`` and the OS reason) when the folder or the file
    cannot be written.
    """
    try:
        if stat.S_ISCHR(os.stat(path).st_mode) or stat.S_ISFIFO(os.stat(path).st_mode):
            with open(path, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
            return
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from exc
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_temp_files(path)
        try:
            old_mode: int | None = stat.S_IMODE(os.stat(path).st_mode)
        except FileNotFoundError:
            old_mode = None
        fd, tmp = _create_temp(path)
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            if old_mode is not None:
                os.chmod(fh.fileno() if os.chmod in os.supports_fd else tmp, old_mode)
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        if exclusive:
            try:
                os.link(tmp, path)
            except FileExistsError:
                raise InputError(
                    f"{path} appeared while this snapshot was being captured (another capture of "
                    "the same label?); pass --force to replace it"
                ) from None
            except OSError as exc:  # a file system without hard links: the check before capture must do
                if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK) or path.exists():
                    raise
                os.replace(tmp, path)
            else:
                os.unlink(tmp)
        else:
            os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise InputError(f"cannot write {path}: {exc.strerror or exc}") from exc
        raise
