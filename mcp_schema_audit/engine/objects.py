"""Objects: ``properties``, ``required``, ``additionalProperties``/``unevaluatedProperties``,
``patternProperties``, ``propertyNames``, ``minProperties``/``maxProperties``.

A property P declares is compared with every schema V applies to its name (its ``properties``
entry, each matching ``patternProperties`` regex under the Python and the ECMAScript reading, else
``additionalProperties``). A key P only tolerates (open object) is not assumed to be sent (docs/verdicts.md,
Direction and severity): opening an object is a warning, not a break.
"""

from __future__ import annotations

from typing import Any

from mcp_schema_audit.engine.applicators import UNSAFE_KINDS, inside
from mcp_schema_audit.engine.conditions import unmodelled_evaluation
from mcp_schema_audit.engine.context import SERVER, WalkContext
from mcp_schema_audit.engine.issue import NO_WITNESS, Issue, canon
from mcp_schema_audit.engine.nodes import Node, dict_at, names
from mcp_schema_audit.engine.patterns import (
    additional_keys,
    matches,
    name_candidates,
    names_matching,
    pattern_keys,
    regex_included,
    search_any,
)
from mcp_schema_audit.engine.regex_strings import regex_examples
from mcp_schema_audit.engine.sampler import string_candidates
from mcp_schema_audit.engine.scalars import bound_issues, int_or
from mcp_schema_audit.engine.settle import tolerant
from mcp_schema_audit.engine.witness import common, complete, obj_wrap, sized_objects
from mcp_schema_audit.schema import RefError, SchemaDoc, regex_compiles
from mcp_schema_audit.wording import Text


def _kw_steps(node: dict[str, Any], kw: str) -> list[str]:
    """``[kw]`` when ``node`` has that keyword, else ``[]`` (the node itself): pointers must resolve."""
    return [kw] if kw in node else []


def _closed(node: dict[str, Any]) -> str | None:
    """The keyword that closes ``node`` (its key in ``node``), or None."""
    if node.get("additionalProperties") is False:
        return "additionalProperties"
    if node.get("unevaluatedProperties") is False and "additionalProperties" not in node:
        return "unevaluatedProperties"
    return None


def _spelled(node: Node, kw: str) -> str:
    """``kw`` of ``node`` as its schema writes it: a member's ``unevaluatedProperties`` the merge reads as
    ``additionalProperties`` (``merge._scoped``) keeps its own name in reports."""
    return str(node.where([kw])[-1]) if node.where([kw])[-1:] == ("unevaluatedProperties",) else kw


def _addl(ctx: WalkContext, node: dict[str, Any], doc: SchemaDoc) -> Any:
    """``node``'s ``additionalProperties`` (else ``unevaluatedProperties``, else ``true``) as the walk reads it:
    ``true`` for a schema that accepts everything (``tolerant``), also through a ``$ref`` whose target does
    (``{"$ref": "#/$defs/Any"}`` with ``Any: true`` is an open object, as ``true`` is)."""
    value = tolerant(node.get("additionalProperties", node.get("unevaluatedProperties", True)))
    if isinstance(value, dict) and "$ref" in value:
        try:
            target, _ = ctx.deref(value, doc)
        except RefError:
            return value
        if isinstance(target, dict) and tolerant(dict(target)) is True:
            return True
    return value


