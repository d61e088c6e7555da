"""Object values read as structure: a ``const``/``enum`` of objects on V's side, compared with P's object schema.

``{"const": {"a": 1, "b": [2]}}`` accepts exactly the object whose keys are ``a`` and ``b`` and whose values are
``1`` and ``[2]``: as a schema, ``{"type": "object", "properties": {"a": {"const": 1}, "b": {"const": [2]}},
"required": ["a", "b"], "additionalProperties": false}`` (nested objects likewise). When P declares objects by
their structure (``properties``, ``required``, an ``additionalProperties`` schema) and V only lists object values,
V's values are decomposed so and compared like any object: a key P may leave out is a ``required`` V adds, a key
P may add is a property V's closed object lacks, each with its witness. An ``enum`` of several objects is one
such node per value; an issue found against one of them counts only when the whole value set rejects its witness
(another value may be the one the witness equals).

The decomposed nodes are located at the values themselves (``/enum/1/a``), so findings point into the server's
own schema.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from mcp_schema_audit.engine.confirm import RULE_SEVERITY_FOR_KIND
from mcp_schema_audit.engine.context import WalkContext
from mcp_schema_audit.engine.issue import NO_WITNESS, Issue, short
from mcp_schema_audit.engine.nodes import Node, Tokens, dict_at, names
from mcp_schema_audit.engine.settle import value_set
from mcp_schema_audit.schema import RefError, type_set
from mcp_schema_audit.wording import Text

#: Object values of one ``enum`` decomposed and compared one by one; more → compared value by value only.
MAX_OBJECT_VALUES = 64
#: Values of P listed at most (``listed_values``).
MAX_LISTED = 256
_ABSENT = object()


def object_value_node(value: Any, at: Tokens) -> Node:
    """The schema that accepts exactly ``value`` (located at ``at``): an object as a closed structure whose
    properties are the schemas of its values, anything else as its ``const``."""
    if not isinstance(value, dict):
        return Node({"const": value}, at, {"const": at})
    node = Node({"type": "object", "additionalProperties": False}, at, {"type": at, "additionalProperties": at})
    if value:
        node["properties"] = {k: object_value_node(x, (*at, k)) for k, x in value.items()}
        node["required"] = list(value)
        node.origin["required"] = at
        for k in value:
            node.origin[("properties", k)] = (*at, k)
    return node


def _loud(issues: list[Issue]) -> int:
    """How far apart: breaking kinds weigh most, then warnings (as union branches are paired)."""
    out = 0
    for i in issues:
        sev = RULE_SEVERITY_FOR_KIND.get(i.kind)
        out += 10_000 if sev == "breaking" else 100 if sev == "warning" else 1
    return out


def structural_values(ctx: WalkContext, p: Node, v: Node, vv: list[Any], kw_v: str, depth: int) -> list[Issue] | None:
    """V lists values (``vv``, under ``kw_v``), P declares objects by structure: V's object values decomposed
    (``object_value_node``) and compared with P. With several object values, the comparison with the closest one
    counts when a witness it finds is rejected by the whole value set; else, when P's values can be listed
    (``listed_values``), each is checked against the set. Every issue is proven by V's ``kw_v`` at the value's
    place (``Issue.rejects``). None when this does not apply (P may declare other types, V has keywords beside
    its values, it lists no object or too many) or decides nothing: the caller compares as before."""
    if type_set(p) != {"object"} or set(v) - {"enum", "const", "type"} or "enum" in p or "const" in p:
        return None
    where = v.where([kw_v])
    nodes = [
        object_value_node(x, where if kw_v == "const" else (*where, i)) for i, x in enumerate(vv) if isinstance(x, dict)
    ]
    if not nodes or len(nodes) > MAX_OBJECT_VALUES:
        return None
    got = _against_values(ctx, p, v, nodes, vv, kw_v, depth)
    if got is None:
        return None
    return [i if i.rejects is not None else replace(i, rejects=(kw_v, len(i.inst))) for i in got]


def _against_values(
    ctx: WalkContext, p: Node, v: Node, nodes: list[Node], vv: list[Any], kw_v: str, depth: int
) -> list[Issue] | None:
    """P against the decomposed object values ``nodes`` of V (see ``structural_values``)."""
    if len(nodes) == 1:
        return ctx.compare(p, nodes[0], depth + 1)
    trials = sorted((ctx.compare(p, n, depth + 1) for n in nodes), key=_loud)
    if _loud(trials[0]) < 100:
        return trials[0]  # P is inside one of the values' structures: only informational differences
    for issues in trials:
        # a witness another value of the set accepts proves nothing; a break without a witness cannot be laid at
        # the door of one value of several
        proven = [i for i in issues if i.witness is not NO_WITNESS and ctx.valid(ctx.v_doc, v, i.witness) is False]
        if proven:
            return proven + [i for i in issues if i.witness is NO_WITNESS and _loud([i]) < 10_000]
    listed = listed_values(ctx, p)
    if listed is None:
        return None
    outside = [x for x in listed if ctx.valid(ctx.v_doc, v, x) is False]
    if not outside:
        return []  # every value P declares is one V lists
    x = outside[0]
    return [
        Issue(
            "enum-extra-p",
            [],
            [kw_v],
            None,
            v.get(kw_v),
            Text.of(
                "value {value} of the {P} schema is not in the {V} schema's {keyword} {values}",
                value=short(x),
                keyword=kw_v,
                values=short(vv),
            ),
            x,
            delta={"value": x},
        )
    ]


def listed_values(
    ctx: WalkContext, p: Any, depth: int = 0, at: Tokens | None = None, side: str = "p"
) -> list[Any] | None:
    """Every value P's node declares, when they are few (``MAX_LISTED``): a value set, or a closed object (no
    ``patternProperties``) whose properties each list their values (a property not required: also absent), the
    combinations P itself accepts. None when they cannot be listed so. ``at``: where ``p`` (raw) is in P's
    document. ``side="v"``: the same of a node of V."""
    if depth > 8:
        return None
    try:
        node = ctx.norm(side, p, at if at is not None else getattr(p, "at", ()))
    except RefError:  # an unresolvable $ref: not listable
        return None
    if not isinstance(node, Node):
        return [] if node is False else None
    values = value_set(node)
    if values is not None:
        return values if len(values) <= MAX_LISTED else None
    if type_set(node) != {"object"} or node.get("additionalProperties") is not False or "patternProperties" in node:
        return None
    props = dict_at(node, "properties")
    required = set(names(node.get("required")))
    combos: list[dict[str, Any]] = [{}]
    for key, sub in props.items():
        options = listed_values(ctx, sub, depth + 1, node.where(["properties", key]), side)
        if options is None:
            return None
        choices: list[Any] = ([] if key in required else [_ABSENT]) + options
        combos = [{**c, key: x} if x is not _ABSENT else c for c in combos for x in choices]
        if len(combos) > MAX_LISTED:
            return None
    return [c for c in combos if ctx.valid(ctx.p_doc if side == "p" else ctx.v_doc, node, c)]
