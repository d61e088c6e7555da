"""Where a finding sits and how reports name it: the snapshot that lists its item, the line of the item in
that snapshot's file, its SARIF logical location and the words a report line uses for it. Shared by the
diff, lint and history reporters; for a tool finding everything is as before (the tool's name, its
``"name"`` line, ``tool/outputSchema#pointer``), other surfaces are named ``prompt summarize`` etc.
"""

from __future__ import annotations

from mcp_schema_audit.findings import Finding
from mcp_schema_audit.snapshot import Snapshot

#: The snapshot section holding the items of each surface (the server's findings have none).
SECTION_OF = {"tool": "tools", "prompt": "prompts", "resource": "resources", "resource-template": "resource_templates"}


def snapshot_of_item(f: Finding, snaps: list[Snapshot]) -> Snapshot:
    """The first of ``snaps`` that lists ``f``'s item (its tool, prompt, resource or template), else the first."""
    section = SECTION_OF.get(f.surface)
    for snap in snaps:
        if section == "tools" and any(t.get("name") == f.tool for t in snap.tools):
            return snap
        if section not in (None, "tools") and f.name in (snap.section_map(section) or {}):
            return snap
    return snaps[0]


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
