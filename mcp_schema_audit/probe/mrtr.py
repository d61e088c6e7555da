"""Multi round-trip results (MCP 2026-07-28 basic/patterns/mrtr, SEP-2322): a ``tools/call`` answered with
``resultType: "input_required"`` and the requests it carries (``inputRequests``: ``elicitation/create``,
``sampling/createMessage``, ``roots/list``).

``input_required_findings(record)``: ``probe-input-required`` (the call cannot complete for a client without
the capabilities the requests need; the message names them), ``probe-elicitation-schema-unsupported`` for
each part of a form elicitation's ``requestedSchema`` outside the restricted subset of client/elicitation
§Requested Schema (flat object; string, number/integer, boolean and enum properties; the four enum forms), and
``deprecated-feature-used`` for requests of a Deprecated feature (Sampling, Roots).
"""

from __future__ import annotations

from typing import Any

from mcp_schema_audit.findings import Finding, make_finding
from mcp_schema_audit.jsontext import pointer_token
from mcp_schema_audit.wording import Text

#: Request method → (the client capability it needs, the Deprecated feature it belongs to or "").
METHODS = {
    "elicitation/create": ("elicitation", ""),
    "sampling/createMessage": ("sampling", "Sampling"),
    "roots/list": ("roots", "Roots"),
}
_COMMON = {"type", "title", "description", "default"}
_ALLOWED = {
    "string": _COMMON | {"minLength", "maxLength", "format", "enum", "oneOf", "enumNames"},
    "number": _COMMON | {"minimum", "maximum"},
    "integer": _COMMON | {"minimum", "maximum"},
    "boolean": _COMMON,
    "array": _COMMON | {"items", "minItems", "maxItems"},
}
_FORMATS = {"email", "uri", "date", "date-time"}


def _titled_consts(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(b, dict) and set(b) <= {"const", "title"} for b in value)


def _property_problems(prop: Any) -> list[str]:
    """Why one property of a requestedSchema is outside the subset (``[]`` when it is inside)."""
    if not isinstance(prop, dict):
        return ["is not a schema object"]
    kind = prop.get("type")
    if kind not in _ALLOWED:
        return [f"has type {kind!r}: only string, number, integer, boolean and multi-select arrays are allowed"]
    out = [f"uses {k!r}, outside the subset for {kind}" for k in sorted(set(prop) - _ALLOWED[kind])]
    if kind == "string" and "format" in prop and prop["format"] not in _FORMATS:
        out.append(f"has format {prop['format']!r}: only email, uri, date, date-time")
    if kind == "string" and "oneOf" in prop and not _titled_consts(prop["oneOf"]):
        out.append("has a oneOf that is not a list of {const, title}")
    if kind == "array":
        items = prop.get("items")
        ok = isinstance(items, dict) and (
            (items.get("type") == "string" and isinstance(items.get("enum"), list) and set(items) <= {"type", "enum"})
            or (set(items) == {"anyOf"} and _titled_consts(items.get("anyOf")))
        )
        if not ok:
            out.append("is an array whose items are not a string enum or a titled anyOf (multi-select)")
    return out


def schema_problems(schema: Any) -> list[tuple[str, str]]:
    """``(pointer in the schema, why)`` for every part of an elicitation ``requestedSchema`` outside the subset."""
    if not isinstance(schema, dict) or schema.get("type") != "object" or not isinstance(schema.get("properties"), dict):
        return [("", "is not a flat object with properties")]
    out = [(f"/{pointer_token(k)}", f"uses {k!r} at the root") for k in sorted(set(schema) - _ROOT_KEYS)]
    for name, prop in schema["properties"].items():
        out += [(f"/properties/{pointer_token(name)}", why) for why in _property_problems(prop)]
    return out


_ROOT_KEYS = {"$schema", "type", "properties", "required", "title", "description"}


def input_required_findings(record: dict[str, Any], result: dict[str, Any] | None) -> list[Finding]:
    """The findings of one call record whose result is ``input_required`` (``[]`` for any other result)."""
    if not isinstance(result, dict) or result.get("resultType") != "input_required":
        return []
    tool, call_id = str(record.get("tool")), str(record.get("id"))
    found_requests = result.get("inputRequests")
    requests: dict[str, Any] = found_requests if isinstance(found_requests, dict) else {}
    methods = sorted({str(r.get("method")) for r in requests.values() if isinstance(r, dict)})
    needs = sorted({METHODS.get(m, (m, ""))[0] for m in methods})
    detail = Text.of(
        "call {call} answered input_required ({methods}): a client that did not declare {needs} cannot complete "
        "it, and one before 2026-07-28 cannot read it; the probe declares none of these capabilities, and servers "
        "MUST NOT send input requests the client has not declared (MissingRequiredClientCapability, -32021)",
        call=call_id,
        methods=", ".join(methods) or "no requests",
        needs=", ".join(needs) or "the capabilities",
    )
    out = [make_finding("probe-input-required", tool, "/resultType", detail, None, "input_required", delta=call_id)]
    for key, request in sorted(requests.items()):
        if not isinstance(request, dict):
            continue
        base = f"/inputRequests/{pointer_token(str(key))}"
        feature = METHODS.get(str(request.get("method")), ("", ""))[1]
        if feature:
            words = Text.of(
                "call {call} asks the client for {method}: {feature} is Deprecated (2026-07-28), earliest removal "
                "the first revision released on or after 2027-07-28",
                call=call_id,
                method=str(request.get("method")),
                feature=feature,
            )
            found = make_finding("deprecated-feature-used", tool, base, words, None, feature, direction="tool")
            out.append(found)
        found_params = request.get("params")
        params: dict[str, Any] = found_params if isinstance(found_params, dict) else {}
        if request.get("method") != "elicitation/create" or params.get("mode", "form") != "form":
            continue
        for ptr, why in schema_problems(params.get("requestedSchema")):
            words = Text.of("call {call}: requestedSchema{ptr} {why}", call=call_id, ptr=ptr, why=why)
            where = f"{base}/params/requestedSchema{ptr}"
            out.append(make_finding("probe-elicitation-schema-unsupported", tool, where, words, None, None))
    return out
