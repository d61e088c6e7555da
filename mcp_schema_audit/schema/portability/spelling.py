"""Portable spellings: for a host rule's hit, the subschema written so that the host keeps it, where a mechanical
rewrite exists (``portable.py`` shows one only after the engine finds it equivalent under the SDK profiles and
the host rule no longer fires on it).

- ``const: v`` → ``enum: [v]`` (Gemini keeps enum);
- ``oneOf`` → ``anyOf`` (equivalent only when no value matches two branches: the engine decides);
- a union of bare types (``anyOf``/``oneOf`` of ``{"type": T}`` entries) → ``type: [T, …]`` (Cursor, Gemini);
- a ``true`` subschema → ``{}``;
- an array without ``items`` → ``items: {}`` (OpenAI, Copilot Chat).
"""

from __future__ import annotations

import copy
from typing import Any

from mcp_schema_audit.jsontext import pointer_tokens
from mcp_schema_audit.schema.portability.record import Hit, HostRule


def _bare_types(branches: Any) -> list[str] | None:
    if not isinstance(branches, list) or not branches:
        return None
    out = []
    for b in branches:
        if not (isinstance(b, dict) and set(b) == {"type"} and isinstance(b["type"], str)):
            return None
        out.append(b["type"])
    return out if len(set(out)) == len(out) else None


def _rewrite(node: Any, keyword: str | None) -> Any:
    """The node spelled portably for ``keyword``, or None when no mechanical spelling exists."""
    if node is True:
        return {}
    if not isinstance(node, dict):
        return None
    if keyword == "const" and "const" in node and "enum" not in node:
        out = {k: v for k, v in node.items() if k != "const"}
        return {**out, "enum": [node["const"]]}
    if keyword in ("anyOf", "oneOf") and keyword in node:
        types = _bare_types(node[keyword])
        if types is not None and "type" not in node:
            out = {k: v for k, v in node.items() if k != keyword}
            return {**out, "type": types}
        if keyword == "oneOf" and "anyOf" not in node:
            out = {k: v for k, v in node.items() if k != "oneOf"}
            return {**out, "anyOf": node["oneOf"]}
    if keyword == "items" and "items" not in node:
        return {**node, "items": {}}
    return None


def subschema_tokens(hit: Hit) -> list[str]:
    """The pointer tokens of the subschema ``hit`` is about: a keyword hit points at the keyword, the subschema is
    its parent; a whole-subschema hit (an array without items, a boolean) points at it."""
    tokens = pointer_tokens(hit.pointer)
    if tokens and hit.keyword is not None and tokens[-1] == hit.keyword and hit.keyword != "items":
        return tokens[:-1]
    return tokens


def portable_schema(schema: Any, rule: HostRule, hit: Hit) -> Any:
    """``schema`` (an inputSchema) with the subschema at ``hit`` spelled portably, or None (no mechanical spelling,
    or the pointer does not lead to a subschema). ``rule`` is the host rule that fired there."""
    tokens = subschema_tokens(hit)
    out = copy.deepcopy(schema)
    parent: Any = None
    node: Any = out
    for tok in tokens:
        parent = node
        if isinstance(node, dict) and tok in node:
            node = node[tok]
        elif isinstance(node, list) and tok.isdigit() and int(tok) < len(node):
            node = node[int(tok)]
        else:
            return None
    new = _rewrite(node, hit.keyword if rule.effect != "accepts" else None)
    if new is None:
        return None
    if parent is None:
        return new
    key: Any = int(tokens[-1]) if isinstance(parent, list) else tokens[-1]
    parent[key] = new
    return out
