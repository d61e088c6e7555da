"""The compatibility engine: pair tools by name, compare schemas per direction, confirm witnesses.

Direction decides everything (DESIGN.md §2). The engine compares a *producing* schema P with a
*validating* schema V and asks whether every value P declares is accepted by V:

- ``outputSchema``: P = new (what the server now returns), V = old (what hosts cached);
- ``inputSchema``:  P = old (what the model builds from the cache), V = new (what the server checks).

The walk is lockstep over both schemas. ``$ref`` targets are compared once per pair of schema
nodes (memoized by identity), and a pair already on the stack is assumed compatible, so recursive
schemas terminate and shared subschemas are never expanded into trees. Unions (``anyOf``,
``oneOf``, ``type`` lists, nullable spellings) are compared branch by branch. Every issue carries a
relative witness that is wrapped as the walk returns, so the root receives a whole instance
(the tool result or the argument object); ``_confirm`` then validates it against both sides with
each host profile, and a breaking claim that does not confirm is downgraded to a warning.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import quote

from mcp_schema_audit.applicators import UNSAFE_KINDS, ApplicatorMixin, conditionals, pattern_keys
from mcp_schema_audit.issue import (ABS, NO_WITNESS, Budget, Issue, canon, pointer, same_value, short,  # noqa: F401
                                    value_key)
from mcp_schema_audit.rules import RULES, SEVERITY_RANK
from mcp_schema_audit.schema import (DEFAULT_DIALECT, HOST_PROFILES, RefError, SchemaCostError, SchemaDoc, json_type,
                                     type_set)
from mcp_schema_audit.snapshot import Snapshot
from mcp_schema_audit.witness import (FORMAT_SAMPLES, MAX_SAMPLE_SIZE, NoSample, bound, deref, number_candidates,
                                      regex_examples, sample, string_candidates)

#: Seconds one tool and direction may take to compare (witness searches included) before a warning.
TIME_BUDGET_S = 10.0
#: JSON keys of keywords the host profiles read differently (only Ajv: ``nullable``, draft-07
#: ``dependencies`` in a 2020-12 schema; not ts-sdk-v1: the 2020-12-only keywords; regex dialects:
#: ``pattern``, ``patternProperties``; formats checked by the TS profiles only).
HOST_SENSITIVE = ('"nullable"', '"dependencies"', '"pattern', '"format"', '"prefixItems"', '"unevaluated',
                  '"dependentSchemas"', '"dependentRequired"', '"minContains"', '"maxContains"', '"items":false',
                  '"items":[', '"propertyNames"', '"$schema"')
#: Seconds one ``diff_snapshots`` call may spend on all its tools; tools left when it is spent get a
#: ``schema-undecidable`` warning each (a server of many hostile tools cannot hold a CI job for hours).
RUN_TIME_BUDGET_S = 60.0
#: Maximum depth of the lockstep walk (schema nesting); deeper → a ``schema-undecidable`` warning.
MAX_DEPTH = 200
#: Node pairs compared per tool and direction before the engine gives up with a warning.
WORK_BUDGET = 50_000
#: Enum values (both sides together) compared value by value; more → a ``schema-undecidable`` warning.
MAX_ENUM = 20_000
#: Union branches one node may expand into; more → the tool's comparison stops with a warning.
MAX_BRANCHES = 64
_ANNOTATIONS = {"title", "description", "examples", "default", "$comment", "deprecated", "readOnly",
                "writeOnly", "$schema", "$id", "$anchor", "$defs", "definitions", "$vocabulary", "$dynamicAnchor",
                "contentMediaType", "contentEncoding", "contentSchema"}
#: Keywords compared only for equality: a change is a ``schema-undecidable`` warning naming the keyword.
_UNMODELLED = ("$dynamicRef", "$recursiveRef", "unevaluatedItems")

# neutral kind (P/V terms) → (rule id for outputs, rule id for inputs)
_KINDS = {
    "enum-extra-p": ("output-enum-value-added", "input-enum-value-removed"),
    "enum-extra-v": ("output-enum-value-removed", "input-enum-value-added"),
    "const-changed": ("output-const-changed", "input-const-changed"),
    "enum-only-v": ("output-enum-removed", "input-enum-introduced"),
    "enum-only-p": ("output-enum-introduced", "input-enum-removed"),
    "type-extra-p": ("output-type-widened", "input-type-narrowed"),
    "type-extra-v": ("output-type-narrowed", "input-type-widened"),
    "type-only-v": ("output-type-removed", "input-type-narrowed"),
    "prop-extra-p-closed": ("output-property-added-to-closed-object", "input-property-removed-from-closed-object"),
    "prop-extra-p-open": ("output-property-added", "input-property-removed"),
    "prop-extra-v": ("output-property-removed", "input-property-added"),
    "required-extra-v": ("output-required-removed", "input-required-added"),
    "required-extra-p": ("output-required-added", "input-required-removed"),
    "opened-p": ("output-object-opened", "input-object-closed"),
    "closed-p": ("output-object-closed", "input-object-opened"),
    "looser-p": ("output-constraint-relaxed", "input-constraint-tightened"),
    "looser-v": ("output-constraint-tightened", "input-constraint-relaxed"),
    "format": ("output-format-changed", "input-format-changed"),
    "pattern": ("output-pattern-changed", "input-pattern-changed"),
    "branch-extra-p": ("output-union-branch-added", "input-union-branch-removed"),
    "branch-extra-v": ("output-union-branch-removed", "input-union-branch-added"),
    "oneof-overlap": ("output-oneof-overlap", "input-oneof-overlap"),
    "undecidable": ("schema-undecidable", "schema-undecidable"),
    "invalid": ("schema-invalid", "schema-invalid"),
}


@dataclass
class Finding:
    """One classified change.

    ``pointer`` is an RFC 6901 JSON Pointer into the tool's schema of ``direction`` (``""`` = root;
    the new schema's location when it exists there, else the old one's); ``old``/``new`` are the
    values on each side (``None`` when absent). ``witness`` is ``None`` or
    ``{"instance", "accepted_by": "new"|"old", "error", "instance_pointer"}``. ``hosts`` lists the
    host profiles a breaking finding was confirmed against.
    """

    rule: str
    severity: str
    tool: str
    direction: str
    pointer: str
    message: str
    old: Any = None
    new: Any = None
    old_pointer: str | None = None
    new_pointer: str | None = None
    witness: dict[str, Any] | None = None
    hosts: list[str] = field(default_factory=list)
    reason: str | None = None
    tags: list[str] = field(default_factory=list)

    @property
    def fingerprint(self) -> str:
        """Stable id: sha256 of rule, tool, direction and pointer (not of the message), 16 hex chars."""
        key = "\x1f".join((self.rule, self.tool, self.direction, self.pointer))
        return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict (the report contract; keys are only ever added)."""
        out: dict[str, Any] = {
            "rule": self.rule, "severity": self.severity, "tool": self.tool, "direction": self.direction,
            "pointer": self.pointer, "message": self.message, "old": self.old, "new": self.new,
            "old_pointer": self.old_pointer, "new_pointer": self.new_pointer, "hosts": self.hosts,
            "fingerprint": self.fingerprint, "witness": self.witness,
        }
        if self.reason:
            out["reason"] = self.reason
        if self.tags:
            out["tags"] = self.tags
        return out


