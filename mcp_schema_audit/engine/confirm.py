"""From issues to findings: rule ids per direction, witnesses confirmed per host profile.

An ``Issue`` speaks in P/V terms; a ``Finding`` speaks of the old (cached) and the new version. A
breaking finding keeps its severity only when its witness is confirmed: for a host profile, the
accepting side accepts it and the rejecting side rejects it *for this finding's keyword, at this
finding's place in the instance* (``rejecting_keyword``); a witness rejected for an unrelated reason
proves nothing about this finding. The hosts listed are those where that holds.
"""

from __future__ import annotations

from typing import Any

from mcp_schema_audit import guard
from mcp_schema_audit.engine.issue import NO_WITNESS, Budget, Issue, canon, keyword_at
from mcp_schema_audit.engine.meter import Meter
from mcp_schema_audit.engine.zod_formats import SERVER_DECIDED_RULES, checks_bare_formats
from mcp_schema_audit.errors import MUST_PROPAGATE
from mcp_schema_audit.findings import Finding, make_finding
from mcp_schema_audit.jsontext import pointer
from mcp_schema_audit.rules import RULES, kind_rules
from mcp_schema_audit.schema import HOST_PROFILES, RefError, SchemaCostError, SchemaDoc
from mcp_schema_audit.schema.ajvtext import ajv_text
from mcp_schema_audit.schema.doc import js_inexact
from mcp_schema_audit.schema.memo import python_loops

#: neutral kind (P/V terms) → (rule id for outputs, rule id for inputs): from the catalog's records
_KINDS = kind_rules()

RULE_SEVERITY_FOR_KIND = {k: RULES[v[0]].severity for k, v in _KINDS.items()}
for _k, (_o, _i) in _KINDS.items():
    # a kind is "hard" when either direction's rule is breaking (used only for branch scoring)
    if RULES[_i].severity == "breaking":
        RULE_SEVERITY_FOR_KIND[_k] = "breaking"

#: Host profiles that read every keyword of the schema's dialect: a witness must be valid under P for one
#: of them to count as a value P declares (ts-sdk-v1 ignores 2019-09/2020-12 keywords).
_FULL_READERS = ("python-sdk", "ts-sdk-v2")
#: Keywords a validator names as the reason of its own errors (``jsonschema``'s ``error.validator``); the
#: rejections of ``propertyNames``, ``if``/``then``, ``dependentSchemas`` carry their inner keyword instead.
_SELF_REPORTING = frozenset(
    {
        "type",
        "enum",
        "const",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "minItems",
        "maxItems",
        "uniqueItems",
        "contains",
        "minContains",
        "maxContains",
        "required",
        "additionalProperties",
        "unevaluatedProperties",
        "minProperties",
        "maxProperties",
        "not",
        "items",
        "prefixItems",
        "additionalItems",
        "unevaluatedItems",
        "anyOf",
        "oneOf",
        "dependentRequired",
    }
)
_ALIASES = {"nullable": "type"}
#: The reason of a breaking finding whose witness the tool's spent budget left unchecked (``confirm``).
UNCHECKED = "the tool's work budget was spent before this witness could be checked, so the break is not proven"
#: Keywords that report one another's rejections (``contains`` fails as ``minContains`` when some items match).
_FAMILIES = [
    frozenset({"contains", "minContains", "maxContains"}),
    frozenset({"enum", "const"}),
    frozenset({"additionalProperties", "unevaluatedProperties"}),
    frozenset({"minimum", "exclusiveMinimum"}),
    frozenset({"maximum", "exclusiveMaximum"}),
]


def same_reason(kw: str, validator: str) -> bool:
    """Does an error of ``validator`` prove a finding about keyword ``kw``?"""
    return kw == validator or any(kw in fam and validator in fam for fam in _FAMILIES)


