"""Keywords that constrain a value through other schemas: ``allOf`` left unmerged, ``not``,
``if``/``then``/``else``, ``dependentSchemas`` (and draft-07 schema-valued ``dependencies``); and
the proofs the applicator families share (``inside``, ``equivalent``, ``disjoint``). ``contains``
follows the same steps in ``contains``.

Each family sees one pair of nodes, P (producing) and V (validating), and returns ``Issue``s in
P/V terms. Each follows the same three steps, so a verdict is never a silent guess:

1. **witness search**: values P accepts are built from P's declarations and from V's conditions
   (a value that triggers V's ``if``, that matches V's ``not``, an array with too few or too many
   items matching V's ``contains``); the first one that P accepts and V rejects, checked with
   python ``jsonschema``, makes the change ``breaking`` (the engine then confirms it per host
   profile on the whole instance);
2. **proof**: when no witness turns up, a sufficient condition for "every value P declares meets
   V's keyword" is checked (P inside V's ``then`` and ``else``; P disjoint from V's ``not``; P's
   ``contains`` inside V's with a count at least as strict); proven changes give no finding
   (or ``info`` when P only got stricter);
3. otherwise a ``schema-undecidable`` warning names the keyword and why.

Reference: JSON Schema 2020-12 Core §10.2 (applicators), Validation §6.4.4-6.4.5 (minContains,
maxContains); draft-07 Validation §6.5.7 (dependencies).
"""

from __future__ import annotations

import contextlib
from dataclasses import replace
from typing import Any

from mcp_schema_audit.engine.conditions import Cond, conditionals
from mcp_schema_audit.engine.context import WalkContext
from mcp_schema_audit.engine.issue import NO_WITNESS, Issue, IssueKind, canon, short
from mcp_schema_audit.engine.nodes import JSON_TYPES, Node, dict_at, list_at, names
from mcp_schema_audit.engine.sampler import NoSample, sample
from mcp_schema_audit.engine.settle import value_set
from mcp_schema_audit.engine.values import sample_typed, types_of, types_overlap
from mcp_schema_audit.engine.witness import common, samples_p
from mcp_schema_audit.schema import RefError
from mcp_schema_audit.wording import Text

#: Issue kinds that mean "P may declare a value V rejects" (or that the engine could not tell).
UNSAFE_KINDS: frozenset[IssueKind] = frozenset(
    {
        "enum-extra-p",
        "const-changed",
        "enum-only-v",
        "type-extra-p",
        "type-only-v",
        "prop-extra-p-closed",
        "required-extra-v",
        "opened-p",
        "looser-p",
        "format",
        "pattern",
        "branch-extra-p",
        "oneof-overlap",
        "undecidable",
        "invalid",
    }
)
#: The same for plain set inclusion (inside ``not``): a key an open object merely tolerates counts too.
SET_UNSAFE_KINDS: frozenset[IssueKind] = UNSAFE_KINDS | {"prop-extra-v"}
#: A keyword absent from a node (``None`` is a JSON value a keyword may hold).
MISSING: Any = object()


def blend(base: Any, issue: Issue) -> Any:
    """Put the part of ``issue``'s witness that makes the difference into ``base`` (both instances of one node)."""
    w = issue.witness
    if not isinstance(base, dict) or not isinstance(w, dict):
        return w
    out = dict(base)
    key = issue.inst[0] if issue.inst else None
    if issue.kind == "required-extra-v" and key is not None:
        out.pop(key, None)
    elif key is not None and key in w:
        out[key] = w[key]
    else:
        out.update(w)
    return out


def has_ref(value: Any) -> bool:
    """Does ``value`` (a subschema, or a tuple of them) use ``$ref``? Then equal text may still differ."""
    return '"$ref"' in canon(value)


# -- proofs --------------------------------------------------------------------------------------------------
def inside(ctx: WalkContext, p: Any, v: Any, depth: int, kinds: frozenset[IssueKind] = UNSAFE_KINDS) -> bool:
    """Proven: every value P's node declares is accepted by V's node (a comparison with no unsafe issue)."""
    return not any(i.kind in kinds for i in ctx.compare(p, v, depth + 1))


