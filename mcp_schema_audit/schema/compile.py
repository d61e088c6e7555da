"""What keeps a host from compiling a schema (Ajv's compile errors, Python's invalid regexes), and what
keeps a validator from finishing (in-place cycles, exponential expansion)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from mcp_schema_audit.fastpaths import ContentCache
from mcp_schema_audit.schema.ajv import AJV_RULES, AJV_SCHEMA_TYPES, AjvKind, ajv_always_valid
from mcp_schema_audit.schema.dialects import JSON_TYPES, SUBSCHEMA_KEYWORDS, RefError
from mcp_schema_audit.schema.regex import ecma_compile_error
from mcp_schema_audit.schema.regex_cost import oversized

if TYPE_CHECKING:
    from typing import TypeAlias

    from mcp_schema_audit.schema.doc import SchemaDoc

    #: Where a node of the Ajv compile walk is: ``None`` (the root), ``(parent location, tokens)``, or ``("abs",
    #: tokens)`` (a ``$ref`` target, located from the root).
    _Where: TypeAlias = "tuple[_Where | Literal['abs'], tuple[Any, ...]] | None"

#: ``same(node, other_node)``: are two subtrees of two documents identical (equal JSON, equal ``$ref`` targets)?
#: (``engine.identity.identical``; see ``ajv_compile_problem``'s ``twin``)
SameTree = Callable[[Any, Any], bool]
#: Where a host's compiler stops: ``(pointer tokens, the host's message)``.
Problem = tuple[list[Any], str]

#: Subschemas the compile check visits before it stops (bounded work on hostile input).
AJV_COMPILE_MAX_NODES = 100_000


class SchemaCompileError(ValueError):
    """A host profile cannot compile the schema (Ajv throws, or the dialect is refused): it rejects every value."""


#: What ``compile_problem`` found per (compiler, schema text), and ``inplace_cost`` per schema text.
COMPILE_CACHE: ContentCache[Problem | None] = ContentCache(1024)
COST_CACHE: ContentCache[float] = ContentCache(1024)


class SchemaCostError(ValueError):
    """Validating against the schema could take exponential time (see ``inplace_cost``): not attempted."""


#: Subschemas one validation may evaluate at a single instance location (through ``allOf``/``anyOf``/
#: ``oneOf``/``not``/conditionals/``$ref``) before a schema is refused as too costly to validate.
INPLACE_BUDGET = 20_000


#: How many times a node holding ``unevaluatedProperties``/``unevaluatedItems`` makes a validator walk
#: its in-place subschemas: once to validate them, again (validating each branch anew) to collect
#: the evaluated keys (jsonschema ``find_evaluated_property_keys_by_schema``). A chain of such nodes
#: through ``allOf`` grows like ``UNEVALUATED_FACTOR ** levels`` (measured: Fibonacci, 105 s at 14
#: levels), so the estimate rounds the measured 1.6 up to keep a margin.
UNEVALUATED_FACTOR = 4


#: What ``inplace_cost`` returns for an in-place cycle (validation recurses without end).
INPLACE_CYCLE = math.inf


_INPLACE_KEYWORDS = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "$ref")


#: Keywords whose value is a map of subschemas a validation can reach (``$defs`` only through ``$ref``).
_SCHEMA_MAPS = frozenset(k for k, shape in SUBSCHEMA_KEYWORDS.items() if shape == "map") - {"$defs", "definitions"}
#: Keywords whose value is a subschema or a list of them that a validation evaluates (``contentSchema`` is an
#: annotation).
_SCHEMA_KEYWORDS = frozenset(k for k, shape in SUBSCHEMA_KEYWORDS.items() if shape != "map") - {"contentSchema"}


def inplace_cost(doc: SchemaDoc) -> float:
    """See ``_inplace``: the worst in-place cost of ``doc``, stopping at the first node over the budget."""
    return _inplace(doc, None)


def inplace_costs(doc: SchemaDoc) -> dict[int, float]:
    """``id(node)`` → in-place cost (as ``inplace_cost`` counts it) of every subschema a validation of ``doc`` can
    reach, without stopping at the first over the budget: the nodes ``schema.reach`` replaces when an instance
    never reaches them."""
    costs: dict[int, float] = {}
    _inplace(doc, costs)
    return costs


def _inplace(doc: SchemaDoc, costs: dict[int, float] | None) -> float:
    """The most subschemas a validator may evaluate at one instance location of ``doc``: an int capped
    at ``INPLACE_BUDGET + 1``, or ``INPLACE_CYCLE`` (``math.inf``) for an in-place cycle.

    Counts, from every subschema a validation can reach from the root (``$defs`` only through a
    ``$ref``), those reached without moving into the instance: ``allOf``/``anyOf``/``oneOf``
    members, ``not``, ``if``/``then``/``else``, ``dependentSchemas`` values and local ``$ref``
    targets. A shared target counts once per path, as a validator evaluates it: a "billion laughs"
    chain where each level is an ``anyOf`` of two ``$ref``s to the previous one costs
    ``2**levels``; a node with ``unevaluatedProperties``/``unevaluatedItems`` counts its in-place
    subschemas ``UNEVALUATED_FACTOR`` times. Keywords that move into the instance (``properties``,
    ``items`` …) are bounded by the instance and not counted.

    A cycle of in-place keywords (``{"not": {"$ref": "#"}}``, two ``$defs`` whose ``allOf`` name each
    other) makes validation recurse at one location without end: jsonschema dies with
    ``RecursionError``, Ajv with "Maximum call stack size exceeded"; JSON Schema Core 2020-12 §9.4.1
    (Guarding Against Infinite Recursion) leaves such schemas' behaviour undefined. It is reported as
    ``INPLACE_CYCLE``. Linear in the schema size (memoized per node).
    """
    memo: dict[int, float] = {}
    active: set[int] = set()
    targets: dict[str, Any] = {}
    cap = INPLACE_BUDGET + 1

    def target(ref: str) -> Any:
        if ref not in targets:
            try:
                targets[ref] = doc.lookup(ref)[0]
            except (RefError, ValueError, TypeError, LookupError):
                targets[ref] = None
        return targets[ref]

    def children(node: dict[str, Any]) -> list[Any]:
        out: list[Any] = []
        for kw in ("allOf", "anyOf", "oneOf"):
            if isinstance(node.get(kw), list):
                out += node[kw]
        for kw in ("not", "if", "then", "else"):
            if kw in node:
                out.append(node[kw])
        if isinstance(node.get("dependentSchemas"), dict):
            out += list(node["dependentSchemas"].values())
        ref = node.get("$ref")
        if isinstance(ref, str):
            out.append(target(ref))
        return out

    def cost(node: Any) -> float:
        if not isinstance(node, dict):
            return 1
        key = id(node)
        if key in memo:
            return memo[key]
        if key in active:
            return INPLACE_CYCLE
        active.add(key)
        factor = UNEVALUATED_FACTOR if ("unevaluatedProperties" in node or "unevaluatedItems" in node) else 1
        total: float = 1
        for child in children(node):
            total += factor * cost(child)
            if total > cap:
                break
        if total != INPLACE_CYCLE:
            total = min(total, cap)
        active.discard(key)
        memo[key] = total
        return total

    worst: float = 0
    stack: list[Any] = [doc.root]
    seen: set[int] = set()
    try:
        while stack:
            node = stack.pop()
            if isinstance(node, list):
                stack.extend(node)
                continue
            if not isinstance(node, dict) or id(node) in seen:
                continue
            seen.add(id(node))
            worst = max(worst, cost(node))
            if costs is not None:
                costs[id(node)] = cost(node)
            elif worst > INPLACE_BUDGET:
                return worst
            for k, value in node.items():
                if k in _SCHEMA_MAPS and isinstance(value, dict):
                    stack.extend(value.values())  # property names are not keywords: {"enum": {…}} is a schema
                elif k in _SCHEMA_KEYWORDS:
                    stack.append(value)
            if isinstance(node.get("$ref"), str):
                stack.append(target(node["$ref"]))
    except RecursionError:
        return cap
    return worst


_PY_TYPES = {"array": (list,), "object": (dict,), "string": (str,), "boolean": (bool,), "number": (int, float)}
#: Per Ajv class, keyword → (the Python types its value may have, whether a bool is among them): Ajv's
#: ``validSchemaType`` (lib/compile/util.ts) as one ``isinstance`` (a bool is an int to Python: a keyword whose
#: value must be a number refuses one).
_AJV_PY_TYPES = {
    kind: {
        kw: (tuple(t for name in names for t in _PY_TYPES[name]), "boolean" in names)
        for kw, names in table.items()
        if names
    }
    for kind, table in AJV_SCHEMA_TYPES.items()
}


def _ajv_node_problem(node: dict[str, Any], kind: AjvKind) -> Problem | None:
    """The first reason Ajv's class ``kind`` throws compiling this one schema object (not its subschemas)."""
    table = AJV_SCHEMA_TYPES[kind]
    py_types = _AJV_PY_TYPES[kind]
    # lib/compile/validate/dataType.ts getSchemaTypes / getJSONTypes
    t = node.get("type")
    if t.__class__ is str and t in JSON_TYPES:
        types: Sequence[Any] = (t,)  # the common case, decided at once
    else:
        types = t if isinstance(t, list) else ([t] if t not in (None, "", 0, False) else [])
        if not all(isinstance(x, str) and x in JSON_TYPES for x in types):
            return ["type"], "type must be JSONType or JSONType[]: " + ",".join(
                json.dumps(x) if not isinstance(x, str) else x for x in types
            )
    if "null" in types:
        if node.get("nullable") is False:
            return ["nullable"], "type: null contradicts nullable: false"
    elif not types and "nullable" in node:
        return ["nullable"], '"nullable" cannot be used without "type"'
    # KeywordCxt constructor (lib/compile/validate/index.ts): "<keyword> value must be <schemaType>"
    for kw, value in node.items():
        allowed = py_types.get(kw)
        if allowed is not None and (
            not isinstance(value, allowed[0]) or (value is True or value is False) and not allowed[1]
        ):
            return [kw], f"{kw} value must be {json.dumps(list(table[kw]), separators=(',', ':'))}"
    if "id" in node:  # lib/vocabularies/core/id.ts
        return ["id"], 'NOT SUPPORTED: keyword "id", use "$id" for schema ID'
    if node.get("enum") == []:  # lib/vocabularies/validation/enum.ts
        return ["enum"], "enum must have non-empty array"
    if "pattern" in node:
        error = ecma_compile_error(node["pattern"])
        if error is not None:
            return ["pattern"], error
    pats = node.get("patternProperties")
    if isinstance(pats, dict) and _ajv_compiles_pattern_keys(node, kind, AJV_RULES[kind]):
        for key in pats:
            if key != "__proto__":
                error = ecma_compile_error(key)
                if error is not None:
                    return ["patternProperties", key], error
    return None


