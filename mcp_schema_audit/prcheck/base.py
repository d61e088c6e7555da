"""The base side of the pull-request check: the base revision, its git worktree, install and build commands,
and HTTP servers started for a capture. Used by ``schema-audit check`` and the GitHub Action
(``scripts/action_run.py``), through ``prcheck.sides``.

Nothing here interpolates inputs into shell code of its own: ``install-command``, ``build-command`` and
``start-command`` are the user's shell commands (as a workflow's ``run:`` step is) and run through
``/bin/sh -c`` with the command text as one argument.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from mcp_schema_audit.gitref import remote_twin
from mcp_schema_audit.outputlines import quote_output, secret_pattern
from mcp_schema_audit.prcheck import processes
from mcp_schema_audit.report.escape import no_workflow_commands, one_line

#: Seconds an install or build command may take.
SETUP_TIMEOUT_S = 1800.0
#: Seconds a started server's process group has to stop after each signal.
STOP_GRACE_S = 5.0
#: Seconds a git command may take.
GIT_TIMEOUT_S = 120.0
_PR_EVENTS = ("pull_request", "pull_request_target")


class BaseError(Exception):
    """A failure of the base side with its exit code (2: bad input or unknown revision; 3: the base could not
    be installed, built or started) and a one-line message."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


class FirstRelease(Exception):
    """A tag push with no earlier tag: no host can have cached an older version."""


@dataclass(frozen=True)
class BaseRevision:
    """The revision captured as OLD: ``sha`` (full), ``label`` (a snapshot label), ``why`` (how it was chosen)."""

    sha: str
    label: str
    why: str


def git(*args: str, cwd: Path | None = None, check: bool = True) -> str:
    """Run ``git args`` and return its stdout stripped. Raises ``BaseError`` (exit 2) when git is missing, hangs
    or (``check``) fails; the message ends with git's last stderr line."""
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=GIT_TIMEOUT_S)
    except FileNotFoundError:
        raise BaseError("git is not installed: base-ref needs a git checkout") from None
    except subprocess.TimeoutExpired:
        raise BaseError(f"git {args[0]} did not finish within {GIT_TIMEOUT_S:.0f} s") from None
    if check and proc.returncode != 0:
        last = [ln for ln in proc.stderr.splitlines() if ln.strip()]
        raise BaseError(f"git {' '.join(args[:2])} failed: {last[-1] if last else f'exit {proc.returncode}'}")
    return proc.stdout.strip()


def _commit(rev: str) -> str | None:
    """The full sha of ``rev`` (a commit), or ``None`` when the repository does not have it."""
    if not rev or rev.startswith("-"):
        return None
    out = git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}", check=False)
    return out or None


def _shallow_hint(local: bool = False) -> str:
    """How to get a missing revision: in the Action, ``actions/checkout`` with ``fetch-depth: 0``; from the
    command line (``local``), ``git fetch``."""
    shallow = git("rev-parse", "--is-shallow-repository", check=False) == "true"
    if local:
        return " (this is a shallow clone: git fetch --unshallow)" if shallow else " (fetch it first: git fetch)"
    return (
        " (this is a shallow clone: use actions/checkout with fetch-depth: 0)"
        if shallow
        else " (fetch it first, e.g. actions/checkout with fetch-depth: 0)"
    )


#: The other name of a repository's default branch.
_DEFAULT_TWINS = {"main": "master", "master": "main"}


def _nearby_ref(rev: str) -> str | None:
    """A local branch or tag close to ``rev`` (``master`` for ``main`` in a repository whose default branch has the
    older name, ``v1.2.0`` for ``1.2.0``), or ``None``; at most 2,000 names are read."""
    import difflib

    out = git("for-each-ref", "--count=2000", "--format=%(refname:short)", "refs/heads", "refs/tags", check=False)
    names = [n for n in out.splitlines() if n]
    if _DEFAULT_TWINS.get(rev) in names:
        return _DEFAULT_TWINS[rev]
    if f"v{rev}" in names:
        return f"v{rev}"
    close = difflib.get_close_matches(rev, names, n=1, cutoff=0.75)
    return close[0] if close else None


