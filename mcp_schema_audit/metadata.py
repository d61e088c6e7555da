"""Tool metadata drift: what changed in a tool's fields outside its schemas (description, title,
annotations), as findings.

None of these changes what a cached host validates, but they change what the model reads and what a
host auto-approves: a changed description is how a "rug pull" hides a prompt injection, and an
annotation turning more dangerous changes what runs without asking (DESIGN.md §2).
"""

from __future__ import annotations

from typing import Any

from mcp_schema_audit.findings import Finding, make_finding

#: Each hint's safe value: a change away from it is ``tool-annotation-riskier``.
_SAFE = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
#: The spec's default of each hint when absent (MCP spec 2025-03-26+ ``ToolAnnotations``).
_DEFAULTS = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}


#: Hints the spec gives meaning only when ``readOnlyHint`` is false ("meaningful only when readOnlyHint == false").
_WRITE_HINTS = ("destructiveHint", "idempotentHint")


def _hints(tool: dict[str, Any]) -> dict[str, Any]:
    """The tool's hints, with the spec's defaults for absent ones."""
    raw = tool.get("annotations") if isinstance(tool.get("annotations"), dict) else {}
    return {hint: raw.get(hint, default) for hint, default in _DEFAULTS.items()}


def tool_metadata_findings(name: str, old: dict[str, Any], new: dict[str, Any]) -> list[Finding]:
    """Findings for ``description``, ``title`` and annotation hint changes between two listings of tool ``name``.

    Returns findings in a fixed order (description, title, then hints in ``_DEFAULTS`` order). A hint
    flip towards danger (``readOnlyHint`` true → false, ``destructiveHint`` false → true,
    ``idempotentHint`` true → false, ``openWorldHint`` false → true) is ``tool-annotation-riskier``;
    other flips are ``tool-annotation-changed``. ``destructiveHint``/``idempotentHint`` are compared only
    when ``readOnlyHint`` is false on both sides: the spec gives them no meaning on a read-only tool, so
    dropping them from a tool that stays read-only changes nothing, and a tool that stops being read-only
    is reported once, by its ``readOnlyHint``.
    """
    out: list[Finding] = []
    for key, rule_id in (("description", "tool-description-changed"), ("title", "tool-title-changed")):
        if old.get(key) != new.get(key):
            f = make_finding(rule_id, name, f"/{key}", f"{key} changed", old.get(key), new.get(key))
            if key == "description":
                f.tags = ["security"]
            out.append(f)
    before_all, after_all = _hints(old), _hints(new)
    writes = before_all["readOnlyHint"] is False and after_all["readOnlyHint"] is False
    for hint, safe in _SAFE.items():
        if hint in _WRITE_HINTS and not writes:
            continue
        before, after = before_all[hint], after_all[hint]
        if before != after and isinstance(before, bool) and isinstance(after, bool):
            riskier = before == safe and after != safe
            rule_id = "tool-annotation-riskier" if riskier else "tool-annotation-changed"
            f = make_finding(rule_id, name, f"/annotations/{hint}", f"{hint} {before} → {after}", before, after)
            f.tags = ["security"]
            out.append(f)
    return out
