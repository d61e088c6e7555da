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


# ---- issue 21: regex work bounded by size, before any parser sees the pattern --------------------------------
def test_oversized_patterns_never_reach_a_parser(monkeypatch: pytest.MonkeyPatch):
    """``a|a|…`` of 100,001 alternatives (200 KB) crashed the process in ``regress.Regex`` (SIGSEGV, exit 139);
    over any limit of ``oversized`` neither regress nor ``re`` gets the pattern: every search is undecided."""
    import re

    import regress

    from mcp_schema_audit.schema import ecma_compile_error
    from mcp_schema_audit.schema.regex_cost import (
        REGEX_MAX_ALTERNATIVES,
        REGEX_MAX_LENGTH,
        REGEX_MAX_NESTING,
        oversized,
    )

    compile_, regex_ = re.compile, regress.Regex

    def refused(pattern: str, *args: object, **kwargs: object) -> object:
        if isinstance(pattern, str) and oversized(pattern) is not None:
            raise AssertionError("an oversized pattern reached a parser")
        return compile_(pattern, *args, **kwargs)

    def refused_es(pattern: str, *args: object) -> object:
        if oversized(pattern) is not None:
            raise AssertionError("an oversized pattern reached regress")
        return regex_(pattern, *args)

    cases = [
        "a|" * 100_000 + "a",
        "x" * (REGEX_MAX_LENGTH + 1),
        "|".join("b" * 3 for _ in range(REGEX_MAX_ALTERNATIVES + 1)),
        "(" * (REGEX_MAX_NESTING + 1) + "c" + ")" * (REGEX_MAX_NESTING + 1),
    ]
    assert oversized("[|||]" * 1000) is None and oversized("a|b|(c)") is None  # a class's "|" is no alternative
    monkeypatch.setattr(regress, "Regex", refused_es)
    monkeypatch.setattr(re, "compile", refused)
    for pattern in cases:
        assert oversized(pattern) is not None
        for search in (safe_search, ecma_search):
            with pytest.raises(RegexBudgetError, match="over"):
                search(pattern, "a")
        assert ecma_compile_error(pattern) is None and ecma_compile_error(pattern, unicode=False) is None


def test_the_pattern_caches_are_bounded_by_characters_not_count():
    from mcp_schema_audit.schema.regex_cost import PatternCache

    cache: PatternCache[int] = PatternCache(limit=10_000)
    computed: list[str] = []
    for i in range(30_000):  # 30,000 short patterns stay in a 4 MB cache: each computed once
        big: PatternCache[int] = PatternCache()
        big.get(f"p{i}", len)
    for p in ("a" * 4_000, "b" * 4_000, "a" * 4_000):
        cache.get(p, lambda s: computed.append(s) or len(s))
    assert len(computed) == 2  # the second "a…" was remembered
    cache.get("c" * 4_000, lambda s: computed.append(s) or len(s))  # past 10,000 characters: emptied
    cache.get("a" * 4_000, lambda s: computed.append(s) or len(s))
    assert len(computed) == 4


def _stdio_server(path: Path, pattern: str) -> Path:
    schema = {"type": "object", "properties": {"x": {"type": "string", "pattern": pattern}}, "required": ["x"]}
    tools = [
        {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": schema, "annotations": {"readOnlyHint": True}}
    ]
    path.write_text(
        "import json, sys\n"
        f"TOOLS = json.loads({json.dumps(json.dumps(tools))})\n"
        "def send(o):\n    sys.stdout.write(json.dumps(o) + '\\n'); sys.stdout.flush()\n"
        "for line in sys.stdin:\n"
        "    msg = json.loads(line); mid = msg.get('id'); m = msg.get('method')\n"
        "    if mid is None:\n        continue\n"
        "    if m == 'initialize':\n"
        "        send({'jsonrpc': '2.0', 'id': mid, 'result': {'protocolVersion': msg['params']['protocolVersion'],"
        " 'capabilities': {'tools': {}}, 'serverInfo': {'name': 'p', 'version': '1'}}})\n"
        "    elif m == 'tools/list':\n        send({'jsonrpc': '2.0', 'id': mid, 'result': {'tools': TOOLS}})\n"
        "    elif m == 'tools/call':\n"
        "        send({'jsonrpc': '2.0', 'id': mid, 'result': {'content': [{'type': 'text', 'text': '{\"x\": \"a\"}'}],"
        " 'structuredContent': {'x': 'a'}}})\n"
        "    else:\n        send({'jsonrpc': '2.0', 'id': mid, 'result': {}})\n",
        encoding="utf-8",
    )
    return path


def test_probe_survives_a_pattern_of_100k_alternatives(tmp_path: Path):
    """``probe --auto`` against a real stdio server whose outputSchema holds ``a|a|…`` (100,001 alternatives):
    exit 139 (SIGSEGV in regress) before; now a report, the result checked or said not checkable."""
    server = _stdio_server(tmp_path / "srv.py", "a|" * 100_000 + "a")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mcp_schema_audit",
            "probe",
            "--auto",
            "--format",
            "json",
            "--",
            sys.executable,
            str(server),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    json.loads(proc.stdout)


@pytest.mark.parametrize("command", ["diff", "lint"])
def test_a_count_past_2_to_the_32_is_a_finding_not_a_crash(tmp_path: Path, command: str):
    """``^a{100000000000}$``: exit 4 "internal error: OverflowError: the repetition number is too large" (diff and
    lint: jsonschema's ``regex`` format calls ``re.compile``, which raises OverflowError, not re.error); now the
    python-sdk metaschema check names it, and every search of it is undecided."""
    old = _snapshot(tmp_path / "old.json", "^b+$", "input")
    new = _snapshot(tmp_path / "new.json", "^a{100000000000}$", "input")
    args = ["diff", old, new] if command == "diff" else ["lint", new]
    proc = subprocess.run(
        [sys.executable, "-m", "mcp_schema_audit", *args, "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    findings = json.loads(proc.stdout)["findings"]
    assert any("repetition number is too large" in f["message"] for f in findings), findings
    with pytest.raises(RegexBudgetError, match="cannot be measured"):  # re cannot hold the count
        safe_search("^a{100000000000}$", "a" * 20)
    assert ecma_search("^a{100000000000}$", "a" * 20) is False  # regress can: a decided miss
