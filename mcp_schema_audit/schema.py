"""Schema model: dialect detection, local ``$ref`` resolution with no network, and host-profile validators.

A ``SchemaDoc`` wraps one tool schema (inputSchema or outputSchema) as a document with a
``referencing.Registry`` that holds only that document: remote references (``http://…``,
``https://…``, ``file://…``) are never retrieved — resolving one raises ``RefError``.

Host profiles (DESIGN.md §1) are emulated with python ``jsonschema`` validator classes extended
(``jsonschema.validators.extend``) per profile:

- ``python-sdk``: validator chosen by ``$schema`` (default 2020-12), formats not checked, ``pattern``
  searched with Python ``re`` semantics (what ``jsonschema`` does), ``nullable`` ignored;
- ``ts-sdk-v1``: Ajv's draft-07 class for every schema (2020-12-only keywords ignored), formats checked;
- ``ts-sdk-v2``: Ajv2020/2019/draft-07 chosen by ``$schema``, formats checked.

Both TS profiles follow Ajv 8 (``strict:false``, ``allErrors:true``, ajv-formats) where jsonschema
differs: ``pattern``/``patternProperties`` are ECMAScript regexes compiled with the ``u`` flag
(``ecma_search``, run by the ``regress`` package), OpenAPI ``nullable`` is honoured, and what Ajv
refuses to compile (an invalid regex, ``nullable`` without ``type``, a keyword value of the wrong
type, …) makes the whole schema uncompilable for that profile (``SchemaCompileError``).

Every regex search, in every profile and keyword (``pattern``, ``patternProperties``,
``additionalProperties``, ``unevaluatedProperties``), goes through a guarded search that cannot hang
on a hostile pattern (``safe_search`` / ``ecma_search``).
"""

from __future__ import annotations

import functools
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

DIALECTS = {
    "https://json-schema.org/draft/2020-12/schema": "2020-12",
    "https://json-schema.org/draft/2019-09/schema": "2019-09",
    "http://json-schema.org/draft-07/schema": "draft-07",
    "http://json-schema.org/draft-06/schema": "draft-06",
    "http://json-schema.org/draft-04/schema": "draft-04",
}
DEFAULT_DIALECT = "2020-12"
HOST_PROFILES = ("python-sdk", "ts-sdk-v1", "ts-sdk-v2")
#: Keywords only 2020-12 (or 2019-09) validators enforce; ts-sdk-v1 (draft-07 Ajv) ignores them.
MODERN_ONLY_KEYWORDS = ("prefixItems", "unevaluatedProperties", "unevaluatedItems", "$dynamicRef", "dependentSchemas",
                        "dependentRequired", "minContains", "maxContains")


class RefError(Exception):
    """A ``$ref`` cannot be resolved locally (missing pointer, remote URI, cycle of bare refs)."""


# ---- regular expressions from strangers ---------------------------------------------------------
#: Seconds one ``pattern`` search may take when the ``regex`` package (which has timeouts) is installed.
REGEX_TIMEOUT_S = 0.05
#: Without ``regex``: backtracking steps a search is allowed by the static estimate (see ``safe_search``).
REGEX_STEP_BUDGET = 200_000


class RegexBudgetError(ValueError):
    """A ``pattern`` search was refused or stopped: it could backtrack catastrophically (ReDoS) on this
    string, or (``ecma_search``) the pattern or string holds a lone surrogate regress cannot take."""


@functools.lru_cache(maxsize=1024)
def _regex_shape(pattern: str) -> tuple[int, int, int]:
    """``(nesting, alternatives, variable_repeats)`` of ``pattern``; raises ``re.error`` when invalid.

    ``nesting`` is the deepest nesting of variable repeats (``(a+)+`` → 2), ``alternatives`` the
    largest alternation inside a repeat (``(a|ab)+`` → 2), ``variable_repeats`` how many repeats
    have a variable count (times the count of fixed repeats around them: ``(.*a){12}`` → 12). A
    search costs about ``max(2, alternatives) ** len(text)`` steps when
    ``nesting > 1``, and ``len(text) ** (variable_repeats + 1)`` otherwise.
    """
    re.compile(pattern)  # the error a host would raise, first
    try:
        from re import _constants as c, _parser as parser  # type: ignore[attr-defined]  # 3.11+
    except ImportError:  # pragma: no cover - 3.10
        import sre_constants as c  # type: ignore[no-redef]
        import sre_parse as parser  # type: ignore[no-redef]
    repeats = {c.MAX_REPEAT, c.MIN_REPEAT} | ({c.POSSESSIVE_REPEAT} if hasattr(c, "POSSESSIVE_REPEAT") else set())
    count = 0

    def walk(items: Any, in_repeat: bool, mult: int = 1) -> tuple[int, int]:
        nonlocal count
        depth, alts = 0, 1
        for op, av in items:
            if op in repeats:
                lo, hi, body = av
                variable = lo != hi
                inner = mult * hi if not variable else mult
                d, a = walk(body, in_repeat or variable or hi > 1, min(inner, 1000))
                # a fixed count over alternatives backtracks like a variable repeat:
                # ``(?:a|a){40}`` tries 2**40 choices on a miss
                ambiguous = not variable and hi > 1 and a > 1
                count += (variable or ambiguous) * mult
                depth, alts = max(depth, d + (1 if variable or ambiguous or hi > 16 else 0)), max(alts, a)
            elif op == c.BRANCH:
                for sub in av[1]:
                    d, a = walk(sub, in_repeat, mult)
                    depth, alts = max(depth, d), max(alts, a)
                if in_repeat:
                    alts = max(alts, len(av[1]))
            elif op in (c.SUBPATTERN, c.ASSERT, c.ASSERT_NOT) or op == getattr(c, "ATOMIC_GROUP", None):
                d, a = walk(av if op == getattr(c, "ATOMIC_GROUP", None) else av[-1], in_repeat, mult)
                depth, alts = max(depth, d), max(alts, a)
            elif op == c.GROUPREF_EXISTS:
                for sub in av[1:]:
                    if sub is not None:
                        d, a = walk(sub, in_repeat, mult)
                        depth, alts = max(depth, d), max(alts, a)
        return depth, alts

    depth, alts = walk(parser.parse(pattern), False)
    return depth, alts, count


def _max_safe_length(pattern: str) -> float:
    """Longest text a Python ``re`` search of ``pattern`` may take within ``REGEX_STEP_BUDGET`` steps."""
    return _limit_for_shape(*_regex_shape(pattern))


def _limit_for_shape(depth: int, alts: int, variable: int) -> float:
    """Longest text searched within ``REGEX_STEP_BUDGET`` steps by a pattern of this ``_regex_shape``."""
    if depth > 1 or (alts > 1 and variable):
        base = max(2, alts) ** max(1, depth - 1)
        return max(1, int(math.log(REGEX_STEP_BUDGET) / math.log(base)))
    if variable:
        return int(REGEX_STEP_BUDGET ** (1 / (variable + 1))) * 4
    return math.inf


def safe_search(pattern: str, text: str) -> Any:
    """``re.search(pattern, text)`` that cannot hang on a hostile pattern (ReDoS); a match object or ``None``.

    With the ``regex`` package installed the search runs under a ``REGEX_TIMEOUT_S`` timeout;
    without it, a static estimate of the backtracking (nested or alternated repeats, number of
    variable repeats) bounds the string length searched. Raises ``re.error`` for an invalid
    pattern (as ``re`` would) and ``RegexBudgetError`` (a ``ValueError``) when the search is
    refused or stopped: callers treat that as "undecided", never as a match or a mismatch.
    """
    limit = _max_safe_length(pattern)
    if len(text) <= min(limit, 16):
        return re.search(pattern, text)
    try:
        import regex  # type: ignore[import-not-found]
    except ImportError:
        regex = None
    if regex is not None:
        try:
            found = regex.search(pattern, text, timeout=REGEX_TIMEOUT_S)
        except TimeoutError:
            raise RegexBudgetError(f"pattern {pattern[:60]!r} takes too long on a {len(text)}-character string") from None
        except regex.error:
            found = None  # accepted by re, not by regex: fall through to the static estimate
        else:
            return found
    if len(text) > limit:
        raise RegexBudgetError(
            f"pattern {pattern[:60]!r} may backtrack catastrophically on a {len(text)}-character string")
    return re.search(pattern, text)


