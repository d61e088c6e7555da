"""Text deltas bounded: the word delta of a description or the server's instructions is linear in the texts'
length (common prefix and suffix stripped, the differing middle matched within ``WINDOW_TOKENS``, the shown
delta capped). Before: a 50 KB description with one word changed took 35 s in Markdown, 10 MB never ended."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
import timing

from mcp_schema_audit.report.worddelta import DELTA_CHARS, WINDOW_TOKENS, text_delta

pytestmark = pytest.mark.timing


def _words(n: int, prefix: str = "word") -> str:
    return " ".join(f"{prefix}{i % 50}" for i in range(n))


def test_one_word_changed_in_a_long_text_is_shown_with_its_context_at_once():
    text = _words(10_000)  # about 60 KB, the same 50 words over and over: difflib's worst case
    start = time.process_time()
    delta = text_delta(text, text.replace("word7 ", "CHANGED ", 1))
    assert time.process_time() - start < 2
    assert ("removed", "word7") in delta and ("added", "CHANGED") in delta
    assert delta[0] == ("elided", "") and delta[-1] == ("elided", "")


def test_a_long_different_middle_is_one_capped_replacement():
    old, new = _words(WINDOW_TOKENS * 3, "a"), _words(WINDOW_TOKENS * 3, "b")
    start = time.process_time()
    delta = text_delta(old, new)
    assert time.process_time() - start < 2
    assert [k for k, _ in delta] == ["removed", "elided"] and sum(len(t) for _, t in delta) == DELTA_CHARS
    big = "x " * 2_000_000  # 4 MB
    start = time.process_time()
    delta = text_delta(big, big[:-2] + "y ")
    assert ("removed", "x") in delta and ("added", "y") in delta and delta[0] == ("elided", "")
    assert time.process_time() - start < 10


def test_the_markdown_report_of_a_long_description_change_is_quick(tmp_path: Path):
    text = _words(8_000)  # 50 KB
    paths = []
    for name, description in (("old", text), ("new", text.replace("word9 ", "EXFILTRATE ", 1))):
        path = tmp_path / f"{name}.json"
        tool = {"name": "t", "description": description, "inputSchema": {"type": "object"}}
        path.write_text(json.dumps({"tools": [tool]}), encoding="utf-8")
        paths.append(str(path))
    proc, took = timing.run(
        [sys.executable, "-m", "mcp_schema_audit", "diff", "--format", "markdown", *paths], timeout=120, text=True
    )
    assert proc.returncode in (0, 1), proc.stderr
    assert "EXFILTRATE" in proc.stdout
    assert took.unloaded() < 20, took.describe()


def test_the_instructions_delta_is_bounded_too():
    """The server instructions' delta had its own unbounded ``SequenceMatcher``: 30,000 words with every third
    changed took 42 s in every format, ``--time-budget`` aside. Now the same bounded opcodes as descriptions
    (60,000 words: about 0.1 s)."""
    from mcp_schema_audit.surfaces.server import instruction_findings

    words = [f"w{i % 997}x{i % 13}" for i in range(60_000)]  # before: about 28 s of CPU
    old, new = " ".join(words), " ".join(w + "y" if i % 3 == 0 else w for i, w in enumerate(words))
    start = time.process_time()
    [f] = instruction_findings(old, new)
    assert time.process_time() - start < 10
    assert "removed" in str(f.detail) and "added" in str(f.detail)