def _ajv_compiles_pattern_keys(node: dict[str, Any], kind: AjvKind, rules: frozenset[str]) -> bool:
    """Does Ajv compile the ``patternProperties`` regexes of ``node``?

    patternProperties.ts skips them when every subschema is always valid and either the class does
    not track evaluated properties (draft-07) or ``it.props`` is already true (approximated as: an
    ``additionalProperties`` here or in an ``allOf`` member, which set it before this keyword runs);
    additionalProperties.ts compiles them when it is present and not always valid.
    """
    pats = [k for k in node["patternProperties"] if k != "__proto__"]
    if not pats:
        return False
    if "additionalProperties" in node and not ajv_always_valid(node["additionalProperties"], rules):
        return True
    if not all(ajv_always_valid(node["patternProperties"][k], rules) for k in pats):
        return True
    if kind == "draft-07":
        return False
    members = all_of if isinstance(all_of := node.get("allOf"), list) else []
    props_all = "additionalProperties" in node or any(
        isinstance(m, dict) and "additionalProperties" in m for m in members
    )
    return not props_all


_AJV_ONE = ("not", "propertyNames", "additionalProperties", "contains")
_AJV_MANY = ("allOf", "anyOf", "oneOf")
_AJV_MAPS = ("properties", "patternProperties", "dependencies")
_AJV_PARENTS = frozenset(
    (
        *_AJV_ONE,
        *_AJV_MANY,
        *_AJV_MAPS,
        "if",
        "items",
        "prefixItems",
        "additionalItems",
        "dependentSchemas",
        "unevaluatedProperties",
        "unevaluatedItems",
    )
)