def _inside_work_tree(option: str) -> None:
    """Raise ``BaseError`` (exit 2) unless the current folder is inside a git work tree: ``option`` (``--base-ref``
    or the Action's ``input base-ref``) names what needed one."""
    if git("rev-parse", "--is-inside-work-tree", check=False) != "true":
        other = "--base SNAPSHOT" if option.startswith("--") else "the input base (a snapshot)"
        raise BaseError(
            f"not a git repository: {Path.cwd()} ({option} needs the server's git checkout: run it there, or "
            f"give the base with {other})"
        )


def _label_for(name: str, sha: str) -> str:
    """A snapshot label for the base: the ref's name when it is a valid label (``v1.2.0``, ``main``), else (also
    for a commit id, and for ``HEAD``, which read beside the other side's ``head`` as the same name)
    ``base-<sha12>``."""
    ok = (
        name
        and name.lower() != "head"
        and len(name) <= 128
        and name.isascii()
        and name[0].isalnum()
        and all(c.isalnum() or c in "._+-" for c in name)
        and not sha.startswith(name.lower())
    )
    return name if ok else f"base-{sha[:12]}"


def resolve_base(base_ref: str, env: dict[str, str], option: str = "input base-ref") -> BaseRevision:
    """The revision to capture as OLD.

    ``base_ref`` given: that revision (a branch, tag, sha, ``origin/main``…). Otherwise, from the GitHub
    event (``env``: ``GITHUB_EVENT_NAME``, ``GITHUB_EVENT_PATH``, ``GITHUB_BASE_REF``, ``GITHUB_REF``): on a
    pull request or a merge group the merge base of ``HEAD`` with the target branch (the event's
    ``pull_request.base.sha`` or ``merge_group.base_sha``, else ``origin/<base ref>``; ``event_base``);
    on a tag push the previous tag (``git describe --tags --abbrev=0 TAG^``).
    Raises ``FirstRelease`` on a tag push without an earlier tag, and ``BaseError`` when the current folder is
    not in a git work tree, the revision is unknown (with the shallow-clone fix) or no default applies.
    ``option`` is how the caller spells the setting in messages: the Action's ``input base-ref`` (its hints
    name ``actions/checkout``) or ``check``'s ``--base-ref`` (its hints name ``git fetch``).
    """
    if base_ref:
        _inside_work_tree(option)
        sha = _commit(base_ref)
        if sha is None:
            twin = remote_twin(base_ref)
            near = _nearby_ref(base_ref) if twin is None else None
            hint = (
                f" (did you mean {twin!r}? {base_ref!r} is only a remote-tracking branch here)"
                if twin is not None
                else f" (did you mean {near!r}? a branch or tag here)"
                if near is not None
                else _shallow_hint(local=option.startswith("--"))
            )
            raise BaseError(f"{option}: revision {base_ref!r} not found in this repository{hint}")
        return BaseRevision(sha, _label_for(base_ref.rsplit("/", 1)[-1], sha), f"base-ref {base_ref}")
    event_name = env.get("GITHUB_EVENT_NAME", "")
    event: dict = {}
    try:
        loaded = json.loads(Path(env.get("GITHUB_EVENT_PATH", "")).read_text(encoding="utf-8"))
        event = loaded if isinstance(loaded, dict) else {}
    except (OSError, ValueError):
        pass
    ref = env.get("GITHUB_REF", "")
    if event_name in (*_PR_EVENTS, "merge_group") or ref.startswith("refs/tags/"):
        _inside_work_tree(option)
    if event_name in (*_PR_EVENTS, "merge_group"):
        given, target = event_base(event_name, event)
        target = env.get("GITHUB_BASE_REF") or target
        candidates = [c for c in (given, f"origin/{target}" if target else "", target) if c]
        for candidate in candidates:
            tip = _commit(candidate)
            if tip is None:
                continue
            merge_base = git("merge-base", "HEAD", tip, check=False)
            if merge_base:
                # the merge base, named by the branch it is on (``main-1a2b3c4``): not the branch's tip
                branch = (target or candidate).rsplit("/", 1)[-1]
                return BaseRevision(
                    merge_base,
                    _label_for(f"{branch}-{merge_base[:7]}", merge_base),
                    f"merge base of HEAD with {target or candidate}",
                )
        raise BaseError(
            f"cannot find the merge base with the {'merge group' if event_name == 'merge_group' else 'pull request'}'s "
            f"target branch {target or '?'}"
            f"{_shallow_hint()}; or set base-ref"
        )
    if ref.startswith("refs/tags/"):
        tag = ref[len("refs/tags/") :]
        previous = git("describe", "--tags", "--abbrev=0", f"{tag}^", check=False)
        if not previous:
            if git("rev-parse", "--is-shallow-repository", check=False) == "true":
                raise BaseError(f"cannot find the tag before {tag}{_shallow_hint()}")
            raise FirstRelease(tag)
        sha = _commit(previous)
        if sha is None:
            raise BaseError(f"tag {previous!r} does not name a commit")
        return BaseRevision(sha, _label_for(previous, sha), f"previous tag {previous}")
    raise BaseError(
        "input base is required (a store label, a snapshot file, or git:origin/main:PATH), or base-ref "
        "(a git revision whose server is built and captured); base-ref defaults to the merge base on "
        "pull requests and to the previous tag on tag pushes"
    )