def equivalent(ctx: WalkContext, a: Any, b: Any, depth: int) -> bool:
    """Proven: P's node ``a`` and V's node ``b`` accept the same values (inclusion both ways, as sets)."""
    return inside(ctx, a, b, depth, SET_UNSAFE_KINDS) and inside(ctx.swapped(), b, a, depth, SET_UNSAFE_KINDS)


def all_of(ctx: WalkContext, p: Node, v: Node, depth: int) -> list[Issue]:
    """An ``allOf`` of V the engine could not merge (members with ``anyOf``, ``not``, ``if`` …): P must meet
    every member. A member also in P (same text, or P's member at the same index inside it) is met."""
    vs = v.get("allOf")
    if not isinstance(vs, list):
        return []
    ps = list_at(p, "allOf")
    have = {canon(x) for x in ps}
    out: list[Issue] = []
    variants: list[Any] | None = None
    for i, vi in enumerate(vs):
        if canon(vi) in have and not has_ref(vi):
            continue
        if i < len(ps) and inside(ctx, ps[i], vi, depth):
            continue
        for issue in ctx.compare(p, vi, depth + 1):
            if issue.kind not in UNSAFE_KINDS:
                continue  # P against a fragment of V: only what V's member rejects is news
            if issue.witness is NO_WITNESS or not ctx.valid(ctx.p_doc, p, issue.witness):
                # the member's witness ignores the rest of P (P's own allOf), or none was found against the
                # bare member: rebuild it from P's alternatives, one sample of P per JSON type among them
                if variants is None:
                    variants = samples_p(ctx, p) + [sample_typed(ctx, p, t) for t in JSON_TYPES]
                blended = [blend(b, issue) for b in variants] if issue.witness is not NO_WITNESS else []
                issue = replace(issue, witness=ctx.pick_valid(p, v, blended + variants))
            out.append(issue)
    return out


def not_(ctx: WalkContext, p: Node, v: Node, depth: int) -> list[Issue]:
    """V's ``not: N``: P must declare no value N matches.

    Breaks when a value P declares matches N: before ``{"type": "string"}``, after
    ``{"type": "string", "not": {"const": ""}}`` as an inputSchema property rejects ``""`` the model
    was told it may send. Proof without a witness: P disjoint from N, or N inside P's own ``not``.
    """
    np_, nv = p.get("not", MISSING), v.get("not", MISSING)
    if (canon(np_) == canon(nv) and not has_ref(nv)) if np_ is not MISSING and nv is not MISSING else np_ is nv:
        return []
    if nv is MISSING:
        return [
            Issue(
                "looser-v",
                ["not"],
                [],
                np_,
                None,
                Text("the {P} schema excludes the values its 'not' schema matches; the {V} schema does not"),
            )
        ]
    p_steps = ["not"] if np_ is not MISSING else []
    if np_ is not MISSING and equivalent(ctx, np_, nv, depth):
        return []  # the same exclusion, spelled differently
    cands = [common(ctx, p, nv)] + samples_p(ctx, p)
    with contextlib.suppress(NoSample, RecursionError):
        cands.append(sample(nv, ctx.v_doc))
    cands += value_set(p) or []
    made = tuple(v.where(["not"]))[-1:] == ("oneOf",)  # merge._exclusive's: a oneOf's other branches
    try:
        n_node, _ = ctx.deref(nv, ctx.v_doc)
        if isinstance(n_node, dict):
            cands += (value_set(n_node) or [])[:1000]
    except RefError:
        pass
    w = ctx.pick_valid(p, v, cands)
    if w is not NO_WITNESS and made:
        why = Text("a value of the {P} schema matches 2 oneOf branches of the {V} schema")
        return [Issue("oneof-overlap", [], ["not"], None, None, why, w)]
    if w is not NO_WITNESS:
        why = Text.of("the {P} schema allows {w}, which the {V} schema's 'not' excludes", w=short(w))
        return [Issue("looser-p", p_steps, ["not"], None if np_ is MISSING else np_, nv, why, w)]
    if made:  # no value found in two branches: the branches' own changes are reported where they are written
        return []
    if disjoint(ctx, p, nv, depth) or (np_ is not MISSING and inside(ctx.swapped(), nv, np_, depth, SET_UNSAFE_KINDS)):
        return (
            []
            if np_ is MISSING
            else [
                Issue(
                    "looser-v",
                    ["not"],
                    ["not"],
                    np_,
                    nv,
                    Text("'not' changed; the {P} schema still excludes every value the {V} schema's 'not' matches"),
                )
            ]
        )
    return [
        Issue(
            "undecidable",
            p_steps,
            ["not"],
            None if np_ is MISSING else np_,
            nv,
            Text(
                "'not' in the {V} schema: no value of the {P} schema it excludes was found, and none could be ruled out"
            ),
        )
    ]


