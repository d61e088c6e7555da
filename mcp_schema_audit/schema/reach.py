"""Validating one instance against a document that cannot be validated as a whole, when the instance never
reaches the part that makes it so.

A document with an in-place cycle (``{"properties": {"q": {"$ref": "#/properties/q"}}}``: validation of a value
with ``q`` never ends) or an in-place cost over ``INPLACE_BUDGET`` is refused by ``SchemaDoc.check_cost`` for every
instance. So 26 bytes added to a release (one such property) left every other change of the tool unconfirmed:
its breaks became warnings and the gate passed. But a validator evaluates a subschema only where the instance
takes it: ``properties/q`` only at a ``q`` the value has. ``unreached_twin`` gives, for an instance whose
validation cannot reach any refused node, the document with those nodes replaced by ``false``: it validates that
instance exactly as the real document would (a node never evaluated cannot change the outcome, whatever it holds).

The reach is over-approximated (every branch of every applicator evaluated, every key and item taken by every
keyword that moves into the instance except ``properties``, which takes only its own key), so "not reached" is
sound; past ``REACH_BUDGET`` (schema node, instance node) pairs, or with a ``$dynamicRef`` or a ``$ref`` that does
not resolve on the way, it answers "reached" and the refusal stands.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import orjson

from mcp_schema_audit.fastpaths import ContentCache
from mcp_schema_audit.jsontext import canonical, pointer
from mcp_schema_audit.schema.ajv import AJV_KIND, AJV_RULES
from mcp_schema_audit.schema.compile import INPLACE_BUDGET, SchemaCostError, inplace_costs
from mcp_schema_audit.schema.dialects import HOST_PROFILES, SUBSCHEMA_KEYWORDS, RefError

if TYPE_CHECKING:
    from mcp_schema_audit.schema.doc import SchemaDoc

#: (schema node, instance node) pairs one reach question may visit before it answers "reached".
REACH_BUDGET = 100_000
_IN_PLACE = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "dependencies")
_MOVING = tuple(k for k in SUBSCHEMA_KEYWORDS if k not in _IN_PLACE and k not in ("$defs", "definitions"))


class _Reached(Exception):
    pass


def unreached_twin(doc: SchemaDoc, instance: Any) -> SchemaDoc | None:
    """The document to validate ``instance`` with instead of ``doc`` (module docstring): ``None`` when ``doc``
    validates as a whole, or when ``instance`` may reach a node that makes it refused (then ``doc`` raises as it
    did)."""
    found = unreached_at(doc, doc.root, instance)
    return found[0] if found is not None else None


def unreached_at(doc: SchemaDoc, node: Any, value: Any) -> tuple[SchemaDoc, Any] | None:
    """As ``unreached_twin`` for ``value`` validated at ``node`` (a subschema of ``doc``, as the walk validates a
    property's value): ``(twin, node's copy in it)``, or ``None``. Per document, the refused nodes and the twin are
    computed once."""
    try:
        doc.check_cost()
        return None
    except SchemaCostError:
        pass
    if doc._refused is None:
        refused = {key for key, cost in inplace_costs(doc).items() if cost > INPLACE_BUDGET}
        doc._refused = (refused, *_twin(doc, refused)) if refused else (refused, None, {})
    refused, twin, copies = doc._refused
    if twin is None or (isinstance(node, dict) and id(node) not in copies and _refers(node)):
        return None  # a node the walk made (normalized): only one that refers to nothing validates on its own
    if _reaches(doc, node, value, refused):
        return None
    return twin, copies.get(id(node), node)


def _subschemas(kw: str, value: Any) -> list[Any]:
    """The subschemas of keyword ``kw``'s ``value`` by its shape (``SUBSCHEMA_KEYWORDS``): a map's values, a list's
    items, or the value itself (``not``, ``items`` as one schema)."""
    shape = SUBSCHEMA_KEYWORDS.get(kw)
    if shape == "map":
        return list(value.values()) if isinstance(value, dict) else []
    if shape == "list" or (shape == "one_or_list" and isinstance(value, list)):
        return value if isinstance(value, list) else []
    return [] if value is None else [value]


def _refers(node: Any) -> bool:
    text = canonical(node)
    return '"$ref"' in text or '"$dynamicRef"' in text or '"$recursiveRef"' in text


def _twin(doc: SchemaDoc, refused: set[int]) -> tuple[SchemaDoc, dict[int, Any]]:
    """``doc`` with every node of ``refused`` replaced by ``false``, and each original object's copy by its id."""
    from mcp_schema_audit.schema.doc import SchemaDoc

    copies: dict[int, Any] = {}

    def copy(node: Any) -> Any:
        if id(node) in refused:
            return False
        if isinstance(node, dict):
            out = copies[id(node)] = {k: copy(v) for k, v in node.items()}
            return out
        if isinstance(node, list):
            return [copy(v) for v in node]
        return node

    return SchemaDoc(copy(doc.root)), copies


