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

from typing import TYPE_CHECKING, Any

from mcp_schema_audit.jsontext import canonical
from mcp_schema_audit.schema.compile import INPLACE_BUDGET, SchemaCostError, inplace_costs
from mcp_schema_audit.schema.dialects import SUBSCHEMA_KEYWORDS, RefError

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