def objects(ctx: WalkContext, p: Node, v: Node, depth: int) -> list[Issue]:
    """The family of objects. Issues in order: each property P declares (``properties``, then names built
    from its ``patternProperties``, then names V's ``patternProperties`` constrain among P's additional
    ones), properties only V lists, ``required`` added then removed, the object opened or closed,
    ``minProperties``/``maxProperties``, then ``propertyNames``."""
    out: list[Issue] = unmodelled_evaluation(p, v)
    pprops, vprops = dict_at(p, "properties"), dict_at(v, "properties")
    ppat, vpat = dict_at(p, "patternProperties"), dict_at(v, "patternProperties")
    p_closed, v_closed = _closed(p), _closed(v)
    p_addl, v_addl = _addl(ctx, p, ctx.p_doc), _addl(ctx, v, ctx.v_doc)
    preq, vreq = names(p.get("required")), names(v.get("required"))
    if int_or(p.get("maxProperties"), -1) == 0:
        # P declares the empty object only (maxProperties 0, or a propertyNames no name meets): what it says of
        # properties applies to none; V must still take {} (its required keys, its minProperties)
        out += _required(ctx, p, v, pprops, vprops, preq, vreq)
        return out + _sizes(ctx, p, v, pprops, p_addl)
    for key, ps in pprops.items():
        out += _declared_key(ctx, p, v, ["properties", key], ps, key, depth)
    for pat, ps in ppat.items():
        out += _pattern_property(ctx, p, v, pat, ps, pprops, vpat, v_closed, v_addl, depth)
    if (isinstance(p_addl, dict) or p_addl is True) and not p_closed:
        # V's patternProperties constrain keys P leaves to its additionalProperties (open: any value)
        for pat in vpat:
            for key in pattern_keys(pat, taken=pprops)[:1]:
                if not any(search_any(pp, key) for pp in ppat):
                    out += _declared_key(
                        ctx,
                        p,
                        v,
                        ["additionalProperties"] if "additionalProperties" in p else [],
                        p_addl if p_addl is not True else {},
                        key,
                        depth,
                    )
    out += _listed_by_v(ctx, p, v, pprops, vprops, p_addl, preq, vreq, depth)
    out += _required(ctx, p, v, pprops, vprops, preq, vreq)
    out += _closure(ctx, p, v, p_closed, v_closed, p_addl, v_addl, pprops, vprops, depth)
    out += _sizes(ctx, p, v, pprops, p_addl)
    out += _property_names(ctx, p, v, pprops, p_addl, ppat)
    return out


def _sizes(ctx: WalkContext, p: Node, v: Node, pprops: dict[str, Any], p_addl: Any) -> list[Issue]:
    """``minProperties``/``maxProperties`` compared, with objects of the sizes they make interesting."""
    if all(canon(p.get(kw)) == canon(v.get(kw)) for kw in ("minProperties", "maxProperties")):
        return []
    out: list[Issue] = []
    sized = sized_objects(ctx, p, v, pprops, p_addl)
    for kw, upper in (("minProperties", False), ("maxProperties", True)):
        out += bound_issues(ctx, p, v, kw, upper, sized, p.get(kw), v.get(kw))
    return out


def _listed_by_v(
    ctx: WalkContext,
    p: Node,
    v: Node,
    pprops: dict[str, Any],
    vprops: dict[str, Any],
    p_addl: Any,
    preq: list[str],
    vreq: list[str],
    depth: int,
) -> list[Issue]:
    """Properties V lists and P does not: compared with P's ``additionalProperties`` schema when P has one,
    else a property V added (unless V also requires it, which ``_required`` reports)."""
    out: list[Issue] = []
    for key, vs in vprops.items():
        if key in pprops:
            continue
        if isinstance(p_addl, dict):
            out += ctx.child(
                p,
                ["additionalProperties"],
                p_addl,
                v,
                ["properties", key],
                vs,
                depth,
                key,
                obj_wrap(ctx, p, v, key),
            )
        elif not (key in vreq and key not in preq):
            out.append(
                Issue(
                    "prop-extra-v",
                    [],
                    ["properties", key],
                    None,
                    vs,
                    Text.of("property {key!r} is listed only by the {V} schema", key=key),
                    inst=[key],
                )
            )
    return out


def _required(
    ctx: WalkContext,
    p: Node,
    v: Node,
    pprops: dict[str, Any],
    vprops: dict[str, Any],
    preq: list[str],
    vreq: list[str],
) -> list[Issue]:
    """Keys only V requires (a witness: an object P declares without the key), then keys only P requires."""
    out: list[Issue] = []
    p_set, v_set = set(preq), set(vreq)  # membership in sets: 50,000 names once took O(n·m)
    for key in [k for k in vreq if k not in p_set]:
        base = common(ctx, {**p, "type": "object"}, v)
        w = NO_WITNESS
        if isinstance(base, dict):
            base = dict(base)
            base.pop(key, None)
            w = complete(ctx, p, base, {key})  # P's conditionals may ask for other keys without this one
        out.append(
            Issue(
                "required-extra-v",
                ["properties", key] if key in pprops else _kw_steps(p, "required"),
                ["properties", key] if key in vprops else ["required"],
                False,
                True,
                Text.of(("property {key!r} is required by the {V} schema, not by the {P} schema"), key=key),
                w,
                [key],
                delta={"property": key},
            )
        )
    for key in [k for k in preq if k not in v_set]:
        out.append(
            Issue(
                "required-extra-p",
                ["properties", key] if key in pprops else ["required"],
                ["properties", key] if key in vprops else _kw_steps(v, "required"),
                True,
                False,
                Text.of(("property {key!r} is required by the {P} schema, not by the {V} schema"), key=key),
                inst=[key],
                delta={"property": key},
            )
        )
    return out


