"""Witness assembly: values P declares, and a value valid on both sides around the part that differs.

A family finds a witness for one child pair (a property's value, an array item); ``obj_wrap`` and
``array_wrap`` put it into an instance of the parent node that is otherwise valid on both sides
(``common``), with P's conditionals met (``complete``), so the rejecting side fails for the reason
the finding names and nothing else. ``samples_p`` gives the values P declares that the witness
searches of the applicators start from.
"""

from __future__ import annotations

import contextlib
from typing import Any

from mcp_schema_audit.engine.conditions import Cond, conditionals
from mcp_schema_audit.engine.context import WalkContext, Wrap
from mcp_schema_audit.engine.issue import NO_WITNESS
from mcp_schema_audit.engine.nodes import array_layout, names
from mcp_schema_audit.engine.sampler import NoSample, sample
from mcp_schema_audit.engine.settle import value_set
from mcp_schema_audit.engine.values import types_of
from mcp_schema_audit.schema import RefError

#: Keywords of P's node left out of its samples with other subschemas merged in (``samples_p``).
_NOT_SAMPLED = ("if", "then", "else", "not", "dependentSchemas", "dependencies", "contains")


def _dict_at(node: dict[str, Any], kw: str) -> dict[str, Any]:
    value = node.get(kw)
    return value if isinstance(value, dict) else {}


def common(ctx: WalkContext, p: Any, v: Any, depth: int = 0) -> Any:
    """A small value valid under P's node and, when possible, under V's node too.

    Witnesses are built from it so the rejecting side fails for the reason the finding names
    and nothing else. Falls back to a P-only sample, or ``NO_WITNESS``.
    """
    first = ctx.sample_p(p)
    if first is not NO_WITNESS and ctx.valid(ctx.v_doc, v, first):
        return first
    try:
        other = sample(v, ctx.v_doc)
        if ctx.valid(ctx.p_doc, p, other) and ctx.valid(ctx.v_doc, v, other):
            return other
    except (NoSample, RecursionError):
        pass
    if depth > 16:
        return first
    try:
        p2, _ = ctx.deref(p, ctx.p_doc)
        v2, _ = ctx.deref(v, ctx.v_doc)
    except RefError:
        return first
    if not isinstance(p2, dict) or not isinstance(v2, dict):
        return first
    values = value_set(p2)
    if values is not None:
        for x in values:
            if ctx.valid(ctx.p_doc, p2, x) and ctx.valid(ctx.v_doc, v2, x):
                return x
        return first
    types = types_of(p2)
    if types is None or "object" in types:
        pprops, vprops = _dict_at(p2, "properties"), _dict_at(v2, "properties")
        keys = [k for k in names(p2.get("required")) + names(v2.get("required")) if k in pprops or k in vprops]
        obj: dict[str, Any] = {}
        for k in dict.fromkeys(keys):
            got = common(ctx, pprops.get(k, True), vprops.get(k, True), depth + 1)
            obj[k] = None if got is NO_WITNESS else got
        if ctx.valid(ctx.p_doc, p2, obj):
            return obj
    if types is not None and "array" in types:
        item = common(ctx, p2.get("items", True), v2.get("items", True), depth + 1)
        for arr in ([], [None if item is NO_WITNESS else item]):
            if ctx.valid(ctx.p_doc, p2, arr) and ctx.valid(ctx.v_doc, v2, arr):
                return arr
    return first


# -- instances around a child's witness ----------------------------------------------------------------------
def array_wrap(ctx: WalkContext, p: dict[str, Any], v: dict[str, Any], index: int) -> Wrap:
    """Puts a witness of item ``index`` into an array both nodes accept otherwise (P's ``contains`` still met)."""

    def wrap(child: Any) -> Any:
        base = common(ctx, {**p, "type": "array"}, v)
        arr = list(base) if isinstance(base, list) else []
        p_pre, _, p_items, _ = array_layout(p, ctx.p_doc.dialect)
        v_pre, _, v_items, _ = array_layout(v, ctx.v_doc.dialect)
        p_items = True if p_items is None else p_items
        v_items = True if v_items is None else v_items
        filler = common(ctx, p_items, v_items)
        filler = None if filler is NO_WITNESS else filler
        while len(arr) <= index:
            j = len(arr)
            if j < len(p_pre):
                got = common(ctx, p_pre[j], v_pre[j] if j < len(v_pre) else v_items)
                arr.append(None if got is NO_WITNESS else got)
            else:
                arr.append(filler)
        replaced = arr[index]
        arr[index] = child
        if "contains" not in p or index < len(p_pre) or ctx.valid(ctx.p_doc, p, arr) is not False:
            return arr
        return _keep_contains(ctx, p, arr, index, child, replaced, p_items, v_items)

    return wrap