def _reaches(doc: SchemaDoc, node: Any, instance: Any, refused: set[int]) -> bool:
    seen: set[tuple[int, int]] = set()
    keep: list[Any] = []  # the key strings made below stay alive while their ids are in ``seen``

    def walk(schema: Any, value: Any) -> None:
        if not isinstance(schema, dict):
            return
        if id(schema) in refused:
            raise _Reached
        key = (id(schema), id(value))
        if key in seen:
            return
        if len(seen) >= REACH_BUDGET or "$dynamicRef" in schema or "$recursiveRef" in schema:
            raise _Reached
        seen.add(key)
        ref = schema.get("$ref")
        if isinstance(ref, str):
            try:
                walk(doc.lookup(ref)[0], value)
            except (RefError, ValueError, TypeError, LookupError):
                raise _Reached from None
        for kw in _IN_PLACE:
            for child in _subschemas(kw, schema.get(kw)):
                walk(child, value)
        props = schema.get("properties")
        if isinstance(props, dict) and isinstance(value, dict):
            for name, child in props.items():
                if name in value:
                    walk(child, value[name])
        if not any(kw in schema for kw in _MOVING if kw != "properties"):
            return
        children = list(value.values()) if isinstance(value, dict) else value if isinstance(value, list) else []
        names = [str(k) for k in value] if isinstance(value, dict) else []
        keep.extend(names)
        for kw in _MOVING:
            if kw == "properties" or kw not in schema:
                continue
            for child in _subschemas(kw, schema[kw]):
                for item in names if kw == "propertyNames" else children:
                    walk(child, item)

    try:
        walk(node, instance)
    except (_Reached, RecursionError):
        return True
    return False


#: The keywords that validate (the Ajv classes' rules, which name every JSON Schema assertion and applicator the
#: SDK validators evaluate): under a ``not``, a node holding any but the one a path takes may fail first, and the
#: failure then turns into a pass (``every_value_reaches``).
_VALIDATING = (AJV_RULES["2020-12"] | AJV_RULES["draft-07"]) - {"$comment", "id"}
_REFS_OVERRIDE = ("draft-07", "draft-06", "draft-04")


