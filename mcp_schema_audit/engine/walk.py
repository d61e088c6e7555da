"""The lockstep walk over a producing schema P and a validating schema V.

Direction decides which side is which (``compare``): P is what the producing side declares (the new
``outputSchema``, the cached ``inputSchema``), V is what validates (the cached ``outputSchema``, the
new ``inputSchema``); an ``Issue`` is a place where P declares values V rejects, or an informational
difference. Both sides are normalized first (``normalize``), so the walk meets one spelling of
everything; each keyword family is compared by its own mixin (``objects``, ``arrays``, ``scalars``,
``unions``, ``applicators``). Node pairs are memoized and a pair already on the stack is assumed
compatible, so recursive schemas terminate and shared subschemas are walked once.

Budgets count work, never seconds (the same two schemas give the same findings on any machine):
``WORK_BUDGET`` node pairs, ``VALIDATION_BUDGET`` validations, ``MAX_DEPTH`` nesting, union branches
(``normalize.MAX_BRANCHES``). Past one, ``Budget`` is raised and the tool's comparison becomes a
``schema-undecidable`` warning.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from mcp_schema_audit import fastpaths
from mcp_schema_audit.engine.applicators import ApplicatorMixin
from mcp_schema_audit.engine.arrays import ArraysMixin
from mcp_schema_audit.engine.confirm import same_reason
from mcp_schema_audit.engine.identity import Identity
from mcp_schema_audit.engine.issue import NO_WITNESS, Budget, Issue, canon, short
from mcp_schema_audit.engine.nodes import Node, union_branches
from mcp_schema_audit.engine.normalize import Normalizer
from mcp_schema_audit.engine.objects import ObjectsMixin
from mcp_schema_audit.engine.sampler import NoSample, sample
from mcp_schema_audit.engine.scalars import ScalarsMixin
from mcp_schema_audit.engine.unions import UnionsMixin
from mcp_schema_audit.engine.witness import WitnessMixin
from mcp_schema_audit.errors import WallClockGuard
from mcp_schema_audit.schema import DEFAULT_DIALECT, HOST_PROFILES, RefError, SchemaDoc, json_type
from mcp_schema_audit.schema.doc import host_sensitive_text

#: Maximum depth of the lockstep walk (schema nesting); deeper → a ``schema-undecidable`` warning.
MAX_DEPTH = 200
#: Node pairs compared per tool and direction before the engine gives up with a warning.
WORK_BUDGET = 50_000
#: Validations (one value against one subschema for one host) per tool and direction before the engine gives up.
VALIDATION_BUDGET = 200_000
#: Keywords compared only for equality: a change is a ``schema-undecidable`` warning naming the keyword.
_UNMODELLED = ("$dynamicRef", "$recursiveRef", "unevaluatedItems")


def error_keywords(errors: list[Any]) -> set[tuple[str, tuple[Any, ...]]]:
    """``(keyword, instance path)`` of every error in ``errors`` and, for ``anyOf``/``oneOf`` failures, of the
    branches' own errors (the reason inside the union)."""
    out: set[tuple[str, tuple[Any, ...]]] = set()
    stack = list(errors)
    while stack and len(out) < 10_000:
        e = stack.pop()
        out.add((str(e.validator), tuple(e.absolute_path)))
        stack.extend(e.context or [])
    return out