class _Comparer(ApplicatorMixin):
    """Compares one pair of tool schemas (P, V) in P/V terms; see the module docstring."""

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

    def _merge_all_of(self, node: dict[str, Any], doc: SchemaDoc) -> dict[str, Any]:
        """Merge an ``allOf`` of plain object constraints into its parent (properties, required, …).

        Members with applicators (``anyOf``, ``not``, ``if`` …), conflicting values, or an
        ``additionalProperties`` that would see other members' properties are left unmerged (see
        ``ApplicatorMixin._all_of``). Properties taken from a member reached through ``$ref`` stay
        ``$ref``s to their own location, so findings point into the member's definition.
        """
        subs = node.get("allOf")
        if not isinstance(subs, list):
            return node
        merged = {k: v for k, v in node.items() if k != "allOf"}
        parts: list[tuple[dict[str, Any], list[Any] | None]] = [(merged, None)]
        for sub in subs:
            try:
                sub, tokens = self._deref(sub, doc)
            except RefError:
                return node
            if sub is True:
                continue
            if not isinstance(sub, dict) or any(k in sub for k in ("anyOf", "oneOf", "allOf", "not", "if")):
                return node
            parts.append((sub, tokens if tokens is not None and not (tokens and str(tokens[0]).startswith("$ref:"))
                          else None))
        listing = {i for i, (part, _) in enumerate(parts) if part.get("properties") or part.get("patternProperties")}
        closers = {i for i, (part, _) in enumerate(parts) if _tolerant(part.get("additionalProperties", True)) is not True
                   or (i and _tolerant(part.get("unevaluatedProperties", True)) is not True)}
        if closers and not (len(closers) == 1 and listing <= closers):
            return node  # additionalProperties sees only its own member's properties: merging would change it
        for sub, where in parts[1:]:
            for k, val in sub.items():
                if k in _ANNOTATIONS:
                    continue
                if k == "properties" and isinstance(val, dict):
                    props = dict(merged.get("properties", {}))
                    for pk, ps in val.items():
                        if where is not None:
                            tokens = [*where, "properties", pk]
                            ps = {"$ref": "#" + "".join("/" + quote(str(t).replace("~", "~0").replace("/", "~1"), safe="~")
                                                        for t in tokens)}
                            self._origin[id(ps)] = (ps, tokens)  # keeps ps alive, so its id stays unique
                        props[pk] = {"allOf": [props[pk], ps]} if pk in props and canon(props[pk]) != canon(ps) else ps
                    merged["properties"] = props
                elif k == "required" and isinstance(val, list):
                    merged["required"] = list(dict.fromkeys(list(merged.get("required", [])) + val))
                elif k not in merged or canon(merged[k]) == canon(val):
                    merged[k] = val
                else:
                    return node
        return merged

    def _branches(self, node: dict[str, Any], doc: SchemaDoc, depth: int = 0) -> list[tuple[dict[str, Any], list[Any]]]:
        """Flatten unions into branches: ``(branch schema, pointer steps)``; nullable spellings coincide.

        Raises ``Budget`` past ``MAX_BRANCHES`` branches or 16 nested unions (a union referring to itself).
        """
        self._tick()
        if depth > 16:
            raise Budget()
        for kw in ("anyOf", "oneOf"):
            subs = node.get(kw)
            if isinstance(subs, list) and subs:
                base = {k: v for k, v in node.items() if k != kw and k not in _ANNOTATIONS}
                out: list[tuple[dict[str, Any], list[Any]]] = []
                for i, sub in enumerate(subs):
                    here: list[Any] = [kw, i]
                    try:
                        sub, tokens = self._deref(sub, doc)
                        if tokens is not None and not (tokens and str(tokens[0]).startswith("$ref:")):
                            here = [ABS] + list(tokens)
                    except RefError:
                        pass
                    if sub is False:
                        continue
                    sub = {} if sub is True else sub
                    if not isinstance(sub, dict):
                        continue
                    merged = self._merge_all_of(_distribute(base, sub) if base else sub, doc)
                    for b, steps in self._branches(merged, doc, depth + 1):
                        out.append((b, steps if steps[:1] == [ABS] else here + steps))
                        if len(out) > MAX_BRANCHES:
                            raise Budget()
                return out or [({"not": {}}, [])]
        ts = node.get("type")
        if isinstance(ts, list) and len(set(t for t in ts if isinstance(t, str))) > 1:
            return [({**node, "type": t}, []) for t in dict.fromkeys(t for t in ts if isinstance(t, str))]
        return [(node, [])]

    def _compare_union(self, bp: list[tuple[dict[str, Any], list[Any]]], bv: list[tuple[dict[str, Any], list[Any]]],
                       v_node: dict[str, Any], depth: int) -> list[Issue]:
        issues: list[Issue] = []
        perfect: set[int] = set()
        matched_v: set[int] = set()
        results: list[tuple[int, int | None, list[Issue]]] = []
        value_issues: list[Issue] = []
        value_branches: set[int] = set()
        for pi, (pb, p_steps) in enumerate(bp):
            pvals = self._values(pb)
            if pvals is None:
                continue
            # a closed value set is matched value by value against the whole union (enum split in anyOf)
            value_branches.add(pi)
            kw = "const" if "const" in pb else "enum" if "enum" in pb else "type"
            open_hits = False
            for x in pvals:
                hits = [vi for vi, (vb, _) in enumerate(bv) if self._valid(self.v_doc, vb, x)]
                matched_v.update(hits)
                open_hits = open_hits or any(self._values(bv[vi][0]) is None for vi in hits)
                if not hits and self._valid(self.v_doc, v_node, x) is False:
                    value_issues.append(Issue("type-extra-p" if kw == "type" else "enum-extra-p",
                                               [t for t in p_steps if t is not ABS] + [kw], [],
                                               pb.get(kw), None, f"value {short(x)} of the {{P}} schema is accepted "
                                               "by no branch of the {V} schema", x, p_abs=p_steps[:1] == [ABS]))
            if open_hits and kw != "type":
                # as for a single branch: a closed value set where the V side accepts any value of the type
                value_issues.append(Issue("enum-only-p", [t for t in p_steps if t is not ABS] + [kw], [], pb.get(kw),
                                          None, f"the {{P}} schema restricts values to {short(pvals)}, the {{V}} "
                                          "schema does not", p_abs=p_steps[:1] == [ABS]))
        issues.extend(value_issues)
        for pi, (pb, _) in enumerate(bp):
            if pi in value_branches:
                continue
            best: tuple[int, int | None, list[Issue]] | None = None
            # a branch of the same type first: P's integer is matched with V's integer, not with its number
            same_type = type_set(pb)
            order = sorted(range(len(bv)), key=lambda i: type_set(bv[i][0]) != same_type)
            for vi in order:
                vb = bv[vi][0]
                if not self._types_overlap(pb, vb):
                    continue
                trial = self.compare(pb, vb, depth + 1)
                score = sum(100 if self._hard(i) else 1 if RULE_SEVERITY_FOR_KIND.get(i.kind) == "warning" else 0
                            for i in trial)
                if best is None or score < best[0]:
                    best = (score, vi, trial)
                if score == 0:
                    break
            if best is not None and best[0] == 0:
                perfect.add(best[1])  # type: ignore[arg-type]
            results.append((pi, best[1] if best else None, best[2] if best else []))
            if best is not None and best[1] is not None:
                matched_v.add(best[1])
        for pi, vi, trial in results:
            if pi in value_branches:
                continue
            pb, p_steps = bp[pi]
            if vi is None or (any(self._hard(i) for i in trial) and vi in perfect and len(bp) > len(bv)):
                w = self._sample_p(pb)
                pure = set(pb) <= {"type"} | _ANNOTATIONS
                kind = "type-extra-p" if pure or vi is None and len(bv) == 1 else "branch-extra-p"
                what = short(pb.get("type")) if pure else "a new alternative"
                issues.append(Issue(kind, [t for t in p_steps if t is not ABS], [], pb.get("type") if pure else pb, None,
                                     f"{what} in the {{P}} schema is accepted by no branch of the {{V}} schema", w,
                                     p_abs=p_steps[:1] == [ABS]))
                continue
            v_steps = bv[vi][1]
            trial = [j for j in (self._repick(i, pb, v_node) for i in trial) if j is not None]
            if any("null" in (self._types_of(b) or ()) for b, _ in bp):
                # "the V side also takes null on Ajv": so does the P union, in another branch
                trial = [i for i in trial if not (i.kind == "type-extra-v" and i.v_path == ["nullable"])]
            issues.extend(self._prefix(trial, p_steps, v_steps))
        for vi, (vb, v_steps) in enumerate(bv):
            if vi not in matched_v and vb != {"not": {}}:
                pure = set(vb) <= {"type"} | _ANNOTATIONS
                kind = "type-extra-v" if pure else "branch-extra-v"
                issues.append(Issue(kind, [], [t for t in v_steps if t is not ABS], None, vb.get("type") if pure else vb,
                                     f"{short(vb.get('type')) if pure else 'an alternative'} of the {{V}} schema has no counterpart in the {{P}} schema",
                                     v_abs=v_steps[:1] == [ABS]))
        if isinstance(v_node.get("oneOf"), list) and len(bv) > 1:
            issues.extend(self._oneof_overlap(bp, v_node))
        return issues

    def _repick(self, issue: Issue, pb: dict[str, Any], v_node: dict[str, Any]) -> Issue | None:
        """A leaf witness chosen against one V branch may be accepted by another: re-pick it against the union.

        None when the issue disappears: P's ``nullable: true`` where another branch of V accepts null."""
        if issue.inst or issue.witness is NO_WITNESS or self._valid(self.v_doc, v_node, issue.witness) is False:
            return issue
        if issue.p_path == ["nullable"] and not issue.p_abs:
            return None
        if issue.kind not in ("type-only-v", "type-extra-p", "enum-only-v"):
            return issue
        cands = [self._sample_typed(pb, t) for t in ("string", "integer", "number", "boolean", "object", "array",
                                                      "null")] + [0.5, "x", True, None, {}, []]
        return replace(issue, witness=self._pick(pb, v_node, [c for c in cands if c is not NO_WITNESS]))

    def _oneof_overlap(self, bp: list[tuple[dict[str, Any], list[Any]]], v_node: dict[str, Any]) -> list[Issue]:
        """Values P declares that match two or more branches of V's ``oneOf`` (which oneOf rejects).

        Candidates per P branch: its samples, and samples of each V branch and strings at each V branch's
        length bounds that the P branch declares too (``{}`` beside ``{"type": "string"}`` overlaps on every
        string; ``maxLength: 4`` beside ``minLength: 3`` on "aaa")."""
        out: list[Issue] = []
        branches = v_node["oneOf"]
        extra: list[Any] = []
        for b in branches:
            try:
                extra.append(sample(b, self.v_doc))
            except (NoSample, RecursionError):
                pass
            if isinstance(b, dict):
                for kw in ("minLength", "maxLength"):
                    n = b.get(kw)
                    if isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= 64:
                        extra += ["a" * n, "a" * (n + 1)] + (["a" * (n - 1)] if n else [])
        for pb, p_steps in bp:
            cands = [self._sample_p(pb), *self._samples_p(pb)[:4], *extra]
            for w in dict.fromkeys(canon(c) for c in cands if c is not NO_WITNESS):
                value = json.loads(w)
                if not self._valid(self.p_doc, pb, value):
                    continue
                hits = [i for i, b in enumerate(branches) if self._valid(self.v_doc, b, value)]
                if len(hits) > 1:
                    out.append(Issue("oneof-overlap", [t for t in p_steps if t is not ABS], ["oneOf"], None, None,
                                     f"a value of the {{P}} schema matches oneOf branches {hits} of the {{V}} schema",
                                     value))
                    break
        return out

    @staticmethod
    def _types_overlap(a: dict[str, Any], b: dict[str, Any]) -> bool:
        ta, tb = type_set(a), type_set(b)
        if ta is None or tb is None:
            return True
        ta2 = ta | ({"integer"} if "number" in ta else set())
        tb2 = tb | ({"integer"} if "number" in tb else set())
        return bool(ta2 & tb2)

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
    def _nullable(p: dict[str, Any], v: dict[str, Any]) -> list[Issue]:
        """OpenAPI ``nullable: true`` beside ``type``, which Ajv (both TS SDKs) honours and jsonschema ignores.

        Breaks TS hosts when only P has it: before ``{"type": "string"}``, after ``{"type": "string",
        "nullable": true}`` as an outputSchema: a server built from it may return ``null``, and a
        cached TS host rejects it (``must be string``). Source: Ajv ``lib/compile/validate/dataType.ts``
        (``getSchemaTypes`` adds "null"). The witness is ``null``; ``_confirm`` finds which profiles break.
        """
        def ajv_only(node: dict[str, Any]) -> bool:
            ts = type_set(node)
            return node.get("nullable") is True and ts is not None and "null" not in ts

        pn, vn = ajv_only(p), ajv_only(v)
        if pn == vn:
            return []
        if pn:
            v_types = type_set(v)
            if v_types is None or "null" in v_types:
                return []
            return [Issue("type-extra-p", ["nullable"], ["type"], True, v.get("type"),
                          "nullable: true in the {P} schema: hosts on Ajv (the TS SDKs) take null there, the {V} "
                          "schema does not", None)]
        p_types = type_set(p)
        if p_types is not None and "null" in p_types:
            return []  # P's type lists null itself: the type comparison reports it for jsonschema hosts
        return [Issue("type-extra-v", [], ["nullable"], None, True,
                      "nullable: true in the {V} schema only: hosts on Ajv (the TS SDKs) also take null there")]

    @staticmethod
    def _types_of(node: dict[str, Any]) -> set[str] | None:
        ts = type_set(node)
        if ts is None:
            vals = node.get("enum") if isinstance(node.get("enum"), list) else (
                [node["const"]] if "const" in node else None)
            if vals is not None:
                return {json_type(x) for x in vals}
        return ts

    @staticmethod
    def _allowed(ts: set[str], t: str) -> bool:
        return t in ts or (t == "integer" and "number" in ts)

    def _sample_typed(self, p: dict[str, Any], t: str) -> Any:
        node = {k: val for k, val in p.items() if k not in ("enum", "const")}
        node["type"] = t
        got = self._sample_p(node)
        if got is NO_WITNESS:
            return {"string": "x", "integer": 0, "number": 0.5, "boolean": True, "null": None,
                    "object": {}, "array": []}[t]
        return got

    def _value_issues(self, p: dict[str, Any], v: dict[str, Any]) -> list[Issue] | None:
        """enum/const comparison; returns None when neither side constrains values (keep comparing)."""
        pv = self._values(p)
        vv = self._values(v)
        if pv is None and vv is None:
            return None
        out: list[Issue] = []
        # a null/boolean-only type is a closed value set too: its findings point at "type", and the type
        # comparison (already made) covers "restricts values to [true, false]"
        kw_p = "const" if "const" in p else "enum" if "enum" in p else "type"
        kw_v = "const" if "const" in v else "enum" if "enum" in v else "type"
        if len(pv or []) + len(vv or []) > MAX_ENUM:
            return [Issue("undecidable", [], [], None, None,
                           f"enum with more than {MAX_ENUM} values is not compared value by value")]
        v_keys = {value_key(y) for y in vv} if vv is not None else set()
        if pv is not None:
            # few values, and keywords host profiles read differently: also ask the other profiles
            per_host = len(pv) <= 64 and (self._host_sensitive(v, self.v_doc) or self._host_sensitive(p, self.p_doc))
            for x in pv:
                if (vv is None or value_key(x) in v_keys) and self._valid(self.v_doc, v, x) is not False and not (
                        per_host and self._pick_any_profile(p, v, [x]) is not NO_WITNESS):
                    continue
                if self._valid(self.p_doc, p, x) is False:
                    continue  # P lists it but its other keywords reject it: never produced
                if vv is None or value_key(x) in v_keys:
                    # V lists the value (or lists none) but its other keywords reject it: a tightened constraint
                    out.append(Issue("looser-p", [kw_p], [], p.get(kw_p), None,
                                     f"value {short(x)} of the {{P}} schema is rejected by the {{V}} schema", x))
                    continue
                kind = "const-changed" if kw_p == "const" and kw_v == "const" else "enum-extra-p"
                detail = (f"the {{V}} schema accepts no value here (its {kw_v} contradicts its type), the {{P}} schema "
                          f"allows {short(x)}" if not vv
                          else f"const {short(x)} in the {{P}} schema, {short(vv[0])} in the {{V}} schema" if kind == "const-changed"
                          else f"value {short(x)} of the {{P}} schema is not in the {{V}} schema's {kw_v} {short(vv)}")
                out.append(Issue(kind, [kw_p], [kw_v], p.get(kw_p), v.get(kw_v), detail, x))
            if vv is not None:
                p_keys = {value_key(x) for x in pv}
                extra_v = [y for y in vv if value_key(y) not in p_keys]
                if extra_v and not any(i.kind == "const-changed" for i in out):
                    out.append(Issue("enum-extra-v", [kw_p], [kw_v], p.get(kw_p), v.get(kw_v),
                                      f"values {short(extra_v)} are listed only by the {{V}} schema"))
            elif kw_p != "type":
                out.append(Issue("enum-only-p", [kw_p], [], p.get(kw_p), None,
                                  f"the {{P}} schema restricts values to {short(pv)}, the {{V}} schema does not"))
            return out
        assert vv is not None
        if kw_v == "type":
            return out
        cands: list[Any] = [self._sample_p(p)]
        cands += string_candidates(extra=("other-value", "zzz-not-listed"))
        cands += number_candidates(p, integer=False) + [True, False, None, {}, []]
        cands += [max([x for x in vv if isinstance(x, (int, float)) and not isinstance(x, bool)], default=0) + 1]
        w = self._pick(p, v, [c for c in cands if c is not NO_WITNESS])
        out.append(Issue("enum-only-v", [], [kw_v], None, v.get(kw_v),
                          f"the {{P}} schema allows any value, the {{V}} schema only {short(vv)}", w))
        return out

    @staticmethod
    def _values(node: dict[str, Any]) -> list[Any] | None:
        """The closed value set of ``node`` (const, enum, or a null/boolean-only type), filtered by its
        own ``type``; None when values are not enumerable."""
        ts = type_set(node)
        if "const" in node:
            vals = [node["const"]]
        elif isinstance(node.get("enum"), list):
            vals = list(node["enum"])
        elif ts is not None and ts and ts <= {"null", "boolean"}:
            vals = ([None] if "null" in ts else []) + ([True, False] if "boolean" in ts else [])
        else:
            return None
        if ts is not None:
            vals = [x for x in vals if json_type(x) in ts or (json_type(x) == "integer" and "number" in ts)]
        return vals

    def _bounds(self, p: dict[str, Any], v: dict[str, Any], kw: str, upper: bool, cands: list[Any],
                p_val: Any, v_val: Any) -> list[Issue]:
        """Compare one bound keyword; P looser than V is breaking (with a witness from ``cands``)."""
        if canon(p_val) == canon(v_val):
            return []
        if not all(x is None or _num(x) for x in (p_val, v_val)):
            return [Issue("invalid", [kw] if kw in p else [], [kw] if kw in v else [], p_val, v_val,
                           f"{kw} is not a number")]
        if v_val is None:
            p_looser = False
        elif p_val is None:
            p_looser = True
        else:
            p_looser = p_val > v_val if upper else p_val < v_val
        kind = "looser-p" if p_looser else "looser-v"
        w = self._pick(p, v, cands) if p_looser else NO_WITNESS
        what = "no" if p_val is None else short(p_val)
        return [Issue(kind, [kw] if kw in p else [], [kw] if kw in v else [], p_val, v_val,
                       f"{kw} {what} in the {{P}} schema, {'none' if v_val is None else short(v_val)} in the {{V}} schema", w)]

    def _numbers(self, p: dict[str, Any], v: dict[str, Any], integer: bool) -> list[Issue]:
        out: list[Issue] = []
        cands = number_candidates(p, integer=integer) + number_candidates(v, integer=integer)
        for which, upper in (("min", False), ("max", True)):
            pb, px = bound(p, which)
            vb, vx = bound(v, which)
            if (pb, px) == (vb, vx):
                continue
            kw = ("exclusiveM" if (px or vx) else "m") + ("aximum" if upper else "inimum")
            if pb is not None and vb is not None and pb == vb:
                p_looser = vx and not px
                kind = "looser-p" if p_looser else "looser-v"
                w = self._pick(p, v, cands) if p_looser else NO_WITNESS
                out.append(Issue(kind, [kw], [kw], pb, vb, f"bound {pb} is {'exclusive' if px else 'inclusive'} in the {{P}} schema, {'exclusive' if vx else 'inclusive'} in the {{V}} schema", w))
                continue
            out += self._bounds(p, v, kw, upper, cands, pb, vb)
        pm, vm = p.get("multipleOf"), v.get("multipleOf")
        if canon(pm) != canon(vm):
            p_looser = vm is not None and (pm is None or not _is_multiple(pm, vm))
            extra = [x for x in (pm, vm / 2 if _num(vm) else None, vm * 1.5 if _num(vm) else None) if _num(x)]
            w = self._pick(p, v, cands + extra) if p_looser else NO_WITNESS
            out.append(Issue("looser-p" if p_looser else "looser-v", ["multipleOf"] if pm is not None else [],
                              ["multipleOf"] if vm is not None else [], pm, vm,
                              f"multipleOf {pm} in the {{P}} schema, {vm} in the {{V}} schema", w))
        return out

    def _strings(self, p: dict[str, Any], v: dict[str, Any]) -> list[Issue]:
        out: list[Issue] = []
        lo = p.get("minLength") if isinstance(p.get("minLength"), int) else 0
        hi = p.get("maxLength") if isinstance(p.get("maxLength"), int) else None
        base = self._sample_p({**p, "type": "string"})
        base = base if isinstance(base, str) else "a"
        lengths = [lo, (v.get("maxLength") or 0) + 1 if isinstance(v.get("maxLength"), int) else None,
                   max((v.get("minLength") or 1) - 1, 0) if isinstance(v.get("minLength"), int) else None, hi]
        cands = [(base * (n // max(len(base), 1) + 1))[:n] if base else "a" * n for n in lengths
                 if n is not None and 0 <= n <= MAX_SAMPLE_SIZE]
        cands += string_candidates(lo, hi, extra=(base,))
        for kw, upper in (("minLength", False), ("maxLength", True)):
            out += self._bounds(p, v, kw, upper, cands, p.get(kw), v.get(kw))
        pp, vp = p.get("pattern"), v.get("pattern")
        if pp != vp and vp is not None:
            w = self._pick(p, v, cands)
            if w is NO_WITNESS:
                w = self._pick_any_profile(p, v, _regex_dialect_candidates(cands + regex_examples(str(vp))))
            if w is not NO_WITNESS:
                out.append(Issue("looser-p", ["pattern"] if pp else [], ["pattern"], pp, vp,
                                  f"the {{P}} schema's pattern {short(pp)} admits strings the {{V}} schema's {short(vp)} rejects", w))
            else:
                out.append(Issue("pattern", ["pattern"] if pp else [], ["pattern"], pp, vp,
                                  f"pattern {short(vp)} in the {{V}} schema, {short(pp)} in the {{P}} schema: inclusion not proven"))
        return out

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

    def _format(self, p: dict[str, Any], v: dict[str, Any]) -> list[Issue]:
        """``format`` dropped or changed: breaks format-checking hosts (witness checked per TS profile)."""
        out: list[Issue] = []
        base = self._sample_p(p)
        pf, vf = p.get("format"), v.get("format")
        if pf != vf and vf is not None:
            w = NO_WITNESS
            # a value of P's own format (date-time where V says date) comes first: it is what P's side sends
            own = FORMAT_SAMPLES.get(pf) if isinstance(pf, str) else None
            for cand in [*([own] if own else []), "not-a-" + str(vf).replace("-", ""), "not a valid value", "%%%", "x",
                         base, 3_000_000_000, 2**63, 0.5, -1]:
                if cand is not NO_WITNESS and self._valid(self.p_doc, p, cand) and any(
                        self._valid(self.v_doc, v, cand, prof) is False for prof in ("ts-sdk-v2", "ts-sdk-v1")):
                    w = cand
                    break
            out.append(Issue("format", ["format"] if pf else [], ["format"], pf, vf,
                              f"format {short(vf)} in the {{V}} schema, {short(pf) if pf else 'none'} in the {{P}} schema: "
                              "format-checking hosts reject values outside it", w))
        return out

    @staticmethod
    def _tuple(node: dict[str, Any], doc: SchemaDoc) -> tuple[list[Any], str, Any, str | None]:
        """``(prefix schemas, their keyword, schema of the other items or None, its keyword)`` of an array node.

        Spellings: 2020-12 ``prefixItems`` + ``items``; draft-04..2019-09 ``items: [..]`` +
        ``additionalItems``; and ``unevaluatedItems`` read as ``items`` when nothing else in the node
        evaluates items (no ``items``/``contains``/applicators), in 2019-09/2020-12 documents.
        """
        items = node.get("items")
        if isinstance(items, list):
            return items, "items", node.get("additionalItems"), "additionalItems" if "additionalItems" in node else None
        pre = node.get("prefixItems") if isinstance(node.get("prefixItems"), list) and doc.dialect == "2020-12" else []
        if "items" in node:
            return pre, "prefixItems", items, "items"
        if "unevaluatedItems" in node and doc.dialect in ("2020-12", "2019-09") and not any(
                k in node for k in ("contains", "allOf", "anyOf", "oneOf", "not", "if", "$ref", "$dynamicRef")) and (
                not isinstance(node.get("prefixItems"), list) or doc.dialect == "2020-12"):
            return pre, "prefixItems", node["unevaluatedItems"], "unevaluatedItems"
        return pre, "prefixItems", None, None

    def _arrays(self, p: dict[str, Any], v: dict[str, Any], depth: int) -> list[Issue]:
        out: list[Issue] = []
        p_pre, p_pk, p_items, p_ik = self._tuple(p, self.p_doc)
        v_pre, v_pk, v_items, v_ik = self._tuple(v, self.v_doc)
        p_base = self._sample_p({k: val for k, val in p.items() if k not in ("minItems",)} | {"type": "array"})
        p_base = p_base if isinstance(p_base, list) else []
        # the longest array each side allows: maxItems, or a closed tail after the prefix (items: false)
        p_len = min(x for x in (_int(p.get("maxItems"), 10**9), len(p_pre) if p_items is False else 10**9))
        v_len = min(x for x in (_int(v.get("maxItems"), 10**9), len(v_pre) if v_items is False else 10**9))
        for i in range(min(max(len(p_pre), len(v_pre)), p_len)):
            ps = p_pre[i] if i < len(p_pre) else (p_items if p_items is not None else True)
            vs = v_pre[i] if i < len(v_pre) else (v_items if v_items is not None else True)
            out += self._prefix(self.compare(ps, vs, depth + 1),
                                [p_pk, i] if i < len(p_pre) else [p_ik] if p_ik else [],
                                [v_pk, i] if i < len(v_pre) else [v_ik] if v_ik else [], i,
                                self._array_wrap(p, v, i))
        if v_items is not None and v_items is not True or p_items is not None:
            ps = p_items if p_items is not None else True
            vs = v_items if v_items is not None else True
            idx = max(len(p_pre), len(v_pre))
            if not (ps is True and vs is True) and idx < p_len:
                out += self._prefix(self.compare(ps, vs, depth + 1), [p_ik] if p_ik else [],
                                    [v_ik] if v_ik else [], idx, self._array_wrap(p, v, idx))
        item = p_base[0] if p_base else self._sample_p(p_items if p_items is not None else True)
        item = None if item is NO_WITNESS else item
        cands: list[Any] = []
        p_min, v_max, v_min = (_int(p.get("minItems"), 0), _int(v.get("maxItems"), -1), _int(v.get("minItems"), 1))
        for n in {0, 1, 2, p_min, v_max + 1, max(v_min - 1, 0)}:
            if 0 <= n <= 100:
                cands.append((p_base + [item] * n)[: max(n, len(p_pre))] if n >= len(p_base) else p_base[:n])
        out += self._bounds(p, v, "minItems", False, cands, p.get("minItems"), v.get("minItems"))
        if p_len != v_len and (p_len < 10**9 or v_len < 10**9) and ("maxItems" in p or "maxItems" in v):
            # compared as the effective longest length, so items: false after the prefix ≡ maxItems: len(prefix)
            got = self._bounds(p, v, "maxItems", True, cands, None if p_len == 10**9 else p_len,
                               None if v_len == 10**9 else v_len)
            for issue in got:
                issue.p_path = ["maxItems"] if "maxItems" in p else [p_ik] if p_ik else []
                issue.v_path = ["maxItems"] if "maxItems" in v else [v_ik] if v_ik else []
                issue.p_val, issue.v_val = p.get("maxItems"), v.get("maxItems")
            out += got
        if bool(p.get("uniqueItems")) != bool(v.get("uniqueItems")):
            looser = bool(v.get("uniqueItems"))
            w = self._pick(p, v, [[item, item]]) if looser else NO_WITNESS
            out.append(Issue("looser-p" if looser else "looser-v", ["uniqueItems"] if "uniqueItems" in p else [],
                              ["uniqueItems"] if "uniqueItems" in v else [], p.get("uniqueItems"),
                              v.get("uniqueItems"), "uniqueItems changed", w))
        return out

    def _common(self, p: Any, v: Any, depth: int = 0) -> Any:
        """A small value valid under P's node and, when possible, under V's node too.

        Witnesses are built from it so the rejecting side fails for the reason the finding names
        and nothing else. Falls back to a P-only sample, or ``NO_WITNESS``.
        """
        first = self._sample_p(p)
        if first is not NO_WITNESS and self._valid(self.v_doc, v, first):
            return first
        try:
            other = sample(v, self.v_doc)
            if self._valid(self.p_doc, p, other) and self._valid(self.v_doc, v, other):
                return other
        except (NoSample, RecursionError):
            pass
        if depth > 16:
            return first
        try:
            p2, _ = self._deref(p, self.p_doc)
            v2, _ = self._deref(v, self.v_doc)
        except RefError:
            return first
        if not isinstance(p2, dict) or not isinstance(v2, dict):
            return first
        values = self._values(p2)
        if values is not None:
            for x in values:
                if self._valid(self.p_doc, p2, x) and self._valid(self.v_doc, v2, x):
                    return x
            return first
        types = self._types_of(p2)
        if types is None or "object" in types:
            pprops = p2.get("properties") if isinstance(p2.get("properties"), dict) else {}
            vprops = v2.get("properties") if isinstance(v2.get("properties"), dict) else {}
            keys = [k for k in self._required(p2) + self._required(v2) if k in pprops or k in vprops]
            obj: dict[str, Any] = {}
            for k in dict.fromkeys(keys):
                got = self._common(pprops.get(k, True), vprops.get(k, True), depth + 1)
                obj[k] = None if got is NO_WITNESS else got
            if self._valid(self.p_doc, p2, obj):
                return obj
        if types is not None and "array" in types:
            item = self._common(p2.get("items", True), v2.get("items", True), depth + 1)
            for arr in ([], [None if item is NO_WITNESS else item]):
                if self._valid(self.p_doc, p2, arr) and self._valid(self.v_doc, v2, arr):
                    return arr
        return first

    @staticmethod
    def _required(node: dict[str, Any]) -> list[str]:
        req = node.get("required")
        return [k for k in req if isinstance(k, str)] if isinstance(req, list) else []

    def _array_wrap(self, p: dict[str, Any], v: dict[str, Any], index: int) -> Any:
        def wrap(child: Any) -> Any:
            base = self._common({**p, "type": "array"}, v)
            arr = list(base) if isinstance(base, list) else []
            p_pre, _, p_items, _ = self._tuple(p, self.p_doc)
            v_pre, _, v_items, _ = self._tuple(v, self.v_doc)
            p_items = True if p_items is None else p_items
            v_items = True if v_items is None else v_items
            filler = self._common(p_items, v_items)
            filler = None if filler is NO_WITNESS else filler
            while len(arr) <= index:
                j = len(arr)
                if j < len(p_pre):
                    got = self._common(p_pre[j], v_pre[j] if j < len(v_pre) else v_items)
                    arr.append(None if got is NO_WITNESS else got)
                else:
                    arr.append(filler)
            replaced = arr[index]
            arr[index] = child
            if "contains" not in p or index < len(p_pre) or self._valid(self.p_doc, p, arr) is not False:
                return arr
            # P's contains may have been met by the item the child replaced: keep one such item after it
            kept = self._common({"allOf": [p_items, p["contains"]]}, v_items)
            for extra in (replaced, kept):
                if extra is not NO_WITNESS and self._valid(self.p_doc, p, arr + [extra]):
                    return arr + [extra]
            return arr
        return wrap

    def _obj_wrap(self, p: dict[str, Any], v: dict[str, Any], key: str, drop: str | None = None) -> Any:
        def wrap(child: Any) -> Any:
            base = self._common({**p, "type": "object"}, v)
            obj = dict(base) if isinstance(base, dict) else {}
            obj[key] = child
            if drop is not None:
                obj.pop(drop, None)
            return self._complete(p, obj, {key} | ({drop} if drop else set()))
        return wrap

    def _complete(self, p: dict[str, Any], obj: dict[str, Any], keep: set[str]) -> dict[str, Any]:
        """Add the properties P's conditionals require of ``obj`` (``dependentRequired``, ``dependentSchemas``,
        ``if``/``then``/``else`` with ``required``), so a witness is a value P declares; keys in ``keep`` are
        never added or changed. Returns ``obj`` (completed in place) when P already accepts it or has none."""
        conds = conditionals(p)
        if not conds or self._valid(self.p_doc, p, obj) is not False:
            return obj
        props = p.get("properties") if isinstance(p.get("properties"), dict) else {}
        for _ in range(4):
            added = False
            for c in conds:
                branch = c.then if self._valid(self.p_doc, c.if_, obj) else c.else_
                required = branch.get("required") if isinstance(branch, dict) else None
                for k in required if isinstance(required, list) else []:
                    if isinstance(k, str) and k not in obj and k not in keep:
                        got = self._sample_p(props.get(k, True))
                        obj[k] = None if got is NO_WITNESS else got
                        added = True
            if not added:
                break
        return obj

    @staticmethod
    def _closed(node: dict[str, Any]) -> str | None:
        if node.get("additionalProperties") is False:
            return "additionalProperties"
        if node.get("unevaluatedProperties") is False and "additionalProperties" not in node:
            return "unevaluatedProperties"
        return None

    def _objects(self, p: dict[str, Any], v: dict[str, Any], depth: int) -> list[Issue]:
        out: list[Issue] = []
        pprops = p.get("properties") if isinstance(p.get("properties"), dict) else {}
        vprops = v.get("properties") if isinstance(v.get("properties"), dict) else {}
        ppat = p.get("patternProperties") if isinstance(p.get("patternProperties"), dict) else {}
        vpat = v.get("patternProperties") if isinstance(v.get("patternProperties"), dict) else {}
        p_closed, v_closed = self._closed(p), self._closed(v)
        p_addl = _tolerant(p.get("additionalProperties", p.get("unevaluatedProperties", True)))
        v_addl = _tolerant(v.get("additionalProperties", v.get("unevaluatedProperties", True)))
        preq = [k for k in p.get("required", []) if isinstance(k, str)] if isinstance(p.get("required"), list) else []
        vreq = [k for k in v.get("required", []) if isinstance(k, str)] if isinstance(v.get("required"), list) else []
        for key, ps in pprops.items():
            out += self._declared_key(p, v, ["properties", key], ps, key, depth)
        for pat, ps in ppat.items():
            keys = self._pattern_keys(pat, pprops, v)
            for key in keys:
                got = self._declared_key(p, v, ["patternProperties", pat], ps, key, depth, _matches(pat, key))
                out += got
                if any(i.kind in UNSAFE_KINDS for i in got):
                    break  # one name proves it
            if keys and not any(_regex_included(pat, vp) for vp in vpat) and (
                    v_closed or vpat or isinstance(v_addl, dict)) and not any(
                    i.p_path[:2] == ["patternProperties", pat] and i.kind in UNSAFE_KINDS for i in out):
                # every name tried is covered, but that does not prove the regex languages are included
                out.append(Issue("pattern", ["patternProperties", pat], [], pat, sorted(vpat) or None,
                                 f"property names matching {pat!r} in the {{P}} schema: no name the {{V}} schema "
                                 f"rejects was found ({', '.join(map(repr, keys))} are covered), and the regex "
                                 "inclusion is not proven"))
            if not keys and pat in vpat:
                out += self._prefix(self.compare(ps, vpat[pat], depth + 1), ["patternProperties", pat],
                                    ["patternProperties", pat])
            elif not keys and (v_closed or vpat or isinstance(v_addl, dict)):
                out.append(Issue("undecidable", ["patternProperties", pat], [], ps, None,
                                 f"no property name matching patternProperties {pat!r} of the {{P}} schema could be "
                                 "built, so it is not compared with the {V} schema"))
        if (isinstance(p_addl, dict) or p_addl is True) and not p_closed:
            # V's patternProperties constrain keys P leaves to its additionalProperties (open: any value)
            for pat in vpat:
                for key in pattern_keys(pat, taken=pprops)[:1]:
                    if not any(_search(pp, key) for pp in ppat):
                        out += self._declared_key(p, v, ["additionalProperties"] if "additionalProperties" in p
                                                  else [], p_addl if p_addl is not True else {}, key, depth)
        for key, vs in vprops.items():
            if key in pprops:
                continue
            if isinstance(p_addl, dict):
                out += self._prefix(self.compare(p_addl, vs, depth + 1), ["additionalProperties"],
                                    ["properties", key], key, self._obj_wrap(p, v, key))
            elif not (key in vreq and key not in preq):
                out.append(Issue("prop-extra-v", [], ["properties", key], None, vs,
                                  f"property {key!r} is listed only by the {{V}} schema", inst=[key]))
        for key in [k for k in vreq if k not in preq]:
            base = self._common({**p, "type": "object"}, v)
            w = NO_WITNESS
            if isinstance(base, dict):
                base = dict(base)
                base.pop(key, None)
                w = base
            out.append(Issue("required-extra-v", ["properties", key] if key in pprops else _kw_steps(p, "required"),
                              ["properties", key] if key in vprops else ["required"], False, True,
                              f"property {key!r} is required by the {{V}} schema, not by the {{P}} schema", w, [key]))
        for key in [k for k in preq if k not in vreq]:
            out.append(Issue("required-extra-p", ["properties", key] if key in pprops else ["required"],
                              ["properties", key] if key in vprops else _kw_steps(v, "required"), True, False,
                              f"property {key!r} is required by the {{P}} schema, not by the {{V}} schema", inst=[key]))
        if v_closed and not p_closed:
            if isinstance(p_addl, dict) and p_addl != {}:
                extra = next(k for k in ("extra_key", "extra_key_2", "zz_extra") if k not in vprops)
                child = self._sample_p(p_addl)
                w = self._obj_wrap(p, v, extra)(child) if child is not NO_WITNESS else NO_WITNESS
                out.append(Issue("prop-extra-p-closed", ["additionalProperties"], [v_closed], p_addl, False,
                                  "the {P} schema declares additional properties, the {V} object is closed", w, [extra]))
            else:
                out.append(Issue("opened-p", ["additionalProperties"] if "additionalProperties" in p else [],
                                  [v_closed], p.get("additionalProperties"), False,
                                  f"the object is open in the {{P}} schema, closed in the {{V}} schema ({v_closed}: false)"))
        elif p_closed and not v_closed:
            out.append(Issue("closed-p", [p_closed], ["additionalProperties"] if "additionalProperties" in v else [],
                              False, v.get("additionalProperties"), f"the object is closed in the {{P}} schema ({p_closed}: false), open in the {{V}} schema"))
        elif p_addl is True and isinstance(v_addl, dict) and not p_closed and not self._inside(True, v_addl, depth):
            out.append(Issue("opened-p", ["additionalProperties"] if "additionalProperties" in p else [],
                             ["additionalProperties"], p.get("additionalProperties"), v_addl,
                             "values of undeclared keys are constrained by the {V} schema's additionalProperties, "
                             "not by the {P} schema's"))
        elif isinstance(p_addl, dict) and isinstance(v_addl, dict) and not p_closed:
            extra = next(k for k in ("extra_key", "extra_key_2", "zz_extra") if k not in vprops and k not in pprops)
            out += self._prefix(self.compare(p_addl, v_addl, depth + 1), ["additionalProperties"],
                                ["additionalProperties"], extra, self._obj_wrap(p, v, extra))
        if any(canon(p.get(kw)) != canon(v.get(kw)) for kw in ("minProperties", "maxProperties")):
            sized = self._sized_objects(p, v, pprops, p_addl)
            for kw, upper in (("minProperties", False), ("maxProperties", True)):
                out += self._bounds(p, v, kw, upper, sized, p.get(kw), v.get(kw))
        out += self._property_names(p, v, pprops)
        return [self._located(i, pprops, vprops) for i in out]

    def _sized_objects(self, p: dict[str, Any], v: dict[str, Any], pprops: dict[str, Any], p_addl: Any) -> list[Any]:
        """Objects P declares with as many properties as V's/P's ``minProperties``/``maxProperties`` make
        interesting (each bound, one less, one more): P's required properties first, then its other
        declared ones, then keys of its ``additionalProperties`` schema (declared values only)."""
        base = self._common({**p, "type": "object"}, v)
        base = dict(base) if isinstance(base, dict) else {}
        pool = [(k, self._sample_p(s)) for k, s in pprops.items() if k not in base]
        if isinstance(p_addl, dict):
            child = self._sample_p(p_addl)
            pool += [(f"extra_key_{i}", child) for i in range(8) if f"extra_key_{i}" not in pprops]
        pool = [(k, x) for k, x in pool if x is not NO_WITNESS]
        sizes = {0, 1}
        for node in (p, v):
            for kw in ("minProperties", "maxProperties"):
                n = _int(node.get(kw), -1)
                sizes |= {n - 1, n, n + 1}
        out = []
        for n in sorted(x for x in sizes if 0 <= x <= len(base) + len(pool) and x <= 64):
            if n <= len(base):
                out.append(dict(list(base.items())[:n]))
            else:
                out.append({**base, **dict(pool[: n - len(base)])})
        return out

    def _located(self, issue: Issue, pprops: dict[str, Any], vprops: dict[str, Any]) -> Issue:
        """Point ``/properties/KEY`` of a property merged from an ``allOf`` member behind ``$ref`` (see
        ``_merge_all_of``) at its real location, e.g. ``/$defs/Base/properties/KEY``."""
        for side, props in (("p", pprops), ("v", vprops)):
            path = getattr(issue, side + "_path")
            if getattr(issue, side + "_abs") or len(path) < 2 or path[0] != "properties":
                continue
            where = self._origin.get(id(props.get(path[1])))
            if where is not None:
                issue = replace(issue, **{side + "_path": [*where[1], *path[2:]], side + "_abs": True})
        return issue

    def _pattern_keys(self, pat: str, taken: dict[str, Any], v: dict[str, Any]) -> list[str]:
        """Property names matching ``pat`` (not in ``taken``), those V does not list for every host first: up to 3."""
        vprops = v.get("properties") if isinstance(v.get("properties"), dict) else {}
        vpat = v.get("patternProperties") if isinstance(v.get("patternProperties"), dict) else {}
        built = pattern_keys(pat, taken, count=8)
        cands = built + _regex_dialect_candidates(built) + [
            x for x in string_candidates() if x not in taken and all(_matches(pat, x))]
        keys = [k for k in dict.fromkeys(cands) if k not in taken and any(_matches(pat, k))]

        def covered(k: str) -> int:
            # how many regex readings (Python, ECMAScript) list the key in V where P declares it: a key V
            # misses under both breaks every host, one it misses under one reading only some hosts
            if k in vprops:
                return 2
            mine = _matches(pat, k)
            return sum(1 for d in (0, 1) if not mine[d] or any(_matches(pt, k)[d] for pt in vpat))
        return sorted(keys, key=lambda k: (covered(k), not (k.isascii() and k.isprintable())))[:3]

    def _declared_key(self, p: dict[str, Any], v: dict[str, Any], p_steps: list[Any], ps: Any, key: str,
                      depth: int, dialects: tuple[bool, bool] = (True, True)) -> list[Issue]:
        """P declares property ``key`` with schema ``ps`` (at ``p_steps``): compare it with every schema V
        applies to that key (``properties``, each matching ``patternProperties``, else ``additionalProperties``)."""
        vprops = v.get("properties") if isinstance(v.get("properties"), dict) else {}
        vpat = v.get("patternProperties") if isinstance(v.get("patternProperties"), dict) else {}
        wrap = self._obj_wrap(p, v, key)
        targets: list[tuple[list[Any], Any]] = [(["properties", key], vprops[key])] if key in vprops else []
        matches = {pt: _matches(pt, key) for pt in vpat}
        targets += [(["patternProperties", pt], vpat[pt]) for pt in vpat if any(matches[pt])]
        out: list[Issue] = []
        for v_steps, vs in targets:
            out += self._prefix(self.compare(ps, vs, depth + 1), p_steps, v_steps, key, wrap)
        if key in vprops or all(any(m[d] for m in matches.values()) for d in (0, 1) if dialects[d]):
            return out  # V lists the key wherever P declares it (Python and ECMAScript regex readings)
        v_closed = self._closed(v)
        v_addl = _tolerant(v.get("additionalProperties", v.get("unevaluatedProperties", True)))
        if v_closed:
            child = self._sample_p(ps)
            w = wrap(child) if child is not NO_WITNESS else NO_WITNESS
            what = f"property {key!r}" if p_steps[:1] == ["properties"] else f"a property such as {key!r}"
            if targets:
                what += " (matched by a patternProperties regex on some hosts only: Python and ECMAScript differ)"
            return out + [Issue("prop-extra-p-closed", p_steps, [v_closed], ps, False,
                          f"{what} of the {{P}} schema is not listed by the {{V}} schema's closed object "
                          f"({v_closed}: false)", w, [key])]
        if isinstance(v_addl, dict):
            return out + self._prefix(self.compare(ps, v_addl, depth + 1), p_steps, ["additionalProperties"], key, wrap)
        if targets:
            return out
        if p_steps[0] == "properties":
            return [Issue("prop-extra-p-open", p_steps, [], ps, None,
                          f"property {key!r} is listed only by the {{P}} schema (the {{V}} object is open)", inst=[key])]
        return []

    def _property_names(self, p: dict[str, Any], v: dict[str, Any], pprops: dict[str, Any]) -> list[Issue]:
        """``propertyNames``: a property the P side declares whose name V's ``propertyNames`` rejects."""
        pn, vn = p.get("propertyNames"), v.get("propertyNames")
        if canon(pn) == canon(vn):
            return []
        out: list[Issue] = []
        if vn is not None:
            for key, ps in pprops.items():
                if self._valid(self.v_doc, vn, key) is False and (pn is None or self._valid(self.p_doc, pn, key)):
                    child = self._sample_p(ps)
                    w = self._obj_wrap(p, v, key)(child) if child is not NO_WITNESS else NO_WITNESS
                    out.append(Issue("looser-p", ["properties", key], ["propertyNames"], key, vn,
                                      f"property name {key!r} of the {{P}} schema is rejected by the {{V}} schema's "
                                      "propertyNames", w, [key]))
        if not out:
            out.append(Issue("looser-v" if pn is not None and vn is None else "undecidable",
                              ["propertyNames"] if pn is not None else [], ["propertyNames"] if vn is not None else [],
                              pn, vn, "propertyNames changed; every declared property name is accepted by both"))
        return out



def _regex_dialect_candidates(strings: list[Any]) -> list[str]:
    """Variants of ``strings`` on which Python and ECMAScript regexes disagree: a trailing newline (``$``),
    Unicode digits and letters (``\\d``, ``\\w``), line separators (``.``) and Unicode spaces (``\\s``)."""
    out: list[str] = []
    for s in [x for x in strings if isinstance(x, str)][:8]:
        out += [s + "\n", s.translate(_UNICODE_LOOKALIKES), s + "\u2028", s.replace(" ", "\u0085")]
    return list(dict.fromkeys(x for x in out if x not in strings))


_UNICODE_LOOKALIKES = str.maketrans({**{str(d): chr(0x0660 + d) for d in range(10)}, "a": "é", "e": "é", "x": "ж"})


def _unnegate(node: dict[str, Any]) -> tuple[dict[str, Any], set[str]]:
    """``{"not": {"not": S}, …}`` → ``({"allOf": [S, …], …}, keywords of S the node lacks)``: a double
    negation is S itself. Other nodes are returned as they are, with an empty set."""
    inner = node.get("not")
    if not (isinstance(inner, dict) and set(inner) == {"not"}):
        return node, set()
    rest = {k: val for k, val in node.items() if k != "not"}
    rest["allOf"] = [inner["not"]] + (list(rest["allOf"]) if isinstance(rest.get("allOf"), list) else [])
    moved = {k for k in inner["not"] if k not in rest} if isinstance(inner["not"], dict) else set()
    return rest, moved


def _regex_included(small: str, big: str) -> bool:
    """Proven: every string ``small`` matches, ``big`` matches too (both searched, as JSON Schema does).

    Only the sure cases: the same pattern, or ``big`` is ``^`` plus literal characters and ``small``
    starts with ``^`` and that same literal prefix (``^x_`` ⊇ ``^x_[a-z]*$``). Anything else: False.
    """
    if small == big:
        return True
    try:
        from re import _constants as c, _parser as parser  # type: ignore[attr-defined]
        b_items, s_items = list(parser.parse(big)), list(parser.parse(small))
    except (re.error, RecursionError, OverflowError, ValueError, ImportError):
        return False
    if not b_items or b_items[0] != (c.AT, c.AT_BEGINNING) or any(op != c.LITERAL for op, _ in b_items[1:]):
        return False
    return s_items[:len(b_items)] == b_items


def _search(pattern: str, text: str) -> bool:
    """Does ``pattern`` match ``text`` for some host (Python ``re`` or ECMAScript)? Undecidable → False."""
    return any(_matches(pattern, text))


def _matches(pattern: str, text: str) -> tuple[bool, bool]:
    """``(python-sdk matches, TS hosts match)``: ``re.search`` and ``new RegExp(pattern, "u").test``.

    A search that is refused (ReDoS guard) or a pattern one engine cannot compile counts as no match.
    """
    from mcp_schema_audit.schema import ecma_search, safe_search

    out = []
    for search in (lambda: safe_search(pattern, text) is not None, lambda: ecma_search(pattern, text)):
        try:
            out.append(bool(search()))
        except (re.error, RecursionError, OverflowError, ValueError):
            out.append(False)
    return out[0], out[1]


def _int(x: Any, default: int) -> int:
    return x if isinstance(x, int) and not isinstance(x, bool) else default


def _tolerant(addl: Any) -> Any:
    """``additionalProperties`` that declares nothing (``{}`` or annotations only) reads as ``true``."""
    if isinstance(addl, dict) and all(k in _ANNOTATIONS for k in addl):
        return True
    return addl


def _num(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _is_multiple(a: Any, b: Any) -> bool:
    try:
        q = a / b
        return abs(q - round(q)) < 1e-9
    except (TypeError, ZeroDivisionError, OverflowError):
        return False


RULE_SEVERITY_FOR_KIND = {k: RULES[v[0]].severity for k, v in _KINDS.items()}
for _k, (_o, _i) in _KINDS.items():
    # a kind is "hard" when either direction's rule is breaking (used only for branch scoring)
    if RULES[_i].severity == "breaking":
        RULE_SEVERITY_FOR_KIND[_k] = "breaking"


# -- public API --------------------------------------------------------------------------------------
def compare_schemas(old: Any, new: Any, direction: str, tool: str = "tool", *,
                    deadline: float | None = None) -> list[Finding]:
    """Compare one tool's old and new schema for ``direction`` (``"input"`` or ``"output"``).

    ``old``/``new`` are JSON Schemas (dict or bool) or ``None`` when absent (an absent inputSchema
    means the tool itself is absent: ``tool-removed``/``tool-added``). Returns findings sorted
    by (pointer, rule). Breaking findings carry a witness confirmed with python ``jsonschema`` per
    host profile; an unconfirmed one is returned as a warning with ``reason`` set. Never raises for
    bad schemas: they become ``schema-invalid``/``schema-undecidable`` findings. ``deadline`` (a
    ``time.monotonic()`` value) ends the comparison earlier than ``TIME_BUDGET_S`` would.
    """
    if direction not in ("input", "output"):
        raise ValueError(f"direction must be 'input' or 'output', not {direction!r}")
    if direction == "input" and (old is None or new is None):
        # no inputSchema on a side means no tool on that side (every MCP tool has one)
        if old is None:
            return [] if new is None else [_finding("tool-added", tool, "", "new tool", None, tool)]
        return [_removed_tool_finding(tool, old)]
    if direction == "output":
        if old is None and new is None:
            return []
        if old is None:
            return [_finding("output-schema-added", tool, "", "outputSchema added", None, new)]
        if new is None:
            return [_finding("output-schema-removed", tool, "", "outputSchema removed", old, None)]
    old = {} if old is None else old
    new = {} if new is None else new
    old_doc, new_doc = SchemaDoc(old), SchemaDoc(new)
    findings: list[Finding] = []
    if old_doc.dialect != new_doc.dialect:
        findings.append(_finding("dialect-changed", tool, "/$schema", f"dialect {old_doc.dialect} → {new_doc.dialect}",
                                 old_doc.dialect, new_doc.dialect, direction=direction))
    if direction == "input" and isinstance(old, dict) and isinstance(new, dict) \
            and old.get("type") == "object" and new.get("type") != "object":
        f = _finding("input-schema-not-object", tool, "/type",
                     "inputSchema no longer has type 'object': SDK clients reject the whole tools/list",
                     old.get("type"), new.get("type"), direction="input")
        listing = {"name": tool, "inputSchema": new}
        if not SchemaDoc(_TOOL_LISTING_SCHEMA).errors(listing) or SchemaDoc(_TOOL_LISTING_SCHEMA).errors(
                {"name": tool, "inputSchema": old}):
            f.severity, f.reason = "warning", "witness not confirmed against the SDK listing shape"
        else:
            f.hosts = list(HOST_PROFILES)
            f.witness = {"instance": listing, "accepted_by": "old", "instance_pointer": "/inputSchema/type",
                         "error": "inputSchema.type must be 'object': the SDK client rejects the whole tools/list"}
        findings.append(f)
    if direction == "output" and isinstance(old, dict) and isinstance(new, dict) \
            and bool(old.get("x-fastmcp-wrap-result")) != bool(new.get("x-fastmcp-wrap-result")):
        findings.append(_finding("output-envelope-changed", tool, "/x-fastmcp-wrap-result",
                                 "results are wrapped as {\"result\": …} on one side only",
                                 old.get("x-fastmcp-wrap-result"), new.get("x-fastmcp-wrap-result"),
                                 direction="output"))
    p_doc, v_doc = (new_doc, old_doc) if direction == "output" else (old_doc, new_doc)
    comparer = _Comparer(p_doc, v_doc, deadline)
    try:
        issues = comparer.compare(p_doc.root, v_doc.root)
    except Budget:
        issues = [Issue("undecidable", [], [], None, None,
                         f"work budget exceeded ({WORK_BUDGET} node pairs, {MAX_BRANCHES} union branches, "
                         f"16 nested unions, {TIME_BUDGET_S:g} s per tool or the run's time budget); "
                         "this schema was not compared")]
    except RecursionError:
        issues = [Issue("undecidable", [], [], None, None, "schemas nested too deeply to compare")]
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, re.error, ArithmeticError) as exc:
        # a keyword value of the wrong shape deep inside a stranger's schema: say so, never crash
        issues = [Issue("undecidable", [], [], None, None, "the schema could not be compared (malformed keyword "
                        f"value: {type(exc).__name__}); validate it with `schema-audit lint`")]
    seen: set[tuple[str, str, str]] = set()
    for issue in issues:
        try:
            f = _issue_to_finding(issue, tool, direction, p_doc, v_doc)
        except (TypeError, ValueError, KeyError, IndexError, AttributeError, re.error, ArithmeticError,
                RecursionError) as exc:
            f = _finding("schema-undecidable", tool, "", f"the witness could not be checked ({type(exc).__name__})",
                         None, None, direction=direction)
        key = (f.rule, f.pointer, f.message)
        if key not in seen:
            seen.add(key)
            findings.append(f)
    if old_doc.canonical != new_doc.canonical:
        findings += _unvalidatable(tool, direction, old_doc, new_doc, {f.message for f in findings})
    return sorted(findings, key=lambda f: (f.pointer, f.rule, f.message))


def _unvalidatable(tool: str, direction: str, old_doc: SchemaDoc, new_doc: SchemaDoc, have: set[str]) -> list[Finding]:
    """A ``schema-undecidable`` warning per side no validator can run (``SchemaCostError``: an in-place
    ``$ref`` cycle or an exponential expansion), so that a changed schema no host can validate with
    is never a silent "no finding"."""
    out = []
    for side, doc in (("cached", old_doc), ("new", new_doc)):
        try:
            doc.check_cost()
        except SchemaCostError as exc:
            f = _finding("schema-undecidable", tool, "", f"the {side} {direction}Schema cannot be validated: {exc}",
                         None, None, direction=direction)
            if not any(str(exc) in message for message in have):
                f.reason = str(exc)
                out.append(f)
    return out


def _distribute(base: dict[str, Any], sub: dict[str, Any]) -> dict[str, Any]:
    """One union branch with the keywords beside the union: ``base`` (the union's parent minus the union)
    and ``sub`` (the branch) as one schema that accepts what both accept.

    Keys only one side has are copied; ``required`` lists are joined; for the same bound keyword the
    stricter value is kept. ``additionalProperties`` sees only its own schema object's ``properties``
    (JSON Schema 2020-12 §10.3.2.3), so when one side closes the object and the other lists properties
    each property gets the conjunction of what both sides apply to it: ``{"oneOf": [{"properties":
    {"file": {}}}], "additionalProperties": false}`` rejects ``{"file": 1}``. With ``patternProperties``
    on a closing side the parts stay an ``allOf`` (compared member by member)."""
    merged = dict(base)
    for k, val in sub.items():
        if k in _ANNOTATIONS or k in ("properties", "additionalProperties", "unevaluatedProperties"):
            continue
        if k not in merged or canon(merged[k]) == canon(val):
            merged[k] = val
        elif k == "required" and isinstance(val, list) and isinstance(merged[k], list):
            merged[k] = list(dict.fromkeys([*merged[k], *val]))
        elif k in _STRICTER and _number(val) and _number(merged[k]):
            merged[k] = _STRICTER[k](merged[k], val)
        else:
            merged[k] = val  # the branch's own value: what the engine compares in this branch
    b_props = base.get("properties") if isinstance(base.get("properties"), dict) else {}
    s_props = sub.get("properties") if isinstance(sub.get("properties"), dict) else {}
    b_close = base.get("additionalProperties", True)
    s_close = sub.get("additionalProperties", sub.get("unevaluatedProperties", True))
    scoped = (b_close not in (True, {}) and s_props) or (s_close not in (True, {}) and b_props)
    if not scoped:
        if "properties" in sub or "properties" in base:
            merged["properties"] = {**b_props, **{k: ({"allOf": [b_props[k], v]} if k in b_props
                                                      and canon(b_props[k]) != canon(v) else v)
                                                  for k, v in s_props.items()}}
        for kw in ("additionalProperties", "unevaluatedProperties"):
            if kw in sub:
                merged[kw] = sub[kw] if kw not in base or canon(base[kw]) == canon(sub[kw]) else {
                    "allOf": [base[kw], sub[kw]]}
        return merged
    if "patternProperties" in base or "patternProperties" in sub:
        return {**{k: v for k, v in base.items() if k not in ("properties", "additionalProperties")},
                "allOf": [{k: v for k, v in base.items() if k in ("properties", "additionalProperties", "patternProperties")},
                          sub]}

    def both(a: Any, b: Any) -> Any:
        parts = [x for x in (a, b) if x is not True and x != {}]
        if any(x is False for x in parts):
            return False
        return parts[0] if len(parts) == 1 else {"allOf": parts} if parts else {}

    merged["properties"] = {k: both(b_props.get(k, b_close), s_props.get(k, s_close))
                            for k in dict.fromkeys([*b_props, *s_props])}
    rest = both(b_close, s_close)
    if rest != {}:
        merged["additionalProperties"] = rest
    return merged


#: Bound keywords of which the stricter of two values holds when both apply.
_STRICTER = {"minimum": max, "exclusiveMinimum": max, "minLength": max, "minItems": max, "minProperties": max,
             "maximum": min, "exclusiveMaximum": min, "maxLength": min, "maxItems": min, "maxProperties": min}


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _kw_steps(node: dict[str, Any], kw: str) -> list[str]:
    """``[kw]`` when ``node`` has that keyword, else ``[]`` (the node itself): pointers must resolve."""
    return [kw] if kw in node else []


def _finding(rule_id: str, tool: str, ptr: str, detail: str, old: Any, new: Any, *, direction: str | None = None,
             witness: dict[str, Any] | None = None) -> Finding:
    rule = RULES[rule_id]
    return Finding(rule=rule_id, severity=rule.severity, tool=tool, direction=direction or rule.direction,
                   pointer=ptr, message=f"{tool}: {rule.title} at {ptr or '(root)'}: {detail}", old=old, new=new,
                   witness=witness)


def _issue_to_finding(issue: Issue, tool: str, direction: str, p_doc: SchemaDoc, v_doc: SchemaDoc) -> Finding:
    out_rule, in_rule = _KINDS[issue.kind]
    rule_id = out_rule if direction == "output" else in_rule
    p_ptr, v_ptr = pointer(issue.p_path), pointer(issue.v_path)
    if direction == "output":
        old_ptr, new_ptr, old_val, new_val = v_ptr, p_ptr, issue.v_val, issue.p_val
    else:
        old_ptr, new_ptr, old_val, new_val = p_ptr, v_ptr, issue.p_val, issue.v_val
    # the new schema's location, unless the change lives only in the old schema
    new_path, old_path = (issue.p_path, issue.v_path) if direction == "output" else (issue.v_path, issue.p_path)
    ptr = old_ptr if (not new_path and old_path) else new_ptr
    if issue.kind == "prop-extra-p-closed" and issue.p_path[:1] == ["properties"]:
        ptr = p_ptr  # the property itself (for inputs it exists only in the cached schema)
    names = {"P": "new", "V": "cached"} if direction == "output" else {"P": "cached", "V": "new"}
    detail = issue.detail.replace("{P}", names["P"]).replace("{V}", names["V"])
    f = _finding(rule_id, tool, ptr, detail, old_val, new_val, direction=direction)
    f.old_pointer, f.new_pointer = old_ptr, new_ptr
    if f.severity == "breaking":
        _confirm(f, issue, direction, p_doc, v_doc)
    return f


#: Host profiles that read every keyword of the schema's dialect: a witness must be valid under P for one
#: of them to count as a value P declares (ts-sdk-v1 ignores 2019-09/2020-12 keywords).
_FULL_READERS = ("python-sdk", "ts-sdk-v2")


def _confirm(f: Finding, issue: Issue, direction: str, p_doc: SchemaDoc, v_doc: SchemaDoc) -> None:
    """Validate the witness on both sides per host profile; set hosts, or downgrade to warning.

    A host is listed when, under its own reading, the accepting side (P) accepts the witness and the
    rejecting side (V) rejects it; and the witness must be one P declares under a full reader
    (``_FULL_READERS``), so a value only ts-sdk-v1's lax reading of P admits proves nothing."""
    if issue.witness is NO_WITNESS:
        f.severity, f.reason = "warning", "no witness could be built, so the break is not proven"
        return
    instance = issue.witness
    hosts: list[str] = []
    error = ""
    problems: list[str] = []
    declared = False
    for profile in HOST_PROFILES:
        try:
            accepted = not p_doc.errors(instance, profile)
            errs = v_doc.errors(instance, profile)
        except (RefError, ValueError, RecursionError) as exc:
            problems.append(f"{profile}: {exc}")
            continue
        except BaseException as exc:  # a panic in the regex engine's Rust code (pyo3 PanicException)
            if isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit)):
                raise
            problems.append(f"{profile}: the validator failed ({type(exc).__name__})")
            continue
        declared = declared or (accepted and profile in _FULL_READERS)
        if accepted and errs:
            hosts.append(profile)
            if not error:
                error = _explain_error(errs[0])
    inst_ptr = pointer(issue.inst)
    if hosts and not declared:
        # only a reader that ignores some of P's keywords (ts-sdk-v1: dependentSchemas, prefixItems …) accepts
        # it: the P side does not really declare this value
        hosts, problems = [], ["the witness breaks a keyword of the accepting side that only ts-sdk-v1 ignores"]
    if not hosts:
        f.severity = "warning"
        f.reason = "witness not confirmed by any host profile" + (f" ({problems[0]})" if problems else "")
        return
    f.hosts = hosts
    f.witness = {"instance": instance, "accepted_by": "new" if direction == "output" else "old",
                 "error": error[:500], "instance_pointer": inst_ptr}


