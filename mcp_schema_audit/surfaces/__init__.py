"""What hosts cache besides tools, compared: prompts, static resources, resource templates, the server's
capabilities and instructions.

``surface_findings(old, new)`` is called by ``diff.diff_snapshots`` (the one way from two snapshots to
findings). It compares a section only when both snapshots captured it (``Snapshot.captured``); prompts and
resource templates are paired by name, resources by uri. Verdicts follow docs/verdicts.md (Direction and
severity) with OLD as what hosts cached and NEW as what the server runs: a breaking finding names a concrete
request a cached host sends that the new server rejects (the witness, ``accepted_by: "old"``), e.g. the
``prompts/get`` params without a newly required argument, or a resource URI expanded from the cached
``uriTemplate`` that no template of the new version matches (``uritemplates``: the MCP python-sdk's RFC 6570
matcher).

Every finding here has ``tool == ""``, ``surface`` and ``name`` set, ``direction == surface`` and a
``pointer`` into the item as listed (``/arguments/1/required``) or into the capabilities object
(``/resources/subscribe``); ``hosts`` is empty (no host's JSON Schema validator is involved).
"""

from __future__ import annotations

from mcp_schema_audit.findings import Finding
from mcp_schema_audit.snapshot import Snapshot
from mcp_schema_audit.surfaces.caching import cache_findings, extension_findings
from mcp_schema_audit.surfaces.prompts import prompt_findings
from mcp_schema_audit.surfaces.resources import resource_findings
from mcp_schema_audit.surfaces.server import capability_findings, instruction_findings, name_findings
from mcp_schema_audit.surfaces.templates import TemplateDiff
from mcp_schema_audit.vocabulary import SURFACE_ORDER

__all__ = ["surface_findings", "uncompared_note"]

_SECTION_WORDS = {
    "capabilities": "capabilities",
    "instructions": "instructions",
    "prompts": "prompts",
    "resources": "resources",
    "resource_templates": "resource templates",
}


def surface_findings(old: Snapshot, new: Snapshot) -> list[Finding]:
    """Findings for every section both snapshots captured (prompts, resources, resource templates,
    capabilities, instructions) and for the server's name, hosts having cached ``old`` and the server running
    ``new``.

    Returns findings sorted by surface (prompt, resource, resource-template, server), name, pointer, rule.
    Never raises for malformed items beyond what ``snapshot.check_section`` already refused: an unparsable
    ``uriTemplate`` makes its finding a warning with a ``reason``.
    """
    both = old.captured & new.captured
    out: list[Finding] = []
    if "prompts" in both:
        out += prompt_findings(old, new)
    if "resources" in both:
        out += resource_findings(old, new)
    if "resource_templates" in both:
        out += TemplateDiff(old, new).findings()
    if "capabilities" in both:
        out += capability_findings(old, new) + extension_findings(old, new)
    out += cache_findings(old, new)
    if "instructions" in both:
        out += instruction_findings(old.instructions, new.instructions)
    out += name_findings(old, new)  # every snapshot has its server's name (or none, for a tools/list file)
    return sorted(out, key=lambda f: (SURFACE_ORDER.get(f.surface, 9), f.name, f.pointer, f.rule))


def uncompared_note(old: Snapshot, new: Snapshot) -> str | None:
    """A report note naming the sections only one side captured (so they were not compared), or ``None``.

    E.g. ``prompts, resources, resource templates, instructions not compared: OLD (v0.2.5) has no such
    sections (a version-1 snapshot or a tools/list file)``."""
    parts = []
    for side, mine, other in (("OLD", old, new), ("NEW", new, old)):
        missing = [
            _SECTION_WORDS[s]
            for s in ("prompts", "resources", "resource_templates", "capabilities", "instructions")
            if s in other.captured and s not in mine.captured
        ]
        if missing:
            parts.append(
                f"{', '.join(missing)} not compared: {side} ({mine.label}) did not capture them "
                "(a version-1 snapshot or a tools/list file)"
            )
    return "; ".join(parts) or None
