"""Property names and the regexes that match them: ``patternProperties`` read the way each host reads a regex.

A name matches a ``patternProperties`` regex for a host when the host's regex engine finds it
(Python ``re`` for python-sdk, ECMAScript with the ``u`` flag for the TS SDKs: ``matches`` gives both
readings); names are built from a regex (``pattern_keys``, ``names_matching``) or suggested by a
``propertyNames`` schema (``name_candidates``). ``regex_included`` proves the only regex inclusions
the engine relies on.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from mcp_schema_audit.engine.nodes import dict_at
from mcp_schema_audit.engine.regex_strings import regex_examples, regex_syntax
from mcp_schema_audit.engine.sampler import string_candidates
from mcp_schema_audit.engine.scalars import regex_dialect_candidates


def regex_included(small: str, big: str) -> bool:
    """Proven: every string ``small`` matches, ``big`` matches too (both searched, as JSON Schema does).

    Only the sure cases: the same pattern, or ``big`` is ``^`` plus literal characters and ``small``
    starts with ``^`` and that same literal prefix (``^x_`` ⊇ ``^x_[a-z]*$``). Anything else: False.
    """
    if small == big:
        return True
    from mcp_schema_audit.schema import oversized

    if oversized(big) is not None or oversized(small) is not None:  # never parsed
        return False
    try:
        c, parser = regex_syntax()
        b_items, s_items = list(parser.parse(big)), list(parser.parse(small))
    except (re.error, RecursionError, OverflowError, ValueError, ImportError):
        return False
    if not b_items or b_items[0] != (c.AT, c.AT_BEGINNING) or any(op != c.LITERAL for op, _ in b_items[1:]):
        return False
    return s_items[: len(b_items)] == b_items


def search_any(pattern: str, text: str) -> bool:
    """Does ``pattern`` match ``text`` for some host (Python ``re`` or ECMAScript)? Undecidable → False."""
    return any(matches(pattern, text))


def matches(pattern: str, text: str) -> tuple[bool, bool]:
    """``(python-sdk matches, TS hosts match)``: ``re.search`` and ``new RegExp(pattern, "u").test``.

    A search that is refused (ReDoS guard) or a pattern one engine cannot compile counts as no match.
    """
    from mcp_schema_audit.schema import ecma_search, safe_search

    searches: tuple[Callable[[], object], ...] = (
        lambda: safe_search(pattern, text) is not None,
        lambda: ecma_search(pattern, text),
    )
    out = []
    for search in searches:
        try:
            out.append(bool(search()))
        except (re.error, RecursionError, OverflowError, ValueError):
            out.append(False)
    return out[0], out[1]


def name_candidates(names: Any) -> list[str]:
    """Property names a ``propertyNames`` schema itself suggests: its enum/const strings, examples of its pattern."""
    if not isinstance(names, dict):
        return []
    out = [x for x in names.get("enum", []) if isinstance(x, str)] if isinstance(names.get("enum"), list) else []
    if isinstance(names.get("const"), str):
        out.append(names["const"])
    if isinstance(names.get("pattern"), str):
        out += regex_examples(names["pattern"], count=4)
    return out


def names_matching(pat: str, taken: dict[str, Any], v: dict[str, Any]) -> list[str]:
    """Property names matching ``pat`` (not in ``taken``), those V does not list for every host first: up to 3."""
    vprops, vpat = dict_at(v, "properties"), dict_at(v, "patternProperties")
    built = pattern_keys(pat, taken, count=8)
    cands = (
        built
        + regex_dialect_candidates(built)
        + [x for x in string_candidates() if x not in taken and all(matches(pat, x))]
    )
    keys = [k for k in dict.fromkeys(cands) if k not in taken and any(matches(pat, k))]

    def covered(k: str) -> int:
        # how many regex readings (Python, ECMAScript) list the key in V where P declares it: a key V
        # misses under both breaks every host, one it misses under one reading only some hosts
        if k in vprops:
            return 2
        mine = matches(pat, k)
        return sum(1 for d in (0, 1) if not mine[d] or any(matches(pt, k)[d] for pt in vpat))

    return sorted(keys, key=lambda k: (covered(k), not (k.isascii() and k.isprintable())))[:3]


def pattern_keys(pattern: str, taken: Any = (), count: int = 2) -> list[str]:
    """Up to ``count`` property names built from ``pattern`` (for ``patternProperties`` witnesses), none in
    ``taken``."""
    return [k for k in regex_examples(pattern, count=max(count, 4)) if k not in taken][:count]


#: Names tried for a key no side declares (``additional_keys``): everyday ones first, then those a
#: ``patternProperties`` regex misses most often: the empty key (``.`` needs a character), keys with a newline
#: (ECMAScript's ``.`` and ``$`` stop at one; Python's ``$`` also matches before a final one), capitals, digits,
#: punctuation, a non-ASCII letter.
_EXTRA_NAMES = (
    "extra_key",
    "extra_key_2",
    "zz_extra",
    "",
    "a\nb",
    "\n",
    "a\n",
    "Extra",
    "EXTRA_KEY",
    "1",
    "0",
    "-",
    "_",
    " ",
    "a b",
    "x.y",
    "\u00e9",
    "~",
)


def additional_keys(taken: Any, patterns: Any, count: int = 1) -> list[str]:
    """Up to ``count`` keys not in ``taken`` (the properties either side lists) that no regex of ``patterns`` (the
    ``patternProperties`` keys of both sides) matches: the keys each side's ``additionalProperties`` governs.
    Keys no regex matches under either reading (Python, ECMAScript) first, then keys unmatched under one only;
    none when every name tried is matched under both."""
    pats = [p for p in patterns if isinstance(p, str)]
    scored: list[tuple[int, int, str]] = []
    names = list(_EXTRA_NAMES) + [f"extra_key_{i}" for i in range(count)]
    for i, key in enumerate(dict.fromkeys(names)):
        if key in taken:
            continue
        readings = [matches(p, key) for p in pats]
        free = sum(1 for d in (0, 1) if not any(m[d] for m in readings))
        if free:
            scored.append((-free, i, key))
    return [key for _, _, key in sorted(scored)][:count]
