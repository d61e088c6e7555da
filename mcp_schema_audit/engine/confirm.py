"""From issues to findings: rule ids per direction, witnesses confirmed per host profile."""

from __future__ import annotations

from typing import Any

from mcp_schema_audit.engine.issue import Issue, NO_WITNESS, pointer
from mcp_schema_audit.findings import Finding, make_finding
from mcp_schema_audit.rules import RULES
from mcp_schema_audit.schema import HOST_PROFILES, RefError, SchemaDoc

# neutral kind (P/V terms) → (rule id for outputs, rule id for inputs)
_KINDS = {
    "enum-extra-p": ("output-enum-value-added", "input-enum-value-removed"),
    "enum-extra-v": ("output-enum-value-removed", "input-enum-value-added"),
    "const-changed": ("output-const-changed", "input-const-changed"),
    "enum-only-v": ("output-enum-removed", "input-enum-introduced"),
    "enum-only-p": ("output-enum-introduced", "input-enum-removed"),
    "type-extra-p": ("output-type-widened", "input-type-narrowed"),
    "type-extra-v": ("output-type-narrowed", "input-type-widened"),
    "type-only-v": ("output-type-removed", "input-type-narrowed"),
    "prop-extra-p-closed": ("output-property-added-to-closed-object", "input-property-removed-from-closed-object"),
    "prop-extra-p-open": ("output-property-added", "input-property-removed"),
    "prop-extra-v": ("output-property-removed", "input-property-added"),
    "required-extra-v": ("output-required-removed", "input-required-added"),
    "required-extra-p": ("output-required-added", "input-required-removed"),
    "opened-p": ("output-object-opened", "input-object-closed"),
    "closed-p": ("output-object-closed", "input-object-opened"),
    "looser-p": ("output-constraint-relaxed", "input-constraint-tightened"),
    "looser-v": ("output-constraint-tightened", "input-constraint-relaxed"),
    "format": ("output-format-changed", "input-format-changed"),
    "pattern": ("output-pattern-changed", "input-pattern-changed"),
    "branch-extra-p": ("output-union-branch-added", "input-union-branch-removed"),
    "branch-extra-v": ("output-union-branch-removed", "input-union-branch-added"),
    "oneof-overlap": ("output-oneof-overlap", "input-oneof-overlap"),
    "undecidable": ("schema-undecidable", "schema-undecidable"),
    "invalid": ("schema-invalid", "schema-invalid"),
}


RULE_SEVERITY_FOR_KIND = {k: RULES[v[0]].severity for k, v in _KINDS.items()}


for _k, (_o, _i) in _KINDS.items():
    # a kind is "hard" when either direction's rule is breaking (used only for branch scoring)
    if RULES[_i].severity == "breaking":
        RULE_SEVERITY_FOR_KIND[_k] = "breaking"


def _issue_to_finding(issue: Issue, tool: str, direction: str, p_doc: SchemaDoc, v_doc: SchemaDoc) -> Finding:
    out_rule, in_rule = _KINDS[issue.kind]
    rule_id = out_rule if direction == "output" else in_rule
    p_ptr, v_ptr = pointer(issue.p_path), pointer(issue.v_path)
    if direction == "output":
        old_ptr, new_ptr, old_val, new_val = v_ptr, p_ptr, issue.v_val, issue.p_val
    else:
        old_ptr, new_ptr, old_val, new_val = p_ptr, v_ptr, issue.p_val, issue.v_val
    # the new schema's location, unless the change lives only in the old schema
    new_path, old_path = (issue.p_path, issue.v_path) if direction == "output" else (issue.v_path, issue.p_path)
    ptr = old_ptr if (not new_path and old_path) else new_ptr
    if issue.kind == "prop-extra-p-closed" and issue.p_path[:1] == ["properties"]:
        ptr = p_ptr  # the property itself (for inputs it exists only in the cached schema)
    names = {"P": "new", "V": "cached"} if direction == "output" else {"P": "cached", "V": "new"}
    detail = issue.detail.replace("{P}", names["P"]).replace("{V}", names["V"])
    f = make_finding(rule_id, tool, ptr, detail, old_val, new_val, direction=direction)
    f.old_pointer, f.new_pointer = old_ptr, new_ptr
    if f.severity == "breaking":
        _confirm(f, issue, direction, p_doc, v_doc)
    return f


#: Host profiles that read every keyword of the schema's dialect: a witness must be valid under P for one
#: of them to count as a value P declares (ts-sdk-v1 ignores 2019-09/2020-12 keywords).
_FULL_READERS = ("python-sdk", "ts-sdk-v2")


def _confirm(f: Finding, issue: Issue, direction: str, p_doc: SchemaDoc, v_doc: SchemaDoc) -> None:
    """Validate the witness on both sides per host profile; set hosts, or downgrade to warning.

    A host is listed when, under its own reading, the accepting side (P) accepts the witness and the
    rejecting side (V) rejects it; and the witness must be one P declares under a full reader
    (``_FULL_READERS``), so a value only ts-sdk-v1's lax reading of P admits proves nothing."""
    if issue.witness is NO_WITNESS:
        f.severity, f.reason = "warning", "no witness could be built, so the break is not proven"
        return
    instance = issue.witness
    hosts: list[str] = []
    error = ""
    problems: list[str] = []
    declared = False
    for profile in HOST_PROFILES:
        try:
            accepted = not p_doc.errors(instance, profile)
            errs = v_doc.errors(instance, profile)
        except (RefError, ValueError, RecursionError) as exc:
            problems.append(f"{profile}: {exc}")
            continue
        except BaseException as exc:  # a panic in the regex engine's Rust code (pyo3 PanicException)
            if isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit)):
                raise
            problems.append(f"{profile}: the validator failed ({type(exc).__name__})")
            continue
        declared = declared or (accepted and profile in _FULL_READERS)
        if accepted and errs:
            hosts.append(profile)
            if not error:
                error = _explain_error(errs[0])
    inst_ptr = pointer(issue.inst)
    if hosts and not declared:
        # only a reader that ignores some of P's keywords (ts-sdk-v1: dependentSchemas, prefixItems …) accepts
        # it: the P side does not really declare this value
        hosts, problems = [], ["the witness breaks a keyword of the accepting side that only ts-sdk-v1 ignores"]
    if not hosts:
        f.severity = "warning"
        f.reason = "witness not confirmed by any host profile" + (f" ({problems[0]})" if problems else "")
        return
    f.hosts = hosts
    f.witness = {"instance": instance, "accepted_by": "new" if direction == "output" else "old",
                 "error": error[:500], "instance_pointer": inst_ptr}


def _explain_error(err: Any) -> str:
    """The validator's message; for anyOf/oneOf failures, also the closest branch's own reason."""
    from jsonschema.exceptions import best_match

    message = err.message
    context = list(err.context or [])
    if context:
        # branches that failed only on their type are the least informative alternatives
        informative = [e for e in context if e.validator != "type"] or context
        deeper = best_match(informative)
        where = pointer(list(deeper.absolute_path))
        message += f" (closest branch: {deeper.message}" + (f" at {where}" if where else "") + ")"
    return message
