"""The snapshot model: the versioned envelope around what one server advertises, and the tool selection.

A snapshot is a versioned envelope around what one server advertises: its ``tools/list`` and, from
format version 2 on, its ``prompts/list``, ``resources/list``, ``resources/templates/list``,
capabilities and instructions, and from version 3 on the caching hints of every list (2026-07-28,
server/utilities/caching)::

    {
      "format": "schema-audit/snapshot", "format_version": 3,
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
      "list_cache": {method: {"ttlMs": int, "cacheScope": "public"|"private"}},  # when sent (version 3)
      "meta": {...}                          # volatile facts; never compared by diff
    }

``captured`` names the sections that hold what the server advertised: a live capture records all of
them (a list whose capability the server does not advertise is captured as ``[]``: a host sees none);
a ``tools/list`` file records only those it contains. ``instructions``, ``prompts``, ``resources`` and
``resource_templates`` are written only when captured; ``diff`` compares a section only when both
snapshots captured it. ``list_cache`` maps each list method (``tools/list``, ``prompts/list``,
``resources/list``, ``resources/templates/list``) whose result carried ``ttlMs`` or ``cacheScope`` to those
hints (over several pages: the smallest ``ttlMs``, and ``private`` when any page said so); a list without
hints is absent. Version-1 (tools and capabilities only) and version-2 files (no ``list_cache``) are still
read (``forms``).

Never stored: header values, environment values, credentials embedded in URLs, the server command line.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from typing import Any

from mcp_schema_audit.globs import compiled
from mcp_schema_audit.jsontext import stable_text
from mcp_schema_audit.snapshot.lines import locate_tool_lines
from mcp_schema_audit.words import plural

FORMAT_ID = "schema-audit/snapshot"
FORMAT_VERSION = 3
#: Format versions this schema-audit reads (version 1: tools and capabilities only; version 2: no list_cache).
READABLE_VERSIONS = (1, 2, 3)
#: The list methods whose caching hints a snapshot keeps (2026-07-28 server/utilities/caching §Cacheable Results).
CACHED_LISTS = ("tools/list", "prompts/list", "resources/list", "resources/templates/list")
#: The sections of a snapshot besides ``tools`` that a capture records and ``diff`` compares.
SECTIONS = ("capabilities", "instructions", "prompts", "resources", "resource_templates")
#: List sections: snapshot key → (wire key of the list result, the key that identifies an item).
LIST_SECTIONS = {
    "prompts": ("prompts", "name"),
    "resources": ("resources", "uri"),
    "resource_templates": ("resourceTemplates", "name"),
}


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
    #: List method → its caching hints as sent (``{"ttlMs": int, "cacheScope": str}``, either key absent when
    #: not sent); methods whose results carried none are absent (``merge_cache_hints``).
    list_cache: dict[str, dict[str, Any]] = field(default_factory=dict)
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

    def keep_file_text(self, data: bytes) -> None:
        """Keep ``data``, the UTF-8 bytes of the file this snapshot was read from: ``line_of`` (and ``filtered``)
        locate ``tool_lines`` and ``item_lines`` in them on first use, then drop them. Only SARIF and GitHub
        annotations need lines, so most runs never walk the text."""
        self._file_text = data

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

    def holds(self) -> str:
        """What the snapshot holds, in words: ``12 tools, 3 prompts, 0 resources, 1 resource template, 2025-11-25``
        (a section not captured is left out; the protocol version last, or ``unknown protocol``)."""
        counts = [plural(len(self.tools), "tool")] + [
            plural(len(getattr(self, s)), w)
            for s, w in (("prompts", "prompt"), ("resources", "resource"), ("resource_templates", "resource template"))
            if getattr(self, s) is not None
        ]
        return f"{', '.join(counts)}, {self.protocol_version or 'unknown protocol'}"

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
        if self.list_cache:
            out["list_cache"] = self.list_cache
        for section in LIST_SECTIONS:
            if section in self.captured and getattr(self, section) is not None:
                out[section] = getattr(self, section)
        return out


def merge_cache_hints(pages: list[dict[str, Any]]) -> dict[str, Any]:
    """The caching hints of one list from its raw result pages: ``{"ttlMs": int, "cacheScope": str}`` with the
    smallest integer ``ttlMs`` any page sent and ``"private"`` when any page said so (else the scope sent); a key
    no page sent (or sent with a value of the wrong type) is left out, so a list without hints gives ``{}``."""
    ttls = [p["ttlMs"] for p in pages if isinstance(p.get("ttlMs"), int) and not isinstance(p.get("ttlMs"), bool)]
    scopes = [p["cacheScope"] for p in pages if isinstance(p.get("cacheScope"), str)]
    out: dict[str, Any] = {}
    if ttls:
        out["ttlMs"] = min(ttls)
    if scopes:
        out["cacheScope"] = "private" if "private" in scopes else scopes[0]
    return out


def tool_hash(tool: dict[str, Any]) -> str:
    """``sha256:<hex>`` over the canonical JSON of name, description, inputSchema, outputSchema, annotations.

    Key order inside the tool does not change the hash; other tool fields (``_meta``, icons) do not count.
    The serialization (sorted keys, compact, ``ensure_ascii=False``, the standard library's number text) is
    frozen, like a finding's fingerprint: hashes pinned from earlier snapshots stay valid. It is not
    ``jsontext.canonical`` (``orjson`` writes ``1e-7`` where it writes ``1e-07``), and never changes with it.
    """
    core = {k: tool.get(k) for k in ("name", "description", "inputSchema", "outputSchema", "annotations")}
    text = stable_text(core)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def tool_selected(name: str, include: list[str] | None = None, exclude: list[str] | None = None) -> bool:
    """True when ``name`` matches one of the ``include`` globs (or ``include`` is empty/None) and none of
    ``exclude``. Globs are ``fnmatch`` patterns (``*``, ``?``, ``[seq]``), case-sensitive; each list is compiled
    once (``globs.compiled``)."""
    if include and not compiled(tuple(include)).matches(name):
        return False
    return not (exclude and compiled(tuple(exclude)).matches(name))
