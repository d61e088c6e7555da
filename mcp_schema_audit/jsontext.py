"""Fast JSON text: canonical serialization on ``orjson`` (the standard library as the exact fallback), and
exact JSON equality at C speed.

``same_json(a, b)`` is exact JSON equality at C speed for the common case (see there).

``canonical(value)`` is the text the engine keys its caches and identity checks on: sorted keys, no
spaces, non-JSON values as ``str``. Two JSON-equal values always give the same text (``True`` and ``1``,
``1`` and ``1.0`` stay apart); the text is a key, never shown to anyone, and never a fingerprint
(``findings`` keeps its own stable serialization for those, as ``snapshot.model.tool_hash`` does).

``pointer(tokens)``, ``pointer_token(token)`` and ``pointer_tokens(text)`` are RFC 6901 JSON Pointers, written
and read in one place.

``stable_text(value)`` is the frozen serialization of fingerprints and tool hashes (the standard library's,
never changing with ``orjson``). The file form every snapshot and recording is written in (sorted keys,
indent 2, final newline) is ``mcp_schema_audit.snapshot.jsonio.canonical_json``.
"""

from __future__ import annotations

import json
import math
from typing import Any

import orjson

_SORTED = orjson.OPT_SORT_KEYS


def stable_text(value: Any) -> str:
    """The frozen serialization of fingerprints (``Finding.fingerprint``) and tool hashes
    (``snapshot.model.tool_hash``): ``json.dumps`` with sorted keys, no spaces, ``ensure_ascii=False``, and a
    value JSON cannot hold as its ``str``. It never changes: fingerprints in users' ``[[ignore]]`` entries and
    hashes pinned in snapshots depend on it (``orjson`` writes ``1e-7`` where this writes ``1e-07``). Raises
    ``RecursionError`` for nesting deeper than the interpreter's limit."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str, ensure_ascii=False)


def pointer_token(token: Any) -> str:
    """One reference token of an RFC 6901 JSON Pointer: ``str(token)`` with ``~`` → ``~0`` and ``/`` → ``~1``."""
    return str(token).replace("~", "~0").replace("/", "~1")


def pointer(tokens: Any) -> str:
    """The RFC 6901 JSON Pointer of keys and indices (``["a/b", 0]`` → ``/a~1b/0``; ``[]`` → ``""``)."""
    return "".join("/" + pointer_token(t) for t in tokens)


def pointer_tokens(text: str) -> list[str]:
    """The reference tokens of a JSON Pointer, unescaped (``/a~1b/0`` → ``["a/b", "0"]``; ``""`` → ``[]``).
    Raises ``ValueError`` for text that is neither empty nor starts with ``/``."""
    if not text:
        return []
    if not text.startswith("/"):
        raise ValueError(f"not a JSON Pointer: {text[:80]!r}")
    return [unescape_token(t) for t in text[1:].split("/")]


def unescape_token(token: str) -> str:
    """A reference token as its key: ``~1`` → ``/``, then ``~0`` → ``~`` (RFC 6901 §4)."""
    return token.replace("~1", "/").replace("~0", "~")


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


def non_json_number_at(value: Any) -> str | None:
    """The JSON Pointer of the first number in ``value`` (parsed JSON) that JSON cannot hold (NaN, Infinity, or
    a literal such as ``1e400`` that a parser read as Infinity), or None when there is none.

    JSON (RFC 8259) has no such numbers; Python's parsers and pydantic accept them, strict writers and
    ``JSON.parse`` do not. Walks iteratively (no nesting is too deep); object keys are never numbers.
    """
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, where = stack.pop()
        if isinstance(item, float):
            if not math.isfinite(item):
                return where
        elif isinstance(item, dict):
            for k in reversed(list(item)):
                stack.append((item[k], f"{where}/{pointer_token(k)}"))
        elif isinstance(item, list):
            for i in range(len(item) - 1, -1, -1):
                stack.append((item[i], f"{where}/{i}"))
    return None
