"""``compare_schemas``: one tool's old and new schema of one direction, from raw JSON to confirmed findings.

Direction decides everything (docs/verdicts.md, Direction and severity). The engine compares a *producing*
schema P with a *validating* schema V and asks whether every value P declares is accepted by V:

- ``outputSchema``: P = new (what the server now returns), V = old (what hosts cached);
- ``inputSchema``:  P = old (what the model builds from the cache), V = new (what the server checks).

The stages: schema-level checks (dialect, root shape, envelope marker) → the walk over normalized
nodes (``walk``) → issues to findings with witnesses confirmed per host profile (``confirm``) → the
sampling oracle (``oracle``), which turns any rejection no finding explains into a finding, and
says so when a rewritten schema showed no difference at all.
"""

from __future__ import annotations

import copy
import re
from dataclasses import replace
from typing import Any

import orjson

from mcp_schema_audit import fastpaths
from mcp_schema_audit.engine.confirm import issue_to_finding
from mcp_schema_audit.engine.identity import Identity
from mcp_schema_audit.engine.issue import Budget, Issue
from mcp_schema_audit.engine.meter import Meter
from mcp_schema_audit.engine.oracle import oracle_findings
from mcp_schema_audit.engine.sampler import NoSample, sample
from mcp_schema_audit.engine.walk import new_context
from mcp_schema_audit.findings import Finding, make_finding
from mcp_schema_audit.jsontext import same_json
from mcp_schema_audit.schema import HOST_PROFILES, RefError, SchemaCostError, SchemaDoc, dialect_sensitive
from mcp_schema_audit.schema.reach import unvalidatable
from mcp_schema_audit.wording import Text

#: Seconds one ``diff_snapshots`` call may run before it stops with exit 4: a last-resort guard far above
#: normal run times (the verdicts themselves are bounded by counted work, never by time).
RUN_TIME_BUDGET_S = 900.0
_MALFORMED = (TypeError, ValueError, KeyError, IndexError, AttributeError, re.error, ArithmeticError)


def compare_schemas(
    old: Any,
    new: Any,
    direction: str,
    tool: str = "tool",
    *,
    oracle: bool = True,
    meter: Meter | None = None,
    reading: str | None = None,
) -> list[Finding]:
    """Compare one tool's old and new schema for ``direction`` (``"input"`` or ``"output"``).

    ``old``/``new`` are JSON Schemas (dict or bool) or ``None`` when absent (an absent inputSchema
    means the tool itself is absent: ``tool-removed``/``tool-added``). Returns findings sorted
    by (pointer, rule, message). Breaking findings carry a witness confirmed with python ``jsonschema``
    per host profile; an unconfirmed one is returned as a warning with ``reason`` set. ``oracle``: run
    the sampling oracle after the walk (``engine.oracle``). ``meter``: the tool's counted work for this direction
    (``engine.meter``; a new one when None), charged by the walk and the witnesses' confirmation, so that a later
    stage (the server's validator judging inputs) is held to what is left; the oracle has a meter of its own.
    ``reading``: for inputs, how the new version's server framework searches patterns (``servers.regex_reading``):
    a witness only that reading rejects stays breaking, with no host listed, for the server's validator to judge.
    Never raises for bad schemas: they become
    ``schema-invalid``/``schema-undecidable`` findings. Deterministic: the same inputs give the same
    findings on any machine (budgets count work, the oracle's samples are seeded).
    """
    if direction not in ("input", "output"):
        raise ValueError(f"direction must be 'input' or 'output', not {direction!r}")
    if direction == "input" and (old is None or new is None):
        # no inputSchema on a side means no tool on that side (every MCP tool has one)
        if old is None:
            return [] if new is None else [make_finding("tool-added", tool, "", NEW_TOOL, None, tool)]
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
    if fastpaths.enabled() and same_json(old, new):
        return []  # identical schemas: nothing can differ (the walk would skip them whole)
    old_doc, new_doc = SchemaDoc(old), SchemaDoc(new)
    findings = _schema_level(old, new, old_doc, new_doc, direction, tool)
    p_doc, v_doc = (new_doc, old_doc) if direction == "output" else (old_doc, new_doc)
    identity = Identity(p_doc, v_doc)
    # the old schema's Ajv compile walk skips what is identical to the new one (whose walk the listing checks ran)
    old_doc.pair_with(new_doc, (lambda o, n: identity.identical(n, o)) if direction == "output" else identity.identical)
    key = _pair_key(old, new, direction if reading is None or direction != "input" else f"input:{reading}")
    meter = meter if meter is not None else Meter()
    if meter.spent() != (0, 0):
        key = None  # the findings depend on the budget left: cached ones were confirmed with a whole budget
    cached = _WALKED.peek(key) if key is not None else None
    if cached is None:  # else the same pair of schemas in another tool: the same findings, about this tool
        walked = _walked(p_doc, v_doc, identity, direction, tool, meter, reading if direction == "input" else None)
        cached = (walked, meter.spent())
        if key is not None:
            _WALKED.get(key, lambda: cached)
    else:
        meter.add(cached[1])  # what the walk cost the first time: later stages see the same budget left
    findings += [_retargeted(f, tool) for f in cached[0]]
    if old_doc.canonical != new_doc.canonical:
        findings += _endless_calls(tool, old, new) if direction == "input" else []
        findings += _unvalidatable(tool, direction, old_doc, new_doc, {f.message for f in findings})
        if oracle:  # seeded by the tool's name: run for every tool, never taken from the cache
            findings += oracle_findings(findings, p_doc, v_doc, tool, direction, identity)
    return sorted(_unique(findings), key=lambda f: (f.pointer, f.rule, f.message))


