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
