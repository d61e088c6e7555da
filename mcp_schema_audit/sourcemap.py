"""Where each tool is registered in the server's source, so that annotations and SARIF results land on a line
of the pull request's diff instead of a generated snapshot file.

Recognised registrations (the SDKs' own spellings): TypeScript/JavaScript ``server.registerTool("name", …)`` and
``server.tool("name", …)`` (any receiver, any quote), Python ``@mcp.tool()`` / ``@server.tool(…)`` on
``def name`` (or ``async def``), and ``@….tool(name="name")`` / ``….tool("name")``. The files searched are the
ones git tracks under the root (else every file there), skipping ``node_modules``, build output (``dist``,
``build``, ``out``) and virtual environments, at most ``MAX_FILES`` files of at most ``MAX_BYTES`` each; the
first registration found (tracked source files in path order) wins; a symbolic link, FIFO or device is never read.
Standard library only.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
from pathlib import Path

#: Source files read at most, and the largest file read (bytes).
MAX_FILES = 5000
MAX_BYTES = 1_000_000
_SUFFIXES = {".ts", ".mts", ".cts", ".tsx", ".js", ".mjs", ".cjs", ".py"}
_SKIP_DIRS = {"node_modules", "dist", "build", "out", ".git", ".venv", "venv", "__pycache__", ".tox", "site-packages"}
# registerTool("name" / .tool("name" / .tool(name="name"  (the name as the first string argument)
_CALL = re.compile(r"""\b(?:registerTool|tool)\s*\(\s*(?:name\s*=\s*)?(["'`])((?:(?!\1)[^\\\n])+)\1""")
# one line of a decorated Python function: @mcp.tool / @server.tool() / @tool, another decorator, or def name(
_TOOL_DECORATOR = re.compile(r"[ \t]*@[\w.]*\btool\b")
_DECORATOR = re.compile(r"[ \t]*@")
_DEF = re.compile(r"[ \t]*(?:async[ \t]+)?def[ \t]+(\w+)[ \t]*\(")


def _decorated(text: str) -> list[tuple[str, int]]:
    """``(name, offset of the name)`` of each ``def`` whose decorators (the lines right above it that start with
    ``@``) include a ``tool`` one. One pass over the lines, each matched at its start only: the single regex
    this replaces retried the whole run of decorator lines from each of them (40,000 ``@tool`` lines, 240 KB,
    took 45 s)."""
    out: list[tuple[str, int]] = []
    tool_above = False
    offset = 0
    for line in text.split("\n"):
        if _TOOL_DECORATOR.match(line):
            tool_above = True
        elif not _DECORATOR.match(line):
            found = _DEF.match(line) if tool_above else None
            if found:
                out.append((found.group(1), offset + found.start(1)))
            tool_above = False
        offset += len(line) + 1
    return out


def source_files(root: Path) -> list[Path]:
    """The source files under ``root`` to search, in path order (git's tracked files when ``root`` is in a git
    checkout, else a walk), without skipped folders, at most ``MAX_FILES``."""
    listed: list[Path] = []
    try:
        proc = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root,
            capture_output=True,
            timeout=30,
            check=False,
        )
        if proc.returncode == 0:
            listed = [root / p for p in proc.stdout.decode("utf-8", "replace").split("\0") if p]
    except (OSError, subprocess.SubprocessError):
        listed = []
    if not listed:
        listed = [p for p in root.rglob("*") if p.is_file()] if root.is_dir() else []
    out = []
    for path in sorted(listed):
        rel = path.relative_to(root).parts if path.is_relative_to(root) else path.parts
        if path.suffix in _SUFFIXES and not _SKIP_DIRS.intersection(rel[:-1]):
            out.append(path)
            if len(out) >= MAX_FILES:
                break
    return out


def _source_text(path: Path) -> str | None:
    """The text of ``path`` when it is a regular file of at most ``MAX_BYTES`` (not a symbolic link: a pull request
    could commit ``src/x.ts`` as a link to ``/dev/zero``, a FIFO or a file outside the checkout), else ``None``.
    Opened without following a link and without blocking, then checked, so nothing is read from a device."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            data = fh.read(MAX_BYTES + 1)
        except OSError:
            return None
    return None if len(data) > MAX_BYTES else data.decode("utf-8", "replace")


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def registration_sites(root: Path, names: set[str]) -> dict[str, list[tuple[Path, int]]]:
    """``tool name → [(file, line), …]``: every file under ``root`` that registers one of ``names`` (its first
    registration there), in file order (absent when none does). Unreadable files are skipped."""
    found: dict[str, list[tuple[Path, int]]] = {}
    for path in source_files(root):
        text = _source_text(path)
        if text is None:
            continue
        hits = [(m.group(2), m.start()) for m in _CALL.finditer(text)]
        if path.suffix == ".py":
            hits += _decorated(text)
        here: set[str] = set()
        for name, offset in sorted(hits, key=lambda h: h[1]):
            if name in names and name not in here:
                here.add(name)
                found.setdefault(name, []).append((path, _line_of(text, offset)))
    return found


def registrations(root: Path, names: set[str]) -> dict[str, tuple[Path, int]]:
    """``tool name → (file, line)`` of the registration of each of ``names`` found under ``root``, for the names
    exactly one file registers (``registration_sites``): a name several files register (variants of one server,
    examples, tests) has no one source, and is absent as a name no file registers."""
    return {name: sites[0] for name, sites in registration_sites(root, names).items() if len(sites) == 1}