#: The walk's confirmed findings per schema pair (``_pair_key``) and the work they cost (``Meter.spent``), for the
#: same pair met again in another tool (a model many tools return, one input shared by a family of tools,
#: ``--mode full``, ``history``).
_WALKED: fastpaths.ContentCache[tuple[list[Finding], tuple[int, int]]] = fastpaths.ContentCache(1024)


def _pair_key(old: Any, new: Any, direction: str) -> bytes | None:
    """The exact JSON text of both schemas (key order and number spelling kept: witnesses are built in the
    schemas' order) and the direction; None for a schema ``orjson`` cannot write (nothing cached)."""
    try:
        return orjson.dumps([direction, old, new])
    except (orjson.JSONEncodeError, TypeError):
        return None


def _retargeted(f: Finding, tool: str) -> Finding:
    """A cached finding as another tool's: its own copies of everything a later stage may change."""
    return replace(
        f,
        tool=tool,
        name=tool,
        witness=copy.deepcopy(f.witness),
        hosts=list(f.hosts),
        tags=list(f.tags),
        server=copy.deepcopy(f.server),
    )


def _walked(
    p_doc: SchemaDoc,
    v_doc: SchemaDoc,
    identity: Identity,
    direction: str,
    tool: str,
    meter: Meter,
    reading: str | None = None,
) -> list[Finding]:
    """The walk of P's document against V's (``identity``: their identical subtrees), its issues turned into
    findings with witnesses confirmed, about ``tool`` (nothing in the walk reads the name: the same findings for
    any tool); the work charged to ``meter``."""
    old, new = (v_doc.root, p_doc.root) if direction == "output" else (p_doc.root, v_doc.root)
    # MCP arguments are always an object: a root without "type" beside one with type "object" reads as an object
    objects = direction == "input" and any(isinstance(s, dict) and s.get("type") == "object" for s in (old, new))
    ctx = new_context(p_doc, v_doc, root_type="object" if objects else None, meter=meter, reading=reading)
    ctx.identity = identity
    try:
        issues = ctx.compare(p_doc.root, v_doc.root)
    except Budget as exc:
        issues = [
            Issue(
                "undecidable",
                [],
                [],
                None,
                None,
                Text.of("{value}; this schema was not compared", value=exc or "work budget exceeded"),
            )
        ]
    except RecursionError:
        issues = [Issue("undecidable", [], [], None, None, Text("schemas nested too deeply to compare"))]
    except _MALFORMED as exc:
        # a keyword value of the wrong shape deep inside a stranger's schema: say so, never crash
        issues = [
            Issue(
                "undecidable",
                [],
                [],
                None,
                None,
                Text.of(
                    (
                        "the schema could not be compared (malformed keyword value: {name}); "
                        "validate it with `schema-audit lint`"
                    ),
                    name=type(exc).__name__,
                ),
            )
        ]
    seen: set[tuple[str, str, str]] = set()
    out: list[Finding] = []
    for issue in issues:
        try:
            f = issue_to_finding(issue, tool, direction, p_doc, v_doc, meter, ctx.reading)
        except (*_MALFORMED, RecursionError) as exc:
            f = make_finding(
                "schema-undecidable",
                tool,
                "",
                f"the witness could not be checked ({type(exc).__name__})",
                None,
                None,
                direction=direction,
            )
        key = (f.rule, f.pointer, f.message)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def _unique(findings: list[Finding]) -> list[Finding]:
    """One finding per fingerprint (the same change reached twice, e.g. through a shared ``$ref``)."""
    seen: set[str] = set()
    out = []
    for f in findings:
        if f.fingerprint not in seen:
            seen.add(f.fingerprint)
            out.append(f)
    return out


