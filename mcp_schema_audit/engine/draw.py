"""Values drawn from a raw schema for the sampling oracle (``oracle``): its own reading of the keywords,
independent of ``normalize`` and of the sampler, so it does not share their blind spots.

A ``Draw`` makes one value per sample index ``k``: ``k == 0`` is minimal (required properties, lower
bounds), ``k == 1`` maximal (every declared property, upper bounds), higher indices choose branches,
enum values and optional properties with a seeded ``random.Random``. Each value visits at most
``_NODE_BUDGET`` subschemas; past it, or for a schema it cannot draw from, ``NoSample`` is raised.
"""

from __future__ import annotations

import random
from typing import Any, TypeGuard

from mcp_schema_audit.engine.nodes import dict_at, int_at, list_at, union_list
from mcp_schema_audit.engine.nodes import names as required_names
from mcp_schema_audit.engine.regex_strings import regex_examples
from mcp_schema_audit.engine.sampler import FORMAT_SAMPLES, NoSample
from mcp_schema_audit.schema import RefError, SchemaDoc, type_set

#: Subschemas one drawn value may visit (alternatives and nesting multiply).
_NODE_BUDGET = 2_000
_INTEROP = 2**53 - 1


class Draw:
    """One drawn value of a raw schema of ``doc``: choices follow the sample index ``k`` (branch ``k``, enum
    value ``k``, …) and ``rng``; ``k == 0`` is minimal (required properties, lower bounds), ``k == 1`` maximal
    (every declared property, upper bounds)."""

    def __init__(self, doc: SchemaDoc, rng: random.Random, k: int) -> None:
        self.doc, self.rng, self.k = doc, rng, k
        self.visits = 0

    def pick(self, options: list[Any]) -> Any:
        """One of ``options`` (not empty): the first for ``k == 0``, the last for ``k == 1``, else a seeded choice."""
        return (
            options[(self.k + self.rng.randrange(len(options))) % len(options)]
            if self.k > 1
            else (options[0] if self.k == 0 else options[-1])
        )

    def value(self, node: Any, depth: int = 0, keys: list[str] | None = None) -> Any:
        """A value drawn from raw schema ``node`` (``$ref`` followed, one branch and one type chosen); ``keys``:
        the only property names to draw for an object. Raises ``NoSample`` (``false``, too deep, over budget,
        an unresolvable ``$ref``)."""
        self.visits += 1
        if self.visits > _NODE_BUDGET or depth > 24:
            raise NoSample("too deep")
        if node is True or node == {}:
            return self.pick(["x", 0, None, True])
        if not isinstance(node, dict):
            raise NoSample("false")
        if isinstance(node.get("$ref"), str):
            try:
                target, _ = self.doc.lookup(node["$ref"])
            except RefError as exc:
                raise NoSample(str(exc)) from exc
            rest = {k: x for k, x in node.items() if k != "$ref"}
            if rest and isinstance(target, dict):
                return self.value({"allOf": [target, rest]}, depth + 1, keys)
            return self.value(target, depth + 1, keys)
        if "const" in node:
            return node["const"]
        if isinstance(node.get("enum"), list) and node["enum"]:
            return self.pick(list(node["enum"]))
        for kw in ("anyOf", "oneOf"):
            subs = node.get(kw)
            if isinstance(subs, list) and subs:
                rest = {k: x for k, x in node.items() if k != kw}
                branch = self.pick(list(subs))
                return self.value({"allOf": [rest, branch]} if rest else branch, depth + 1, keys)
        if isinstance(node.get("allOf"), list):
            return self.value(self._merged(node), depth + 1, keys)
        types = [t for t in (type_set(node) or _implied(node)) if t]
        t = self.pick(sorted(types, key=_TYPES.index)) if types else "string"
        return getattr(self, "_" + t)(node, depth, keys) if t in _TYPES else None

    def _merged(self, node: dict[str, Any]) -> dict[str, Any]:
        out = {k: x for k, x in node.items() if k != "allOf"}
        for sub in node["allOf"]:
            if isinstance(sub, dict) and isinstance(sub.get("$ref"), str):
                try:
                    sub = self.doc.lookup(sub["$ref"])[0]
                except RefError:
                    continue
            if not isinstance(sub, dict):
                continue
            for k, x in sub.items():
                if k == "properties" and isinstance(out.get(k), dict) and isinstance(x, dict):
                    out[k] = {**out[k], **x}
                elif k == "required" and isinstance(out.get(k), list) and isinstance(x, list):
                    out[k] = union_list(out[k], x)
                else:
                    out.setdefault(k, x)
        return out

    def _null(self, node: dict[str, Any], depth: int, keys: Any) -> Any:
        return None

    def _boolean(self, node: dict[str, Any], depth: int, keys: Any) -> Any:
        return self.pick([False, True])

    def _integer(self, node: dict[str, Any], depth: int, keys: Any) -> Any:
        return int(self._number(node, depth, keys, integer=True))

    def _number(self, node: dict[str, Any], depth: int, keys: Any, integer: bool = False) -> Any:
        lo, hi = node.get("minimum"), node.get("maximum")
        xlo, xhi = node.get("exclusiveMinimum"), node.get("exclusiveMaximum")
        step = 1 if integer else 0.5
        edges: list[Any] = [0, 1, -1] if integer else [0, 1.5, -0.5]
        if _num(lo):
            edges += [lo, lo + step]
        if _num(hi):
            edges += [hi, hi - step]
        if _num(xlo):
            edges.append(xlo + step)
        if _num(xhi):
            edges.append(xhi - step)
        edges = [x for x in edges if abs(x) <= _INTEROP]
        mult = node.get("multipleOf")
        if _num(mult) and mult > 0:
            edges = [x - (x % mult) for x in edges] + [mult]
        x = self.pick(edges)
        return int(x) if integer or (isinstance(x, float) and x.is_integer() and integer) else x

    def _string(self, node: dict[str, Any], depth: int, keys: Any) -> Any:
        fmt = node.get("format")
        lo = int_at(node, "minLength", 0)
        hi = int_at(node, "maxLength", None)
        if lo > 100_000:
            raise NoSample("minLength too large")
        opts: list[str] = []
        if isinstance(fmt, str) and fmt in FORMAT_SAMPLES:
            opts.append(FORMAT_SAMPLES[fmt])
        if isinstance(node.get("pattern"), str):
            opts += regex_examples(node["pattern"], count=3)
        opts += ["a" * max(lo, 1), "x" * lo, "hello"]
        if hi is not None and hi <= 100_000:
            opts.append("b" * hi)
        return self.pick([s for s in opts if len(s) >= lo and (hi is None or len(s) <= hi)] or ["a" * lo])

    def _array(self, node: dict[str, Any], depth: int, keys: Any) -> Any:
        listed = node.get("prefixItems")
        prefix: list[Any] = listed if isinstance(listed, list) else list_at(node, "items")
        items = node.get("items") if not isinstance(node.get("items"), list) else node.get("additionalItems", True)
        lo = int_at(node, "minItems", 0)
        hi = int_at(node, "maxItems", None)
        if lo > 200:
            raise NoSample("minItems too large")
        n = self.pick(sorted({lo, max(lo, 1), max(lo, min(2, hi if hi is not None else 2))}))
        if items is False:
            n = min(n, len(prefix))
        out = [self.value(prefix[i], depth + 1) for i in range(min(n, len(prefix)))]
        while len(out) < n:
            out.append(self.value(items if items is not None else True, depth + 1))
        if isinstance(node.get("contains"), (dict, bool)) and not out:
            out.append(self.value(node["contains"], depth + 1))
        return out

    def _object(self, node: dict[str, Any], depth: int, keys: list[str] | None = None) -> Any:
        props = dict_at(node, "properties")
        required = required_names(node.get("required"))
        names = list(props) if keys is None else [k for k in keys if k in props or k in required]
        obj: dict[str, Any] = {}
        for key in names:
            if key in required or self.k == 1 or (self.k > 1 and self.rng.random() < 0.6):
                obj[key] = self.value(props.get(key, True), depth + 1)
        for key in required:
            if key not in obj and (keys is None or key in keys):
                addl = node.get("additionalProperties", True)
                obj[key] = self.value(addl if isinstance(addl, dict) else True, depth + 1)
        addl = node.get("additionalProperties")
        if keys is None and isinstance(addl, dict) and self.k >= 1:
            obj.setdefault("extra_key", self.value(addl, depth + 1))
        pats = node.get("patternProperties")
        if keys is None and isinstance(pats, dict) and self.k >= 1:
            for pat, sub in list(pats.items())[:3]:
                name = next(iter(regex_examples(pat, count=1)), None)
                if name is not None and name not in obj:
                    obj[name] = self.value(sub, depth + 1)
        return obj


_TYPES = ("object", "string", "integer", "number", "boolean", "array", "null")


def _num(x: Any) -> TypeGuard[int | float]:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _implied(node: dict[str, Any]) -> list[str]:
    for kws, t in (
        (("properties", "required", "additionalProperties"), "object"),
        (("items", "prefixItems"), "array"),
        (("minLength", "maxLength", "pattern", "format"), "string"),
        (("minimum", "maximum", "multipleOf"), "number"),
    ):
        if any(k in node for k in kws):
            return [t]
    return []
