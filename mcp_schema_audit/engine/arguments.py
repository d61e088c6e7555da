"""Input findings judged by the party that decides them: the server's own validator (``engine.servers``).

The engine proves an input change with a witness: arguments the cached inputSchema allows that the new one
rejects. Whether the *server* rejects them is its framework's call. ``judge_inputs`` sends each witness through
the server validator of the version the server runs and keeps the finding only as far as that holds:

- a witness the validator rejects stays a breaking finding, with the framework's own error
  (``Finding.server["error"]``) as what the caller sees;
- an argument removed from a closed object that the validator drops (or keeps, unread) becomes
  ``input-argument-ignored`` (warning): no error, but the call runs without it;
- a newly required argument whose default the validator fills becomes ``input-required-added-with-default``
  (info);
- any other witness the validator accepts (pydantic takes ``"7"`` as 7) leaves the break unproven: a warning
  that says so.

Every input finding so judged carries ``server``: ``{"validator", "inferred", "outcome", "error"}`` and lists no
host profile (hosts build arguments; the server rejects them).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from mcp_schema_audit.engine.servers import Outcome, ServerValidator, judge
from mcp_schema_audit.findings import Finding
from mcp_schema_audit.rules import RULES
from mcp_schema_audit.wording import Text


def judge_inputs(findings: list[Finding], schema: Any, validator: ServerValidator) -> list[Finding]:
    """``findings`` (one tool's, of any direction) with every input finding that carries a witness judged by
    ``validator`` on ``schema`` (the tool's inputSchema as the server running it lists it). Order is kept."""
    return [_judged(f, schema, validator) if _judgeable(f) else f for f in findings]


def _judgeable(f: Finding) -> bool:
    return (
        f.direction == "input"
        and isinstance(f.witness, dict)
        and "instance" in f.witness
        and f.witness.get("accepted_by") == "old"
    )


def _judged(f: Finding, schema: Any, validator: ServerValidator) -> Finding:
    outcome = judge(validator, schema, f.witness["instance"] if f.witness else None)
    at = f.instance_pointer or ""
    if f.rule == "input-property-removed-from-closed-object" and at in (*outcome.dropped, *outcome.kept):
        return _ignored(f, validator, outcome, at)
    if f.rule == "input-required-added" and at in outcome.filled:
        return _filled(f, validator, outcome, at)
    if outcome.rejected:
        g = replace(f, hosts=[], server=_server(validator, "rejected", outcome.error))
        g.witness = {**(f.witness or {}), "error": outcome.error[:500]}
        return g
    what = "takes it as another type (pydantic's lax mode)" if outcome.coerced else "accepts it" + _why(outcome)
    return replace(
        f,
        severity="warning",
        hosts=[],
        reason=f"the server's validator ({validator.name}) {what}: the break is not proven",
        server=_server(validator, "accepted", ""),
    )


def _why(outcome: Outcome) -> str:
    if outcome.filled:
        return " and fills a default"
    if outcome.dropped:
        return " and drops an unknown key"
    return ""


def _ignored(f: Finding, validator: ServerValidator, outcome: Outcome, at: str) -> Finding:
    done = "drops" if at in outcome.dropped else "keeps, unread,"
    name = at.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
    detail = Text.of(
        "argument {name} of the {cached} schema is no longer declared; the {served_server}'s validator "
        "({validator}) {done} it without an error, so the call runs without it",
        name=repr(name),
        validator=validator.name,
        done=done,
    )
    rejected = (
        f"; the call fails for another reason: {outcome.error[:300]}" if outcome.rejected and outcome.error else ""
    )
    return replace(
        f,
        rule="input-argument-ignored",
        severity=RULES["input-argument-ignored"].severity,
        detail=detail,
        hosts=[],
        reason=(f"the published schema rejects it, but {validator.summary}" + rejected)[:500],
        witness={**(f.witness or {}), "error": ""},
        server=_server(validator, "dropped" if at in outcome.dropped else "kept", outcome.error),
    )


def _filled(f: Finding, validator: ServerValidator, outcome: Outcome, at: str) -> Finding:
    name = at.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
    return replace(
        f,
        rule="input-required-added-with-default",
        severity=RULES["input-required-added-with-default"].severity,
        detail=Text.of(
            "argument {name} is required by the {served} schema; the {served_server}'s validator ({validator}) "
            "fills its default when a call leaves it out",
            name=repr(name),
            validator=validator.name,
        ),
        hosts=[],
        witness={**(f.witness or {}), "error": ""},
        server=_server(validator, "filled", outcome.error),
    )


def _server(validator: ServerValidator, outcome: str, error: str) -> dict[str, Any]:
    return {
        "validator": validator.name,
        "inferred": bool(validator.inferred_from),
        "outcome": outcome,
        "error": error[:500],
    }