def _schema_level(
    old: Any, new: Any, old_doc: SchemaDoc, new_doc: SchemaDoc, direction: str, tool: str
) -> list[Finding]:
    """Findings about the whole schema: the dialect, an inputSchema root that stopped being an object, the
    FastMCP result envelope."""
    findings: list[Finding] = []
    if old_doc.dialect != new_doc.dialect:
        sensitive = dialect_sensitive([old, new], old_doc.dialect, new_doc.dialect)
        if sensitive == []:
            findings.append(
                make_finding(
                    "dialect-changed-no-effect",
                    tool,
                    "/$schema",
                    f"dialect {old_doc.dialect} → {new_doc.dialect}; no keyword of this schema reads differently",
                    old_doc.dialect,
                    new_doc.dialect,
                    direction=direction,
                )
            )
        else:
            which = (
                f"; {', '.join(sensitive)} read differently"
                if sensitive
                else "; an unknown dialect may read any keyword differently"
            )
            findings.append(
                make_finding(
                    "dialect-changed",
                    tool,
                    "/$schema",
                    f"dialect {old_doc.dialect} → {new_doc.dialect}{which}",
                    old_doc.dialect,
                    new_doc.dialect,
                    direction=direction,
                )
            )
    if (
        direction == "input"
        and isinstance(old, dict)
        and isinstance(new, dict)
        and old.get("type") == "object"
        and new.get("type") != "object"
    ):
        f = make_finding(
            "input-schema-not-object",
            tool,
            "/type",
            "inputSchema no longer has type 'object': SDK clients reject the whole tools/list",
            old.get("type"),
            new.get("type"),
            direction="input",
        )
        listing = {"name": tool, "inputSchema": new}
        if not SchemaDoc(_TOOL_LISTING_SCHEMA).errors(listing) or SchemaDoc(_TOOL_LISTING_SCHEMA).errors(
            {"name": tool, "inputSchema": old}
        ):
            f.severity, f.reason = "warning", "witness not confirmed against the SDK listing shape"
        else:
            f.hosts = list(HOST_PROFILES)
            f.witness = {
                "instance": listing,
                "accepted_by": "old",
                "instance_pointer": "/inputSchema/type",
                "error": "inputSchema.type must be 'object': the SDK client rejects the whole tools/list",
            }
        findings.append(f)
    if (
        direction == "output"
        and isinstance(old, dict)
        and isinstance(new, dict)
        and bool(old.get("x-fastmcp-wrap-result")) != bool(new.get("x-fastmcp-wrap-result"))
    ):
        findings.append(
            make_finding(
                "output-envelope-changed",
                tool,
                "/x-fastmcp-wrap-result",
                'results are wrapped as {"result": …} on one side only',
                old.get("x-fastmcp-wrap-result"),
                new.get("x-fastmcp-wrap-result"),
                direction="output",
            )
        )
    return findings