def _pattern_property(
    ctx: WalkContext,
    p: Node,
    v: Node,
    pat: str,
    ps: Any,
    pprops: dict[str, Any],
    vpat: dict[str, Any],
    v_closed: str | None,
    v_addl: Any,
    depth: int,
) -> list[Issue]:
    """P's ``patternProperties`` regex ``pat``: property names built from it, compared like declared keys."""
    out: list[Issue] = []
    keys = names_matching(pat, pprops, v)
    for key in keys:
        got = _declared_key(ctx, p, v, ["patternProperties", pat], ps, key, depth, matches(pat, key))
        out += got
        if any(i.kind in UNSAFE_KINDS for i in got):
            return out  # one name proves it
    if keys and not any(regex_included(pat, vp) for vp in vpat) and (v_closed or vpat or isinstance(v_addl, dict)):
        # every name tried is covered, but that does not prove the regex languages are included
        out.append(
            Issue(
                "pattern",
                ["patternProperties", pat],
                [],
                pat,
                sorted(vpat) or None,
                Text.of(
                    (
                        "property names matching {pat!r} in the {P} schema: no name the {V} "
                        "schema rejects was found ({repr} are covered), and the regex inclusion "
                        "is not proven"
                    ),
                    pat=pat,
                    repr=", ".join(map(repr, keys)),
                ),
            )
        )
    if not keys and pat in vpat:
        out += ctx.child(p, ["patternProperties", pat], ps, v, ["patternProperties", pat], vpat[pat], depth)
    elif not keys and (v_closed or vpat or isinstance(v_addl, dict)):
        out.append(
            Issue(
                "undecidable",
                ["patternProperties", pat],
                [],
                ps,
                None,
                Text.of(
                    (
                        "no property name matching patternProperties {pat!r} of the {P} schema "
                        "could be built, so it is not compared with the {V} schema"
                    ),
                    pat=pat,
                ),
            )
        )
    return out


def _closure(
    ctx: WalkContext,
    p: Node,
    v: Node,
    p_closed: str | None,
    v_closed: str | None,
    p_addl: Any,
    v_addl: Any,
    pprops: dict[str, Any],
    vprops: dict[str, Any],
    depth: int,
) -> list[Issue]:
    """The object opened, closed, or its ``additionalProperties`` schema changed."""
    if v_closed and not p_closed:
        return [_closed_by_v(ctx, p, v, v_closed, p_addl, vprops)]
    if p_closed and not v_closed:
        return [
            Issue(
                "closed-p",
                [p_closed],
                ["additionalProperties"] if "additionalProperties" in v else [],
                False,
                v.get("additionalProperties"),
                Text.of(
                    ("the object is closed in the {P} schema ({p_closed}: false), open in the {V} schema"),
                    p_closed=_spelled(p, p_closed),
                ),
            )
        ]
    if p_addl is True and isinstance(v_addl, dict) and not p_closed and not inside(ctx, True, v_addl, depth):
        return [
            Issue(
                "opened-p",
                ["additionalProperties"] if "additionalProperties" in p else [],
                ["additionalProperties"],
                p.get("additionalProperties"),
                v_addl,
                Text(
                    "values of undeclared keys are constrained by the {V} schema's "
                    "additionalProperties, not by the {P} schema's"
                ),
            )
        ]
    if isinstance(p_addl, dict) and (isinstance(v_addl, dict) or v_addl is True) and not p_closed:
        # V's open object (additionalProperties true, {} or absent) reads as the schema {} there: P's values of
        # undeclared keys are compared with it, as a property P narrows from {} is (an enum introduced …)
        extra = _extra_key(p, v)
        if extra is None:
            return []  # every key is declared or matched by a patternProperties regex on both sides
        v_steps = ["additionalProperties"] if isinstance(v_addl, dict) or "additionalProperties" in v else []
        return ctx.child(
            p,
            ["additionalProperties"],
            p_addl,
            v,
            v_steps,
            v_addl if v_addl is not True else {},
            depth,
            extra,
            obj_wrap(ctx, p, v, extra),
        )
    return []


