"""Pairing two snapshots: every tool of either side, by name, through the compatibility engine.

``diff_snapshots`` is the one way from two ``Snapshot``s to findings: tools added and removed, tool
metadata drift (``metadata``), each tool's ``inputSchema`` and ``outputSchema`` (``engine``), the
listing-time breakers a new listing introduces (``lint``), and everything else hosts cache: prompts,
resources, resource templates, capabilities and instructions (``surfaces``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from mcp_schema_audit import fastpaths
from mcp_schema_audit.engine import RUN_TIME_BUDGET_S, compare_schemas, removed_tool_finding
from mcp_schema_audit.errors import RunTimeExceeded
from mcp_schema_audit.findings import Finding, make_finding
from mcp_schema_audit.jsontext import same_json
from mcp_schema_audit.lint import listing_breakers
from mcp_schema_audit.metadata import tool_metadata_findings
from mcp_schema_audit.parallel import ordered_map
from mcp_schema_audit.snapshot import Snapshot
from mcp_schema_audit.surfaces import surface_findings


def diff_snapshots(
    old: Snapshot,
    new: Snapshot,
    *,
    time_budget: float | None = None,
    jobs: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[Finding]:
    """All findings between two snapshots, tools paired by name.

    Returns tool findings sorted by (tool, direction: tool < input < output, pointer, rule), then the
    findings about other surfaces (``surfaces.surface_findings``: prompts, resources, resource templates,
    the server; ``tool`` is ``""`` there). Removed tools are breaking (witness: arguments the cached
    inputSchema allows, now sent to an unknown tool). The findings depend on the two snapshots only: every
    budget that bounds a comparison counts work, and the order does not depend on how the work was shared.
    ``time_budget`` (seconds, default ``RUN_TIME_BUDGET_S``; ``0`` or negative: no limit) is a last-resort
    guard far above normal run times: past it, ``RunTimeExceeded`` is raised (exit 4) instead of any finding
    being changed. ``jobs``: processes to compare tools on (``None``: every available core, when the
    catalog is large enough to pay for it; see ``parallel``). ``progress(done, total)`` is called as tools
    needing work are finished.
    """
    budget = RUN_TIME_BUDGET_S if time_budget is None else time_budget
    deadline = time.monotonic() + budget if budget > 0 else None
    om, nm = old.tool_map(), new.tool_map()
    out: list[Finding] = []
    same_era = old.protocol_version == new.protocol_version
    work: list[str] = []  # tools changed or added, and every tool of a listing read on another protocol
    for name in sorted(set(om) | set(nm)):
        if name not in nm:
            out.append(removed_tool_finding(name, om[name].get("inputSchema", {})))
            continue
        if name not in om:
            out.append(make_finding("tool-added", name, "", "new tool", None, name))
            work.append(name)
        elif not (fastpaths.enabled() and same_json(om[name], nm[name])) or not same_era:
            work.append(name)  # identical tools (exact JSON equality) on the same protocol need no work

    def one(i: int) -> list[Finding]:
        _check_deadline(deadline, budget)
        name = work[i]
        return _tool_findings(name, om.get(name), nm[name], old.protocol_version, new.protocol_version)

    def report(done: int) -> None:
        if progress is not None:
            progress(done, len(work))

    for found in ordered_map(one, len(work), jobs=jobs, progress=report if progress is not None else None):
        out += found
    order = {"tool": 0, "input": 1, "output": 2}
    return sorted(out, key=lambda f: (f.tool, order.get(f.direction, 3), f.pointer, f.rule)) + surface_findings(
        old, new
    )


def _tool_findings(
    name: str, o: dict[str, Any] | None, n: dict[str, Any], old_protocol: str | None, new_protocol: str | None
) -> list[Finding]:
    """One tool's findings: metadata drift and both schemas when it exists on both sides (``o`` not None), then
    the listing-time breakers its new entry introduces (``_new_listing_breakers``)."""
    out: list[Finding] = []
    if o is not None and not same_json(o, n):
        out += tool_metadata_findings(name, o, n)
        out += compare_schemas(o.get("inputSchema", {}), n.get("inputSchema", {}), "input", name)
        out += compare_schemas(o.get("outputSchema"), n.get("outputSchema"), "output", name)
    return out + _new_listing_breakers(name, o, n, old_protocol, new_protocol, {(f.rule, f.pointer) for f in out})


def _check_deadline(deadline: float | None, budget: float) -> None:
    if deadline is not None and time.monotonic() > deadline:
        raise RunTimeExceeded(
            f"the comparison ran longer than {budget:g} s (--time-budget, a last-resort guard "
            "far above normal run times); no report was written",
            hint="a pathological schema or an overloaded machine: rerun with --time-budget 0 to "
            "wait for it, or report the input",
        )


def _new_listing_breakers(
    name: str,
    o: dict[str, Any] | None,
    n: dict[str, Any],
    old_protocol: str | None,
    new_protocol: str | None,
    have: set[tuple[str, str]],
) -> list[Finding]:
    """Listing-time breakers of tool ``name``'s new entry ``n`` that its old entry ``o`` (None: a new tool) did not
    have and no finding in ``have`` (rule, pointer) already reports."""
    found = listing_breakers(n, new_protocol)
    if not found:
        return []  # the old listing is checked only when the new one has a problem to compare with
    before = {(f.rule, f.pointer) for f in listing_breakers(o, old_protocol)} if o is not None else set()
    out = []
    for f in found:
        if (f.rule, f.pointer) not in before and (f.rule, f.pointer) not in have:
            f.message += " (the host loses the whole tools/list)" if f.rule != "output-schema-uncompilable" else ""
            out.append(f)
    return out
