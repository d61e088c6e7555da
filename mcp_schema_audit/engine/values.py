"""Types and value sets: ``type``, ``enum``/``const`` and OpenAPI ``nullable`` of one node pair.

These run before every other family (``walk.compare_single``): a closed value set stands for its
whole normalized node, so ``value_issues`` answers alone when a side lists values; otherwise
``type_issues`` gives the types both sides allow, which decide the type-specific families that
follow. Every change is one issue with its own witness, chosen with the keyword
(``WalkContext.pick``), so accepting one finding never hides another. The readings here
(``value_set``, from ``settle``; ``types_of``, ``types_overlap``) serve the other families too.
"""

from __future__ import annotations

from typing import Any

from mcp_schema_audit.engine.context import WalkContext
from mcp_schema_audit.engine.decompose import listed_values, structural_values
from mcp_schema_audit.engine.issue import NO_WITNESS, Issue, IssueKind, canon, short, value_key
from mcp_schema_audit.engine.nodes import Node
from mcp_schema_audit.engine.sampler import bound, number_candidates, string_candidates
from mcp_schema_audit.engine.servers import framework_reads
from mcp_schema_audit.engine.settle import is_number, value_set
from mcp_schema_audit.schema import DEFAULT_DIALECT, SchemaDoc, json_type, type_set
from mcp_schema_audit.schema.doc import host_sensitive_text
from mcp_schema_audit.wording import Text

#: Enum values (both sides together) compared value by value; more → set differences for two plain value sets
#: (``_unlisted_of_plain``), else a ``schema-undecidable`` warning.
MAX_ENUM = 20_000
_TYPE_ORDER = ("string", "integer", "boolean", "object", "array", "null", "number")


# -- readings of one node ------------------------------------------------------------------------------------
def allowed(ts: set[str], t: str) -> bool:
    """Does the type set ``ts`` take values of type ``t`` (an integer is a number)?"""
    return t in ts or (t == "integer" and "number" in ts)


def types_of(node: dict[str, Any]) -> set[str] | None:
    """The JSON types ``node`` allows: its ``type``, else the types of its ``enum``/``const`` values; None
    for every type."""
    ts = type_set(node)
    if ts is None:
        enum = node.get("enum")
        vals = enum if isinstance(enum, list) else ([node["const"]] if "const" in node else None)
        if vals is not None:
            return {json_type(x) for x in vals}
    return ts


