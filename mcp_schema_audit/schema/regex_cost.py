"""What a regular expression from a stranger costs, measured before anything runs or compiles it: the shape of
its backtracking (nested, alternated and variable repeats), the size of its program once counted repeats are
unrolled, and from those the longest text each engine may search within a step budget. Read off Python ``re``'s
parse, which neither runs nor unrolls anything. Used by ``schema.regex``."""

from __future__ import annotations

import functools
import math
import re
import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any

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


@functools.lru_cache(maxsize=1024)
def regex_shape(pattern: str) -> tuple[int, int, int, bool, int]:
    """``(nesting, alternatives, variable_repeats, anchored, size)`` of ``pattern``; raises ``re.error`` when
    invalid. ``size`` is the program with every counted repeat unrolled (``program_size``).

    ``nesting`` is the deepest nesting of variable repeats (``(a+)+`` → 2), ``alternatives`` the
    largest alternation inside a repeat (``(a|ab)+`` → 2), ``variable_repeats`` how many repeats
    have a variable count (times the count of fixed repeats around them: ``(.*a){12}`` → 12). A
    search costs about ``max(2, alternatives) ** len(text)`` steps when
    ``nesting > 1``, and ``len(text) ** (variable_repeats + 1)`` otherwise, one power less when the
    pattern is ``anchored`` at the start (``^``: one start position is tried, not every one).
    """
    re.compile(pattern)  # the error a host would raise, first
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


@functools.lru_cache(maxsize=1024)
def nested_empty_loops(pattern: str) -> bool:
    """Does ``pattern`` (Python syntax: the skeleton of an ECMAScript one) hold a repeat whose body can match
    the empty string inside another such repeat (``((a*)*)+``, ``((a|)*)*``, ``((a*){2})+``)?

    regress (the ECMAScript engine here) runs such a pattern out of memory on a one-character text
    (a native abort: it allocates gigabytes), so it never gets one; Python's ``re`` and the ``regex`` package
    stop empty iterations. Raises ``re.error`` when invalid.
    """
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
