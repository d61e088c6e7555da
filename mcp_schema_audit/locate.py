"""Where a finding sits and how reports name it: the snapshot that lists its item, the line of the item in
that snapshot's file, its SARIF logical location and the words a report line uses for it. Shared by the
diff, lint and history reporters; for a tool finding everything is as before (the tool's name, its
``"name"`` line, ``tool/outputSchema#pointer``), other surfaces are named ``prompt summarize`` etc.
"""

from __future__ import annotations

from typing import Any

from mcp_schema_audit.findings import Finding
from mcp_schema_audit.snapshot import Snapshot

#: The snapshot section holding the items of each surface (the server's findings have none).
SECTION_OF = {"tool": "tools", "prompt": "prompts", "resource": "resources", "resource-template": "resource_templates"}


def snapshot_of_item(f: Finding, snaps: list[Snapshot]) -> Snapshot:
    """The first of ``snaps`` that lists ``f``'s item (its tool, prompt, resource or template), else the first.
    Constant time per finding: each snapshot's names are gathered once (``_names``), not scanned per finding
    (SARIF, JUnit and annotations of 30,000 findings took minutes)."""
    section = SECTION_OF.get(f.surface)
    if section is None:
        return snaps[0]
    wanted = f.tool if section == "tools" else f.name
    for snap in snaps:
        if wanted in _names(snap, section):
            return snap
    return snaps[0]


#: ``(id(snapshot), section)`` → ``(the section's list, the names it holds)``: a snapshot's lists are not changed
#: once read, and a run renders few snapshots.
_NAMES: dict[tuple[int, str], tuple[Any, frozenset[Any]]] = {}


def _names(snap: Snapshot, section: str) -> frozenset[Any]:
    items = snap.tools if section == "tools" else getattr(snap, section, None)
    key = (id(snap), section)
    hit = _NAMES.get(key)
    if hit is not None and hit[0] is items:
        return hit[1]
    if section == "tools":
        names = frozenset(t.get("name") for t in items or () if isinstance(t, dict))
    else:
        names = frozenset(snap.section_map(section) or {})
    if len(_NAMES) > 64:
        _NAMES.clear()
    _NAMES[key] = (items, names)
    return names


def about(f: Finding) -> str:
    """What a finding is about, as a report line names it (raw text): ``<tool> <direction>`` for a tool
    (``whoami output``), else the surface and the item (``prompt summarize``, ``resource template doc``)."""
    return f"{f.tool} {f.direction}" if f.surface == "tool" and f.tool else f.subject


def logical_name(f: Finding) -> str:
    """A SARIF logical location: ``tool/outputSchema#pointer``, ``tool`` for a tool-level finding, else
    ``<section>/<name>#pointer`` (``prompts/summarize#/arguments/2``, ``server/capabilities#/prompts``)."""
    if f.surface != "tool":
        return f"{SECTION_OF.get(f.surface, f.surface)}/{f.name}#{f.pointer}"
    schema_key = {"input": "inputSchema", "output": "outputSchema"}.get(f.direction)
    return f"{f.tool}/{schema_key}#{f.pointer}" if schema_key else f.tool


def line_of(snap: Snapshot, f: Finding) -> int:
    """The 1-based line of ``f``'s item in ``snap``'s file (its tool's or prompt's ``"name"``, a resource's
    ``"uri"``), 1 when unknown or for the server's findings."""
    section = SECTION_OF.get(f.surface)
    return snap.line_of(f.name, section) if section is not None else 1


def junit_case(f: Finding) -> str:
    """The JUnit test case of a finding: its tool's name, or its subject (``prompt summarize``)."""
    return f.tool if f.surface == "tool" else f.subject