def rejecting_keyword(issue: Issue) -> str | None:
    """The keyword whose error on the rejecting side proves ``issue`` (``None``: no single keyword)."""
    if issue.rejects is not None:
        return issue.rejects[0]
    if issue.kind == "required-extra-v":
        return "required"
    if issue.kind == "oneof-overlap":
        return "oneOf"
    if issue.kind in ("branch-extra-p", "undecidable", "invalid", "interop"):
        return None
    last = keyword_at(issue.v_path) if not issue.v_bare else None
    last = _ALIASES.get(last, last) if last is not None else None
    if last is not None and len(issue.v_path) >= 2 and issue.v_path[-2] == "not":
        return "not"  # a keyword under not/not (a double negation normalized away): jsonschema reports the not
    return last if last in _SELF_REPORTING else None


def issue_to_finding(
    issue: Issue,
    tool: str,
    direction: str,
    p_doc: SchemaDoc,
    v_doc: SchemaDoc,
    meter: Meter | None = None,
    reading: str | None = None,
) -> Finding:
    """The ``Finding`` of ``issue`` for ``direction`` (``"input"``/``"output"``), confirmed when breaking (each
    validation charged to ``meter``, the tool's; ``reading``: the server framework's pattern reading of an
    inputSchema: ``confirm``).

    The pointer is the new schema's location of the change, or the old one's when the change lives only in
    the old schema. Raises ``KeyError`` for an unknown issue kind.
    """
    guard.check()
    out_rule, in_rule = _KINDS[issue.kind]
    rule_id = out_rule if direction == "output" else in_rule
    p_ptr, v_ptr = pointer(issue.p_path), pointer(issue.v_path)
    if direction == "output":
        old_ptr, new_ptr, old_val, new_val = v_ptr, p_ptr, issue.v_val, issue.p_val
        new_bare, old_bare = issue.p_bare, issue.v_bare
    else:
        old_ptr, new_ptr, old_val, new_val = p_ptr, v_ptr, issue.p_val, issue.v_val
        new_bare, old_bare = issue.v_bare, issue.p_bare
    ptr = old_ptr if (new_bare and not old_bare) else new_ptr
    if issue.kind == "prop-extra-p-closed" and len(issue.p_path) >= 2 and issue.p_path[-2] == "properties":
        ptr = p_ptr  # the property itself (for inputs it exists only in the cached schema)
    roles = {"P": "served", "V": "cached"} if direction == "output" else {"P": "cached", "V": "served"}
    f = make_finding(rule_id, tool, ptr, issue.detail.with_roles(**roles), old_val, new_val, direction=direction)
    if issue.delta is not None:
        f.delta = _delta(issue.delta, "P" if direction == "output" else "V")
    f.old_pointer, f.new_pointer = old_ptr, new_ptr
    f.instance_pointer = pointer(issue.inst)
    if f.severity == "breaking" or (
        direction == "input" and checks_bare_formats(reading) and rule_id in SERVER_DECIDED_RULES
    ):
        # the server checks a bare format itself: its witness goes to the server's judgement (judge_inputs)
        confirm(f, issue, direction, p_doc, v_doc, meter, reading)
    return f


def _delta(delta: Any, new_side: str) -> Any:
    """The issue's delta in version terms: a side's value is kept for the new side only (so one change of a
    release has one fingerprint whatever the cached version)."""
    if not isinstance(delta, dict) or not ({"P", "V"} & set(delta)):
        return delta
    out = {k: v for k, v in delta.items() if k not in ("P", "V")}
    out["new"] = delta.get(new_side)
    return out


