"""Multi round-trip results (MCP 2026-07-28 basic/patterns/mrtr, SEP-2322): a ``tools/call`` answered with
``resultType: "input_required"`` and the requests it carries (``inputRequests``: ``elicitation/create``,
``sampling/createMessage``, ``roots/list``).

``input_required_findings(record)``: ``probe-input-required`` (the call cannot complete for a client without
the capabilities the requests need; the message names them), ``probe-elicitation-schema-unsupported`` for
each part of a form elicitation's ``requestedSchema`` outside the restricted subset of client/elicitation
§Requested Schema (flat object; string, number/integer, boolean and enum properties; the four enum forms), and
``deprecated-feature-used`` for requests of a Deprecated feature (Sampling, Roots).

``introduced_findings(records, previous)``: ``probe-input-required-introduced`` (breaking) for each call that
answers ``input_required`` now (or the -32021 MissingRequiredClientCapability error a server answers a client
that has not declared the capability) while the same call (same id and tool, else same tool and arguments) completed in
the recording of a cached version (``probe --against RECORDING``); it replaces that call's
``probe-input-required`` warning.
"""

from __future__ import annotations

from typing import Any

from mcp_schema_audit.findings import Finding, make_finding
from mcp_schema_audit.jsontext import canonical, pointer_token
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


def _complete(record: dict[str, Any]) -> bool:
    """Did the recorded call end with a result of one step (no ``resultType``, or ``complete``)?"""
    result = record.get("result")
    done = isinstance(result, dict) and result.get("resultType") in (None, "complete")
    return record.get("outcome") == "result" and done


def _same_call(record: dict[str, Any], calls: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The call of ``calls`` that ``record`` repeats: the one with its id and tool, else the first with its tool and
    arguments (``None`` when there is none)."""
    tool = record.get("tool")
    by_id = [c for c in calls if c.get("id") == record.get("id") and c.get("tool") == tool]
    if by_id:
        return by_id[0]
    args = canonical(record.get("arguments") or {})
    return next((c for c in calls if c.get("tool") == tool and canonical(c.get("arguments") or {}) == args), None)


#: The JSON-RPC error a 2026-07-28 server answers when a call needs input the client has not declared.
MISSING_CAPABILITY = -32021


def _asks_input(record: dict[str, Any]) -> tuple[str, list[str], Any] | None:
    """``(what the call answered, the capabilities it needs, the witness instance)`` for a call that asks the client
    for input: an ``input_required`` result, or the ``MissingRequiredClientCapability`` error (-32021) a server
    answers a client that has not declared what its input requests need (the TypeScript SDK v2's server does);
    ``None`` for any other call."""
    result, error = record.get("result"), record.get("error")
    if isinstance(result, dict) and result.get("resultType") == "input_required":
        found = result.get("inputRequests")
        requests: dict[str, Any] = found if isinstance(found, dict) else {}
        methods = sorted({str(r.get("method")) for r in requests.values() if isinstance(r, dict)})
        needs = sorted({METHODS.get(m, (m, ""))[0] for m in methods})
        view = {k: result[k] for k in ("resultType", "inputRequests") if k in result}
        return f"input_required ({', '.join(methods) or 'no requests'})", needs, view
    if record.get("outcome") == "rpc-error" and isinstance(error, dict) and error.get("code") == MISSING_CAPABILITY:
        data = error.get("data")
        caps = data.get("requiredCapabilities") if isinstance(data, dict) else None
        needs = sorted(str(k) for k in caps) if isinstance(caps, dict) else []
        return f"MissingRequiredClientCapability ({MISSING_CAPABILITY})", needs, {"error": error}
    return None


def introduced_findings(
    records: list[dict[str, Any]], previous: list[tuple[str, list[dict[str, Any]]]]
) -> list[Finding]:
    """``probe-input-required-introduced`` for each call of ``records`` that asks the client for input
    (``_asks_input``: ``input_required``, or the -32021 error for a client without the capability) whose same call
    (``_same_call``) completed in one step in a cached version's recording (``previous``: ``(its label, its call
    records)``, oldest first). The witness is the new answer (``resultType`` and ``inputRequests``, or the
    ``error``), ``call``, the ``cohorts`` whose recordings completed it, ``before``: ``{cohort: that call's id}``
    and ``needs`` (the client capabilities)."""
    from mcp_schema_audit.probe.check import cap_instance

    out = []
    for record in records:
        asked = _asks_input(record)
        if asked is None:
            continue
        before = {}
        for label, calls in previous:
            old = _same_call(record, calls)
            if old is not None and _complete(old):
                before[label] = str(old.get("id"))
        if not before:
            continue
        answered, needs, view = asked
        tool, call_id = str(record.get("tool")), str(record.get("id"))
        detail = Text.of(
            "call {call} answered {answered}; the recording of {cohorts} shows it completing in one step: hosts "
            "that do not declare {needs}, and clients before 2026-07-28, can no longer complete it",
            call=call_id,
            answered=answered,
            cohorts=", ".join(before),
            needs=" or ".join(needs) or "the capabilities its requests need",
        )
        instance, truncated = cap_instance(view)
        witness: dict[str, Any] = {
            "instance": instance,
            "accepted_by": "server",
            "error": f"MissingRequiredClientCapability ({MISSING_CAPABILITY}) for a client without "
            + (" or ".join(needs) or "them"),
            "call": call_id,
            "calls": [call_id],
            "cohorts": list(before),
            "before": before,
            "needs": needs,
            "source": "probe",
        }
        if truncated:
            witness["truncated"] = True
        pointer = "/resultType" if "resultType" in view else "/error/code"
        f = make_finding(
            "probe-input-required-introduced",
            tool,
            pointer,
            detail,
            "complete",
            "input_required" if "resultType" in view else MISSING_CAPABILITY,
            witness=witness,
            delta=call_id,
        )
        out.append(f)
    return out