#: The shape SDK clients require of a tools/list entry (MCP spec Tool.inputSchema: type "object").
_TOOL_LISTING_SCHEMA = {"type": "object", "required": ["inputSchema"], "properties": {
    "inputSchema": {"type": "object", "required": ["type"], "properties": {"type": {"const": "object"}}}}}

def _explain_error(err: Any) -> str:
    """The validator's message; for anyOf/oneOf failures, also the closest branch's own reason."""
    from jsonschema.exceptions import best_match

    message = err.message
    context = list(err.context or [])
    if context:
        # branches that failed only on their type are the least informative alternatives
        informative = [e for e in context if e.validator != "type"] or context
        deeper = best_match(informative)
        where = pointer(list(deeper.absolute_path))
        message += f" (closest branch: {deeper.message}" + (f" at {where}" if where else "") + ")"
    return message


_RISKY = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
_DEFAULTS = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}


def _tool_findings(name: str, old: dict[str, Any], new: dict[str, Any]) -> list[Finding]:
    out: list[Finding] = []
    for key, rule_id in (("description", "tool-description-changed"), ("title", "tool-title-changed")):
        if old.get(key) != new.get(key):
            f = _finding(rule_id, name, f"/{key}", f"{key} changed", old.get(key), new.get(key))
            if key == "description":
                f.tags = ["security"]
            out.append(f)
    oa = old.get("annotations") if isinstance(old.get("annotations"), dict) else {}
    na = new.get("annotations") if isinstance(new.get("annotations"), dict) else {}
    for hint, safe in _RISKY.items():
        before, after = oa.get(hint, _DEFAULTS[hint]), na.get(hint, _DEFAULTS[hint])
        if before != after and isinstance(before, bool) and isinstance(after, bool):
            riskier = before == safe and after != safe
            rule_id = "tool-annotation-riskier" if riskier else "tool-annotation-changed"
            f = _finding(rule_id, name, f"/annotations/{hint}", f"{hint} {before} → {after}", before, after)
            f.tags = ["security"]
            out.append(f)
    return out