# ---- ECMAScript regexes (what Ajv runs for the TS profiles) ---------------------------------------
#
# Ajv 8 compiles ``pattern`` and ``patternProperties`` keys with ``new RegExp(source, "u")``
# (lib/vocabularies/code.ts ``usePattern``; the option ``unicodeRegExp`` defaults to true in
# lib/core.ts) and tests them with ``RegExp.prototype.test`` (search semantics). Under ``u``, ``\d``,
# ``\w`` and ``\b`` are ASCII, ``\s`` is the ECMAScript WhiteSpace + LineTerminator set, ``.`` stops at
# line terminators, ``$`` is the end of the input only, ``\p{…}`` is a Unicode property, and
# Python-only syntax (``(?P<n>…)``, ``\Z``, inline ``(?i)``) is a SyntaxError. The ``regress`` package
# (the Rust ECMAScript engine) implements that syntax and semantics; it is a backtracking engine with
# no step limit or timeout (and it holds the GIL), so ``ecma_search`` bounds its work itself:
#
# 1. a static estimate of the backtracking cost, ``_regex_shape`` of a structural skeleton of the
#    pattern (every atom → ``a``, groups, alternations and quantifiers kept), gives the longest text
#    regress may search within ``REGEX_STEP_BUDGET`` steps (``_limit_for_shape``);
# 2. a longer text is searched with an exact translation of the pattern to the ``regex`` package
#    (ASCII classes spelled out, ``$`` → ``\Z``, …) under ``REGEX_TIMEOUT_S``; patterns with a
#    construct the translation cannot render exactly (backreferences, ``\p{…}``, lone surrogates)
#    have none;
# 3. otherwise the search is refused with ``RegexBudgetError`` (undecided, never a verdict).

#: Code point ranges of the ECMAScript class escapes (ECMA-262 CharacterClassEscape, no ``i`` flag).
_ES_DIGIT = ((0x30, 0x39),)
_ES_WORD = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
_ES_SPACE = ((0x09, 0x0D), (0x20, 0x20), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A), (0x2028, 0x2029),
             (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000), (0xFEFF, 0xFEFF))
_ES_LINE_TERMINATORS = ((0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029))
_ES_CHAR_ESCAPES = {"t": 0x09, "n": 0x0A, "v": 0x0B, "f": 0x0C, "r": 0x0D}
_SURROGATES = re.compile("[\ud800-\udfff]")


class EcmaRegexError(ValueError):
    """A pattern is not a valid ECMAScript regex with the ``u`` flag: Ajv cannot compile the schema."""


def _es_ranges(ranges: Any) -> str:
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
            if not in_class and pattern[i + 1:i + 2] in ("b", "B") and _ES_QUANTIFIER_AFTER.match(pattern, i + 2):
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
                name = pattern[i + 3:end] if end > 0 else ""
                if name in names:
                    return "Duplicate capture group name"
                names.add(name)
            elif pattern[i + 2:i + 3] not in (":", "=", "!", "<"):
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
        if c == "0" and not p[j:j + 1].isdigit():
            return "char", 0, j
        while p[j:j + 1].isdigit():
            j += 1
        return "opaque", None, j
    if c in _ES_CHAR_ESCAPES:
        return "char", _ES_CHAR_ESCAPES[c], j
    if c == "c":
        return "char", ord(p[j]) % 32, j + 1
    if c == "x":
        return "char", int(p[j:j + 2], 16), j + 2
    if c == "u":
        if p[j] == "{":
            end = p.index("}", j)
            return "char", int(p[j + 1:end], 16), end + 1
        cp = int(p[j:j + 4], 16)
        j += 4
        if 0xD800 <= cp <= 0xDBFF and p.startswith("\\u", j) and all(
                ch in "0123456789abcdefABCDEF" for ch in p[j + 2:j + 6]) and len(p) >= j + 6:
            low = int(p[j + 2:j + 6], 16)
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
        return "{%d}" % lo_n
    if hi == "":
        return "{%d,}" % lo_n
    hi_n = max(min(int(hi), 65_535), lo_n + 1) if int(hi) > int(lo) else lo_n
    return "{%d,%d}" % (lo_n, hi_n)


def _es_scan(p: str) -> tuple[str, str | None]:
    """``(skeleton, translation)`` of a pattern regress accepted with ``u``.

    The skeleton is a Python ``re`` pattern with the same groups, alternations and quantifiers (every
    atom ``a``, lookbehinds as lookaheads) for ``_regex_shape``; the translation is an equivalent
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
            lazy = "?" if p[end:end + 1] == "?" else ""
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


@dataclass(frozen=True)
class _EcmaProgram:
    regex: Any  # regress.Regex
    limit: float  # longest text regress may search (static estimate)
    fallback: Any  # compiled regex-package translation (searched under a timeout), or None


_ECMA_CACHE: dict[str, Any] = {}


def _ecma_program(pattern: str) -> _EcmaProgram:
    """The compiled ``pattern`` (``u`` flag); raises ``EcmaRegexError``, or ``RegexBudgetError`` for a
    pattern regress cannot take (a lone surrogate)."""
    cached = _ECMA_CACHE.get(pattern) if isinstance(pattern, str) else None
    if cached is None:
        cached = _compile_ecma(pattern)
        if isinstance(pattern, str):
            if len(_ECMA_CACHE) > 4096:
                _ECMA_CACHE.clear()
            _ECMA_CACHE[pattern] = cached
    if isinstance(cached, Exception):
        raise type(cached)(*cached.args)
    return cached


def _compile_ecma(pattern: str) -> _EcmaProgram | Exception:
    import regress

    if not isinstance(pattern, str):
        return EcmaRegexError(f"pattern must be a string, not {type(pattern).__name__}")
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
    try:
        limit = _limit_for_shape(*_regex_shape(skeleton)) if skeleton is not None else 0
    except (re.error, RecursionError, OverflowError, ValueError, TypeError):
        limit = 0
    fallback = None
    if translation is not None:
        try:
            import regex  # type: ignore[import-not-found]

            fallback = regex.compile(translation, regex.V0)
        except Exception:  # no regex package, or a translation it refuses (huge counts): no fallback
            fallback = None
    return _EcmaProgram(compiled, limit, fallback)


def ecma_compile_error(pattern: str, unicode: bool = True) -> str | None:
    """Why ``new RegExp(pattern, unicode ? "u" : "")`` throws in Node 20/22, or None when it compiles.

    ``unicode=True`` is how Ajv compiles ``pattern``/``patternProperties``; ``unicode=False`` is how
    ajv-formats checks ``format: "regex"``. A pattern holding a lone surrogate cannot be checked
    (regress takes UTF-8) and gives None.
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
    if _SURROGATES.search(pattern):
        return None
    try:
        regress.Regex(pattern)
    except regress.RegressError as exc:
        return f"Invalid regular expression: /{pattern[:200]}/: {exc}"
    v8 = _v8_syntax_error(pattern)
    return None if v8 is None else f"Invalid regular expression: /{pattern[:200]}/: {v8}"


