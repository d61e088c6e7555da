"""Unions: the branches of P and V (``anyOf``/``oneOf``, type lists and nullable spellings, flattened by
``normalize``) paired across versions.

Each P branch is paired with the V branch that matches it best: an identical branch first, then the
one with the fewest and mildest differences (``_score``), so an ``anyOf`` of open objects whose
properties overlap never pairs ``Long`` with ``Short``. A P branch with a closed value set is matched
value by value against the whole V union. A P branch no V branch covers is a new alternative; a V
branch no P branch was paired with is a lost one (compatible for outputs, for inputs the model may
still send it). For a V ``oneOf``, a value P declares that matches two V branches is an overlap.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import replace
from typing import Any

from mcp_schema_audit.engine.confirm import RULE_SEVERITY_FOR_KIND
from mcp_schema_audit.engine.context import WalkContext
from mcp_schema_audit.engine.issue import NO_WITNESS, Issue, IssueKind, canon, short
from mcp_schema_audit.engine.nodes import Node, dict_at
from mcp_schema_audit.engine.sampler import NoSample, number_candidates, sample, string_candidates
from mcp_schema_audit.engine.settle import value_set
from mcp_schema_audit.engine.values import (
    rejecting_keyword,
    sample_typed,
    type_candidates,
    types_of,
    types_overlap,
)
from mcp_schema_audit.engine.witness import samples_p
from mcp_schema_audit.schema import json_type, type_set
from mcp_schema_audit.vocabulary import JSON_TYPE_ORDER
from mcp_schema_audit.wording import Text


def _score(issues: list[Issue]) -> int:
    """How far apart a P branch and a V branch are: breaking kinds weigh most, then warnings, then infos."""
    out = 0
    for i in issues:
        sev = RULE_SEVERITY_FOR_KIND.get(i.kind)
        out += 10_000 if sev == "breaking" else 100 if sev == "warning" else 1
    return out


def union(ctx: WalkContext, bp: list[Any], bv: list[Any], v_node: Any, depth: int) -> list[Issue]:
    """P's branches ``bp`` against V's branches ``bv`` (``v_node``: V's whole node, a union or one plain node).

    Issues in order: P branches with a closed value set (matched value by value), then each other P branch
    with its best V branch (or as a new alternative), in P's order; V branches no P branch was paired with,
    in V's order; then a value overlapping in V's ``oneOf``. Branch paths are absolute (``p_abs``/``v_abs``).
    """
    issues: list[Issue] = []
    matched_v: set[int] = set()
    taken: dict[int, int] = {}  # V branch → how many P branches were paired with it perfectly
    results: list[tuple[Any, int | None, list[Issue], int]] = []
    new_types: list[tuple[Any, Issue]] = []  # P branches no V branch covers, with their issue
    for pb in bp:
        pvals = value_set(pb)
        if pvals is not None:
            issues += _value_branch(ctx, pb, pvals, bv, v_node, matched_v)
            continue
        best: tuple[int, int, int | None, list[Issue]] | None = None
        same_type = type_set(pb)
        order = sorted(range(len(bv)), key=lambda i: (canon(bv[i]) != canon(pb), type_set(bv[i]) != same_type))
        for vi in order:
            vb = bv[vi]
            if not types_overlap(pb, vb):
                continue
            trial = ctx.compare(pb, vb, depth + 1)
            score = _score(trial)
            rank = (score, vi in taken)
            if best is None or rank < (best[0], best[1]):
                best = (score, int(vi in taken), vi, trial)
            if score == 0:
                break
        if best is None:
            results.append((pb, None, [], 0))
            continue
        score, _, paired, trial = best
        if score == 0 and paired is not None:
            taken[paired] = taken.get(paired, 0) + 1
        results.append((pb, paired, trial, score))
        if paired is not None:
            matched_v.add(paired)
    for pb, paired, trial, _ in results:
        hard = any(RULE_SEVERITY_FOR_KIND.get(i.kind) == "breaking" for i in trial)
        if paired is None or (hard and taken.get(paired, 0) > 0 and len(bp) > len(bv)):
            issue = _new_branch(ctx, pb, bv, v_node, paired is None and len(bv) == 1, trial)
            new_types.append((pb, issue))
            issues.append(issue)
            continue
        trial = [j for j in (_repick(ctx, i, pb, bv, v_node) for i in trial) if j is not None]
        if any("null" in (types_of(b) or ()) for b in bp):
            # "the V side also takes null on Ajv": so does the P union, in another branch
            trial = [i for i in trial if not (i.kind == "type-extra-v" and i.v_path[-1:] == ["nullable"])]
        issues.extend(trial)
    # a type branch of P that no V branch takes replaces V's unmatched type branches: one change, one finding
    replaced = any(i.kind == "type-extra-p" and not i.inst and set(pb) <= {"type"} for pb, i in new_types)
    for vi, vb in enumerate(bv):
        if vi not in matched_v:
            pure = set(vb) <= {"type"}
            if pure and replaced:
                continue
            kind: IssueKind = "type-extra-v" if pure else "branch-extra-v"
            issues.append(
                Issue(
                    kind,
                    [],
                    list(vb.where(["type"] if pure else [])),
                    None,
                    vb.get("type") if pure else dict(vb),
                    Text.of(
                        "{value} of the {V} schema has no counterpart in the {P} schema",
                        value=short(vb.get("type")) if pure else "an alternative",
                    ),
                    v_abs=True,
                    delta={"branch": canon(vb)},
                )
            )
    if isinstance(v_node, Node) and isinstance(v_node.get("oneOf"), list) and len(bv) > 1:
        issues.extend(_oneof_overlap(ctx, bp, v_node))
    return issues


def _value_branch(
    ctx: WalkContext, pb: Node, pvals: list[Any], bv: list[Any], v_node: Any, matched_v: set[int]
) -> list[Issue]:
    """A P branch with a closed value set, matched value by value against the whole V union (an enum
    split across ``anyOf`` branches is still the same enum)."""
    out: list[Issue] = []
    kw = "const" if "const" in pb else "enum" if "enum" in pb else "type"
    p_path = list(pb.where([kw]))
    # V's own keyword where V is one plain node (its sibling type or enum excluded the value)
    v_kw = next((k for k in ("type", "enum", "const") if len(bv) == 1 and k in bv[0]), None)
    v_path = [] if v_kw is None else list(bv[0].where([v_kw]))
    open_hits = False
    typed_done: set[str] = set()  # a type no V branch takes is one change, whatever its values (true, false)
    for x in pvals:
        hits = [vi for vi, vb in enumerate(bv) if ctx.valid(ctx.v_doc, vb, x)]
        matched_v.update(hits)
        open_hits = open_hits or any(value_set(bv[vi]) is None for vi in hits)
        if not hits and ctx.valid(ctx.v_doc, v_node, x) is False:
            # a value of a JSON type no V branch takes is a type change, whatever P spells it with
            v_types = [type_set(b) for b in bv]
            same_type = [
                b
                for b, ts in zip(bv, v_types, strict=False)
                if ts is None or json_type(x) in ts or (json_type(x) == "integer" and "number" in ts)
            ]
            typed = kw == "type" or not same_type
            listed = any("enum" in b or "const" in b for b in bv)
            kind: IssueKind
            if len(same_type) == 1 and not (listed and not typed):
                # the one V branch of its type rejects it: for a type (P's null or boolean), or for another
                # keyword (a bound, a pattern, a 'not'), which the finding names
                why = rejecting_keyword(ctx, same_type[0], x)
                kind = "type-extra-p" if typed else "looser-p"
                here = list(same_type[0].where([why])) if why else v_path
            else:
                kind = "type-extra-p" if typed else "enum-extra-p"
                here = v_path
            if kind == "type-extra-p" and kw == "type":
                if json_type(x) in typed_done:
                    continue
                typed_done.add(json_type(x))
            out.append(
                Issue(
                    kind,
                    p_path,
                    here,
                    pb.get(kw),
                    bv[0].get(v_kw) if v_kw else None,
                    Text.of(("value {x} of the {P} schema is accepted by no branch of the {V} schema"), x=short(x)),
                    x,
                    p_abs=True,
                    v_abs=bool(here),
                    delta={"type": json_type(x)} if typed else {"value": x},
                )
            )
    if open_hits and kw != "type":
        # as for a single branch: a closed value set where the V side accepts any value of the type
        out.append(
            Issue(
                "enum-only-p",
                p_path,
                [],
                pb.get(kw),
                None,
                Text.of("the {P} schema restricts values to {pvals}, the {V} schema does not", pvals=short(pvals)),
                p_abs=True,
            )
        )
    return out


def _new_branch(ctx: WalkContext, pb: Node, bv: list[Any], v_node: Any, only_type: bool, trial: list[Issue]) -> Issue:
    """A P branch no V branch covers: one issue, with a witness the whole V union rejects."""
    cands: list[Any] = [i.witness for i in trial if i.witness is not NO_WITNESS and not i.inst]
    w = ctx.pick(pb, v_node, cands + _union_candidates(ctx, pb, bv))
    pure = set(pb) <= {"type"}
    kind: IssueKind = "type-extra-p" if pure or only_type else "branch-extra-p"
    what = short(pb.get("type")) if pure else "an alternative"
    v_steps = ["type"] if only_type and isinstance(v_node, Node) and "type" in v_node else []
    return Issue(
        kind,
        list(pb.where(["type"] if pure and "type" in pb else [])),
        v_steps,
        pb.get("type") if pure else dict(pb),
        None,
        Text.of("{what} of the {P} schema is accepted by no branch of the {V} schema", what=what),
        w,
        p_abs=True,
        delta={"branch": canon(pb)},
    )


def _union_candidates(ctx: WalkContext, pb: Node, bv: list[Any]) -> list[Any]:
    """Values to try against a whole V union for P's branch ``pb``: P's samples, each of P's types, and the values
    at the edges of every V branch's bounds (so a value in the gap between disjoint branches, ``anyOf: [{minimum:
    2}, {maximum: 0}]`` → 1, is among them)."""
    cands: list[Any] = [ctx.sample_p(pb), *samples_p(ctx, pb)[:4]]
    bases = [c for c in cands[:3] if isinstance(c, (dict, list)) and c]
    ts = type_set(pb)
    for t in [t for t in JSON_TYPE_ORDER if ts is None or t in ts or (t == "integer" and "number" in ts)]:
        cands += type_candidates(ctx, pb, t)
    for vb in bv:
        if any(k in vb for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")):
            cands += number_candidates(vb, integer=ts == {"integer"})
        names = _key_names(pb)
        for base in bases:
            cands += _size_edges(vb, base, names)
        cands += _size_edges(vb, None, names) + (_size_edges(vb) if names else [])
    return cands + string_candidates()


#: Filler values of the objects and arrays ``_size_edges`` builds (one of them is usually what P's items or
#: additionalProperties take)
_FILLERS: tuple[Any, ...] = (0, "a", None, True, {})


def _key_names(pb: Any) -> list[str]:
    """Key names P's branch ``pb`` takes beyond its listed properties: examples of its ``patternProperties``
    regexes and of its ``propertyNames`` (a map whose keys must match), up to 8."""
    from mcp_schema_audit.engine.patterns import name_candidates, pattern_keys, search_any

    out: list[str] = []
    rules = [(pat, pattern_keys(pat, count=4)) for pat in list(dict_at(pb, "patternProperties"))[:4]]
    names = pb.get("propertyNames")
    if isinstance(names, dict) and isinstance(names.get("pattern"), str):
        rules.append((names["pattern"], name_candidates(names)))
    elif isinstance(names, dict):
        out += name_candidates(names)
    for pat, examples in rules:  # an example and its extensions the regex still takes: several distinct keys
        out += [k for e in examples for k in (e, e + "a", e + "b", e + "1") if search_any(pat, k)]
    return list(dict.fromkeys(out))[:8]


def _size_edges(vb: Node, base: Any = None, names: list[str] | None = None) -> list[Any]:
    """Values just outside V branch ``vb``'s sizes: strings one shorter or longer than its length bounds, objects
    one key short of or past its property counts and one without its required keys, arrays one item short of or
    past its item counts (``anyOf: [{required: ["k"]}, {maxProperties: 0}]`` → ``{"_": 0}``).

    With ``base`` (a sample of P's branch: an object or an array), the objects and arrays are built on it: its
    keys (items) first, filler ones after, and the object without ``vb``'s required keys keeps the others, so a
    gap P's own ``required`` keys lead into is reached (P ``required: [a]`` against ``anyOf: [{required: [b]},
    {maxProperties: 1}]`` → ``{"a": 0, "_1": 0}``). Filler keys are ``names`` first (keys P's own key rules
    take: ``patternProperties: {"^p_": …}`` closed by ``additionalProperties: false`` → ``p_a``), then ``_i``."""
    keys = list(base.items()) if isinstance(base, dict) else []
    items = list(base) if isinstance(base, list) else []
    out: list[Any] = []
    for kw in ("minLength", "maxLength", "minProperties", "maxProperties", "minItems", "maxItems"):
        n = vb.get(kw)
        if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= 10_000:
            continue
        sizes = [max(n - 1, 0), n + 1]
        if kw.endswith("Length"):
            out += ["a" * k for k in sizes] if base is None else []
        elif kw.endswith("Properties") and n <= 64 and (base is None or keys):
            out += [_sized(keys, k, f, names or []) for k in sizes for f in _FILLERS]
        elif kw.endswith("Items") and n <= 64 and (base is None or items):
            out += [(items + [f] * k)[:k] for k in sizes for f in _FILLERS]
    required = vb.get("required")
    if isinstance(required, list) and required and (base is None or keys):
        out += [{**{k: x for k, x in keys if k not in required}, "_": f} for f in _FILLERS]
    return out


def _sized(keys: list[tuple[str, Any]], k: int, filler: Any, names: list[str]) -> dict[str, Any]:
    """An object of ``k`` keys: ``keys`` first (as many as fit), then ``names``, then ``_i`` keys, holding
    ``filler``."""
    out = dict(keys[:k])
    for name in names:
        if len(out) >= k:
            break
        out.setdefault(name, filler)
    i = 0
    while len(out) < k:
        out.setdefault(f"_{i}", filler)
        i += 1
    return out


def _repick(ctx: WalkContext, issue: Issue, pb: Any, bv: list[Any], v_node: Any) -> Issue | None:
    """A leaf witness chosen against one V branch may be accepted by another: re-pick it against the union (a
    type's samples; for a bound or another leaf change, also the edges of every V branch: ``_union_candidates``).

    None when the issue disappears: P's ``nullable: true`` where another branch of V accepts null. A change below
    the branch (``inst``) keeps its witness, except a required key, which the witness lacks at the branch's own
    place: it is re-picked among objects without that key; a change below it whose witness the union takes, with
    P's other declared properties added (``_with_declared``)."""
    missing = issue.inst[0] if issue.kind == "required-extra-v" and len(issue.inst) == 1 else None
    if issue.witness is NO_WITNESS or ctx.valid(ctx.v_doc, v_node, issue.witness) is False:
        return issue
    if issue.inst and missing is None:
        found = ctx.pick(pb, v_node, _with_declared(ctx, pb, issue.witness, issue.inst[0]))
        return issue if found is NO_WITNESS else replace(issue, witness=found)
    if issue.p_path[-1:] == ["nullable"]:
        return None
    if issue.kind not in ("type-only-v", "type-extra-p", "enum-only-v"):
        cands = [c for c in _union_candidates(ctx, pb, bv) if c is not NO_WITNESS]
        if missing is not None:
            cands = [c for c in cands if isinstance(c, dict) and missing not in c]
        found = ctx.pick(pb, v_node, cands)
        return issue if found is NO_WITNESS else replace(issue, witness=found)
    cands = [sample_typed(ctx, pb, t) for t in JSON_TYPE_ORDER] + [0.5, "x", True, None, {}, []]
    return replace(issue, witness=ctx.pick(pb, v_node, [c for c in cands if c is not NO_WITNESS]))


def _with_declared(ctx: WalkContext, pb: Any, witness: Any, own: Any) -> list[Any]:
    """``witness`` (an object whose key ``own`` shows a change below the branch) with the other properties P's
    branch ``pb`` declares added, one at a time and then all, each with a sample of its schema: a union whose every
    branch closes over some of them (``unevaluatedProperties: false`` beside ``properties: {a: {}}`` in one branch,
    ``{b: {}}`` in the other) rejects ``{"a": 0, "b": 0}`` although each key alone is taken."""
    props = pb.get("properties") if isinstance(pb, (dict, Node)) else None
    if not isinstance(witness, dict) or not isinstance(props, dict):
        return []
    added: dict[str, Any] = {}
    for name in list(props)[:16]:
        if name != own and name not in witness and (value := ctx.sample_p(props[name])) is not NO_WITNESS:
            added[name] = value
    return [{**witness, name: value} for name, value in added.items()] + ([{**witness, **added}] if added else [])


def _oneof_overlap(ctx: WalkContext, bp: list[Any], v_node: Node) -> list[Issue]:
    """Values P declares that match two or more branches of V's ``oneOf`` (which oneOf rejects).

    Candidates per P branch: its samples, and samples of each V branch and strings at each V branch's
    length bounds that the P branch declares too (``{}`` beside ``{"type": "string"}`` overlaps on every
    string; ``maxLength: 4`` beside ``minLength: 3`` on "aaa")."""
    out: list[Issue] = []
    branches = v_node["oneOf"]
    extra: list[Any] = []
    for b in branches:
        with contextlib.suppress(NoSample, RecursionError):
            extra.append(sample(b, ctx.v_doc))
        if isinstance(b, dict):
            for kw in ("minLength", "maxLength"):
                n = b.get(kw)
                if isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= 64:
                    extra += ["a" * n, "a" * (n + 1)] + (["a" * (n - 1)] if n else [])
    for pb in bp:
        cands = [ctx.sample_p(pb), *samples_p(ctx, pb)[:4], *extra]
        for w in dict.fromkeys(canon(c) for c in cands if c is not NO_WITNESS):
            value = json.loads(w)
            if not ctx.valid(ctx.p_doc, pb, value):
                continue
            hits = [i for i, b in enumerate(branches) if ctx.valid(ctx.v_doc, b, value)]
            if len(hits) > 1:
                out.append(
                    Issue(
                        "oneof-overlap",
                        list(pb.where([])),
                        ["oneOf"],
                        None,
                        None,
                        Text.of(
                            ("a value of the {P} schema matches {hits} oneOf branches of the {V} schema"),
                            hits=len(hits),
                        ),
                        value,
                        p_abs=True,
                    )
                )
                break
    return out
