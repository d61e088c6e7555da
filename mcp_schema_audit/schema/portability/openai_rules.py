"""The OpenAI profiles: ``openai-strict`` (function calling with ``strict: true``, the schema first made strict by
the OpenAI Agents SDK's ``ensure_strict_json_schema``, as its MCP adapter does) and ``openai`` (``strict`` off).

Code read (and run by tests/test_portability_providers.py): ``openai-agents`` 0.24 ``agents/strict_schema.py``
(``ensure_strict_json_schema``; ``agents/mcp/util.py`` ``MCPUtil.to_function_tool`` calls it when
``convert_schemas_to_strict`` is on and sends the tool non-strict when it raises), ``openai`` 3.57
``openai/lib/_pydantic.py`` (``_ensure_strict_json_schema``, the helper behind ``pydantic_function_tool``, which
the Agents SDK's copy extends). The API's own checks are not in any client code: those rules rest on OpenAI's
documentation or on public issues, and say so.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from mcp_schema_audit.jsontext import canonical, pointer
from mcp_schema_audit.schema.portability.record import Hit, HostRule, Tool, keyword_hits, nodes, parameter_of, quoted

AGENTS = (
    "openai-agents 0.24 agents/strict_schema.py ensure_strict_json_schema (via agents/mcp/util.py to_function_tool)"
)
STRUCTURED_DOCS = "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas"
_REF_SIBLINGS = frozenset(
    {
        "$anchor", "$comment", "$defs", "$schema", "contentEncoding", "contentMediaType", "contentSchema",
        "default", "definitions", "deprecated", "description", "examples", "readOnly", "title", "writeOnly",
    }
)  # fmt: skip
#: Keywords outside the strict subset (OpenAI's Structured Outputs documentation, "Supported schemas").
STRICT_UNSUPPORTED = frozenset(
    {
        "not", "if", "then", "else", "dependentRequired", "dependentSchemas", "patternProperties",
        "unevaluatedProperties", "propertyNames", "minProperties", "maxProperties", "unevaluatedItems",
        "contains", "minContains", "maxContains", "uniqueItems",
    }
)  # fmt: skip
#: The string formats the strict subset supports (same documentation).
STRICT_FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"})
_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
#: The most tools one request may carry (the API reference of ``tools``).
MAX_TOOLS = 128


def strict_nodes(schema: Any) -> Iterator[tuple[list[Any], Any]]:
    """``(tokens, node)`` of every place the strict conversion visits: the root, ``$defs``/``definitions`` entries,
    ``properties`` values, a single ``items`` schema, ``anyOf``/``oneOf``/``allOf`` entries (``node`` may be a
    boolean or other non-object there: the conversion raises ``TypeError`` on it)."""
    stack: list[tuple[list[Any], Any]] = [([], schema)]
    seen = 0
    while stack and seen < 20_000:
        tokens, node = stack.pop()
        seen += 1
        yield tokens, node
        if not isinstance(node, dict):
            continue
        for kw in ("$defs", "definitions", "properties"):
            if isinstance(node.get(kw), dict):
                stack += [(tokens + [kw, k], v) for k, v in node[kw].items()]
        if isinstance(node.get("items"), dict):
            stack.append((tokens + ["items"], node["items"]))
        for kw in ("anyOf", "oneOf", "allOf"):
            if isinstance(node.get(kw), list):
                stack += [(tokens + [kw, i], v) for i, v in enumerate(node[kw])]


def _is_object(node: dict[str, Any]) -> bool:
    typ = node.get("type")
    return typ == "object" or (isinstance(typ, list) and "object" in typ) or (typ is None and "properties" in node)


def _open_objects(tool: Tool) -> list[Hit]:
    out = []
    for tokens, node in strict_nodes(tool.input_schema):
        if not isinstance(node, dict):
            continue
        extra = node.get("additionalProperties", False)
        if (_is_object(node) or node.get("type") is None) and "additionalProperties" in node and extra is not False:
            words = f"additionalProperties is {quoted(extra)}: ensure_strict_json_schema raises UserError"
            out.append(
                Hit(pointer(tokens + ["additionalProperties"]), parameter_of(tokens), "additionalProperties", words)
            )
    return out


def _booleans(tool: Tool) -> list[Hit]:
    return [
        Hit(
            pointer(tokens),
            parameter_of(tokens),
            None,
            f"a {type(node).__name__} subschema: the conversion raises TypeError",
        )
        for tokens, node in strict_nodes(tool.input_schema)
        if tokens and not isinstance(node, dict)
    ]


def _root_union(tool: Tool) -> list[Hit]:
    schema = tool.input_schema
    if not isinstance(schema, dict):
        return []
    out = []
    for kw in ("anyOf", "oneOf"):
        if isinstance(schema.get(kw), list):
            out.append(Hit(f"/{kw}", None, kw, f"root {kw}: 'The root of a strict JSON schema must not use anyOf'"))
    typ = schema.get("type")
    if isinstance(typ, list) and "object" in typ and typ != ["object"]:
        out.append(Hit("/type", None, "type", f"root type {quoted(typ)}: the root must be a non-nullable object"))
    return out


def _ref_siblings(tool: Tool) -> list[Hit]:
    out = []
    for tokens, node in strict_nodes(tool.input_schema):
        if isinstance(node, dict) and "$ref" in node:
            allowed = _REF_SIBLINGS | ({"$id"} if not tokens else set())
            extra = sorted(set(node) - {"$ref"} - allowed)
            if extra:
                words = f"$ref beside {', '.join(extra)}: 'a `$ref` with incompatible sibling keyword(s)'"
                out.append(Hit(pointer(tokens + ["$ref"]), parameter_of(tokens), "$ref", words))
    return out


def _free_form(tool: Tool) -> list[Hit]:
    out = []
    for tokens, node in strict_nodes(tool.input_schema):
        if not tokens or not isinstance(node, dict) or not _is_object(node):
            continue
        if node.get("properties") in (None, {}) and "additionalProperties" not in node:
            words = "an object with no properties is closed (additionalProperties: false): only {} can be sent"
            out.append(Hit(pointer(tokens), parameter_of(tokens), "properties", words))
    return out


def _optional(tool: Tool) -> list[Hit]:
    out = []
    for tokens, node in strict_nodes(tool.input_schema):
        if not isinstance(node, dict) or not isinstance(node.get("properties"), dict):
            continue
        listed = node.get("required")
        required = listed if isinstance(listed, list) else []
        for key, sub in node["properties"].items():
            if key not in required:
                words = f"optional {key!r} is made required: the model must always send a value for it"
                if _takes_null(sub):  # X | None = None already: null stands for "not given"
                    words += " (null, which it already accepts, can stand for none)"
                    fix = "take null as not given on the server (zod: .nullish(); pydantic's X | None = None does)"
                else:
                    fix = (
                        f"required, with null allowed: {_nullable(key, sub)}, and null taken as not given "
                        "(zod: .nullish(); pydantic: X | None = None)"
                    )
                if isinstance(sub, dict) and sub.get("default") is not None:  # the model sends null, never the default
                    fix += f"; apply the default {canonical(sub['default'])} when null comes"
                where = tokens + ["properties", key]
                out.append(Hit(pointer(where), parameter_of(where), "required", words, fix=fix))
    return out


def _takes_null(sub: Any) -> bool:
    """``sub`` accepts null as written: a ``type`` that lists it, or an ``anyOf``/``oneOf`` branch of type null."""
    if not isinstance(sub, dict):
        return sub is True
    kind = sub.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    branches = [b for kw in ("anyOf", "oneOf") if isinstance(sub.get(kw), list) for b in sub[kw]]
    return any(isinstance(b, dict) and b.get("type") == "null" for b in branches)


def _nullable(key: str, sub: Any) -> str:
    """``"limit": {"type": ["integer", "null"]}``: property ``key``'s schema ``sub`` with null allowed, as JSON
    text (a ``type`` gains ``"null"``; a schema without one becomes ``anyOf`` with ``{"type": "null"}``)."""
    if isinstance(sub, dict) and isinstance(sub.get("type"), str):
        spelled: Any = {"type": [sub["type"], "null"]} if sub["type"] != "null" else {"type": "null"}
    elif isinstance(sub, dict) and isinstance(sub.get("type"), list):
        spelled = {"type": [*sub["type"], *([] if "null" in sub["type"] else ["null"])]}
    else:
        spelled = {"anyOf": [sub if isinstance(sub, (dict, bool)) else {}, {"type": "null"}]}
    return f"{canonical(key)}: {canonical(spelled)}"


def _one_of(tool: Tool) -> list[Hit]:
    return [
        Hit(
            pointer(tokens + ["oneOf"]),
            parameter_of(tokens),
            "oneOf",
            "oneOf is rewritten as anyOf: a value matching several branches is accepted",
        )
        for tokens, node in strict_nodes(tool.input_schema)
        if tokens and isinstance(node, dict) and isinstance(node.get("oneOf"), list)
    ]


def _unsupported(tool: Tool) -> list[Hit]:
    hits = keyword_hits(tool.input_schema, STRICT_UNSUPPORTED, lambda kw, _: f"{kw} is outside the strict subset")
    for tokens, node in nodes(tool.input_schema):
        if isinstance(node, dict) and isinstance(node.get("allOf"), list) and len(node["allOf"]) > 1:
            hits.append(
                Hit(
                    pointer(tokens + ["allOf"]),
                    parameter_of(tokens),
                    "allOf",
                    "allOf of several schemas is outside the strict subset",
                )
            )
    return hits


def _formats(tool: Tool) -> list[Hit]:
    out = []
    for tokens, node in nodes(tool.input_schema):
        fmt = node.get("format") if isinstance(node, dict) else None
        if isinstance(fmt, str) and fmt not in STRICT_FORMATS:
            words = f"format {quoted(fmt)} is not a supported strict format"
            out.append(Hit(pointer(tokens + ["format"]), parameter_of(tokens), "format", words))
    return out


def _depth(tool: Tool) -> list[Hit]:
    out = []
    for tokens, node in nodes(tool.input_schema):
        if isinstance(node, dict) and isinstance(node.get("enum"), list) and len(node["enum"]) > 1000:
            out.append(
                Hit(
                    pointer(tokens + ["enum"]),
                    parameter_of(tokens),
                    "enum",
                    f"{len(node['enum'])} enum values (at most 1000)",
                )
            )
        levels = sum(1 for t in tokens if t == "properties")
        if levels > 10 and isinstance(node, dict) and node.get("properties"):
            out.append(
                Hit(pointer(tokens), parameter_of(tokens), "properties", f"objects nested {levels} deep (at most 10)")
            )
            break
    return out


def _name(tool: Tool) -> list[Hit]:
    if _NAME.match(tool.name):
        return []
    return [Hit("", None, None, f"tool name {quoted(tool.name)} does not match ^[a-zA-Z0-9_-]{{1,64}}$")]


def array_items(tool: Tool) -> list[Hit]:
    """A hit for every array schema of the inputSchema without ``items`` (or ``prefixItems``)."""
    out = []
    for tokens, node in nodes(tool.input_schema):
        typ = node.get("type") if isinstance(node, dict) else None
        is_array = typ == "array" or (isinstance(typ, list) and "array" in typ)
        if is_array and "items" not in node and "prefixItems" not in node:
            out.append(Hit(pointer(tokens), parameter_of(tokens), "items", "'array schema missing items'"))
    return out


def _root_object(tool: Tool) -> list[Hit]:
    schema = tool.input_schema
    if isinstance(schema, dict) and schema.get("type") == "object":
        return []
    got = schema.get("type") if isinstance(schema, dict) else schema
    return [Hit("/type", None, "type", f"root type {quoted(got)}: 'schema must be a JSON Schema of type: \"object\"'")]


def _tool_count(tool: Tool) -> list[Hit]:
    if tool.listed <= MAX_TOOLS:
        return []
    return [Hit("", None, None, f"the listing has {tool.listed} tools; one request carries at most {MAX_TOOLS}")]


BOTH = ("openai-strict", "openai")
API_400 = "the API answers 400 Invalid schema for function … and the whole request (every tool sent with it) fails"
RULES: tuple[HostRule, ...] = (
    HostRule(
        id="openai-strict-open-object",
        hosts=("openai-strict",),
        effect="drops-tool",
        title="An object open to undeclared keys cannot be made strict",
        behaviour="ensure_strict_json_schema raises UserError ('additionalProperties should not be set for object "
        "types'); the tool cannot be sent with strict: true (the Agents SDK then sends it non-strict)",
        source=AGENTS,
        evidence="code",
        before=(
            '{"type": "object", "properties": {"tags": {"type": "object", "additionalProperties": {"type": "string"}}}}'
        ),
        fix='an array of {"key", "value"} objects instead of a map',
        check=_open_objects,
    ),
    HostRule(
        id="openai-strict-boolean-schema",
        hosts=("openai-strict",),
        effect="drops-tool",
        title="A boolean subschema cannot be made strict",
        behaviour="ensure_strict_json_schema raises TypeError ('Expected True to be a dictionary') on a true/false "
        "subschema in properties, items, $defs or a union",
        source=AGENTS,
        evidence="code",
        before='{"type": "object", "properties": {"value": true}}',
        fix='{} with a type, e.g. {"type": "string"}',
        check=_booleans,
    ),
    HostRule(
        id="openai-strict-root-union",
        hosts=("openai-strict",),
        effect="drops-tool",
        title="The root is a union or nullable",
        behaviour="ensure_strict_json_schema raises UserError: 'The root of a strict JSON schema must not use "
        "anyOf' (a root oneOf becomes anyOf first) or 'must be a non-nullable object'",
        source=AGENTS,
        evidence="code",
        before='{"type": "object", "anyOf": [{"required": ["id"]}, {"required": ["name"]}]}',
        fix="one object with both parameters optional-nullable, the choice described in words",
        check=_root_union,
    ),
    HostRule(
        id="openai-strict-ref-siblings",
        hosts=("openai-strict",),
        effect="drops-tool",
        title="$ref beside constraining keywords",
        behaviour="ensure_strict_json_schema raises UserError ('a `$ref` with incompatible sibling keyword(s)')",
        source=AGENTS,
        evidence="code",
        before=(
            '{"type": "object", "properties": {"a": {"$ref": "#/$defs/A", "minLength": 1}}, "$defs": {"A": '
            '{"type": "string"}}}'
        ),
        fix='{"allOf": [{"$ref": "#/$defs/A"}], …} or the keyword moved into the definition',
        check=_ref_siblings,
    ),
    HostRule(
        id="openai-strict-free-form-object",
        hosts=("openai-strict",),
        effect="drops-parameter",
        title="An object parameter without properties is closed to {}",
        behaviour="the conversion adds additionalProperties: false to an object with no properties: the model can "
        "only send {} (github/github-mcp-server#1877, fixed in #2417)",
        source=AGENTS + "; github/github-mcp-server#1877",
        evidence="code",
        before='{"type": "object", "properties": {"filter": {"type": "object"}}}',
        fix="declare the object's properties, or take a JSON string",
        check=_free_form,
    ),
    HostRule(
        id="openai-strict-optional-required",
        hosts=("openai-strict",),
        effect="rewrites",
        title="Optional parameters are made required",
        behaviour="the conversion sets required to every property: an optional parameter must always be sent, "
        "and the server receives a value where the user meant none",
        source=AGENTS + "; openai 3.57 openai/lib/_pydantic.py _ensure_strict_json_schema",
        evidence="code",
        before=(
            '{"type": "object", "properties": {"q": {"type": "string"}, "limit": {"type": "integer"}}, '
            '"required": ["q"]}'
        ),
        fix='required, with null allowed: "limit": {"type": ["integer", "null"]}',
        check=_optional,
    ),
    HostRule(
        id="openai-strict-one-of",
        hosts=("openai-strict",),
        effect="rewrites",
        title="oneOf is read as anyOf",
        behaviour="the conversion turns oneOf into anyOf: a value that matches several branches, which the server "
        "rejects, is allowed",
        source=AGENTS,
        evidence="code",
        before='{"type": "object", "properties": {"id": {"oneOf": [{"type": "integer"}, {"type": "number"}]}}}',
        fix="anyOf with disjoint branches",
        check=_one_of,
    ),
    HostRule(
        id="openai-strict-unsupported-keyword",
        hosts=("openai-strict",),
        effect="fails-listing",
        title="A keyword outside the strict subset",
        behaviour=API_400 + " (the strict subset has no not, if/then/else, dependent*, patternProperties, "
        "unevaluated*, propertyNames, min/maxProperties, contains, uniqueItems, allOf of several schemas)",
        source=STRUCTURED_DOCS,
        evidence="docs",
        before=(
            '{"type": "object", "properties": {"ids": {"type": "array", "items": {"type": "string"}, '
            '"uniqueItems": true}}}'
        ),
        fix="drop the keyword and say it in the description; the server still checks it",
        check=_unsupported,
    ),
    HostRule(
        id="openai-strict-format",
        hosts=("openai-strict",),
        effect="fails-listing",
        title="A string format outside the strict subset",
        behaviour=API_400
        + ": \"In context=('properties', 'url'), 'uri' is not a valid format\" (supported: "
        + ", ".join(sorted(STRICT_FORMATS))
        + ")",
        source=STRUCTURED_DOCS + "; can1357/oh-my-pi#206; cyanheads/git-mcp-server#47; posit-dev/chatlas#255",
        evidence="docs",
        before='{"type": "object", "properties": {"url": {"type": "string", "format": "uri"}}}',
        fix="a pattern, or the format named in the description",
        check=_formats,
    ),
    HostRule(
        id="openai-strict-limits",
        hosts=("openai-strict",),
        effect="fails-listing",
        title="Beyond the strict size limits",
        behaviour=API_400 + " (at most 10 levels of object nesting and 1000 enum values)",
        source=STRUCTURED_DOCS,
        evidence="docs",
        before="an enum of 1001 values, or objects nested 11 deep",
        fix="a string with a pattern, or a flatter object",
        check=_depth,
    ),
    HostRule(
        id="openai-function-name",
        hosts=BOTH,
        effect="fails-listing",
        title="Tool name outside ^[a-zA-Z0-9_-]{1,64}$",
        behaviour="the API answers 400 Invalid 'tools[i].function.name' and the whole request fails (hosts that "
        "sanitize names first send another name)",
        source=(
            "https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools; apify/apify-mcp-server#36"
        ),
        evidence="docs",
        before='tool name "files.read"',
        fix="letters, digits, _ and - only, at most 64 characters",
        check=_name,
    ),
    HostRule(
        id="openai-array-items",
        hosts=BOTH,
        effect="fails-listing",
        title="An array without items",
        behaviour="the API answers 400 \"Invalid schema for function 'f': In context=('properties', 'p'), array "
        'schema missing items" and every prompt fails',
        source="digitalocean-labs/mcp-digitalocean#265; apify/apify-mcp-server#36; ogx-ai/ogx#3004; "
        "spacelift-io/spacectl#402",
        evidence="issue",
        before='{"type": "object", "properties": {"tags": {"type": "array"}}}',
        fix='"items": {} or the item type',
        check=array_items,
    ),
    HostRule(
        id="openai-root-object",
        hosts=BOTH,
        effect="fails-listing",
        title="The parameters are not an object schema",
        behaviour="the API answers 400 \"Invalid schema for function 'f': schema must be a JSON Schema of 'type: "
        '"object"\'" and the whole request fails',
        source="https://platform.openai.com/docs/guides/function-calling",
        evidence="docs",
        before='{"properties": {"q": {"type": "string"}}}',
        fix='"type": "object" at the root',
        check=_root_object,
    ),
    HostRule(
        id="openai-tool-count",
        hosts=BOTH,
        effect="fails-listing",
        title="More tools than one request carries",
        behaviour=f"a request carries at most {MAX_TOOLS} tools; a host sending the whole listing gets 400",
        source="https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools",
        evidence="docs",
        before=f"a listing of {MAX_TOOLS + 1} tools",
        fix="fewer tools, or toolsets a host can choose",
        check=_tool_count,
    ),
)