def _closed_by_v(ctx: WalkContext, p: Node, v: Node, v_closed: str, p_addl: Any, vprops: dict[str, Any]) -> Issue:
    """V's object is closed, P's is not: P's additional properties (with a witness when P declares their
    schema), else the object opened."""
    if isinstance(p_addl, dict) and p_addl != {}:
        # a key both sides leave to additionalProperties: no properties entry, no patternProperties regex
        extra = _extra_key(p, v)
        child = ctx.sample_p(p_addl) if extra is not None else NO_WITNESS
        w = obj_wrap(ctx, p, v, extra)(child) if extra is not None and child is not NO_WITNESS else NO_WITNESS
        return Issue(
            "prop-extra-p-closed",
            ["additionalProperties"],
            [v_closed],
            p_addl,
            False,
            Text("the {P} schema declares additional properties, the {V} object is closed"),
            w,
            [extra if extra is not None else "extra_key"],
        )
    return Issue(
        "opened-p",
        ["additionalProperties"] if "additionalProperties" in p else [],
        [v_closed],
        p.get("additionalProperties"),
        False,
        Text.of(
            ("the object is open in the {P} schema, closed in the {V} schema ({v_closed}: false)"),
            v_closed=_spelled(v, v_closed),
        ),
    )


def _extra_key(p: Node, v: Node) -> str | None:
    """A key neither node lists in ``properties`` and no ``patternProperties`` regex of either matches (for both
    regex readings when one exists, ``patterns.additional_keys``), or None."""
    keys = additional_keys(
        {**dict_at(p, "properties"), **dict_at(v, "properties")},
        [*dict_at(p, "patternProperties"), *dict_at(v, "patternProperties")],
    )
    return keys[0] if keys else None


def _declared_key(
    ctx: WalkContext,
    p: Node,
    v: Node,
    p_steps: list[Any],
    ps: Any,
    key: str,
    depth: int,
    dialects: tuple[bool, bool] = (True, True),
) -> list[Issue]:
    """P declares property ``key`` with schema ``ps`` (at ``p_steps``): compare it with every schema V
    applies to that key (``properties``, each matching ``patternProperties``, else ``additionalProperties``).
    Counted as a node pair (``tick``): a walk over every declared key per conditional is O(keys²); so is each
    ``meter.SEARCHES_PER_PAIR`` regex searches (V's ``patternProperties`` read for the key by both engines:
    5,000 patterns for each of 150 keys per conditional were 3 million searches, past ``--time-budget``) and each
    pattern compiled the first time."""
    ctx.tick()
    vprops, vpat = dict_at(v, "properties"), dict_at(v, "patternProperties")
    if (
        not vpat
        and key in vprops
        and not isinstance(ps, Node)
        and not isinstance(vprops[key], Node)
        and ctx.identity.identical(ps, vprops[key])
    ):
        return []  # what the walk of the pair would answer at once (``compare``), without its set-up
    wrap = obj_wrap(ctx, p, v, key)
    targets: list[tuple[list[Any], Any]] = [(["properties", key], vprops[key])] if key in vprops else []
    ctx.prepay_searches(2 * len(vpat))  # the searches below (both engines' readings), charged before they run
    readings: dict[str, tuple[bool, bool]] = {}
    for pt in vpat:
        compiled = regex_compiles()
        readings[pt] = matches(pt, key)
        for _ in range(regex_compiles() - compiled):  # each pattern compiled the first time counts as a node pair
            ctx.tick()
    targets += [(["patternProperties", pt], vpat[pt]) for pt in vpat if any(readings[pt])]
    out: list[Issue] = []
    for v_steps, vs in targets:
        out += ctx.child(p, p_steps, ps, v, v_steps, vs, depth, key, wrap)
    if key in vprops or all(any(m[d] for m in readings.values()) for d in (0, 1) if dialects[d]):
        return out  # V lists the key wherever P declares it (Python and ECMAScript regex readings)
    v_closed = _closed(v)
    v_addl = _addl(ctx, v, ctx.v_doc)
    if v_closed:
        child = ctx.sample_p(ps)
        w = wrap(child) if child is not NO_WITNESS else NO_WITNESS
        what = f"property {key!r}" if p_steps[:1] == ["properties"] else f"a property such as {key!r}"
        if targets:
            what += " (matched by a patternProperties regex on some hosts only: Python and ECMAScript differ)"
        return out + [
            Issue(
                "prop-extra-p-closed",
                p_steps,
                [v_closed],
                ps,
                False,
                Text.of(
                    ("{what} of the {P} schema is not listed by the {V} schema's closed object ({v_closed}: false)"),
                    what=what,
                    v_closed=_spelled(v, v_closed),
                ),
                w,
                [key],
            )
        ]
    if isinstance(v_addl, dict):
        return out + ctx.child(p, p_steps, ps, v, ["additionalProperties"], v_addl, depth, key, wrap)
    if targets:
        return out
    if p_steps[:1] == ["properties"]:
        return [
            Issue(
                "prop-extra-p-open",
                p_steps,
                [],
                ps,
                None,
                Text.of(("property {key!r} is listed only by the {P} schema (the {V} object is open)"), key=key),
                inst=[key],
            )
        ]
    return []


