"""Regular expressions from strangers: Python ``re`` searches that cannot hang (ReDoS), and ECMAScript
regexes as Ajv runs them (``u`` flag, run by ``regress``), bounded the same way."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mcp_schema_audit.schema.regex_cost import (
    REGEX_GUARDED_BUDGET,
    REGEX_PROGRAM_LIMIT,
    PatternCache,
    RegexBudgetError,
    count_search,
    limit_for_shape,
    max_safe_length,
    nested_empty_loops,
    oversized,
    regex_package,
    regex_shape,
)

if TYPE_CHECKING:
    import regress
    from regex import Match as RegexMatch
    from regex import Pattern as RegexPattern

# ---- regular expressions from strangers ---------------------------------------------------------
#: Last-resort wall-clock guard of one ``regex``-package search (far above what the step budget allows on any
#: machine): when it fires the run stops (``WallClockGuard``, exit 4) instead of deciding anything by time.
REGEX_TIMEOUT_S = 10.0


__all__ = [
    "REGEX_TIMEOUT_S",
    "EcmaRegexError",
    "RegexBudgetError",
    "ecma_compile_error",
    "ecma_search",
    "ecma_search_limit",
    "pydantic_found",
    "python_found",
    "safe_search",
]


def _guarded(compiled: RegexPattern[str], pattern: str, text: str) -> RegexMatch[str] | None:
    """Search ``text`` with ``compiled`` (a ``regex``-package pattern) under the last-resort guard
    (``REGEX_TIMEOUT_S``)."""
    try:
        return compiled.search(text, timeout=REGEX_TIMEOUT_S)
    except TimeoutError:
        from mcp_schema_audit.errors import WallClockGuard

        raise WallClockGuard(
            f"a pattern search ran longer than {REGEX_TIMEOUT_S:g} s ({pattern[:60]!r} on a "
            f"{len(text)}-character string), beyond the step budget's estimate"
        ) from None


def safe_search(pattern: str, text: str) -> re.Match[str] | RegexMatch[str] | None:
    """``re.search(pattern, text)`` that cannot hang on a hostile pattern (ReDoS); a match object or ``None``.

    A static estimate of the backtracking (nested or alternated repeats, number of variable repeats)
    decides, deterministically: a text within ``REGEX_STEP_BUDGET`` steps is searched with ``re``; one
    within ``REGEX_GUARDED_BUDGET`` steps with the ``regex`` package (under the last-resort guard
    ``REGEX_TIMEOUT_S``, which stops the run with ``WallClockGuard`` if it ever fires); a longer one is
    refused. Raises ``re.error`` for an invalid pattern (as ``re`` would) and ``RegexBudgetError`` (a
    ``ValueError``) when the search is refused: callers treat that as "undecided", never as a match or a
    mismatch.
    """
    count_search()
    limit = max_safe_length(pattern)  # RegexBudgetError when ``oversized``: never parsed
    if len(text) <= min(limit, 16):
        return _python_program(pattern).search(text)
    if len(text) <= max_safe_length(pattern, REGEX_GUARDED_BUDGET):
        compiled = regex_package(pattern)  # None: too big to unroll, or refused by regex: the estimate decides
        if compiled is not None:
            return _guarded(compiled, pattern, text)
    if len(text) > limit:
        raise RegexBudgetError(
            f"pattern {pattern[:60]!r} may backtrack catastrophically on a {len(text)}-character string"
        )
    return _python_program(pattern).search(text)


#: ``re.compile`` per pattern text, once a run (``re``'s own cache holds 512: 5,000 ``patternProperties`` searched
#: for each declared key recompiled every time, 750,000 compiles)
_PYTHON_CACHE: PatternCache[re.Pattern[str]] = PatternCache()


def _python_program(pattern: str) -> re.Pattern[str]:
    return _PYTHON_CACHE.get(pattern, re.compile)


#: Code point ranges of the ECMAScript class escapes (ECMA-262 CharacterClassEscape, no ``i`` flag).
_ES_DIGIT = ((0x30, 0x39),)


_ES_WORD = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))


_ES_SPACE = (
    (0x09, 0x0D),
    (0x20, 0x20),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
    (0xFEFF, 0xFEFF),
)


_ES_LINE_TERMINATORS = ((0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029))


_ES_CHAR_ESCAPES = {"t": 0x09, "n": 0x0A, "v": 0x0B, "f": 0x0C, "r": 0x0D}


_SURROGATES = re.compile("[\ud800-\udfff]")


class EcmaRegexError(ValueError):
    """A pattern is not a valid ECMAScript regex with the ``u`` flag: Ajv cannot compile the schema."""


def _es_ranges(ranges: Iterable[tuple[int, int]]) -> str:
    return "".join(f"\\U{lo:08x}" if lo == hi else f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in ranges)


_ES_ANY = f"[{_es_ranges([(0, 0x10FFFF)])}]"


_ES_DOT = f"[^{_es_ranges(_ES_LINE_TERMINATORS)}]"


_ES_W = _es_ranges(_ES_WORD)


_ES_WORD_BOUNDARY = f"(?:(?<=[{_ES_W}])(?![{_ES_W}])|(?<![{_ES_W}])(?=[{_ES_W}]))"


_ES_NOT_WORD_BOUNDARY = f"(?:(?<=[{_ES_W}])(?=[{_ES_W}])|(?<![{_ES_W}])(?![{_ES_W}]))"


_ES_QUANTIFIER_AFTER = re.compile(r"[*+?]|\{[0-9]+(?:,[0-9]*)?\}")


def _v8_syntax_error(pattern: str) -> str | None:
    """What V8 (Node 20/22) rejects although the ES2025 grammar regress follows accepts, or None.

    Modifier groups (``(?i:…)``) and a capture group name used twice (even in different
    alternatives) are SyntaxErrors before V8 12.5; a quantifier after ``\\b``/``\\B`` is always one
    ("Nothing to repeat") but regress takes it. Checked with Node 20.20 ``new RegExp(p, "u")``.
    """
    names: set[str] = set()
    i, n, in_class = 0, len(pattern), False
    while i < n:
        c = pattern[i]
        if c == "\\":
            if not in_class and pattern[i + 1 : i + 2] in ("b", "B") and _ES_QUANTIFIER_AFTER.match(pattern, i + 2):
                return "Nothing to repeat"
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "(" and pattern.startswith("?", i + 1):
            if pattern.startswith("(?<", i) and not pattern.startswith(("(?<=", "(?<!"), i):
                end = pattern.find(">", i)
                name = pattern[i + 3 : end] if end > 0 else ""
                if name in names:
                    return "Duplicate capture group name"
                names.add(name)
            elif pattern[i + 2 : i + 3] not in (":", "=", "!", "<"):
                return "Invalid group"
        i += 1
    return None


def _es_escape(p: str, i: int, in_class: bool) -> tuple[str, Any, int]:
    """Read the escape at ``p[i] == "\\\\"`` of a pattern regress accepted with ``u``.

    Returns ``(kind, value, next_index)``: ``char`` (a code point), ``set`` (``(ranges, negated)``),
    ``assert`` (``"b"``/``"B"``) or ``opaque`` (a backreference or ``\\p{…}``: no exact translation).
    """
    c = p[i + 1]
    j = i + 2
    if c in "dDwWsS":
        return "set", ({"d": _ES_DIGIT, "w": _ES_WORD, "s": _ES_SPACE}[c.lower()], c.isupper()), j
    if c in "bB":
        return ("char", 0x08, j) if in_class and c == "b" else ("assert", c, j)
    if c in "pP":
        return "opaque", None, p.index("}", j) + 1
    if c == "k":
        return "opaque", None, p.index(">", j) + 1
    if c.isdigit():
        if c == "0" and not p[j : j + 1].isdigit():
            return "char", 0, j
        while p[j : j + 1].isdigit():
            j += 1
        return "opaque", None, j
    if c in _ES_CHAR_ESCAPES:
        return "char", _ES_CHAR_ESCAPES[c], j
    if c == "c":
        return "char", ord(p[j]) % 32, j + 1
    if c == "x":
        return "char", int(p[j : j + 2], 16), j + 2
    if c == "u":
        if p[j] == "{":
            end = p.index("}", j)
            return "char", int(p[j + 1 : end], 16), end + 1
        cp = int(p[j : j + 4], 16)
        j += 4
        if (
            0xD800 <= cp <= 0xDBFF
            and p.startswith("\\u", j)
            and all(ch in "0123456789abcdefABCDEF" for ch in p[j + 2 : j + 6])
            and len(p) >= j + 6
        ):
            low = int(p[j + 2 : j + 6], 16)
            if 0xDC00 <= low <= 0xDFFF:  # with u, an escaped surrogate pair is one code point
                return "char", 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00), j + 6
        return "char", cp, j
    return "char", ord(c), j  # identity escape: a syntax character, "/" or (in a class) "-"


def _es_class(p: str, i: int) -> tuple[str | None, int]:
    """Translate the class at ``p[i] == "["``: ``(regex-package syntax or None, next_index)``."""
    j = i + 1
    negated = p[j] == "^"
    j += negated
    ranges: list[tuple[int, int]] = []
    negated_sets: list[Any] = []
    exact = True

    def atom(k: int) -> tuple[str, Any, int]:
        return _es_escape(p, k, True) if p[k] == "\\" else ("char", ord(p[k]), k + 1)

    while p[j] != "]":
        kind, value, j = atom(j)
        if kind == "char" and p[j] == "-" and p[j + 1] != "]":
            kind2, value2, j2 = atom(j + 1)
            if kind2 == "char":
                ranges.append((value, value2))
                j = j2
                continue
        if kind == "char":
            ranges.append((value, value))
        elif kind == "set":
            (negated_sets.append(value[0]) if value[1] else ranges.extend(value[0]))
        else:
            exact = False
    if not exact or any(lo <= 0xDFFF and hi >= 0xD800 for lo, hi in ranges):
        return None, j + 1
    alternatives = ([f"[{_es_ranges(ranges)}]"] if ranges else []) + [f"[^{_es_ranges(s)}]" for s in negated_sets]
    if not alternatives:
        return (_ES_ANY if negated else "(?!)"), j + 1
    union = alternatives[0] if len(alternatives) == 1 else "(?:" + "|".join(alternatives) + ")"
    if negated:
        union = f"[^{_es_ranges(ranges)}]" if not negated_sets else f"(?:(?!{union}){_ES_ANY})"
    return union, j + 1


def _clamp_quantifier(q: str) -> str:
    """``q`` with counts Python ``re`` accepts, variable stays variable (the skeleton is measured, never run)."""
    if not q.startswith("{"):
        return q
    lo, comma, hi = q[1:-1].partition(",")
    lo_n = min(int(lo), 65_534)
    if not comma:
        return f"{{{lo_n}}}"
    if hi == "":
        return f"{{{lo_n},}}"
    hi_n = max(min(int(hi), 65_535), lo_n + 1) if int(hi) > int(lo) else lo_n
    return f"{{{lo_n},{hi_n}}}"


def _es_scan(p: str) -> tuple[str, str | None]:
    """``(skeleton, translation)`` of a pattern regress accepted with ``u``.

    The skeleton is a Python ``re`` pattern with the same groups, alternations and quantifiers (every
    atom ``a``, lookbehinds as lookaheads) for ``regex_shape``; the translation is an equivalent
    ``regex``-package pattern, or None when a construct has no exact rendering.
    """
    skel: list[str] = []
    out: list[str] = []
    exact = True
    i, n = 0, len(p)
    while i < n:
        c = p[i]
        if c == "\\":
            kind, value, i = _es_escape(p, i, False)
            if kind == "assert":
                skel.append("\\" + value)
                out.append(_ES_WORD_BOUNDARY if value == "b" else _ES_NOT_WORD_BOUNDARY)
                continue
            skel.append("a")
            if kind == "set":
                out.append(("[^%s]" if value[1] else "[%s]") % _es_ranges(value[0]))
            elif kind == "char" and not 0xD800 <= value <= 0xDFFF:
                out.append(_es_ranges([(value, value)]))
            else:
                exact = False
        elif c == "[":
            translated, i = _es_class(p, i)
            skel.append("a")
            if translated is None:
                exact = False
            else:
                out.append(translated)
        elif c == "(":
            for prefix, shape in (("(?:", "(?:"), ("(?=", "(?="), ("(?!", "(?!"), ("(?<=", "(?="), ("(?<!", "(?!")):
                if p.startswith(prefix, i):
                    skel.append(shape)
                    out.append(prefix)
                    i += len(prefix)
                    break
            else:
                skel.append("(")
                out.append("(")
                i = p.index(">", i) + 1 if p.startswith("(?<", i) else i + 1
        elif c in "*+?{":
            end = p.index("}", i) + 1 if c == "{" else i + 1
            lazy = "?" if p[end : end + 1] == "?" else ""
            skel.append(_clamp_quantifier(p[i:end]) + lazy)
            out.append(p[i:end] + lazy)
            i = end + len(lazy)
        else:
            if c in "|)^$":
                skel.append(c)
                out.append({"^": r"\A", "$": r"\Z"}.get(c, c))
            else:
                skel.append("a")
                out.append(_ES_DOT if c == "." else _es_ranges([(ord(c), ord(c))]))
            i += 1
    return "".join(skel), ("".join(out) if exact else None)


@dataclass
class _EcmaProgram:
    regex: regress.Regex
    limit: float  # longest text regress may search (static estimate, ``REGEX_STEP_BUDGET``)
    translation: str | None  # the exact regex-package translation, when it may be unrolled, or None
    size: int = 0  # its unrolled program
    fallback_limit: float = 0  # longest text the translation may search (``REGEX_GUARDED_BUDGET``)
    _fallback: RegexPattern[str] | None = None
    _compiled: bool = False

    def fallback(self) -> RegexPattern[str] | None:
        """The translation compiled by the ``regex`` package (searched under the guard), the first time a text
        longer than ``limit`` asks for it, or None."""
        if not self._compiled:
            self._compiled = True
            self._fallback = regex_package(self.translation, size=self.size) if self.translation else None
        return self._fallback


#: ``_compile_ecma`` per pattern text, once a run: the program, or the exception to raise again (a copy each time)
_ECMA_CACHE: PatternCache[_EcmaProgram | Exception] = PatternCache()


def _ecma_program(pattern: object) -> _EcmaProgram:
    """The compiled ``pattern`` (``u`` flag); raises ``EcmaRegexError``, or ``RegexBudgetError`` for a
    pattern regress cannot take (a lone surrogate, ``oversized``)."""
    cached = _ECMA_CACHE.get(pattern, _compile_ecma) if isinstance(pattern, str) else _compile_ecma(pattern)
    if isinstance(cached, Exception):
        raise type(cached)(*cached.args)
    return cached


def _compile_ecma(pattern: object) -> _EcmaProgram | Exception:
    import regress

    if not isinstance(pattern, str):
        return EcmaRegexError(f"pattern must be a string, not {type(pattern).__name__}")
    why = oversized(pattern)  # before regress (a native stack overflow on 100,001 alternatives) or re see it
    if why is not None:
        return RegexBudgetError(why)
    if _SURROGATES.search(pattern):
        return RegexBudgetError(f"pattern {pattern[:60]!r} holds a lone surrogate, which regress cannot run")
    try:
        compiled = regress.Regex(pattern, "u")
    except regress.RegressError as exc:
        return EcmaRegexError(f"Invalid regular expression: /{pattern[:200]}/u: {exc}")
    v8 = _v8_syntax_error(pattern)
    if v8 is not None:
        return EcmaRegexError(f"Invalid regular expression: /{pattern[:200]}/u: {v8}")
    try:
        skeleton, translation = _es_scan(pattern)
    except (ValueError, IndexError):  # pragma: no cover - a construct the scanner does not know
        skeleton, translation = None, None
    shape = None
    try:
        shape = regex_shape(skeleton) if skeleton is not None else None
        # regress never gets a pattern with nested empty loops (it runs out of memory): the translation decides
        empty_loops = skeleton is None or nested_empty_loops(skeleton)
        limit = limit_for_shape(*shape) if shape is not None and not empty_loops else -1
        fallback_limit = limit_for_shape(*shape, budget=REGEX_GUARDED_BUDGET) if shape is not None else 0
    except (re.error, RecursionError, OverflowError, MemoryError, ValueError, TypeError):
        limit = fallback_limit = 0
    # the translation has the skeleton's counts (clamped past 65,534, far above REGEX_PROGRAM_LIMIT): too big a
    # program to unroll is no fallback
    fits = shape is not None and shape[4] <= REGEX_PROGRAM_LIMIT
    return _EcmaProgram(
        compiled, limit, translation if fits else None, shape[4] if fits and shape else 0, fallback_limit
    )


def ecma_compile_error(pattern: object, unicode: bool = True) -> str | None:
    """Why ``new RegExp(pattern, unicode ? "u" : "")`` throws in Node 20/22, or None when it compiles.

    ``unicode=True`` is how Ajv compiles ``pattern``/``patternProperties``; ``unicode=False`` is how
    ajv-formats checks ``format: "regex"``. A pattern holding a lone surrogate cannot be checked
    (regress takes UTF-8) and gives None, as does one over the size limits (``oversized``: never compiled).
    """
    if unicode:
        try:
            _ecma_program(pattern)
        except EcmaRegexError as exc:
            return str(exc)
        except RegexBudgetError:
            return None
        return None
    import regress

    if not isinstance(pattern, str):
        return f"pattern must be a string, not {type(pattern).__name__}"
    if _SURROGATES.search(pattern) or oversized(pattern) is not None:
        return None
    try:
        regress.Regex(pattern)
    except regress.RegressError as exc:
        return f"Invalid regular expression: /{pattern[:200]}/: {exc}"
    v8 = _v8_syntax_error(pattern)
    return None if v8 is None else f"Invalid regular expression: /{pattern[:200]}/: {v8}"


def ecma_search_limit(pattern: str) -> float:
    """The longest text ``ecma_search`` lets regress search for ``pattern`` (its static estimate); raises as
    ``ecma_search`` does for a pattern Ajv cannot compile."""
    return _ecma_program(pattern).limit


def ecma_search(pattern: str, text: str) -> bool:
    """``new RegExp(pattern, "u").test(text)``, as Ajv runs ``pattern``, that cannot hang (ReDoS).

    regress decides when the static estimate says the search is cheap (``len(text)`` within the
    pattern's ``REGEX_STEP_BUDGET`` limit); a longer text within the ``REGEX_GUARDED_BUDGET`` limit is
    searched with the exact ``regex``-package translation (under the last-resort guard); a longer one is
    refused. The decision counts work, never seconds. Raises ``EcmaRegexError`` (a ``ValueError``) for a pattern
    Ajv cannot compile, and ``RegexBudgetError`` when the search is refused or stopped (too costly, no exact
    translation, a lone surrogate in the pattern or text): callers treat that as undecided.
    """
    count_search()
    program = _ecma_program(pattern)
    if _SURROGATES.search(text):
        raise RegexBudgetError(f"the string holds a lone surrogate, which regress cannot search for {pattern[:60]!r}")
    if len(text) <= program.limit:
        return program.regex.find(text) is not None
    fallback = program.fallback() if len(text) <= program.fallback_limit else None
    if fallback is not None:
        return _guarded(fallback, pattern, text) is not None
    raise RegexBudgetError(f"pattern {pattern[:60]!r} may backtrack catastrophically on a {len(text)}-character string")


def python_found(pattern: str, text: str) -> bool:
    """Does ``pattern`` match somewhere in ``text`` (``safe_search``: Python ``re`` behind the ReDoS guard)?"""
    return safe_search(pattern, text) is not None


def _pydantic_program(pattern: str) -> Any:
    """pydantic-core's validator of the strings ``pattern`` matches, built with its default engine (Rust regex,
    bounded by its own 10 MB program limit), or None where that engine refuses the pattern (a lookaround, a
    backreference, a program past the limit: a model holding it has ``regex_engine='python-re'``)."""
    from pydantic_core import SchemaError, SchemaValidator, core_schema

    if oversized(pattern) is not None:
        return None
    try:
        return SchemaValidator(core_schema.str_schema(pattern=pattern))
    except SchemaError:
        return None


#: ``_pydantic_program`` per pattern text, once a run
_PYDANTIC_CACHE: PatternCache[Any] = PatternCache()


def pydantic_found(pattern: str, text: str) -> bool:
    """Does a pydantic server's ``Field(pattern=...)`` take ``text``? Searched by pydantic-core itself (Rust regex:
    linear time, ``$`` only at the end, never before a final newline); where its Rust engine refuses the
    pattern, by Python ``re`` (``python_found``, pydantic's ``python-re`` engine). Raises as ``python_found``
    does for a pattern neither engine takes."""
    count_search()
    program = _PYDANTIC_CACHE.get(pattern, _pydantic_program) if isinstance(pattern, str) else None
    if program is None or _SURROGATES.search(text):
        return python_found(pattern, text)
    return bool(program.isinstance_python(text))
