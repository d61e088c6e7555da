"""A JavaScript ``RegExp`` as zod may run the developer's ``.regex(/…/flags)`` (``zod_search``).

zod tests a string with the regex the developer wrote; the JSON Schema a TypeScript server lists keeps only its
``source`` (zod-to-json-schema for zod 3, ``z.toJSONSchema`` for zod 4), so the listing carries no flags, and a value
is refused only when every flag zod may have used refuses it (``DEVELOPER_FLAGS``). Without ``u`` a JavaScript
string is a sequence of UTF-16 code units, so ``.`` and ``[^a]`` take half of an emoji, ``^.{1,2}$`` refuses
"😀😀" (four units) and an emoji written in the pattern is two units.

regress (the ECMAScript engine of ``regex``) searches code points, so for a reading without ``u`` the text's
characters beyond U+FFFF are written as their two code units first, each as a placeholder from the Private Use
Area (``_HIGH``, ``_LOW``), and the pattern's such characters and surrogate escapes alike (``_unit_pattern``). That
reading is refused (``None`` from ``_unit_pattern``: ``RegexBudgetError``, undecided) where the placeholders could
be confused with real characters: a pattern or text holding U+E000–U+E7FF, a class range with an end at or above
U+D800 (``[\\u0000-\\uFFFF]``), ``\\u{…}`` (a count without ``u``). Every search is bounded as Ajv's is: the
``u``-flag program's length limit (``regex.ecma_search_limit``), never more text. Where neither side holds a code
point beyond U+FFFF and the pattern no ``\\p``, the readings with and without ``u`` agree and Ajv's search decides
(``regex.ecma_search``, with its exact translation for texts past that limit).
"""

from __future__ import annotations

import re
from typing import Any

from mcp_schema_audit.schema.regex import EcmaRegexError, ecma_search, ecma_search_limit
from mcp_schema_audit.schema.regex_cost import PatternCache, RegexBudgetError, count_search

#: The placeholders of high and low surrogates: U+E000 + (unit − 0xD800), U+E400 + (unit − 0xDC00).
_HIGH, _LOW = 0xE000, 0xE400
_PLACEHOLDERS = (0xE000, 0xE7FF)
_ESCAPE = re.compile(r"u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})")
#: ``\p``/``\P`` (a Unicode property with ``u``, the letter p without it), not after an escaping backslash.
_PROPERTY = re.compile(r"(?<!\\)(?:\\\\)*\\[pP]")


def _placeholder(cp: int) -> int:
    """The Private Use Area character standing for code unit ``cp`` when it is a surrogate, else ``cp``."""
    if 0xD800 <= cp <= 0xDBFF:
        return _HIGH + cp - 0xD800
    if 0xDC00 <= cp <= 0xDFFF:
        return _LOW + cp - 0xDC00
    return cp


def _unit(cp: int) -> str:
    """Code unit ``cp`` (its placeholder when a surrogate) as a four-hex-digit ``\\u`` escape of the pattern."""
    return f"\\u{_placeholder(cp):04X}"


def _units(cp: int) -> list[int]:
    """The UTF-16 code units of code point ``cp``."""
    if cp <= 0xFFFF:
        return [cp]
    cp -= 0x10000
    return [0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF)]


def code_units(text: str) -> str | None:
    """``text`` as a flagless ``RegExp`` sees it: each character beyond U+FFFF (and each lone surrogate) as code
    units written in placeholders; None when ``text`` holds a character the placeholders stand for."""
    out: list[str] = []
    for c in text:
        cp = ord(c)
        if _PLACEHOLDERS[0] <= cp <= _PLACEHOLDERS[1]:
            return None
        if cp > 0xFFFF or 0xD800 <= cp <= 0xDFFF:
            out.extend(chr(_placeholder(u)) for u in _units(cp))
        else:
            out.append(c)
    return "".join(out)


def _unit_pattern(pattern: str) -> str | None:
    """``pattern`` with its characters beyond U+FFFF, lone surrogates and surrogate escapes written as the
    placeholders of their code units (``code_units``); None where that could change what it matches (see the
    module docstring)."""
    out: list[str] = []
    i, n = 0, len(pattern)
    in_class = range_open = False
    prev: int | None = None  # the code point of the class's previous atom (-1: none, or a set such as \d)
    while i < n:
        c = pattern[i]
        cp: int | None
        if c == "\\" and i + 1 < n:
            if pattern.startswith("u{", i + 1):
                return None
            m = _ESCAPE.match(pattern, i + 1)
            if m:
                cp = int(m.group(1) or m.group(2), 16)
                token, i = (_unit(cp) if m.group(1) else pattern[i : m.end()]), m.end()
            else:
                nxt = pattern[i + 1]
                cp = None if nxt.isalnum() else ord(nxt)
                token, i = pattern[i : i + 2], i + 2
        else:
            cp, token, i = ord(c), c, i + 1
            if c == "[" and not in_class:
                in_class, range_open, prev = True, False, -1
                out.append(c)
                continue
            if c == "]" and in_class:
                in_class = False
                out.append(c)
                continue
        if cp is not None and _PLACEHOLDERS[0] <= cp <= _PLACEHOLDERS[1]:
            return None
        if cp is not None and (cp > 0xFFFF or 0xD800 <= cp <= 0xDFFF):
            token = "".join(_unit(u) for u in _units(cp))
        if in_class:
            if range_open:  # the end of a range: neither end may reach the surrogates or beyond
                if max(prev if prev is not None else 0, cp if cp is not None else 0) >= 0xD800:
                    return None
                range_open, prev = False, -1
            elif token == "-" and prev != -1:
                range_open = True
            else:
                prev = cp if cp is not None else -1
        out.append(token)
    return "".join(out)