def _keep_contains(
    ctx: WalkContext,
    p: dict[str, Any],
    arr: list[Any],
    index: int,
    child: Any,
    replaced: Any,
    p_items: Any,
    v_items: Any,
) -> list[Any]:
    """``arr`` (``child`` at ``index``, where ``replaced`` was) made to meet P's ``contains`` again."""
    # too many items match now (maxContains): the others that match give way, one by one, to an item that does not
    unmatched = common(ctx, {"allOf": [p_items, {"not": p["contains"]}]}, v_items)
    if unmatched is not NO_WITNESS:
        fixed = list(arr)
        for j, item in enumerate(arr):
            if j != index and ctx.valid(ctx.p_doc, p["contains"], item):
                fixed[j] = unmatched
                if ctx.valid(ctx.p_doc, p, fixed):
                    return fixed
    # P's contains may have been met by the item the child replaced: add such items after it, as many
    # as P's minContains asks for
    kept = common(ctx, {"allOf": [p_items, p["contains"]]}, v_items)
    need = p.get("minContains", 1)
    need = need if isinstance(need, int) and not isinstance(need, bool) and 0 < need <= 100 else 1
    for extra in (replaced, kept):
        if extra is NO_WITNESS:
            continue
        for n in range(1, need + 1):
            if ctx.valid(ctx.p_doc, p, arr + [extra] * n):
                return arr + [extra] * n
    # no room for another item (maxItems): the child itself must meet contains, keeping what it shows
    # where contains does not speak, or taking contains' values where it does ({"id": ""} → {"id": "a"});
    # a scalar child gives way to contains' own value (confirmation checks it still shows the change)
    merged_children = (
        [{**kept, **child}, {**child, **kept}]
        if isinstance(child, dict) and isinstance(kept, dict)
        else [kept]
        if kept is not NO_WITNESS
        else []
    )
    for merged in merged_children:
        if ctx.valid(ctx.p_doc, p, arr[:index] + [merged] + arr[index + 1 :]):
            return arr[:index] + [merged] + arr[index + 1 :]
    return arr


def obj_wrap(ctx: WalkContext, p: dict[str, Any], v: dict[str, Any], key: str, drop: str | None = None) -> Wrap:
    """Puts a witness of property ``key`` into an object both nodes accept otherwise (``drop`` left out), with
    P's conditionals met (``complete``)."""

    def wrap(child: Any) -> Any:
        base = common(ctx, {**p, "type": "object"}, v)
        obj = dict(base) if isinstance(base, dict) else {}
        obj[key] = child
        if drop is not None:
            obj.pop(drop, None)
        return complete(ctx, p, obj, {key} | ({drop} if drop else set()))

    return wrap


def complete(ctx: WalkContext, p: dict[str, Any], obj: dict[str, Any], keep: set[str]) -> dict[str, Any]:
    """Add the properties P's conditionals require of ``obj`` (``dependentRequired``, ``dependentSchemas``,
    ``if``/``then``/``else`` with ``required``), so a witness is a value P declares; keys in ``keep`` are
    never added or changed. Returns ``obj`` (completed in place) when P already accepts it or has none."""
    conds = conditionals(p)
    if not conds or ctx.valid(ctx.p_doc, p, obj) is not False:
        return obj
    props = _dict_at(p, "properties")
    for _ in range(4):
        added = False
        for c in conds:
            holds = ctx.valid(ctx.p_doc, c.if_, obj)
            branch = c.then if holds else c.else_
            required = branch.get("required") if isinstance(branch, dict) else None
            if not holds and _meet_if(ctx, c, obj, required, keep):
                added = True  # the else branch asked for a key the witness must lack: the if is met instead
                continue
            for k in required if isinstance(required, list) else []:
                if isinstance(k, str) and k not in obj and k not in keep:
                    got = ctx.sample_p(props.get(k, True))
                    obj[k] = None if got is NO_WITNESS else got
                    added = True
        if not added:
            break
    return obj


def _meet_if(ctx: WalkContext, c: Cond, obj: dict[str, Any], required: Any, keep: set[str]) -> bool:
    """When ``required`` (the ``else`` branch's) names a key in ``keep`` that ``obj`` lacks, merge into ``obj``
    (in place) the properties of a sample of the ``if`` schema, keys in ``keep`` aside, so the ``if`` holds and
    the ``then`` branch (which must not require such a key either) applies. True when done."""
    blocked = isinstance(required, list) and any(isinstance(k, str) and k in keep and k not in obj for k in required)
    then_req = c.then.get("required") if isinstance(c.then, dict) else None
    if (
        not blocked
        or not isinstance(c.if_, dict)
        or (isinstance(then_req, list) and any(k in keep and k not in obj for k in then_req if isinstance(k, str)))
    ):
        return False
    met = ctx.sample_p(c.if_)
    if not isinstance(met, dict):
        return False
    trial = {**obj, **{k: x for k, x in met.items() if k not in keep}}
    if not ctx.valid(ctx.p_doc, c.if_, trial):
        return False
    obj.update(trial)
    return True


