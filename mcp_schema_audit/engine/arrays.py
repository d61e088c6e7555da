"""Arrays: ``items``/``prefixItems`` tuples (and their draft-07 and ``unevaluatedItems`` spellings,
``nodes.array_layout``), ``minItems``/``maxItems``, ``uniqueItems``. ``contains`` is an applicator
(``contains``)."""

from __future__ import annotations

from typing import Any

from mcp_schema_audit.engine.context import WalkContext
from mcp_schema_audit.engine.issue import NO_WITNESS, Issue, canon
from mcp_schema_audit.engine.nodes import Node, array_layout
from mcp_schema_audit.engine.sampler import number_candidates, string_candidates
from mcp_schema_audit.engine.scalars import bound_issues, int_or
from mcp_schema_audit.engine.settle import value_set
from mcp_schema_audit.engine.witness import array_wrap
from mcp_schema_audit.schema import json_type
from mcp_schema_audit.wording import Text

#: Longest array built for a witness (``maxItems`` above it: no witness, a warning).
MAX_WITNESS_ITEMS = 10_000
_NO_LIMIT = 10**9


def arrays(ctx: WalkContext, p: Node, v: Node, depth: int) -> list[Issue]:
    """The family of arrays: the items slot by slot (prefix, then the other items), ``minItems``, the longest
    length each side allows (``maxItems``, or ``items: false`` after a prefix), then ``uniqueItems``."""
    out: list[Issue] = []
    p_pre, p_pk, p_items, p_ik = array_layout(p, ctx.p_doc.dialect)
    v_pre, v_pk, v_items, v_ik = array_layout(v, ctx.v_doc.dialect)
    # the longest array each side allows: maxItems, or a closed tail after the prefix (items: false)
    p_len = min(int_or(p.get("maxItems"), _NO_LIMIT), len(p_pre) if p_items is False else _NO_LIMIT)
    v_len = min(int_or(v.get("maxItems"), _NO_LIMIT), len(v_pre) if v_items is False else _NO_LIMIT)
    for i in range(min(max(len(p_pre), len(v_pre)), p_len)):
        ps = p_pre[i] if i < len(p_pre) else (p_items if p_items is not None else True)
        vs = v_pre[i] if i < len(v_pre) else (v_items if v_items is not None else True)
        out += ctx.child(
            p,
            [p_pk, i] if i < len(p_pre) else [p_ik] if p_ik else [],
            ps,
            v,
            [v_pk, i] if i < len(v_pre) else [v_ik] if v_ik else [],
            vs,
            depth,
            i,
            array_wrap(ctx, p, v, i),
        )
    if v_items is not None and v_items is not True or p_items is not None:
        ps = p_items if p_items is not None else True
        vs = v_items if v_items is not None else True
        idx = max(len(p_pre), len(v_pre))
        if not (ps is True and vs is True) and idx < p_len:
            out += ctx.child(
                p,
                [p_ik] if p_ik else [],
                ps,
                v,
                [v_ik] if v_ik else [],
                vs,
                depth,
                idx,
                array_wrap(ctx, p, v, idx),
            )
    sizes = [0, 1, 2, int_or(p.get("minItems"), 0), int_or(v.get("minItems"), 1) - 1]
    if v_len < _NO_LIMIT:
        sizes.append(v_len + 1)
    cands = _sized_arrays(ctx, p, p_pre, p_items, sizes)
    out += bound_issues(ctx, p, v, "minItems", False, cands, p.get("minItems"), v.get("minItems"))
    if p_len != v_len and (p_len < _NO_LIMIT or v_len < _NO_LIMIT) and ("maxItems" in p or "maxItems" in v):
        # compared as the effective longest length, so items: false after the prefix ≡ maxItems: len(prefix)
        got = bound_issues(
            ctx,
            p,
            v,
            "maxItems",
            True,
            cands,
            None if p_len == _NO_LIMIT else p_len,
            None if v_len == _NO_LIMIT else v_len,
            ["maxItems"] if "maxItems" in p else [p_ik] if p_ik else [],
            ["maxItems"] if "maxItems" in v else [v_ik] if v_ik else [],
            "maxItems" if "maxItems" in v else v_ik,
        )
        for issue in got:
            issue.p_val, issue.v_val = p.get("maxItems"), v.get("maxItems")
        out += got
    if bool(p.get("uniqueItems")) != bool(v.get("uniqueItems")):
        out.append(_unique_items(ctx, p, v, p_pre, p_items, cands))
    return out