def ecma_search(pattern: str, text: str) -> bool:
    """``new RegExp(pattern, "u").test(text)``, as Ajv runs ``pattern``, that cannot hang (ReDoS).

    regress decides when the static estimate says the search is cheap (``len(text)`` within the
    pattern's limit); a longer text is searched with the exact ``regex``-package translation under
    ``REGEX_TIMEOUT_S``. Raises ``EcmaRegexError`` (a ``ValueError``) for a pattern Ajv cannot
    compile, and ``RegexBudgetError`` when the search is refused or stopped (too costly, no exact
    translation, a lone surrogate in the pattern or text): callers treat that as undecided.
    """
    program = _ecma_program(pattern)
    if _SURROGATES.search(text):
        raise RegexBudgetError(f"the string holds a lone surrogate, which regress cannot search for {pattern[:60]!r}")
    if len(text) <= program.limit:
        return program.regex.find(text) is not None
    if program.fallback is not None:
        try:
            return program.fallback.search(text, timeout=REGEX_TIMEOUT_S) is not None
        except TimeoutError:
            raise RegexBudgetError(f"pattern {pattern[:60]!r} takes too long on a {len(text)}-character string") from None
    raise RegexBudgetError(f"pattern {pattern[:60]!r} may backtrack catastrophically on a {len(text)}-character "
                           "string (no timeout-guarded equivalent)")


def _python_found(pattern: str, text: str) -> bool:
    return safe_search(pattern, text) is not None


# ---- jsonschema keywords with guarded regexes ------------------------------------------------------
#
# jsonschema 4.26 calls ``re.search`` directly in ``pattern`` and ``patternProperties``
# (jsonschema/_keywords.py), in ``additionalProperties`` through ``_utils.find_additional_properties``
# and in ``unevaluatedProperties`` through ``_utils.find_evaluated_property_keys_by_schema`` (2020-12)
# or ``_legacy_keywords.find_evaluated_property_keys_by_schema`` (2019-09). ``_host_class`` replaces
# exactly those keywords, in every validator class used, with copies whose searches go through
# ``safe_search`` (python-sdk: Python ``re`` semantics, jsonschema's own behaviour kept, including
# its ``"|".join`` of the patternProperties keys) or ``ecma_search`` (TS profiles: Ajv's semantics).


def _ajv_always_valid(schema: Any, rules: frozenset[str]) -> bool:
    """Ajv ``alwaysValidSchema`` (lib/compile/util.ts): ``true``, or an object with no keyword of the class."""
    if isinstance(schema, bool):
        return schema
    return not isinstance(schema, dict) or not any(k in rules for k in schema)


def _extras_msg(extras: list[Any]) -> tuple[str, str]:
    return ", ".join(repr(extra) for extra in extras), ("was" if len(extras) == 1 else "were")


def _regex_keywords(found: Any, ajv_rules: frozenset[str] | None, dialect: str) -> dict[str, Any]:
    """Keyword functions for ``jsonschema.validators.extend`` whose regex searches use ``found(pattern, text)``.

    ``ajv_rules`` (the keywords of the Ajv class) selects Ajv's behaviour: every ``patternProperties``
    key is searched on its own (Ajv ``additionalProperties.ts``/``patternProperties.ts``) and nothing is
    searched for an always-valid subschema (Ajv compiles no code for it); ``None`` keeps jsonschema's.
    ``dialect`` ("2019-09", "2020-12", other) picks the ``unevaluatedProperties`` flavour.
    """
    from jsonschema.exceptions import ValidationError

    def matches_any(patterns: Any, key: str) -> bool:
        if ajv_rules is not None:
            return any(found(p, key) for p in patterns)
        joined = "|".join(patterns)  # jsonschema's _utils.find_additional_properties
        return bool(joined) and found(joined, key)

    def additional(instance: dict[str, Any], schema: dict[str, Any]) -> Any:
        properties = schema.get("properties", {})
        patterns = schema.get("patternProperties", {})
        for prop in instance:
            if prop not in properties and not (patterns and matches_any(patterns, prop)):
                yield prop

    def pattern(validator: Any, patrn: Any, instance: Any, schema: Any) -> Any:
        if validator.is_type(instance, "string") and not found(patrn, instance):
            yield ValidationError(f"{instance!r} does not match {patrn!r}")

    def pattern_properties(validator: Any, patternProperties: Any, instance: Any, schema: Any) -> Any:
        if not validator.is_type(instance, "object"):
            return
        for pat, subschema in patternProperties.items():
            if ajv_rules is not None and _ajv_always_valid(subschema, ajv_rules):
                continue
            for k, v in instance.items():
                if found(pat, k):
                    yield from validator.descend(v, subschema, path=k, schema_path=pat)

    def additional_properties(validator: Any, aP: Any, instance: Any, schema: Any) -> Any:
        if not validator.is_type(instance, "object"):
            return
        if ajv_rules is not None and _ajv_always_valid(aP, ajv_rules):
            return
        extras = set(additional(instance, schema))
        if validator.is_type(aP, "object"):
            for extra in extras:
                yield from validator.descend(instance[extra], aP, path=extra)
        elif not aP and extras:
            if "patternProperties" in schema:
                verb = "does" if len(extras) == 1 else "do"
                joined = ", ".join(repr(each) for each in sorted(extras))
                patterns = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
                yield ValidationError(f"{joined} {verb} not match any of the regexes: {patterns}")
            else:
                error = "Additional properties are not allowed (%s %s unexpected)"
                yield ValidationError(error % _extras_msg(sorted(extras, key=str)))

    def applied_keys(recurse: Any, validator: Any, instance: Any, schema: Any) -> list[Any]:
        # the part both versions share: patternProperties (through ``found``) and the in-place applicators
        keys: list[Any] = []
        if "patternProperties" in schema:
            for prop in instance:
                for pat in schema["patternProperties"]:
                    if found(pat, prop):
                        keys.append(prop)
        if "dependentSchemas" in schema:
            for prop, subschema in schema["dependentSchemas"].items():
                if prop in instance:
                    keys += recurse(validator, instance, subschema)
        for kw in ("allOf", "oneOf", "anyOf"):
            for subschema in schema.get(kw, []):
                if next(validator.descend(instance, subschema), None) is None:
                    keys += recurse(validator, instance, subschema)
        if "if" in schema:
            if validator.evolve(schema=schema["if"]).is_valid(instance):
                keys += recurse(validator, instance, schema["if"])
                if "then" in schema:
                    keys += recurse(validator, instance, schema["then"])
            elif "else" in schema:
                keys += recurse(validator, instance, schema["else"])
        return keys

    def evaluated_keys_2020(validator: Any, instance: Any, schema: Any) -> list[Any]:
        # jsonschema/_utils.py find_evaluated_property_keys_by_schema, searches through ``found``
        if validator.is_type(schema, "boolean"):
            return []
        keys: list[Any] = []
        for kw in ("$ref", "$dynamicRef"):
            ref = schema.get(kw)
            if ref is not None:
                resolved = validator._resolver.lookup(ref)
                keys.extend(evaluated_keys_2020(validator.evolve(schema=resolved.contents, _resolver=resolved.resolver),
                                                instance, resolved.contents))
        properties = schema.get("properties")
        if validator.is_type(properties, "object"):
            keys += properties.keys() & instance.keys()
        for kw in ("additionalProperties", "unevaluatedProperties"):
            if (subschema := schema.get(kw)) is None:
                continue
            keys += (key for key, value in instance.items()
                     if next(validator.descend(value, subschema), None) is None)
        return keys + applied_keys(evaluated_keys_2020, validator, instance, schema)

    def evaluated_keys_2019(validator: Any, instance: Any, schema: Any) -> list[Any]:
        # jsonschema/_legacy_keywords.py find_evaluated_property_keys_by_schema, searches through ``found``
        from referencing.jsonschema import lookup_recursive_ref

        if validator.is_type(schema, "boolean"):
            return []
        keys: list[Any] = []
        resolved_refs = []
        if schema.get("$ref") is not None:
            resolved_refs.append(validator._resolver.lookup(schema["$ref"]))
        if "$recursiveRef" in schema:
            resolved_refs.append(lookup_recursive_ref(validator._resolver))
        for resolved in resolved_refs:
            keys.extend(evaluated_keys_2019(validator.evolve(schema=resolved.contents, _resolver=resolved.resolver),
                                            instance, resolved.contents))
        for kw in ("properties", "additionalProperties", "unevaluatedProperties"):
            if kw in schema:
                value = schema[kw]
                if validator.is_type(value, "boolean") and value:
                    keys += instance.keys()
                elif validator.is_type(value, "object"):
                    keys += [prop for prop in value if prop in instance]
        return keys + applied_keys(evaluated_keys_2019, validator, instance, schema)

    evaluated_keys = evaluated_keys_2019 if dialect == "2019-09" else evaluated_keys_2020

    def unevaluated_properties(validator: Any, uP: Any, instance: Any, schema: Any) -> Any:
        # jsonschema/_keywords.py unevaluatedProperties (the 2019-09 one differs only in its helper)
        if not validator.is_type(instance, "object"):
            return
        evaluated = evaluated_keys(validator, instance, schema)
        unevaluated = []
        for prop in instance:
            if prop not in evaluated:
                for _ in validator.descend(instance[prop], uP, path=prop, schema_path=prop):
                    unevaluated.append(prop)  # noqa: PERF401
        if unevaluated:
            if uP is False:
                error = "Unevaluated properties are not allowed (%s %s unexpected)"
                yield ValidationError(error % _extras_msg(sorted(unevaluated, key=str)))
            else:
                error = ("Unevaluated properties are not valid under the given schema "
                         "(%s %s unevaluated and invalid)")
                yield ValidationError(error % _extras_msg(unevaluated))

    out = {"pattern": pattern, "patternProperties": pattern_properties, "additionalProperties": additional_properties}
    if dialect in ("2019-09", "2020-12"):
        out["unevaluatedProperties"] = unevaluated_properties
    return out


