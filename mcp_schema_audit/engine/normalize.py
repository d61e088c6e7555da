"""Normalization of schema nodes before they are compared: ``allOf`` merged, union siblings distributed."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from mcp_schema_audit.engine.issue import canon
from mcp_schema_audit.schema import RefError, SchemaDoc

_ANNOTATIONS = {"title", "description", "examples", "default", "$comment", "deprecated", "readOnly",
                "writeOnly", "$schema", "$id", "$anchor", "$defs", "definitions", "$vocabulary", "$dynamicAnchor",
                "contentMediaType", "contentEncoding", "contentSchema"}


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


def _tolerant(addl: Any) -> Any:
    """``additionalProperties`` that declares nothing (``{}`` or annotations only) reads as ``true``."""
    if isinstance(addl, dict) and all(k in _ANNOTATIONS for k in addl):
        return True
    return addl


class NormalizeMixin:
    """Normalization of schema nodes before they are compared: ``allOf`` merged, union siblings distributed."""

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
