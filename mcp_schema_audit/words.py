"""Words for counts and lists in messages: ``1 tool`` / ``2 tools``; ``a``, ``a and b``, ``a, b and c``."""

from __future__ import annotations

from collections.abc import Iterable


def plural(n: int, word: str, many: str | None = None) -> str:
    """``n`` and ``word`` in agreement: ``plural(1, "tool")`` is ``"1 tool"``, ``plural(3, "tool")`` ``"3 tools"``
    (``many``: the plural form when it is not ``word + "s"``)."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def join_words(items: Iterable[str], conj: str = "and") -> str:
    """A list in words: ``"a"``, ``"a and b"``, ``"a, b and c"`` (``""`` for none; ``conj="or"``: ``"a, b or c"``)."""
    xs = list(items)
    if len(xs) <= 2:
        return f" {conj} ".join(xs)
    return ", ".join(xs[:-1]) + f" {conj} " + xs[-1]


def duration_words(ms: int) -> str:
    """A duration in milliseconds, in words: ``250 ms``, ``30 s``, ``5 min``, ``24 h``, ``1.5 h``, ``3 d`` (days only
    from two whole days on)."""
    if ms >= 172_800_000 and ms % 86_400_000 == 0:
        return f"{ms // 86_400_000} d"
    for unit, size in (("h", 3_600_000), ("min", 60_000), ("s", 1000)):
        if ms >= size:
            return f"{round(ms / size, 1):g} {unit}"
    return f"{ms} ms"
