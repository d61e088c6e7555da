"""``git:REF:PATH`` inputs: a snapshot file as it was at a git revision (read with ``git show``)."""

from __future__ import annotations

import os
import subprocess

from mcp_schema_audit.errors import InputError
from mcp_schema_audit.snapshot import MAX_INPUT_BYTES, Snapshot, parse_json_text, snapshot_from_data

PREFIX = "git:"


def is_git_ref(ref: str) -> bool:
    """True for ``git:REF:PATH``."""
    return ref.startswith(PREFIX)


def load_git_snapshot(ref: str, *, timeout_s: float = 30.0) -> Snapshot:
    """Load ``git:REF:PATH`` from the repository of the current folder.

    Raises ``InputError`` (one line) when the spec is malformed, git is missing, the revision is
    unknown (with the shallow-clone fix: ``fetch-depth: 0`` or ``git fetch origin REF``), or the
    path does not exist at that revision.
    """
    spec = ref[len(PREFIX):]
    if ":" not in spec:
        raise InputError(f"{ref}: expected git:REF:PATH, e.g. git:origin/main:.schema-audit/snapshots/v1.json")
    rev, path = spec.rsplit(":", 1)
    if not rev or not path or rev.startswith("-"):
        raise InputError(f"{ref}: expected git:REF:PATH with a revision and a path")
    try:
        repo = subprocess.run(["git", "rev-parse", "--git-dir"], capture_output=True, timeout=timeout_s, check=False)
        if repo.returncode != 0:
            raise InputError(f"{ref}: not a git repository: {os.getcwd()}",
                             hint="git: inputs are read from the repository of the current folder; run from inside "
                             "it, or give the snapshot file's path")
        check = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], capture_output=True,
                               timeout=timeout_s, check=False)
    except FileNotFoundError as exc:
        raise InputError(f"{ref}: git is not installed") from exc
    except subprocess.TimeoutExpired as exc:
        raise InputError(f"{ref}: git did not answer within {timeout_s:g} s") from exc
    if check.returncode != 0:
        shallow = subprocess.run(["git", "rev-parse", "--is-shallow-repository"], capture_output=True, text=True,
                                 timeout=timeout_s, check=False).stdout.strip() == "true"
        hint = (f"this is a shallow clone: fetch the revision with 'git fetch origin {rev}' or use "
                "actions/checkout with fetch-depth: 0") if shallow else (
                f"fetch it with 'git fetch origin {rev}' (in CI: actions/checkout with fetch-depth: 0)")
        raise InputError(f"{ref}: revision {rev!r} not found in this repository", hint=hint)
    show = subprocess.run(["git", "show", f"{rev}:{path}"], capture_output=True, timeout=timeout_s, check=False)
    if show.returncode != 0:
        raise InputError(f"{ref}: no file {path!r} at revision {rev!r}")
    if len(show.stdout) > MAX_INPUT_BYTES:
        raise InputError(f"{ref}: file is larger than {MAX_INPUT_BYTES} bytes")
    return snapshot_from_data(parse_json_text(show.stdout, ref), source=ref)
