"""Server text made inert, shared by every format: control, bidi and zero-width characters become visible escapes.

Each format then escapes what is special to it (Markdown/HTML in ``markdown``, embedded links in ``sarif``,
workflow-command ``%``/newlines in ``github``, XML through ElementTree in ``junit``, HTML with ``html_text``
in ``html``).
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

#: Control characters, bidi controls, zero-width characters, lone surrogates and XML non-characters.
CONTROL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069"
    "\ufeff\ufff9-\ufffb\ufffe\uffff\ud800-\udfff]"
)


def inert(text: Any) -> str:
    """``text`` as a string with every control, bidi or zero-width character replaced by a visible escape.

    Characters below U+0100 become ``\\xNN``, others ``\\uNNNN``; tab and newline are kept (each format
    deals with line structure itself). Non-strings are shown as compact JSON. The result is valid
    UTF-8 and valid XML 1.0 character data (lone surrogates are escaped too).
    """
    s = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False, default=str)
    return CONTROL.sub(
        lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}", s
    )


def one_line(text: Any) -> str:
    """``inert`` text with tab, CR and LF shown as ``\\t``, ``\\r``, ``\\n`` (one line, nothing hidden)."""
    return inert(text).replace("\t", "\\t").replace("\n", "\\n")


def html_text(text: Any) -> str:
    """Server text as HTML character data or a quoted attribute value: ``one_line`` (nothing hidden, one line),
    then ``html.escape`` with quotes (``&``, ``<``, ``>``, ``"`` and ``'`` as character references), so no tag,
    attribute, comment or character reference of the server's forms; the browser shows the text as it was sent."""
    return html.escape(one_line(text), quote=True)


def html_block(text: str) -> str:
    """``inert`` text (line breaks kept) for a ``<pre>`` block, its HTML specials as character references."""
    return html.escape(inert(text), quote=True)


def no_workflow_commands(text: str) -> str:
    """``text`` with every ``::`` and ``##[`` written ``:\\x3a`` and ``#\\x23[``: no line of it, wrapped or not,
    can read as a GitHub workflow command (the runner reads ``::cmd::`` at a line's start and ``##[cmd]``
    anywhere in a line, e.g. ``##[add-mask]`` or ``##[stop-commands]``)."""
    return text.replace("::", ":\\x3a").replace("##[", "#\\x23[")


def json_text(value: Any, *, sort_keys: bool) -> str:
    """JSON (indent 2, UTF-8 text, final newline) with every ``CONTROL`` character as a ``\\u`` escape (four hex
    digits).

    Strict: NaN or Infinity in ``value`` raises ``ValueError`` (a report is always valid JSON; capture keeps
    such numbers out). Control characters only occur inside strings, so the text parses back to the same value; bidi
    controls and lone surrogates never reach a terminal or an editor raw, and the text is valid UTF-8.
    """
    text = json.dumps(value, sort_keys=sort_keys, indent=2, ensure_ascii=False, default=str, allow_nan=False) + "\n"
    return CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def instance_json(instance: Any, limit: int | None = None) -> str:
    """``instance`` as indented, sorted JSON (inert), cut after ``limit`` characters with a ``(truncated)`` line."""
    text = json.dumps(instance, ensure_ascii=False, sort_keys=True, indent=2, default=str)
    if limit is not None and len(text) > limit:
        text = text[:limit] + "\n… (truncated)"
    return inert(text)
