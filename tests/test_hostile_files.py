"""Hostile snapshot files through the real CLI: every malformed, oversized or unreadable file is exit 2 with
one error line, for ``diff`` and ``snapshot --from-file``; a 50 MB listing imports and diffs within budget
(limits and budgets: ``hostile_cli``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hostile_cli import DIFF_BUDGET_S, FILE_BUDGET_S, assert_clean_failure, cli, tool, tools_file

pytestmark = pytest.mark.timing  # bounds on time (``hostile_cli``): run by scripts/under_load.py

# ---- bad files: exit 2, one line, for diff and snapshot --from-file ------------------------------

BASE_TOOLS = [tool("ok")]


def _deep_text(levels: int) -> str:
    return (
        '{"tools":[{"name":"t","inputSchema":'
        + '{"type":"object","properties":{"a":' * levels
        + "{}"
        + "}}" * levels
        + "}]}"
    )


BAD_FILES: dict[str, tuple[bytes, str]] = {
    "malformed": (b'{"tools": [ ', r"not valid JSON"),
    "empty": (b"", r"not valid JSON: the file is empty$"),
    "only-whitespace": (b" \n\t", r"not valid JSON: the file is empty \(only whitespace\)$"),
    "trailing-garbage": (b'{"tools": []} {"tools": []}', r"not valid JSON"),
    "top-level-list": (b"[1, 2]", r"tools\[0\] is not an object"),  # a bare array is read as the tools
    "top-level-string": (b'"tools"', r"expected a JSON object"),
    "top-level-null": (b"null", r"expected a JSON object"),
    "no-tools-key": (b'{"result": {"items": []}}', r"no 'tools' key"),
    "tools-not-list": (b'{"tools": {"a": 1}}', r"'tools' must be an array"),
    "tool-not-object": (b'{"tools": ["x"]}', r"tools\[0\] is not an object"),
    "unknown-format-version": (
        json.dumps({"format": "schema-audit/snapshot", "format_version": 99, "tools": []}).encode(),
        r"format_version 99 is not supported",
    ),
    "unknown-format": (json.dumps({"format": "schema-audit/report", "tools": []}).encode(), r"unknown format"),
    "duplicate-names": (json.dumps({"tools": [tool("a"), tool("a")]}).encode(), r"duplicate tool name 'a'"),
    "no-name": (json.dumps({"tools": [{"inputSchema": {"type": "object"}}]}).encode(), r"tools\[0\] has no name"),
    "empty-name": (json.dumps({"tools": [tool("")]}).encode(), r"has no name"),
    "name-not-string": (json.dumps({"tools": [tool(7)]}).encode(), r"has no name"),  # type: ignore[arg-type]
    "input-schema-list": (json.dumps({"tools": [tool(inp=[1])]}).encode(), r"inputSchema is not an object"),
    "input-schema-string": (json.dumps({"tools": [tool(inp="object")]}).encode(), r"inputSchema is not an object"),
    "input-schema-bool": (json.dumps({"tools": [tool(inp=True)]}).encode(), r"inputSchema is not an object"),
    "output-schema-number": (json.dumps({"tools": [tool(out=3)]}).encode(), r"outputSchema is not an object"),
    "jsonrpc-error": (
        json.dumps({"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": "nope"}}).encode(),
        r"JSON-RPC error response",
    ),
    "nesting-10000": (_deep_text(10_000).encode(), r"nested too deeply"),
    "array-nesting-10000": (
        b'{"tools": [{"name": "t", "inputSchema": {"default": ' + b"[" * 10_000 + b"]" * 10_000 + b"}}]}",
        r"nested too deeply",
    ),
    "1e400": (b'{"tools": [{"name": "t", "inputSchema": {"maximum": 1e400}}]}', r"number 1e400 is out of range"),
    "-1e400": (b'{"tools": [{"name": "t", "inputSchema": {"minimum": -1e400}}]}', r"out of range"),
    "int-5000-digits": (
        b'{"tools": [{"name": "t", "inputSchema": {"maximum": 1' + b"0" * 5000 + b"}}]}",
        r"\(5001 digits\) is out of range",
    ),
    "int-beyond-double": (
        b'{"tools": [{"name": "t", "inputSchema": {"maximum": 1' + b"0" * 400 + b"}}]}",
        r"out of range",
    ),
    "NaN": (b'{"tools": [{"name": "t", "inputSchema": {"maximum": NaN}}]}', r"NaN is not valid JSON"),
    "Infinity": (b'{"tools": [{"name": "t", "inputSchema": {"maximum": Infinity}}]}', r"Infinity is not valid JSON"),
    "-Infinity": (b'{"tools": [{"name": "t", "inputSchema": {"minimum": -Infinity}}]}', r"-Infinity is not valid JSON"),
    "invalid-utf8": (b'{"tools": [{"name": "t\xff\xfe", "inputSchema": {}}]}', r"not valid UTF-8 \(byte \d+\)"),
    "latin1": ('{"tools": [{"name": "caf\u00e9", "inputSchema": {}}]}'.encode("latin-1"), r"not valid UTF-8"),
    "utf16": ('{"tools": []}'.encode("utf-16"), r"not valid UTF-8"),
    "utf8-bom": (b'\xef\xbb\xbf{"tools": []}', r"not valid JSON"),
    "lone-surrogate-escape": (b'{"tools": [{"name": "t\\ud800", "inputSchema": {}}]}', r"lone UTF-16 surrogate"),
    "lone-surrogate-key": (b'{"tools": [{"name": "t", "inputSchema": {"\\udfff": 1}}]}', r"lone UTF-16 surrogate"),
}


@pytest.fixture()
def base_file(tmp_path: Path) -> Path:
    return tools_file(tmp_path / "base.json", BASE_TOOLS)


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_bad_file_diff(case: str, tmp_path: Path, base_file: Path) -> None:
    data, pattern = BAD_FILES[case]
    bad = tmp_path / f"{case}.json"
    bad.write_bytes(data)
    run = cli("diff", str(base_file), str(bad), "--format", "json", cwd=tmp_path)
    assert_clean_failure(run, 2, pattern)
    assert run.stdout == ""  # no half report
    assert run.timing.unloaded() < FILE_BUDGET_S, run.timing.describe()


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_bad_file_snapshot_from_file(case: str, tmp_path: Path) -> None:
    data, pattern = BAD_FILES[case]
    bad = tmp_path / f"{case}.json"
    bad.write_bytes(data)
    run = cli("snapshot", "--label", "x", "--store", str(tmp_path / "store"), "--from-file", str(bad), cwd=tmp_path)
    assert_clean_failure(run, 2, pattern)
    assert run.timing.unloaded() < FILE_BUDGET_S, run.timing.describe()
    assert not (tmp_path / "store" / "snapshots" / "x.json").exists()


def test_bad_paths(tmp_path: Path, base_file: Path) -> None:
    """Directories, FIFOs, devices and files over the size limit are refused without being read."""
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)  # opening it for reading would block: a hang fails the test
    big = tmp_path / "big.json"
    with big.open("wb") as fh:  # sparse: 65 MiB of size, no disk
        fh.truncate(65 * 1024 * 1024)
    cases = [
        (tmp_path, r"not a regular file|is a directory"),
        (fifo, r"not a regular file"),
        (Path("/dev/zero"), r"not a regular file"),
        (big, r"more than the \d+-byte limit"),
        (tmp_path / "missing.json", r"no snapshot|cannot read|not found"),
    ]
    for path, pattern in cases:
        run = cli("snapshot", "--out", str(tmp_path / "o.json"), "--from-file", str(path), cwd=tmp_path, timeout=60)
        assert_clean_failure(run, 2, pattern)
        run = cli("diff", str(path), str(base_file), cwd=tmp_path, timeout=60)
        assert_clean_failure(run, 2)


def test_50_mb_snapshot(tmp_path: Path) -> None:
    """A 50 MB tools/list (10,000 tools) imports and diffs within the budget and the memory limit."""
    desc = "d" * 1000
    tools = [
        tool(
            f"tool_{i:05d}",
            {"type": "object", "properties": {f"p{j}": {"type": "string", "description": desc} for j in range(4)}},
            description=desc,
        )
        for i in range(10_000)
    ]
    big = tools_file(tmp_path / "big.json", tools)
    assert big.stat().st_size > 50_000_000
    run = cli("snapshot", "--label", "big", "--store", str(tmp_path / "s"), "--from-file", str(big), cwd=tmp_path)
    assert run.code == 0, run.stderr
    assert run.timing.unloaded() < DIFF_BUDGET_S, run.timing.describe()
    tools[1234]["inputSchema"]["required"] = ["p0"]  # one breaking change among 10,000 tools
    changed = tools_file(tmp_path / "changed.json", tools)
    run = cli("diff", "big", str(changed), "--store", str(tmp_path / "s"), "--format", "json", cwd=tmp_path)
    assert run.timing.unloaded() < DIFF_BUDGET_S, run.timing.describe()
    report = run.report()
    assert run.code == 1
    assert [(f["tool"], f["rule"]) for f in report["findings"]] == [("tool_01234", "input-required-added")]
