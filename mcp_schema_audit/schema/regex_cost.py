"""What a regular expression from a stranger costs, measured before anything runs or compiles it: the shape of
its backtracking (nested, alternated and variable repeats), the size of its program once counted repeats are
unrolled, and from those the longest text each engine may search within a step budget. Read off Python ``re``'s
parse, which neither runs nor unrolls anything. Used by ``schema.regex``."""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from mcp_schema_audit import guard

if TYPE_CHECKING:
    from regex import Pattern as RegexPattern

#: Backtracking steps a search without a timeout (Python ``re``, regress) may take by the static estimate.
REGEX_STEP_BUDGET = 200_000
#: Backtracking steps a search by the ``regex`` package may take by the static estimate; a longer text is
#: refused (undecided) whatever the machine: the decision counts work, never seconds.
REGEX_GUARDED_BUDGET = 100_000_000
#: Largest program (atoms with every counted repeat unrolled: ``a{1000}`` is 1000, ``(ab){10}{10}`` 200) handed to
#: the ``regex`` package, which unrolls counted repeats when it compiles (about 300 bytes each: ``^a{1000000}$``
#: took 274 MB); a larger pattern is searched by ``re`` within the step budget, or refused (undecided).
REGEX_PROGRAM_LIMIT = 5_000
#: Programs up to this size stay in the ``regex`` package's own cache (500 entries: under 40 MB); larger ones,
#: up to ``REGEX_PROGRAM_LIMIT``, are compiled for each search and dropped.
REGEX_CACHED_SIZE = 256
#: Unrolled size past which the static estimate charges a search each start position's walk through it.
CHEAP_SIZE = 64
#: Longest pattern (characters) measured, compiled or run at all; a longer one is refused (undecided) before any
#: parser sees it: regress overflows its native stack on ``a|a|…`` of 100,001 alternatives (a 200 KB pattern,
#: SIGSEGV) and Python's ``re`` parses a 1.5 MB one in about 0.7 s each time.
REGEX_MAX_LENGTH = 20_000
#: Most alternatives (``|`` outside a class) in one pattern measured, compiled or run.
REGEX_MAX_ALTERNATIVES = 2_000
#: Deepest nesting of groups in one pattern measured, compiled or run.
REGEX_MAX_NESTING = 200
#: Characters of the patterns whose measures and programs stay cached (per process), weighed by their length: the
#: caches are emptied past it, never thrashed by a count (30,000 ``patternProperties`` each measured once).
REGEX_CACHE_CHARS = 8_000_000


class RegexBudgetError(ValueError):
    """A ``pattern`` search was refused or stopped: it could backtrack catastrophically (ReDoS) on this
    string, the pattern is over the size limits (``oversized``), or (``ecma_search``) the pattern or string
    holds a lone surrogate regress cannot take."""


def oversized(pattern: str) -> str | None:
    """Why ``pattern`` is too big to hand to any regex parser (``REGEX_MAX_LENGTH`` characters,
    ``REGEX_MAX_ALTERNATIVES`` alternatives, ``REGEX_MAX_NESTING`` nested groups), or None. One linear scan of
    the text (escapes and classes skipped), nothing compiled; the same limits for Python and ECMAScript syntax."""
    if len(pattern) > REGEX_MAX_LENGTH:
        return f"pattern {pattern[:60]!r}… is {len(pattern):,} characters long (over {REGEX_MAX_LENGTH:,})"
    if "|" not in pattern and pattern.count("(") <= REGEX_MAX_NESTING:
        return None
    alternatives, depth, deepest, in_class, i, n = 1, 0, 0, False, 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif c == ")":
            depth = max(0, depth - 1)
        elif c == "|":
            alternatives += 1
        i += 1
    if alternatives > REGEX_MAX_ALTERNATIVES:
        return f"pattern {pattern[:60]!r}… has {alternatives:,} alternatives (over {REGEX_MAX_ALTERNATIVES:,})"
    if deepest > REGEX_MAX_NESTING:
        return f"pattern {pattern[:60]!r}… nests groups {deepest:,} deep (over {REGEX_MAX_NESTING:,})"
    return None


V = TypeVar("V")

_compiles = 0


_searches = 0


def count_search() -> None:
    """Count one regex search (``safe_search``, ``ecma_search``: every host's reading of every ``pattern``,
    ``patternProperties`` and ``propertyNames`` regex, in the walk, the sampler and validation alike) and check
    the ``--time-budget`` guard. The engine charges the count to the comparison's work budget."""
    global _searches
    _searches += 1
    guard.check()


def regex_searches() -> int:
    """Regex searches run so far in this process (``count_search``)."""
    return _searches


def regex_compiles() -> int:
    """Patterns measured or compiled so far in this process (every ``PatternCache`` miss): the engine charges
    them to the comparison's work budget."""
    return _compiles


