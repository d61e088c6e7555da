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
from mcp_schema_audit.findings import Finding, make_finding
from mcp_schema_audit.lint import listing_breakers
from mcp_schema_audit.metadata import tool_metadata_findings
from mcp_schema_audit.snapshot import Snapshot
from mcp_schema_audit.surfaces import surface_findings


def diff_snapshots(old: Snapshot, new: Snapshot, *, time_budget: float | None = None) -> list[Finding]:
    """All findings between two snapshots, tools paired by name.

    Returns tool findings sorted by (tool, direction: tool < input < output, pointer, rule), then the
    findings about other surfaces (``surfaces.surface_findings``: prompts, resources, resource templates,
    the server; ``tool`` is ``""`` there). Removed tools are breaking (witness: arguments the cached inputSchema allows, now sent to an unknown tool).
    ``time_budget`` (seconds, default ``RUN_TIME_BUDGET_S``; ``0`` or negative: no limit) bounds the
    whole call: a changed tool met after it is spent is not compared and gets one
    ``schema-undecidable`` warning saying so.
    """
    budget = RUN_TIME_BUDGET_S if time_budget is None else time_budget
    deadline = time.monotonic() + budget if budget > 0 else None
    om, nm = old.tool_map(), new.tool_map()
    out: list[Finding] = []
    for name in sorted(set(om) | set(nm)):
        if name not in nm:
            out.append(removed_tool_finding(name, om[name].get("inputSchema", {})))
            continue
        if name not in om:
            out.append(make_finding("tool-added", name, "", "new tool", None, name))
            continue
        o, n = om[name], nm[name]
        if canon(o) == canon(n):
            continue  # identical tool (JSON equality: Python's ``False == 0`` must not hide a change): nothing to compare (the common case, kept cheap for big servers)
        out += tool_metadata_findings(name, o, n)
        if deadline is not None and time.monotonic() > deadline:
            out.append(make_finding("schema-undecidable", name, "", f"not compared: the run's time budget ({budget:g} s, "
                                "--time-budget) was spent on earlier tools", None, None, direction="input"))
            continue
        out += compare_schemas(o.get("inputSchema", {}), n.get("inputSchema", {}), "input", name, deadline=deadline)
        out += compare_schemas(o.get("outputSchema"), n.get("outputSchema"), "output", name, deadline=deadline)
    out += _new_listing_breakers(old, new, {(f.rule, f.tool, f.pointer) for f in out}, deadline)
    order = {"tool": 0, "input": 1, "output": 2}
    return sorted(out, key=lambda f: (f.tool, order.get(f.direction, 3), f.pointer, f.rule)) + surface_findings(old, new)


def _new_listing_breakers(old: Snapshot, new: Snapshot, have: set[tuple[str, str, str]],
                          deadline: float | None = None) -> list[Finding]:
    """Listing-time breakers present in NEW and not in OLD (a new tool with one counts too).

    Past ``deadline`` (``time.monotonic()``) a changed tool is not checked: one ``schema-undecidable``
    warning names the tools left."""
    om = old.tool_map()
    out = []
    same_era = old.protocol_version == new.protocol_version
    left: list[str] = []
    for name, tool in new.tool_map().items():
        if same_era and name in om and canon(om[name]) == canon(tool):
            continue  # unchanged tool on the same protocol: it introduces no breaker
        if deadline is not None and time.monotonic() > deadline:
            left.append(name)
            continue
        before = {(f.rule, f.pointer) for f in listing_breakers(om[name], old.protocol_version)} if name in om else set()
        for f in listing_breakers(tool, new.protocol_version):
            if (f.rule, f.pointer) not in before and (f.rule, f.tool, f.pointer) not in have:
                f.message += " (the host loses the whole tools/list)" if f.rule != "output-schema-uncompilable" else ""
                out.append(f)
    if left:
        shown = ", ".join(left[:10]) + (f" and {len(left) - 10} more" if len(left) > 10 else "")
        out.append(make_finding("schema-undecidable", left[0], "", f"listing-time checks (metaschema, compilation) "
                            f"not run for {len(left)} changed tool(s) ({shown}): the run's time budget "
                            "(--time-budget) was spent", None, None, direction="tool"))
    return out
