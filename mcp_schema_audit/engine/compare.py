"""``compare_schemas``: one tool's old and new schema of one direction, from raw JSON to confirmed findings.

Direction decides everything (DESIGN.md §2). The engine compares a *producing* schema P with a
*validating* schema V and asks whether every value P declares is accepted by V:

- ``outputSchema``: P = new (what the server now returns), V = old (what hosts cached);
- ``inputSchema``:  P = old (what the model builds from the cache), V = new (what the server checks).
"""

from __future__ import annotations

import re
from typing import Any

from mcp_schema_audit.engine.sampler import NoSample, sample

from mcp_schema_audit.engine.confirm import _issue_to_finding
from mcp_schema_audit.engine.issue import Budget, Issue
from mcp_schema_audit.engine.unions import MAX_BRANCHES
from mcp_schema_audit.engine.walk import TIME_BUDGET_S, WORK_BUDGET, Comparer
from mcp_schema_audit.findings import Finding, make_finding
from mcp_schema_audit.schema import HOST_PROFILES, SchemaCostError, SchemaDoc

#: Seconds one ``diff_snapshots`` call may spend on all its tools; tools left when it is spent get a
#: ``schema-undecidable`` warning each (a server of many hostile tools cannot hold a CI job for hours).
RUN_TIME_BUDGET_S = 60.0


# -- public API --------------------------------------------------------------------------------------
def compare_schemas(old: Any, new: Any, direction: str, tool: str = "tool", *,
                    deadline: float | None = None) -> list[Finding]:
    """Compare one tool's old and new schema for ``direction`` (``"input"`` or ``"output"``).

    ``old``/``new`` are JSON Schemas (dict or bool) or ``None`` when absent (an absent inputSchema
    means the tool itself is absent: ``tool-removed``/``tool-added``). Returns findings sorted
    by (pointer, rule). Breaking findings carry a witness confirmed with python ``jsonschema`` per
    host profile; an unconfirmed one is returned as a warning with ``reason`` set. Never raises for
    bad schemas: they become ``schema-invalid``/``schema-undecidable`` findings. ``deadline`` (a
    ``time.monotonic()`` value) ends the comparison earlier than ``TIME_BUDGET_S`` would.
    """
    if direction not in ("input", "output"):
        raise ValueError(f"direction must be 'input' or 'output', not {direction!r}")
    if direction == "input" and (old is None or new is None):
        # no inputSchema on a side means no tool on that side (every MCP tool has one)
        if old is None:
            return [] if new is None else [make_finding("tool-added", tool, "", "new tool", None, tool)]
        return [removed_tool_finding(tool, old)]
    if direction == "output":
        if old is None and new is None:
            return []
        if old is None:
            return [make_finding("output-schema-added", tool, "", "outputSchema added", None, new)]
        if new is None:
            return [make_finding("output-schema-removed", tool, "", "outputSchema removed", old, None)]
    old = {} if old is None else old
    new = {} if new is None else new
    old_doc, new_doc = SchemaDoc(old), SchemaDoc(new)
    findings: list[Finding] = []
    if old_doc.dialect != new_doc.dialect:
        findings.append(make_finding("dialect-changed", tool, "/$schema", f"dialect {old_doc.dialect} → {new_doc.dialect}",
                                 old_doc.dialect, new_doc.dialect, direction=direction))
    if direction == "input" and isinstance(old, dict) and isinstance(new, dict) \
            and old.get("type") == "object" and new.get("type") != "object":
        f = make_finding("input-schema-not-object", tool, "/type",
                     "inputSchema no longer has type 'object': SDK clients reject the whole tools/list",
                     old.get("type"), new.get("type"), direction="input")
        listing = {"name": tool, "inputSchema": new}
        if not SchemaDoc(_TOOL_LISTING_SCHEMA).errors(listing) or SchemaDoc(_TOOL_LISTING_SCHEMA).errors(
                {"name": tool, "inputSchema": old}):
            f.severity, f.reason = "warning", "witness not confirmed against the SDK listing shape"
        else:
            f.hosts = list(HOST_PROFILES)
            f.witness = {"instance": listing, "accepted_by": "old", "instance_pointer": "/inputSchema/type",
                         "error": "inputSchema.type must be 'object': the SDK client rejects the whole tools/list"}
        findings.append(f)
    if direction == "output" and isinstance(old, dict) and isinstance(new, dict) \
            and bool(old.get("x-fastmcp-wrap-result")) != bool(new.get("x-fastmcp-wrap-result")):
        findings.append(make_finding("output-envelope-changed", tool, "/x-fastmcp-wrap-result",
                                 "results are wrapped as {\"result\": …} on one side only",
                                 old.get("x-fastmcp-wrap-result"), new.get("x-fastmcp-wrap-result"),
                                 direction="output"))
    p_doc, v_doc = (new_doc, old_doc) if direction == "output" else (old_doc, new_doc)
    comparer = Comparer(p_doc, v_doc, deadline)
    try:
        issues = comparer.compare(p_doc.root, v_doc.root)
    except Budget:
        issues = [Issue("undecidable", [], [], None, None,
                         f"work budget exceeded ({WORK_BUDGET} node pairs, {MAX_BRANCHES} union branches, "
                         f"16 nested unions, {TIME_BUDGET_S:g} s per tool or the run's time budget); "
                         "this schema was not compared")]
    except RecursionError:
        issues = [Issue("undecidable", [], [], None, None, "schemas nested too deeply to compare")]
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, re.error, ArithmeticError) as exc:
        # a keyword value of the wrong shape deep inside a stranger's schema: say so, never crash
        issues = [Issue("undecidable", [], [], None, None, "the schema could not be compared (malformed keyword "
                        f"value: {type(exc).__name__}); validate it with `schema-audit lint`")]
    seen: set[tuple[str, str, str]] = set()
    for issue in issues:
        try:
            f = _issue_to_finding(issue, tool, direction, p_doc, v_doc)
        except (TypeError, ValueError, KeyError, IndexError, AttributeError, re.error, ArithmeticError,
                RecursionError) as exc:
            f = make_finding("schema-undecidable", tool, "", f"the witness could not be checked ({type(exc).__name__})",
                         None, None, direction=direction)
        key = (f.rule, f.pointer, f.message)
        if key not in seen:
            seen.add(key)
            findings.append(f)
    if old_doc.canonical != new_doc.canonical:
        findings += _unvalidatable(tool, direction, old_doc, new_doc, {f.message for f in findings})
    return sorted(findings, key=lambda f: (f.pointer, f.rule, f.message))


