"""One switch for every shortcut that must not change a verdict, so that tests can prove it does not.

The fast paths: skipping tools identical on both sides (``diff``), the per-content caches of compile, cost
and metaschema checks with the metaschema fast path (``schema``, ``lint``) and the Ajv compile walk it spares,
the quick reading of validity and the narrowed error search (``SchemaDoc.quick``, ``SchemaDoc.errors``), one
validation for all host profiles when they read a schema alike (``SchemaDoc.profiles_agree``), and the worker
pool (``parallel``). ``disabled()`` turns them all off for the duration of a ``with`` block; reports must come
out byte-identical either way (``tests/test_fastpaths.py``). ``ContentCache`` is the one way to cache by
content. Not thread-safe: a process-wide switch for tests and benchmarks.

Identical subtrees (``engine.identity``) are not a fast path: a pair of them has no finding by definition
(nothing changed there), so the walk skips them in either mode.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import Any, Generic, TypeVar

T = TypeVar("T")

_ENABLED = True
_CACHES: list[ContentCache[Any]] = []  # every cache, whatever it holds (clear_caches)


def enabled() -> bool:
    """Are the fast paths on (the default)?"""
    return _ENABLED


@contextmanager
def disabled() -> Iterator[None]:
    """Run the body with every fast path off (and the caches bypassed), then restore the previous state."""
    global _ENABLED
    before, _ENABLED = _ENABLED, False
    try:
        yield
    finally:
        _ENABLED = before


class ContentCache(Generic[T]):
    """Results of a pure check keyed by schema content (canonical JSON text, with whatever else the result
    depends on), so that a schema met again (the same model in many tools, ``history`` against every cohort,
    ``--mode full``) is checked once. Bounded: past ``size`` entries the oldest is dropped. Bypassed while
    the fast paths are off."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._data: dict[Hashable, T] = {}
        _CACHES.append(self)

    def get(self, key: Hashable, compute: Callable[[], T]) -> T:
        """The cached result for ``key``, computing (and keeping) it with ``compute()`` on a miss."""
        if not _ENABLED:
            return compute()
        try:
            return self._data[key]
        except KeyError:
            pass
        value = compute()
        if len(self._data) >= self.size:
            self._data.pop(next(iter(self._data)))
        self._data[key] = value
        return value

    def peek(self, key: Hashable) -> T | None:
        """The cached result for ``key``, or None (nothing computed, nothing kept; None while fast paths are off)."""
        return self._data.get(key) if _ENABLED else None

    def clear(self) -> None:
        """Forget every entry (benchmarks measure cold runs)."""
        self._data.clear()


def clear_caches() -> None:
    """Empty every ``ContentCache`` (benchmarks time cold runs: nothing carried over from the previous one)."""
    for cache in _CACHES:
        cache.clear()
