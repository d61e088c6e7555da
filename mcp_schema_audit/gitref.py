"""``git:REF:PATH`` inputs: a snapshot file as it was at a git revision (read with ``git show``)."""

from __future__ import annotations

import os
import re
import subprocess

from mcp_schema_audit.errors import InputError
from mcp_schema_audit.snapshot import MAX_INPUT_BYTES, Snapshot, parse_json_text, snapshot_from_data

PREFIX = "git:"


def is_git_ref(ref: str) -> bool:
    """True for ``git:REF:PATH``."""
    return ref.startswith(PREFIX)


def load_git_snapshot(ref: str, *, timeout_s: float = 30.0) -> Snapshot:
    """Load ``git:REF:PATH`` from the repository of the current folder. Raises ``InputError`` as
    ``read_git_file`` does, and for content that is not an accepted snapshot form."""
    return snapshot_from_data(parse_json_text(read_git_file(ref, timeout_s=timeout_s), ref), source=ref)


def read_git_file(ref: str, *, timeout_s: float = 30.0) -> bytes:
    """The bytes of the file ``git:REF:PATH`` names, from the repository of the current folder.

    Raises ``InputError`` (one line) when the spec is malformed, git is missing, the revision is
    unknown (with the fetch that brings it in: ``fetch-depth: 0``, or ``git fetch origin main`` for
    ``origin/main``, see ``fetch_source``), or the
    path does not exist at that revision.
    """
    spec = ref[len(PREFIX) :]
    if ":" not in spec:
        raise InputError(f"{ref}: expected git:REF:PATH, e.g. git:origin/main:.schema-audit/snapshots/v1.json")
    rev, path = spec.rsplit(":", 1)
    if not rev or not path or rev.startswith("-"):
        raise InputError(f"{ref}: expected git:REF:PATH with a revision and a path")
    try:
        repo = subprocess.run(["git", "rev-parse", "--git-dir"], capture_output=True, timeout=timeout_s, check=False)
        if repo.returncode != 0:
            raise InputError(
                f"{ref}: not a git repository: {os.getcwd()}",
                hint="git: inputs are read from the repository of the current folder; run from inside "
                "it, or give the snapshot file's path",
            )
        check = subprocess.run(
            ["git", "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"],
            capture_output=True,
            timeout=timeout_s,
            check=False,
        )
    except FileNotFoundError as exc:
        raise InputError(f"{ref}: git is not installed") from exc
    except subprocess.TimeoutExpired as exc:
        raise InputError(f"{ref}: git did not answer within {timeout_s:g} s") from exc
    if check.returncode != 0:
        shallow = (
            subprocess.run(
                ["git", "rev-parse", "--is-shallow-repository"],
                capture_output=True,
                text=True,
                timeout=timeout_s,
                check=False,
            ).stdout.strip()
            == "true"
        )
        twin = remote_twin(rev, timeout_s)
        if twin is not None:
            raise InputError(
                f"{ref}: revision {rev!r} not found in this repository",
                hint=f"it exists as the remote-tracking branch {twin!r}: write git:{twin}:{path}",
            )
        remote, name = fetch_source(rev, _remotes(timeout_s))
        depth = "" if re.search(r"[~^]", rev) else "--depth=1 "  # an ancestor needs more than the tip
        hint = (
            (
                f"this is a shallow clone: fetch the revision with 'git fetch {depth}{remote} {name}' or use "
                "actions/checkout with fetch-depth: 0"
            )
            if shallow
            else (f"fetch it with 'git fetch {remote} {name}' (in CI: actions/checkout with fetch-depth: 0)")
        )
        raise InputError(f"{ref}: revision {rev!r} not found in this repository", hint=hint)
    # the blob's size first: a file past the bound is refused without reading it (a 2.5 GB blob took 2.5 GB)
    size = subprocess.run(
        ["git", "cat-file", "-s", f"{rev}:{path}"], capture_output=True, text=True, timeout=timeout_s, check=False
    )
    if size.returncode != 0 or not size.stdout.strip().isdigit():
        raise InputError(f"{ref}: no file {path!r} at revision {rev!r}")
    if int(size.stdout.strip()) > MAX_INPUT_BYTES:
        raise InputError(f"{ref}: file is larger than {MAX_INPUT_BYTES} bytes")
    show = subprocess.run(["git", "show", f"{rev}:{path}"], capture_output=True, timeout=timeout_s, check=False)
    if show.returncode != 0:
        raise InputError(f"{ref}: no file {path!r} at revision {rev!r}")
    if len(show.stdout) > MAX_INPUT_BYTES:  # a filter or a replaced object may still change what git shows
        raise InputError(f"{ref}: file is larger than {MAX_INPUT_BYTES} bytes")
    return bytes(show.stdout)


def fetch_source(rev: str, remotes: list[str]) -> tuple[str, str]:
    """``(remote, name)`` for the ``git fetch REMOTE NAME`` that brings ``rev`` into the repository: a
    remote-tracking ref (``origin/main``, ``refs/remotes/upstream/release/1.x``) is fetched as its branch from
    its remote (``origin main``, ``upstream release/1.x``: ``git fetch origin origin/main`` fails); any other
    revision (a branch, a tag, a commit) from ``origin`` as given. An ancestry suffix is left to git once the
    branch is there (``origin/main~2`` → ``origin main``). ``remotes``: the repository's remote names
    (``origin`` is assumed when it has none)."""
    known = sorted(set(remotes) or {"origin"}, key=len, reverse=True)  # "up/stream" before "up"
    bare = rev[len("refs/remotes/") :] if rev.startswith("refs/remotes/") else rev
    for remote in known:
        if bare.startswith(remote + "/") and len(bare) > len(remote) + 1:
            branch = re.split(r"[~^@]", bare[len(remote) + 1 :], maxsplit=1)[0]
            return remote, branch or bare[len(remote) + 1 :]
    return "origin", rev


def remote_twin(rev: str, timeout_s: float = 10.0) -> str | None:
    """``origin/main`` when ``rev`` (``main``) is not a revision here but a remote-tracking branch of that name
    is (a clone on another branch, where ``main`` exists only as ``origin/main``); else ``None``. Remotes are
    tried in ``git remote`` order."""
    if not rev or rev.startswith("-") or re.search(r"[~^@:]", rev):
        return None
    for remote in _remotes(timeout_s) or ["origin"]:
        twin = f"{remote}/{rev}"
        try:
            out = subprocess.run(
                ["git", "rev-parse", "--verify", "--quiet", f"refs/remotes/{twin}^{{commit}}"],
                capture_output=True,
                text=True,
                timeout=timeout_s,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        if out.returncode == 0 and out.stdout.strip():
            return twin
    return None


def _remotes(timeout_s: float) -> list[str]:
    """The names of the current repository's remotes (``[]`` when it has none or git does not answer)."""
    try:
        out = subprocess.run(["git", "remote"], capture_output=True, text=True, timeout=timeout_s, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [line.strip() for line in out.stdout.splitlines() if line.strip()] if out.returncode == 0 else []
