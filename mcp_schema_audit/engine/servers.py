"""The server's own validator: what the server running a version does with arguments a host built from a cached
inputSchema.

An inputSchema is what a server *publishes*; what it *does* with arguments is its framework's: the TypeScript
SDK's ``McpServer`` parses them with the tool's zod schema (``z.object`` drops unknown keys, ``.strict()``
rejects them, ``.passthrough()`` keeps them; ``.default()`` fills a missing field), Python's ``MCPServer`` and
FastMCP with pydantic (unknown keys ignored unless a model forbids them, defaults filled, numeric strings taken
as numbers). zod 3's JSON Schema (zod-to-json-schema) writes a ``z.object`` closed although it strips unknown
keys, so a key removed from it is not rejected but silently dropped. A ``ServerValidator`` describes one such
reading; ``judge`` applies it to a witness; ``infer`` picks one from a listed tool.

Profiles (``PROFILES``): ``published`` (validates with the listed inputSchema: low-level servers, frameworks that
validate with JSON Schema), ``zod-strip``, ``zod-strict``, ``zod-passthrough``, ``pydantic-ignore``,
``pydantic-forbid``. Checked against real servers built with the real frameworks in
``tests/test_server_validators.py``.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import orjson
from jsonschema import FormatChecker
from jsonschema.exceptions import ValidationError
from jsonschema.validators import validator_for

from mcp_schema_audit import fastpaths
from mcp_schema_audit.engine.frameworks import NOT_TAKEN, pydantic_lax, refusals_after, takes
from mcp_schema_audit.engine.server_words import joined, missing_field, rejection_text
from mcp_schema_audit.engine.zod_formats import bare_format_texts, zod3_format_checker, zod4_format_checker
from mcp_schema_audit.fastpaths import ContentCache
from mcp_schema_audit.jsontext import pointer
from mcp_schema_audit.schema.dialects import subschemas
from mcp_schema_audit.schema.hosts import framework_regex_class
from mcp_schema_audit.schema.memo import remembering_class
from mcp_schema_audit.vocabulary import SERVER_VALIDATORS
from mcp_schema_audit.wording import Text

#: What a validator does with a key its object does not declare: drop it, reject the call, keep it (the tool
#: never reads it), or what the published schema says (closed: reject; open: keep).
ExtraKeys = Literal["drop", "reject", "keep", "schema"]
#: Whose words a rejection is shown in.
Wording = Literal["jsonschema", "zod3", "zod4", "pydantic"]


@dataclass(frozen=True)
class ServerValidator:
    """One reading of arguments. ``summary``: what it does, in words (for the report); ``inferred_from``: why
    ``infer`` chose it (``""``: chosen by the user)."""

    name: str
    extras: ExtraKeys
    fills_defaults: bool
    coerces: bool
    wording: Wording
    summary: str
    inferred_from: str = ""


PROFILES: dict[str, ServerValidator] = {
    p.name: p
    for p in (
        ServerValidator(
            "published",
            "schema",
            False,
            False,
            "jsonschema",
            "a server that validates arguments with its listed inputSchema",
        ),
        ServerValidator(
            "zod-strip",
            "drop",
            True,
            False,
            "zod3",
            "a TypeScript McpServer with zod z.object: unknown keys are dropped, defaults filled",
        ),
        ServerValidator(
            "zod-strict",
            "reject",
            True,
            False,
            "zod3",
            "a TypeScript McpServer with zod .strict() objects: unknown keys are rejected, defaults filled",
        ),
        ServerValidator(
            "zod-passthrough",
            "keep",
            True,
            False,
            "zod3",
            "a TypeScript McpServer with zod .passthrough() objects: unknown keys are kept (the tool does not read "
            "them), defaults filled",
        ),
        ServerValidator(
            "pydantic-ignore",
            "drop",
            True,
            True,
            "pydantic",
            "a Python MCPServer/FastMCP (pydantic): unknown keys are ignored, defaults filled, numeric strings taken "
            "as numbers",
        ),
        ServerValidator(
            "pydantic-forbid",
            "reject",
            True,
            True,
            "pydantic",
            "pydantic models with extra='forbid': unknown keys are rejected, defaults filled, numeric strings taken "
            "as numbers",
        ),
    )
}
assert tuple(PROFILES) == SERVER_VALIDATORS[1:], "vocabulary.SERVER_VALIDATORS lists the profiles in this order"


@dataclass
class Outcome:
    """What a validator did with one arguments object: ``rejected`` ((instance pointer, the framework's message)
    pairs, in jsonschema's order),
    ``dropped``/``kept`` (instance pointers of keys it does not declare), ``filled`` (instance pointers of missing
    fields it gave their default), ``coerced`` (instance pointers of values it converted). ``error`` is the whole
    error as the caller sees it (empty when accepted). ``unusable``: the listed inputSchema itself could not be
    used to validate (invalid, uncompilable, endless): a fact about the listing that only a ``published`` server,
    which validates with it, turns into a failed call."""

    rejected: list[tuple[str, str]] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    filled: list[str] = field(default_factory=list)
    coerced: list[str] = field(default_factory=list)
    error: str = ""
    unusable: bool = False


def chosen(name: str, tools: list[dict[str, Any]]) -> ServerValidator:
    """The profile ``name`` (one of ``PROFILES``; raises ``KeyError``) for a server listing ``tools``: a zod
    profile speaks zod 4's words when the listing shows zod 4 (``infer``), else zod 3's."""
    profile = PROFILES[name]
    if profile.wording in ("zod3", "zod4") and infer(tools).wording == "zod4":
        return replace(profile, wording="zod4")
    return profile


def infer(tools: list[dict[str, Any]]) -> ServerValidator:
    """``_infer(tools)``, answered once per listing (by identity: a run asks for the served one more than once)."""
    hit = _INFERRED.get(id(tools))
    if hit is not None and hit[0] is tools and fastpaths.enabled():
        return hit[1]
    found = _infer(tools)
    if len(_INFERRED) >= 8:
        _INFERRED.pop(next(iter(_INFERRED)))
    _INFERRED[id(tools)] = (tools, found)
    return found


#: ``infer``'s answers: id(tools) → (tools, validator), the listing kept alive with its answer.
_INFERRED: dict[int, tuple[list[dict[str, Any]], ServerValidator]] = {}


def _infer(tools: list[dict[str, Any]]) -> ServerValidator:
    """The validator a server's listed tools (their ``inputSchema``s) were most likely written by, with
    ``inferred_from`` saying why (one framework per server, so the whole listing is read, tools without
    arguments aside; the first match wins):

    - pydantic models (root ``title``s ending in ``Arguments``, or every field titled as pydantic titles it:
      Python MCPServer, FastMCP) → ``pydantic-ignore``, reading each object as its schema says (pydantic writes
      ``extra='forbid'`` as ``additionalProperties: false``);
    - zod 4's converter in its default (output) mode (draft 2020-12, closed objects, integers bounded at
      ±(2^53−1): hand-wired servers calling ``z.toJSONSchema``) → ``zod-strip`` with zod 4's words: the closed
      objects drop unknown keys at run time (``.strict()`` ones, written alike, reject them: choose
      ``zod-strict`` then), and the defaulted fields it lists as required are filled;
    - zod 4 through the TypeScript SDK (bounded integers or ``additionalProperties: {}``, or draft-07 roots
      without titles and open: the SDK lists ``z.object`` open) → ``zod-strip`` with zod 4's words, reading
      each object as its schema says (``.strict()`` is listed closed, ``.passthrough()`` as ``{}``);
    - zod 3 (draft-07 roots without titles, all closed: zod-to-json-schema) → ``zod-strip``: its closed objects
      drop unknown keys (``.strict()`` ones, which zod 3 writes alike, reject them: choose ``zod-strict``);
      all ``additionalProperties: true`` → ``zod-passthrough``;
    - anything else → ``published``."""
    # a tool without arguments says nothing of its framework (every SDK lists it alike)
    schemas: list[dict[str, Any]] = [
        t["inputSchema"]
        for t in tools
        if isinstance(t, dict) and isinstance(t.get("inputSchema"), dict) and t["inputSchema"].get("properties")
    ]
    if not schemas:
        return replace(PROFILES["published"], inferred_from="no tool takes arguments")
    pydantic = [s for s in schemas if _pydantic(s)]
    if len(pydantic) * 2 > len(schemas):
        return replace(
            PROFILES["pydantic-ignore"],
            extras="schema",
            summary="a Python MCPServer/FastMCP (pydantic): unknown keys are ignored unless a model forbids them, "
            "defaults filled, numeric strings taken as numbers",
            inferred_from="pydantic's titles in its inputSchemas (a model per tool, a title per field)",
        )
    titled, zod4 = _titles_and_zod4(schemas)
    untitled = not titled
    closed = all(s.get("additionalProperties") is False for s in schemas)
    if zod4 and closed and all(_dialect(s) == _DRAFT_2020 for s in schemas):
        return replace(
            PROFILES["zod-strip"],
            wording="zod4",
            summary="a server with zod 4 objects listed by z.toJSONSchema (output mode): unknown keys are dropped "
            "although the objects are listed closed, defaults filled",
            inferred_from="zod 4's output-mode JSON Schema (draft 2020-12, closed objects, integers bounded at "
            "±(2^53−1)); objects made .strict() reject unknown keys: set --server-validator zod-strict",
        )
    draft7 = untitled and all(_dialect(s) == _DRAFT_7 for s in schemas)
    if zod4 or (draft7 and not any(s.get("additionalProperties") in (False, True) for s in schemas)):
        return replace(
            PROFILES["zod-strip"],
            extras="schema",
            wording="zod4",
            summary="a TypeScript McpServer with zod 4: z.object drops unknown keys (listed open), .strict() "
            "rejects them (listed closed), defaults filled",
            inferred_from="zod 4's JSON Schema as the TypeScript SDK lists it (integers bounded at ±(2^53−1), "
            "additionalProperties {}, or open draft-07 objects without titles)",
        )
    if draft7 and closed:
        return replace(
            PROFILES["zod-strip"],
            inferred_from="zod-to-json-schema's closed draft-07 objects (zod 3: z.object drops unknown keys; "
            "objects made .strict() reject them: set --server-validator zod-strict)",
        )
    if draft7 and all(s.get("additionalProperties") is True for s in schemas):
        return replace(
            PROFILES["zod-passthrough"],
            inferred_from="zod-to-json-schema's additionalProperties: true (zod 3 .passthrough())",
        )
    return replace(
        PROFILES["published"],
        inferred_from="no framework's fingerprint in its inputSchemas; --server-validator names the framework",
    )


_DRAFT_7 = "http://json-schema.org/draft-07/schema"
_DRAFT_2020 = "https://json-schema.org/draft/2020-12/schema"


def _dialect(schema: dict[str, Any]) -> str:
    return str(schema.get("$schema", "")).rstrip("#")


def _pydantic(schema: dict[str, Any]) -> bool:
    """A pydantic model's schema: titled ``<tool>Arguments`` (MCPServer), or every field titled as pydantic
    titles it (``data_model`` → ``Data Model``; FastMCP drops the model's own title)."""
    title, props = schema.get("title"), schema.get("properties")
    if not isinstance(props, dict) or not props:
        return False
    if isinstance(title, str) and title.endswith("Arguments"):
        return all(isinstance(s, dict) and ("title" in s or "$ref" in s) for s in props.values())
    return all(isinstance(s, dict) and s.get("title") == _pydantic_title(name) for name, s in props.items())


def _pydantic_title(name: str) -> str:
    return name.title().replace("_", " ")


def _nodes(schema: Any) -> Iterator[dict[str, Any]]:
    return (node for _, node in subschemas(schema, max_nodes=10_000) if isinstance(node, dict))


def _titles_and_zod4(schemas: list[dict[str, Any]]) -> tuple[bool, bool]:
    """``(any schema has a title somewhere, any has zod 4's marks: _zod4)``, in one pass over the nodes that stops
    once both are known."""
    if not _may_mark(schemas):
        return False, False
    titled = zod4 = False
    for schema in schemas:
        for node in _nodes(schema):
            titled = titled or isinstance(node.get("title"), str)
            zod4 = zod4 or _zod4_node(node)
            if titled and zod4:
                return True, True
    return titled, zod4


#: Text every mark ``_titles_and_zod4`` looks for contains, as ``orjson`` writes it (``9007199254740991.0`` too).
_MARKS = (b'"title"', b'"additionalProperties":{}', b"9007199254740991")


def _may_mark(schemas: list[dict[str, Any]]) -> bool:
    """Can ``schemas`` hold a title or zod 4's marks at all? False only when their JSON text holds none of
    ``_MARKS`` (most listings without titles: then nothing is walked); True when it cannot be written."""
    try:
        text = orjson.dumps(schemas)
    except (orjson.JSONEncodeError, TypeError):
        return True
    return any(mark in text for mark in _MARKS)


def _zod4_node(node: dict[str, Any]) -> bool:
    return node.get("additionalProperties") == {} or (
        node.get("type") == "integer" and node.get("maximum") == 9007199254740991
    )


def framework_schema(validator: ServerValidator, schema: Any) -> Any:
    """``schema`` as ``validator``'s framework enforces it where the listing says less; ``schema`` itself when
    nothing differs, else a copy. pydantic lists a dict with constrained keys (``dict[Annotated[str,
    Field(pattern=P)], V]``) as ``{"type": "object", "patternProperties": {P: V}}`` and rejects a key ``P`` does
    not match (``d.zz.[key]: String should match pattern 'P'``), which JSON Schema lets through: such a node
    (one pattern, no ``properties`` or ``additionalProperties``, a ``propertyNames`` without a pattern: the key's
    other constraints, ``min_length``) is read with ``propertyNames: {"pattern": P}`` too. Checked on a real
    ``MCPServer`` (``tests/test_server_validators.py``). Not in any listing, so not read: ``strip_whitespace`` and
    ``to_lower`` on the key (or a field), which pydantic applies before the pattern."""
    if validator.wording == "zod4":
        return _zod4_schema(schema)
    if validator.wording != "pydantic" or not any(_keyed_dict(node) for node in _nodes(schema)):
        return schema
    view = copy.deepcopy(schema)
    for node in [n for n in _nodes(view) if _keyed_dict(n)]:
        names: dict[str, Any] = node.get("propertyNames") or {}
        node["propertyNames"] = {**names, "pattern": next(iter(node["patternProperties"]))}
    return view


#: zod 4's formats whose listed pattern its own check does not use: ``z.ipv6()`` parses with ``new URL("http://[…]")``
#: and ``z.cidrv6()`` splits the prefix off and does the same (zod 4.6 ``core/checks``: the cidrv6 pattern "not used
#: for validation"), both taking IPv4-embedded forms (``::ffff:1.2.3.4``) the pattern refuses.
_ZOD4_UNCHECKED_PATTERNS = frozenset({"ipv6", "cidrv6"})


def _zod4_schema(schema: Any) -> Any:
    """``schema`` without the ``pattern`` zod 4 lists beside a format of ``_ZOD4_UNCHECKED_PATTERNS`` (its server
    never runs it); ``schema`` itself when there is none."""
    if not any(_unread_pattern(n) for n in _nodes(schema)):
        return schema
    view = copy.deepcopy(schema)
    for node in [n for n in _nodes(view) if _unread_pattern(n)]:
        del node["pattern"]
    return view


def _unread_pattern(node: dict[str, Any]) -> bool:
    return node.get("format") in _ZOD4_UNCHECKED_PATTERNS and isinstance(node.get("pattern"), str)


def as_listed(f: Any, old: Any, new: Any) -> Any:
    """Finding ``f`` of inputSchemas read by ``framework_schema`` with its pointers on the schemas as listed
    (``old``, ``new``): a place inside a ``propertyNames`` only that reading has is the ``patternProperties``
    entry it was read from. ``f`` itself when nothing moves."""
    moved = {
        k: _listed(getattr(f, k), old if k == "old_pointer" else new) for k in ("pointer", "old_pointer", "new_pointer")
    }
    if all(moved[k] == getattr(f, k) for k in moved):
        return f
    pattern = repr(str(moved["pointer"]).rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~"))
    if not (isinstance(f.witness, dict) and "instance" in f.witness):
        return replace(
            f,
            **moved,
            detail=Text.of(
                "the keys pydantic holds this dict to (its patternProperties regex {pattern}) may reject keys the "
                "{cached} schema allows: none was found, and none could be ruled out",
                pattern=pattern,
            ),
        )
    key = str(f.witness.get("instance_pointer", "")).rsplit("/", 1)[-1]
    detail = Text.of(
        "property name {key}, which the {cached} schema allows, does not match the {served} schema's "
        "patternProperties regex {pattern}, and pydantic holds every key of such a dict to it",
        key=repr(key.replace("~1", "/").replace("~0", "~")),
        pattern=pattern,
    )
    return replace(f, **moved, detail=detail)


def _listed(at: str | None, schema: Any) -> str | None:
    from mcp_schema_audit.jsontext import pointer_tokens

    tokens = pointer_tokens(at) if at else []
    if "propertyNames" not in tokens:
        return at
    i = tokens.index("propertyNames")
    node = schema
    for token in tokens[:i]:
        node = node.get(str(token)) if isinstance(node, dict) else None
    listed = node.get("propertyNames") if isinstance(node, dict) else None
    if not isinstance(node, dict) or not isinstance(node.get("patternProperties"), dict):
        return at
    if isinstance(listed, dict) and ("pattern" in listed or tokens[i + 1 :] not in ([], ["pattern"])):
        return at  # the listing's own propertyNames keywords
    return pointer([*tokens[:i], "patternProperties", *list(node["patternProperties"])[:1]])


def _keyed_dict(node: dict[str, Any]) -> bool:
    patterns = node.get("patternProperties")
    names = node.get("propertyNames")
    return (
        isinstance(patterns, dict)
        and len(patterns) == 1
        and not any(k in node for k in ("properties", "additionalProperties"))
        and (names is None or (isinstance(names, dict) and "pattern" not in names))  # the key's other constraints
    )


def server_view(validator: ServerValidator, schema: Any) -> Any:
    """A copy of ``schema`` as ``validator`` reads it: objects opened where it drops or keeps unknown keys (closed
    everywhere where it rejects them), fields with a ``default`` no longer required where it fills defaults.
    Only subschemas are touched (``dialects.subschemas``), never a ``const``, ``enum`` or ``default`` value; what
    the framework enforces beyond the listing is read in (``framework_schema``)."""
    view = copy.deepcopy(framework_schema(validator, schema))
    for node in _nodes(view):
        if validator.extras in ("drop", "keep"):
            for kw in ("additionalProperties", "unevaluatedProperties"):
                if node.get(kw) is False:
                    del node[kw]
        elif validator.extras == "reject" and ("properties" in node or node.get("type") == "object"):
            node.setdefault("additionalProperties", False)
        props, required = node.get("properties"), node.get("required")
        if validator.fills_defaults and isinstance(props, dict) and isinstance(required, list):
            node["required"] = [r for r in required if not (isinstance(props.get(r), dict) and "default" in props[r])]
    return view


def judge(validator: ServerValidator, schema: Any, arguments: Any) -> Outcome:
    """What ``validator`` does with ``arguments`` for a tool whose inputSchema (as the server lists it) is
    ``schema``: its rejections in its framework's words, the keys it drops or keeps, the defaults it fills, the
    values it coerces. Never raises for a bad schema: a schema no validator can build is a rejection with
    jsonschema's reason. Answered once per validator, schema text and arguments text (``JUDGED``)."""
    try:
        key: Any = (validator, orjson.dumps(schema), orjson.dumps(arguments))
    except (orjson.JSONEncodeError, TypeError):
        return _judge(validator, schema, arguments)
    return copy.deepcopy(JUDGED.get(key, lambda: _judge(validator, schema, arguments)))


#: ``judge``'s outcomes (one input shared by a family of tools is judged once per witness).
JUDGED: ContentCache[Outcome] = ContentCache(2048)


def _judge(validator: ServerValidator, schema: Any, arguments: Any) -> Outcome:
    outcome = Outcome()
    try:
        published = list(_validator(schema, validator).iter_errors(arguments))
        view_errors = list(_validator(server_view(validator, schema), validator).iter_errors(arguments))
    except Exception as exc:  # an invalid, uncompilable or endless schema: the server cannot validate either
        why = "maximum recursion depth exceeded" if isinstance(exc, RecursionError) else " ".join(str(exc).split())
        outcome.error = f"the inputSchema cannot be used: {why[:200]}"
        outcome.rejected.append(("", outcome.error))
        outcome.unusable = True
        return outcome
    for error in view_errors:
        if takes(validator.wording, error):  # the framework's own arithmetic and parsers, a set it de-duplicates
            continue
        if validator.coerces and (value := pydantic_lax(error)) is not NOT_TAKEN:
            after = refusals_after(error, value)
            if not after:
                outcome.coerced.append(pointer(list(error.absolute_path)))
                continue
            error = after[0]  # taken as the type, refused by another keyword of the field ("3" for ge=5)
        for where in _where(validator, error):
            rejection = (where, rejection_text(validator.wording, error))
            if rejection not in outcome.rejected:
                outcome.rejected.append(rejection)
    _extra_keys(validator, published, outcome)
    if validator.fills_defaults:
        outcome.filled = _filled(published)
    if outcome.rejected:
        outcome.error = joined(validator.wording, outcome.rejected)
    return outcome


def _where(validator: ServerValidator, error: ValidationError) -> list[str]:
    """Instance pointers the framework reports ``error`` at: a ``required`` error at the missing field (zod,
    pydantic; jsonschema reports the object), an unknown key at the key for pydantic (one error per key; zod reports the
    object), anything else where jsonschema does."""
    base = list(error.absolute_path)
    if validator.wording == "pydantic" and "propertyNames" in error.absolute_schema_path:
        return [pointer([*base, str(error.instance), "[key]"])]  # pydantic's loc of a key: d.zz.[key]
    missing = missing_field(error)
    if missing is not None and validator.wording != "jsonschema":
        return [pointer([*base, missing])]
    if (
        validator.wording == "pydantic"
        and error.validator in ("additionalProperties", "unevaluatedProperties")
        and isinstance(error.instance, dict)
    ):
        keys = [k for k in error.instance if k not in _declared(error)]
        return [pointer([*base, k]) for k in keys] or [pointer(base)]
    return [pointer(base)]


def _declared(error: ValidationError) -> dict[str, Any]:
    props = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
    return props if isinstance(props, dict) else {}


def _validator(schema: Any, validator: ServerValidator) -> Any:
    """A jsonschema validator of ``schema`` as ``validator``'s framework reads it: a zod server's patterns are
    JavaScript regexes, a pydantic server's pydantic-core's (``schema.hosts.framework_regex_class``), the
    jsonschema server's Python's."""
    cls = remembering_class(validator_for(schema if isinstance(schema, dict) else {}), schema)
    reading = regex_reading(validator)
    if reading is not None:
        cls = framework_regex_class(cls, reading)
    checker = framework_format_checker(validator.wording)
    return cls(schema, format_checker=checker)


def framework_format_checker(wording: str) -> Any:
    """How a server of ``wording`` asserts ``format``: zod 3 with its own string checks
    (``zod_formats.zod3_format_checker``), zod 4 only where it lists a format without the pattern it checks
    (``zod_formats.zod4_format_checker``: ``z.url()``'s ``new URL()``, ``z.jwt()``; ``z.email()`` is ``{"format":
    "email", "pattern": …}``, read by its pattern), pydantic as jsonschema's ``FormatChecker`` (its own parsers are
    ``frameworks.takes``), jsonschema's server not at all (python-sdk validates without a format checker)."""
    if wording == "zod3":
        return zod3_format_checker()
    if wording == "zod4":
        return zod4_format_checker()
    return FormatChecker() if wording == "pydantic" else None


def regex_reading(validator: ServerValidator) -> str | None:
    """How ``validator``'s framework reads the keywords it reads unlike jsonschema
    (``schema.hosts.framework_regex_class``): ``"zod3"`` (a JavaScript ``RegExp``; string lengths in UTF-16 code
    units), ``"zod4"`` (a JavaScript ``RegExp``), ``"pydantic"`` (pydantic-core's Rust regex), or None (the
    published schema's: Python ``re``, as python-sdk)."""
    if validator.wording in ("zod3", "zod4", "pydantic"):
        return validator.wording
    return None


def framework_reads(reading: str | None, text: str) -> bool:
    """Does the framework ``reading`` read some keyword of the schema whose JSON text is ``text`` unlike the hosts
    (a ``pattern``; for zod 3 a string length too; a ``format`` it checks with its own code:
    ``zod_formats.bare_format_texts``)?"""
    if reading is None:
        return False
    lengths = ('"minLength"', '"maxLength"') if reading == "zod3" else ()
    return '"pattern' in text or any(k in text for k in (*lengths, *bare_format_texts(reading)))


def read_by_framework(base: Any, node: Any, reading: str) -> Any:
    """A validator of ``node`` as ``base`` (a jsonschema validator of its document: its ``$ref``s, formats and
    keywords) reads it, with every ``pattern``/``patternProperties`` searched as the framework ``reading``
    (``regex_reading``) searches it (``schema.hosts.framework_regex_class``)."""
    kind: Any = type(base)
    cls: Any = framework_regex_class(kind, reading)
    checker = framework_format_checker(reading) if reading in ("zod3", "zod4") else base.format_checker
    return cls(node, format_checker=checker, registry=base._registry, _resolver=base._resolver)


def _extra_keys(validator: ServerValidator, published: list[ValidationError], outcome: Outcome) -> None:
    """The keys the published schema rejects as undeclared that ``validator`` drops or keeps instead."""
    if validator.extras not in ("drop", "keep"):
        return
    for error in published:
        if error.validator not in ("additionalProperties", "unevaluatedProperties") or not isinstance(
            error.instance, dict
        ):
            continue
        declared = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
        patterns = error.schema.get("patternProperties", {}) if isinstance(error.schema, dict) else {}
        base = list(error.absolute_path)
        for key in error.instance:
            if key in declared or any(_search(p, key) for p in patterns):
                continue
            (outcome.dropped if validator.extras == "drop" else outcome.kept).append(pointer([*base, key]))


def _search(pattern: Any, key: str) -> bool:
    from mcp_schema_audit.schema import RegexBudgetError, safe_search

    try:
        return safe_search(str(pattern), key) is not None
    except (re.error, RegexBudgetError, RecursionError, OverflowError, MemoryError):
        return False


def _filled(published: list[ValidationError]) -> list[str]:
    """Instance pointers of required fields missing from the arguments that have a ``default``."""
    out = []
    for error in published:
        if error.validator != "required" or not isinstance(error.schema, dict):
            continue
        props = error.schema.get("properties", {})
        wanted = getattr(error, "validator_value", None)
        missing = (
            set(wanted) - set(error.instance)
            if isinstance(error.instance, dict) and isinstance(wanted, list)
            else set()
        )
        for name in sorted(missing):
            if isinstance(props.get(name), dict) and "default" in props[name]:
                out.append(pointer([*error.absolute_path, name]))
    return out
