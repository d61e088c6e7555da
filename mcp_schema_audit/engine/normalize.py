"""Normalization: every raw schema node becomes a ``Node`` that means the same and reads one way.

The walk compares normalized nodes only, so each class of spelling difference is settled here,
once, instead of in every comparison:

- **intersection, never overwrite**: ``allOf`` members, the target of a ``$ref`` and its sibling
  keywords, and the siblings of an ``anyOf``/``oneOf`` are intersected keyword by keyword (both
  ``type``s in force → their intersection; two ``enum``s → the common values; two bounds → the
  stricter; ``required`` → the union; two different ``pattern``s → both kept, one in a leftover
  ``allOf``). A union's siblings go into every branch (JSON Schema Core 2020-12 §10.2.1: the
  keywords of one schema object all apply), and a branch the siblings exclude disappears; a ``oneOf``
  distributed with an ``anyOf`` keeps its exclusivity (``merge._exclusive``: each branch with ``not``
  the branches it may overlap).
  ``additionalProperties`` sees only the ``properties`` of its own schema object (§10.3.2.3), so an
  object merge gives each property the conjunction of what both sides apply to it;
- **unions flattened**: ``type`` lists, nullable spellings, nested ``anyOf`` become one list of
  single-type branches; an ``anyOf`` branch whose values another branch accepts (an open enum with
  a plain-string fallback) is absorbed; identical branches collapse; one branch is the node itself;
- **equivalent spellings**: ``const``/``enum`` keep only the values their own type and sibling
  keywords accept (and stand for the whole node: ``type`` is implied); integer bounds are inclusive
  (``exclusiveMinimum: 0`` ≡ ``minimum: 1``); ``not: {not: S}`` is ``S``;
- **no-op keywords dropped**: annotations and unknown keywords, ``propertyNames: {type: string}``,
  ``additionalProperties: {}``, ``minLength: 0``, ``required: []``, keywords of a type the node
  excludes (``maxLength`` on an integer), and bounds at the interoperability limits (RFC 7493 §2.2:
  integers beyond ±(2^53−1) are not interoperable; zod 4 adds these bounds to every ``.int()``),
  which are kept aside in ``Node.limits`` so the walk can report them at info.

Normalization is shallow and lazy: a node's own keywords are settled, its subschemas (properties,
items, …) are normalized when the walk reaches them, so recursive schemas terminate and ``$ref``
targets are normalized once. Every ``Node`` keeps the JSON Pointer of where its keywords came from
(``nodes.Node``). Raises ``InPlaceCycle`` (a ``Budget``) for in-place cycles, ``Budget`` for union explosions
(``merge.MAX_BRANCHES``).

This module builds the nodes (``Normalizer``: raw node → ``Node``, ``$ref``/``allOf``/``anyOf`` read);
``merge`` intersects them (``allOf`` merged, union siblings distributed), ``settle`` makes each plain
node read one way (no-ops, value sets, bounds, type lists).
"""

from __future__ import annotations

from typing import Any

from mcp_schema_audit.engine.issue import InPlaceCycle
from mcp_schema_audit.engine.merge import Intersection
from mcp_schema_audit.engine.nodes import ASSERTIONS, Node, Tokens
from mcp_schema_audit.engine.settle import finish
from mcp_schema_audit.jsontext import canonical
from mcp_schema_audit.schema import RefError, SchemaDoc

#: In-place applicators (``allOf``/``anyOf``/``$ref``) followed from one node before giving up.
MAX_INPLACE_DEPTH = 32
_APPLICATORS = ("allOf", "anyOf", "oneOf", "$ref")
#: Keywords whose value maps names to schemas (a key "$id" there names a property, it is no keyword).
_SCHEMA_MAPS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
)