def _unvalidatable(tool: str, direction: str, old_doc: SchemaDoc, new_doc: SchemaDoc, have: set[str]) -> list[Finding]:
    """A ``schema-undecidable`` warning per side no validator can run (``SchemaCostError``: an in-place
    ``$ref`` cycle or an exponential expansion), so that a changed schema no host can validate with
    is never a silent "no finding"."""
    out = []
    for side, doc in (("cached", old_doc), ("new", new_doc)):
        try:
            doc.check_cost()
        except SchemaCostError as exc:
            f = make_finding("schema-undecidable", tool, "", f"the {side} {direction}Schema cannot be validated: {exc}",
                         None, None, direction=direction)
            if not any(str(exc) in message for message in have):
                f.reason = str(exc)
                out.append(f)
    return out


#: The shape SDK clients require of a tools/list entry (MCP spec Tool.inputSchema: type "object").
_TOOL_LISTING_SCHEMA = {"type": "object", "required": ["inputSchema"], "properties": {
    "inputSchema": {"type": "object", "required": ["type"], "properties": {"type": {"const": "object"}}}}}


def removed_tool_finding(name: str, input_schema: Any) -> Finding:
    """``tool-removed`` with a witness: a call the cached inputSchema allows, now to an unknown tool."""
    f = make_finding("tool-removed", name, "", "the new server no longer lists it", name, None)
    try:
        args = sample(input_schema, SchemaDoc(input_schema))
    except (NoSample, RecursionError):
        args = {}
    f.witness = {"instance": {"name": name, "arguments": args}, "accepted_by": "old",
                 "error": f"Unknown tool: {name}", "instance_pointer": "/name"}
    f.hosts = list(HOST_PROFILES)
    return f