def _removed_tool_finding(name: str, input_schema: Any) -> Finding:
    """``tool-removed`` with a witness: a call the cached inputSchema allows, now to an unknown tool."""
    f = _finding("tool-removed", name, "", "the new server no longer lists it", name, None)
    try:
        args = sample(input_schema, SchemaDoc(input_schema))
    except (NoSample, RecursionError):
        args = {}
    f.witness = {"instance": {"name": name, "arguments": args}, "accepted_by": "old",
                 "error": f"Unknown tool: {name}", "instance_pointer": "/name"}
    f.hosts = list(HOST_PROFILES)
    return f


def diff_snapshots(old: Snapshot, new: Snapshot, *, time_budget: float | None = None) -> list[Finding]:
    """All findings between two snapshots, tools paired by name.

    Returns findings sorted by (tool, direction: tool < input < output, pointer, rule). Removed tools
    are breaking (witness: arguments the cached inputSchema allows, now sent to an unknown tool).
    ``time_budget`` (seconds, default ``RUN_TIME_BUDGET_S``; ``0`` or negative: no limit) bounds the
    whole call: a changed tool met after it is spent is not compared and gets one
    ``schema-undecidable`` warning saying so.
    """
    budget = RUN_TIME_BUDGET_S if time_budget is None else time_budget
    deadline = time.monotonic() + budget if budget > 0 else None
    om, nm = old.tool_map(), new.tool_map()
    out: list[Finding] = []
    for name in sorted(set(om) | set(nm)):
        if name not in nm:
            out.append(_removed_tool_finding(name, om[name].get("inputSchema", {})))
            continue
        if name not in om:
            out.append(_finding("tool-added", name, "", "new tool", None, name))
            continue
        o, n = om[name], nm[name]
        if canon(o) == canon(n):
            continue  # identical tool (JSON equality: Python's ``False == 0`` must not hide a change): nothing to compare (the common case, kept cheap for big servers)
        out += _tool_findings(name, o, n)
        if deadline is not None and time.monotonic() > deadline:
            out.append(_finding("schema-undecidable", name, "", f"not compared: the run's time budget ({budget:g} s, "
                                "--time-budget) was spent on earlier tools", None, None, direction="input"))
            continue
        out += compare_schemas(o.get("inputSchema", {}), n.get("inputSchema", {}), "input", name, deadline=deadline)
        out += compare_schemas(o.get("outputSchema"), n.get("outputSchema"), "output", name, deadline=deadline)
    out += _new_listing_breakers(old, new, {(f.rule, f.tool, f.pointer) for f in out}, deadline)
    order = {"tool": 0, "input": 1, "output": 2}
    return sorted(out, key=lambda f: (f.tool, order.get(f.direction, 3), f.pointer, f.rule))


