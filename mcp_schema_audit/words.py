"""Words for messages: ``1 tool`` / ``2 tools``; ``a``, ``a and b``, ``a, b and c``; text on one line."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def plural(n: int, word: str, many: str | None = None) -> str:
    """``n`` and ``word`` in agreement: ``plural(1, "tool")`` is ``"1 tool"``, ``plural(3, "tool")`` ``"3 tools"``
    (``many``: the plural form when it is not ``word + "s"``)."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def oneline(text: str) -> str:
    """``text`` on one line: every run of whitespace (newlines included) made one space, none at either end."""
    return " ".join(str(text).split())


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


def bounded_opcodes(a: list[str], b: list[str], window: int) -> list[tuple[str, int, int, int, int]]:
    """``difflib`` opcodes of ``a`` → ``b``, bounded: the common prefix and suffix are stripped first (linear), and
    the differing middle is matched word by word only when neither side exceeds ``window`` tokens; a
    longer one is one replacement (``SequenceMatcher`` is quadratic: a 50 KB description with one word changed
    once took 35 s; the instructions' delta, 30,000 words, 42 s)."""
    pre = 0
    while pre < len(a) and pre < len(b) and a[pre] == b[pre]:
        pre += 1
    suf = 0
    while suf < len(a) - pre and suf < len(b) - pre and a[-1 - suf] == b[-1 - suf]:
        suf += 1
    a_end, b_end = len(a) - suf, len(b) - suf
    mid: list[tuple[str, int, int, int, int]]
    if a_end - pre > window or b_end - pre > window:
        tag = "replace" if a_end > pre and b_end > pre else "delete" if a_end > pre else "insert"
        mid = [(tag, pre, a_end, pre, b_end)] if (a_end > pre or b_end > pre) else []
    else:
        matcher = difflib.SequenceMatcher(a=a[pre:a_end], b=b[pre:b_end], autojunk=False)
        mid = [(t, i1 + pre, i2 + pre, j1 + pre, j2 + pre) for t, i1, i2, j1, j2 in matcher.get_opcodes()]
    return (
        ([("equal", 0, pre, 0, pre)] if pre else []) + mid + ([("equal", a_end, len(a), b_end, len(b))] if suf else [])
    )