def _unique_items(ctx: WalkContext, p: Node, v: Node, p_pre: list[Any], p_items: Any, cands: list[list[Any]]) -> Issue:
    """``uniqueItems`` set on one side only; a witness (two equal items) when V is the side that sets it."""
    looser = bool(v.get("uniqueItems"))
    item = _first_item(ctx, p, p_pre, p_items)
    pairs = [[item, item]] if item is not NO_WITNESS else []
    w = ctx.pick(p, v, pairs + [c + c[-1:] for c in cands if c], "uniqueItems") if looser else NO_WITNESS
    return Issue(
        "looser-p" if looser else "looser-v",
        ["uniqueItems"] if "uniqueItems" in p else [],
        ["uniqueItems"] if "uniqueItems" in v else [],
        p.get("uniqueItems"),
        v.get("uniqueItems"),
        Text("uniqueItems changed"),
        w,
        delta={"keyword": "uniqueItems"},
    )


def _first_item(ctx: WalkContext, p: Node, p_pre: list[Any], p_items: Any) -> Any:
    base = ctx.sample_p({k: val for k, val in p.items() if k != "minItems"} | {"type": "array"})
    if isinstance(base, list) and base:
        return base[0]
    return ctx.sample_p(p_pre[0] if p_pre else (p_items if p_items is not None else True))


def _sized_arrays(ctx: WalkContext, p: Node, p_pre: list[Any], p_items: Any, sizes: list[int]) -> list[list[Any]]:
    """Arrays P declares of the given lengths: P's own sample, grown with items P's ``items`` accepts, all
    distinct when P has ``uniqueItems`` (11 distinct strings to exceed ``maxItems: 10``)."""
    sampled = ctx.sample_p({k: val for k, val in p.items() if k != "minItems"} | {"type": "array"})
    base: list[Any] = sampled if isinstance(sampled, list) else []
    wanted = sorted({n for n in sizes if 0 <= n <= MAX_WITNESS_ITEMS})
    if not wanted:
        return []
    tail = p_items if p_items is not None else True
    unique = bool(p.get("uniqueItems"))
    need = max(wanted)
    filler = _items_for(ctx, tail, need, unique, exclude=base)
    out = []
    for n in wanted:
        arr = list(base[:n])
        for j in range(len(arr), n):
            if j < len(p_pre):
                got = ctx.sample_p(p_pre[j])
                arr.append(None if got is NO_WITNESS else got)
            elif filler:
                arr.append(
                    filler[(j - len(base)) % len(filler)]
                    if not unique
                    else filler[j - len(base)]
                    if j - len(base) < len(filler)
                    else filler[-1]
                )
        if len(arr) == n:
            out.append(arr)
    return out


def _items_for(ctx: WalkContext, schema: Any, n: int, unique: bool, exclude: list[Any]) -> list[Any]:
    """Up to ``n`` values ``schema`` (a subschema of P's document) accepts, distinct when ``unique``."""
    first = ctx.sample_p(schema)
    if not unique:
        return [] if first is NO_WITNESS else [first]
    seen = {canon(x) + json_type(x) for x in exclude}
    out: list[Any] = []

    def add(x: Any) -> bool:
        key = canon(x) + json_type(x)
        if x is NO_WITNESS or key in seen or not ctx.valid(ctx.p_doc, schema, x):
            return False
        seen.add(key)
        out.append(x)
        return len(out) >= n

    pools = [
        [first],
        value_set(schema) if isinstance(schema, dict) else None,
        string_candidates(),
        number_candidates(schema if isinstance(schema, dict) else {}, integer=True),
    ]
    for pool in pools:
        for x in pool or []:
            if add(x):
                return out
    kind = json_type(first) if first is not NO_WITNESS else "string"
    for i in range(n * 2 + 10):
        made: Any = (
            f"{first}{i}"
            if kind == "string"
            else i
            if kind in ("integer", "number")
            else ({**first, "_": i} if kind == "object" else [i] if kind == "array" else NO_WITNESS)
        )
        if made is NO_WITNESS or add(made):
            break
        if len(out) == 0 and i > 20:
            break
    return out
