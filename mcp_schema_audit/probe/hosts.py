"""What each host profile's SDK client does with one real ``tools/call`` result, and what it says.

A host holding a tool's ``outputSchema`` (its own listing, or a cached one) checks every result of that
tool before the model sees it. The profiles follow the measured behaviour of the real clients
(``tests/test_real_clients.py`` checks every verdict here against them):

- ``python-sdk`` (``mcp`` 2.x ``ClientSession.call_tool``): skips results with ``isError: true``; a result
  without a ``structuredContent`` key fails (``RuntimeError: Tool t has an output schema but did not return
  structured content``; an explicit ``null`` is validated like any value); otherwise ``check_schema`` then
  jsonschema (dialect from ``$schema``, formats not checked) and the best-matching error:
  ``RuntimeError: Invalid structured content returned by tool t: <message>``. A result the negotiated
  revision's wire model refuses fails before that (a pydantic ``ValidationError``).
- ``ts-sdk-v1`` (``@modelcontextprotocol/sdk`` 1.x ``Client.callTool``): the result is first parsed with zod
  (a ``structuredContent`` that is not a JSON object fails there); a falsy ``structuredContent`` on a result
  that is not ``isError`` fails (``MCP error -32600: Tool t has an output schema but did not return structured
  content``); a truthy one is validated with Ajv (draft-07 class, formats checked) **also on ``isError``
  results**, every error listed: ``MCP error -32602: Structured content does not match the tool's output
  schema: data/x must be string, …``.
- ``ts-sdk-v2`` (``@modelcontextprotocol/client`` 2.x, default negotiation: up to 2025-11-25): parses the
  result with zod first, like v1 (a ``structuredContent`` that is not a JSON object fails: ``Invalid result
  for tools/call``); skips ``isError`` results; ``structuredContent`` absent fails (``Tool t has an output
  schema but did not return structured content``); otherwise Ajv (class from ``$schema``, formats
  checked): ``Structured content does not match the tool's output schema: data/x must be string, …``.

A result is judged in the protocol era of the connection it came on (``modern``: 2026-07-28 or later, the
recording's or listing's ``protocol_version``). There ``structuredContent`` may be any JSON value, ``null``
included, and the outputSchema any schema: no profile's parser refuses a value for not being an object, and
the value is validated like any other. ``ts-sdk-v1`` speaks nothing newer than 2025-11-25, so it never receives
a result of that era that only that era allows (a ``structuredContent`` that is not a JSON object): such a
result is not judged for it (``judged_profiles``); its other results are (a server sends an object alike in
either era).

Messages are the hosts' own wording, rebuilt from the profile's validator errors: the Python text is
exact; the Ajv text follows Ajv's English messages (``ajv.errorsText``) for the common keywords.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from mcp_schema_audit.errors import MUST_PROPAGATE
from mcp_schema_audit.jsontext import pointer
from mcp_schema_audit.schema import HOST_PROFILES, RefError, RegexBudgetError, SchemaCostError, SchemaDoc
from mcp_schema_audit.schema.ajvtext import ajv_text

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

PY_MISSING = "Tool {tool} has an output schema but did not return structured content"
TS_MISSING = "MCP error -32600: Tool {tool} has an output schema but did not return structured content"
PY_INVALID = "Invalid structured content returned by tool {tool}: {message}"
TS_INVALID = "MCP error -32602: Structured content does not match the tool's output schema: {message}"
PY_BAD_SCHEMA = "Invalid schema for tool {tool}: {message}"
TS_BAD_SCHEMA = "MCP error -32602: Failed to validate structured content: {message}"
TS2_MISSING = "Tool {tool} has an output schema but did not return structured content"
TS2_INVALID = "Structured content does not match the tool's output schema: {message}"
TS_NOT_OBJECT = (
    "ZodError: structuredContent: Invalid input: expected record, received {kind} (the result does not "
    "parse as a CallToolResult; the call throws before any schema check)"
)
TS2_NOT_OBJECT = "Invalid result for tools/call: structuredContent: Invalid input: expected record, received {kind}"
_MESSAGE_CHARS = 500

#: Why a host rejects a result (``Verdict.kind``); ``""`` for a result it accepts; ``"undecided"`` (not
#: rejected) for a check this tool refused as too costly (``RegexBudgetError``, ``SchemaCostError``).
VerdictKind = Literal["", "schema", "missing", "wire", "bad-schema", "undecided"]


class Verdict:
    """One host profile's reaction to one result under one ``outputSchema``.

    ``rejected`` is True when the call fails in that host; ``message`` is the host's error (``""`` when
    accepted); ``kind`` says why: ``"schema"`` (the result does not validate), ``"missing"`` (no
    structuredContent), ``"wire"`` (rejected before any schema check: the result itself is not a valid
    CallToolResult), ``"bad-schema"`` (the host cannot use the schema: every call fails); ``"undecided"``
    (``rejected`` False, ``message`` says why): the check was refused as too costly, so whether the host
    accepts the result is not known (``result-undecided``). For ``"schema"``,
    ``schema_pointer`` is the JSON Pointer of the failing keyword in the schema document (``$ref`` hops
    resolved), ``instance_pointer`` where in ``structuredContent`` it failed and ``keyword`` the keyword;
    ``also``: the result's other problems, each ``(schema_pointer, instance_pointer, keyword, message)`` (the
    host's words for that problem), in the validator's order: a result wrong in three places is three findings.
    """

    __slots__ = ("also", "instance_pointer", "keyword", "kind", "message", "rejected", "schema_pointer")

    def __init__(
        self,
        rejected: bool,
        message: str = "",
        kind: VerdictKind = "",
        schema_pointer: str = "",
        instance_pointer: str = "",
        keyword: str = "",
    ) -> None:
        self.rejected = rejected
        self.message = message[:_MESSAGE_CHARS]
        self.kind = kind
        self.schema_pointer = schema_pointer
        self.instance_pointer = instance_pointer
        self.keyword = keyword
        self.also: tuple[tuple[str, str, str, str], ...] = ()

    def __repr__(self) -> str:
        return f"Verdict(rejected={self.rejected}, kind={self.kind!r}, message={self.message!r})"


ACCEPTED = Verdict(False)


def js_truthy(value: Any) -> bool:
    """JavaScript truthiness of a JSON value: ``null``, ``false``, ``0`` and ``""`` are falsy; arrays and
    objects (empty ones too) are truthy."""
    if value is None or value is False:
        return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value != 0
    if isinstance(value, str):
        return value != ""
    return True


def judged_profiles(result: dict[str, Any], *, modern: bool = False) -> tuple[str, ...]:
    """The host profiles that can receive ``result``: every one, except ``ts-sdk-v1`` for a result of the
    2026-07-28 era (``modern``) whose ``structuredContent`` is not a JSON object (only that era allows it, and
    that client never negotiates it)."""
    if modern and "structuredContent" in result and not isinstance(result["structuredContent"], dict):
        return tuple(p for p in HOST_PROFILES if p != "ts-sdk-v1")
    return HOST_PROFILES


def host_verdict(
    profile: str,
    tool: str,
    doc: SchemaDoc | None,
    result: dict[str, Any],
    *,
    wire_error: str | None = None,
    modern: bool = False,
) -> Verdict:
    """What host ``profile`` does with ``result`` (a raw ``tools/call`` result) of ``tool`` when it holds the
    outputSchema ``doc`` (``None``: the tool has none, so only the result's own shape is checked).
    ``wire_error`` is the Python SDK's objection to the result's shape, if any; ``modern``: the result came on a
    2026-07-28 connection (see the module docstring). Never raises: a schema the validator cannot evaluate is a
    ``bad-schema`` rejection with the reason.
    """
    wire = wire_verdict(profile, result, wire_error, modern=modern)
    if wire is not None:
        return wire
    if doc is None:
        return ACCEPTED
    return schema_verdict(profile, tool, doc, result)


def wire_verdict(
    profile: str, result: dict[str, Any], wire_error: str | None = None, *, modern: bool = False
) -> Verdict | None:
    """The rejection of ``result`` by host ``profile``'s own parser, before any schema: python-sdk when its
    wire model refused the result (``wire_error``), the TS profiles when ``structuredContent`` is present and
    not a JSON object on a connection up to 2025-11-25 (zod; ``modern``, a 2026-07-28 connection, allows any
    JSON value there). None when the parser takes it."""
    if profile == "python-sdk" and wire_error:
        return Verdict(True, f"pydantic ValidationError: {wire_error}", "wire")
    if (
        profile in ("ts-sdk-v1", "ts-sdk-v2")
        and not modern
        and "structuredContent" in result
        and not isinstance(result["structuredContent"], dict)
    ):
        template = TS_NOT_OBJECT if profile == "ts-sdk-v1" else TS2_NOT_OBJECT
        return Verdict(True, template.format(kind=_kind(result["structuredContent"])), "wire")
    if profile not in HOST_PROFILES:
        raise ValueError(f"unknown host profile {profile!r} (expected one of {', '.join(HOST_PROFILES)})")
    return None


def schema_verdict(profile: str, tool: str, doc: SchemaDoc, result: dict[str, Any]) -> Verdict:
    """What host ``profile`` holding outputSchema ``doc`` does with ``result`` once its parser took it (see the
    module docstring for which results each profile checks)."""
    is_error = result.get("isError") is True
    present = "structuredContent" in result
    content = result.get("structuredContent")
    if profile == "python-sdk":
        if is_error:
            return ACCEPTED
        if not present:
            return Verdict(True, "RuntimeError: " + PY_MISSING.format(tool=tool), "missing")
        return _validate(profile, tool, doc, content)
    if profile == "ts-sdk-v1":
        if not js_truthy(content):
            return ACCEPTED if is_error else Verdict(True, TS_MISSING.format(tool=tool), "missing")
        return _validate(profile, tool, doc, content)
    if profile == "ts-sdk-v2":
        if is_error:
            return ACCEPTED
        if not present:
            return Verdict(True, TS2_MISSING.format(tool=tool), "missing")
        return _validate(profile, tool, doc, content)
    raise ValueError(f"unknown host profile {profile!r} (expected one of {', '.join(HOST_PROFILES)})")


def _kind(value: Any) -> str:
    return {type(None): "null", bool: "boolean", str: "string", list: "array"}.get(type(value), "number")


def _validate(profile: str, tool: str, doc: SchemaDoc, instance: Any) -> Verdict:
    python = profile == "python-sdk"
    if python:
        from mcp_schema_audit.lint import metaschema_problem

        problem = metaschema_problem(doc.root)
        if problem is not None:
            return Verdict(True, "RuntimeError: " + PY_BAD_SCHEMA.format(tool=tool, message=problem), "bad-schema")
    try:
        errors = doc.errors(instance, profile)
    except RefError as exc:
        template = PY_BAD_SCHEMA if python else TS_BAD_SCHEMA
        return Verdict(
            True, ("RuntimeError: " if python else "") + template.format(tool=tool, message=exc), "bad-schema"
        )
    except (RegexBudgetError, SchemaCostError) as exc:  # our refusal, not the host's: neither valid nor invalid
        return Verdict(False, f"{profile}: not decided: {' '.join(str(exc).split())[:200]}", "undecided")
    except (ValueError, RecursionError) as exc:
        what = f"{profile} cannot validate the result against this schema: {' '.join(str(exc).split())[:200]}"
        return Verdict(True, what, "bad-schema")
    except BaseException as exc:  # a panic in the regex engine's Rust code (pyo3 PanicException)
        if isinstance(exc, MUST_PROPAGATE):
            raise
        return Verdict(True, f"{profile}: the validator failed ({type(exc).__name__})", "bad-schema")
    if not errors:
        return ACCEPTED
    from jsonschema.exceptions import best_match

    # python-sdk's pick (best_match, which also descends into a lone anyOf's branches) locates the finding for
    # every profile, so one problem is one finding; the TS message lists every error, as Ajv does
    best = best_match(errors) or errors[0]
    where = pointer(list(best.absolute_path))
    at = schema_pointer(doc, best)
    if python:
        verdict = Verdict(
            True,
            "RuntimeError: " + PY_INVALID.format(tool=tool, message=best.message),
            "schema",
            at,
            where,
            str(best.validator),
        )
    else:
        template = TS_INVALID if profile == "ts-sdk-v1" else TS2_INVALID
        verdict = Verdict(True, template.format(message=ajv_text(errors)), "schema", at, where, str(best.validator))
    seen = {at}
    also = []
    holding = set()  # the union errors best_match descended through to reach ``best``: the same problem
    parent = best.parent
    while parent is not None:
        holding.add(id(parent))
        parent = parent.parent
    for other in errors[:_ALSO_MAX]:
        place = schema_pointer(doc, other)
        if other is best or id(other) in holding or place in seen:
            continue
        seen.add(place)
        # python-sdk raises one error: the one it names for this problem is what it would say once the others go
        said = "RuntimeError: " + PY_INVALID.format(tool=tool, message=other.message) if python else verdict.message
        also.append((place, pointer(list(other.absolute_path)), str(other.validator), said))
    verdict.also = tuple(also)
    return verdict


#: The other problems of one result a verdict names (``Verdict.also``) at most.
_ALSO_MAX = 20


def schema_pointer(doc: SchemaDoc, error: ValidationError) -> str:
    """The JSON Pointer, in ``doc``'s document, of the keyword ``error`` failed on: the evaluation path
    (``absolute_schema_path``) with each local ``$ref`` hop replaced by its target's location; the bare
    evaluation path when a hop cannot be resolved locally."""
    tokens = list(error.absolute_schema_path)
    node: Any = doc.root
    path: list[Any] = []
    try:
        for tok in tokens:
            hop = tok == "$ref" or (isinstance(node, dict) and tok not in node)
            if hop and isinstance(node, dict) and isinstance(node.get("$ref"), str):
                # jsonschema leaves "$ref" out of the evaluation path of errors found through it
                node, target = doc.lookup(node["$ref"])
                if any(str(t).startswith("$ref:") for t in target):
                    return pointer(tokens)
                path = list(target)
                if tok == "$ref":
                    continue
            node = node[tok]
            path.append(tok)
    except (RefError, KeyError, IndexError, TypeError):
        return pointer(tokens)
    return pointer(path)
