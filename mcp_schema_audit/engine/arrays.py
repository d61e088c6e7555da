"""Arrays: ``items``/``prefixItems`` tuples, ``minItems``/``maxItems``, ``uniqueItems``."""

from __future__ import annotations

from typing import Any

from mcp_schema_audit.engine.issue import Issue, NO_WITNESS
from mcp_schema_audit.engine.scalars import _int
from mcp_schema_audit.schema import SchemaDoc

class ArraysMixin:
    """Arrays: ``items``/``prefixItems`` tuples, ``minItems``/``maxItems``, ``uniqueItems``."""

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
