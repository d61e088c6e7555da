"""A failed program's output quoted on one line: the line that names the error, then the last lines.

A server that crashes at start prints its error first and a stack after it (Node:
``Error: Cannot find module '…'`` and a dozen ``at …`` lines; ``TypeError: fetch failed`` and its cause), or
a traceback ending with the error (Python: ``ModuleNotFoundError: No module named 'x'`` last). Its last five
lines alone may be the stack only; the quote keeps the error line too. Standard library only (used by the
capture and by the pull-request check's setup commands and started servers).
"""

from __future__ import annotations

import re

#: Lines quoted after the error line (the output's last ones).
TAIL_LINES = 5
#: Characters of one quoted line (longer ones are cut).
LINE_CHARS = 160

_ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
# "TypeError: fetch failed", "Error [ERR_MODULE_NOT_FOUND]: Cannot find package", "Uncaught Error: x",
# "ModuleNotFoundError: No module named 'x'", "pydantic_core._pydantic_core.ValidationError: 1 validation error",
# "error: x" (rust, go, npm), "npm ERR! x", "fatal: x", "panic: x", "src/a.ts(3,1): error TS2322: x" (tsc),
# "a.c:1:2: error: x" (compilers)
_ERROR_RE = re.compile(
    r"^(?:Uncaught\s+)?(?:[A-Za-z_][\w.]*\.)?(?:[A-Z]\w*(?:Error|Exception|Exit|Interrupt)|Error|Exception)"
    r"(?:\s*\[[\w.-]+\])?:\s*\S"
    r"|^(?:error|fatal|panic|FATAL|ERROR)(?:\[\w+\])?:\s*\S"
    r"|^npm (?:ERR!|error)\s+\S"
    r"|^\S+:\s+(?:fatal\s+)?error(?:\s+[A-Z]+\d+)?:\s*\S"
)
_TRACEBACK = "Traceback (most recent call last):"


def secret_pattern(secrets: list[str] | tuple[str, ...]) -> re.Pattern[str]:
    """A regex matching any of ``secrets`` as a server may echo it back: as given, in another letter case
    (``ZQ7XK9PLM2WV``), or reversed; the longest first. Not matched: a secret cut into pieces or encoded
    (base64, hex), which no plain search can tell from other text."""
    variants = sorted({v for secret in secrets if secret for v in (secret, secret[::-1])}, key=len, reverse=True)
    return re.compile("|".join(re.escape(v) for v in variants) or "(?!)", re.IGNORECASE)


def clean_lines(text: str, secrets: tuple[str, ...] = (), line_chars: int = LINE_CHARS) -> list[str]:
    """The non-blank lines of ``text``, each on one line: ANSI escapes and unprintable characters removed,
    blanks collapsed, every value of ``secrets`` replaced by ``***`` (``secret_pattern``), cut to
    ``line_chars`` in the middle (``clip_middle``: Python names the missing module at the end of its line)."""
    if any(secrets):
        text = secret_pattern(secrets).sub("***", text)
    out = []
    for raw in text.splitlines():
        line = "".join(ch for ch in " ".join(_ANSI_RE.sub("", raw).split()) if ch.isprintable())
        if line:
            out.append(clip_middle(line, line_chars))
    return out


def clip_middle(line: str, chars: int) -> str:
    """``line`` when it has at most ``chars`` characters, else its first two fifths and its end joined by ``…``
    (``chars`` in all): both the start (Node's ``Error: Cannot find module``) and the end (Python's
    ``(ModuleNotFoundError: No module named 'x')``) of a long error line are kept.

    >>> clip_middle("Error while finding module specification for 'x.y' (ModuleNotFoundError: No module named 'x')", 60)
    "Error while finding modu…NotFoundError: No module named 'x')"
    """
    if len(line) <= chars:
        return line
    head = max(1, chars * 2 // 5)
    return line[:head] + "…" + line[len(line) - (chars - head - 1) :]


def error_line(lines: list[str]) -> int | None:
    """The index of the line that names the error in ``lines`` (cleaned), or ``None``: after a Python
    traceback the last error line (the exception raised), else the first (Node prints it before the stack)."""
    found = [i for i, line in enumerate(lines) if _ERROR_RE.match(line)]
    if not found:
        return None
    tracebacks = [i for i, line in enumerate(lines) if line == _TRACEBACK]
    if tracebacks:
        after = [i for i in found if i > tracebacks[-1]]
        if after:
            return after[-1]
    return found[0]


def quote_output(text: str, secrets: tuple[str, ...] = (), tail: int = TAIL_LINES) -> str:
    """``text`` (a program's output) on one line: the line that names the error when there is one, ``…`` when
    lines were left out, then the last ``tail`` lines (without the error line when it is among them), joined with
    `` | ``; ``""`` for no output. A Python error line with lines after it (an exception whose message goes on:
    pydantic's ``ValidationError`` names each field on its own line) is followed by those lines instead (at most
    ``tail``, then ``…`` when more were left out).

    >>> quote_output("node:internal/x:1\\n  throw err;\\nError: Cannot find module 'a'\\n at 1\\n at 2\\n at 3\\n"
    ...              " at 4\\n at 5\\nNode.js v20", tail=3)
    "Error: Cannot find module 'a' | … | at 4 | at 5 | Node.js v20"
    """
    lines = clean_lines(text, secrets)
    start = max(len(lines) - tail, 0) if tail > 0 else len(lines)
    last = lines[start:]
    found = error_line(lines)
    if found is None:
        return " | ".join(last)
    named = lines[found] + _where(lines, found)
    if _TRACEBACK in lines[:found] and found < len(lines) - 1:
        # Python prints the exception last: the lines after its first line are the rest of its message
        # (pydantic's ``2 validation errors for Settings`` names each field on the lines that follow)
        following = lines[found + 1 : found + 1 + max(tail, 1)]
        more = ["…"] if found + 1 + len(following) < len(lines) else []
        return " | ".join([named, *following, *more])
    if found >= start:  # among the last lines (Python's error line ends its traceback): it goes first all the same
        return " | ".join([named, *(line for i, line in enumerate(last, start) if i != found)])
    gap = ["…"] if found < start - 1 else []
    return " | ".join([named, *gap, *last])


#: Node's header of a syntax or load error in the user's own file: ``/srv/app/server.mjs:5`` (not
#: ``node:internal/…:1228``, Node's own code).
_SOURCE_LOCATION = re.compile(r"^(?!node:)(?:file://)?[^\s:][^\s]*:\d+$")


def _where(lines: list[str], found: int) -> str:
    """`` (at FILE:LINE: SOURCE)`` when a line before the error line ``found`` is Node's location header of the
    user's own file (``_SOURCE_LOCATION``), with the source line it prints after it (not the caret line); ``""``
    otherwise. A ``SyntaxError`` names no file of its own: its location is that header."""
    at = next((i for i in range(found - 1, -1, -1) if _SOURCE_LOCATION.match(lines[i])), None)
    if at is None:
        return ""
    source = lines[at + 1] if at + 1 < found and set(lines[at + 1]) - {"^", " "} else ""
    return f" (at {lines[at]}{': ' + source if source else ''})"
