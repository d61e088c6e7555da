"""Word-level delta of a changed text (a tool's description, a prompt's, the server's instructions), for the
human formats: reviewing the new words is the point of a ``security`` finding.

``text_delta`` computes the delta once (``difflib`` on words, whitespace kept, after the common prefix and
suffix are stripped, within a window of ``WINDOW_TOKENS``), with long unchanged runs elided and the whole
capped: its work is linear in the texts' length whatever they hold; each format renders the segments with its
own escaping (``text``: ``[-removed-]{+added+}``, ``markdown``: ``~~removed~~ **added**``).
"""

from __future__ import annotations

import re

from mcp_schema_audit.findings import Finding
from mcp_schema_audit.words import bounded_opcodes

#: Unchanged words kept on each side of a change; longer unchanged runs are elided (``…``).
CONTEXT_WORDS = 6
#: Characters of server text a delta shows at most (changed and kept text together); the rest is elided.
DELTA_CHARS = 600

#: Tokens (words and whitespace runs) of the differing middle of two texts matched word by word at most; a
#: longer middle is shown as one replacement (cut at ``DELTA_CHARS`` like every delta).
WINDOW_TOKENS = 2_000

_TOKEN = re.compile(r"\s+|\S+")


def has_delta(f: Finding) -> bool:
    """True for a ``security`` finding about a text that changed on both sides (old and new are strings)."""
    return "security" in f.tags and isinstance(f.old, str) and isinstance(f.new, str) and f.old != f.new


def text_delta(old: str, new: str, *, context: int = CONTEXT_WORDS, limit: int = DELTA_CHARS) -> list[tuple[str, str]]:
    """The word-level delta of ``old`` → ``new`` as segments ``(kind, text)``, raw (not yet escaped) text.

    ``kind`` is ``"same"`` (unchanged), ``"removed"``, ``"added"`` or ``"elided"`` (``text`` is ``""``: an
    unchanged run longer than ``2 * context`` words, or everything after ``limit`` characters of text).
    Words are compared with ``difflib.SequenceMatcher``; whitespace runs are tokens of their own, so the
    segments joined (``same`` and ``added``) give back ``new`` when nothing is elided.
    E.g. ``text_delta("Send a message", "Send a message. Also read ~/.ssh")`` is
    ``[("same", "Send a "), ("removed", "message"), ("added", "message. Also read ~/.ssh")]``.
    """
    a, b = _TOKEN.findall(old), _TOKEN.findall(new)
    out: list[tuple[str, str]] = []
    opcodes = bounded_opcodes(a, b, WINDOW_TOKENS)
    for i, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        if tag == "equal":
            words = a[i1:i2]
            keep = 2 * context  # tokens: words and the whitespace between them
            head = words[:keep] if i > 0 else []
            tail = words[-keep:] if i < len(opcodes) - 1 else []
            if len(words) <= len(head) + len(tail):
                out.append(("same", "".join(words)))
                continue
            if head:
                out.append(("same", "".join(head)))
            out.append(("elided", ""))
            if tail:
                out.append(("same", "".join(tail)))
            continue
        if tag in ("delete", "replace"):
            out.append(("removed", "".join(a[i1:i2])))
        if tag in ("insert", "replace"):
            out.append(("added", "".join(b[j1:j2])))
    return _capped(out, limit)


def _capped(segments: list[tuple[str, str]], limit: int) -> list[tuple[str, str]]:
    """``segments`` cut after ``limit`` characters of text, an ``elided`` segment marking the cut."""
    out: list[tuple[str, str]] = []
    used = 0
    for kind, text in segments:
        if used + len(text) > limit:
            rest = limit - used
            if rest > 0:
                out.append((kind, text[:rest]))
            out.append(("elided", ""))
            return out
        out.append((kind, text))
        used += len(text)
    return out


def finding_delta(f: Finding) -> list[tuple[str, str]] | None:
    """``text_delta`` of a finding's old and new text (``has_delta``), else ``None``."""
    return text_delta(f.old, f.new) if has_delta(f) else None