def _endless_calls(tool: str, old: Any, new: Any) -> list[Finding]:
    """``input-schema-unvalidatable`` when validating any call's arguments against the new inputSchema never ends
    for python-sdk's reading (``schema.reach.unvalidatable``: jsonschema, as a server that validates with its
    listed inputSchema runs it) and ends against the cached one. Its witness is the call a host makes from the
    cached inputSchema (``cached_call_arguments``); ``engine.arguments`` judges it by the server's validator."""
    endless = unvalidatable(new, {"python-sdk"}).get("python-sdk")
    if endless is None or unvalidatable(old, {"python-sdk"}):
        return []
    ptr, why = endless
    f = make_finding(
        "input-schema-unvalidatable",
        tool,
        ptr,
        f"{why}: validating any call's arguments never ends",
        None,
        None,
        direction="input",
    )
    f.witness = {
        "instance": cached_call_arguments(old),
        "accepted_by": "old",
        "error": "maximum recursion depth exceeded",
        "instance_pointer": "",
    }
    f.hosts = ["python-sdk"]  # its reading loops; engine.arguments hands the verdict to the server's validator
    return [f]


def _unvalidatable(tool: str, direction: str, old_doc: SchemaDoc, new_doc: SchemaDoc, have: set[str]) -> list[Finding]:
    """A ``schema-undecidable`` warning per side no validator can run (``SchemaCostError``: an in-place
    ``$ref`` cycle or an exponential expansion), so that a changed schema no host can validate with
    is never a silent "no finding"."""
    out = []
    for side, doc in (("cached", old_doc), ("new", new_doc)):
        try:
            doc.check_cost()
        except SchemaCostError as exc:
            f = make_finding(
                "schema-undecidable",
                tool,
                "",
                f"the {side} {direction}Schema cannot be validated: {exc}",
                None,
                None,
                direction=direction,
            )
            if not any(str(exc) in message for message in have):
                out.append(f)  # the message holds the reason: no second line repeating it
    return out


#: The shape SDK clients require of a tools/list entry (MCP spec Tool.inputSchema: type "object").
_TOOL_LISTING_SCHEMA = {
    "type": "object",
    "required": ["inputSchema"],
    "properties": {
        "inputSchema": {"type": "object", "required": ["type"], "properties": {"type": {"const": "object"}}}
    },
}


#: The detail of ``tool-added``: a tool only the served version lists.
NEW_TOOL = Text("{served_tool}")


def removed_tool_finding(name: str, input_schema: Any) -> Finding:
    """``tool-removed`` with a witness: a call the cached inputSchema allows (``cached_call_arguments``), now to
    an unknown tool."""
    f = make_finding("tool-removed", name, "", Text("the {served_server} no longer lists it"), name, None)
    f.witness = {
        "instance": {"name": name, "arguments": cached_call_arguments(input_schema)},
        "accepted_by": "old",
        "error": f"Unknown tool: {name}",
        "instance_pointer": "/name",
    }
    f.hosts = list(HOST_PROFILES)
    return f


def cached_call_arguments(input_schema: Any) -> dict[str, Any]:
    """The ``arguments`` of a ``tools/call`` a host holding ``input_schema`` makes: always a JSON object (MCP
    arguments are one), the sampler's instance when the schema accepts it (python-sdk reading), else the empty
    object (what a host sends to a tool that requires nothing: ``{}``, ``true`` or no inputSchema at all). For a
    schema no built object satisfies, the sampler's object (or ``{}``) stands: the call fails on the unknown tool
    whatever its arguments."""
    doc = SchemaDoc(input_schema) if isinstance(input_schema, (dict, bool)) else None
    candidates: list[dict[str, Any]] = []
    if doc is not None:
        try:
            built = sample(input_schema, doc)
        except (NoSample, RecursionError):
            built = None
        if isinstance(built, dict):
            candidates.append(built)
    candidates.append({})
    for arguments in candidates:
        if doc is None or _accepts(doc, arguments):
            return arguments
    return candidates[0]


def _accepts(doc: SchemaDoc, instance: Any) -> bool:
    try:
        return not doc.errors(instance, "python-sdk")
    except (RefError, SchemaCostError, RecursionError, *_MALFORMED):
        return False
