"""``contains`` with ``minContains`` (default 1) and ``maxContains``: how many items of an array match.

An applicator (the three steps of ``applicators``): arrays P declares with too few or too many items
matching V's ``contains`` are searched for (``_counted_arrays``); without one, P's own ``contains``
or its items inside V's, with counts at least as strict, prove the change harmless
(``_counts_met``); otherwise a ``schema-undecidable`` warning. Reference: JSON Schema 2020-12
Core §10.3.1.3, Validation §6.4.4-6.4.5.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from mcp_schema_audit.engine.applicators import MISSING, disjoint, equivalent, has_ref, inside
from mcp_schema_audit.engine.context import WalkContext
from mcp_schema_audit.engine.issue import NO_WITNESS, Issue, IssueKind, canon, short
from mcp_schema_audit.engine.nodes import Node, array_layout, dict_at
from mcp_schema_audit.engine.sampler import MAX_SAMPLE_SIZE, NoSample, sample, string_candidates
from mcp_schema_audit.engine.values import types_of
from mcp_schema_audit.engine.witness import common, samples_p
from mcp_schema_audit.wording import Text

#: Longest array built while searching ``contains`` witnesses.
_MAX_ARRAY = 100
_KEYS = ("contains", "minContains", "maxContains")


@dataclass(frozen=True)
class _Counts:
    """How many items must match ``contains`` on each side: at least ``min_*``, at most ``max_*`` (None: any)."""

    min_p: int
    max_p: int | None
    min_v: int
    max_v: int | None


def _count(node: dict[str, Any], kw: str, default: Any) -> Any:
    x = node.get(kw, default)
    if isinstance(x, float) and x.is_integer() and 0 <= x < 2**63:
        x = int(x)  # 2.0 counts as 2 for jsonschema and Ajv
    return x if isinstance(x, int) and not isinstance(x, bool) and x >= 0 else default


def contains(ctx: WalkContext, p: Node, v: Node, depth: int) -> list[Issue]:
    """V's ``contains`` with ``minContains`` (default 1) and ``maxContains``: how many items match.

    Breaks when P declares an array with too few (or too many) items matching V's ``contains``:
    before ``{"type": "array", "items": {"type": "string"}}``, after the same with
    ``"contains": {"const": "id"}`` as an inputSchema rejects ``[]``.
    """
    if all(canon(p.get(k)) == canon(v.get(k)) for k in _KEYS) and not has_ref(v.get("contains")):
        return []
    types = types_of(p)
    if types is not None and "array" not in types:
        return []  # contains constrains arrays only
    cp, cv = p.get("contains", MISSING), v.get("contains", MISSING)
    counts = _Counts(
        _count(p, "minContains", 1),
        _count(p, "maxContains", None),
        _count(v, "minContains", 1),
        _count(v, "maxContains", None),
    )
    changed = [k for k in _KEYS if canon(p.get(k)) != canon(v.get(k))]
    p_steps = [k for k in changed + list(_KEYS) if k in p][:1]
    v_steps = [k for k in changed + list(_KEYS) if k in v][:1]
    p_val = cp if cp is not MISSING else None

    def issue(kind: IssueKind, v_val: Any, detail: Text, witness: Any = NO_WITNESS) -> Issue:
        return Issue(kind, p_steps, v_steps, p_val, v_val, detail, witness)

    if (
        cv is not MISSING
        and counts.min_v == 0
        and counts.max_v is None
        and not (cp is not MISSING and counts.min_p >= 1)
    ):
        # minContains: 0 makes contains vacuous where it is read; a draft-07 host (ts-sdk-v1) ignores
        # minContains and still requires one matching item
        item_schema = dict_at(p, "items")
        w = ctx.pick_any_profile(p, v, [[], *([x] for x in samples_p(ctx, item_schema) if x is not NO_WITNESS)])
        if w is not NO_WITNESS:
            return [
                issue(
                    "looser-p",
                    cv,
                    Text.of(
                        "the {P} schema allows {value}; hosts that ignore minContains: 0 (draft-07 "
                        "Ajv) still require an item matching the {V} schema's 'contains'",
                        value=short(w),
                    ),
                    w,
                )
            ]
    if cv is MISSING or (counts.min_v == 0 and counts.max_v is None):
        if cp is MISSING:
            return []
        return [
            issue("looser-v", None, Text("the {P} schema requires items matching 'contains'; the {V} schema does not"))
        ]
    same = cp is not MISSING and equivalent(ctx, cp, cv, depth)
    if same and (counts.min_p, counts.max_p) == (counts.min_v, counts.max_v):
        return []  # the same contains, spelled differently
    items = p.get("items", True) if not isinstance(p.get("items"), list) else True
    prefix = array_layout(p, ctx.p_doc.dialect).prefix
    w = ctx.pick_valid(p, v, _counted_arrays(ctx, cp, cv, items, prefix, counts))
    if w is not NO_WITNESS:
        return [
            issue(
                "looser-p",
                cv,
                Text.of(
                    "the {P} schema allows {value}, which has too few or too many items matching the "
                    "{V} schema's 'contains'",
                    value=short(w),
                ),
                w,
            )
        ]
    if _counts_met(ctx, p, cp, cv, items, prefix, counts, same, depth):
        return [
            issue(
                "looser-v", cv, Text("'contains' changed; every array of the {P} schema still meets the {V} schema's")
            )
        ]
    return [
        issue(
            "undecidable",
            cv,
            Text(
                "'contains' in the {V} schema: no array of the {P} schema failing it was found, and none "
                "could be ruled out"
            ),
        )
    ]


def _counted_arrays(
    ctx: WalkContext, cp: Any, cv: Any, items: Any, prefix: list[Any], counts: _Counts
) -> list[list[Any]]:
    """Arrays P may declare, with numbers of items matching V's ``contains`` around both sides' counts: each
    of an item V's ``contains`` does not match (``outside``), one of P's ``contains`` (``mine``), one both
    match (``inside``) and one P's ``contains`` declares that V's does not match, repeated; then P's tuple
    slots first, each filled with a value failing V's ``contains`` when it has one."""
    matching = common(ctx, items, cv)
    # items of any type, where the schema's own samples are not enough (fresh objects: witnesses are kept)
    pool_any = (samples_p(ctx, items) if isinstance(items, dict) else []) + [None, True, 0, 0.5, "x", "", {}, []]
    outside = ctx.pick(items, cv, pool_any)
    mine = NO_WITNESS
    if cp is not MISSING:
        with contextlib.suppress(NoSample, RecursionError):
            mine = sample(cp, ctx.p_doc)
    mine_out = NO_WITNESS  # an item P's contains declares that V's contains does not match
    if cp is not MISSING:
        own = samples_p(ctx, cp) if isinstance(cp, dict) else []
        mine_out = ctx.pick(cp, cv, [x for x in (*own, *string_candidates(), *pool_any) if x is not NO_WITNESS])
    min_p, min_v, max_v = counts.min_p, counts.min_v, counts.max_v
    cands: list[list[Any]] = [[]]
    for x in [x for x in (outside, mine, matching, mine_out) if x is not NO_WITNESS]:
        for n in {1, min_p, max(min_v - 1, 0), (max_v or 0) + 1}:
            if 0 <= n <= _MAX_ARRAY:
                cands.append([x] * n)
    if mine is not NO_WITNESS and outside is not NO_WITNESS and min_p <= _MAX_ARRAY:
        cands.append([mine] * min_p + [outside])
    if matching is not NO_WITNESS and mine is not NO_WITNESS and max_v is not None and max_v < _MAX_ARRAY:
        cands.append([mine] * min_p + [matching] * (max_v + 1))
    if prefix and len(prefix) <= _MAX_ARRAY:
        head = []
        for slot in prefix:
            own_slot = ctx.sample_p(slot)
            failing = (
                ctx.pick(slot, cv, [x for x in (*samples_p(ctx, slot), *pool_any) if x is not NO_WITNESS])
                if isinstance(slot, dict)
                else NO_WITNESS
            )
            head.append(failing if failing is not NO_WITNESS else own_slot)
        if NO_WITNESS not in head:
            cands += [
                head[:k] + tail
                for k in range(1, len(head) + 1)
                for tail in list(cands)[:12]
                if k == len(head) or not tail
            ]
    return [c for c in cands if len(c) <= min(_MAX_ARRAY, MAX_SAMPLE_SIZE)]


def _counts_met(
    ctx: WalkContext,
    p: Node,
    cp: Any,
    cv: Any,
    items: Any,
    prefix: list[Any],
    counts: _Counts,
    same: bool,
    depth: int,
) -> bool:
    """Proven: every array P declares has enough items matching V's ``contains`` (P's ``contains`` inside V's
    with a count at least V's, or every item inside it and ``minItems`` enough) and not too many (a
    ``maxItems`` or P's own ``maxContains`` at most V's, or items disjoint from V's ``contains``)."""
    min_v, max_v = counts.min_v, counts.max_v
    enough = (
        min_v == 0
        or (cp is not MISSING and counts.min_p >= min_v and inside(ctx, cp, cv, depth))
        or (
            # every item matches V's contains (the prefix slots too), and there are enough of them
            _count(p, "minItems", 0) >= min_v
            and items is not False
            and inside(ctx, items, cv, depth)
            and all(inside(ctx, x, cv, depth) for x in prefix)
        )
    )
    few = (
        max_v is None
        or _count(p, "maxItems", None) is not None
        and _count(p, "maxItems", 0) <= max_v
        or (same and counts.max_p is not None and counts.max_p <= max_v)
        or (disjoint(ctx, items, cv, depth))
    )
    return bool(enough and few)
