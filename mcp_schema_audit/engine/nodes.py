"""Normalized schema nodes: JSON Schema keywords in a ``dict``, plus where in the server's schema each came from.

The engine never compares raw schemas: ``normalize`` turns each raw node into a ``Node`` (one
alternative per union branch, ``allOf`` merged, siblings of a union intersected into every branch,
annotations and no-op keywords dropped). A ``Node`` is still a JSON Schema (validators run on it),
and it keeps the JSON Pointer of the raw node it stands for (``at``) and of every keyword copied
from elsewhere (``origin``: a sibling of the union it was distributed from, an ``allOf`` member, a
``$ref`` target), so a finding about that keyword points into the server's own schema.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple, TypeVar

#: Keywords that constrain values (JSON Schema draft-04 … 2020-12, plus OpenAPI ``nullable``, which Ajv
#: honours). Everything else in a schema object is an annotation or an unknown keyword: it validates
#: nothing and is dropped from normalized nodes.
ASSERTIONS = frozenset(
    {
        "type",
        "enum",
        "const",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "maxLength",
        "minLength",
        "pattern",
        "format",
        "items",
        "prefixItems",
        "additionalItems",
        "unevaluatedItems",
        "maxItems",
        "minItems",
        "uniqueItems",
        "contains",
        "maxContains",
        "minContains",
        "properties",
        "patternProperties",
        "additionalProperties",
        "unevaluatedProperties",
        "propertyNames",
        "maxProperties",
        "minProperties",
        "required",
        "dependentRequired",
        "dependentSchemas",
        "dependencies",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
        "$ref",
        "$dynamicRef",
        "$recursiveRef",
        "nullable",
        "$id",
    }
)
#: Keywords that apply to one JSON type only (they constrain nothing of another type).
STRING_KEYWORDS = frozenset({"minLength", "maxLength", "pattern"})
NUMBER_KEYWORDS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"})
ARRAY_KEYWORDS = frozenset(
    {
        "items",
        "prefixItems",
        "additionalItems",
        "unevaluatedItems",
        "maxItems",
        "minItems",
        "uniqueItems",
        "contains",
        "maxContains",
        "minContains",
    }
)
OBJECT_KEYWORDS = frozenset(
    {
        "properties",
        "patternProperties",
        "additionalProperties",
        "unevaluatedProperties",
        "propertyNames",
        "maxProperties",
        "minProperties",
        "required",
        "dependentRequired",
        "dependentSchemas",
        "dependencies",
    }
)
#: JSON type → the type-specific keywords that apply to it (``format`` reaches strings and numbers:
#: ajv-formats has number formats).
KEYWORDS_OF_TYPE = {
    "string": STRING_KEYWORDS | {"format"},
    "integer": NUMBER_KEYWORDS | {"format"},
    "number": NUMBER_KEYWORDS | {"format"},
    "array": ARRAY_KEYWORDS,
    "object": OBJECT_KEYWORDS,
    "boolean": frozenset(),
    "null": frozenset(),
}
TYPED_KEYWORDS = STRING_KEYWORDS | NUMBER_KEYWORDS | ARRAY_KEYWORDS | OBJECT_KEYWORDS | {"format"}
JSON_TYPES = ("string", "integer", "number", "boolean", "null", "object", "array")

Tokens = tuple[Any, ...]
_D = TypeVar("_D")


class Node(dict[str, Any]):
    """A normalized schema node (see the module docstring).

    ``at``: JSON Pointer tokens of the raw node this one stands for, in its own document. ``origin``:
    keyword → tokens of that keyword's value when it does not live at ``at + (keyword,)``; the key
    ``("properties", name)`` locates one property's schema. ``limits``: bound keyword → value of the
    interoperability bounds dropped during normalization (``normalize.interop_limits``).
    """

    __slots__ = ("at", "origin", "limits")

    def __init__(self, items: Any = (), at: Tokens = (), origin: dict[Any, Tokens] | None = None) -> None:
        super().__init__(items)
        self.at = at
        self.origin = origin if origin is not None else {}
        self.limits: dict[str, Any] = {}

    def where(self, steps: list[Any] | tuple[Any, ...]) -> Tokens:
        """Absolute tokens of ``steps`` taken from this node (``[]`` → the node; ``["maxLength"]``;
        ``["properties", "a", "type"]``), through ``origin`` when the first steps were copied here."""
        if not steps:
            return self.at
        if len(steps) >= 2 and (steps[0], steps[1]) in self.origin:
            return (*self.origin[(steps[0], steps[1])], *steps[2:])
        if steps[0] in self.origin:
            return (*self.origin[steps[0]], *steps[1:])
        return (*self.at, *steps)

    def __reduce__(self) -> Any:  # plain dict when copied or pickled (e.g. into a process pool)
        return (dict, (dict(self),))


class ItemsLayout(NamedTuple):
    """How an array node spells its items (``array_layout``)."""

    #: the schemas of the first items, in order
    prefix: list[Any]
    #: the keyword holding them: ``prefixItems``, or ``items`` (draft-04 … 2019-09 tuple form)
    prefix_kw: str
    #: the schema of the other items, or None when nothing constrains them
    items: Any
    #: the keyword holding it (``items``, ``additionalItems``, ``unevaluatedItems``), or None when absent
    items_kw: str | None


def array_layout(node: dict[str, Any], dialect: str) -> ItemsLayout:
    """``(prefix schemas, their keyword, schema of the other items or None, its keyword)`` of an array node of
    a document in ``dialect``.

    Spellings: 2020-12 ``prefixItems`` + ``items``; draft-04..2019-09 ``items: [..]`` +
    ``additionalItems``; and ``unevaluatedItems`` read as ``items`` when nothing else in the node
    evaluates items (no ``items``/``contains``/applicators), in 2019-09/2020-12 documents.
    """
    items = node.get("items")
    if isinstance(items, list):
        return ItemsLayout(
            items, "items", node.get("additionalItems"), "additionalItems" if "additionalItems" in node else None
        )
    listed = node.get("prefixItems")
    pre: list[Any] = listed if isinstance(listed, list) and dialect == "2020-12" else []
    if "items" in node:
        return ItemsLayout(pre, "prefixItems", items, "items")
    if (
        "unevaluatedItems" in node
        and dialect in ("2020-12", "2019-09")
        and not any(k in node for k in ("contains", "allOf", "anyOf", "oneOf", "not", "if", "$ref", "$dynamicRef"))
        and (not isinstance(listed, list) or dialect == "2020-12")
    ):
        return ItemsLayout(pre, "prefixItems", node["unevaluatedItems"], "unevaluatedItems")
    return ItemsLayout(pre, "prefixItems", None, None)


def union_branches(node: Any) -> tuple[str, list[Any]] | None:
    """``(keyword, branches)`` of a normalized union node (``anyOf``/``oneOf`` with no sibling), else None."""
    if isinstance(node, Node) and len(node) == 1:
        for kw in ("anyOf", "oneOf"):
            subs = node.get(kw)
            if isinstance(subs, list):
                return kw, subs
    return None


def dict_at(node: Mapping[str, Any], kw: str) -> dict[str, Any]:
    """``node[kw]`` when it is an object, else ``{}`` (absent or malformed: nothing declared)."""
    value = node.get(kw)
    return value if isinstance(value, dict) else {}


def list_at(node: Mapping[str, Any], kw: str) -> list[Any]:
    """``node[kw]`` when it is an array, else ``[]`` (absent or malformed: nothing listed)."""
    value = node.get(kw)
    return value if isinstance(value, list) else []


def int_at(node: Mapping[str, Any], kw: str, default: _D) -> int | _D:
    """``node[kw]`` when it is an ``int`` (as ``isinstance`` reads it: ``true`` counts as 1), else ``default``."""
    value = node.get(kw)
    return value if isinstance(value, int) else default


def names(value: Any) -> list[str]:
    """The property names a ``required`` (or ``dependentRequired`` entry) lists: its strings. Anything else
    in it (a number, an object, a list) makes the schema invalid against its metaschema, which is reported
    on its own (``schema-metaschema-invalid``); the engine never assumes the entries are strings."""
    return [k for k in value if isinstance(k, str)] if isinstance(value, list) else []


def well_formed_names(value: Any) -> bool:
    """Is ``value`` a list of strings only (a well-formed ``required``)?"""
    return isinstance(value, list) and all(isinstance(k, str) for k in value)


def union_list(a: list[Any], b: list[Any]) -> list[Any]:
    """``a`` then the entries of ``b`` not in it, for lists of JSON values (hashable or not: a malformed
    ``required`` may hold objects or lists)."""
    if well_formed_names(a) and well_formed_names(b):
        return list(dict.fromkeys([*a, *b]))
    out: list[Any] = []
    for x in (*a, *b):
        if not any(type(x) is type(y) and x == y for y in out):
            out.append(x)
    return out


def with_conditionals(node: Mapping[str, Any], props: dict[str, Any], depth: int = 0) -> dict[str, Any]:
    """``props`` (a node's declared properties) and, after them, those its conditionals declare (``then``,
    ``else``, each ``dependentSchemas`` entry: up to 16 of them, and theirs, 3 levels down), the first schema of
    each name kept."""
    out = dict(props)
    subs = [node.get("then"), node.get("else"), *dict_at(node, "dependentSchemas").values()]
    for sub in [x for x in subs if isinstance(x, Mapping)][:16]:
        out.update({k: s for k, s in dict_at(sub, "properties").items() if k not in out})
        if depth < 3 and any(k in sub for k in ("then", "else", "dependentSchemas")):
            out.update({k: s for k, s in with_conditionals(sub, {}, depth + 1).items() if k not in out})
    return out
