"""Test helper: does a finding's JSON Pointer name a real location in a schema?"""

from __future__ import annotations

from typing import Any


def resolves(schema: Any, ptr: str) -> bool:
    """True when JSON Pointer ``ptr`` names a location in ``schema`` (following local ``$ref`` when a step misses)."""
    node = schema
    for raw in ptr.split("/")[1:] if ptr else []:
        part = raw.replace("~1", "/").replace("~0", "~")
        for _ in range(8):
            if isinstance(node, dict) and part in node:
                node = node[part]
                break
            if isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
                break
            ref = node.get("$ref") if isinstance(node, dict) else None
            if not (isinstance(ref, str) and ref.startswith("#")):
                return False
            node = schema
            for step in ref[2:].split("/") if ref != "#" else []:
                step = step.replace("~1", "/").replace("~0", "~")
                if not (isinstance(node, dict) and step in node):
                    return False
                node = node[step]
        else:
            return False
    return True


def value_at(schema: Any, ptr: str) -> Any:
    """The value JSON Pointer ``ptr`` names in ``schema`` (no ``$ref`` following); ``KeyError`` when none."""
    node = schema
    for raw in ptr.split("/")[1:] if ptr else []:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise KeyError(ptr)
    return node


_NAMED = {
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
    "dependencies",
    "dependentRequired",
}
_LISTED = {"allOf", "anyOf", "oneOf", "prefixItems", "items", "enum", "required", "type"}


def keyword_at(ptr: str) -> str | None:
    """The keyword the pointer's last token names, or None when it names a subschema (a property, an index)."""
    expect, last = "keyword", None
    for tok in [t.replace("~1", "/").replace("~0", "~") for t in ptr.split("/")[1:]] if ptr else []:
        if expect == "name" or expect == "index-or-keyword" and tok.isdigit():
            last, expect = None, "keyword"
        else:
            last = tok
            expect = "name" if tok in _NAMED else "index-or-keyword" if tok in _LISTED else "keyword"
    return last