def _ajv_type(base_type: Any) -> Any:
    """jsonschema's ``type`` plus Ajv's OpenAPI ``nullable``: ``nullable: true`` next to ``type`` adds
    ``"null"`` to the allowed types (Ajv lib/compile/validate/dataType.ts ``getSchemaTypes``; the
    misuses Ajv refuses to compile are found by ``_ajv_compile_problem``)."""

    def type_(validator: Any, types: Any, instance: Any, schema: Any) -> Any:
        if instance is None and isinstance(schema, dict) and schema.get("nullable") is True:
            return
        yield from base_type(validator, types, instance, schema)

    return type_


@functools.lru_cache(maxsize=None)
def _host_class(base: Any, ajv_kind: str | None, dialect: str) -> Any:
    """``base`` (a jsonschema validator class) extended for a host: guarded regex keywords, and for an
    Ajv class (``ajv_kind`` "draft-07", "2019-09" or "2020-12") ECMAScript regexes and ``nullable``.

    Built with ``jsonschema.validators.extend`` and no ``version``, so jsonschema's registry of
    meta-schema URIs (``validator_for``) is left alone.
    """
    from jsonschema import validators

    if ajv_kind is None:
        overrides = _regex_keywords(_python_found, None, dialect)
    else:
        overrides = _regex_keywords(ecma_search, _AJV_RULES[ajv_kind], ajv_kind)
        overrides["type"] = _ajv_type(base.VALIDATORS["type"])
        if "dependencies" not in base.VALIDATORS:
            # Ajv2019/Ajv2020 keep draft-07 ``dependencies`` (lib/vocabularies/applicator/index.ts); jsonschema's
            # 2019-09/2020-12 validators dropped it
            overrides["dependencies"] = validators.Draft7Validator.VALIDATORS["dependencies"]
        for kw in _JS_NUMBER_KEYWORDS:
            if kw in base.VALIDATORS:
                overrides[kw] = _as_js_numbers(overrides.get(kw, base.VALIDATORS[kw]))
    return validators.extend(base, overrides)


#: Keywords whose schema value and instance a TS host reads as JavaScript numbers (IEEE doubles).
_JS_NUMBER_KEYWORDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "const", "enum",
                       "uniqueItems")
_JS_SAFE = 2**53


def js_numbers(value: Any) -> Any:
    """``value`` as ``JSON.parse`` gives it to a TS host: integers beyond 2**53 become the nearest double
    (9007199254740993 → 9007199254740992.0), at any depth; everything else unchanged."""
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value) if abs(value) > _JS_SAFE else value
    if isinstance(value, list):
        return [js_numbers(x) for x in value]
    if isinstance(value, dict):
        return {k: js_numbers(x) for k, x in value.items()}
    return value


def _as_js_numbers(keyword: Any) -> Any:
    """A jsonschema keyword function that sees its schema value and the instance as JavaScript does."""
    def run(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
        return keyword(validator, js_numbers(value), js_numbers(instance), schema)
    return run


# ---- what Ajv refuses to compile ---------------------------------------------------------------------
#
# Ajv compiles the whole schema when the host builds the validator (TS SDK v1: inside listTools();
# v2: before the call) and throws on the first problem; the host then rejects every value. Only
# subschemas Ajv reaches are compiled: through the keywords of the class (an unknown keyword, an
# unreferenced ``$defs`` entry or, for the draft-07 class, ``prefixItems`` is never compiled), through
# local ``$ref``s, and only when they hold a keyword (``alwaysValidSchema``). Tables below were dumped
# from ajv 8.20.0 (``Object.keys(ajv.RULES.all)`` and each rule's ``definition.schemaType``).

_AJV_SCHEMA_TYPES_07: dict[str, tuple[str, ...]] = {
    "$comment": (), "$ref": ("string",), "additionalItems": ("boolean", "object"),
    "additionalProperties": ("boolean", "object"), "allOf": ("array",), "anyOf": ("array",), "const": (),
    "contains": ("object", "boolean"), "dependencies": ("object",), "else": ("object", "boolean"), "enum": ("array",),
    "exclusiveMaximum": ("number",), "exclusiveMinimum": ("number",), "format": ("string",),
    "formatExclusiveMaximum": ("string",), "formatExclusiveMinimum": ("string",), "formatMaximum": ("string",),
    "formatMinimum": ("string",), "id": (), "if": ("object", "boolean"), "items": ("object", "array", "boolean"),
    "maxItems": ("number",), "maxLength": ("number",), "maxProperties": ("number",), "maximum": ("number",),
    "minItems": ("number",), "minLength": ("number",), "minProperties": ("number",), "minimum": ("number",),
    "multipleOf": ("number",), "not": ("object", "boolean"), "nullable": ("boolean",), "oneOf": ("array",),
    "pattern": ("string",), "patternProperties": ("object",), "properties": ("object",),
    "propertyNames": ("object", "boolean"), "required": ("array",), "then": ("object", "boolean"),
    "type": ("string", "array"), "uniqueItems": ("boolean",),
}
_AJV_SCHEMA_TYPES_2019 = {
    **_AJV_SCHEMA_TYPES_07, "$dynamicAnchor": ("string",), "$dynamicRef": ("string",),
    "$recursiveAnchor": ("boolean",), "$recursiveRef": ("string",), "dependentRequired": ("object",),
    "dependentSchemas": ("object",), "maxContains": ("number",), "minContains": ("number",),
    "unevaluatedItems": ("boolean", "object"), "unevaluatedProperties": ("boolean", "object"),
}
_AJV_SCHEMA_TYPES = {
    "draft-07": _AJV_SCHEMA_TYPES_07,
    "2019-09": _AJV_SCHEMA_TYPES_2019,
    "2020-12": {**{k: v for k, v in _AJV_SCHEMA_TYPES_2019.items() if k != "additionalItems"},
                "items": ("object", "boolean"), "prefixItems": ("array",)},
}
_AJV_RULES = {kind: frozenset(table) for kind, table in _AJV_SCHEMA_TYPES.items()}
#: The Ajv class each profile compiles a schema of this dialect with (None: the host refuses the dialect).
_AJV_KIND = {
    "ts-sdk-v1": lambda dialect: "draft-07",
    "ts-sdk-v2": lambda dialect: {"2020-12": "2020-12", "2019-09": "2019-09", "draft-07": "draft-07",
                                  "draft-06": "draft-07"}.get(dialect),
}
_AJV_CLASS_NAME = {"draft-07": "Ajv (draft-07)", "2019-09": "Ajv2019", "2020-12": "Ajv2020"}
_JSON_TYPES = frozenset(("array", "boolean", "integer", "null", "number", "object", "string"))
#: Subschemas the compile check visits before it stops (bounded work on hostile input).
AJV_COMPILE_MAX_NODES = 100_000


class SchemaCompileError(ValueError):
    """A host profile cannot compile the schema (Ajv throws, or the dialect is refused): it rejects every value."""


#: What ``compile_problem`` (TS profiles) and ``inplace_cost`` found per schema text, for schemas met
#: again (``history`` against every cohort, ``--mode full``): insertion-ordered, the oldest dropped first.
_COMPILE_CACHE: dict[tuple[str, str], Any] = {}
_COST_CACHE: dict[str, float] = {}


class SchemaCostError(ValueError):
    """Validating against the schema could take exponential time (see ``inplace_cost``): not attempted."""


#: Subschemas one validation may evaluate at a single instance location (through ``allOf``/``anyOf``/
#: ``oneOf``/``not``/conditionals/``$ref``) before a schema is refused as too costly to validate.
INPLACE_BUDGET = 20_000
#: How many times a node holding ``unevaluatedProperties``/``unevaluatedItems`` makes a validator walk
#: its in-place subschemas: once to validate them, again (validating each branch anew) to collect
#: the evaluated keys (jsonschema ``find_evaluated_property_keys_by_schema``). A chain of such nodes
#: through ``allOf`` grows like ``UNEVALUATED_FACTOR ** levels`` (measured: Fibonacci, 105 s at 14
#: levels), so the estimate rounds the measured 1.6 up to keep a margin.
UNEVALUATED_FACTOR = 4
#: What ``inplace_cost`` returns for an in-place cycle (validation recurses without end).
INPLACE_CYCLE = math.inf
_INPLACE_KEYWORDS = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "$ref")
#: Keywords whose value is a map of subschemas a validation can reach (``$defs`` only through ``$ref``).
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "dependentSchemas", "dependencies"})
#: Keywords whose value is a subschema or a list of them.
_SCHEMA_KEYWORDS = frozenset({"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "items", "prefixItems",
                              "additionalItems", "unevaluatedItems", "contains", "additionalProperties",
                              "unevaluatedProperties", "propertyNames"})