def every_value_reaches(doc: SchemaDoc, profile: str) -> tuple[list[Any], str] | None:
    """``(pointer tokens, why)`` when host ``profile``'s validator cannot finish validating any value against
    ``doc``: the validation of every instance, through keywords it evaluates whatever the value (``$ref``,
    ``allOf``, ``not``, ``if``, ``oneOf``, below), comes back to a node it is already inside
    (``{"allOf": [{"$ref": "#"}]}``, ``{"not": {"not": {"$ref": "#"}}}``), or, in a 2020-12 schema, to a
    ``$dynamicRef`` that resolves to nothing. Else ``None``.

    Why every value: a keyword evaluated beside the path may reject the value first, and then the result is
    refused anyway. Inside a subschema whose rejection does not reject the result (``not``, an ``if``, a branch of
    ``oneOf``, which both evaluate in full, and of ``anyOf`` in Ajv's 2019-09/2020-12 classes, which evaluate
    every branch while they track unevaluated properties) the path's nodes must hold nothing else that validates
    (and an ``allOf`` there one member). python-sdk's ``anyOf`` and Ajv's draft-07 one stop at the first valid
    branch, and keywords that move into the instance depend on the value: not followed (``unreached_twin`` answers
    for those values).

    What the real clients do (tests/test_real_clients.py): python-sdk's ``jsonschema`` raises ``RecursionError``
    (``NoSuchAnchor`` for the ``$dynamicRef``); TS SDK v1 and v2's Ajv throws "Maximum call stack size exceeded"
    (v1 reads ``$dynamicRef`` as an unknown keyword). In draft-07 and older, python-sdk's ``jsonschema`` ignores
    the keywords beside a ``$ref``; Ajv applies them in every draft (``hosts.ajv_ref_siblings``).

    A property the node requires is followed too (a value without it fails ``required``; one with it has that
    property's schema evaluated, at a new place), and so is a required key's ``dependentSchemas`` entry (2019-09
    and 2020-12 readers only: Ajv's draft-07 class ignores it): ``{"properties": {"k": {"allOf": [{"$ref":
    "#/properties/k"}]}}, "required": ["k"]}`` recurses on every result that has ``k``. A required key has each
    ``patternProperties`` entry whose regex takes it evaluated (as the host reads the regex), and
    ``additionalProperties`` when neither a property nor a pattern takes it; and
    ``propertyNames`` is evaluated on the key itself; ``then`` is followed beside an ``if`` every value passes
    (``{}``), ``else`` beside one every value fails (``false``). A required key is taken so by the node holding
    ``required`` and by every schema evaluated in full at the same place: its ``allOf`` members, ``$ref``
    targets, such a ``then``, and for python-sdk the first ``anyOf`` branch and every ``oneOf`` branch
    (``{"required": ["a"], "allOf": [{"properties": {"a": L}}]}`` with ``L`` a cycle fails every call)."""
    if profile == "python-sdk":
        refs_override, dynamic, every_branch = doc.dialect in _REFS_OVERRIDE, doc.dialect == "2020-12", False
    else:
        kind = AJV_KIND[profile](doc.dialect)
        if kind is None:
            return None  # a dialect the host refuses: a compile problem of its own
        # Ajv's classes with unevaluated* evaluate every anyOf branch (code.ts validateUnion: no short-circuit)
        refs_override, dynamic, every_branch = False, kind == "2020-12", kind != "draft-07"
    # a required property's schema and a required key's dependentSchemas entry are evaluated for every value
    # that passes ``required`` (and one that fails it is refused anyway): followed outside any negation
    dependents = (doc.dialect in ("2019-09", "2020-12")) if profile == "python-sdk" else every_branch
    entered: set[int] = set()  # nodes entered by moving into a required property (a recursive data type ends)
    budget = [REACH_BUDGET]

    def visit(node: Any, tokens: list[Any], negated: bool, inside: set[int]) -> tuple[list[Any], str] | None:
        if not isinstance(node, dict) or budget[0] <= 0:
            return None
        budget[0] -= 1
        keys = ["$ref"] if refs_override and "$ref" in node else list(node)
        if negated and len(_VALIDATING.intersection(keys)) > 1:
            return None
        inside.add(id(node))
        try:
            for kw in keys:
                value = node.get(kw)
                if kw == "$ref" and isinstance(value, str):
                    try:
                        target = doc.lookup(value)[0]
                    except (RefError, ValueError, TypeError, LookupError):
                        continue  # an unresolvable $ref is a compile problem of its own
                    if id(target) in inside:
                        return [*tokens, "$ref"], f"$ref {value!r} applies a schema at the place it is validating"
                    found = visit(target, [*tokens, "$ref"], negated, inside)
                elif kw == "$dynamicRef" and dynamic and isinstance(value, str):
                    try:
                        doc.lookup(value)
                        continue
                    except (RefError, ValueError, TypeError, LookupError):
                        return [*tokens, "$dynamicRef"], f"$dynamicRef {value!r} resolves to nothing"
                elif kw == "allOf" and isinstance(value, list) and (not negated or len(value) == 1):
                    found = _first(visit(m, [*tokens, kw, i], negated, inside) for i, m in enumerate(value))
                elif kw in ("then", "else") and "if" in node and node["if"] in _ALWAYS[kw]:
                    found = visit(value, [*tokens, kw], negated, inside)  # an if every value passes (or fails)
                elif kw == "not" or (kw == "if" and (profile == "python-sdk" or "then" in node or "else" in node)):
                    found = visit(value, [*tokens, kw], True, inside)  # Ajv skips an if without then/else
                elif (kw == "oneOf" or (kw == "anyOf" and (every_branch or collects(node)))) and isinstance(
                    value, list
                ):
                    found = _first(visit(m, [*tokens, kw, i], True, inside) for i, m in enumerate(value))
                elif kw == "required" and not negated and isinstance(value, list):
                    found = _first(required(node, name, tokens, inside) for name in value if isinstance(name, str))
                else:
                    continue
                if found is not None:
                    return found
            return None
        finally:
            inside.discard(id(node))

    def collects(node: dict[str, Any]) -> bool:
        # python-sdk's unevaluatedProperties (unevaluatedItems) collects the evaluated keys (items) of every anyOf
        # branch the value passes, so it validates each branch (jsonschema's find_evaluated_*): on every object
        # (array) of a node that takes nothing else
        return profile == "python-sdk" and any(
            kw in node and node.get("type") == kind
            for kw, kind in (("unevaluatedProperties", "object"), ("unevaluatedItems", "array"))
        )

    def required(node: dict[str, Any], name: str, tokens: list[Any], inside: set[int]) -> Any:
        return _first(taking(place, name, at, inside) for place, at in places(node, tokens, set()))

    def places(node: Any, tokens: list[Any], seen: set[int]) -> Iterator[tuple[dict[str, Any], list[Any]]]:
        # ``node`` and the schemas evaluated in full at its place with it (an allOf member, a $ref target, a then
        # beside an if every value passes; python-sdk's first anyOf branch and every oneOf branch, which jsonschema
        # descends into without stopping at an error): a value that fails one of them fails ``node`` anyway
        if not isinstance(node, dict) or id(node) in seen or len(seen) >= 256:
            return
        seen.add(id(node))
        hidden = refs_override and "$ref" in node  # draft-07's python-sdk reads the $ref alone
        if not hidden:
            yield node, tokens
        for kw in ["$ref"] if hidden else list(node):
            value = node.get(kw)
            if kw == "$ref" and isinstance(value, str):
                try:
                    yield from places(doc.lookup(value)[0], [*tokens, "$ref"], seen)
                except (RefError, ValueError, TypeError, LookupError):
                    continue
            elif kw == "allOf" and isinstance(value, list):
                for i, m in enumerate(value):
                    yield from places(m, [*tokens, kw, i], seen)
            elif kw in ("then", "else") and "if" in node and node["if"] in _ALWAYS[kw]:
                yield from places(value, [*tokens, kw], seen)
            elif profile == "python-sdk" and kw in ("anyOf", "oneOf") and isinstance(value, list):
                for i, m in enumerate(value[:1] if kw == "anyOf" else value):
                    yield from places(m, [*tokens, kw, i], seen)

    def taking(node: dict[str, Any], name: str, tokens: list[Any], inside: set[int]) -> Any:
        # what ``node`` evaluates for a value holding the required key ``name``
        props, deps = node.get("properties"), node.get("dependentSchemas")
        if dependents and isinstance(deps, dict) and name in deps:
            found = visit(deps[name], [*tokens, "dependentSchemas", name], False, inside)
            if found is not None:
                return found
        names = node.get("propertyNames")
        if isinstance(names, dict) and id(names) not in entered:  # the key itself is validated, at a new place
            entered.add(id(names))
            found = visit(names, [*tokens, "propertyNames"], False, set())
            if found is not None:
                return found
        props = props if isinstance(props, dict) else {}
        declared = name in props
        subs = [(props[name], ["properties", name])] if declared else []
        raw = node.get("patternProperties")
        patterns: dict[str, Any] = raw if isinstance(raw, dict) else {}
        taken = [(pat, _key_matches(profile, pat, name)) for pat in patterns]
        subs += [(patterns[pat], ["patternProperties", pat]) for pat, hit in taken if hit]
        if not declared and all(hit is False for _, hit in taken):  # no property nor pattern takes the key
            subs.append((node.get("additionalProperties"), ["additionalProperties"]))
        for sub, steps in subs:
            if isinstance(sub, dict) and id(sub) not in entered:
                entered.add(id(sub))
                found = visit(sub, [*tokens, *steps], False, set())  # a new place: nothing is inside yet
                if found is not None:
                    return found
        return None

    try:
        return visit(doc.root, [], False, set())
    except RecursionError:
        return None


