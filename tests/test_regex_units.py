r"""zod's reading of a listed ``pattern`` (``schema.regex_units.zod_search``): the JavaScript ``RegExp`` readings a zod
server may run (``DEVELOPER_FLAGS``: none, ``i``, ``ms``, ``u`` and their unions; only those with ``u`` for a pattern
with ``\p``), checked against Node's own ``new RegExp(pattern, flags).test(text)`` on strings beyond U+FFFF,
surrogates, escapes, letter case and line breaks."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from mcp_schema_audit.schema import RegexBudgetError
from mcp_schema_audit.schema.regex_units import DEVELOPER_FLAGS, code_units, zod_search

NODE = shutil.which("node")
E, F = "\U0001f600", "\U0001f601"  # two emoji: two UTF-16 code units each

CASES = [
    ("^.{1,2}$", E + E),
    ("^.{1,2}$", E),
    ("^.{1,2}$", "ab"),
    ("^.$", E),
    ("^..$", E),
    ("^[^a]{2}$", E),
    (f"^{E}$", E),
    (f"^[{E}]$", E),
    (f"^[{E}]{{2}}$", E),
    (f"^[{E}{F}]+$", E + F),
    ("^\\ud83d\\ude00$", E),
    ("^\\ud83d", E),
    ("\\ude00$", E),
    ("^\\S\\S$", E),
    ("^\\W+$", E),
    ("^\\p{L}$", "p{L}"),
    ("^\\p{L}$", "a"),
    ("^[a-z\\d]+$", "\u0663"),
    ("^[a-z\\d-]+$", "a-1"),
    ("^(?:..)*$", E + "a"),
    ("^.*$", "a\nb"),
    ("^x{2,3}$", "xxx"),
    ("^x{2,3}$", "xxxx"),
    ("^\\u{1F600}$", E),  # a code point with u (the flagless reading of \u{ is refused: u decides)
    ("^a.b$", "a\nb"),  # /^a.b$/s
    ("^a$", "x\na"),  # /^a$/m
    ("^[a-z]+$", "a\n"),
    ("^abc$", "ABC"),  # a developer's /^abc$/i lists as ^abc$
    ("^[0-9A-HJKMNP-TV-Z]{26}$", "01arz3ndektsv4rrffq69g5fav"),  # zod 3's own .ulid() is /…/i
    ("^(\\p{Extended_Pictographic}|\\p{Emoji_Component})+$", E),  # zod 3's own .emoji(), compiled with u
    ("^(\\p{Extended_Pictographic}|\\p{Emoji_Component})+$", "#"),
    ("^\\p{L}+$", "\u00e9"),
    ("^\\p{L}+$", "1"),
]


def test_code_units_write_characters_beyond_the_bmp_as_two_units() -> None:
    units = code_units(E + "a")
    assert units is not None and len(units) == 3 and units[2] == "a"
    assert code_units("\ue000") is None  # a character the placeholders stand for: not readable


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_zod_search_is_nodes_regexp_under_every_flag_zod_may_have_used() -> None:
    script = (
        "const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        f"const all = {json.dumps(list(DEVELOPER_FLAGS))};"
        "const flags = (p) => (/(?<!\\\\)(?:\\\\\\\\)*\\\\[pP]/.test(p) ? all.filter((f) => f.includes('u')) : all);"
        "const test = (p, f, t) => { try { return new RegExp(p, f).test(t); } catch { return false; } };"
        "process.stdout.write(JSON.stringify(cases.map(([p, t]) => flags(p).some((f) => test(p, f, t)))));"
    )
    assert NODE is not None
    out = subprocess.run([NODE, "-e", script], input=json.dumps(CASES), capture_output=True, text=True, check=True)
    real = json.loads(out.stdout)
    ours = [zod_search(p, t) for p, t in CASES]
    wrong = [(p, t, r) for (p, t), r, o in zip(CASES, real, ours, strict=True) if r != o]
    assert not wrong, wrong
    # flags the listing drops decide these: refused only when every reading refuses
    assert real[CASES.index(("^abc$", "ABC"))] is True and real[CASES.index(("^\\p{L}+$", "1"))] is False
    assert real[CASES.index(("^[^a]{2}$", E))] is True  # two code units without u
    assert real[CASES.index(("^(?:..)*$", E + "a"))] is True  # three units without u, two code points with it
    assert real[CASES.index(("^x{2,3}$", "xxxx"))] is False


@pytest.mark.parametrize(
    "pattern,text",
    [
        ("^[\\u0000-\\uFFFF]+$", E),  # a class range up to the surrogates: placeholders would be misread
        ("^[\\ue000-\\ue0ff]$", "a"),  # the placeholders' own block
        ("^a$", "\ue000"),
    ],
)
def test_what_the_unit_reading_cannot_write_is_undecided(pattern: str, text: str) -> None:
    with pytest.raises(RegexBudgetError):
        zod_search(pattern, text)