def inplace_cost(doc: SchemaDoc) -> float:
    """The most subschemas a validator may evaluate at one instance location of ``doc``: an int capped
    at ``INPLACE_BUDGET + 1``, or ``INPLACE_CYCLE`` (``math.inf``) for an in-place cycle.

    Counts, from every subschema a validation can reach from the root (``$defs`` only through a
    ``$ref``), those reached without moving into the instance: ``allOf``/``anyOf``/``oneOf``
    members, ``not``, ``if``/``then``/``else``, ``dependentSchemas`` values and local ``$ref``
    targets. A shared target counts once per path, as a validator evaluates it: a "billion laughs"
    chain where each level is an ``anyOf`` of two ``$ref``s to the previous one costs
    ``2**levels``; a node with ``unevaluatedProperties``/``unevaluatedItems`` counts its in-place
    subschemas ``UNEVALUATED_FACTOR`` times. Keywords that move into the instance (``properties``,
    ``items`` …) are bounded by the instance and not counted.

    A cycle of in-place keywords (``{"not": {"$ref": "#"}}``, two ``$defs`` whose ``allOf`` name each
    other) makes validation recurse at one location without end: jsonschema dies with
    ``RecursionError``, Ajv with "Maximum call stack size exceeded"; JSON Schema Core 2020-12 §9.4.1
    (Guarding Against Infinite Recursion) leaves such schemas' behaviour undefined. It is reported as
    ``INPLACE_CYCLE``. Linear in the schema size (memoized per node).
    """
    memo: dict[int, float] = {}
    active: set[int] = set()
    targets: dict[str, Any] = {}
    cap = INPLACE_BUDGET + 1

    def target(ref: str) -> Any:
        if ref not in targets:
            try:
                targets[ref] = doc.lookup(ref)[0]
            except (RefError, ValueError, TypeError, LookupError):
                targets[ref] = None
        return targets[ref]

    def children(node: dict[str, Any]) -> list[Any]:
        out: list[Any] = []
        for kw in ("allOf", "anyOf", "oneOf"):
            if isinstance(node.get(kw), list):
                out += node[kw]
        for kw in ("not", "if", "then", "else"):
            if kw in node:
                out.append(node[kw])
        if isinstance(node.get("dependentSchemas"), dict):
            out += list(node["dependentSchemas"].values())
        ref = node.get("$ref")
        if isinstance(ref, str):
            out.append(target(ref))
        return out

    def cost(node: Any) -> float:
        if not isinstance(node, dict):
            return 1
        key = id(node)
        if key in memo:
            return memo[key]
        if key in active:
            return INPLACE_CYCLE
        active.add(key)
        factor = UNEVALUATED_FACTOR if ("unevaluatedProperties" in node or "unevaluatedItems" in node) else 1
        total: float = 1
        for child in children(node):
            total += factor * cost(child)
            if total > cap:
                break
        if total != INPLACE_CYCLE:
            total = min(total, cap)
        active.discard(key)
        memo[key] = total
        return total

    worst: float = 0
    stack: list[Any] = [doc.root]
    seen: set[int] = set()
    try:
        while stack:
            node = stack.pop()
            if isinstance(node, list):
                stack.extend(node)
                continue
            if not isinstance(node, dict) or id(node) in seen:
                continue
            seen.add(id(node))
            worst = max(worst, cost(node))
            if worst > INPLACE_BUDGET:
                return worst
            for k, value in node.items():
                if k in _SCHEMA_MAPS and isinstance(value, dict):
                    stack.extend(value.values())  # property names are not keywords: {"enum": {…}} is a schema
                elif k in _SCHEMA_KEYWORDS:
                    stack.append(value)
            if isinstance(node.get("$ref"), str):
                stack.append(target(node["$ref"]))
    except RecursionError:
        return cap
    return worst


def _ajv_value_ok(value: Any, types: tuple[str, ...]) -> bool:
    """Ajv ``validSchemaType`` (lib/compile/util.ts) for a JSON value."""
    if not types:
        return True
    for t in types:
        if (t == "array" and isinstance(value, list)) or (t == "object" and isinstance(value, dict)) or (
                t == "string" and isinstance(value, str)) or (t == "boolean" and isinstance(value, bool)) or (
                t == "number" and isinstance(value, (int, float)) and not isinstance(value, bool)):
            return True
    return False


