"""Arrays: ``items``/``prefixItems`` tuples (and their draft-07 and ``unevaluatedItems`` spellings),
``minItems``/``maxItems``, ``uniqueItems``. ``contains`` is an applicator (``applicators``)."""

from __future__ import annotations

from typing import Any

from mcp_schema_audit.engine.issue import NO_WITNESS, Issue, canon
from mcp_schema_audit.engine.sampler import number_candidates, string_candidates
from mcp_schema_audit.engine.scalars import _int
from mcp_schema_audit.schema import SchemaDoc, json_type

#: Longest array built for a witness (``maxItems`` above it: no witness, a warning).
MAX_WITNESS_ITEMS = 10_000
_NO_LIMIT = 10**9


class ArraysMixin:
    """Arrays (see the module docstring)."""

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
        if (
            "unevaluatedItems" in node
            and doc.dialect in ("2020-12", "2019-09")
            and not any(k in node for k in ("contains", "allOf", "anyOf", "oneOf", "not", "if", "$ref", "$dynamicRef"))
            and (not isinstance(node.get("prefixItems"), list) or doc.dialect == "2020-12")
        ):
            return pre, "prefixItems", node["unevaluatedItems"], "unevaluatedItems"
        return pre, "prefixItems", None, None

    def _arrays(self, p: Any, v: Any, depth: int) -> list[Issue]:
        out: list[Issue] = []
        p_pre, p_pk, p_items, p_ik = self._tuple(p, self.p_doc)
        v_pre, v_pk, v_items, v_ik = self._tuple(v, self.v_doc)
        # the longest array each side allows: maxItems, or a closed tail after the prefix (items: false)
        p_len = min(_int(p.get("maxItems"), _NO_LIMIT), len(p_pre) if p_items is False else _NO_LIMIT)
        v_len = min(_int(v.get("maxItems"), _NO_LIMIT), len(v_pre) if v_items is False else _NO_LIMIT)
        for i in range(min(max(len(p_pre), len(v_pre)), p_len)):
            ps = p_pre[i] if i < len(p_pre) else (p_items if p_items is not None else True)
            vs = v_pre[i] if i < len(v_pre) else (v_items if v_items is not None else True)
            out += self._child(
                p,
                [p_pk, i] if i < len(p_pre) else [p_ik] if p_ik else [],
                ps,
                v,
                [v_pk, i] if i < len(v_pre) else [v_ik] if v_ik else [],
                vs,
                depth,
                i,
                self._array_wrap(p, v, i),
            )
        if v_items is not None and v_items is not True or p_items is not None:
            ps = p_items if p_items is not None else True
            vs = v_items if v_items is not None else True
            idx = max(len(p_pre), len(v_pre))
            if not (ps is True and vs is True) and idx < p_len:
                out += self._child(
                    p,
                    [p_ik] if p_ik else [],
                    ps,
                    v,
                    [v_ik] if v_ik else [],
                    vs,
                    depth,
                    idx,
                    self._array_wrap(p, v, idx),
                )
        sizes = [0, 1, 2, _int(p.get("minItems"), 0), _int(v.get("minItems"), 1) - 1]
        if v_len < _NO_LIMIT:
            sizes.append(v_len + 1)
        cands = self._sized_arrays(p, v, p_pre, p_items, sizes)
        out += self._bounds(p, v, "minItems", False, cands, p.get("minItems"), v.get("minItems"))
        if p_len != v_len and (p_len < _NO_LIMIT or v_len < _NO_LIMIT) and ("maxItems" in p or "maxItems" in v):
            # compared as the effective longest length, so items: false after the prefix ≡ maxItems: len(prefix)
            got = self._bounds(
                p,
                v,
                "maxItems",
                True,
                cands,
                None if p_len == _NO_LIMIT else p_len,
                None if v_len == _NO_LIMIT else v_len,
                ["maxItems"] if "maxItems" in p else [p_ik] if p_ik else [],
                ["maxItems"] if "maxItems" in v else [v_ik] if v_ik else [],
                "maxItems" if "maxItems" in v else v_ik,
            )
            for issue in got:
                issue.p_val, issue.v_val = p.get("maxItems"), v.get("maxItems")
            out += got
        if bool(p.get("uniqueItems")) != bool(v.get("uniqueItems")):
            looser = bool(v.get("uniqueItems"))
            item = self._first_item(p, p_pre, p_items)
            pairs = [[item, item]] if item is not NO_WITNESS else []
            w = self._pick(p, v, pairs + [c + c[-1:] for c in cands if c], "uniqueItems") if looser else NO_WITNESS
            out.append(
                Issue(
                    "looser-p" if looser else "looser-v",
                    ["uniqueItems"] if "uniqueItems" in p else [],
                    ["uniqueItems"] if "uniqueItems" in v else [],
                    p.get("uniqueItems"),
                    v.get("uniqueItems"),
                    "uniqueItems changed",
                    w,
                    delta={"keyword": "uniqueItems"},
                )
            )
        return out

    def _first_item(self, p: Any, p_pre: list[Any], p_items: Any) -> Any:
        base = self._sample_p({k: val for k, val in p.items() if k != "minItems"} | {"type": "array"})
        if isinstance(base, list) and base:
            return base[0]
        return self._sample_p(p_pre[0] if p_pre else (p_items if p_items is not None else True))

    def _sized_arrays(self, p: Any, v: Any, p_pre: list[Any], p_items: Any, sizes: list[int]) -> list[Any]:
        """Arrays P declares of the given lengths: P's own sample, grown with items P's ``items`` accepts, all
        distinct when P has ``uniqueItems`` (11 distinct strings to exceed ``maxItems: 10``)."""
        base = self._sample_p({k: val for k, val in p.items() if k != "minItems"} | {"type": "array"})
        base = base if isinstance(base, list) else []
        wanted = sorted({n for n in sizes if 0 <= n <= MAX_WITNESS_ITEMS})
        if not wanted:
            return []
        tail = p_items if p_items is not None else True
        unique = bool(p.get("uniqueItems"))
        need = max(wanted)
        filler = self._items_for(tail, need, unique, exclude=base)
        out = []
        for n in wanted:
            arr = list(base[:n])
            for j in range(len(arr), n):
                if j < len(p_pre):
                    got = self._sample_p(p_pre[j])
                    arr.append(None if got is NO_WITNESS else got)
                elif filler:
                    arr.append(
                        filler[(j - len(base)) % len(filler)]
                        if not unique
                        else filler[j - len(base)]
                        if j - len(base) < len(filler)
                        else filler[-1]
                    )
            if len(arr) == n:
                out.append(arr)
        return out

    def _items_for(self, schema: Any, n: int, unique: bool, exclude: list[Any]) -> list[Any]:
        """Up to ``n`` values ``schema`` (a subschema of P's document) accepts, distinct when ``unique``."""
        first = self._sample_p(schema)
        if not unique:
            return [] if first is NO_WITNESS else [first]
        seen = {canon(x) + json_type(x) for x in exclude}
        out: list[Any] = []

        def add(x: Any) -> bool:
            key = canon(x) + json_type(x)
            if x is NO_WITNESS or key in seen or not self._valid(self.p_doc, schema, x):
                return False
            seen.add(key)
            out.append(x)
            return len(out) >= n

        pools = [
            [first],
            self._values(schema) if isinstance(schema, dict) else None,
            string_candidates(),
            number_candidates(schema if isinstance(schema, dict) else {}, integer=True),
        ]
        for pool in pools:
            for x in pool or []:
                if add(x):
                    return out
        kind = json_type(first) if first is not NO_WITNESS else "string"
        for i in range(n * 2 + 10):
            x: Any = (
                f"{first}{i}"
                if kind == "string"
                else i
                if kind in ("integer", "number")
                else ({**first, "_": i} if kind == "object" else [i] if kind == "array" else NO_WITNESS)
            )
            if x is NO_WITNESS or add(x):
                break
            if len(out) == 0 and i > 20:
                break
        return out
