"""Where the CLI writes, and what stops it: every write to stdout checked (short writes and ENOSPC, with
``PYTHONUNBUFFERED=1`` too), ``/dev/stdout`` and ``/proc/self/fd/N`` written through as streams, SIGHUP taken as
SIGTERM; and the small ones: deep TOML, a secret echoed back as a number, ``--jobs`` past the cores, the enum
cap's words."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT

from mcp_schema_audit.capture.target import scrub_secrets

SEED = ROOT / "fixtures" / "seed"
CLI = [sys.executable, "-m", "mcp_schema_audit"]
DIFF = [*CLI, "diff", "--format", "json", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json")]


def _limited(size: int):
    def pre() -> None:  # writes past ``size`` bytes are short, then EFBIG (a disk filling up, deterministic)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    return pre


@pytest.mark.parametrize("unbuffered", ["1", ""])
@pytest.mark.parametrize("command", ["diff", "snapshot"])
def test_a_short_write_to_stdout_is_exit_2_with_one_line(tmp_path: Path, unbuffered: str, command: str):
    args = DIFF if command == "diff" else [*CLI, "snapshot", "--from-file", str(SEED / "0.2.6.json"), "--out", "-"]
    out = tmp_path / "out.txt"
    env = {**os.environ, "PYTHONUNBUFFERED": unbuffered}
    with out.open("wb") as fh:
        proc = subprocess.run(args, stdout=fh, stderr=subprocess.PIPE, text=True, env=env, preexec_fn=_limited(4096))
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "schema-audit: error: cannot write the report to stdout: File too large"
    ]
    assert out.stat().st_size == 4096  # cut, and said so


def test_a_full_disk_on_stdout_is_exit_2(tmp_path: Path):
    with open("/dev/full", "wb") as full:
        proc = subprocess.run(
            DIFF, stdout=full, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"}
        )
    assert proc.returncode == 2 and "No space left on device" in proc.stderr


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["diff", "--help"], ["rules"]])
def test_a_full_disk_on_buffered_stdout_is_exit_2_with_one_line(args: list[str]):
    # PYTHONUNBUFFERED unset: --help and --version print into the buffer, flushed after click's own exit
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    with open("/dev/full", "wb") as full:
        proc = subprocess.run([*CLI, *args], stdout=full, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines() == [
        next(ln for ln in proc.stderr.splitlines() if "No space left on device" in ln)
    ], proc.stderr  # one line: no "Exception ignored", no traceback


@pytest.mark.parametrize("path", ["/dev/stdout", "/proc/self/fd/1", "/dev/fd/1"])
def test_output_to_an_open_descriptor_is_written_through(tmp_path: Path, path: str):
    out = tmp_path / "report.json"
    with out.open("wb") as fh:
        proc = subprocess.run([*DIFF, "--output", path], stdout=fh, stderr=subprocess.PIPE, text=True)
    assert proc.returncode == 1, proc.stderr
    assert json.loads(out.read_text())["summary"]["breaking"] == 13
    assert Path("/dev/stdout").is_symlink()  # not replaced by a file
    bad = subprocess.run([*DIFF, "--output", "/proc/self/fd/9"], capture_output=True, text=True)
    assert bad.returncode == 2 and "descriptor 9): Bad file descriptor" in bad.stderr


def test_snapshot_out_dev_stdout_is_a_stream(tmp_path: Path):
    out = tmp_path / "snap.json"
    with out.open("wb") as fh:
        proc = subprocess.run(
            [*CLI, "snapshot", "--from-file", str(SEED / "0.2.6.json"), "--out", "/dev/stdout"],
            stdout=fh,
            stderr=subprocess.PIPE,
            text=True,
        )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text())["tools"]


@pytest.mark.live
def test_sighup_is_taken_as_sigterm_and_stops_the_server(tmp_path: Path):
    pids = tmp_path / "pids"
    hostile = ROOT / "tests" / "hostile_servers" / "stdio_server.py"
    proc = subprocess.Popen(
        [*CLI, "snapshot", "--out", "-", "--timeout", "60", "--", sys.executable, str(hostile)]
        + ["--mode", "spawn-ignore-term", "--pid-file", str(pids)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not (pids.exists() and len(pids.read_text().split()) == 2) and time.monotonic() < deadline:
        time.sleep(0.1)
    proc.send_signal(signal.SIGHUP)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert err.strip().splitlines()[-1] == "schema-audit: terminated"
    for pid in pids.read_text().split():  # the server and its child, both deaf to SIGTERM, are gone
        stat = Path(f"/proc/{pid}/stat")
        assert not stat.exists() or stat.read_text().rsplit(")", 1)[1].split()[0] in ("Z", "X"), pid


def test_deep_toml_is_a_usage_error(tmp_path: Path):
    config = tmp_path / "deep.toml"
    config.write_text("x = " + "[" * 500 + "]" * 500 + "\n")
    proc = subprocess.run([*DIFF, "--config", str(config)], capture_output=True, text=True)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        f"schema-audit: error: {config}: invalid TOML: nested too deeply for a configuration"
    ]


def test_a_secret_echoed_back_as_a_number_is_masked():
    value = {"a": 12345678901234567890, "b": [3.25, 7], "c": True, "d": "id 12345678901234567890"}
    assert scrub_secrets(value, ["12345678901234567890", "3.25"]) == {
        "a": "***",
        "b": ["***", 7],
        "c": True,
        "d": "id ***",
    }
    assert scrub_secrets(12345678901234567890, ["12345678901234567890"]) == "***"
    # the same value spelled as a float (1e20, 100000000000000000000.0, 1.0E+20 all parse to 1e20): masked too
    assert scrub_secrets([1e20, 10**20, 10**20 + 1, 1.5, 2e20], ["100000000000000000000"]) == [
        "***",
        "***",
        10**20 + 1,
        1.5,
        2e20,
    ]
    assert scrub_secrets([1000, 1000.0, 1000.5], ["1.0e3"]) == ["***", "***", 1000.5]
    assert scrub_secrets([float(12345678901234567891)], ["12345678901234567891"]) == ["***"]  # echoed with loss
    assert scrub_secrets([1_000_000_000, True], ["1_000_000_000", "1"]) == [1_000_000_000, True]  # not JSON numbers


def test_jobs_past_the_cores_are_capped_with_a_note():
    cores = len(os.sched_getaffinity(0))
    proc = subprocess.run([*DIFF, "--jobs", str(cores + 148)], capture_output=True, text=True)
    assert proc.returncode == 1
    assert f"schema-audit: note: --jobs {cores + 148} capped at the {cores} available cores" in proc.stderr


def test_the_enum_cap_says_what_it_counts(tmp_path: Path):
    # two plain value sets are compared by set difference (tests/test_hostile_schemas.py); an enum of 20,001 values
    # against a plain string type is past the cap, which says what it counts on each side
    paths = []
    for name, e in (("old", {"enum": [f"v{i}" for i in range(20_001)]}), ("new", {"type": "string", "maxLength": 2})):
        schema = {"type": "object", "properties": {"e": e}}
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps({"tools": [{"name": "t", "inputSchema": schema}]}))
        paths.append(str(path))
    proc = subprocess.run([*CLI, "diff", "--format", "json", *paths], capture_output=True, text=True)
    messages = [f["message"] for f in json.loads(proc.stdout)["findings"]]
    assert any("enum values of the two schemas together (cached: 20001, new: 0) exceed 20000" in m for m in messages), (
        messages
    )