# -- values P declares ---------------------------------------------------------------------------------------
def samples_p(ctx: WalkContext, p: dict[str, Any], extra: tuple[Any, ...] | list[Any] = ()) -> list[Any]:
    """Values P declares: its sample, one with every declared property, and samples of P with each of
    ``extra`` (subschemas of P's document, e.g. P's own ``then``) merged in, then samples following P's
    other union alternatives (``choose``)."""
    out = [ctx.sample_p(p)]
    props = _dict_at(p, "properties")
    if props:
        out.append(ctx.sample_p({**p, "required": list(props)}))
    rest = {k: val for k, val in p.items() if k not in _NOT_SAMPLED}
    for sub in extra:
        with contextlib.suppress(NoSample, RecursionError):
            out.append(sample({"allOf": [rest, sub]}, ctx.p_doc))
    for k in range(1, 4):
        chosen = choose(ctx, rest, k)
        if chosen is None:
            break
        with contextlib.suppress(NoSample, RecursionError):
            out.append(sample(chosen, ctx.p_doc))
    return [x for x in out if x is not NO_WITNESS]


def choose(ctx: WalkContext, p: dict[str, Any], k: int) -> dict[str, Any] | None:
    """P with alternative ``k`` (modulo their count) taken in its own ``anyOf``/``oneOf`` and in those of
    its ``allOf`` members, so a sample can follow it (``sample`` alone takes the first); None when P has none."""
    found = False

    def take(node: Any) -> Any:
        nonlocal found
        try:
            node, _ = ctx.deref(node, ctx.p_doc)
        except RefError:
            return node
        if not isinstance(node, dict):
            return node
        for kw in ("anyOf", "oneOf"):
            subs = node.get(kw)
            if isinstance(subs, list) and len(subs) > 1:
                found = True
                branch = subs[k % len(subs)]
                rest = {key: val for key, val in node.items() if key != kw}
                return {"allOf": [rest, branch]} if isinstance(branch, dict) else rest
        return node

    out = take(p)
    if isinstance(out, dict) and isinstance(out.get("allOf"), list):
        out = {**out, "allOf": [take(m) for m in out["allOf"]]}
    return out if found else None


def sized_objects(ctx: WalkContext, p: Any, v: Any, pprops: dict[str, Any], p_addl: Any) -> list[Any]:
    """Objects P declares with as many properties as V's/P's ``minProperties``/``maxProperties`` make
    interesting (each bound, one less, one more): P's required properties first, then its other declared ones
    and those its conditionals declare (``then``, ``else``, ``dependentSchemas``, nested ``then``s: the keys an
    ``unevaluatedProperties: false`` beside them admits), then keys of its ``additionalProperties`` schema
    (declared values only); and the same sizes with the conditionals' keys before P's own optional ones (an
    ``else``'s keys are admitted only while the ``if``'s key is absent)."""
    from mcp_schema_audit.engine.nodes import dict_at, with_conditionals
    from mcp_schema_audit.engine.patterns import additional_keys
    from mcp_schema_audit.engine.scalars import int_or

    base = common(ctx, {**p, "type": "object"}, v)
    base = dict(base) if isinstance(base, dict) else {}
    declared = with_conditionals(p, pprops)
    pool = [(k, ctx.sample_p(s)) for k, s in declared.items() if k not in base]
    if isinstance(p_addl, dict) or p_addl is True:  # a map, or an open object: any other key
        child = ctx.sample_p(p_addl if isinstance(p_addl, dict) else {})
        taken = {**pprops, **dict_at(v, "properties")}
        patterns = [*dict_at(p, "patternProperties"), *dict_at(v, "patternProperties")]
        pool += [(k, child) for k in additional_keys(taken, patterns, count=8)]
    pool = [(k, x) for k, x in pool if x is not NO_WITNESS]
    conditional_first = [kx for kx in pool if kx[0] not in pprops] + [kx for kx in pool if kx[0] in pprops]
    sizes = {0, 1}
    for node in (p, v):
        for kw in ("minProperties", "maxProperties"):
            n = int_or(node.get(kw), -1)
            sizes |= {n - 1, n, n + 1}
    out = []
    for order in (pool, conditional_first) if conditional_first != pool else (pool,):
        for n in sorted(x for x in sizes if 0 <= x <= len(base) + len(order) and x <= 64):
            if n <= len(base):
                out.append(dict(list(base.items())[:n]))
            else:
                out.append({**base, **dict(order[: n - len(base)])})
    return out