def event_base(event_name: str, event: dict[str, Any]) -> tuple[str, str]:
    """``(sha, branch)`` of the target branch's tip as the GitHub event gives it: ``pull_request.base.sha`` and
    ``.ref`` on ``pull_request``/``pull_request_target``, ``merge_group.base_sha`` and ``.base_ref`` (without
    ``refs/heads/``) on ``merge_group``; ``""`` for what the event does not give as a string."""
    if event_name == "merge_group":
        group = event.get("merge_group")
        found: Any = group if isinstance(group, dict) else {}
        sha, branch = found.get("base_sha"), found.get("base_ref")
        branch = branch.removeprefix("refs/heads/") if isinstance(branch, str) else ""
    else:
        pr = event.get("pull_request")
        found = pr.get("base") if isinstance(pr, dict) else None
        found = found if isinstance(found, dict) else {}
        sha, branch = found.get("sha"), found.get("ref")
    return (sha if isinstance(sha, str) else "", branch if isinstance(branch, str) else "")


def event_commit(env: dict[str, str]) -> tuple[str, str] | None:
    """On a pull request or merge group event: ``(sha, why)`` of the target branch's tip the event names when
    this clone has that commit, else ``None`` (also outside such events)."""
    name = env.get("GITHUB_EVENT_NAME", "")
    if name not in (*_PR_EVENTS, "merge_group"):
        return None
    try:
        loaded = json.loads(Path(env.get("GITHUB_EVENT_PATH", "")).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    tip, branch = event_base(name, loaded if isinstance(loaded, dict) else {})
    sha = _commit(tip)
    return (sha, f"the tip of {branch or 'the target branch'} the event names") if sha else None


@contextlib.contextmanager
def worktree(sha: str) -> Iterator[Path]:
    """Check ``sha`` out in a temporary git worktree (detached) and yield the repository root there; the
    worktree is removed afterwards, also after a failure or SIGTERM (``git worktree remove --force``, the
    folder deleted, ``git worktree prune``). Raises ``BaseError`` when the checkout fails."""
    parent = Path(tempfile.mkdtemp(prefix="schema-audit-base-", dir=os.environ.get("RUNNER_TEMP") or None))
    path = parent / "checkout"
    previous = signal.getsignal(signal.SIGTERM)

    def on_term(signum: int, frame: object) -> None:  # run the cleanup below on a cancelled job
        raise KeyboardInterrupt

    if previous in (signal.SIG_DFL, None):  # the Action's own handler (action_run) already ends the run cleanly
        signal.signal(signal.SIGTERM, on_term)
    try:
        git("worktree", "add", "--detach", "--force", "--quiet", str(path), sha)
        yield path
    finally:
        git("worktree", "remove", "--force", str(path), check=False)
        shutil.rmtree(parent, ignore_errors=True)
        git("worktree", "prune", check=False)
        signal.signal(signal.SIGTERM, previous)


def _stop_group(child: subprocess.Popen[Any]) -> None:
    """SIGTERM to ``child``'s process group (its session leader's), 5 s, then SIGKILL; nothing when it is gone."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(child.pid, sig)
        except (ProcessLookupError, PermissionError):
            break
        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline:
            child.poll()
            try:
                os.killpg(child.pid, 0)
            except (ProcessLookupError, PermissionError):
                return
            time.sleep(0.05)
    with contextlib.suppress(subprocess.TimeoutExpired):
        child.wait(timeout=5.0)


def workflow_inert(text: str) -> str:
    """``text`` with ``::`` and ``##[`` written ``:\\x3a`` and ``#\\x23[`` (``report.escape.no_workflow_commands``;
    colours and line breaks kept, as the log shows them): a command's output echoed to the log forges no
    workflow command (an annotation, ``add-mask``, ``stop-commands``)."""
    return no_workflow_commands(text)


def repo_prefix() -> str:
    """The current folder relative to the repository root (``""`` at the root, else ``sub/dir/``)."""
    return git("rev-parse", "--show-prefix")


def run_setup(command: str, cwd: Path, what: str, env: dict[str, str]) -> None:
    """Run the user's ``command`` (``/bin/sh -c``) in ``cwd``; its output goes to our stderr (the job log).
    Raises ``BaseError`` (exit 3, quoting the output's error line and last lines) when it fails or takes longer
    than ``SETUP_TIMEOUT_S``."""
    # the command's text on one line, inert: an input holding "::error::" or "##[add-mask]" forges nothing
    sys.stderr.write(f"schema-audit: {what}: {no_workflow_commands(one_line(command))}\n")
    sys.stderr.flush()
    # output to a file, not a pipe: a daemon the command leaves running keeps its stdout open, and a pipe would
    # make the wait last until that daemon ends (or the timeout); the command itself ending is what counts
    with tempfile.TemporaryFile() as sink:
        child = subprocess.Popen(
            ["/bin/sh", "-c", command], cwd=cwd, env=env, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            child.wait(timeout=SETUP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise BaseError(f"{what} did not finish within {SETUP_TIMEOUT_S:.0f} s", 3) from None
        finally:  # its whole process group, also after a timeout or a SIGTERM to the Action: no orphan left
            _stop_group(child)
        out = _tail(sink)
    proc = subprocess.CompletedProcess(child.args, child.returncode, out, None)
    sys.stderr.write(workflow_inert(proc.stdout))
    if proc.returncode != 0:
        raise BaseError(f"{what} failed (exit {proc.returncode}): {quote_output(proc.stdout) or 'no output'}", 3)


#: The most of a set-up command's output kept to echo and quote (its end: where the error is)
SETUP_OUTPUT_BYTES = 4 * 1024 * 1024


def _tail(sink: IO[bytes]) -> str:
    """The last ``SETUP_OUTPUT_BYTES`` written to the file ``sink``, as text (undecodable bytes replaced)."""
    size = sink.seek(0, os.SEEK_END)
    sink.seek(max(0, size - SETUP_OUTPUT_BYTES))
    return sink.read().decode("utf-8", errors="replace")


@contextlib.contextmanager
def started_server(
    command: str,
    url: str,
    cwd: Path,
    env: dict[str, str],
    what: str,
    timeout_s: float = 60.0,
    secrets: tuple[str, ...] = (),
) -> Iterator[None]:
    """Start ``command`` (``/bin/sh -c``, its own session) in ``cwd`` and wait until ``url``'s host and port
    accept TCP connections; stop every process it started afterwards, whatever its leader did (its group,
    its session, daemons that came back to this process: ``processes.Tracked``; SIGTERM, 5 s, SIGKILL).

    Raises ``BaseError`` (exit 3, quoting the server's error line and last output lines with every value of ``secrets``
    replaced by ``***``) when something already listens on that port before the start (an earlier side's
    server still running would be captured instead), when the start-command fails or leaves no process
    before the port accepts connections, when it is not listening within ``timeout_s`` seconds, or when
    the port is held by a process that the start-command did not start. When the owner of the port
    cannot be told (no ``/proc``, a container's published port, another user's process) a line on stderr
    says so."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or "127.0.0.1"
    port = parts.port or (443 if parts.scheme == "https" else 80)
    if processes.listening(host, port):
        owners = processes.port_owners(port)
        held = f" (by pid {', '.join(f'{p} {processes.command_name(p)}' for p in sorted(owners))})" if owners else ""
        raise BaseError(
            f"{what}: port {port} on {host} is already in use{held} before start-command runs: "
            "the capture would reach that server instead of the one started here (stop it, or use another port)",
            3,
        )
    shown = secret_pattern(secrets).sub("***", one_line(command)) if any(secrets) else one_line(command)
    sys.stderr.write(f"schema-audit: {what}: {no_workflow_commands(shown)} (waiting for {host}:{port})\n")
    sys.stderr.flush()
    log = tempfile.TemporaryFile()  # noqa: SIM115 (it outlives this function: the server writes to it)
    before = processes.children_of_self()
    proc = subprocess.Popen(
        ["/bin/sh", "-c", command],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    tracked = processes.Tracked(proc, before)

    def output() -> str:
        log.seek(0)
        return quote_output(log.read().decode("utf-8", "replace"), secrets) or "no output"

    try:
        deadline = time.monotonic() + timeout_s
        while not processes.listening(host, port):
            code = proc.poll()
            if code is not None and (code != 0 or not tracked.any_alive()):
                raise BaseError(
                    f"{what}: start-command exited with {code}"
                    + (" and left no process running" if code == 0 else "")
                    + f" before {host}:{port} accepted connections: {output()}",
                    3,
                )
            if time.monotonic() > deadline:
                raise BaseError(
                    f"{what}: nothing listens on {host}:{port} {timeout_s:.0f} s after start-command: {output()}", 3
                )
            time.sleep(0.1)
        _check_owner(tracked, port, what)
        yield
    finally:
        left = tracked.stop()
        log.close()
        if left:
            sys.stderr.write(f"schema-audit: {what}: processes {left} outlived SIGKILL\n")
        elif processes.listening(host, port):
            sys.stderr.write(f"schema-audit: {what}: {host}:{port} still accepts connections after its stop\n")


def _check_owner(tracked: processes.Tracked, port: int, what: str) -> None:
    """Raise ``BaseError`` (exit 3) when ``port`` is held by a process outside ``tracked``; say on stderr when
    the owner cannot be told."""
    owners = processes.port_owners(port)
    if owners is None:
        sys.stderr.write(
            f"schema-audit: {what}: cannot tell which process listens on port {port} (no /proc, a container's "
            "published port, or another user's process); it was free before start-command ran\n"
        )
        return
    ours = tracked.members()
    foreign = sorted(owners - ours)
    if foreign and not owners & ours:
        names = ", ".join(f"{p} {processes.command_name(p)}" for p in foreign)
        raise BaseError(f"{what}: port {port} is held by pid {names}, not by a process of start-command", 3)
