"""Unions: ``anyOf``/``oneOf``/type lists flattened into branches and paired across versions."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from mcp_schema_audit.engine.confirm import RULE_SEVERITY_FOR_KIND
from mcp_schema_audit.engine.issue import ABS, Budget, Issue, NO_WITNESS, canon, short
from mcp_schema_audit.engine.normalize import _ANNOTATIONS, _distribute
from mcp_schema_audit.engine.sampler import NoSample, sample
from mcp_schema_audit.schema import RefError, SchemaDoc, type_set

#: Union branches one node may expand into; more → the tool's comparison stops with a warning.
MAX_BRANCHES = 64


class UnionsMixin:
    """Unions: ``anyOf``/``oneOf``/type lists flattened into branches and paired across versions."""

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