def _key_matches(profile: str, pattern: Any, key: str) -> bool | None:
    """Does ``profile``'s validator take ``key`` into the ``patternProperties`` entry ``pattern`` (python-sdk:
    Python ``re``; the TS profiles: ECMAScript with the ``u`` flag)? None when that cannot be told (a pattern the
    host refuses, or too costly to search)."""
    from mcp_schema_audit.schema.regex import EcmaRegexError, RegexBudgetError, ecma_search, python_found

    try:
        return (python_found if profile == "python-sdk" else ecma_search)(str(pattern), key)
    except (re.error, EcmaRegexError, RegexBudgetError, RecursionError, OverflowError, MemoryError, ValueError):
        return None


#: The ``if`` values every value passes (``then`` is always evaluated) or fails (``else`` is).
_ALWAYS: dict[str, tuple[Any, ...]] = {"then": ({}, True), "else": (False, {"not": {}})}


def _first(found: Any) -> Any:
    """The first item of ``found`` that is not ``None`` (lazily: later ones are not computed), else ``None``."""
    return next((f for f in found if f is not None), None)


def unvalidatable(schema: Any, compiled: set[str]) -> dict[str, tuple[str, str]]:
    """``{host profile: (pointer, why)}`` for each profile of ``compiled`` (those that compile ``schema``) whose
    validator cannot finish validating any value against it (``every_value_reaches``: a result against an
    outputSchema, a call's arguments against an inputSchema). Answered once per schema text."""
    try:
        text = orjson.dumps(schema).decode()
    except (orjson.JSONEncodeError, TypeError):
        return {}
    if '"$ref"' not in text and '"$dynamicRef"' not in text:
        return {}
    found = ENDLESS_CACHE.get(text, lambda: _unvalidatable(schema))
    return {profile: problem for profile, problem in found.items() if profile in compiled}


#: ``unvalidatable`` per exact schema text, for every profile.
ENDLESS_CACHE: ContentCache[dict[str, tuple[str, str]]] = ContentCache(1024)


def _unvalidatable(schema: Any) -> dict[str, tuple[str, str]]:
    from mcp_schema_audit.schema.doc import SchemaDoc

    doc = SchemaDoc(schema)
    out = {}
    for profile in HOST_PROFILES:
        endless = every_value_reaches(doc, profile)
        if endless is not None:
            out[profile] = pointer(endless[0]), endless[1]
    return out