class Comparer(ObjectsMixin, ArraysMixin, ScalarsMixin, UnionsMixin, WitnessMixin, ApplicatorMixin):
    """Compares one pair of tool schemas (P, V) in P/V terms; see the module docstring.

    ``root_type``: a type both roots always have (``"object"`` for inputSchemas: MCP ``arguments``).
    """

    def __init__(self, p_doc: SchemaDoc, v_doc: SchemaDoc, root_type: str | None = None) -> None:
        self.p_doc, self.v_doc = p_doc, v_doc
        self.pn, self.vn = Normalizer(p_doc, root_type), Normalizer(v_doc, root_type)
        self.memo: dict[tuple[int, int], tuple[Any, Any, list[Issue]]] = {}
        self.active: set[tuple[int, int]] = set()
        self.work = 0
        self.validations = 0
        self.identity = Identity(p_doc, v_doc)
        #: the identical-subtree skip (``fastpaths``: off only to check that it changes no verdict)
        self.fast = fastpaths.enabled()

    # -- budgets and validation ------------------------------------------------------------------------------
    def _tick(self) -> None:
        """Count one node pair; raises ``Budget`` past ``WORK_BUDGET``."""
        self.work += 1
        if self.work > WORK_BUDGET:
            raise Budget(f"work budget exceeded ({WORK_BUDGET} node pairs)")

    def _count_validation(self) -> None:
        """Count one validation; raises ``Budget`` past ``VALIDATION_BUDGET``."""
        self.validations += 1
        if self.validations > VALIDATION_BUDGET:
            raise Budget(f"validation budget exceeded ({VALIDATION_BUDGET} validations)")

    def _validator(self, doc: SchemaDoc, node: Any, profile: str) -> Any:
        self._count_validation()
        return doc.validator_for(node, profile)

    def _valid(self, doc: SchemaDoc, node: Any, value: Any, profile: str = "python-sdk") -> bool | None:
        """Is ``value`` valid under ``node`` (a subschema of ``doc``) for ``profile``? ``None`` when undecidable."""
        try:
            if self.fast:
                self._count_validation()
                doc.ready(profile)  # raises as the real validator would
                quick = doc.quick(node, value, profile)
                if quick is not None:
                    return quick
                return doc.validator_for(node, profile).is_valid(value)
            return self._validator(doc, node, profile).is_valid(value)
        except Budget:
            raise
        except Exception:  # unresolvable $ref, invalid schema, catastrophic input: undecided
            return None
        except BaseException as exc:  # a panic in the regex engine's Rust code (pyo3 PanicException)
            if isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit, WallClockGuard)):
                raise
            return None

    def _rejected_for(self, v: Any, value: Any, kw: str | None, profile: str = "python-sdk") -> int:
        """How well V's node rejects ``value`` for keyword ``kw``: 2 = rejected by ``kw`` alone, 1 = ``kw`` among
        the reasons, 0 = rejected for other reasons only (or not at all, or undecidable). Without ``kw``:
        2 when rejected."""
        try:
            errors = list(self._validator(self.v_doc, v, profile).iter_errors(value))
        except Budget:
            raise
        except Exception:
            return 0
        except BaseException as exc:  # pragma: no cover - a Rust panic in the regex engine
            if isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit, WallClockGuard)):
                raise
            return 0
        if not errors:
            return 0
        if kw is None:
            return 2
        top = {str(e.validator) for e in errors}
        if top <= {"anyOf", "oneOf"} and kw not in ("anyOf", "oneOf"):
            top = {k for k, _ in error_keywords(errors)} - {"anyOf", "oneOf"}
        if top and all(same_reason(kw, k) for k in top):
            return 2
        return 1 if any(same_reason(kw, k) for k, _ in error_keywords(errors)) else 0

    def _pick(self, p: Any, v: Any, candidates: list[Any], kw: str | None = None) -> Any:
        """A candidate valid under P's node and rejected by V's node, or ``NO_WITNESS``. With ``kw``, the
        rejection must be by that keyword: alone when some candidate allows it (so the witness shows this
        change and nothing else), else among other reasons."""
        second = NO_WITNESS
        seen: set[str] = set()
        for cand in candidates:
            if cand is NO_WITNESS:
                continue
            key = canon(cand) + json_type(cand)
            if key in seen:
                continue
            seen.add(key)
            if not self._valid(self.p_doc, p, cand) or self._valid(self.v_doc, v, cand) is not False:
                continue
            score = self._rejected_for(v, cand, kw)
            if score == 2:
                return cand
            if score == 1 and second is NO_WITNESS:
                second = cand
        return second

    def _pick_any_profile(self, p: Any, v: Any, candidates: list[Any], kw: str | None = None) -> Any:
        """The first candidate some host profile accepts under P's node and rejects under V's (by ``kw`` when
        given), or ``NO_WITNESS`` (for host differences: formats, ECMAScript vs Python regexes, ``nullable``)."""
        for cand in [c for c in candidates if c is not NO_WITNESS][:64]:
            for prof in HOST_PROFILES:
                if (
                    self._valid(self.p_doc, p, cand, prof)
                    and self._valid(self.v_doc, v, cand, prof) is False
                    and (kw is None or self._rejected_for(v, cand, kw, prof))
                ):
                    return cand
        return NO_WITNESS

    def _sample_p(self, node: Any) -> Any:
        try:
            return sample(node, self.p_doc)
        except (NoSample, RecursionError, RefError):
            return NO_WITNESS

    def _deref(self, node: Any, doc: SchemaDoc) -> tuple[Any, None]:
        """``node`` normalized in its document (``$ref`` followed, ``allOf`` merged); kept for the applicators'
        proofs, which look at a subschema's keywords. Raises ``RefError``."""
        normalizer = self.pn if doc is self.p_doc else self.vn
        try:
            return normalizer.norm(node, normalizer.locate(node) or ()), None
        except Budget:
            raise RefError("in-place cycle") from None

    def _norm(self, side: str, raw: Any, at: tuple[Any, ...]) -> Any:
        normalizer = self.pn if side == "p" else self.vn
        return normalizer.norm(raw, at)

    # -- walk ------------------------------------------------------------------------------------------------
    def compare(
        self, p: Any, v: Any, depth: int = 0, p_at: tuple[Any, ...] | None = None, v_at: tuple[Any, ...] | None = None
    ) -> list[Issue]:
        """Issues where P's node declares values V's node rejects (and informational differences), with
        absolute paths. ``p``/``v`` are raw subschemas located at ``p_at``/``v_at`` (or ``Node``s). A pair of
        identical raw subtrees (``identity``) has no issue and is not walked."""
        if not isinstance(p, Node) and not isinstance(v, Node) and self.identity.identical(p, v):
            return []
        try:
            pn = self._norm("p", p, p_at if p_at is not None else ())
        except RefError as exc:
            return [Issue("invalid", [], [], p, None, str(exc), p_abs=True, v_abs=True)]
        try:
            vn = self._norm("v", v, v_at if v_at is not None else ())
        except RefError as exc:
            return [Issue("invalid", [], [], None, v, str(exc), p_abs=True, v_abs=True)]
        key = (id(pn), id(vn))
        if key in self.memo:
            return self.memo[key][2]
        if key in self.active:
            return []
        self._tick()
        if depth > MAX_DEPTH:
            return [
                Issue(
                    "undecidable",
                    [],
                    [],
                    None,
                    None,
                    f"schemas nested deeper than {MAX_DEPTH} levels",
                    p_abs=True,
                    v_abs=True,
                )
            ]
        self.active.add(key)
        try:
            p_here = p_at if p_at is not None else getattr(pn, "at", ())
            v_here = v_at if v_at is not None else getattr(vn, "at", ())
            issues = self._dedupe([self._absolute(i, pn, vn, p_here, v_here) for i in self._compare(pn, vn, depth)])
        finally:
            self.active.discard(key)
        self.memo[key] = (pn, vn, issues)
        return issues

    @staticmethod
    def _absolute(issue: Issue, p: Any, v: Any, p_at: tuple[Any, ...] = (), v_at: tuple[Any, ...] = ()) -> Issue:
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

    def _compare(self, p: Any, v: Any, depth: int) -> list[Issue]:
        if p is False:
            return []
        if not isinstance(p, dict) or not isinstance(v, (dict, bool)):
            return [Issue("invalid", [], [], p, v, "subschema is neither an object nor a boolean")]
        if v is False:
            w = self._sample_p(p)
            return [Issue("type-extra-p", [], [], p, False, "the {V} schema is false and accepts nothing", w)]
        up, uv = union_branches(p), union_branches(v)
        if up is not None or uv is not None:
            return self._compare_union(up[1] if up else [p], uv[1] if uv else [v], v, depth)
        return self._compare_single(p, v, depth)

    @staticmethod
    def _dedupe(issues: list[Issue]) -> list[Issue]:
        """Keep one issue per change: a shared ``$ref`` target reached by several paths reports once."""
        seen: set[tuple[Any, ...]] = set()
        out = []
        for i in issues:
            key = (i.kind, tuple(i.p_path), tuple(i.v_path), i.detail, canon(i.delta))
            if key not in seen:
                seen.add(key)
                out.append(i)
        return out

    def _child(
        self,
        p: Node,
        p_steps: list[Any],
        ps: Any,
        v: Node,
        v_steps: list[Any],
        vs: Any,
        depth: int,
        inst_step: Any = None,
        wrap: Any = None,
    ) -> list[Issue]:
        """Compare P's subschema ``ps`` (at ``p_steps`` from ``p``) with V's ``vs`` (at ``v_steps`` from ``v``);
        the issues' witnesses are wrapped into ``p``'s instance by ``wrap`` (``inst_step`` is the key or index)."""
        issues = self.compare(ps, vs, depth + 1, p.where(p_steps), v.where(v_steps))
        return self._prefix(issues, inst_step, wrap)

    @staticmethod
    def _prefix(issues: list[Issue], inst_step: Any = None, wrap: Any = None) -> list[Issue]:
        """Issues of a child node pair seen from the parent: instance path and witness extended."""
        if inst_step is None and wrap is None:
            return issues
        out = []
        for i in issues:
            j = replace(i)
            if inst_step is not None:
                j.inst = [inst_step] + i.inst
            if wrap is not None and i.witness is not NO_WITNESS:
                j.witness = wrap(i.witness)
            out.append(j)
        return out

    @staticmethod
    def _type_kw(node: dict[str, Any]) -> list[str]:
        """Pointer step of the keyword that fixes ``node``'s type: type, else enum/const, else the node."""
        for kw in ("type", "const", "enum"):
            if kw in node:
                return [kw]
        return []

    # -- single branch -------------------------------------------------------------------------------------
    def _compare_single(self, p: Node, v: Node, depth: int) -> list[Issue]:
        issues: list[Issue] = self._nullable(p, v)
        values = self._value_issues(p, v)
        if values is not None:
            return issues + values
        type_issues, common = self._type_issues(p, v)
        issues += type_issues
        if common is not None and not common:
            return issues

        def has(t: str) -> bool:
            return (
                common is None
                or t in common
                or (t == "number" and "integer" in common)
                or (t == "integer" and "number" in common)
            )

        if has("integer") or has("number"):
            issues += self._numbers(p, v, integer=common is not None and "number" not in common)
        if has("string"):
            issues += self._strings(p, v)
        if "format" in p or "format" in v:
            issues += self._format(p, v)
        if has("array"):
            issues += self._arrays(p, v, depth)
        if has("object"):
            issues += self._objects(p, v, depth)
        issues += self._limits(p, v)
        issues += self._applicators(p, v, depth)
        for kw in _UNMODELLED:
            if kw == "unevaluatedItems" and all(
                "unevaluatedItems" not in node or self._tuple(node, doc)[3] == kw
                for node, doc in ((p, self.p_doc), (v, self.v_doc))
            ):
                continue  # read as items by _tuple on both sides, compared by _arrays
            if (kw in p or kw in v) and canon(p.get(kw)) != canon(v.get(kw)):
                issues.append(
                    Issue(
                        "undecidable",
                        [kw] if kw in p else [],
                        [kw] if kw in v else [],
                        p.get(kw),
                        v.get(kw),
                        f"'{kw}' changed and is not modelled by the engine",
                    )
                )
        return issues

    @staticmethod
    def _limits(p: Node, v: Node) -> list[Issue]:
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
                    f"{kw} {short(a) if a is not None else 'none'} in the {{P}} schema, "
                    f"{short(b) if b is not None else 'none'} in the {{V}} schema: a bound at the "
                    "interoperability limit ±(2^53−1) (RFC 7493 §2.2), which no real value reaches",
                    delta={"keyword": kw},
                )
            )
        return out

    @staticmethod
    def _host_sensitive(node: Any, doc: SchemaDoc) -> bool:
        """Could host profiles disagree on a value under ``node``? True when it (or, through a ``$ref``, its
        document) uses a keyword only some profiles read or read differently (``host_sensitive_text``)."""
        text, own = canon(node), int(node is doc.root and doc.root_schema_keys)
        if '"$ref"' in text or '"$dynamicRef"' in text:
            text, own = doc.canonical, doc.root_schema_keys
        return doc.dialect != DEFAULT_DIALECT or host_sensitive_text(text, own)
