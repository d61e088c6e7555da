"""``git:REV:PATH`` inputs: diffs against a revision, and the fetch command a missing one needs."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from gate_helpers import SEED, cli


def git(*args: str, cwd: Path) -> None:
    subprocess.run(
        ["git", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        env={
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@e",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@e",
            "PATH": "/usr/bin:/bin:/usr/local/bin",
            "HOME": str(cwd),
        },
    )


def test_git_inputs(tmp_path: Path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git("init", "-q", "-b", "main", cwd=repo)
    snap = repo / "snap.json"
    snap.write_text((SEED / "0.2.5.json").read_text())
    git("add", "snap.json", cwd=repo)
    git("commit", "-qm", "0.2.5", cwd=repo)
    snap.write_text((SEED / "0.2.6.json").read_text())
    r = cli("diff", "git:HEAD:snap.json", "snap.json", "--format", "json", cwd=repo)
    assert r.returncode == 1, r.stderr
    assert json.loads(r.stdout)["summary"]["breaking"] > 5
    r = cli("diff", "git:origin/main:snap.json", "snap.json", cwd=repo)
    assert r.returncode == 2 and "not found" in r.stderr and "'git fetch origin main'" in r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    r = cli("diff", "git:HEAD:missing.json", "snap.json", cwd=repo)
    assert r.returncode == 2 and "no file 'missing.json'" in r.stderr


def test_a_missing_remote_tracking_ref_names_the_fetch_that_works(tmp_path: Path):
    """``git:origin/main:PATH`` when origin/main is not in the clone: the hint is ``git fetch origin main`` (not
    ``origin origin/main``, which fails), and running it makes the same diff work; a plain branch name keeps
    ``git fetch origin NAME``; in a shallow clone (fetched as actions/checkout does) ``--depth=1``."""
    upstream = tmp_path / "upstream"
    upstream.mkdir()
    git("init", "-q", "-b", "main", cwd=upstream)
    (upstream / "snap.json").write_text((SEED / "0.2.5.json").read_text())
    git("add", "snap.json", cwd=upstream)
    git("commit", "-qm", "0.2.5", cwd=upstream)
    git("checkout", "-qb", "feature", cwd=upstream)
    (upstream / "other.txt").write_text("x")
    git("add", "other.txt", cwd=upstream)
    git("commit", "-qm", "feature", cwd=upstream)
    git("checkout", "-q", "main", cwd=upstream)

    repo = tmp_path / "repo"  # a clone that knows origin but has not fetched it
    repo.mkdir()
    git("init", "-q", "-b", "work", cwd=repo)
    git("remote", "add", "origin", str(upstream), cwd=repo)
    (repo / "snap.json").write_text((SEED / "0.2.6.json").read_text())
    r = cli("diff", "git:origin/main:snap.json", "snap.json", cwd=repo)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "revision 'origin/main' not found" in r.stderr and "'git fetch origin main'" in r.stderr, r.stderr
    r = cli("diff", "git:refs/remotes/origin/feature:snap.json", "snap.json", cwd=repo)
    assert "'git fetch origin feature'" in r.stderr, r.stderr
    r = cli("diff", "git:origin/main~1:snap.json", "snap.json", cwd=repo)  # an ancestor: its branch is fetched
    assert "'git fetch origin main'" in r.stderr, r.stderr
    r = cli("diff", "git:v0.2.5:snap.json", "snap.json", cwd=repo)  # a tag or branch name: fetched as given
    assert r.returncode == 2 and "'git fetch origin v0.2.5'" in r.stderr, r.stderr
    git("fetch", "-q", "origin", "main", cwd=repo)  # the command the hint gave
    r = cli("diff", "git:origin/main:snap.json", "snap.json", "--format", "json", cwd=repo)
    assert r.returncode == 1 and json.loads(r.stdout)["summary"]["breaking"] > 5, r.stderr

    shallow = tmp_path / "shallow"  # as actions/checkout does: init, remote add, fetch one commit of the PR
    shallow.mkdir()
    git("init", "-q", "-b", "work", cwd=shallow)
    git("remote", "add", "origin", upstream.as_uri(), cwd=shallow)
    git("fetch", "-q", "--depth=1", "origin", "+refs/heads/feature:refs/remotes/origin/feature", cwd=shallow)
    git("checkout", "-q", "--detach", "origin/feature", cwd=shallow)
    r = cli("diff", "git:origin/main:snap.json", "snap.json", cwd=shallow)
    assert r.returncode == 2 and "shallow clone" in r.stderr, r.stderr
    assert "'git fetch --depth=1 origin main'" in r.stderr, r.stderr
    r = cli("diff", "git:origin/main^:snap.json", "snap.json", cwd=shallow)
    assert "'git fetch origin main'" in r.stderr, r.stderr  # an ancestor needs more than --depth=1
    git("fetch", "-q", "--depth=1", "origin", "main", cwd=shallow)
    r = cli("diff", "git:origin/main:snap.json", "snap.json", cwd=shallow)
    assert r.returncode == 0, r.stderr  # the same file on both sides


def test_a_git_blob_past_the_input_bound_is_refused_unread(tmp_path: Path, monkeypatch) -> None:
    """``git:REF:PATH`` asks git for the blob's size before reading it: a blob past ``MAX_INPUT_BYTES`` is refused
    without ``git show`` (a committed 2.5 GB file used to be read whole: MemoryError, exit 4, 2.5 GB)."""
    import pytest

    from mcp_schema_audit import gitref
    from mcp_schema_audit.errors import InputError

    repo = tmp_path / "r"
    repo.mkdir()
    git("init", "-q", cwd=repo)
    (repo / "big.json").write_text('{"tools": []' + " " * 5000 + "}")
    git("add", "big.json", cwd=repo)
    git("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "x", cwd=repo)
    monkeypatch.chdir(repo)
    monkeypatch.setattr(gitref, "MAX_INPUT_BYTES", 1000)
    ran: list[list[str]] = []
    real = subprocess.run

    def recording(args, *a, **k):  # type: ignore[no-untyped-def]
        ran.append(list(args))
        return real(args, *a, **k)

    monkeypatch.setattr(gitref.subprocess, "run", recording)
    with pytest.raises(InputError, match="larger than 1000 bytes"):
        gitref.read_git_file("git:HEAD:big.json")
    assert not any(args[:2] == ["git", "show"] for args in ran), ran