def _ajv_subschemas(node: dict[str, Any], kind: AjvKind, rules: frozenset[str]) -> list[tuple[tuple[Any, ...], Any]]:
    """``(tokens, subschema)`` Ajv's class ``kind`` compiles below ``node`` (``$ref`` aside), in keyword order."""
    if _AJV_PARENTS.isdisjoint(node):
        return []  # a leaf (most nodes): no keyword that holds a subschema
    out: list[tuple[tuple[Any, ...], Any]] = []
    get = node.get
    for kw in _AJV_ONE:
        if kw in node:
            out.append(((kw,), node[kw]))
    for kw in _AJV_MANY:
        value = get(kw)
        if isinstance(value, list):
            out.extend(((kw, i), sub) for i, sub in enumerate(value))
    # if.ts: "if" is compiled only with a "then" or "else" that is not always valid; thenElse.ts
    # compiles nothing on its own
    if "if" in node and any(k in node and not ajv_always_valid(node[k], rules) for k in ("then", "else")):
        out.extend(((kw,), node[kw]) for kw in ("if", "then", "else") if kw in node)
    for kw in _AJV_MAPS:
        value = get(kw)
        if isinstance(value, dict):
            out.extend(((kw, k), sub) for k, sub in value.items() if k != "__proto__")
    items = get("items")
    if kind == "2020-12":
        if isinstance(get("prefixItems"), list):
            out.extend((("prefixItems", i), sub) for i, sub in enumerate(node["prefixItems"]))
        if "items" in node:
            out.append((("items",), items))
    elif isinstance(items, list):
        out.extend((("items", i), sub) for i, sub in enumerate(items))
        if "additionalItems" in node:  # additionalItems.ts: ignored unless "items" is an array
            out.append((("additionalItems",), node["additionalItems"]))
    elif "items" in node:
        out.append((("items",), items))
    if kind != "draft-07":
        if isinstance(get("dependentSchemas"), dict):
            out.extend(
                (("dependentSchemas", k), sub) for k, sub in node["dependentSchemas"].items() if k != "__proto__"
            )
        for kw in ("unevaluatedProperties", "unevaluatedItems"):
            if kw in node:
                out.append(((kw,), node[kw]))
    return out


