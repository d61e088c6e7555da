"""Strings built from a regex: short strings matching a ``pattern``, read off Python's parse of it.

``regex_examples`` walks the syntax tree of ``re``'s parser (``regex_syntax``) and builds a few
strings from it, each checked to match; the sampler uses them for ``pattern`` and
``patternProperties``, the witness searches for property names. Never raises for a hostile or
invalid pattern: it gives no string.
"""

from __future__ import annotations

import importlib
import re
from types import ModuleType
from typing import Any

#: Characters picked for a character class, in preference order (printable ASCII first).
_CLASS_PREFERENCE = "a_0xA-Z9 .:/zb1"
#: A character of each category escape (``\d``, ``\s``, ``\w`` and their negations).
_CATEGORY_SAMPLES = {
    "CATEGORY_DIGIT": "0",
    "CATEGORY_NOT_DIGIT": "a",
    "CATEGORY_SPACE": " ",
    "CATEGORY_NOT_SPACE": "a",
    "CATEGORY_WORD": "a",
    "CATEGORY_NOT_WORD": "-",
}
#: The class each category escape stands for, to test a character against it.
_CATEGORY_CLASSES = {
    "CATEGORY_DIGIT": r"\d",
    "CATEGORY_NOT_DIGIT": r"\D",
    "CATEGORY_SPACE": r"\s",
    "CATEGORY_NOT_SPACE": r"\S",
    "CATEGORY_WORD": r"\w",
    "CATEGORY_NOT_WORD": r"\W",
}
#: An inline global flag group (``(?i)``, ``(?ms)``): Python takes it only at the start of a pattern.
_INLINE_FLAGS = re.compile(r"\(\?[aiLmsux]+\)")
#: Deepest group nesting a string is built through.
_MAX_NESTING = 50


def regex_syntax() -> tuple[ModuleType, ModuleType]:
    """Python's regex opcode constants and its parser (``re._constants``/``re._parser``; ``sre_constants``/
    ``sre_parse`` before 3.11), which ``regex_examples`` walks. Private modules without type stubs: they are
    loaded by name, so their contents read as ``Any``."""
    try:
        return importlib.import_module("re._constants"), importlib.import_module("re._parser")
    except ImportError:  # pragma: no cover - 3.10
        return importlib.import_module("sre_constants"), importlib.import_module("sre_parse")


def regex_examples(pattern: str, count: int = 4, max_len: int = 64) -> list[str]:
    """Up to ``count`` short strings built from ``pattern``'s syntax tree, shortest first, each checked to match.

    Variant ``k`` takes alternative ``k`` of every alternation (modulo its size) and repeats each
    quantified atom its minimum count plus ``k > 0``. Lookarounds, backreferences and conditionals
    are skipped (the candidate is then only kept if the search still matches). Strings longer than
    ``max_len`` characters are dropped. Never raises: an invalid or hostile pattern gives ``[]``.
    """
    from mcp_schema_audit.schema import oversized, safe_search
    from mcp_schema_audit.schema.regex import pydantic_found

    if oversized(pattern) is not None:  # never parsed
        return []
    c, parser = regex_syntax()
    search: Any = safe_search
    try:
        tree = parser.parse(pattern)
    except (re.error, RecursionError, OverflowError, ValueError):
        # a global flag group past the start (``^a(?i)b$``): Python refuses it, Rust's regex (pydantic-core) and
        # ECMAScript read other patterns; built from the pattern without those groups, kept where Rust matches
        try:
            tree, search = parser.parse(_INLINE_FLAGS.sub("", pattern)), pydantic_found
        except (re.error, RecursionError, OverflowError, ValueError):
            return []
    found: list[str] = []
    for k in range(count):
        try:
            s = _build(c, tree.data if hasattr(tree, "data") else tree, k, 0, max_len)
        except (RecursionError, ValueError, OverflowError):
            s = None
        if s is None or s in found or len(s) > max_len:
            continue
        try:
            if search(pattern, s):
                found.append(s)
        except (re.error, RecursionError, OverflowError, ValueError):
            break
    return sorted(found, key=len)


def _build(c: ModuleType, items: Any, k: int, depth: int, max_len: int) -> str | None:
    """Variant ``k`` of the string the parsed ``items`` describe (opcodes of ``c``), or None when an item has
    none or the string grows past ``max_len``."""
    if depth > _MAX_NESTING:
        return None
    out: list[str] = []
    for op, av in items:
        part = _item(c, op, av, k, depth, max_len)
        if part is None:
            return None
        out.append(part)
        if sum(map(len, out)) > max_len:
            return None
    return "".join(out)


def _item(c: ModuleType, op: Any, av: Any, k: int, depth: int, max_len: int) -> str | None:
    """The part of variant ``k`` one parsed item ``(op, av)`` contributes (``""`` for anchors, lookarounds,
    backreferences …: the final search decides), or None when it has none."""
    if op == c.LITERAL:
        return chr(av)
    if op == c.NOT_LITERAL:
        return "a" if av != ord("a") else "b"
    if op == c.ANY:
        return "a"
    if op == c.IN:
        return _class_char(c, av, k)
    if op in (c.MAX_REPEAT, c.MIN_REPEAT) or op == getattr(c, "POSSESSIVE_REPEAT", None):
        lo, hi, body = av
        # variant 0: the minimum; 1: one more; 2+: long, to step past a bounded repeat elsewhere
        n = min(lo + (0 if k == 0 else 1 if k == 1 else 9 + k), hi, max_len)
        part = _build(c, body, k, depth + 1, max_len) if n else ""
        return None if part is None else part * n
    if op == c.SUBPATTERN:
        return _build(c, av[-1], k, depth + 1, max_len)
    if op == getattr(c, "ATOMIC_GROUP", None):
        return _build(c, av, k, depth + 1, max_len)
    if op == c.BRANCH:
        alts = av[1]
        return _build(c, alts[k % len(alts)], k, depth + 1, max_len)
    if op == c.CATEGORY:
        return _CATEGORY_SAMPLES.get(str(av), "a")
    return ""


def _class_char(c: ModuleType, items: Any, k: int = 0) -> str | None:
    """Character ``k`` (modulo their count) of those a parsed character class accepts: its own literals and
    range starts first, then ``_CLASS_PREFERENCE``; None when none fits."""
    pool = [chr(av) for op, av in items if op == c.LITERAL] + [chr(av[0]) for op, av in items if op == c.RANGE]
    pool += [_CATEGORY_SAMPLES.get(str(av), "a") for op, av in items if op == c.CATEGORY]
    fits = [ch for ch in dict.fromkeys(pool + list(_CLASS_PREFERENCE)) if _in_class(c, items, ch)]
    return fits[k % len(fits)] if fits else None


def _in_class(c: ModuleType, items: Any, ch: str) -> bool:
    """Does the parsed character class ``items`` accept ``ch``?"""
    hit = False
    negate = False
    for op, av in items:
        if op == c.NEGATE:
            negate = True
        elif op == c.LITERAL:
            hit = hit or ord(ch) == av
        elif op == c.RANGE:
            hit = hit or av[0] <= ord(ch) <= av[1]
        elif op == c.CATEGORY:
            hit = hit or bool(re.fullmatch(r"[{}]".format(_CATEGORY_CLASSES.get(str(av), r"\s\S")), ch))
    return hit != negate
