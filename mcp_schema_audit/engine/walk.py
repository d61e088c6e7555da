"""The lockstep walk over a producing schema P and a validating schema V.

Direction decides which side is which (``compare``): P is what the producing side declares (the new
``outputSchema``, the cached ``inputSchema``), V is what validates (the cached ``outputSchema``, the
new ``inputSchema``); an ``Issue`` is a place where P declares values V rejects, or an informational
difference. Both sides are normalized first (``normalize``), so the walk meets one spelling of
everything. ``compare_pair`` normalizes a pair, memoizes it and makes its issues' paths absolute;
a union pair goes to ``unions.union``, a plain pair to ``compare_single``: ``values`` first (a
closed value set answers alone; ``type`` gives the types both sides allow), then each keyword
family of ``FAMILIES`` in its order, each a plain function of the ``context.WalkContext``. Node
pairs are memoized and a pair already on the stack is assumed compatible, so recursive schemas
terminate and shared subschemas are walked once.

Budgets count work, never seconds (the same two schemas give the same findings on any machine):
``meter.WORK_BUDGET`` node pairs, ``meter.VALIDATION_BUDGET`` validations, ``MAX_DEPTH``
nesting, union branches (``merge.MAX_BRANCHES``). Past one, ``Budget`` is raised and the tool's
comparison becomes a ``schema-undecidable`` warning.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from mcp_schema_audit.engine import applicators, arrays, contains, objects, scalars, unions, values
from mcp_schema_audit.engine.context import WalkContext
from mcp_schema_audit.engine.issue import NO_WITNESS, InPlaceCycle, Issue, LocalUndecidable, canon, short
from mcp_schema_audit.engine.meter import Meter
from mcp_schema_audit.engine.nodes import Node, Tokens, array_layout, union_branches
from mcp_schema_audit.schema import RefError, SchemaDoc
from mcp_schema_audit.wording import Text

#: Maximum depth of the lockstep walk (schema nesting); deeper → a ``schema-undecidable`` warning.
MAX_DEPTH = 200
#: Keywords compared only for equality: a change is a ``schema-undecidable`` warning naming the keyword.
_UNMODELLED = ("$dynamicRef", "$recursiveRef", "unevaluatedItems")

#: A keyword family: the issues of one plain node pair ``(ctx, p, v, depth)``, paths relative to the pair.
FamilyFn = Callable[[WalkContext, Node, Node, int], list[Issue]]


def new_context(
    p_doc: SchemaDoc,
    v_doc: SchemaDoc,
    root_type: str | None = None,
    meter: Meter | None = None,
    reading: str | None = None,
) -> WalkContext:
    """A context comparing P's document with V's by this walk (``root_type``, ``reading``: see ``WalkContext``),
    charging ``meter`` (a new one when None)."""
    return WalkContext(p_doc, v_doc, compare_pair, root_type, meter, reading)


# -- the walk ------------------------------------------------------------------------------------------------
def compare_pair(
    ctx: WalkContext, p: Any, v: Any, depth: int = 0, p_at: Tokens | None = None, v_at: Tokens | None = None
) -> list[Issue]:
    """Issues where P's node declares values V's node rejects (and informational differences), with
    absolute paths. ``p``/``v`` are raw subschemas located at ``p_at``/``v_at`` (or ``Node``s). A pair of
    identical raw subtrees (``identity``) has no issue and is not walked. Raises ``Budget``."""
    if not isinstance(p, Node) and not isinstance(v, Node) and ctx.identity.identical(p, v):
        return []
    try:
        pn = ctx.norm("p", p, p_at if p_at is not None else ())
    except RefError as exc:
        return [Issue("invalid", [], [], p, None, Text.of("{error}", error=str(exc)), p_abs=True, v_abs=True)]
    except LocalUndecidable as exc:
        return _local_issues(exc, depth, p_at, v_at)
    try:
        vn = ctx.norm("v", v, v_at if v_at is not None else ())
    except RefError as exc:
        return [Issue("invalid", [], [], None, v, Text.of("{error}", error=str(exc)), p_abs=True, v_abs=True)]
    except LocalUndecidable as exc:
        return (depth > 0 and _endless_here(ctx, exc, pn, v, p_at, v_at)) or _local_issues(exc, depth, p_at, v_at)
    key = (id(pn), id(vn))
    if key in ctx.memo:
        return ctx.memo[key][2]
    if key in ctx.active:
        return []
    ctx.tick()
    if depth > MAX_DEPTH:
        return [
            Issue(
                "undecidable",
                [],
                [],
                None,
                None,
                Text.of("schemas nested deeper than {MAX_DEPTH} levels", MAX_DEPTH=MAX_DEPTH),
                p_abs=True,
                v_abs=True,
            )
        ]
    ctx.active.add(key)
    p_here = p_at if p_at is not None else getattr(pn, "at", ())
    v_here = v_at if v_at is not None else getattr(vn, "at", ())
    try:
        issues = _dedupe([_absolute(i, pn, vn, p_here, v_here) for i in _compare(ctx, pn, vn, depth, v is False)])
    except (LocalUndecidable, RecursionError) as exc:  # met below this pair (a listed value, a merge, the stack)
        issues = _local_issues(exc, depth, p_here, v_here)
    finally:
        ctx.active.discard(key)
    ctx.memo[key] = (pn, vn, issues)
    return issues


def _local_issues(
    exc: LocalUndecidable | RecursionError, depth: int, p_at: Tokens | None, v_at: Tokens | None
) -> list[Issue]:
    """The one issue of a subschema pair that cannot be compared (``LocalUndecidable``: a side applies itself in
    place, too many union branches; ``RecursionError``: nested deeper than the interpreter's stack): that pair is
    undecided, and the rest of the schema is compared (a cycle on an optional property, or a 3 KB nesting with a
    description changed at its bottom, never hides a widened enum beside it). At the root, ``exc`` is raised
    again: the whole schema is undecided (``compare.compare_schemas``)."""
    if depth == 0:
        raise exc
    why = "schemas nested too deeply to compare" if isinstance(exc, RecursionError) else str(exc)
    return [
        Issue(
            "undecidable",
            list(p_at or ()),
            list(v_at or ()),
            None,
            None,
            Text.of("{value}; this subschema was not compared", value=why),
            p_abs=True,
            v_abs=True,
        )
    ]


def _endless_here(
    ctx: WalkContext, exc: LocalUndecidable, p: Any, v: Any, p_at: Tokens | None, v_at: Tokens | None
) -> list[Issue]:
    """V's node applies itself in place (``exc``: an ``InPlaceCycle``) where P's node declares values: when
    python-sdk's validation of P's sample there never ends (``memo.loops_at``), a value P declares that V fails
    (a server validating with its listed inputSchema, the python-sdk client on a result: ``RecursionError``), so
    a cycle put on an optional argument breaks every call carrying it: that issue replaces the pair's undecided
    one. Else nothing (an earlier ``anyOf`` branch takes the value: the pair stays undecided)."""
    from mcp_schema_audit.schema.memo import loops_at

    if not isinstance(exc, InPlaceCycle) or p is False or not isinstance(v, (dict, bool)):
        return []
    w = ctx.sample_p(p)
    ctx.count_validation(v)
    if w is NO_WITNESS or not loops_at(ctx.v_doc, v, w):
        return []
    why = Text("validating a value here never ends: the {V} schema applies itself in place")
    return [Issue("type-extra-p", list(p_at or ()), list(v_at or ()), None, None, why, w, p_abs=True, v_abs=True)]


def _absolute(issue: Issue, p: Any, v: Any, p_at: Tokens = (), v_at: Tokens = ()) -> Issue:
    """``issue`` with paths relative to the node pair made absolute (through the nodes' origins; a side that
    is no ``Node``, e.g. ``false``, is located at ``p_at``/``v_at``)."""
    if issue.p_abs and issue.v_abs:
        return issue
    out = replace(issue)
    if not issue.p_abs:
        out.p_bare = not issue.p_path
        out.p_path = list(p.where(issue.p_path)) if isinstance(p, Node) else [*p_at, *issue.p_path]
        out.p_abs = True
    if not issue.v_abs:
        out.v_bare = not issue.v_path
        out.v_path = list(v.where(issue.v_path)) if isinstance(v, Node) else [*v_at, *issue.v_path]
        out.v_abs = True
    return out


def _dedupe(issues: list[Issue]) -> list[Issue]:
    """Keep one issue per change: a shared ``$ref`` target reached by several paths reports once."""
    seen: set[tuple[Any, ...]] = set()
    out = []
    for i in issues:
        key = (i.kind, tuple(i.p_path), tuple(i.v_path), i.detail.identity, canon(i.delta))
        if key not in seen:
            seen.add(key)
            out.append(i)
    return out


def _compare(ctx: WalkContext, p: Any, v: Any, depth: int, v_literal: bool = True) -> list[Issue]:
    """A normalized pair: ``false`` on either side, a union on either side (``unions.union``), else one plain
    node on each side (``compare_single``). A side that is not a schema is ``invalid``. ``v_literal``: V's node
    is ``false`` as written (else its keywords admit no value: normalization made it ``false``)."""
    if p is False:
        return []
    # a normalized schema object is a ``Node`` (``true`` normalizes to one too)
    if not isinstance(p, Node) or not (isinstance(v, Node) or v is False):
        return [Issue("invalid", [], [], p, v, Text("subschema is neither an object nor a boolean"))]
    if v is False:
        w = ctx.sample_p(p)
        why = (
            Text("the {V} schema is false and accepts nothing")
            if v_literal
            else Text("no value meets the {V} schema's keywords: it accepts nothing")
        )
        return [Issue("type-extra-p", [], [], p, False, why, w)]
    up, uv = union_branches(p), union_branches(v)
    if up is not None or uv is not None:
        return unions.union(ctx, up[1] if up else [p], uv[1] if uv else [v], v, depth)
    return compare_single(ctx, p, v, depth)


# -- one plain pair: the keyword families --------------------------------------------------------------------
@dataclass(frozen=True)
class Family:
    """One keyword family of the walk: ``compare`` runs on a plain node pair when ``types`` is None or the
    types both sides allow include one of ``types`` (an integer is a number), and ``keywords`` is None or
    one side has one of ``keywords``."""

    name: str
    compare: FamilyFn
    types: tuple[str, ...] | None = None
    keywords: tuple[str, ...] | None = None

    def applies(self, p: Node, v: Node, common: set[str] | None) -> bool:
        """Does this family run on ``p``/``v`` (``common``: the types both allow, None for every type)?"""
        if self.types is not None and common is not None and not any(_has(common, t) for t in self.types):
            return False
        return self.keywords is None or any(kw in p or kw in v for kw in self.keywords)


def _has(common: set[str], t: str) -> bool:
    """Do the types ``common`` take values of type ``t`` (an integer type meets a number type either way)?"""
    return t in common or (t == "number" and "integer" in common) or (t == "integer" and "number" in common)


def limits(ctx: WalkContext, p: Node, v: Node, depth: int) -> list[Issue]:
    """Bounds at the interoperability limit (``Node.limits``) added, removed or moved: info only."""
    out = []
    for kw in sorted(set(p.limits) | set(v.limits)):
        a, b = p.limits.get(kw), v.limits.get(kw)
        if a == b and type(a) is type(b):
            continue
        if (kw in p or kw in v) and a is None and b is None:
            continue
        out.append(
            Issue(
                "interop",
                [kw] if a is not None else [],
                [kw] if b is not None else [],
                a,
                b,
                Text.of(
                    (
                        "{kw} {value} in the {P} schema, {value_2} in the {V} schema: a bound "
                        "at the interoperability limit ±(2^53−1) (RFC 7493 §2.2), which no real "
                        "value reaches"
                    ),
                    kw=kw,
                    value=short(a) if a is not None else "none",
                    value_2=short(b) if b is not None else "none",
                ),
                delta={"keyword": kw},
            )
        )
    return out


def unmodelled(ctx: WalkContext, p: Node, v: Node, depth: int) -> list[Issue]:
    """Keywords the engine compares for equality only (``_UNMODELLED``): a change is a warning naming it.
    ``unevaluatedItems`` read as ``items`` on both sides (``nodes.array_layout``) is the arrays family's."""
    issues: list[Issue] = []
    for kw in _UNMODELLED:
        if kw == "unevaluatedItems" and all(
            "unevaluatedItems" not in node or array_layout(node, doc.dialect).items_kw == kw
            for node, doc in ((p, ctx.p_doc), (v, ctx.v_doc))
        ):
            continue  # read as items on both sides, compared by arrays
        if (kw in p or kw in v) and canon(p.get(kw)) != canon(v.get(kw)):
            issues.append(
                Issue(
                    "undecidable",
                    [kw] if kw in p else [],
                    [kw] if kw in v else [],
                    p.get(kw),
                    v.get(kw),
                    Text.of("'{kw}' changed and is not modelled by the engine", kw=kw),
                )
            )
    return issues


#: The keyword families of a plain node pair, in the order their issues are reported (after ``values``).
FAMILIES: tuple[Family, ...] = (
    Family("numbers", scalars.numbers, types=("integer", "number")),
    Family("strings", scalars.strings, types=("string",)),
    Family("format", scalars.formats, keywords=("format",)),
    Family("arrays", arrays.arrays, types=("array",)),
    Family("objects", objects.objects, types=("object",)),
    Family("limits", limits),
    Family("allOf", applicators.all_of, keywords=("allOf",)),
    Family("not", applicators.not_, keywords=("not",)),
    Family(
        "conditionals",
        applicators.if_then_else,
        keywords=("if", "then", "else", "dependentSchemas", "dependentRequired", "dependencies"),
    ),
    Family("contains", contains.contains, keywords=("contains", "minContains", "maxContains")),
    Family("unmodelled", unmodelled, keywords=_UNMODELLED),
)


def compare_single(ctx: WalkContext, p: Node, v: Node, depth: int) -> list[Issue]:
    """Issues of one plain node pair (no union on either side), paths relative to the pair: ``nullable``,
    then ``enum``/``const`` (which answer alone when a side lists values), then ``type``; when both sides
    still allow some type, each family of ``FAMILIES`` that applies, in order."""
    issues: list[Issue] = values.nullable(p, v)
    listed = values.value_issues(ctx, p, v, depth)
    if listed is not None:
        return issues + listed
    type_issues, common = values.type_issues(ctx, p, v)
    issues += type_issues
    if common is not None and not common:
        return issues
    for family in FAMILIES:
        if family.applies(p, v, common):
            issues += family.compare(ctx, p, v, depth)
    return issues
