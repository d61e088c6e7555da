"""Strings of a format: values every host profile that asserts a ``format`` accepts, at the lengths and near the
patterns the keywords beside it ask for.

A witness for a ``maxLength``, ``minLength`` or ``pattern`` beside a ``format`` must meet that format too, or the
hosts that check formats (the TS profiles, ajv-formats) reject it on the accepting side and the break is
confirmed for python-sdk only. The strings are built the same way for every format ajv-formats defines, from its
check (``schema.ajv_conforms``) and a few examples of it (``FORMAT_EXAMPLES``, data only):

- ``format_pool``: the examples and every string one edit away from one (a character replaced by another of its
  kind, one inserted, one deleted) that still meets the format: values that differ where a ``pattern`` may look
  (the first or last character, the case, a digit, an offset ``+01:00`` for ``Z``);
- ``stretch``: a value grown to a given length by repeating a part of it that the format lets repeat (found by
  trying, not known per format: the fraction of a ``date-time``'s seconds, a ``uri``'s path, an ``email``'s
  local part), so a ``maxLength`` witness keeps its format;
- ``formatted_strings``: the strings of every format given at once, meeting a node's length bounds, with the
  examples of a ``pattern`` beside the format spliced in, the ones its regexes match first.

Every string returned is checked against each format; whether it also meets the rest of a node is for the
caller's validators to say.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Iterable

from mcp_schema_audit.engine.regex_strings import regex_examples
from mcp_schema_audit.schema import ajv_conforms, asserting_profiles, ecma_search, format_type, safe_search

#: Values of each format ajv-formats defines, as servers send them, shaped differently from one another (first:
#: the one samples use). Only the first matters for a format no host asserts.
FORMAT_EXAMPLES: dict[str, tuple[str, ...]] = {
    "date-time": (
        "2026-01-01T00:00:00Z",
        "2025-12-31T23:59:59+01:00",
        "1999-02-28t08:30:00.5-05:00",
        "2026-06-15T12:00:00.000Z",
        "2026-01-01 00:00:00z",
    ),
    "date": ("2026-01-01", "1999-12-31", "2024-02-29"),
    "time": ("00:00:00Z", "23:59:59+01:00", "12:30:45.5-05:00"),
    "iso-time": ("00:00:00", "23:59:59Z", "12:30:45.5+01:00"),
    "iso-date-time": ("2026-01-01T00:00:00", "2025-12-31 23:59:59Z", "2026-01-01T00:00:00.5+01:00"),
    "duration": ("P1D", "PT1H", "P1Y2M3DT4H5M6S", "P2W"),
    "uri": ("https://example.com/", "http://a.example.org/b/c?d=e#f", "urn:isbn:0451450523", "mailto:u@example.com"),
    "uri-reference": ("https://example.com/", "/a/b", "a", "#f", "../x?y=1"),
    "uri-template": ("https://example.com/{id}", "/users/{user}{?page}", "x"),
    "url": ("https://example.com/", "http://example.org/a/b?c=d", "ftp://files.example.net/x"),
    "email": ("user@example.com", "a@b.co", "First.Last+tag@sub.example.org"),
    "hostname": ("example.com", "a", "sub.example.org", "x-1.y2.Z3."),
    "ipv4": ("127.0.0.1", "0.0.0.0", "255.255.255.255", "192.168.10.20"),
    "ipv6": ("::1", "2001:db8::1", "1:2:3:4:5:6:7:8", "::ffff:127.0.0.1", "FE80::ABCD"),
    "regex": ("a", "^[a-z]+$", "x|y", ""),
    "uuid": (
        "00000000-0000-4000-8000-000000000000",
        "123e4567-e89b-12d3-a456-426614174000",
        "FFFFFFFF-FFFF-4FFF-BFFF-FFFFFFFFFFFF",
        "urn:uuid:00000000-0000-4000-8000-000000000000",
    ),
    "json-pointer": ("/a", "", "/a/b~0c/~1d", "/0"),
    "json-pointer-uri-fragment": ("#/a", "#", "#/a/b~0c/%20"),
    "relative-json-pointer": ("0", "1/a", "2#", "10/b"),
    "byte": ("YQ==", "", "YWI=", "QUJDRA=="),
    "password": ("secret",),
    "binary": ("data",),
}
#: Characters a character of each kind is replaced by, and characters inserted (``format_pool``).
_DIGITS = "0123456789"
_OTHERS = "-._:/+@~%# ?=&"
_INSERTED = "a0Z-._:/+"
#: Longest example edited character by character (longer ones are kept as they are).
_MAX_EDITED = 64
#: Longest string ``stretch`` builds.
MAX_STRETCH = 1_000_000


def asserted(fmt: object) -> bool:
    """Does some host profile assert ``format: fmt`` on strings?"""
    return bool(asserting_profiles(fmt)) and format_type(fmt) == "string"


def _meets(fmts: tuple[str, ...], text: str) -> bool:
    return all(ajv_conforms(text, f) for f in fmts)


def _variants(s: str) -> Iterable[str]:
    """Every string one edit away from ``s``: a character replaced by another of its kind (a digit by a digit, a
    letter by its other case or another letter, anything else by a separator), one inserted, one deleted."""
    yield s.upper()
    yield s.lower()
    for i, ch in enumerate(s[:_MAX_EDITED]):
        if ch.isdigit():
            subs = _DIGITS
        elif ch.isalpha():
            subs = ch.swapcase() + ("azext" if ch.islower() else "AZTX")
        else:
            subs = _OTHERS
        for other in subs:
            if other != ch:
                yield s[:i] + other + s[i + 1 :]
        yield s[:i] + s[i + 1 :]
        for ins in _INSERTED:
            yield s[:i] + ins + s[i:]
    for ins in _INSERTED:
        yield s + ins


@functools.lru_cache(maxsize=64)
def format_pool(fmt: str) -> tuple[str, ...]:
    """The examples of ``fmt`` and the strings one edit away from them that still meet it (see the module
    docstring), in a fixed order: the examples, then the variants of each."""
    seeds = [seed for seed in FORMAT_EXAMPLES.get(fmt, ()) if ajv_conforms(seed, fmt)]
    out: dict[str, None] = dict.fromkeys(seeds)
    for seed in seeds:
        for v in _variants(seed):
            if v not in out and ajv_conforms(v, fmt):
                out.setdefault(v)
    return tuple(out)


@functools.lru_cache(maxsize=1024)
def _pumps(fmts: tuple[str, ...], s: str) -> tuple[tuple[int, str], ...]:
    """Places of ``s`` where a part of it may repeat and every format in ``fmts`` still holds: ``(index, part)``,
    checked with the part repeated once, twice and five times."""
    out: list[tuple[int, str]] = []
    for i in range(len(s), -1, -1):
        for width in (1, 2, 3):
            for part in {s[i - width : i] if i >= width else "", s[i : i + width]}:
                if not part or (i, part) in out:
                    continue
                if all(_meets(fmts, s[:i] + part * k + s[i:]) for k in (1, 2, 5)):
                    out.append((i, part))
        if len(out) >= 4:
            break
    return tuple(out)


def stretch(fmts: tuple[str, ...], s: str, n: int) -> str | None:
    """``s`` grown to exactly ``n`` characters by repeating a part of it, every format in ``fmts`` still met;
    None when no part of it may repeat so (or ``n`` is out of reach)."""
    if n == len(s):
        return s
    if n < len(s) or n > MAX_STRETCH:
        return None
    for i, part in _pumps(fmts, s):
        k, rest = divmod(n - len(s), len(part))
        grown = s[:i] + part * k + part[:rest] + s[i:]
        if len(grown) == n and _meets(fmts, grown):
            return grown
    return None


def _matches(pattern: str, text: str) -> int:
    """How many readings of ``pattern`` (Python, ECMAScript) find it in ``text`` (an undecided search: none)."""
    hits = 0
    for search in (safe_search, ecma_search):
        with contextlib.suppress(re.error, RecursionError, OverflowError, ValueError):
            hits += bool(search(pattern, text))
    return hits


def formatted_strings(
    fmts: tuple[str, ...],
    lo: int = 0,
    hi: int | None = None,
    lengths: Iterable[int] = (),
    want: tuple[str, ...] = (),
    avoid: tuple[str, ...] = (),
    limit: int = 160,
) -> list[str]:
    """Strings meeting every format of ``fmts`` (those some host asserts; the others are left out): the pool of
    the first within ``[lo, hi]``, with the examples of each pattern of ``want`` spliced into the format's own
    examples, ordered so that the strings the ``want`` patterns match and the ``avoid`` patterns do not come
    first; the shortest of them; and one grown to each of ``lengths``. Up to ``limit`` strings, no duplicates."""
    fmts = tuple(f for f in dict.fromkeys(fmts) if asserted(f))
    if not fmts:
        return []
    pool = [s for s in format_pool(fmts[0]) if _meets(fmts[1:], s)]
    seeds = [s for s in FORMAT_EXAMPLES.get(fmts[0], ()) if _meets(fmts, s)]
    for pat in want:
        for ex in regex_examples(pat, count=6):
            for spliced in (ex, *(ex + s for s in seeds), *(s + ex for s in seeds)):
                if _meets(fmts, spliced):
                    pool.append(spliced)
    if want or avoid:

        def fit(text: str) -> int:
            return sum(_matches(p, text) for p in avoid) - sum(_matches(p, text) for p in want)

        pool.sort(key=fit)
        seeds.sort(key=fit)
    fits = [s for s in pool if len(s) >= lo and (hi is None or len(s) <= hi)]
    out: dict[str, None] = dict.fromkeys(fits[: limit // 2])
    out.update(dict.fromkeys(sorted(fits, key=len)[:8]))
    for n in lengths:
        if 0 <= n <= MAX_STRETCH:
            out.update(dict.fromkeys(_of_length(fmts, seeds, pool, n)))
    return list(out)[:limit]


def _of_length(fmts: tuple[str, ...], seeds: list[str], pool: list[str], n: int) -> list[str]:
    """A string of the formats with exactly ``n`` characters, grown from a seed or a string of the pool (in their
    order), and the shortest string of the pool longer than ``n`` (what a ``maxLength: n - 1`` rejects too)."""
    out = []
    for s in [x for x in dict.fromkeys(seeds + pool) if len(x) <= n][:24]:
        grown = stretch(fmts, s, n)
        if grown is not None:
            out.append(grown)
            break
    longer = [x for x in pool if len(x) > n]
    if longer:
        out.append(min(longer, key=len))
    return out
