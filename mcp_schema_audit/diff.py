"""Pairing two snapshots: every tool of either side, by name, through the compatibility engine; and the
compatibility modes (which side hosts cached).

``diff_snapshots`` is the one way from two ``Snapshot``s to findings: tools added and removed, tool
metadata drift (``metadata``), each tool's ``inputSchema`` and ``outputSchema`` (``engine``), the
listing-time breakers a new listing introduces (``lint``), the ``x-mcp-header`` annotations (``surfaces.headers``:
invalid ones a new listing introduces, headers added, renamed or removed), MCP Apps' ``ui://`` references
(``surfaces.apps``), and everything else hosts cache: prompts, resources, resource templates, capabilities,
extensions, instructions and the lists' caching hints (``surfaces``). ``diff_with_mode`` runs it once
per direction of the mode (``backward``, ``forward``, ``full``) and maps forward findings back to the
snapshots as given.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from mcp_schema_audit import fastpaths, guard
from mcp_schema_audit.engine import RUN_TIME_BUDGET_S, compare_schemas, removed_tool_finding, servers
from mcp_schema_audit.engine.arguments import judge_inputs, server_outcome
from mcp_schema_audit.engine.compare import NEW_TOOL
from mcp_schema_audit.engine.meter import Meter
from mcp_schema_audit.engine.server_words import unknown_tool
from mcp_schema_audit.engine.servers import ServerValidator, as_listed, framework_schema, regex_reading
from mcp_schema_audit.errors import RunTimeExceeded, not_one_of
from mcp_schema_audit.findings import NEW_SIDE, Finding, make_finding
from mcp_schema_audit.jsontext import same_json
from mcp_schema_audit.lint import listing_breakers
from mcp_schema_audit.metadata import tool_metadata_findings
from mcp_schema_audit.parallel import ordered_map
from mcp_schema_audit.renames import (
    changed_renames,
    merge_argument_renames,
    renamed_tool_finding,
    tool_renames,
    unsearched_tagged,
)
from mcp_schema_audit.rules import RULES, SYMMETRIC_RULES
from mcp_schema_audit.settings import RunLimits
from mcp_schema_audit.snapshot import Snapshot
from mcp_schema_audit.surfaces import surface_findings
from mcp_schema_audit.surfaces.apps import apps_findings
from mcp_schema_audit.surfaces.headers import header_changes, header_problems
from mcp_schema_audit.vocabulary import MODES, direction_rank


def diff_snapshots(
    old: Snapshot, new: Snapshot, limits: RunLimits = RunLimits(), validator: str = "auto"
) -> list[Finding]:
    """All findings between two snapshots, tools paired by name.

    Returns tool findings sorted by (tool, direction: tool < input < output, pointer, rule), then the
    findings about other surfaces (``surfaces.surface_findings``: prompts, resources, resource templates,
    the server; ``tool`` is ``""`` there). Removed tools are breaking (witness: arguments the cached
    inputSchema allows, now sent to an unknown tool). The findings depend on the two snapshots only: every
    budget that bounds a comparison counts work, and the order does not depend on how the work was shared.
    ``limits.time_budget`` (seconds, default ``RUN_TIME_BUDGET_S``; ``0`` or negative: no limit) is a last-resort
    guard far above normal run times: past it, ``RunTimeExceeded`` is raised (exit 4) instead of any finding
    being changed. ``limits.jobs``: processes to compare tools on (``None``: every available core, when the
    catalog is large enough to pay for it; see ``parallel``). ``limits.progress(done, total)`` is called as
    tools needing work are finished.
    """
    budget = RUN_TIME_BUDGET_S if limits.time_budget is None else limits.time_budget
    progress = limits.progress
    judge = server_validator(new, validator)
    deadline = time.monotonic() + budget if budget > 0 else None
    om, nm = old.tool_map(), new.tool_map()
    out: list[Finding] = []
    same_era = old.protocol_version == new.protocol_version
    work: list[str] = []  # tools changed or added, and every tool of a listing read on another protocol
    with guard.armed(budget):  # pairing removed and added tools: bounded, and counted by the guard
        pairing = tool_renames(om, nm)
    renamed, (gone_unsearched, came_unsearched) = pairing.pairs, pairing.unsearched
    for name in sorted(set(om) | set(nm)):
        if name not in nm:
            removed = removed_tool_finding(name, om[name].get("inputSchema", {}))
            if removed.witness is not None:  # the server answers the cached call, in its framework's words
                removed.witness["error"] = unknown_tool(judge.wording, name)
                removed.server = server_outcome(judge, "rejected", removed.witness["error"])
            if name in gone_unsearched:
                removed = unsearched_tagged(removed)
            out.append(renamed_tool_finding(removed, renamed[name]) if name in renamed else removed)
            continue
        if name not in om:
            if name not in renamed.values():  # a renamed tool is one finding: tool-renamed
                added = make_finding("tool-added", name, "", NEW_TOOL, None, name)
                out.append(unsearched_tagged(added) if name in came_unsearched else added)
            work.append(name)
        elif not (fastpaths.enabled() and same_json(om[name], nm[name])) or not same_era:
            work.append(name)  # identical tools (exact JSON equality) on the same protocol need no work

    def one(i: int) -> list[Finding]:
        _check_deadline(deadline, budget)
        name = work[i]
        return _tool_findings(name, om.get(name), nm[name], old.protocol_version, new.protocol_version, judge)

    def report(done: int) -> None:
        if progress is not None:
            progress(done, len(work))

    with guard.armed(budget):  # also inside each tool's work: the walk, validations, the sampler
        for found in ordered_map(one, len(work), jobs=limits.jobs, progress=report if progress is not None else None):
            out += found
    out += apps_findings(old, new)
    return sorted(out, key=tool_order) + surface_findings(old, new)


def tool_order(f: Finding) -> tuple[str, int, str, str]:
    """The order of tool findings in every report: tool, direction (tool < input < output), pointer, rule."""
    return (f.tool, direction_rank(f.direction), f.pointer, f.rule)


def server_validator(served: Snapshot, choice: str = "auto") -> ServerValidator:
    """The validator that judges arguments sent to ``served`` (the version the server runs): the profile named by
    ``choice`` (``--server-validator``), or for ``auto`` the one its listing shows (``engine.servers.infer``)."""
    return servers.infer(served.tools) if choice == "auto" else servers.chosen(choice, served.tools)


def _tool_findings(
    name: str,
    o: dict[str, Any] | None,
    n: dict[str, Any],
    old_protocol: str | None,
    new_protocol: str | None,
    validator: ServerValidator,
) -> list[Finding]:
    """One tool's findings: metadata drift and both schemas when it exists on both sides (``o`` not None; the
    input findings judged by the server's ``validator``), then the listing-time breakers its new entry introduces
    (``_new_listing_breakers``)."""
    out: list[Finding] = []
    if o is not None and not same_json(o, n):
        out += tool_metadata_findings(name, o, n)
        o_in, n_in = o.get("inputSchema", {}), n.get("inputSchema", {})
        meter = Meter()  # the tool's input work: the walk, the witnesses' confirmation, the server's judgement
        reading, (o_read, n_read) = regex_reading(validator), (framework_schema(validator, s) for s in (o_in, n_in))
        found = compare_schemas(o_read, n_read, "input", name, meter=meter, reading=reading)
        judged = judge_inputs([as_listed(f, o_in, n_in) for f in found], n_in, validator, o_in, meter)

        def renamed_changes(renamed: Any) -> list[Finding]:  # the cached arguments under their new names
            found = compare_schemas(renamed, n_in, "input", name, meter=meter, reading=reading)
            return judge_inputs(found, n_in, validator, renamed, meter)

        out += changed_renames(merge_argument_renames(judged, o_in, n_in), o_in, n_in, renamed_changes)
        out += compare_schemas(o.get("outputSchema"), n.get("outputSchema"), "output", name)
        out += header_changes(name, o, n)
    if "inputSchema" not in n:  # none at all: the listing breaker says so, with the entry really listed as witness
        out = [f for f in out if f.rule != "input-schema-not-object"]
    before = {(f.rule, f.pointer) for f in header_problems(o)} if o is not None else set()
    out += [f for f in header_problems(n) if (f.rule, f.pointer) not in before]
    return out + _new_listing_breakers(name, o, n, old_protocol, new_protocol, {(f.rule, f.pointer) for f in out})


def _check_deadline(deadline: float | None, budget: float) -> None:
    if deadline is not None and time.monotonic() > deadline:
        raise RunTimeExceeded(
            f"the comparison ran longer than {guard.seconds_text(budget)} s (the --time-budget guard); no report was "
            "written",
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
            if set(RULES[f.rule].per_call).isdisjoint(f.hosts):
                f.detail = f.detail.plus(" (the host loses the whole tools/list)")
            out.append(f)
    return out


_SWAPPED = {"old": "new", "new": "old"}


def diff_with_mode(
    old: Snapshot,
    new: Snapshot,
    mode: str = "backward",
    limits: RunLimits = RunLimits(),
    validator: str = "auto",
) -> list[Finding]:
    """Findings for ``mode`` (docs/verdicts.md, "Direction and severity"): ``backward`` = hosts cached OLD, server
    runs NEW; ``forward`` = hosts cached NEW, server runs OLD (rollback, mixed replicas); ``full`` = both.

    Forward findings are computed by swapping the sides, then mapped back to the snapshots as given,
    so that in every finding ``old`` means OLD and ``new`` means NEW: ``old``/``new`` (values),
    ``old_pointer``/``new_pointer`` and the witness's ``accepted_by`` (``"old"`` when the OLD snapshot
    accepts the witness: for an output witness the version the server runs, for an argument witness the
    version hosts cached). ``pointer`` (and so the fingerprint) stays the location in the served (OLD)
    schema. Each forward finding carries the tag ``forward`` and a message that names both versions by
    label (``[forward: hosts cached NEW, server runs OLD] … the served OLD schema …``). ``limits`` and
    ``validator`` (the server validator profile, ``auto``: inferred from the served listing) apply to each
    direction's ``diff_snapshots`` call. Raises ``UsageError`` for an unknown mode.
    """
    if mode not in MODES:
        raise not_one_of("--mode", mode, MODES)
    out: list[Finding] = []
    if mode in ("backward", "full"):
        out += diff_snapshots(old, new, limits, validator)
    if mode in ("forward", "full"):
        # a tool-level change (description, annotations) is one finding, whichever side is cached; so is a
        # change of a prompt's, resource's or template's text or mimeType, or of the instructions
        have = {(f.rule, f.tool, f.pointer) for f in out if f.direction == "tool"}
        same = {(f.rule, f.surface, f.name, f.pointer) for f in out if f.rule in SYMMETRIC_RULES}
        out += [
            _as_forward(f, old, new)
            for f in diff_snapshots(new, old, limits, validator)
            if not (
                f.direction == "tool"
                and f.rule not in ("tool-added", "tool-removed")
                and (f.rule, f.tool, f.pointer) in have
            )
            and (f.rule, f.surface, f.name, f.pointer) not in same
        ]
    if mode == "full":
        # a warning about a rollback's hazard gives way to the forward finding that reports that break
        broken = {(f.rule, f.surface, f.name, f.pointer) for f in out if "forward" in f.tags}
        out = [
            f
            for f in out
            if "forward" in f.tags
            or not RULES[f.rule].rollback
            or (RULES[f.rule].rollback, f.surface, f.name, f.pointer) not in broken
        ]
    return out


def _as_forward(f: Finding, old: Snapshot, new: Snapshot) -> Finding:
    """A finding of ``diff_snapshots(new, old)`` (engine "old" = NEW, engine "new" = OLD) in the terms of the
    command line: values, pointers and ``accepted_by`` swapped back; tag ``forward``; its words speak of the
    cached NEW and the served OLD (``Finding.forward``: the role words are chosen when it is rendered)."""
    g = replace(
        f,
        old=f.new,
        new=f.old,
        old_pointer=f.new_pointer,
        new_pointer=f.old_pointer,
        tags=[*f.tags, "forward"],
        hosts=list(f.hosts),
        delta=f.new if f.delta is NEW_SIDE else f.delta,
        forward=(new.label, old.label),
    )
    if isinstance(f.witness, dict):
        g.witness = dict(f.witness)
        if g.witness.get("accepted_by") in _SWAPPED:
            g.witness["accepted_by"] = _SWAPPED[g.witness["accepted_by"]]
    return g