def _new_listing_breakers(old: Snapshot, new: Snapshot, have: set[tuple[str, str, str]],
                          deadline: float | None = None) -> list[Finding]:
    """Listing-time breakers present in NEW and not in OLD (a new tool with one counts too).

    Past ``deadline`` (``time.monotonic()``) a changed tool is not checked: one ``schema-undecidable``
    warning names the tools left."""
    from mcp_schema_audit.lint import listing_breakers

    om = old.tool_map()
    out = []
    same_era = old.protocol_version == new.protocol_version
    left: list[str] = []
    for name, tool in new.tool_map().items():
        if same_era and name in om and canon(om[name]) == canon(tool):
            continue  # unchanged tool on the same protocol: it introduces no breaker
        if deadline is not None and time.monotonic() > deadline:
            left.append(name)
            continue
        before = {(f.rule, f.pointer) for f in listing_breakers(om[name], old.protocol_version)} if name in om else set()
        for f in listing_breakers(tool, new.protocol_version):
            if (f.rule, f.pointer) not in before and (f.rule, f.tool, f.pointer) not in have:
                f.message += " (the host loses the whole tools/list)" if f.rule != "output-schema-uncompilable" else ""
                out.append(f)
    if left:
        shown = ", ".join(left[:10]) + (f" and {len(left) - 10} more" if len(left) > 10 else "")
        out.append(_finding("schema-undecidable", left[0], "", f"listing-time checks (metaschema, compilation) "
                            f"not run for {len(left)} changed tool(s) ({shown}): the run's time budget "
                            "(--time-budget) was spent", None, None, direction="tool"))
    return out


def summarize(findings: list[Finding]) -> dict[str, int]:
    """Counts per severity: ``{"breaking": n, "warning": n, "info": n}``."""
    counts = {"breaking": 0, "warning": 0, "info": 0}
    for f in findings:
        counts[f.severity] += 1
    return counts


def max_severity(findings: list[Finding]) -> str | None:
    """The highest severity among ``findings`` (``None`` when empty)."""
    return max((f.severity for f in findings), key=SEVERITY_RANK.__getitem__, default=None)