def ajv_compile_problem(
    doc: SchemaDoc, kind: AjvKind, twin: tuple[SchemaDoc, SameTree] | None = None
) -> Problem | None:
    """``(pointer_tokens, Ajv's message)`` of the first thing Ajv's class ``kind`` refuses to compile.

    Visits what Ajv compiles (``_ajv_subschemas`` and local ``$ref`` targets), each subschema once, depth
    first in keyword order, at most ``AJV_COMPILE_MAX_NODES``. Unresolvable refs are left to validation
    (``RefError``); ``$dynamicRef``/``$recursiveRef`` are not followed. Each node's location is kept as a link
    to its parent's, and spelled out as tokens only for the node with a problem.

    ``twin``: ``(other_doc, same)``, a document whose own walk with this ``kind`` found nothing and was not
    cut short (the other version of the same tool), and ``same(node, other_node)`` proving two subtrees
    identical (equal JSON, equal ``$ref`` targets). The walk follows the twin along: where a node is identical
    to the twin node at the same place, and the twin's walk visited that place (its whole way there compiled
    the same keywords), the subtree is known clean and skipped. The answer is the one without a twin: every
    node skipped is clean, and the others are visited in the same order.
    """
    rules = AJV_RULES[kind]
    other_doc, same = twin if twin is not None else (None, None)
    # (location, node, the twin's node at the same place when the twin's walk visited it, else None);
    # a location is None (the root), (parent location, tokens) or ("abs", tokens)
    stack: list[tuple[_Where, Any, Any]] = [(None, doc.root, other_doc.root if other_doc is not None else None)]
    seen: set[int] = set()
    while stack and len(seen) < AJV_COMPILE_MAX_NODES:
        where, node, mirror = stack.pop()
        if not isinstance(node, dict) or id(node) in seen:
            continue
        if mirror is not None and same is not None and same(node, mirror):
            continue  # the twin's walk checked this very subtree: clean
        seen.add(id(node))
        if rules.isdisjoint(node):
            continue  # alwaysValidSchema: Ajv generates no code for it
        problem = _ajv_node_problem(node, kind)
        if problem is not None:
            return _spell(where) + problem[0], problem[1]
        if _AJV_PARENTS.isdisjoint(node) and "$ref" not in node:
            continue  # a leaf (most nodes): nothing below it to compile
        # the twin's walk went on into its node's compiled subschemas (none when it is always valid)
        walked = isinstance(mirror, dict) and not rules.isdisjoint(mirror)
        mirrored = dict(_ajv_subschemas(mirror, kind, rules)) if walked else {}
        children: list[tuple[_Where, Any, Any]] = [
            ((where, sub_tokens), sub, mirrored.get(sub_tokens))
            for sub_tokens, sub in _ajv_subschemas(node, kind, rules)
        ]
        ref = node.get("$ref")
        if isinstance(ref, str):
            try:
                target, target_tokens = doc.lookup(ref)
            except RefError:
                pass
            else:
                if _endless_chain(doc, ref, target, rules):
                    return _spell(where) + ["$ref"], (
                        f"Maximum call stack size exceeded: $ref {ref[:80]!r} leads through schemas that hold only a "
                        "$ref back to one of them (Ajv resolves such a chain while it compiles)"
                    )
                twin_target = None
                if walked and other_doc is not None and mirror.get("$ref") == ref:
                    try:
                        twin_target = other_doc.lookup(ref)[0]
                    except RefError:
                        twin_target = None
                children.append((("abs", tuple(target_tokens)), target, twin_target))
        stack.extend(reversed(children))
    return None


