"""Lists of fnmatch globs matched as one: tool filters (``--tool``, ``--exclude-tool``, ``tools``,
``exclude_tools``) and server names (``--server``, ``servers``).

``fnmatch.fnmatchcase`` compiles each glob into a regular expression and keeps the last 32,768 in a cache:
a list longer than that, tried name by name, compiles every glob again for every name (50,000 globs took more
than a minute). Here a list is compiled once: globs without a wildcard (``*``, ``?``, ``[``) go into a set,
the others into one combined regular expression; a list holds at most ``MAX_GLOBS`` globs (``check_count``).
Case-sensitive, as ``fnmatchcase``. Standard library only.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Iterable, Sequence

from mcp_schema_audit.errors import UsageError

#: Globs one list may hold (a config key or the flags of one option): far above any real filter, low enough
#: that compiling and matching them stays under a second.
MAX_GLOBS = 10_000
_WILD = re.compile(r"[*?\[]")


class GlobSet:
    """The globs of one list, compiled: ``matches(name)`` is true when ``name`` matches one of them."""

    def __init__(self, globs: Iterable[str]) -> None:
        self.globs = tuple(dict.fromkeys(globs))
        self.literals = frozenset(g for g in self.globs if not _WILD.search(g))
        self.wild = tuple(g for g in self.globs if _WILD.search(g))
        self._regex = re.compile("|".join(f"(?:{fnmatch.translate(g)})" for g in self.wild)) if self.wild else None

    def __bool__(self) -> bool:
        return bool(self.globs)

    def matches(self, name: str) -> bool:
        """True when ``name`` matches one of the globs (``fnmatchcase`` semantics)."""
        return name in self.literals or (self._regex is not None and self._regex.match(name) is not None)

    def unmatched(self, names: Iterable[str]) -> list[str]:
        """The globs, in their order, that match none of ``names`` (each wildcard glob tried once per name)."""
        pool = set(names)
        hit = set()
        for g in self.wild:
            if any(glob_match(n, g) for n in pool):
                hit.add(g)
        return [g for g in self.globs if g not in pool and g not in hit]


@functools.lru_cache(maxsize=16)
def compiled(globs: tuple[str, ...]) -> GlobSet:
    """The ``GlobSet`` of ``globs``, compiled once per run for a list used again and again."""
    return GlobSet(globs)


_ONE: dict[str, re.Pattern[str]] = {}


def glob_match(name: str, pattern: str) -> bool:
    """``fnmatch.fnmatchcase(name, pattern)`` with ``pattern`` compiled once for the run, however many there are
    (the patterns of ``[[ignore]]`` entries, tried finding by finding: past ``fnmatch``'s cache, each try compiled
    its pattern again)."""
    compiled_one = _ONE.get(pattern)
    if compiled_one is None:
        compiled_one = _ONE[pattern] = re.compile(fnmatch.translate(pattern))
    return compiled_one.match(name) is not None


def check_count(globs: Sequence[str], what: str) -> list[str]:
    """``list(globs)`` when it holds at most ``MAX_GLOBS`` globs, else ``UsageError`` (exit 2) naming ``what``."""
    if len(globs) > MAX_GLOBS:
        raise UsageError(
            f"{what}: {len(globs)} globs, more than the {MAX_GLOBS} one list may hold (name a family with a "
            "wildcard, e.g. admin_*)"
        )
    return list(globs)


def shown(globs: Sequence[str], limit: int = 10) -> str:
    """``globs`` joined with ``, ``; past ``limit``, the first ones and ``… (N in all)``."""
    if len(globs) <= limit:
        return ", ".join(globs)
    return f"{', '.join(globs[:limit])}, … ({len(globs)} in all)"
