"""Where items sit in a JSON file: the 1-based line of each tool's (or other item's) key, for SARIF regions and
GitHub annotations.

A small scanner over the JSON text of any accepted input form (``forms``); it never raises and never
rejects a text: strictness is ``jsonio``'s job, this module only locates.
"""

from __future__ import annotations

import json
import re
from typing import Any

_WS = re.compile(r"[ \t\n\r]*")


def locate_tool_lines(text: str, arrays: tuple[str, ...] = ("tools",), key: str = "name") -> dict[str, int]:
    """Tool name → 1-based line of that tool's own ``"name"`` key, for the JSON text of any accepted input
    form (snapshot envelope, ``{"tools": [...]}``, ``{"result": {"tools": [...]}}``).

    Only the top-level ``name`` key of each entry of the ``tools`` array counts (a property called
    ``name`` inside a schema does not). Best effort and never raises: a text it cannot walk (not
    JSON, another shape) gives ``{}`` and callers fall back to line 1. ``arrays`` and ``key`` locate
    the items of another list instead (e.g. ``("resources",)`` and ``"uri"``): the first top-level
    array named by one of ``arrays``, each entry's ``key``.
    """
    decoder = json.JSONDecoder()

    def skip(i: int) -> int:
        return _WS.match(text, i).end()  # type: ignore[union-attr]

    def members(i: int) -> Any:
        """Yield ``(key, key_index, value_index)`` of the object starting at ``i``; return its end."""
        i = skip(i)
        if text[i : i + 1] != "{":
            raise ValueError("not an object")
        i = skip(i + 1)
        if text[i : i + 1] == "}":
            return
        while True:
            if text[i : i + 1] != '"':
                raise ValueError("key expected")
            key, after = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]  # (not in typeshed)
            j = skip(after)
            if text[j : j + 1] != ":":
                raise ValueError("colon expected")
            start = skip(j + 1)
            yield key, i, start
            _, end = decoder.raw_decode(text, start)
            i = skip(end)
            if text[i : i + 1] == ",":
                i = skip(i + 1)
                continue
            if text[i : i + 1] == "}":
                return
            raise ValueError("comma expected")

    def tools_array(i: int, depth: int) -> int | None:
        """Index of the ``tools`` array in the object at ``i`` (or in its ``result`` object)."""
        found = None
        for member, _, start in members(i):
            if member in arrays and text[start : start + 1] == "[":
                return start
            if member == "result" and depth == 0 and text[start : start + 1] == "{":
                found = tools_array(start, 1)
        return found

    out: dict[str, int] = {}
    line, counted = 1, 0  # lines are counted incrementally: linear in the size of the text
    try:
        i = tools_array(0, 0)
        if i is None:
            return {}
        i = skip(i + 1)
        while text[i : i + 1] not in ("]", ""):
            start = i
            _, end = decoder.raw_decode(text, start)
            if text[start : start + 1] == "{":
                for member, key_at, value_at in members(start):
                    if member == key:
                        name, _ = decoder.raw_decode(text, value_at)
                        if isinstance(name, str) and name not in out:
                            line += text.count("\n", counted, key_at)
                            counted = key_at
                            out[name] = line
                        break
            i = skip(end)
            if text[i : i + 1] == ",":
                i = skip(i + 1)
    except (ValueError, IndexError, RecursionError, AttributeError, TypeError):
        return out
    return out