class Normalizer:
    """Turns raw nodes of one ``SchemaDoc`` into ``Node``s (see the module docstring), memoized.

    ``root_type``: a type the document's root always has (``"object"`` for an inputSchema: MCP
    ``arguments`` is always an object), intersected into the root.
    """

    def __init__(self, doc: SchemaDoc, root_type: str | None = None) -> None:
        self.doc = doc
        self.root_type = root_type
        self.merge = Intersection(doc)
        self._memo: dict[tuple[int, Tokens], tuple[Any, Any]] = {}
        self._active: set[tuple[int, Tokens]] = set()
        self._where: dict[int, Tokens] | None = None
        self._nested: bool | None = None

    # -- entry points ------------------------------------------------------------------------------------
    def norm(self, raw: Any, at: Tokens = ()) -> Any:
        """The normalized ``Node`` of ``raw`` (a subschema of this document located at ``at``), ``False``
        for a schema that accepts nothing, or ``raw`` itself when it is not a schema (neither an object
        nor a boolean: the walk reports it). Raises ``Budget`` (in-place cycle, too many branches)."""
        if isinstance(raw, Node):
            return raw
        if raw is False:
            return False
        if raw is True:
            raw = {}
        if not isinstance(raw, dict):
            return raw
        key = (id(raw), at)
        hit = self._memo.get(key)
        if hit is not None:
            return hit[1]
        if key in self._active:
            raise InPlaceCycle("an in-place $ref/allOf/anyOf cycle (a schema that applies itself at the same place)")
        if len(self._active) > MAX_INPLACE_DEPTH:
            raise InPlaceCycle(
                f"more than {MAX_INPLACE_DEPTH} in-place applicators ($ref/allOf/anyOf) followed from one place"
            )
        self._active.add(key)
        try:
            node = self._norm(raw, at)
        finally:
            self._active.discard(key)
        self._memo[key] = (raw, node)
        return node

    def locate(self, raw: Any) -> Tokens | None:
        """Where ``raw`` (an object of this document) lives, for ``$ref`` targets without a local pointer."""
        if self._where is None:
            where: dict[int, Tokens] = {}
            stack: list[tuple[Any, Tokens]] = [(self.doc.root, ())]
            while stack and len(where) < 500_000:
                value, at = stack.pop()
                if isinstance(value, dict):
                    where.setdefault(id(value), at)
                    stack.extend((v, (*at, k)) for k, v in value.items())
                elif isinstance(value, list):
                    stack.extend((v, (*at, i)) for i, v in enumerate(value))
            self._where = where
        return self._where.get(id(raw))

    def deref(self, raw: Any, at: Tokens) -> tuple[Any, Tokens]:
        """Follow a bare ``$ref`` chain (no sibling keywords) to its target: ``(target, its location)``.
        Raises ``RefError`` for a missing, remote or cyclic chain."""
        for _ in range(32):
            if not (isinstance(raw, dict) and isinstance(raw.get("$ref"), str)):
                return raw, at
            target, tokens = self.doc.lookup(raw["$ref"])
            located = tuple(tokens) if not (tokens and str(tokens[0]).startswith("$ref:")) else self.locate(target)
            raw, at = target, located if located is not None else at
        raise RefError("$ref chain too long or cyclic")

    # -- one node ------------------------------------------------------------------------------------------
    def _norm(self, raw: dict[str, Any], at: Tokens) -> Any:
        base = Node({k: v for k, v in raw.items() if k in ASSERTIONS and k not in _APPLICATORS}, at)
        parts: list[Any] = []
        inner = base.get("not")
        if isinstance(inner, dict) and set(inner) == {"not"}:
            # double negation: not {not S} is S itself
            del base["not"]
            parts.append(self.norm(inner["not"], (*at, "not", "not")))
        for kw in ("$ref", "$dynamicRef"):
            ref = raw.get(kw)
            if not isinstance(ref, str) or (kw == "$dynamicRef" and not self._static_dynamic(ref)):
                continue
            target, tokens = self._lookup(ref, at)
            located = tuple(tokens) if not (tokens and str(tokens[0]).startswith("$ref:")) else self.locate(target)
            parts.append(self.norm(target, located if located is not None else (*at, kw)))
        members = raw.get("allOf")
        if isinstance(members, list):
            known = self.merge.members.get(id(raw))
            for i, member in enumerate(members):
                where = known[1][i] if known is not None and i < len(known[1]) else (*at, "allOf", i)
                parts.append(self.norm(member, where))
        for kw in ("anyOf", "oneOf"):
            subs = raw.get(kw)
            if isinstance(subs, list) and subs:
                norm = self._branch if kw == "anyOf" else self.norm
                branches = [norm(sub, (*at, kw, i)) for i, sub in enumerate(subs)]
                parts.append(self._union(kw, [b for b in branches if b is not False], at))
        if self.root_type is not None and at == () and raw is self.doc.root and "type" not in raw:
            parts.append(Node({"type": self.root_type}, at))
        if not parts:
            return finish(base, self.doc)
        return self.merge.conj([finish(base, self.doc), *parts], at)

    def _lookup(self, ref: str, at: Tokens) -> tuple[Any, list[Any]]:
        """``SchemaDoc.lookup`` of a reference found at ``at``, against the base URI of the schema resource that
        holds it: an ``$id`` below the root starts a resource of its own, whose ``#/…`` and relative references
        resolve inside it (JSON Schema Core 2020-12 §8.2.1, §9.2), not against the document's root. Raises
        ``RefError``."""
        base = self._base(at) if self._nested_ids() else None
        registry = self.doc._registry
        if base is not None and registry is not None:
            try:
                resolved = registry.resolver(base_uri=base).lookup(ref)
            except Exception as exc:  # referencing.exceptions.Unresolvable and friends
                raise RefError(f"$ref {ref!r} cannot be resolved in the resource {base!r}") from exc
            return resolved.contents, ["$ref:" + ref]
        return self.doc.lookup(ref)

    def _nested_ids(self) -> bool:
        """The document holds an ``$id`` below its root (as text: ``_base`` decides whether one is a keyword)."""
        if self._nested is None:
            root = self.doc.root
            self._nested = self.doc.canonical.count('"$id"') > int(isinstance(root, dict) and "$id" in root)
        return self._nested

    def _base(self, at: Tokens) -> str | None:
        """The base URI at document location ``at`` when an ``$id`` below the root encloses it (the ``$id``s met
        walking from the root, each resolved against the one before), else None (the root's base: ``lookup``)."""
        from urllib.parse import urljoin

        self.doc.resolver  # noqa: B018 - builds the registry with the embedded resources crawled
        node: Any = self.doc.root
        root_id = node.get("$id") if isinstance(node, dict) else None
        base = root_id if isinstance(root_id, str) and "://" in root_id else "urn:schema-audit:root"
        nested = False
        for token in at:
            listed = isinstance(node, list) and isinstance(token, int) and 0 <= token < len(node)
            if isinstance(node, dict) and token in node or listed:
                node = node[token]
            else:
                return None
            # an $id keyword of a schema, not a property or definition named "$id" in a map of schemas
            if isinstance(node, dict) and isinstance(node.get("$id"), str) and token not in _SCHEMA_MAPS:
                base, nested = urljoin(base, node["$id"]).rstrip("#"), True
        return base if nested else None

    def _static_dynamic(self, ref: str) -> bool:
        """``ref`` (a ``$dynamicRef`` of this document) resolves as a ``$ref`` would: in a 2020-12 document, a JSON
        Pointer fragment, or an anchor name that at most one ``$dynamicAnchor`` of the document declares, so the
        outermost resource of any dynamic scope that declares it is the one the static lookup finds (JSON Schema
        Core 2020-12 §8.2.3.2; a second resource elsewhere changes nothing). Else it stays unmodelled."""
        if self.doc.dialect != "2020-12" or "#" not in ref:
            return False
        fragment = ref.split("#", 1)[1]
        if fragment.startswith("/") or fragment == "":
            return True
        declared = canonical({"$dynamicAnchor": fragment})[1:-1]  # '"$dynamicAnchor":"node"', as canonical writes it
        return self.doc.canonical.count(declared) <= 1

    def _branch(self, raw: Any, at: Tokens) -> Any:
        """An ``anyOf`` branch normalized, or ``False`` for one that applies itself in place: no value is valid
        there, since validating one never ends; a reader that reaches the branch fails the value (python-sdk
        only when the branches before it reject it, Ajv's 2019-09/2020-12 classes always), so the value stands
        or falls by the other branches, as with ``false``."""
        try:
            return self.norm(raw, at)
        except InPlaceCycle:
            return False

    def _union(self, kw: str, branches: list[Any], at: Tokens) -> Any:
        if not branches:
            return False
        return Node({kw: branches}, at)
