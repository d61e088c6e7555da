"""The lockstep walk over a producing schema P and a validating schema V: memo, ``$ref``, dispatch."""

from __future__ import annotations

import math
import time
from dataclasses import replace
from typing import Any

from mcp_schema_audit.engine.applicators import ApplicatorMixin
from mcp_schema_audit.engine.arrays import ArraysMixin
from mcp_schema_audit.engine.confirm import RULE_SEVERITY_FOR_KIND
from mcp_schema_audit.engine.issue import ABS, Budget, Issue, NO_WITNESS, canon, short
from mcp_schema_audit.engine.normalize import NormalizeMixin, _ANNOTATIONS, _unnegate
from mcp_schema_audit.engine.objects import ObjectsMixin
from mcp_schema_audit.engine.sampler import NoSample, bound, number_candidates, sample
from mcp_schema_audit.engine.scalars import ScalarsMixin
from mcp_schema_audit.engine.unions import UnionsMixin
from mcp_schema_audit.engine.witness import WitnessMixin
from mcp_schema_audit.schema import DEFAULT_DIALECT, HOST_PROFILES, RefError, SchemaDoc, json_type, type_set

#: Seconds one tool and direction may take to compare (witness searches included) before a warning.
TIME_BUDGET_S = 10.0


#: JSON keys of keywords the host profiles read differently (only Ajv: ``nullable``, draft-07
#: ``dependencies`` in a 2020-12 schema; not ts-sdk-v1: the 2020-12-only keywords; regex dialects:
#: ``pattern``, ``patternProperties``; formats checked by the TS profiles only).
HOST_SENSITIVE = ('"nullable"', '"dependencies"', '"pattern', '"format"', '"prefixItems"', '"unevaluated',
                  '"dependentSchemas"', '"dependentRequired"', '"minContains"', '"maxContains"', '"items":false',
                  '"items":[', '"propertyNames"', '"$schema"')


#: Maximum depth of the lockstep walk (schema nesting); deeper → a ``schema-undecidable`` warning.
MAX_DEPTH = 200


#: Node pairs compared per tool and direction before the engine gives up with a warning.
WORK_BUDGET = 50_000


#: Keywords compared only for equality: a change is a ``schema-undecidable`` warning naming the keyword.
_UNMODELLED = ("$dynamicRef", "$recursiveRef", "unevaluatedItems")


