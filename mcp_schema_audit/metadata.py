"""Tool metadata drift: what changed in a tool's fields outside its schemas (description, title,
annotations, icons, execution, ``_meta`` and any field a newer spec adds), as findings.

None of these changes what a cached host validates, but they change what the model reads and what a
host auto-approves: a changed description is how a "rug pull" hides a prompt injection, and an
annotation turning more dangerous changes what runs without asking (docs/verdicts.md, Direction and severity).
"""

from __future__ import annotations

import json
from typing import Any

from mcp_schema_audit.findings import Finding, make_finding
from mcp_schema_audit.jsontext import pointer, same_json

#: Each hint's safe value: a change away from it is ``tool-annotation-riskier``.
_SAFE = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
#: The spec's default of each hint when absent (MCP spec 2025-03-26+ ``ToolAnnotations``).
_DEFAULTS = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}


#: Hints the spec gives meaning only when ``readOnlyHint`` is false ("meaningful only when readOnlyHint == false").
_WRITE_HINTS = ("destructiveHint", "idempotentHint")


def _hints(tool: dict[str, Any]) -> dict[str, Any]:
    """The tool's hints, with the spec's defaults for absent ones."""
    raw = given if isinstance(given := tool.get("annotations"), dict) else {}
    return {hint: raw.get(hint, default) for hint, default in _DEFAULTS.items()}


#: Fields of a tool entry with their own comparison: the name pairs tools, the schemas go through the engine,
#: description and title through ``tool_metadata_findings``' own rules.
_OWN_HANDLING = ("name", "inputSchema", "outputSchema", "description", "title")
#: Characters of a value a ``tool-metadata-changed`` message shows (compact JSON); ``old``/``new`` hold it all.
_VALUE_CHARS = 200


def tool_metadata_findings(name: str, old: dict[str, Any], new: dict[str, Any]) -> list[Finding]:
    """Findings for every change between two listings of tool ``name`` outside its schemas and name.

    Description, title and the four annotation hints have their own rules (``_text_and_hint_findings``: a hint
    change the spec gives no meaning, such as ``destructiveHint`` on a read-only tool, is no finding); every
    other change (``annotations`` keys that are not hints, ``icons``, ``execution``, ``_meta``, fields a newer
    spec adds) is one ``tool-metadata-changed`` finding per changed, added or removed value
    (``_drift_findings``). Order: description, title, hints, then drift by pointer.
    """
    out = _text_and_hint_findings(name, old, new)
    return out + _drift_findings(name, old, new, {f"/annotations/{hint}" for hint in _DEFAULTS})


def _text_and_hint_findings(name: str, old: dict[str, Any], new: dict[str, Any]) -> list[Finding]:
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


def _rest(tool: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    """The fields of ``tool`` that ``_drift_findings`` compares: all but ``_OWN_HANDLING``; absent ``annotations``
    read as ``{}`` when ``other`` has an annotations object, so that each annotation added or removed is a
    change of its own (a hint the hint rules report is then recognized by its pointer)."""
    rest = {k: v for k, v in tool.items() if k not in _OWN_HANDLING}
    if "annotations" not in rest and isinstance(other.get("annotations"), dict):
        rest["annotations"] = {}
    return rest


def _shown(value: Any) -> str:
    """A value in a message: compact JSON, cut to ``_VALUE_CHARS`` characters."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= _VALUE_CHARS else text[: _VALUE_CHARS - 1] + "…"


def _same_value(a: Any, b: Any) -> bool:
    """JSON equality of two values, numbers by value (``1`` is ``1.0``; ``true`` is not ``1``)."""
    if (
        isinstance(a, (int, float))
        and isinstance(b, (int, float))
        and not isinstance(a, bool)
        and not isinstance(b, bool)
    ):
        return a == b
    return same_json(a, b)


def _drift_findings(name: str, old: dict[str, Any], new: dict[str, Any], reported: set[str]) -> list[Finding]:
    """One ``tool-metadata-changed`` finding per value ``deepdiff.DeepDiff`` finds changed, added or removed in
    the fields outside ``_OWN_HANDLING``, at its JSON Pointer into the tool entry (``/annotations/foo``,
    ``/_meta/x/y``, ``/icons/0/src``), with ``old``/``new`` the values (``None`` when absent).

    Changes at a pointer in ``reported`` (the hints, which the hint rules judge) and equal values (``1`` and
    ``1.0``; ``true`` and ``1`` differ: ``_same_value``) are left out. Changes under ``/annotations`` are tagged
    ``security``. Sorted by pointer.
    """
    a, b = _rest(old, new), _rest(new, old)
    if same_json(a, b):
        return []
    from deepdiff import DeepDiff  # ~0.13 s to import: only when some metadata changed
    from deepdiff.helper import notpresent

    out = []
    # threshold_to_diff_deeper=0: dicts with no key in common are still compared key by key, not replaced whole
    for levels in DeepDiff(a, b, view="tree", threshold_to_diff_deeper=0).values():
        for level in levels:
            ptr = pointer(level.path(output_format="list"))
            before = None if level.t1 is notpresent else level.t1
            after = None if level.t2 is notpresent else level.t2
            if ptr in reported or (
                level.t1 is not notpresent and level.t2 is not notpresent and _same_value(before, after)
            ):
                continue
            if level.t1 is notpresent:
                words = f"added: {_shown(after)}"
            elif level.t2 is notpresent:
                words = f"removed (was {_shown(before)})"
            else:
                words = f"{_shown(before)} → {_shown(after)}"
            f = make_finding("tool-metadata-changed", name, ptr, words, before, after)
            if ptr.startswith("/annotations/"):
                f.tags = ["security"]
            out.append(f)
    return sorted(out, key=lambda f: f.pointer)
