"""Both sides of the pull-request check: the base revision checked out and set up beside the current checkout,
and each side's server captured the same way from its own checkout.

``schema-audit check`` and the GitHub Action (``scripts/action_run.py``) run this one flow; they differ only in
how one capture is done (``Capturer``: the CLI captures in its own process, the Action runs ``schema-audit
snapshot``) and in what they do with the two snapshots.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from mcp_schema_audit.prcheck.base import BaseError, BaseRevision, repo_prefix, run_setup, started_server, worktree


@dataclass(frozen=True)
class Side:
    """How one server is reached on both sides: ``command`` (stdio, split already), or ``url`` (Streamable HTTP)
    or ``sse`` (legacy HTTP+SSE) with ``start_command`` (a shell command that starts that server in each side's
    checkout); ``base_command`` (stdio) captures the base instead of ``command``/``url``; ``env`` (``KEY=VALUE``)
    reaches the stdio server or the started one; ``cwd`` is relative to each side's checkout; ``timeout_s``
    bounds a started server's wait for its port; ``name`` names the configuration in messages."""

    command: tuple[str, ...] = ()
    base_command: tuple[str, ...] = ()
    url: str = ""
    sse: str = ""
    env: tuple[str, ...] = ()
    cwd: str = ""
    start_command: str = ""
    timeout_s: float = 60.0
    name: str = ""

    def endpoint(self) -> str:
        """The HTTP endpoint (``url`` or ``sse``; ``""`` for a stdio server)."""
        return self.url or self.sse


@dataclass(frozen=True)
class Capture:
    """One capture to run: a stdio ``command`` (with ``env`` ``KEY=VALUE`` items, in ``cwd``; ``None`` = the
    current folder) or an HTTP endpoint (``url`` or ``sse``), written to the snapshot file ``target`` with
    ``label``; ``what`` names it in messages (``snapshot of the base``)."""

    command: tuple[str, ...]
    url: str
    sse: str
    env: tuple[str, ...]
    cwd: Path | None
    target: Path
    label: str
    what: str


#: Runs one capture; raises on failure (the caller's own error type, with its exit code).
Capturer = Callable[[Capture], None]

#: What a server (or a build) says when its checkout lacks what an install or a build makes (git tracks neither a
#: built ``dist/`` nor ``node_modules`` nor a virtual environment): Node's, Python's and the shell's words
#: (``sh: 1: tsc: not found``: a build whose tools an install would have put there).
_UNBUILT = re.compile(
    r"Cannot find module|Cannot find package|ERR_MODULE_NOT_FOUND|MODULE_NOT_FOUND|No module named|"
    r"ModuleNotFoundError|No such file or directory|ENOENT|command not found|: not found\b"
)
_SETUP_KEYS = ("install-command", "build-command")


def unbuilt_hint(message: str, setup: list[tuple[str, str]], spell: Callable[[str], str]) -> str | None:
    """The next step when the base's server failed with ``message`` naming a module or file that is missing and
    ``setup`` (``(key, command)`` pairs run in the base's checkout) lacks an install or a build command; ``None``
    otherwise. ``spell`` writes a setup key as the caller's user gives it (``--build-command``,
    ``build-command``). E.g. ``give --install-command and --build-command (e.g. 'npm ci' and 'npm run build'):
    the base revision is checked out from git alone …``; for a Python server (a module missing, or the interpreter of
    a virtual environment) the install command only, with a virtual environment made in the checkout, and for an
    interpreter named by a relative path, its absolute path as the other way."""
    if not _UNBUILT.search(message):
        return None
    given = {key for key, _command in setup}
    python = bool(_PYTHON.search(message))
    # a Python server needs its environment installed, and nothing built
    keys = [k for k in (("install-command",) if python else _SETUP_KEYS) if k not in given]
    if not keys:
        return None
    examples = _PYTHON_SETUP if python else _NODE_SETUP
    example = " and ".join(examples[k] for k in keys)
    hint = (
        f"give {' and '.join(spell(k) for k in keys)} (e.g. {example}): the base revision is checked out from git "
        "alone, without build output or installed dependencies, and they run in its checkout before its server starts"
    )
    relative = _RELATIVE_VENV.search(message) if python else None
    if relative:  # the user's own environment, named relative to the folder: found in the worktree, not here
        hint += (
            f"; or give the interpreter as an absolute path ('$PWD/{relative.group(1)}' from here): a relative "
            "command is resolved in the base's checkout, where the virtual environment is not"
        )
    return hint