def _ajv_node_problem(node: dict[str, Any], kind: str) -> tuple[list[Any], str] | None:
    """The first reason Ajv's class ``kind`` throws compiling this one schema object (not its subschemas)."""
    table = _AJV_SCHEMA_TYPES[kind]
    rules = _AJV_RULES[kind]
    # lib/compile/validate/dataType.ts getSchemaTypes / getJSONTypes
    t = node.get("type")
    types = t if isinstance(t, list) else ([t] if t not in (None, "", 0, False) else [])
    if not all(isinstance(x, str) and x in _JSON_TYPES for x in types):
        return ["type"], "type must be JSONType or JSONType[]: " + ",".join(
            json.dumps(x) if not isinstance(x, str) else x for x in types)
    if "null" in types:
        if node.get("nullable", None) is False:
            return ["nullable"], "type: null contradicts nullable: false"
    elif not types and "nullable" in node:
        return ["nullable"], '"nullable" cannot be used without "type"'
    # KeywordCxt constructor (lib/compile/validate/index.ts): "<keyword> value must be <schemaType>"
    for kw in node:
        if kw in rules and not _ajv_value_ok(node[kw], table[kw]):
            return [kw], f"{kw} value must be {json.dumps(list(table[kw]), separators=(',', ':'))}"
    if "id" in node:  # lib/vocabularies/core/id.ts
        return ["id"], 'NOT SUPPORTED: keyword "id", use "$id" for schema ID'
    if node.get("enum") == []:  # lib/vocabularies/validation/enum.ts
        return ["enum"], "enum must have non-empty array"
    if "pattern" in node:
        error = ecma_compile_error(node["pattern"])
        if error is not None:
            return ["pattern"], error
    pats = node.get("patternProperties")
    if isinstance(pats, dict) and _ajv_compiles_pattern_keys(node, kind, rules):
        for key in pats:
            if key != "__proto__":
                error = ecma_compile_error(key)
                if error is not None:
                    return ["patternProperties", key], error
    return None


def _ajv_compiles_pattern_keys(node: dict[str, Any], kind: str, rules: frozenset[str]) -> bool:
    """Does Ajv compile the ``patternProperties`` regexes of ``node``?

    patternProperties.ts skips them when every subschema is always valid and either the class does
    not track evaluated properties (draft-07) or ``it.props`` is already true (approximated as: an
    ``additionalProperties`` here or in an ``allOf`` member, which set it before this keyword runs);
    additionalProperties.ts compiles them when it is present and not always valid.
    """
    pats = [k for k in node["patternProperties"] if k != "__proto__"]
    if not pats:
        return False
    if "additionalProperties" in node and not _ajv_always_valid(node["additionalProperties"], rules):
        return True
    if not all(_ajv_always_valid(node["patternProperties"][k], rules) for k in pats):
        return True
    if kind == "draft-07":
        return False
    members = node.get("allOf") if isinstance(node.get("allOf"), list) else []
    props_all = "additionalProperties" in node or any(isinstance(m, dict) and "additionalProperties" in m
                                                      for m in members)
    return not props_all


def _ajv_subschemas(node: dict[str, Any], kind: str, rules: frozenset[str]) -> list[tuple[list[Any], Any]]:
    """``(tokens, subschema)`` Ajv's class ``kind`` compiles below ``node`` (``$ref`` aside)."""
    out: list[tuple[list[Any], Any]] = []

    def one(kw: str) -> None:
        if kw in node:
            out.append(([kw], node[kw]))

    def many(kw: str) -> None:
        if isinstance(node.get(kw), list):
            out.extend(([kw, i], sub) for i, sub in enumerate(node[kw]))

    def mapping(kw: str) -> None:
        if isinstance(node.get(kw), dict):
            out.extend(([kw, k], sub) for k, sub in node[kw].items() if k != "__proto__")

    for kw in ("not", "propertyNames", "additionalProperties", "contains"):
        one(kw)
    for kw in ("allOf", "anyOf", "oneOf"):
        many(kw)
    # if.ts: "if" is compiled only with a "then" or "else" that is not always valid; thenElse.ts
    # compiles nothing on its own
    if "if" in node and any(k in node and not _ajv_always_valid(node[k], rules) for k in ("then", "else")):
        for kw in ("if", "then", "else"):
            one(kw)
    for kw in ("properties", "patternProperties", "dependencies"):
        mapping(kw)
    if kind == "2020-12":
        many("prefixItems")
        one("items")
    else:
        if isinstance(node.get("items"), list):
            many("items")
            one("additionalItems")  # additionalItems.ts: ignored unless "items" is an array
        else:
            one("items")
    if kind != "draft-07":
        mapping("dependentSchemas")
        one("unevaluatedProperties")
        one("unevaluatedItems")
    return out


def _ajv_compile_problem(doc: SchemaDoc, kind: str) -> tuple[list[Any], str] | None:
    """``(pointer_tokens, Ajv's message)`` of the first thing Ajv's class ``kind`` refuses to compile.

    Visits what Ajv compiles (``_ajv_subschemas`` and local ``$ref`` targets), each subschema once,
    at most ``AJV_COMPILE_MAX_NODES``. Unresolvable refs are left to validation (``RefError``);
    ``$dynamicRef``/``$recursiveRef`` are not followed.
    """
    rules = _AJV_RULES[kind]
    stack: list[tuple[list[Any], Any]] = [([], doc.root)]
    seen: set[int] = set()
    while stack and len(seen) < AJV_COMPILE_MAX_NODES:
        tokens, node = stack.pop()
        if not isinstance(node, dict) or id(node) in seen:
            continue
        seen.add(id(node))
        if not any(k in rules for k in node):
            continue  # alwaysValidSchema: Ajv generates no code for it
        problem = _ajv_node_problem(node, kind)
        if problem is not None:
            return tokens + problem[0], problem[1]
        children = [(tokens + sub_tokens, sub) for sub_tokens, sub in _ajv_subschemas(node, kind, rules)]
        ref = node.get("$ref")
        if isinstance(ref, str):
            try:
                target, target_tokens = doc.lookup(ref)
            except RefError:
                pass
            else:
                children.append((target_tokens, target))
        stack.extend(reversed(children))
    return None


def _json_pointer(tokens: list[Any]) -> str:
    return "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in tokens)


#: Keywords holding subschemas, in every dialect: name → "one", "list", "map" or "one_or_list".
_SUBSCHEMA_KEYWORDS = {
    "properties": "map", "patternProperties": "map", "$defs": "map", "definitions": "map", "dependentSchemas": "map",
    "dependencies": "map", "items": "one_or_list", "prefixItems": "list", "allOf": "list", "anyOf": "list",
    "oneOf": "list", "additionalProperties": "one", "unevaluatedProperties": "one", "unevaluatedItems": "one",
    "contains": "one", "not": "one", "if": "one", "then": "one", "else": "one", "propertyNames": "one",
    "additionalItems": "one", "contentSchema": "one",
}


def _python_compile_problem(root: Any) -> tuple[list[Any], str] | None:
    """The first ``pattern``/``patternProperties`` key Python ``re`` rejects, at any schema position of
    the document, ``$defs`` included (the Python SDK runs ``check_schema``, whose meta-schema checks
    ``format: regex`` there)."""
    stack: list[tuple[list[Any], Any]] = [([], root)]
    seen = 0
    while stack and seen < AJV_COMPILE_MAX_NODES:
        tokens, node = stack.pop()
        seen += 1
        if not isinstance(node, dict):
            continue
        pats = [(["pattern"], node["pattern"])] if isinstance(node.get("pattern"), str) else []
        if isinstance(node.get("patternProperties"), dict):
            pats += [(["patternProperties", k], k) for k in node["patternProperties"]]
        for ptoks, pat in pats:
            try:
                re.compile(pat)
            except (re.error, RecursionError, OverflowError, ValueError) as exc:
                return tokens + ptoks, f"invalid regex {pat[:80]!r}: {exc}"
        children: list[tuple[list[Any], Any]] = []
        for kw, shape in _SUBSCHEMA_KEYWORDS.items():
            value = node.get(kw)
            if shape == "map" and isinstance(value, dict):
                children += [(tokens + [kw, k], sub) for k, sub in value.items()]
            elif shape in ("list", "one_or_list") and isinstance(value, list):
                children += [(tokens + [kw, i], sub) for i, sub in enumerate(value)]
            elif shape in ("one", "one_or_list") and isinstance(value, dict):
                children.append((tokens + [kw], value))
        stack.extend(reversed(children))
    return None




