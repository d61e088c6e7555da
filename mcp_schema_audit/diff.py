"""Pairing two snapshots: every tool of either side, by name, through the compatibility engine.

``diff_snapshots`` is the one way from two ``Snapshot``s to findings: tools added and removed, tool
metadata drift (``metadata``), each tool's ``inputSchema`` and ``outputSchema`` (``engine``), the
listing-time breakers a new listing introduces (``lint``), and everything else hosts cache: prompts,
resources, resource templates, capabilities and instructions (``surfaces``).
"""

from __future__ import annotations

import time

from mcp_schema_audit.engine import RUN_TIME_BUDGET_S, compare_schemas, removed_tool_finding
from mcp_schema_audit.engine.issue import canon
from mcp_schema_audit.errors import RunTimeExceeded
from mcp_schema_audit.findings import Finding, make_finding
from mcp_schema_audit.lint import listing_breakers
from mcp_schema_audit.metadata import tool_metadata_findings
from mcp_schema_audit.snapshot import Snapshot
from mcp_schema_audit.surfaces import surface_findings


def diff_snapshots(old: Snapshot, new: Snapshot, *, time_budget: float | None = None) -> list[Finding]:
    """All findings between two snapshots, tools paired by name.

    Returns tool findings sorted by (tool, direction: tool < input < output, pointer, rule), then the
    findings about other surfaces (``surfaces.surface_findings``: prompts, resources, resource templates,
    the server; ``tool`` is ``""`` there). Removed tools are breaking (witness: arguments the cached
    inputSchema allows, now sent to an unknown tool). The findings depend on the two snapshots only: every
    budget that bounds a comparison counts work. ``time_budget`` (seconds, default ``RUN_TIME_BUDGET_S``;
    ``0`` or negative: no limit) is a last-resort guard far above normal run times: past it,
    ``RunTimeExceeded`` is raised (exit 4) instead of any finding being changed.
    """
    budget = RUN_TIME_BUDGET_S if time_budget is None else time_budget
    deadline = time.monotonic() + budget if budget > 0 else None
    om, nm = old.tool_map(), new.tool_map()
    out: list[Finding] = []
    for name in sorted(set(om) | set(nm)):
        _check_deadline(deadline, budget)
        if name not in nm:
            out.append(removed_tool_finding(name, om[name].get("inputSchema", {})))
            continue
        if name not in om:
            out.append(make_finding("tool-added", name, "", "new tool", None, name))
            continue
        o, n = om[name], nm[name]
        if canon(o) == canon(n):
            continue  # identical tool (JSON equality: Python's ``False == 0`` must not hide a change)
        out += tool_metadata_findings(name, o, n)
        out += compare_schemas(o.get("inputSchema", {}), n.get("inputSchema", {}), "input", name)
        out += compare_schemas(o.get("outputSchema"), n.get("outputSchema"), "output", name)
    out += _new_listing_breakers(old, new, {(f.rule, f.tool, f.pointer) for f in out}, deadline, budget)
    order = {"tool": 0, "input": 1, "output": 2}
    return sorted(out, key=lambda f: (f.tool, order.get(f.direction, 3), f.pointer, f.rule)) + surface_findings(old, new)


def _check_deadline(deadline: float | None, budget: float) -> None:
    if deadline is not None and time.monotonic() > deadline:
        raise RunTimeExceeded(f"the comparison ran longer than {budget:g} s (--time-budget, a last-resort guard "
                              "far above normal run times); no report was written",
                              hint="a pathological schema or an overloaded machine: rerun with --time-budget 0 to "
                              "wait for it, or report the input")


def _new_listing_breakers(old: Snapshot, new: Snapshot, have: set[tuple[str, str, str]],
                          deadline: float | None = None, budget: float = 0) -> list[Finding]:
    """Listing-time breakers present in NEW and not in OLD (a new tool with one counts too)."""
    om = old.tool_map()
    out = []
    same_era = old.protocol_version == new.protocol_version
    for name, tool in new.tool_map().items():
        if same_era and name in om and canon(om[name]) == canon(tool):
            continue  # unchanged tool on the same protocol: it introduces no breaker
        _check_deadline(deadline, budget)
        found = listing_breakers(tool, new.protocol_version)
        if not found:
            continue  # the old listing is checked only when the new one has a problem to compare with
        before = {(f.rule, f.pointer) for f in listing_breakers(om[name], old.protocol_version)} if name in om else set()
        for f in found:
            if (f.rule, f.pointer) not in before and (f.rule, f.tool, f.pointer) not in have:
                f.message += " (the host loses the whole tools/list)" if f.rule != "output-schema-uncompilable" else ""
                out.append(f)
    return out