class Comparer(ObjectsMixin, ArraysMixin, ScalarsMixin, UnionsMixin, WitnessMixin, NormalizeMixin, ApplicatorMixin):
    """The lockstep walk over a producing schema P and a validating schema V: memo, ``$ref``, dispatch."""

    def __init__(self, p_doc: SchemaDoc, v_doc: SchemaDoc, deadline: float | None = None) -> None:
        self.p_doc, self.v_doc = p_doc, v_doc
        self.memo: dict[tuple[int, int], tuple[Any, Any, list[Issue]]] = {}
        self.deadline = min(time.monotonic() + TIME_BUDGET_S, math.inf if deadline is None else deadline)
        self._origin: dict[int, tuple[Any, list[Any]]] = {}  # id(property $ref made by _merge_all_of) → tokens
        self.active: set[tuple[int, int]] = set()
        self.work = 0

    # -- helpers -------------------------------------------------------------------------------
    def _tick(self) -> None:
        """Count one unit of work; raises ``Budget`` past ``WORK_BUDGET`` or ``TIME_BUDGET_S``."""
        self.work += 1
        if self.work > WORK_BUDGET or time.monotonic() > self.deadline:
            raise Budget()

    def _valid(self, doc: SchemaDoc, node: Any, value: Any, profile: str = "python-sdk") -> bool | None:
        """Is ``value`` valid under ``node`` (a subschema of ``doc``) for ``profile``? ``None`` when undecidable."""
        try:
            return doc.validator(profile).evolve(schema=node).is_valid(value)
        except Exception:  # unresolvable $ref, invalid schema, catastrophic input: undecided
            return None
        except BaseException as exc:  # a panic in the regex engine's Rust code (pyo3 PanicException)
            if isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit)):
                raise
            return None

    def _pick(self, p: Any, v: Any, candidates: list[Any]) -> Any:
        """The first candidate valid under P's node and invalid under V's, or ``NO_WITNESS``."""
        for cand in candidates:
            if self._valid(self.p_doc, p, cand) and self._valid(self.v_doc, v, cand) is False:
                return cand
        return NO_WITNESS

    def _sample_p(self, node: Any) -> Any:
        try:
            return sample(node, self.p_doc)
        except (NoSample, RecursionError):
            return NO_WITNESS

    def _deref(self, node: Any, doc: SchemaDoc) -> tuple[Any, list[str] | None]:
        """Follow ``$ref``; returns (target, absolute tokens of the target or None when no ref)."""
        tokens: list[str] | None = None
        for _ in range(32):
            if not (isinstance(node, dict) and isinstance(node.get("$ref"), str)):
                return node, tokens
            target, tokens = doc.lookup(node["$ref"])
            siblings = {k: v for k, v in node.items() if k != "$ref" and k not in _ANNOTATIONS}
            node = {**target, **siblings} if siblings and isinstance(target, dict) else target
        raise RefError(f"$ref chain from {node.get('$ref')!r} is too long or cyclic")

    # -- walk ----------------------------------------------------------------------------------
    def compare(self, p: Any, v: Any, depth: int = 0) -> list[Issue]:
        """Issues where P declares values V rejects (and informational differences), memoized per node pair."""
        key = (id(p), id(v))
        if key in self.memo:
            return self.memo[key][2]
        if key in self.active:
            return []
        self._tick()
        if depth > MAX_DEPTH:
            return [Issue("undecidable", [], [], None, None, f"schemas nested deeper than {MAX_DEPTH} levels")]
        self.active.add(key)
        try:
            issues = self._dedupe(self._compare(p, v, depth))
        finally:
            self.active.discard(key)
        self.memo[key] = (p, v, issues)
        return issues

    def _compare(self, p: Any, v: Any, depth: int) -> list[Issue]:
        try:
            p2, p_tok = self._deref(p, self.p_doc)
        except RefError as exc:
            return [Issue("invalid", [], [], p, None, str(exc))]
        try:
            v2, v_tok = self._deref(v, self.v_doc)
        except RefError as exc:
            return [Issue("invalid", [], [], None, v, str(exc))]
        if p_tok is not None or v_tok is not None:
            inner = self.compare(p2, v2, depth + 1)
            return [self._rebase(i, p_tok, v_tok) for i in inner]
        p, v = (p2 if p2 is not True else {}), (v2 if v2 is not True else {})
        if p is False:
            return []
        if not isinstance(p, dict) or not isinstance(v, (dict, bool)):
            return [Issue("invalid", [], [], p, v, "subschema is neither an object nor a boolean")]
        if v is False:
            w = self._sample_p(p)
            return [Issue("type-extra-p", [], [], p, False, "the cached schema is false and accepts nothing", w)]
        (p, p_moved), (v, v_moved) = _unnegate(p), _unnegate(v)
        p, v = self._merge_all_of(p, self.p_doc), self._merge_all_of(v, self.v_doc)
        bp, bv = self._branches(p, self.p_doc), self._branches(v, self.v_doc)
        if len(bp) == 1 and len(bv) == 1 and bp[0][0] is p and bv[0][0] is v:
            issues = self._compare_single(p, v, depth)
        else:
            issues = self._compare_union(bp, bv, v, depth)
        if p_moved or v_moved:  # keywords that came from inside a double negation point back there
            for i in issues:
                if not i.p_abs and i.p_path[:1] and i.p_path[0] in p_moved:
                    i.p_path = ["not", "not"] + i.p_path
                if not i.v_abs and i.v_path[:1] and i.v_path[0] in v_moved:
                    i.v_path = ["not", "not"] + i.v_path
        return issues

    @staticmethod
    def _dedupe(issues: list[Issue]) -> list[Issue]:
        """Keep one issue per change: a shared ``$ref`` target reached by several paths reports once."""
        seen: set[tuple[Any, ...]] = set()
        out = []
        for i in issues:
            key = (i.kind, tuple(i.p_path), tuple(i.v_path), i.p_abs, i.v_abs, i.detail)
            if key not in seen:
                seen.add(key)
                out.append(i)
        return out

    @staticmethod
    def _rebase(issue: Issue, p_tok: list[str] | None, v_tok: list[str] | None) -> Issue:
        out = replace(issue)
        if p_tok is not None and not issue.p_abs and not (p_tok and p_tok[0].startswith("$ref:")):
            out.p_path, out.p_abs = list(p_tok) + issue.p_path, True
        if v_tok is not None and not issue.v_abs and not (v_tok and v_tok[0].startswith("$ref:")):
            out.v_path, out.v_abs = list(v_tok) + issue.v_path, True
        return out

    @staticmethod
    def _prefix(issues: list[Issue], p_steps: list[Any], v_steps: list[Any], inst_step: Any = None,
                wrap: Any = None) -> list[Issue]:
        out = []
        p_abs, v_abs = p_steps[:1] == [ABS], v_steps[:1] == [ABS]
        p_steps = [t for t in p_steps if t is not ABS]
        v_steps = [t for t in v_steps if t is not ABS]
        for i in issues:
            j = replace(i)
            if not i.p_abs:
                j.p_path, j.p_abs = list(p_steps) + i.p_path, p_abs
            if not i.v_abs:
                j.v_path, j.v_abs = list(v_steps) + i.v_path, v_abs
            if inst_step is not None:
                j.inst = [inst_step] + i.inst
            if wrap is not None and i.witness is not NO_WITNESS:
                j.witness = wrap(i.witness)
            out.append(j)
        return out

    @staticmethod
    def _hard(issue: Issue) -> bool:
        return RULE_SEVERITY_FOR_KIND.get(issue.kind) == "breaking"

    @staticmethod
    def _type_kw(node: dict[str, Any]) -> list[str]:
        """Pointer step of the keyword that fixes ``node``'s type: type, else enum/const, else the node."""
        for kw in ("type", "const", "enum"):
            if kw in node:
                return [kw]
        return []

    # -- single branch -------------------------------------------------------------------------
    def _compare_single(self, p: dict[str, Any], v: dict[str, Any], depth: int) -> list[Issue]:
        issues: list[Issue] = self._nullable(p, v)
        tp, tv = self._types_of(p), self._types_of(v)
        pk, vk = self._type_kw(p), self._type_kw(v)
        common: set[str] | None
        if tv is None:
            common = tp
            if tp is not None and type_set(p) is not None and type_set(v) is None and "enum" not in v \
                    and "const" not in v:
                issues.append(Issue("type-extra-v", pk, [], p.get("type"), None,
                                     f"the {{P}} schema has type {short(p.get('type'))}, the {{V}} schema no type"))
        elif tp is None:
            others = [t for t in ("string", "integer", "boolean", "object", "array", "null", "number")
                      if not self._allowed(tv, t)]
            w = self._pick(p, v, [self._sample_typed(p, t) for t in others])
            issues.append(Issue("type-only-v", [], vk, None, v.get("type"),
                                 f"the {{P}} schema has no type, the {{V}} schema requires {short(v.get('type'))}", w))
            common = tv
        else:
            extra = [t for t in sorted(tp) if not self._allowed(tv, t)]
            for t in extra:
                cands = [x for x in (self._values(p) or []) if json_type(x) == t]
                if t == "number":
                    cands += [c for c in number_candidates(p, integer=False) if isinstance(c, float)
                              and not c.is_integer()] + [0.5, 1.5]
                    lo, _ = bound(p, "min")
                    if lo is not None:
                        cands.append(lo + 0.5)
                cands.append(self._sample_typed(p, t))
                w = self._pick(p, v, [c for c in cands if c is not NO_WITNESS])
                issues.append(Issue("type-extra-p", pk, vk, p.get("type"), v.get("type"),
                                     f"type {t!r} of the {{P}} schema is not accepted by the {{V}} schema's type {short(v.get('type'))}", w))
            missing = [t for t in sorted(tv) if not self._allowed(tp, t) and not (t == "number" and "integer" in tp)]
            if missing:
                issues.append(Issue("type-extra-v", pk, vk, p.get("type"), v.get("type"),
                                     f"type {short(v.get('type'))} in the {{V}} schema, {short(p.get('type'))} in the {{P}} schema"))
            common = {t for t in tp if self._allowed(tv, t)}
            if not common:
                return issues
        values = self._value_issues(p, v)
        if values is not None:
            return issues + values
        def has(t: str) -> bool:
            return common is None or t in common or (t == "number" and "integer" in common) or (
                t == "integer" and "number" in common)
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
        issues += self._applicators(p, v, depth)
        for kw in _UNMODELLED:
            if kw == "unevaluatedItems" and all("unevaluatedItems" not in node or self._tuple(node, doc)[3] == kw
                                                for node, doc in ((p, self.p_doc), (v, self.v_doc))):
                continue  # read as items by _tuple on both sides, compared by _arrays
            if kw in p or kw in v:
                if canon(p.get(kw)) != canon(v.get(kw)):
                    issues.append(Issue("undecidable", [kw] if kw in p else [], [kw] if kw in v else [],
                                         p.get(kw), v.get(kw), f"'{kw}' changed and is not modelled by the engine"))
        return issues

    @staticmethod
    def _host_sensitive(node: Any, doc: SchemaDoc) -> bool:
        """Could host profiles disagree on a value under ``node``? True when it (or, through a ``$ref``, its
        document) uses a keyword only some profiles read or read differently (``HOST_SENSITIVE``)."""
        text = canon(node)
        if '"$ref"' in text or '"$dynamicRef"' in text:
            text = doc.canonical
        return doc.dialect != DEFAULT_DIALECT or any(k in text for k in HOST_SENSITIVE)

    def _pick_any_profile(self, p: Any, v: Any, candidates: list[Any]) -> Any:
        """The first candidate some host profile accepts under P's node and rejects under V's, or ``NO_WITNESS``
        (for differences between host profiles: formats, ECMAScript vs Python regexes, ``nullable``)."""
        for cand in candidates[:64]:
            for prof in HOST_PROFILES:
                if self._valid(self.p_doc, p, cand, prof) and self._valid(self.v_doc, v, cand, prof) is False:
                    return cand
        return NO_WITNESS