def confirm(
    f: Finding,
    issue: Issue,
    direction: str,
    p_doc: SchemaDoc,
    v_doc: SchemaDoc,
    meter: Meter | None = None,
    reading: str | None = None,
) -> None:
    """Validate the witness on both sides per host profile; set hosts, or downgrade to warning.

    Each validation of a whole schema is charged to ``meter`` (the tool's work, shared with the walk): once the
    tool's budget is spent, the witness is not checked and the finding is a warning that says so (``UNCHECKED``),
    so a schema whose every witness costs a long validation cannot make confirmation unbounded.

    A host is listed when, under its own reading, the accepting side (P) accepts the witness and the
    rejecting side (V) rejects it with an error of this finding's keyword at this finding's place in the
    instance (``rejecting_keyword``; an instance path equal to the finding's or its parent's); and the
    witness must be one P declares under a full reader (``_FULL_READERS``), so a value only ts-sdk-v1's
    lax reading of P admits proves nothing. The witness ``error`` is the first such host's message for it:
    jsonschema's (python-sdk), or for a break of the TS profiles only, Ajv's as the TS client prints it
    (``data/x must NOT have additional properties``).

    An input witness no host's reading of V rejects, but the server framework's (``reading``: pydantic-core's
    Rust regex refuses ``"abc"`` for ``^[a-z--c]+$``, Python's ``re`` does not) rejects for this keyword, stays
    breaking with no host listed: ``engine.arguments.judge_inputs`` then asks the server's own validator."""
    if issue.witness is NO_WITNESS:
        f.severity, f.reason = "warning", "no witness could be built, so the break is not proven"
        return
    instance = issue.witness
    kw = rejecting_keyword(issue)
    hosts: list[str] = []
    error = ""
    ajv_error = ""
    problems: list[str] = []
    declared = False
    # schemas every profile reads alike need one validation, which answers for every host
    alike = p_doc.profiles_agree and v_doc.profiles_agree and not js_inexact(canon(instance))
    meter = meter if meter is not None else Meter()
    for profile in HOST_PROFILES[:1] if alike else HOST_PROFILES:
        try:
            meter.count_validation(p_doc.root)
            accepted = p_doc.accepts(instance, profile)
            if accepted:
                meter.count_validation(v_doc.root)
            errs = v_doc.errors(instance, profile) if accepted else []
        except Budget as exc:
            f.severity, f.hosts, f.reason = "warning", [], f"{UNCHECKED} ({exc})"
            return
        except (RefError, ValueError, RecursionError) as exc:
            if profile == "python-sdk" and isinstance(exc, SchemaCostError) and _loops(p_doc, v_doc, instance, meter):
                # V's validation of the witness comes back to an in-place cycle without end: python-sdk's client
                # (a result) and a server validating with its listed inputSchema (arguments) fail it
                hosts.append(profile)
                error = error or LOOPS
                declared = True
                continue
            problems.append(f"{profile}: {exc}")
            continue
        except BaseException as exc:  # a panic in the regex engine's Rust code (pyo3 PanicException)
            if isinstance(exc, MUST_PROPAGATE):
                raise
            problems.append(f"{profile}: the validator failed ({type(exc).__name__})")
            continue
        declared = declared or (accepted and profile in _FULL_READERS)
        if not (accepted and errs):
            continue
        own = _own_error(errs, kw, _rejecting_place(issue))
        if own is None:
            problems.append(f"{profile}: the witness is rejected for another reason than {kw}")
            continue
        hosts.extend(HOST_PROFILES if alike else [profile])
        if not error:
            # python-sdk's words when it breaks too, else the TS client's (Ajv's errorsText), as the user sees it
            error = _explain_error(own) if profile == "python-sdk" else ajv_text([own])
        if not ajv_error and (alike or profile != "python-sdk"):
            ajv_error = ajv_text([own])
    if hosts and not declared:
        # only a reader that ignores some of P's keywords (ts-sdk-v1: dependentSchemas, prefixItems …) accepts
        # it: the P side does not really declare this value
        hosts, problems = [], ["the witness breaks a keyword of the accepting side that only ts-sdk-v1 ignores"]
    if not hosts and direction == "input" and reading is not None:
        own = _framework_error(p_doc, v_doc, instance, reading, kw, issue, meter)
        if own is not None:  # the server's validator judges it (judge_inputs): no host reads the new inputSchema
            f.witness = {"instance": instance, "accepted_by": "old", "error": _explain_error(own)[:500]}
            f.witness["instance_pointer"] = pointer(issue.inst)
            return
    if not hosts:
        f.severity = "warning"
        f.reason = "witness not confirmed by any host profile" + (f" ({problems[0]})" if problems else "")
        return
    f.hosts = hosts
    f.ajv_error = ajv_error[:500] if ajv_error and ajv_error != error else None
    f.witness = {
        "instance": instance,
        "accepted_by": "new" if direction == "output" else "old",
        "error": error[:500],
        "instance_pointer": pointer(issue.inst),
    }