def dialect_of(schema: Any) -> str:
    """The dialect name of ``schema`` from ``$schema`` ("2020-12", "2019-09", "draft-07", …).

    No ``$schema`` → ``DEFAULT_DIALECT``; an unrecognized URI → ``"unknown:<uri>"``.
    """
    if not isinstance(schema, dict) or not isinstance(schema.get("$schema"), str):
        return DEFAULT_DIALECT
    uri = schema["$schema"].rstrip("#")
    return DIALECTS.get(uri, f"unknown:{schema['$schema']}")


@dataclass
class SchemaDoc:
    """One tool schema as a document. ``root`` is the schema (dict or bool) exactly as sent."""

    root: Any
    dialect: str = field(init=False)
    _registry: Any = field(init=False, default=None, repr=False)
    _resolver: Any = field(init=False, default=None, repr=False)
    _validators: dict[str, Any] = field(init=False, default_factory=dict, repr=False)
    _cost: float | None = field(init=False, default=None, repr=False)
    _canonical: str | None = field(init=False, default=None, repr=False)

    def __post_init__(self) -> None:
        self.dialect = dialect_of(self.root)

    @property
    def resolver(self) -> Any:
        """A ``referencing`` resolver rooted at the document (no retrieval of remote resources)."""
        if self._resolver is None:
            from referencing import Registry, Resource
            from referencing.jsonschema import DRAFT7, DRAFT202012

            spec = DRAFT7 if self.dialect in ("draft-07", "draft-06", "draft-04") else DRAFT202012
            resource = Resource.from_contents(self.root, default_specification=spec) if isinstance(
                self.root, dict) else Resource(contents=self.root, specification=spec)
            # the root's own $id is the base of relative refs, and embedded "$id"s are resources of their
            # own (crawled); nothing is ever retrieved: the registry has no retrieve function
            root_id = self.root.get("$id") if isinstance(self.root, dict) else None
            uri = root_id.rstrip("#") if isinstance(root_id, str) and "://" in root_id else "urn:schema-audit:root"
            try:
                self._registry = Registry().with_resource(uri, resource).crawl()
            except Exception:  # an embedded $id referencing cannot read: plain document only
                uri = "urn:schema-audit:root"
                self._registry = Registry().with_resource(uri, resource)
            self._resolver = self._registry.resolver(base_uri=uri)
        return self._resolver

    @property
    def canonical(self) -> str:
        """The schema as canonical JSON text (sorted keys), computed once: the key of per-schema caches."""
        if self._canonical is None:
            self._canonical = json.dumps(self.root, sort_keys=True, separators=(",", ":"), default=str)
        return self._canonical

    def lookup(self, ref: str) -> tuple[Any, list[str]]:
        """Resolve a ``$ref`` string found in this document.

        Returns ``(target_schema, pointer_tokens)`` where the tokens locate the target inside the
        document (``[]`` for the root; ``None``-free). Raises ``RefError`` for remote or missing targets.
        """
        if ref.startswith("#"):
            fragment = ref[1:]
            if fragment == "" or fragment.startswith("/"):
                tokens = [t.replace("~1", "/").replace("~0", "~") for t in fragment.split("/")[1:]] if fragment else []
                from urllib.parse import unquote

                tokens = [unquote(t) for t in tokens]
                node: Any = self.root
                for tok in tokens:
                    if isinstance(node, dict) and tok in node:
                        node = node[tok]
                    elif isinstance(node, list) and tok.isdigit() and int(tok) < len(node):
                        node = node[int(tok)]
                    else:
                        raise RefError(f"$ref {ref!r} points to nothing")
                return node, tokens
        try:
            resolved = self.resolver.lookup(ref)
        except Exception as exc:  # referencing.exceptions.Unresolvable and friends
            if "://" in ref or ref.startswith("file:"):
                raise RefError(f"remote $ref {ref!r} is not fetched") from exc
            raise RefError(f"$ref {ref!r} cannot be resolved") from exc
        return resolved.contents, ["$ref:" + ref]

    def check_cost(self) -> None:
        """Raise ``SchemaCostError`` when no validator can run this document in bounded time: an in-place
        cycle, or ``inplace_cost`` above ``INPLACE_BUDGET``. Measured once per schema text (cached)."""
        if self._cost is None:
            # without $ref or unevaluated* the in-place expansion is at most the schema's size
            measure = '"$ref"' in self.canonical or '"unevaluated' in self.canonical
            self._cost = _COST_CACHE.get(self.canonical) if measure else 0
            if self._cost is None:
                if len(_COST_CACHE) >= 256:
                    _COST_CACHE.pop(next(iter(_COST_CACHE)))
                self._cost = _COST_CACHE[self.canonical] = inplace_cost(self)
        if self._cost == INPLACE_CYCLE:
            raise SchemaCostError("an in-place $ref cycle (a schema that applies itself at the same instance "
                                  "location through allOf/anyOf/not/if/$ref): validation never terminates")
        if self._cost > INPLACE_BUDGET:
            raise SchemaCostError(f"validation could evaluate over {INPLACE_BUDGET} subschemas at one place "
                                  "(nested anyOf/allOf/$ref/unevaluated* that multiply): not attempted")

    def validator(self, profile: str = "python-sdk") -> Any:
        """A jsonschema validator for the whole document as host ``profile`` would build it.

        Explicit empty registry (no network), format checking and regex dialect per profile, every
        regex search guarded (module docstring). Raises ``SchemaCompileError`` (a ``ValueError``) when
        the profile's host cannot compile the schema (``compile_problem``), ``ValueError`` for an
        unknown profile, ``SchemaCostError`` (a ``ValueError``) when validating could take exponential
        time (``inplace_cost`` above ``INPLACE_BUDGET``). Unresolvable ``$ref``s surface at validation
        time (``RefError`` from ``errors``).
        """
        self.check_cost()
        if profile not in self._validators:
            try:
                self._validators[profile] = self._build_validator(profile)
            except (AttributeError, TypeError, LookupError) as exc:
                # e.g. a root "$id": 5 — ``referencing`` fails reading it, as the host's validator would
                self._validators[profile] = (f"{profile} cannot compile the schema: {type(exc).__name__} while "
                                             "reading its $id/$anchor/$schema keywords")
        built = self._validators[profile]
        if isinstance(built, str):
            raise SchemaCompileError(built)
        return built

    def _build_validator(self, profile: str) -> Any:
        """The validator, or the message of the ``SchemaCompileError`` the profile raises (cached either way)."""
        from jsonschema import Draft4Validator, Draft6Validator, Draft7Validator, Draft201909Validator, Draft202012Validator
        from referencing import Registry

        if profile == "python-sdk":
            base = {"2019-09": Draft201909Validator, "draft-07": Draft7Validator, "draft-06": Draft6Validator,
                    "draft-04": Draft4Validator}.get(self.dialect, Draft202012Validator)
            dialect = self.dialect if self.dialect in DIALECTS.values() else DEFAULT_DIALECT
            return _host_class(base, None, dialect)(self.root, registry=Registry(), format_checker=None)
        if profile not in _AJV_KIND:
            raise ValueError(f"unknown host profile {profile!r} (expected one of {', '.join(HOST_PROFILES)})")
        problem = self.compile_problem(profile)
        if problem is not None:
            ptr, why = problem
            return f"{profile} cannot compile the schema: {why}" + (f" at {ptr}" if ptr else "")
        kind = _AJV_KIND[profile](self.dialect)
        base = {"draft-07": Draft7Validator, "2019-09": Draft201909Validator, "2020-12": Draft202012Validator}[kind]
        root = _ajv_ref_siblings(self.root) if kind == "draft-07" else self.root
        return _host_class(base, kind, kind)(root, registry=Registry(), format_checker=ajv_format_checker())

    def compile_problem(self, profile: str = "python-sdk") -> tuple[str, str] | None:
        """``(json_pointer, reason)`` of what keeps host ``profile`` from compiling the schema, or None.

        - ``ts-sdk-v1``/``ts-sdk-v2``: what Ajv throws on (``ajv.compile``), found among the subschemas
          Ajv compiles: a ``pattern``/``patternProperties`` key that is not an ECMAScript regex with the
          ``u`` flag (Ajv lib/vocabularies/code.ts ``usePattern``); ``nullable`` without ``type`` or
          ``nullable: false`` with a ``type`` listing ``"null"`` (lib/compile/validate/dataType.ts
          ``getSchemaTypes``); a ``type`` that is not a JSON type name; a keyword value of the wrong
          JSON type (``maxLength: "3"``, a ``items`` array under Ajv2020: ``KeywordCxt``); ``id``
          (lib/vocabularies/core/id.ts); ``enum: []``; and for ``ts-sdk-v2`` a dialect it refuses
          (pointer ``/$schema``).
        - ``python-sdk``: a ``pattern``/``patternProperties`` key Python ``re`` rejects, anywhere
          (jsonschema's ``check_schema``). Other meta-schema violations are not looked for here.

        Unresolvable ``$ref``s are not reported here (``lookup`` raises ``RefError`` for them).
        Raises ``ValueError`` for an unknown profile.
        """
        if profile == "python-sdk":
            found = _python_compile_problem(self.root)
        elif profile in _AJV_KIND:
            kind = _AJV_KIND[profile](self.dialect)
            if kind is None:
                return "/$schema", (f"unsupported dialect {self.dialect} (the SDK picks Ajv2020, Ajv2019 or the "
                                    "draft-07 Ajv class from $schema and throws for any other)")
            key = (kind, self.canonical)
            if key not in _COMPILE_CACHE:
                if len(_COMPILE_CACHE) >= 256:
                    _COMPILE_CACHE.pop(next(iter(_COMPILE_CACHE)))
                _COMPILE_CACHE[key] = _ajv_compile_problem(self, kind)
            found = _COMPILE_CACHE[key]
        else:
            raise ValueError(f"unknown host profile {profile!r} (expected one of {', '.join(HOST_PROFILES)})")
        return None if found is None else (_json_pointer(found[0]), found[1])

    def errors(self, instance: Any, profile: str = "python-sdk") -> list[Any]:
        """The validation errors for ``instance`` (empty = valid), best match first.

        Raises ``RefError`` for an unresolvable ``$ref``; ``SchemaCompileError`` (a ``ValueError``) when
        the profile's host cannot compile the schema at all (``compile_problem``: the host rejects every
        value); ``ValueError`` for a schema jsonschema cannot evaluate: an invalid keyword value
        (``multipleOf: 0``, ``maxLength: "3"``, an invalid regex), a too costly or undecidable regex
        search (``RegexBudgetError``), numbers it cannot compare, nesting too deep.
        """
        from jsonschema import exceptions as jexc
        from referencing.exceptions import Unresolvable

        try:
            validator = self.validator(profile)
            errs = list(validator.iter_errors(instance))
        except Unresolvable as exc:
            raise RefError(str(exc)) from exc
        except ValueError:
            raise
        except (jexc.SchemaError, jexc.UnknownType, jexc.FormatError, re.error, ArithmeticError, RecursionError,
                TypeError, AttributeError, KeyError, IndexError) as exc:
            # jsonschema's keyword code assumes a valid schema; a stranger's schema makes it raise anything
            detail = " ".join(str(exc).split())[:200]
            raise ValueError(f"schema cannot be evaluated: {type(exc).__name__}: {detail}") from exc
        if len(errs) > 1:
            best = jexc.best_match(errs)
            errs.remove(best)
            errs.insert(0, best)
        return errs


