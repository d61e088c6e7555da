"""Identical subschemas, found without a walk: a pair of equal subtrees is compatible by construction.

Two raw subschemas, one in each document, are *identical* when their canonical JSON texts are equal
and every ``$ref`` they reach (transitively, through the targets) resolves to canonical-equal targets
in both documents, read in the same dialect; a subtree with a ``$dynamicRef``/``$recursiveRef`` (resolved by
the dynamic scope, not the text) is never proven identical. The walk then skips the pair at once, so a tool that
changed one property costs one property, not the whole schema. Texts and reference closures are
computed once per subtree (memoized by identity).
"""

from __future__ import annotations

import json
from typing import Any

from mcp_schema_audit.jsontext import canonical, same_json
from mcp_schema_audit.schema import RefError, SchemaDoc
from mcp_schema_audit.schema.dialects import REF_IN_TEXT

_REF = REF_IN_TEXT


class Texts:
    """Canonical texts and ``$ref`` closures of one document's subtrees."""

    def __init__(self, doc: SchemaDoc) -> None:
        self.doc = doc
        self._text: dict[int, tuple[Any, str]] = {}
        self._closure: dict[str, frozenset[str] | None] = {}

    def text(self, node: Any) -> str:
        """Canonical JSON of ``node`` (sorted keys, no spaces)."""
        hit = self._text.get(id(node))
        if hit is not None and hit[0] is node:
            return hit[1]
        text = canonical(node)
        if isinstance(node, (dict, list)):
            self._text[id(node)] = (node, text)
        return text

    def refs(self, node: Any) -> frozenset[str] | None:
        """Every ``$ref`` string ``node`` reaches, through targets too; None when one does not resolve."""
        text = self.text(node)
        if '"$dynamicRef"' in text or '"$recursiveRef"' in text:
            return None  # resolved by the dynamic scope, not the text: never proven identical
        if '"$ref"' in text and self.doc.canonical.count('"$id"') > int(
            isinstance(self.doc.root, dict) and "$id" in self.doc.root
        ):
            return None  # an $id below the root: a reference may resolve inside that resource, not from the root
        if '"$ref"' not in text:
            return frozenset()
        out: set[str] = set()
        todo = [json.loads(f'"{m}"') for m in _REF.findall(text)]
        while todo:
            ref = todo.pop()
            if ref in out:
                continue
            out.add(ref)
            try:
                target, _ = self.doc.lookup(ref)
            except RefError:
                return None
            inner = self.text(target)
            if '"$ref"' in inner:
                todo.extend(json.loads(f'"{m}"') for m in _REF.findall(inner))
        return frozenset(out)

    def target_text(self, ref: str) -> str | None:
        """Canonical JSON of ``ref``'s target in this document, or None when it does not resolve."""
        try:
            target, _ = self.doc.lookup(ref)
        except RefError:
            return None
        return self.text(target)


class Identity:
    """Decides whether a subschema of P's document and one of V's are identical (see the module docstring)."""

    def __init__(self, p_doc: SchemaDoc, v_doc: SchemaDoc) -> None:
        self.p, self.v = Texts(p_doc), Texts(v_doc)
        self.enabled = p_doc.dialect == v_doc.dialect
        # (id(p), id(v)) → (p, v, answer): the walk, the compile walk and the oracle ask about the same pairs
        self._known: dict[tuple[int, int], tuple[Any, Any, bool]] = {}

    def identical(self, p: Any, v: Any) -> bool:
        """True only when proven: equal texts and equal ``$ref`` targets (never for unresolvable refs).

        Exact JSON equality first (``jsontext.same_json``: C-speed ``==``, then types), then the ``$ref`` targets.
        Answered once per pair of subtrees (by identity; the subtrees are kept alive with the answer).
        """
        if not self.enabled or not isinstance(p, (dict, bool)) or not isinstance(v, (dict, bool)):
            return False
        key = (id(p), id(v))
        hit = self._known.get(key)
        if hit is not None and hit[0] is p and hit[1] is v:
            return hit[2]
        answer = self._identical(p, v)
        self._known[key] = (p, v, answer)
        return answer

    def _identical(self, p: Any, v: Any) -> bool:
        if not same_json(p, v):
            return False
        if isinstance(p, bool) or not any(k in self.p.text(p) for k in ('"$ref"', '"$dynamicRef"', '"$recursiveRef"')):
            return True
        refs = self.p.refs(p)
        if refs is None:
            return False
        for ref in refs:
            a = self.p.target_text(ref)
            if a is None or a != self.v.target_text(ref):
                return False
        return True