def types_overlap(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Can a value have a type both ``a``'s and ``b``'s ``type`` allow (no ``type``: every type)?"""
    ta, tb = type_set(a), type_set(b)
    if ta is None or tb is None:
        return True
    ta2 = ta | ({"integer"} if "number" in ta else set())
    tb2 = tb | ({"integer"} if "number" in tb else set())
    return bool(ta2 & tb2)


def common_types(tp: set[str] | None, tv: set[str] | None) -> set[str] | None:
    """The types both of P's types ``tp`` and V's ``tv`` allow (``None`` = every type; a number type
    meeting an integer one leaves ``integer``)."""
    if tv is None:
        return tp
    if tp is None:
        return tv
    return {t for t in tp if allowed(tv, t)} | {"integer" for t in tp if t == "number" and "integer" in tv}


def host_sensitive(node: Any, doc: SchemaDoc) -> bool:
    """Could host profiles disagree on a value under ``node``? True when it (or, through a ``$ref``, its
    document) uses a keyword only some profiles read or read differently (``host_sensitive_text``)."""
    text, own = canon(node), int(node is doc.root and doc.root_schema_keys)
    if '"$ref"' in text or '"$dynamicRef"' in text:
        text, own = doc.canonical, doc.root_schema_keys
    return doc.dialect != DEFAULT_DIALECT or host_sensitive_text(text, own)


# -- values of P ---------------------------------------------------------------------------------------------
def sample_typed(ctx: WalkContext, p: dict[str, Any], t: str) -> Any:
    """A value of JSON type ``t`` P's node declares (its sample with ``type: t``), else a plain value of ``t``."""
    node = {k: val for k, val in p.items() if k not in ("enum", "const")}
    node["type"] = t
    got = ctx.sample_p(node)
    if got is NO_WITNESS:  # a plain value of the type, made anew (a witness may be kept and wrapped)
        return {
            "string": "x",
            "integer": 0,
            "number": 0.5,
            "boolean": True,
            "null": None,
            "object": {},
            "array": [],
        }[t]
    return got


def type_candidates(ctx: WalkContext, p: dict[str, Any], t: str) -> list[Any]:
    """Values of JSON type ``t`` that P's node may declare: its own values of that type, then samples
    (for ``number``: non-integers, which an ``integer`` type rejects)."""
    cands = [x for x in (value_set(p) or []) if json_type(x) == t]
    if t == "number":
        cands += [c for c in number_candidates(p, integer=False) if isinstance(c, float) and not c.is_integer()]
        cands += [0.5, 1.5]
        lo, _ = bound(p, "min")
        if lo is not None:
            cands.append(lo + 0.5)
    cands.append(sample_typed(ctx, p, t))
    return cands


def rejecting_keyword(ctx: WalkContext, v: dict[str, Any], value: Any) -> str | None:
    """The keyword of V's node (python-sdk reading) that rejects ``value``, when it is one of the node's own."""
    try:
        errors = list(ctx.validator(ctx.v_doc, v, "python-sdk").iter_errors(value))
    except Exception:
        return None
    kws = [str(e.validator) for e in errors if not list(e.relative_path) and str(e.validator) in v]
    return kws[0] if kws else None


# -- nullable and type ---------------------------------------------------------------------------------------
def nullable(p: dict[str, Any], v: dict[str, Any]) -> list[Issue]:
    """OpenAPI ``nullable: true`` beside ``type``, which Ajv (both TS SDKs) honours and jsonschema ignores.

    Breaks TS hosts when only P has it: before ``{"type": "string"}``, after ``{"type": "string",
    "nullable": true}`` as an outputSchema: a server built from it may return ``null``, and a
    cached TS host rejects it (``must be string``). Source: Ajv ``lib/compile/validate/dataType.ts``
    (``getSchemaTypes`` adds "null"). The witness is ``null``; ``confirm`` finds which profiles break.
    """

    def ajv_only(node: dict[str, Any]) -> bool:
        ts = type_set(node)
        return node.get("nullable") is True and ts is not None and "null" not in ts

    pn, vn = ajv_only(p), ajv_only(v)
    if pn == vn:
        return []
    if pn:
        v_types = type_set(v)
        if v_types is None or "null" in v_types or "enum" in v or "const" in v:
            return []
        return [
            Issue(
                "type-extra-p",
                ["nullable"],
                ["type"],
                True,
                v.get("type"),
                Text(
                    "nullable: true in the {P} schema: hosts on Ajv (the TS SDKs) take null "
                    "there, the {V} schema does not"
                ),
                None,
                delta={"type": "null"},
            )
        ]
    p_types = type_set(p)
    if p_types is not None and "null" in p_types:
        return []  # P's type lists null itself: the type comparison reports it for jsonschema hosts
    return [
        Issue(
            "type-extra-v",
            [],
            ["nullable"],
            None,
            True,
            Text("nullable: true in the {V} schema only: hosts on Ajv (the TS SDKs) also take null there"),
            delta={"type": "null"},
        )
    ]


def type_issues(ctx: WalkContext, p: Node, v: Node) -> tuple[list[Issue], set[str] | None]:
    """``type`` compared: ``(issues, the types both sides allow)`` (``None`` = every type, ``common_types``)."""
    issues: list[Issue] = []
    tp, tv = type_set(p), type_set(v)
    if tv is None:
        if tp is not None:
            issues.append(
                Issue(
                    "type-extra-v",
                    ["type"],
                    [],
                    p.get("type"),
                    None,
                    Text.of("the {P} schema has type {value}, the {V} schema has none", value=short(p.get("type"))),
                )
            )
        return issues, tp
    if tp is None:
        others = [t for t in _TYPE_ORDER if not allowed(tv, t)]
        cands = [c for t in others for c in type_candidates(ctx, p, t)]
        w = ctx.pick(p, v, cands, "type")
        issues.append(
            Issue(
                "type-only-v",
                [],
                ["type"],
                None,
                v.get("type"),
                Text.of("the {P} schema has no type, the {V} schema requires {value}", value=short(v.get("type"))),
                w,
            )
        )
        return issues, tv
    for t in sorted(t for t in tp if not allowed(tv, t)):
        w = ctx.pick(p, v, type_candidates(ctx, p, t), "type")
        issues.append(
            Issue(
                "type-extra-p",
                ["type"],
                ["type"],
                p.get("type"),
                v.get("type"),
                Text.of(
                    ("type {t!r} of the {P} schema is not accepted by the {V} schema's type {value}"),
                    t=t,
                    value=short(v.get("type")),
                ),
                w,
                delta={"type": t},
            )
        )
    missing = [t for t in sorted(tv) if not allowed(tp, t) and not (t == "number" and "integer" in tp)]
    if missing and not issues:
        # types only V takes, beside none only P has: the type widened (inputs) or narrowed (outputs). Beside a type
        # only P has, it is the same change (the type was replaced), which that finding already reports
        issues.append(
            Issue(
                "type-extra-v",
                ["type"],
                ["type"],
                p.get("type"),
                v.get("type"),
                Text.of(
                    "type {value} in the {V} schema, {value_2} in the {P} schema",
                    value=short(v.get("type")),
                    value_2=short(p.get("type")),
                ),
            )
        )
    return issues, common_types(tp, tv)


# -- enum and const ------------------------------------------------------------------------------------------
def value_issues(ctx: WalkContext, p: Node, v: Node, depth: int = 0) -> list[Issue] | None:
    """``enum``/``const`` compared (normalized nodes: a value set stands for its whole node); None when
    neither side lists values (the caller compares types and the other keywords).

    Issues in order: each value of P that V rejects (a value V does not list, or one its other keywords
    reject), values of a type V does not take (one issue per type), then V's extra values or P's closed
    set where V has none. Where V lists objects and P declares them by structure, V's objects are compared as
    structures (``decompose.structural_values``)."""
    if not any(k in node for node in (p, v) for k in ("enum", "const")):
        return None
    pv, vv = value_set(p), value_set(v)
    if pv is None and vv is None:
        return None  # a malformed enum (not an array): the type and other keywords decide
    kw_p = "const" if "const" in p else "enum" if "enum" in p else "type"
    kw_v = "const" if "const" in v else "enum" if "enum" in v else "type"
    unlisted = _unlisted_of_plain(p, v, pv, vv)
    if unlisted is not None:  # two plain value sets past MAX_ENUM: set differences, no validation per value
        out, _by_type = _rejected_values(ctx, p, v, unlisted, vv, kw_p, kw_v)
        return out + _unmatched_sets(p, v, pv or [], vv, kw_p, kw_v, out)
    if len(pv or []) + len(vv or []) > MAX_ENUM:
        return [
            Issue(
                "undecidable",
                [],
                [],
                None,
                None,
                Text.of(
                    "enum values of the two schemas together ({P}: {p_count}, {V}: {v_count}) exceed {MAX_ENUM}: "
                    "not compared value by value",
                    p_count=len(pv or []),
                    v_count=len(vv or []),
                    MAX_ENUM=MAX_ENUM,
                ),
            )
        ]
    if pv is None:
        assert vv is not None
        structural = structural_values(ctx, p, v, vv, kw_v, depth)
        return structural if structural is not None else _enum_only_v(ctx, p, v, vv, kw_v)
    out, by_type = _rejected_values(ctx, p, v, pv, vv, kw_p, kw_v)
    for t, xs in by_type.items():
        out.append(
            Issue(
                "type-extra-p",
                [kw_p],
                ["type"],
                p.get(kw_p),
                v.get("type"),
                Text.of(
                    (
                        "value {xs} of the {P} schema has type {t!r}, which the {V} schema's "
                        "type {value} does not accept"
                    ),
                    xs=short(xs[0]),
                    t=t,
                    value=short(v.get("type")),
                ),
                xs[0],
                delta={"type": t},
            )
        )
    if vv is None and kw_p != "type" and not out:
        # V declares by structure a closed set of values (a closed object whose properties list theirs) that
        # are all P's: the same values, no enum introduced
        listed = listed_values(ctx, v, side="v")
        if listed is not None and {value_key(x) for x in listed} <= {value_key(x) for x in pv}:
            return out
    return out + _unmatched_sets(p, v, pv, vv, kw_p, kw_v, out)


#: Keywords a node may hold beside its values and still be plain (its values are exactly what it accepts).
_PLAIN_KEYS = frozenset({"enum", "const", "type"})


def _unlisted_of_plain(p: Node, v: Node, pv: list[Any] | None, vv: list[Any] | None) -> list[Any] | None:
    """P's values that V does not list, when the two value sets together exceed ``MAX_ENUM``, each node holds
    nothing but its values (``enum``/``const``, a ``type`` they all have: what it lists is what it accepts, so a
    value both list needs no validation) and fewer than ``MAX_ENUM`` values are unlisted; None otherwise (the
    per-value comparison, or the undecidable warning past ``MAX_ENUM``). Linear in the values."""
    if pv is None or vv is None or len(pv) + len(vv) <= MAX_ENUM:
        return None
    for node, values in ((p, pv), (v, vv)):
        if not set(node) <= _PLAIN_KEYS or len(values) != len(node.get("enum", [node.get("const")])):
            return None  # another keyword, or values its own type drops (value_set filtered them)
    v_keys = {value_key(y) for y in vv}
    unlisted = [x for x in pv if value_key(x) not in v_keys]
    return unlisted if len(unlisted) <= MAX_ENUM else None


def _rejected_values(
    ctx: WalkContext, p: Node, v: Node, pv: list[Any], vv: list[Any] | None, kw_p: str, kw_v: str
) -> tuple[list[Issue], dict[str, list[Any]]]:
    """Each value P lists (and declares) that V rejects: ``(issues, values of a type V's type does not take,
    by type)``. A value V lists but rejects by another keyword is a tightened constraint; one it does not
    list, a value removed (or a changed ``const``)."""
    out: list[Issue] = []
    v_keys = {value_key(y) for y in vv} if vv is not None else set()
    per_host = len(pv) <= 64 and (
        host_sensitive(v, ctx.v_doc) or host_sensitive(p, ctx.p_doc) or framework_reads(ctx.reading, canon(v))
    )
    tv = type_set(v) if vv is None else None
    by_type: dict[str, list[Any]] = {}
    undecided: list[Any] = []
    for x in pv:
        listed = vv is None or value_key(x) in v_keys
        v_valid = ctx.valid(ctx.v_doc, v, x) if listed else False
        if listed and v_valid is not False and not (per_host and ctx.pick_any_profile(p, v, [x]) is not NO_WITNESS):
            if v_valid is None and ctx.valid(ctx.p_doc, p, x) is not False:
                undecided.append(x)  # too costly a pattern, a refused regex: neither taken nor refused
            continue
        if ctx.valid(ctx.p_doc, p, x) is False:
            continue  # P lists it but its other keywords reject it: never produced
        if vv is None and tv is not None and not allowed(tv, json_type(x)):
            by_type.setdefault(json_type(x), []).append(x)  # a value of a type V does not take
            continue
        if listed:
            # V lists the value (or lists none) but its other keywords reject it: a tightened constraint
            why = rejecting_keyword(ctx, v, x)
            out.append(
                Issue(
                    "looser-p",
                    [kw_p],
                    [why] if why else [],
                    p.get(kw_p),
                    v.get(why) if why else None,
                    Text.of(
                        "value {value} of the {P} schema is rejected by the {V} schema" + ("'s {why}" if why else ""),
                        value=short(x),
                        why=why,
                    ),
                    x,
                    delta={"value": x},
                )
            )
            continue
        kind: IssueKind = "const-changed" if kw_p == "const" and kw_v == "const" else "enum-extra-p"
        detail = (
            Text.of("the {V} schema accepts no value here, the {P} schema allows {value}", value=short(x))
            if not vv
            else Text.of(
                "const {value} in the {P} schema, {other} in the {V} schema", value=short(x), other=short(vv[0])
            )
            if kind == "const-changed"
            else Text.of(
                "value {value} of the {P} schema is not in the {V} schema's {keyword} {values}",
                value=short(x),
                keyword=kw_v,
                values=short(vv),
            )
        )
        out.append(Issue(kind, [kw_p], [kw_v], p.get(kw_p), v.get(kw_v), detail, x, delta={"value": x}))
    if undecided and not out:
        # said, never dropped: a value the cached schema lists that no reading of V could be decided for (a
        # 20,000-character pattern, a backtracking one on a long value) may be one the new version refuses
        unknown = Text.of(
            "whether the {V} schema accepts {value} of the {P} schema's {keyword} could not be decided",
            value=short(undecided[0]),
            keyword=kw_p,
        )
        out.append(Issue("undecidable", [kw_p], [], p.get(kw_p), None, unknown))
    return out, by_type


def _unmatched_sets(
    p: Node, v: Node, pv: list[Any], vv: list[Any] | None, kw_p: str, kw_v: str, found: list[Issue]
) -> list[Issue]:
    """Values only V lists (not beside a changed ``const``, in ``found``), or P's closed set where V lists none."""
    if vv is not None:
        p_keys = {value_key(x) for x in pv}
        extra_v = [y for y in vv if value_key(y) not in p_keys]
        if extra_v and not any(i.kind == "const-changed" for i in found):
            return [
                Issue(
                    "enum-extra-v",
                    [kw_p],
                    [kw_v],
                    p.get(kw_p),
                    v.get(kw_v),
                    Text.of("values {extra_v} are listed only by the {V} schema", extra_v=short(extra_v)),
                )
            ]
        return []
    if kw_p != "type":
        return [
            Issue(
                "enum-only-p",
                [kw_p],
                [],
                p.get(kw_p),
                None,
                Text.of("the {P} schema restricts values to {pv}, the {V} schema does not", pv=short(pv)),
            )
        ]
    return []


def _enum_only_v(ctx: WalkContext, p: Node, v: Node, vv: list[Any], kw_v: str) -> list[Issue]:
    """V lists values, P does not: P's values outside V's list are rejected (one finding, one witness)."""
    cands: list[Any] = [ctx.sample_p(p)]
    tp = type_set(p)
    for t in [t for t in _TYPE_ORDER if tp is None or allowed(tp, t)]:
        cands += type_candidates(ctx, p, t)
    cands += string_candidates(extra=("other-value", "zzz-not-listed"))
    cands += number_candidates(p, integer=False) + [True, False, None, {}, []]
    cands += [max([x for x in vv if is_number(x)], default=0) + 1]
    w = ctx.pick(p, v, cands, kw_v)
    return [
        Issue(
            "enum-only-v",
            [],
            [kw_v],
            None,
            v.get(kw_v),
            Text.of(
                "the {P} schema allows {value}, the {V} schema only {vv}",
                value="any value" if tp is None else "any " + "/".join(sorted(tp)),
                vv=short(vv),
            ),
            w,
        )
    ]