def _ajv_ref_siblings(schema: Any, depth: int = 0) -> Any:
    """Ajv 8 applies keywords beside ``$ref`` in every draft; draft-07 jsonschema ignores them.

    Returns a copy where ``{"$ref": R, k: v}`` becomes ``{"allOf": [{"$ref": R}], k: v}`` so the
    draft-07 validator sees what Ajv sees. Deeper than 400 levels the rest is left as it is.
    """
    if depth > 400:
        return schema
    if isinstance(schema, list):
        return [_ajv_ref_siblings(x, depth + 1) for x in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: (v if k in ("enum", "const", "default", "examples") else _ajv_ref_siblings(v, depth + 1))
           for k, v in schema.items()}
    if isinstance(out.get("$ref"), str) and len(out) > 1:
        ref = out.pop("$ref")
        out["allOf"] = [{"$ref": ref}] + (out["allOf"] if isinstance(out.get("allOf"), list) else [])
    return out


_AJV_FORMAT_CHECKER: Any = None
_FORMAT_PATTERNS = {
    "uuid": r"^(?:urn:uuid:)?[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$",
    "duration": r"^P(?!$)((\d+Y)?(\d+M)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?|(\d+W)?)$",
    "byte": r"^(?:[a-z0-9+/]{4})*(?:[a-z0-9+/]{2}==|[a-z0-9+/]{3}=)?$",
    "date": r"^\d\d\d\d-[0-1]\d-[0-3]\d$",
    "hostname": r"^(?=.{1,253}\.?$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[-0-9a-z]{0,61}[0-9a-z])?)*\.?$",
    "uri": r"^[a-z][a-z0-9+\-.]*:[^\s]*$",
    "url": r"^(?:https?|ftp):\/\/[^\s]+$",
    "json-pointer": r"^(?:\/(?:[^~/]|~0|~1)*)*$",
    "relative-json-pointer": r"^(?:0|[1-9][0-9]*)(?:#|(?:\/(?:[^~/]|~0|~1)*)*)$",
}


_AJV_Z_ANCHOR = re.compile(r"[^\\]\\Z")


def ajv_format_checker() -> Any:
    """A jsonschema ``FormatChecker`` approximating ajv-formats (what the TS SDKs enforce).

    Starts from every format jsonschema can check here and adds ajv-formats' ``uuid``, ``duration``,
    ``byte``, ``int32``/``int64``, ``float``/``double``, ``url`` and case-insensitive patterns;
    ``regex`` is ajv-formats' check (an ECMAScript regex without the ``u`` flag, no ``\\Z``).
    """
    global _AJV_FORMAT_CHECKER
    if _AJV_FORMAT_CHECKER is None:
        import re

        from jsonschema import FormatChecker

        checker = FormatChecker()
        for name, pattern in _FORMAT_PATTERNS.items():
            rx = re.compile(pattern, re.IGNORECASE)
            checker.checkers[name] = ((lambda rx: lambda v: not isinstance(v, str) or bool(rx.match(v)))(rx), ())

        def int_range(bits: int) -> Any:
            lo, hi = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
            return lambda v: not isinstance(v, (int, float)) or isinstance(v, bool) or (
                float(v).is_integer() and lo <= v <= hi)

        checker.checkers["int32"] = (int_range(32), ())
        checker.checkers["int64"] = (int_range(64), ())
        # ajv-formats formats.ts ``regex``: no "\\Z" anchor, and ``new RegExp(str)`` (no ``u`` flag) compiles
        checker.checkers["regex"] = (lambda v: not isinstance(v, str) or (
            not _AJV_Z_ANCHOR.search(v) and ecma_compile_error(v, unicode=False) is None), ())
        checker.checkers["float"] = (lambda v: True, ())
        checker.checkers["double"] = (lambda v: True, ())
        _AJV_FORMAT_CHECKER = checker
    return _AJV_FORMAT_CHECKER


def type_set(schema: dict[str, Any]) -> set[str] | None:
    """The set of JSON types ``schema``'s ``type`` keyword allows, or ``None`` when it has no ``type``.

    ``integer`` is kept distinct from ``number``; callers treat ``integer ⊂ number``.
    """
    t = schema.get("type")
    if t is None:
        return None
    if isinstance(t, str):
        return {t}
    if isinstance(t, list):
        return {x for x in t if isinstance(x, str)}
    return set()


def json_type(value: Any) -> str:
    """The JSON Schema type name of a JSON value (``integer`` for whole numbers, as JSON Schema does)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"