#: What a Python server misses: a module (its environment not installed), or the virtual environment's interpreter
#: (``command not found: .venv/bin/python``: git does not track the venv).
_PYTHON = re.compile(
    r"No module named|ModuleNotFoundError|not found: \S*venv/bin/|\S*venv/bin/\S*: (?:command )?not found|"
    r"No such file or directory: '\S*venv/bin/"
)
#: A virtual environment's interpreter named relative to the folder (``venv/bin/python``, ``./.venv/bin/python3``).
_RELATIVE_VENV = re.compile(r"(?:not found: |No such file or directory: ')(?!/)(?:\./)?(\S*venv/bin/[^\s']+)")
_NODE_SETUP = {"install-command": "'npm ci'", "build-command": "'npm run build'"}
_PYTHON_SETUP = {"install-command": "'python3 -m venv .venv && .venv/bin/pip install -e .'"}


def capture_side(side: Side, which: str, *, label: str, target: Path, folder: Path | None, capturer: Capturer) -> Path:
    """Capture ``side``'s server as seen from ``folder`` (a checkout; ``None``: the current folder, nothing
    checked out) into ``target`` and return it. ``which`` is ``base`` or ``head`` (the base uses
    ``base_command`` when given). An HTTP side with ``start_command`` is started in ``folder`` first and stopped
    afterwards. Raises ``BaseError`` (exit 2) for an HTTP side that a checked-out base cannot reach without a
    start command, (exit 3) for a started server that exits or does not listen; the capturer's own errors pass."""
    where = f"{which} ({side.name})" if side.name else which
    command = side.base_command if which == "base" and side.base_command else side.command
    here = folder or Path.cwd()
    if command:
        cwd = here / side.cwd if side.cwd or folder is not None else None
        capturer(Capture(tuple(command), "", "", side.env, cwd, target, label, f"snapshot of the {where}"))
        return target
    one = Capture((), side.url, side.sse, (), None, target, label, f"snapshot of the {where}")
    if not side.start_command:
        if folder is not None:
            raise BaseError(
                f"configuration {side.name or '(inputs)'}: with a base revision an HTTP server must be started "
                "from each side's checkout: give start-command (or base-command for a stdio base)"
            )
        capturer(one)
        return target
    given = dict(item.split("=", 1) for item in side.env if "=" in item)
    with started_server(
        side.start_command,
        side.endpoint(),
        here / side.cwd,
        {**os.environ, **given},
        f"{where} server",
        timeout_s=side.timeout_s,
        secrets=tuple(v for v in given.values() if len(v) >= 4),
    ):
        capturer(one)
    return target


class Checkouts:
    """Both checkouts of one run: ``base_root`` (the current folder's place in the base's worktree; ``None``
    without a base revision), set up already; the current folder is set up by ``set_up_head``, which the
    caller runs only once every base capture is done, so that nothing the pull request's install or build
    does (a shared output folder, a global link, a cache) can change the base's server before it is captured."""

    def __init__(
        self, base_root: Path | None, setup: list[tuple[str, str]], env: dict[str, str], head_what: str
    ) -> None:
        self.base_root = base_root
        self._setup, self._env, self._head_what = setup, env, head_what
        self._head_done = False

    def set_up_head(self) -> None:
        """Run each setup command in the current folder (once; a second call does nothing). Raises
        ``BaseError``."""
        if self._head_done:
            return
        self._head_done = True
        for key, command in self._setup:
            run_setup(command, Path.cwd(), f"{key} in {self._head_what}", self._env)


@contextlib.contextmanager
def checked_out(
    revision: BaseRevision | None, setup: list[tuple[str, str]], env: dict[str, str], head_what: str
) -> Iterator[Checkouts]:
    """Check ``revision`` out in a temporary git worktree (none when ``None``), run each ``(name, command)`` of
    ``setup`` (install, then build) in the base's folder there, and yield the ``Checkouts``: the caller
    captures the base, then calls ``set_up_head`` (``head_what`` names the current folder in messages: ``the
    pull request's checkout``) and captures the head. The worktree is removed afterwards. Raises
    ``BaseError``."""
    with worktree(revision.sha) if revision is not None else contextlib.nullcontext() as root:
        base_root = root / repo_prefix() if root is not None else None
        if base_root is not None and revision is not None:
            for key, command in setup:
                run_setup(command, base_root, f"{key} in the base ({revision.why})", env)
        yield Checkouts(base_root, setup, env, head_what)