def disjoint(ctx: WalkContext, p: Any, n: Any, depth: int = 0) -> bool:
    """Proven: no value P's node declares matches ``n`` (a node of V's document)."""
    ctx.tick()
    if depth > 32:
        return False
    try:
        p, _ = ctx.deref(p, ctx.p_doc)
        n, _ = ctx.deref(n, ctx.v_doc)
    except RefError:
        return False
    if p is False or n is False:
        return True
    if not isinstance(p, dict) or not isinstance(n, dict):
        return False
    for kw in ("anyOf", "oneOf"):
        if isinstance(n.get(kw), list) and n[kw]:
            base = {k: val for k, val in n.items() if k != kw}
            return all(disjoint(ctx, p, {**base, **b} if isinstance(b, dict) else b, depth + 1) for b in n[kw])
    for doc, a, b in ((ctx.p_doc, p, n), (ctx.v_doc, n, p)):
        vals = value_set(a)
        if (
            vals is not None
            and len(vals) <= 1000
            and all(ctx.valid(ctx.v_doc if doc is ctx.p_doc else ctx.p_doc, b, x) is False for x in vals)
        ):
            return True
    tp, tn = types_of(p), types_of(n)
    if tp is not None and tn is not None and not types_overlap({"type": sorted(tp)}, {"type": sorted(tn)}):
        return True
    if tp is None or not tp <= {"object"}:
        return False
    # P's values are objects: a key n requires that P never has, or a shared key whose values are disjoint
    pprops = dict_at(p, "properties")
    nprops = dict_at(n, "properties")
    preq, nreq = set(names(p.get("required"))), set(names(n.get("required")))
    closed = p.get("additionalProperties") is False and not p.get("patternProperties")
    if closed and any(isinstance(k, str) and k not in pprops for k in nreq):
        return True
    for key, ns in nprops.items():
        if key in pprops and (key in nreq or key in preq) and disjoint(ctx, pprops[key], ns, depth + 1):
            return True
    return False


def if_then_else(ctx: WalkContext, p: Node, v: Node, depth: int) -> list[Issue]:
    """V's conditionals must hold for every value P declares.

    Breaks when P declares a value that meets V's condition but not its consequence: before
    ``{"properties": {"kind": {"enum": ["a", "b"]}, "x": {}}}``, after the same with
    ``"if": {"properties": {"kind": {"const": "a"}}}, "then": {"required": ["x"]}`` as an
    inputSchema rejects ``{"kind": "a"}``. The same conditional on both sides (same ``if``, same
    ``dependentSchemas`` key) compares ``then`` with ``then`` and ``else`` with ``else``.
    """
    if all(
        canon(p.get(k)) == canon(v.get(k)) and not has_ref(v.get(k))
        for k in ("if", "then", "else", "dependentSchemas", "dependentRequired", "dependencies")
    ):
        return []
    # P's draft-07 `dependencies` in a 2019-09/2020-12 schema bind only Ajv hosts: P is read without them
    pc = {c.key: c for c in conditionals(p, legacy=ctx.p_doc.dialect not in ("2020-12", "2019-09"))}
    vc = {c.key: c for c in conditionals(v)}
    for key, c in vc.items():  # the same test spelled differently (const ↔ one-value enum, $ref …)
        if key not in pc and c.steps == ["if"]:
            twin = next(
                (
                    k
                    for k, o in pc.items()
                    if k not in vc and o.steps == ["if"] and equivalent(ctx, o.if_, c.if_, depth)
                ),
                None,
            )
            if twin is not None:
                pc[key] = pc.pop(twin)
    out: list[Issue] = []
    for key, c in pc.items():
        if key not in vc:
            out.append(
                Issue(
                    "looser-v",
                    c.steps,
                    [],
                    c.then,
                    None,
                    Text("the {P} schema adds a condition the {V} schema does not have"),
                )
            )
    for key, c in vc.items():
        mine = pc.get(key)
        if (
            mine is not None
            and canon((mine.then, mine.else_)) == canon((c.then, c.else_))
            and not has_ref((c.if_, c.then, c.else_))
        ):
            continue
        out += _one_conditional(ctx, p, v, c, mine, depth)
    return out