class PatternCache(Generic[V]):
    """Values computed once per pattern text, the texts' total length bounded (``REGEX_CACHE_CHARS``: the cache
    is emptied past it) instead of their count. Each miss is a compile: it calls ``guard.check()`` (the
    ``--time-budget`` guard counts regex work inside one tool)."""

    def __init__(self, limit: int = REGEX_CACHE_CHARS) -> None:
        self._values: dict[str, V] = {}
        self._chars = 0
        self._limit = limit

    def get(self, pattern: str, compute: Callable[[str], V]) -> V:
        """``compute(pattern)``, remembered."""
        try:
            return self._values[pattern]
        except KeyError:
            pass
        global _compiles
        _compiles += 1
        guard.check()
        value = compute(pattern)
        weight = 64 + len(pattern)
        if self._chars + weight > self._limit:
            self._values.clear()
            self._chars = 0
        self._values[pattern] = value
        self._chars += weight
        return value


_SHAPES: PatternCache[tuple[int, int, int, bool, int] | Exception] = PatternCache()
_EMPTY_LOOPS: PatternCache[bool | Exception] = PatternCache()


def _remembered(cache: PatternCache[Any], pattern: str, compute: Callable[[str], Any]) -> Any:
    def attempt(p: str) -> Any:
        try:
            return compute(p)
        except (re.error, RegexBudgetError, RecursionError, OverflowError, MemoryError) as exc:
            return exc

    value = cache.get(pattern, attempt)
    if isinstance(value, Exception):
        raise value.with_traceback(None)
    return value


def sre() -> tuple[ModuleType, ModuleType, set[Any]]:
    """Python's regex parser: ``(its constants module, its parser module, the repeat opcodes)``."""
    if sys.version_info >= (3, 11):
        from re import _constants as c
        from re import _parser as parser
    else:  # pragma: no cover - 3.10 (sre_constants and sre_parse warn of their deprecation from 3.11 on)
        import sre_constants as c
        import sre_parse as parser
    return (
        c,
        parser,
        {c.MAX_REPEAT, c.MIN_REPEAT} | ({c.POSSESSIVE_REPEAT} if hasattr(c, "POSSESSIVE_REPEAT") else set()),
    )


def regex_shape(pattern: str) -> tuple[int, int, int, bool, int]:
    """``(nesting, alternatives, variable_repeats, anchored, size)`` of ``pattern``, measured once per text
    (``PatternCache``); raises ``re.error`` when invalid, ``RegexBudgetError`` when ``oversized`` (never parsed)
    or past what ``re`` can hold (a count of 2**32). ``size`` is the program with every counted repeat unrolled
    (``program_size``).

    ``nesting`` is the deepest nesting of variable repeats (``(a+)+`` → 2), ``alternatives`` the
    largest alternation inside a repeat (``(a|ab)+`` → 2), ``variable_repeats`` how many repeats
    have a variable count (times the count of fixed repeats around them: ``(.*a){12}`` → 12). A
    search costs about ``max(2, alternatives) ** len(text)`` steps when
    ``nesting > 1``, and ``len(text) ** (variable_repeats + 1)`` otherwise, one power less when the
    pattern is ``anchored`` at the start (``^``: one start position is tried, not every one).
    """
    result: tuple[int, int, int, bool, int] = _remembered(_SHAPES, pattern, _shape)
    return result


def _shape(pattern: str) -> tuple[int, int, int, bool, int]:
    why = oversized(pattern)
    if why is not None:
        raise RegexBudgetError(why)
    try:
        re.compile(pattern)  # the error a host would raise, first
    except (OverflowError, RecursionError, MemoryError) as exc:  # a count past 2**32, too deep: not measured
        raise RegexBudgetError(f"pattern {pattern[:60]!r} cannot be measured: {exc}") from None
    c, parser, repeats = sre()
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

    parsed = parser.parse(pattern)
    depth, alts = walk(parsed, False)
    multiline = bool(getattr(getattr(parsed, "state", None), "flags", 0) & re.MULTILINE)
    anchored = bool(len(parsed)) and parsed[0] == (c.AT, c.AT_BEGINNING) and not multiline
    return depth, alts, count, anchored, _unrolled(parsed, c, repeats)


#: Sizes are counted up to here (a bigger one is refused whatever it is).
_SIZE_CAP = 10**12


def _unrolled(items: Any, c: ModuleType, repeats: set[Any]) -> int:
    """Atoms of ``items`` (a parse) with each counted repeat unrolled: ``x{lo,hi}`` weighs ``hi`` times ``x`` (``lo
    + 1`` times when unbounded); groups, alternatives and lookarounds the sum of their parts, capped at
    ``_SIZE_CAP``."""
    total = 0
    for op, av in items:
        if op in repeats:
            lo, hi, body = av
            times = lo + 1 if hi == c.MAXREPEAT else max(hi, 1)
            total += min(_SIZE_CAP, times * _unrolled(body, c, repeats))
        elif op == c.BRANCH:
            total += sum(_unrolled(sub, c, repeats) for sub in av[1])
        elif op in (c.SUBPATTERN, c.ASSERT, c.ASSERT_NOT):
            total += _unrolled(av[-1], c, repeats)
        elif op == getattr(c, "ATOMIC_GROUP", None):
            total += _unrolled(av, c, repeats)
        elif op == c.GROUPREF_EXISTS:
            total += sum(_unrolled(sub, c, repeats) for sub in av[1:] if sub is not None)
        else:
            total += 1
        if total >= _SIZE_CAP:
            return _SIZE_CAP
    return total