#: ``_unit_pattern`` per pattern text, once a run.
_UNIT_PATTERNS: PatternCache[str | None] = PatternCache()
#: The regress program of each (flags, pattern) searched.
_PROGRAMS: PatternCache[object] = PatternCache()


#: The flags a developer's ``.regex(/…/flags)`` may carry that change what ``test`` takes, the listing keeping none
#: of them: ``i`` (which can also refuse: ``[^a]`` under ``i`` refuses ``A``), ``m`` and ``s`` (only ever take more),
#: ``u`` (code points instead of UTF-16 units, ``\\p{…}`` a property). ``g`` and ``y`` are left out: zod resets
#: ``lastIndex``, and ``y`` (anchored at 0) only refuses more, so a value taken without it is taken by some server.
DEVELOPER_FLAGS = ("", "i", "ms", "ims", "u", "ui", "ums", "uims")
#: The flags of zod 4's own patterns beside a format (``z.email()`` none, ``z.regexes.unicodeEmail`` ``u``).
OWN_FLAGS = ("", "u")


def zod_search(pattern: str, text: str, own: bool = False) -> bool:
    """Does ``new RegExp(pattern, flags).test(text)`` hold for some ``flags`` a zod server may have compiled the
    listed ``pattern`` with? The listing keeps only the regex's ``source``, so every reading of ``DEVELOPER_FLAGS``
    is tried (``OWN_FLAGS`` for ``own``: zod 4's own check of a format it lists beside it), those with ``u`` alone
    for a pattern with ``\\p`` (without ``u`` it is the letter p); without ``u`` over UTF-16 code units
    (``code_units``). True when one of them matches, so that a rejection claimed is one every such server makes;
    a value whose verdict depends on the flags is not claimed refused.

    Cannot hang: each reading's pattern must be one Ajv compiles (a reading whose flags the pattern cannot take is
    skipped; ``EcmaRegexError`` when none can), and the text no longer than that program's search limit. Raises
    ``RegexBudgetError`` when no reading matches and one was refused (too long a text, a pattern or text the
    code-unit reading cannot write: see the module docstring)."""
    count_search()
    flags = [f for f in (OWN_FLAGS if own else DEVELOPER_FLAGS) if "u" in f or not _PROPERTY.search(pattern)]
    mapped: str | None = pattern
    units: str | None = text
    if any("u" not in f for f in flags):
        mapped, units = _UNIT_PATTERNS.get(pattern, _unit_pattern), code_units(text)
    refused: RegexBudgetError | None = None
    invalid: EcmaRegexError | None = None
    ran = False
    for f in flags:
        try:
            if "u" in f or (mapped == pattern and units == text):
                # code points, or a text and pattern without any beyond U+FFFF: both readings alike
                found = ecma_search(pattern, text) if f in ("", "u") else _searcher(f)(pattern, text)
            elif mapped is None or units is None:
                raise RegexBudgetError(f"pattern {pattern[:60]!r} cannot be read without flags on this string")
            else:
                found = _searcher(f)(mapped, units)
        except EcmaRegexError as exc:  # not a pattern these flags compile: no server runs this reading
            invalid = exc
            continue
        except RegexBudgetError as exc:
            refused, ran = exc, True
            continue
        ran = True
        if found:
            return True
    if not ran and invalid is not None:
        raise EcmaRegexError(*invalid.args)
    if refused is not None:
        raise RegexBudgetError(*refused.args)
    return False


def _searcher(flags: str) -> Any:
    """A search of a pattern (already written in code units unless ``flags`` has ``u``) over a text with regress and
    ``flags``, within the ``u``-flag program's length limit (``regex.ecma_search_limit``)."""

    def search(source: str, subject: str) -> bool:
        import regress

        limit = ecma_search_limit(source)
        if len(subject) > limit:
            raise RegexBudgetError(
                f"pattern {source[:60]!r} may backtrack catastrophically on a {len(subject)}-unit string"
            )

        def compiled(key: str) -> object:
            try:
                return regress.Regex(source, flags) if flags else regress.Regex(source)
            except regress.RegressError as exc:
                return RegexBudgetError(f"pattern {source[:60]!r} is no JavaScript regex with flags {flags!r}: {exc}")

        program = _PROGRAMS.get(f"{flags}\0{source}", compiled)
        if isinstance(program, RegexBudgetError):
            raise RegexBudgetError(*program.args)
        assert isinstance(program, regress.Regex)
        return program.find(subject) is not None

    return search