def _framework_error(
    p_doc: SchemaDoc, v_doc: SchemaDoc, instance: Any, reading: str, kw: str | None, issue: Issue, meter: Meter
) -> Any:
    """V's error of this finding's keyword at its place for ``instance`` as the server framework ``reading`` reads
    V's patterns (``servers.read_by_framework``), when that reading of P (the cached version's server, same
    framework) accepts ``instance``; else None."""
    from mcp_schema_audit.engine.servers import read_by_framework

    try:
        meter.count_validation(v_doc.root)
        meter.count_validation(p_doc.root)
        if not read_by_framework(p_doc.validator(), p_doc.root, reading).is_valid(instance):
            return None
        errors = list(read_by_framework(v_doc.validator(), v_doc.root, reading).iter_errors(instance))
    except Budget:
        return None
    except Exception:  # an uncompilable document, an endless one: no reading to go by
        return None
    return _own_error(errors, kw, _rejecting_place(issue)) if errors else None


#: The witness error of a value whose validation by the rejecting side never ends (``memo.python_loops``).
LOOPS = "RecursionError: maximum recursion depth exceeded (the schema applies itself in place on this value)"


def _loops(p_doc: SchemaDoc, v_doc: SchemaDoc, instance: Any, meter: Meter) -> bool:
    """P (python-sdk's reading) accepts ``instance`` and V's python-sdk validation of it loops without end."""
    try:
        meter.count_validation(p_doc.root)
        return p_doc.accepts(instance, "python-sdk") and python_loops(v_doc, instance)
    except (Budget, RefError, ValueError, RecursionError):
        return False


def _rejecting_place(issue: Issue) -> list[Any]:
    """The instance place whose error proves ``issue``: its own (or, through ``_own_error``, its parent's), or the
    place ``Issue.rejects`` names."""
    if issue.rejects is None:
        return issue.inst
    up = issue.rejects[1]
    return issue.inst[: len(issue.inst) - up] if up else issue.inst


def _own_error(errors: list[Any], kw: str | None, inst: list[Any]) -> Any:
    """The error among ``errors`` (best match first) that proves a finding of keyword ``kw`` at instance path
    ``inst``: itself, or the union error whose branch errors include it. ``kw`` None: the best match."""
    if kw is None:
        return errors[0]
    places = {tuple(inst), tuple(inst[:-1])} if inst else {()}
    for top in errors:
        stack = [top]
        while stack:
            e = stack.pop()
            if same_reason(kw, str(e.validator)) and tuple(e.absolute_path) in places:
                return top if top is not e and str(top.validator) in ("anyOf", "oneOf") else e
            stack.extend(e.context or [])
    return None


def _explain_error(err: Any) -> str:
    """The validator's message; for anyOf/oneOf failures, also the closest branch's own reason."""
    from jsonschema.exceptions import best_match

    message: str = err.message
    context = list(err.context or [])
    if context:
        # branches that failed only on their type are the least informative alternatives
        informative = [e for e in context if e.validator != "type"] or context
        deeper = best_match(informative)
        where = pointer(list(deeper.absolute_path))
        message += f" (closest branch: {deeper.message}" + (f" at {where}" if where else "") + ")"
    return message
