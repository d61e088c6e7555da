"""Snapshot and report writes: atomic under SIGKILL, stale temporary files removed and nothing else, long
names, the umask and a replaced file's mode honoured, a failed write leaves the old file whole.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import stat
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import PYTHON, ROOT
from hostile_cli import cli, tool, tools_file

# ---- atomic snapshot writes ----------------------------------------------------------------------


def test_snapshot_write_is_atomic_under_sigkill(tmp_path: Path) -> None:
    """SIGKILL ``snapshot --from-file`` of a large input at random points: the old snapshot stays whole.

    The temporary files such kills leave are recognisable (``.v.json.<12 hex>.schema-audit.tmp``), and
    the next write of ``v.json`` removes those older than ``STALE_TEMP_AGE_S``, and nothing else.
    """
    store = tmp_path / "store"
    small = tools_file(tmp_path / "small.json", [tool("old_tool")])
    run = cli("snapshot", "--label", "v", "--store", str(store), "--force", "--from-file", str(small), cwd=tmp_path)
    assert run.code == 0, run.stderr
    target = store / "snapshots" / "v.json"
    original = target.read_bytes()
    desc = "z" * 2000
    big = tools_file(tmp_path / "big.json", [tool(f"t{i:05d}", description=desc) for i in range(12_000)])
    rng = random.Random(5)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    outcomes = []
    for attempt in range(8):
        earlier = set(target.parent.iterdir())  # temporary files left by earlier kills
        proc = subprocess.Popen(
            [
                PYTHON,
                "-m",
                "mcp_schema_audit",
                "snapshot",
                "--label",
                "v",
                "--store",
                str(store),
                "--force",
                "--from-file",
                str(big),
            ],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if attempt % 2:
            time.sleep(rng.uniform(0.05, 1.0))  # anywhere: start-up, parsing, hashing, writing
        else:  # mid-write: as soon as the temporary file appears, plus a random few milliseconds
            deadline = time.monotonic() + 30
            while proc.poll() is None and time.monotonic() < deadline:
                if any(p.name.endswith(".tmp") for p in set(target.parent.iterdir()) - earlier):
                    time.sleep(rng.uniform(0, 0.02))
                    break
                time.sleep(0.001)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        current = target.read_bytes()
        if current == original:
            outcomes.append("old")
            continue
        data = json.loads(current)  # a replaced file must be the whole new snapshot
        assert len(data["tools"]) == 12_000 and len(data["tool_hashes"]) == 12_000
        outcomes.append("new")
        target.write_bytes(original)
    assert "old" in outcomes, outcomes  # at least one kill landed before the rename
    run = cli("diff", "v", "v", "--store", str(store), "--format", "json", cwd=tmp_path)
    assert run.code == 0, run.stderr  # leftover temp files never shadow a label

    # Leftovers are recognisable, and the next write of the same target removes the stale ones.
    from mcp_schema_audit.snapshot import STALE_TEMP_AGE_S, temp_name_pattern

    pattern = temp_name_pattern(target)
    leftovers = [p for p in target.parent.iterdir() if p != target]
    assert all(pattern.match(p.name) for p in leftovers), leftovers
    if not leftovers:  # every kill missed the write: leave a temporary file as such a kill does
        leftovers = [target.parent / f".v.json.{'0' * 12}.schema-audit.tmp"]
        leftovers[0].write_text("half a snapshot")
    fresh = target.parent / f".v.json.{'f' * 12}.schema-audit.tmp"  # a concurrent write in progress
    other_target = target.parent / f".w.json.{'a' * 12}.schema-audit.tmp"
    not_ours = target.parent / ".v.json.notes.tmp"
    link = target.parent / f".v.json.{'b' * 12}.schema-audit.tmp"
    for path in (fresh, other_target, not_ours):
        path.write_text("x")
    link.symlink_to(small)
    stale = time.time() - STALE_TEMP_AGE_S - 60
    for path in [*leftovers, other_target, not_ours]:
        os.utime(path, (stale, stale))
    os.utime(link, (stale, stale), follow_symlinks=False)
    run = cli("snapshot", "--label", "v", "--store", str(store), "--force", "--from-file", str(small), cwd=tmp_path)
    assert run.code == 0, run.stderr
    assert target.read_bytes() == original
    remaining = sorted(p.name for p in target.parent.iterdir())
    assert remaining == sorted(p.name for p in (target, fresh, other_target, not_ours, link)), remaining
    assert small.exists()


@pytest.mark.parametrize("value, why", [({"n": float("nan")}, "Out of range float"), ({"s": "a\ud800"}, "surrogate")])
def test_an_unwritable_value_names_the_file_and_writes_nothing(value: Any, why: str, tmp_path: Path) -> None:
    """What JSON or UTF-8 cannot hold is refused before anything is written, and the error names the file."""
    from mcp_schema_audit.errors import InputError
    from mcp_schema_audit.probe.recording import Recording, write_recording
    from mcp_schema_audit.snapshot import Snapshot

    dest = tmp_path / "calls.json"
    recording = Recording(snapshot=Snapshot(label="v", tools=[]), calls=[{"tool": "t", "result": value}], meta={})
    with pytest.raises(InputError, match=rf"^cannot write {re.escape(str(dest))}: .*{why}"):
        write_recording(recording, dest)
    assert list(tmp_path.iterdir()) == []


def test_atomic_write_of_a_long_file_name(tmp_path: Path) -> None:
    """A 250-character target name leaves room for its temporary file's name (at most 255 bytes), and
    stale-file removal tells it from another long name with the same beginning."""
    from mcp_schema_audit.snapshot import atomic as atomic_module

    target = tmp_path / ("r" * 245 + ".json")
    sibling = tmp_path / ("r" * 244 + "s.json")  # same first 96 characters, another target
    for path in (target, sibling):
        atomic_module.atomic_write_text(path, "first\n")
        atomic_module.atomic_write_text(path, "second\n")
        assert path.read_text() == "second\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([target.name, sibling.name])
    stale = time.time() - atomic_module.STALE_TEMP_AGE_S - 60
    leftovers = []
    for owner in (target, sibling):
        path = tmp_path / f"{atomic_module.temp_prefix(owner.name)}.{'1' * 12}{atomic_module.TEMP_SUFFIX}"
        assert len(path.name) <= 255 and atomic_module.temp_name_pattern(owner).match(path.name)
        path.write_text("half")
        os.utime(path, (stale, stale))
        leftovers.append(path)
    assert not atomic_module.temp_name_pattern(target).match(leftovers[1].name)
    atomic_module.atomic_write_text(target, "third\n")
    assert not leftovers[0].exists() and leftovers[1].exists()


@pytest.mark.parametrize("umask", [0o022, 0o027, 0o077])
def test_written_files_honour_the_umask_and_keep_their_mode(tmp_path: Path, umask: int) -> None:
    """New snapshots and reports get 0o666 minus the umask, like any file; a replaced file keeps its mode."""
    src = tools_file(tmp_path / "in.json", [tool("a")])
    store = tmp_path / "store"
    snap = store / "snapshots" / "v.json"
    report = tmp_path / "report.json"
    run = cli("snapshot", "--label", "v", "--store", str(store), "--from-file", str(src), cwd=tmp_path, umask=umask)
    assert run.code == 0, run.stderr
    run = cli(
        "diff", "v", "v", "--store", str(store), "--format", "json", "--output", str(report), cwd=tmp_path, umask=umask
    )
    assert run.code == 0, run.stderr
    for path in (snap, report):
        assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask, (path, oct(path.stat().st_mode))
    for mode in (0o600, 0o664, 0o640):  # replacing keeps the file's mode, whatever the umask
        snap.chmod(mode)
        report.chmod(mode)
        run = cli(
            "snapshot",
            "--label",
            "v",
            "--store",
            str(store),
            "--force",
            "--from-file",
            str(src),
            cwd=tmp_path,
            umask=umask,
        )
        assert run.code == 0, run.stderr
        run = cli(
            "diff",
            "v",
            "v",
            "--store",
            str(store),
            "--format",
            "json",
            "--output",
            str(report),
            cwd=tmp_path,
            umask=umask,
        )
        assert run.code == 0, run.stderr
        assert stat.S_IMODE(snap.stat().st_mode) == mode and stat.S_IMODE(report.stat().st_mode) == mode


@pytest.mark.parametrize("fail_at", ["replace", "fsync", "write"])
def test_atomic_write_failure_keeps_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fail_at: str) -> None:
    import errno

    from mcp_schema_audit.errors import InputError
    from mcp_schema_audit.snapshot import atomic as atomic_module

    target = tmp_path / "snapshots" / "v.json"
    atomic_module.atomic_write_text(target, "old\n")

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise OSError(errno.ENOSPC, "No space left on device")

    if fail_at == "replace":
        monkeypatch.setattr(atomic_module.os, "replace", boom)
    elif fail_at == "fsync":
        monkeypatch.setattr(atomic_module.os, "fsync", boom)
    else:
        real_fdopen = os.fdopen

        class Failing:
            def __init__(self, fh: Any) -> None:
                self.fh = fh

            def __enter__(self) -> Any:
                return self

            def __exit__(self, *exc: object) -> None:
                self.fh.close()

            def write(self, text: str) -> int:
                self.fh.write(text[: len(text) // 2])
                raise OSError(errno.ENOSPC, "No space left on device")

            def __getattr__(self, name: str) -> Any:
                return getattr(self.fh, name)

        monkeypatch.setattr(atomic_module.os, "fdopen", lambda *a, **k: Failing(real_fdopen(*a, **k)))
    with pytest.raises(InputError, match="No space left on device"):
        atomic_module.atomic_write_text(target, "new\n" * 1000)
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in target.parent.iterdir()) == ["v.json"], "temp file left behind"