def program_size(pattern: str) -> int:
    """The unrolled size of ``pattern`` (Python syntax): its atoms with every counted repeat written out, what
    the ``regex`` package allocates when it compiles it (``^a{1000000}$`` → 1,000,002). Measured on ``re``'s
    parse, which does not unroll. Raises ``re.error`` when invalid."""
    return regex_shape(pattern)[4]


def nested_empty_loops(pattern: str) -> bool:
    """Does ``pattern`` (Python syntax: the skeleton of an ECMAScript one) hold a repeat whose body can match
    the empty string inside another such repeat (``((a*)*)+``, ``((a|)*)*``, ``((a*){2})+``)?

    regress (the ECMAScript engine here) runs such a pattern out of memory on a one-character text
    (a native abort: it allocates gigabytes), so it never gets one; Python's ``re`` and the ``regex`` package
    stop empty iterations. Raises ``re.error`` when invalid, ``RegexBudgetError`` when ``oversized``.
    """
    result: bool = _remembered(_EMPTY_LOOPS, pattern, _empty_loops)
    return result


def _empty_loops(pattern: str) -> bool:
    why = oversized(pattern)
    if why is not None:
        raise RegexBudgetError(why)
    c, parser, repeats = sre()
    width = {c.LITERAL, c.NOT_LITERAL, c.ANY, c.IN, c.CATEGORY, c.RANGE}

    def nullable(items: Any) -> bool:
        for op, av in items:
            if op in width:
                return False
            if op in repeats:
                if av[0] > 0 and not nullable(av[2]):
                    return False
            elif op == c.BRANCH:
                if not any(nullable(sub) for sub in av[1]):
                    return False
            elif op == c.SUBPATTERN:
                if not nullable(av[-1]):
                    return False
            elif op == getattr(c, "ATOMIC_GROUP", None) and not nullable(av):
                return False
        return True  # anchors, lookarounds, back-references (maybe empty) and the like match empty

    def found(items: Any, in_empty_loop: bool) -> bool:
        for op, av in items:
            if op in repeats:
                loop = av[1] > 1 and nullable(av[2])
                if loop and in_empty_loop:
                    return True
                if found(av[2], in_empty_loop or loop):
                    return True
            elif op == c.BRANCH:
                if any(found(sub, in_empty_loop) for sub in av[1]):
                    return True
            elif op in (c.SUBPATTERN, c.ASSERT, c.ASSERT_NOT):
                if found(av[-1], in_empty_loop):
                    return True
            elif op == getattr(c, "ATOMIC_GROUP", None):
                if found(av, in_empty_loop):
                    return True
            elif op == c.GROUPREF_EXISTS and any(sub is not None and found(sub, in_empty_loop) for sub in av[1:]):
                return True
        return False

    return found(parser.parse(pattern), False)


def max_safe_length(pattern: str, budget: int = REGEX_STEP_BUDGET) -> float:
    """Longest text a search of ``pattern`` may take within ``budget`` steps (static estimate)."""
    return limit_for_shape(*regex_shape(pattern), budget=budget)


def limit_for_shape(
    depth: int, alts: int, variable: int, anchored: bool = False, size: int = 1, budget: int = REGEX_STEP_BUDGET
) -> float:
    """Longest text searched within ``budget`` steps by a pattern of this ``regex_shape``. Unanchored, each start
    position may walk the whole unrolled program (``(a{1000}){1000}`` on a run of ``a``: 10**6 steps a start):
    a ``size`` above ``CHEAP_SIZE`` bounds the text to ``len * min(len, size) <= budget``."""
    if depth > 1 or (alts > 1 and variable):
        base = max(2, alts) ** max(1, depth - 1)
        return max(1, int(math.log(budget) / math.log(base)))
    limit: float = math.inf
    if variable:
        limit = int(budget ** (1 / (variable + (0 if anchored else 1)))) * 4
    if not anchored and size > CHEAP_SIZE:
        limit = min(limit, max(1, budget // size if size * size < budget else math.isqrt(budget)))
    return limit


def regex_package(pattern: str, size: int | None = None) -> RegexPattern[str] | None:
    """``regex.compile(pattern)`` when its unrolled program (``size``, else ``program_size(pattern)``) fits
    ``REGEX_PROGRAM_LIMIT`` (the package unrolls counted repeats: memory grows with the counts, not with the
    pattern's length), else ``None``; also ``None`` without the package or for a pattern it refuses."""
    try:
        import regex

        size = program_size(pattern) if size is None else size
        if size > REGEX_PROGRAM_LIMIT:
            return None
        return regex.compile(pattern, regex.V0, cache_pattern=size <= REGEX_CACHED_SIZE)
    except Exception:  # no regex package, a pattern re or regex refuses, one too deep to measure: no program
        return None