def _one_conditional(ctx: WalkContext, p: Node, v: Node, c: Cond, mine: Cond | None, depth: int) -> list[Issue]:
    """V's conditional ``c`` against P's conditional of the same trigger (``mine``, or None): the matching
    ``then``/``else`` schemas compared, then a witness search and a proof for what V's consequences ask."""
    out: list[Issue] = []
    branch_issues: list[Issue] = []  # unsafe issues between the matching then/else schemas
    if mine is not None:
        for ps, vs, p_steps, v_steps in (
            (mine.then, c.then, mine.then_steps, c.then_steps),
            (mine.else_, c.else_, mine.else_steps, c.else_steps),
        ):
            if ps is True and vs is True:
                continue
            got = ctx.child(p, p_steps, ps, v, v_steps, vs, depth)
            for issue in got:
                if issue.kind not in UNSAFE_KINDS:
                    out.append(issue)
                else:
                    branch_issues.append(issue)
        if not branch_issues:
            return out
    # V's consequences P may miss: witness search, then proof
    w = ctx.pick_valid(p, v, _conditional_candidates(ctx, p, c, mine, branch_issues, depth))
    what = "if/then/else" if c.steps == ["if"] else f"{c.steps[0]} {c.steps[1]!r}"
    if w is not NO_WITNESS:
        return out + [
            Issue(
                "looser-p",
                mine.steps if mine else [],
                c.steps,
                mine.then if mine else None,
                c.then,
                Text.of("the {P} schema allows {w}, which fails the {V} schema's {what}", w=short(w), what=what),
                w,
            )
        ]
    then_ok = c.then is True or inside(ctx, p, c.then, depth) or disjoint(ctx, p, c.if_, depth)
    else_ok = c.else_ is True or inside(ctx, p, c.else_, depth) or inside(ctx, p, c.if_, depth)
    if then_ok and else_ok:
        return out
    return out + [
        Issue(
            "undecidable",
            mine.steps if mine else [],
            c.steps,
            mine.then if mine else None,
            c.then,
            Text.of(
                (
                    "the {V} schema's {what}: no value of the {P} schema failing it was "
                    "found, and the {P} schema could not be proven to meet it"
                ),
                what=what,
            ),
        )
    ]


def _conditional_candidates(
    ctx: WalkContext, p: dict[str, Any], c: Cond, mine: Cond | None, branch_issues: list[Issue], depth: int
) -> list[Any]:
    """Values of P that may fail V's conditional ``c``: P's witnesses against V's ``then`` blended into values
    meeting V's ``if`` (the triggers), against V's ``else`` into values failing it, the witnesses of
    ``branch_issues`` (between the matching ``then``/``else`` schemas), then the triggers themselves."""
    triggers = samples_p(ctx, p, [c.if_] + ([mine.if_, mine.then] if mine else []))
    shared = common(ctx, p, c.if_) if isinstance(c.if_, (dict, bool)) else NO_WITNESS
    if shared is not NO_WITNESS:
        triggers.insert(0, shared)
    # values of P that fail V's condition (so V's else applies): what P declares and the condition rejects
    others = (
        [i.witness for i in ctx.compare(p, c.if_, depth + 1) if i.kind in UNSAFE_KINDS and i.witness is not NO_WITNESS]
        if c.else_ is not True
        else []
    )
    cands: list[Any] = []
    for branch, bases in ((c.then, triggers), (c.else_, others + triggers)):
        if branch is True:
            continue
        for issue in ctx.compare(p, branch, depth + 1):
            if issue.kind in UNSAFE_KINDS and issue.witness is not NO_WITNESS:
                cands += [blend(t, issue) for t in bases] + [issue.witness]
    cands += others
    for issue in branch_issues:
        if issue.witness is not NO_WITNESS:
            cands += [blend(t, issue) for t in triggers] + [issue.witness]
    cands += triggers
    return cands
