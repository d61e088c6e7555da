"""Fast JSON text: canonical serialization on ``orjson`` (the standard library as the exact fallback), and
exact JSON equality at C speed.

``same_json(a, b)`` is exact JSON equality at C speed for the common case (see there).

``canonical(value)`` is the text the engine keys its caches and identity checks on: sorted keys, no
spaces, non-JSON values as ``str``. Two JSON-equal values always give the same text (``True`` and ``1``,
``1`` and ``1.0`` stay apart); the text is a key, never shown to anyone, and never a fingerprint
(``findings`` keeps its own stable serialization for those).
"""

from __future__ import annotations

import json
from typing import Any

import orjson

_SORTED = orjson.OPT_SORT_KEYS


def canonical(value: Any) -> str:
    """Canonical JSON text of ``value`` (sorted keys, compact, ``default=str``). Equal JSON, equal text.

    ``orjson`` serializes; values it refuses (integers beyond 64 bits, non-string keys, nesting past
    its limit) go through ``json.dumps`` with the same options, which may raise ``RecursionError``
    for absurd nesting (as before). Two JSON-equal values always take the same path.
    """
    try:
        return orjson.dumps(value, default=str, option=_SORTED).decode("utf-8")
    except (orjson.JSONEncodeError, TypeError):
        return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def same_json(a: Any, b: Any) -> bool:
    """JSON equality of two parsed documents, exact about types (``true`` is not ``1``, ``1`` is not ``1.0``).

    Python's ``==`` (C speed) rules most unequal pairs out at once; it cannot tell ``True`` from ``1``, so a
    pair it calls equal is confirmed by its JSON text as ``orjson`` writes it (keys in their order: equal text
    is the same JSON), and only when those differ (keys in another order) or ``orjson`` refuses a value by
    canonical text.
    """
    if a != b:
        return False
    try:
        if orjson.dumps(a) == orjson.dumps(b):
            return True
    except (orjson.JSONEncodeError, TypeError):
        pass
    return canonical(a) == canonical(b)