def _endless_chain(doc: SchemaDoc, ref: str, target: Any, rules: frozenset[str]) -> bool:
    """Does Ajv's compile resolve ``ref`` without end? Ajv (lib/compile/index.ts ``getJsonPointer``) follows a JSON
    Pointer ``$ref`` to a schema holding nothing but a ``$ref`` (``schemaHasRulesButRef``: no other keyword of the
    class) on to that ``$ref``'s target, as it compiles: a chain of such schemas that comes back to itself
    (``{"properties": {"q": {"$ref": "#/properties/q"}}}``) throws "Maximum call stack size exceeded" from
    ``ajv.compile`` (TS SDK v1: in ``listTools()``; checked in tests/test_real_clients.py)."""
    seen: set[int] = set()
    while ref.startswith("#/") and isinstance(target, dict) and rules.isdisjoint(k for k in target if k != "$ref"):
        if id(target) in seen:
            return True
        following = target.get("$ref")
        if not isinstance(following, str) or not following or len(seen) > AJV_COMPILE_MAX_NODES:
            return False
        seen.add(id(target))
        try:
            ref, target = following, doc.lookup(following)[0]
        except RefError:
            return False
    return False


def _spell(where: _Where) -> list[Any]:
    """The tokens of a location linked as in ``ajv_compile_problem``."""
    parts: list[tuple[Any, ...]] = []
    while where is not None:
        parent, tokens = where
        parts.append(tokens)
        if parent == "abs":
            break
        where = parent
    return [t for tokens in reversed(parts) for t in tokens]


def python_compile_problem(root: Any) -> Problem | None:
    """The first ``pattern``/``patternProperties`` key Python ``re`` rejects, at any schema position of
    the document, ``$defs`` included (the Python SDK runs ``check_schema``, whose meta-schema checks
    ``format: regex`` there)."""
    stack: list[tuple[list[Any], Any]] = [([], root)]
    seen = 0
    while stack and seen < AJV_COMPILE_MAX_NODES:
        tokens, node = stack.pop()
        seen += 1
        if not isinstance(node, dict):
            continue
        pats = [(["pattern"], node["pattern"])] if isinstance(node.get("pattern"), str) else []
        if isinstance(node.get("patternProperties"), dict):
            pats += [(["patternProperties", k], k) for k in node["patternProperties"]]
        for ptoks, pat in pats:
            if oversized(pat) is not None:  # never compiled: not called invalid
                continue
            try:
                re.compile(pat)
            except (re.error, RecursionError, OverflowError, MemoryError, ValueError) as exc:
                return tokens + ptoks, f"invalid regex {pat[:80]!r}: {exc}"
        children: list[tuple[list[Any], Any]] = []
        for kw, shape in SUBSCHEMA_KEYWORDS.items():
            value = node.get(kw)
            if shape == "map" and isinstance(value, dict):
                children += [(tokens + [kw, k], sub) for k, sub in value.items()]
            elif shape in ("list", "one_or_list") and isinstance(value, list):
                children += [(tokens + [kw, i], sub) for i, sub in enumerate(value)]
            elif shape in ("one", "one_or_list") and isinstance(value, dict):
                children.append((tokens + [kw], value))
        stack.extend(reversed(children))
    return None