def _property_names(
    ctx: WalkContext, p: Node, v: Node, pprops: dict[str, Any], p_addl: Any, ppat: dict[str, Any]
) -> list[Issue]:
    """``propertyNames``: a property name P declares (or, with a map ``additionalProperties``/
    ``patternProperties``, may use) that V's ``propertyNames`` rejects."""
    pn, vn = p.get("propertyNames"), v.get("propertyNames")
    if canon(pn) == canon(vn):
        return []
    if vn is None:
        return [
            Issue(
                "looser-v",
                ["propertyNames"],
                [],
                pn,
                None,
                Text("the {P} schema restricts property names with propertyNames, the {V} schema does not"),
            )
        ]
    out: list[Issue] = []
    for key, ps in pprops.items():
        if _name_refused(ctx, pn, vn, key):
            child = ctx.sample_p(ps)
            w = obj_wrap(ctx, p, v, key)(child) if child is not NO_WITNESS else NO_WITNESS
            out.append(
                Issue(
                    "looser-p",
                    ["properties", key],
                    ["propertyNames"],
                    key,
                    vn,
                    Text.of(
                        ("property name {key!r} of the {P} schema is rejected by the {V} schema's propertyNames"),
                        key=key,
                    ),
                    w,
                    [key],
                    delta={"property": key},
                )
            )
    if out:
        return out
    if p_addl is False and not ppat:
        return []  # every name P declares is accepted; P's closed object allows no other names
    return [_other_name(ctx, p, v, pn, vn, pprops, p_addl, ppat)]


def _name_refused(ctx: WalkContext, pn: Any, vn: Any, key: str) -> bool:
    """Does V's ``propertyNames`` ``vn`` refuse ``key`` where P's ``pn`` (None: no rule) takes it, for python-sdk or
    (an inputSchema with a ``reading``) as the server's framework reads both (pydantic's Rust regex: a dict's
    constrained keys, ``servers.framework_schema``)?"""
    for profile in ("python-sdk", SERVER) if ctx.reading is not None else ("python-sdk",):
        if ctx.valid(ctx.v_doc, vn, key, profile) is False and (pn is None or ctx.valid(ctx.p_doc, pn, key, profile)):
            return True
    return False


def _other_name(
    ctx: WalkContext,
    p: Node,
    v: Node,
    pn: Any,
    vn: Any,
    pprops: dict[str, Any],
    p_addl: Any,
    ppat: dict[str, Any],
) -> Issue:
    """A name P allows beyond its declared ones that V's ``propertyNames`` ``vn`` rejects (P's ``pn`` accepts
    it), with a witness; else a warning that none was found."""
    # names P allows beyond its declared ones: its own propertyNames' values and pattern first (a widened
    # enum of names), then its patternProperties, then everyday names
    candidates = (
        name_candidates(pn)
        + string_candidates(extra=("Key", "key-1", "1", "a b"))
        + [k for pat in ppat for k in regex_examples(pat, count=4)]
    )
    for key in dict.fromkeys(candidates):
        if key in pprops or not _name_refused(ctx, pn, vn, key):
            continue
        value_schema = next((s for pat, s in ppat.items() if search_any(pat, key)), p_addl)
        child = ctx.sample_p(value_schema if value_schema is not True else {})
        w = obj_wrap(ctx, p, v, key)(child) if child is not NO_WITNESS else NO_WITNESS
        return Issue(
            "looser-p",
            _kw_steps(p, "propertyNames"),
            ["propertyNames"],
            pn,
            vn,
            Text.of(
                ("property name {key!r}, which the {P} schema allows, is rejected by the {V} schema's propertyNames"),
                key=key,
            ),
            w,
            [key],
            delta={"keyword": "propertyNames"},
        )
    return Issue(
        "undecidable",
        _kw_steps(p, "propertyNames"),
        ["propertyNames"],
        pn,
        vn,
        Text(
            "propertyNames in the {V} schema: every declared property name is "
            "accepted, and no other name the {P} schema allows was found that it "
            "rejects"
        ),
    )
