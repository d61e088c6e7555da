"""Regex work bounded by size, not only by shape: a counted repeat is measured before anything compiles or runs
it. ``^a{100000000}$`` is 15 bytes; the ``regex`` package unrolls it when it compiles (gigabytes), and regress
walks ``(a{1000}){1000}`` at every start position of a long text (seconds)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mcp_schema_audit.schema import REGEX_PROGRAM_LIMIT, RegexBudgetError, ecma_search, safe_search
from mcp_schema_audit.schema.regex_cost import limit_for_shape, program_size, regex_package, regex_shape


def test_program_size_unrolls_counted_repeats():
    assert program_size("^a{1000000}$") == 1_000_002
    assert program_size("(?:ab){10}") == 20
    assert program_size("(?:(?:a{100}){100}){100}") == 1_000_000
    assert program_size("a{5,}") == 6 and program_size("(?:a|bc){3}") == 9
    assert program_size("[a-z]+") == 2  # one, then the loop
    assert program_size("(?:" * 20 + "a{65535}" + "){65535}" * 20) == 10**12  # capped, not computed


def test_the_regex_package_never_gets_a_program_past_the_limit():
    assert regex_package("^a{1000000}$") is None
    assert regex_package(f"^a{{{REGEX_PROGRAM_LIMIT - 2}}}$") is not None
    # unanchored, each start may walk the whole unrolled program: the longest text shrinks with it
    assert limit_for_shape(*regex_shape("a{1000}")) == 447  # len * min(len, 1000) <= 200,000
    assert limit_for_shape(*regex_shape("^a{1000}$")) == float("inf")
    assert limit_for_shape(*regex_shape("abc")) == float("inf")


@pytest.mark.timing
def test_counted_repeats_are_decided_or_refused_at_once():
    """CPU time (``time.process_time``), which a busy machine does not stretch."""
    text = "a" * 100_000
    start = time.process_time()
    # anchored: re searches it without unrolling (one start position), whatever the count
    assert safe_search("^a{1000000}$", text) is None and safe_search("^a{100000}$", text) is not None
    assert safe_search("^a{100000000}$", text) is None
    # unanchored, nested counts on a long run: undecided, not seconds (regress walked this one in 8 s)
    for search in (safe_search, ecma_search):
        with pytest.raises(RegexBudgetError):
            search("(a{1000}){1000}", text)
    assert time.process_time() - start < 5


def _snapshot(path: Path, pattern: str | None, where: str) -> str:
    schema: dict = {"type": "object", "properties": {"a": {"type": "string"}}}
    if pattern:
        schema["properties"]["a"]["pattern"] = pattern
    tool: dict = {"name": "t", "description": "d", "inputSchema": {"type": "object"}}
    tool["inputSchema" if where == "input" else "outputSchema"] = schema
    path.write_text(json.dumps({"tools": [tool]}), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("where", ["input", "output"])
def test_a_fifteen_byte_pattern_stays_under_the_memory_bound(tmp_path: Path, where: str):
    """``^a{100000000}$`` reached 3.9 GB and died with exit 4 (``diff``); now a verdict under 1 GB of address
    space (the child runs with that limit), its peak resident set far below."""
    old = _snapshot(tmp_path / "old.json", None, where)
    new = _snapshot(tmp_path / "new.json", "^a{100000000}$", where)
    code = (
        "import atexit, os, resource, sys; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30)); "
        "atexit.register(lambda: os.write(2, b'peak-rss-kb ' + [l for l in open('/proc/self/status', 'rb') "
        "if l.startswith(b'VmHWM')][0].split()[1])); "
        "from mcp_schema_audit.cli.app import main; sys.argv = ['schema-audit', *sys.argv[1:]]; main()"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, "diff", "--format", "json", old, new],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode in (0, 1), proc.stderr
    rules = {f["rule"] for f in json.loads(proc.stdout)["findings"]}
    assert rules == ({"input-constraint-tightened"} if where == "input" else {"schema-rewritten"})
    # the child's own peak, VmHWM (RUSAGE_CHILDREN holds the largest child this worker ever waited for, and
    # ru_maxrss survives exec: a fork of a 400 MB pytest worker reads 400 MB)
    peak = int(proc.stderr.rsplit("peak-rss-kb ", 1)[1].split()[0])
    assert peak < 400 * 1024, f"peak resident set {peak} KB"
