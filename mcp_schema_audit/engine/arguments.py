"""Input findings judged by the party that decides them: the server's own validator (``engine.servers``).

The engine proves an input change with a witness: arguments the cached inputSchema allows that the new one
rejects. Whether the *server* rejects them is its framework's call. ``judge_inputs`` sends each witness through
the server validator of the version the server runs and keeps the finding only as far as that holds:

- a witness the validator rejects stays a breaking finding, with the framework's own error
  (``Finding.server["error"]``) as what the caller sees;
- an argument removed (from a closed object, or from an open one on a zod or pydantic server) that the validator
  drops (or keeps, unread) becomes ``input-argument-ignored`` (warning): no error, but the call runs without it;
- a newly required argument whose default the validator fills becomes ``input-required-added-with-default``
  (info);
- any other witness the validator accepts (pydantic takes ``"7"`` as 7) leaves the break unproven: a warning
  that says so.

Each judgement is charged to the tool's ``meter.Meter`` (two validations of the inputSchema: the published one
and the server's view of it). Once the tool's budget is spent, a witness is not judged: the finding is a warning
saying the break is not proven (``UNJUDGED``), so a schema whose every witness costs a long validation cannot make
judging unbounded.

Every input finding so judged carries ``server``: ``{"validator", "inferred", "outcome", "error"}`` and lists no
host profile (hosts build arguments; the server rejects them).
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

from mcp_schema_audit.engine.issue import Budget
from mcp_schema_audit.engine.meter import Meter
from mcp_schema_audit.engine.servers import Outcome, ServerValidator, judge
from mcp_schema_audit.engine.zod_formats import SERVER_DECIDED_RULES, checks_bare_formats
from mcp_schema_audit.findings import Finding
from mcp_schema_audit.rules import RULES
from mcp_schema_audit.wording import Text
from mcp_schema_audit.words import oneline

#: The reason of an input finding whose witness the tool's spent budget left unjudged (``judge_inputs``).
UNJUDGED = (
    "the tool's work budget was spent before the server's validator could judge this witness, so the break is not "
    "proven"
)


def judge_inputs(
    findings: list[Finding], schema: Any, validator: ServerValidator, cached: Any = None, meter: Meter | None = None
) -> list[Finding]:
    """``findings`` (one tool's, of any direction) with every input finding that carries a witness judged by
    ``validator`` on ``schema`` (the tool's inputSchema as the server running it lists it); ``cached`` (the
    cached inputSchema) gives an argument removed from an open object its witness call. Each judgement is charged
    to ``meter`` (the tool's input work, as ``compare_schemas`` left it; a new one when None). Order is kept."""
    meter = meter if meter is not None else Meter()
    return [
        _judged(f, schema, validator, meter, cached)
        if _judgeable(f)
        else _open_ignored(f, schema, validator, cached, meter)
        if _dropped_from_open(f, validator)
        else f
        for f in findings
    ]


def _charged_judge(validator: ServerValidator, schema: Any, arguments: Any, meter: Meter) -> Outcome:
    """``judge``, charged to ``meter`` as the two validations it runs (raises ``Budget`` when spent)."""
    meter.count_validation(schema)
    meter.count_validation(schema)
    return judge(validator, schema, arguments)


def _dropped_from_open(f: Finding, validator: ServerValidator) -> bool:
    """An argument removed from an open object, on a framework server (zod, pydantic) that drops or keeps unread
    the keys an object does not declare: the call runs without it (``published`` servers hand it to the tool)."""
    return f.rule == "input-property-removed" and validator.name != "published" and validator.extras != "reject"


def _judgeable(f: Finding) -> bool:
    """An input finding whose witness is arguments a host builds from the cached inputSchema. Not a listing-time
    breaker (``input-schema-not-object``): its witness is the tools/list entry the SDK clients refuse, decided by
    them before any call reaches the server (a server validator judging that entry as arguments turned the
    break into a warning naming no client)."""
    known = RULES.get(f.rule)
    return (
        f.direction == "input"
        and not (known is not None and known.listing)
        and isinstance(f.witness, dict)
        and "instance" in f.witness
        and f.witness.get("accepted_by") == "old"
    )


def _judged(f: Finding, schema: Any, validator: ServerValidator, meter: Meter, cached: Any = None) -> Finding:
    arguments = f.witness["instance"] if f.witness else None
    try:
        outcome = _charged_judge(validator, schema, arguments, meter)
        before: Outcome | None = None
        if _framework_reads(validator, cached):
            before = _charged_judge(validator, cached, arguments, meter)
        if outcome.coerced and not outcome.rejected and cached is not None:
            other = _uncoerced(f, schema, validator, cached, meter)
            if other is not None:  # another value of the type, which the cached version's server took
                f, outcome, before = *other, None
    except Budget as exc:
        if f.severity != "breaking":
            return f
        return replace(f, severity="warning", hosts=[], reason=f"{UNJUDGED} ({exc})")
    if outcome.rejected and before is not None and before.rejected and not before.unusable:
        # the server of the cached version, same framework, refused this call too: no call that worked fails now
        return replace(
            f,
            severity="warning",
            hosts=[],
            reason=(
                f"the server's validator ({validator.name}) rejects it under the cached inputSchema too "
                f"({_issues(before.error)}): no call that worked before fails, the break is not proven"
            )[:500],
            server=server_outcome(validator, "rejected", outcome.error),
        )
    at = f.instance_pointer or ""
    removed = ("input-property-removed-from-closed-object", "input-property-removed")
    if f.rule in removed and at in (*outcome.dropped, *outcome.kept):
        return _ignored(f, validator, outcome, at)
    if f.rule == "input-required-added" and at in outcome.filled:
        return _filled(f, validator, outcome, at)
    if outcome.unusable and validator.name != "published":
        return replace(
            f,
            severity="warning",
            hosts=[],
            reason=(
                f"the listed inputSchema cannot be used ({outcome.error.split(': ', 1)[-1]}), but the server's "
                f"validator ({validator.name}) validates with its framework's own schema: the break is not proven"
            )[:500],
            server=server_outcome(validator, "undecided", ""),
        )
    if outcome.rejected:
        g = replace(f, hosts=[], server=server_outcome(validator, "rejected", outcome.error))
        g.witness = {**(f.witness or {}), "error": outcome.error[:500]}
        if (
            f.rule in SERVER_DECIDED_RULES
            and f.severity == "warning"
            and not f.reason
            and checks_bare_formats(validator.wording)
        ):
            g.severity = "breaking"  # a warning only because hosts differ on it; the server refuses the call
        return g
    what = "takes it as another type (pydantic's lax mode)" if outcome.coerced else "accepts it" + _why(outcome)
    return replace(
        f,
        severity="warning",
        hosts=[],
        reason=f"the server's validator ({validator.name}) {what}: the break is not proven",
        server=server_outcome(validator, "accepted", ""),
    )


#: Values tried in place of a witness's value that the framework took as another type (``_uncoerced``), by type.
_OTHER_VALUES: dict[type, tuple[Any, ...]] = {
    int: (2, -1, 7, 1000),
    float: (2.5, -0.5, 1e300),
    str: ("x", "abc", "not-a-value"),
    bool: (True, False),
}


def _uncoerced(
    f: Finding, schema: Any, validator: ServerValidator, cached: Any, meter: Meter
) -> tuple[Finding, Outcome] | None:
    """A witness like ``f``'s whose value at its instance pointer is another of the same JSON type
    (``_OTHER_VALUES``) that the framework rejects where it took ``f``'s by coercion (pydantic reads ``0`` as
    ``false``, not ``2``), still a call the cached inputSchema and the cached version's server take; with its
    outcome, or None. Each judgement is charged to ``meter``."""
    from mcp_schema_audit.engine.servers import PROFILES
    from mcp_schema_audit.jsontext import pointer_tokens

    witness = f.witness or {}
    tokens = pointer_tokens(witness.get("instance_pointer") or "")
    holder: Any = witness.get("instance")
    for token in tokens[:-1]:
        holder = holder.get(token) if isinstance(holder, dict) else None
    if not tokens or not isinstance(holder, dict) or tokens[-1] not in holder:
        return None
    for value in _OTHER_VALUES.get(type(holder[tokens[-1]]), ()):
        arguments = copy.deepcopy(witness["instance"])
        place = arguments
        for token in tokens[:-1]:
            place = place[token]
        place[tokens[-1]] = value
        if _charged_judge(PROFILES["published"], cached, arguments, meter).rejected:
            continue  # not a call the cached inputSchema allows
        if _charged_judge(validator, cached, arguments, meter).rejected:
            continue  # the cached version's server refused it too
        outcome = _charged_judge(validator, schema, arguments, meter)
        if outcome.rejected:
            return replace(f, witness={**witness, "instance": arguments}), outcome
    return None


def _framework_reads(validator: ServerValidator, cached: Any) -> bool:
    """The cached version's server is judged too: a framework whose reading differs from python-sdk's (zod's
    JavaScript patterns, pydantic's lax types), so a witness the engine built from the cached schema may be one
    that version's own server refused as well."""
    return cached is not None and validator.name != "published"


def _why(outcome: Outcome) -> str:
    if outcome.filled:
        return " and fills a default"
    if outcome.dropped:
        return " and drops an unknown key"
    return ""


def _ignored(f: Finding, validator: ServerValidator, outcome: Outcome, at: str) -> Finding:
    done = "drops" if at in outcome.dropped else "keeps, unread,"
    name = at.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
    fails = bool(outcome.rejected and outcome.error)
    detail = _ignored_detail(name, validator, done, fails)
    rejected = f"; a call carrying it fails for another reason: {_issues(outcome.error)}" if fails else ""
    return replace(
        f,
        rule="input-argument-ignored",
        severity=RULES["input-argument-ignored"].severity,
        detail=detail,
        hosts=[],
        reason=(f"the published schema rejects it, but {validator.summary}" + rejected)[:500],
        witness={**(f.witness or {}), "error": ""},
        server=server_outcome(validator, "dropped" if at in outcome.dropped else "kept", outcome.error),
    )


def _open_ignored(f: Finding, schema: Any, validator: ServerValidator, cached: Any, meter: Meter) -> Finding:
    """``input-property-removed`` (an open object) on a server whose framework drops or keeps unread an undeclared
    key: ``input-argument-ignored``. The framework's reading of the open object decides which: a profile that
    keeps unknown keys, or an object listed with ``additionalProperties`` ``true``/``{}`` (zod 4's
    ``looseObject``, pydantic's ``extra="allow"``) under a profile that follows the listing, keeps it unread;
    otherwise (``z.object``, pydantic's default) it is dropped. The witness is a call the cached schema allows
    carrying the argument (``_carrying``); when the new schema rejects that call for another reason the finding
    says so, and when none can be built (or the tool's budget is spent) it stands on the profile alone (no call
    fails: none is needed)."""
    keeps = validator.extras == "keep" or (validator.extras == "schema" and _listed_open(schema, f.instance_pointer))
    state, done = ("kept", "keeps, unread,") if keeps else ("dropped", "drops")
    name = f.pointer.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
    built = _carrying(cached, f.instance_pointer)
    witness = None
    error = ""
    try:
        outcome = _charged_judge(validator, schema, built[0], meter) if built is not None else None
    except Budget:
        built = outcome = None
    if built is not None and outcome is not None:
        error = outcome.error if outcome.rejected else ""
        witness = {"instance": built[0], "accepted_by": "old", "error": "", "instance_pointer": built[1]}
    other = f"; a call carrying it fails for another reason: {_issues(error)}" if error else ""
    return replace(
        f,
        rule="input-argument-ignored",
        severity=RULES["input-argument-ignored"].severity,
        detail=_ignored_detail(name, validator, done, bool(error)),
        hosts=[],
        witness=witness,
        instance_pointer=built[1] if built is not None else f.instance_pointer,
        reason=(validator.summary + other)[:500],
        server=server_outcome(validator, state, error),
    )


def _issues(error: str) -> str:
    """A validator's error on one line: its lines (zod's issues, pydantic's ``loc`` then message) joined by ``; ``,
    at most 300 characters."""
    return oneline("; ".join(line.strip() for line in error.splitlines() if line.strip()))[:300]


def _ignored_detail(name: str, validator: ServerValidator, done: str, fails: bool = False) -> Text:
    """The detail of ``input-argument-ignored``: argument ``name`` no longer declared, and what the validator
    ``done`` with it (``drops``, ``keeps, unread,``); ``fails``: the witness call fails for another reason (the
    finding's reason says which, once), so it is not said to run."""
    then = "" if fails else ", so the call runs without it"
    return Text.of(
        "argument {name} of the {cached} schema is no longer declared; the {served_server}'s validator "
        "({validator}) {done} it without an error{then}",
        name=repr(name),
        validator=validator.name,
        done=done,
        then=then,
    )


def _listed_open(schema: Any, at: str | None) -> bool:
    """Whether the object holding the argument at instance pointer ``at`` lists ``additionalProperties`` as
    ``true`` or ``{}`` (keys kept) in ``schema`` (``$ref`` followed)."""
    from mcp_schema_audit.engine.sampler import deref
    from mcp_schema_audit.jsontext import pointer_tokens
    from mcp_schema_audit.schema.dialects import RefError
    from mcp_schema_audit.schema.doc import SchemaDoc

    node: Any = schema
    try:
        doc = SchemaDoc(schema)
        for name in pointer_tokens(at or "")[:-1]:
            node = deref(node, doc)["properties"][name]
        node = deref(node, doc)
    except (RefError, KeyError, TypeError, RecursionError):
        return False
    return isinstance(node, dict) and node.get("additionalProperties") in (True, {})


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
        server=server_outcome(validator, "filled", outcome.error),
    )


def server_outcome(validator: ServerValidator, outcome: str, error: str) -> dict[str, Any]:
    """A finding's ``server`` field: the validator that judged its witness, whether it was inferred, the outcome
    (rejected, dropped, kept, filled, accepted, undecided) and the error (at most 500 characters)."""
    return {
        "validator": validator.name,
        "inferred": bool(validator.inferred_from),
        "outcome": outcome,
        "error": error[:500],
    }


def _carrying(cached: Any, at: str | None) -> tuple[dict[str, Any], str] | None:
    """A call the ``cached`` inputSchema allows with the argument at instance pointer ``at`` (``/a``, nested
    ``/a/b``: each token a property, ``$ref`` followed) present, and ``at``; None when ``at`` is missing or no
    value is built."""
    from mcp_schema_audit.engine.compare import cached_call_arguments
    from mcp_schema_audit.engine.sampler import NoSample, deref, sample
    from mcp_schema_audit.jsontext import pointer_tokens
    from mcp_schema_audit.schema.dialects import RefError
    from mcp_schema_audit.schema.doc import SchemaDoc

    names = pointer_tokens(at) if at else []
    if not isinstance(cached, dict) or not names:
        return None
    arguments = cached_call_arguments(cached)
    node: Any = cached
    holder: Any = arguments
    try:
        doc = SchemaDoc(cached)
        for i, name in enumerate(names):
            node = deref(node, doc)["properties"][name]  # pydantic nests models through $ref
            if i == len(names) - 1:
                holder[name] = sample(node, doc)
            else:
                if not isinstance(holder.get(name), dict):
                    holder[name] = sample(node, doc)
                holder = holder[name]
                if not isinstance(holder, dict):
                    return None
    except (NoSample, RecursionError, KeyError, TypeError, RefError):
        return None
    return arguments, str(at)
