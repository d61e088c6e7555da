"""The fast parse of JSON files (``jsonio._fast_parse``, on ``orjson``) gives what the strict parse gives, or leaves
the text to it: values, types and every refusal alike."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_schema_audit.errors import InputError
from mcp_schema_audit.snapshot import jsonio
from mcp_schema_audit.snapshot.jsonio import parse_json_text


def outcome(text: bytes | str) -> tuple[str, str]:
    """What the parse gives, exactly: the value with its types (``repr`` keeps ``1`` and ``1.0``, ``True`` and ``1``
    apart, and integers beyond 64 bits whole), or the refusal's words."""
    try:
        value = parse_json_text(text, "f.json")
    except InputError as exc:
        return "refused", str(exc)
    return "parsed", repr(value) + json.dumps(value)


def strict(data: bytes) -> tuple[str, str]:
    """The strict parse alone (a ``str`` never takes the fast path)."""
    return outcome(data.decode("utf-8"))


HARD = [
    b'{"a": 1, "a": 2}',
    b'{"a:b": 1, "a:b": {"c": "d:e"}}',
    # a duplicate whose lost colon an escaped colon elsewhere would have made up for
    b'{"x": "\\u003a", "y": {"a": 1, "a": 1}}',
    b'{"x": "\\u003A"}',
    b'{"x": "\\\\u003a"}',
    b"[18446744073709551616, -9223372036854775809, 9223372036854775807]",
    b'{"id": "1234567890123456789012"}',
    b"[1e400]",
    b"[-1e400, 1e-400]",
    b"[NaN]",
    b'["\\ud800"]',
    b'["\\udc00\\ud800"]',
    b'["\\ud83d\\ude00"]',
    b"[" * 300 + b"]" * 300,
    b"[" * 5000 + b"]" * 5000,
    b"",
    b"   ",
    b'{"a": 1}{',
    b'{"a":\t"b\tc"}',
    b"\xef\xbb\xbf{}",
    b'{"a": -0, "b": -0.0, "c": 1E2, "d": true, "e": null}',
    b'{"a": 1, "a": 1}',
    b'{"tools": [{"name": "a", "name": "b"}]}',
]


@pytest.mark.parametrize("data", HARD, ids=range(len(HARD)))
def test_the_fast_parse_gives_what_the_strict_one_gives(data: bytes):
    assert outcome(data) == strict(data)


def test_duplicate_keys_are_never_taken_by_the_fast_parse():
    """The colon count is the fast parse's only guard against a key given twice: a text holding one, with or
    without an escaped colon, is left to the strict parse, which names the key."""
    for data in (b'{"a": 1, "a": 2}', b'{"x": "\\u003a", "y": {"a": 1, "a": 1}}', b'{"k:": 1, "k:": 1}'):
        assert jsonio._fast_parse(data) is jsonio._UNSURE
        kind, words = outcome(data)
        assert kind == "refused" and words.startswith("duplicate key"), words


def test_a_catalog_takes_the_fast_parse():
    """A plain catalog (no 19-digit run, no escaped colon, no key twice) is read by ``orjson``: the check fails if
    the fast path is never taken."""
    rng = random.Random(7)
    tools = [
        {
            "name": f"t{i}",
            "description": "Reads: a record.",
            "inputSchema": {
                "type": "object",
                "properties": {"n": {"type": "integer", "maximum": rng.randint(1, 10**12)}},
            },
            "outputSchema": {"type": "object", "properties": {"x": {"type": "number", "minimum": rng.random()}}},
        }
        for i in range(200)
    ]
    data = json.dumps({"tools": tools}, indent=2).encode()
    assert jsonio._fast_parse(data) is not jsonio._UNSURE
    assert outcome(data) == strict(data)


numbers = st.builds(
    lambda sign, whole, frac, exp: f"{sign}{whole}{frac}{exp}",
    st.sampled_from(["", "-"]),
    st.integers(min_value=0, max_value=10**22).map(str),
    st.one_of(st.just(""), st.text("0123456789", min_size=1, max_size=20).map(lambda d: "." + d)),
    st.one_of(st.just(""), st.builds(lambda s, e: f"e{s}{e}", st.sampled_from(["", "+", "-"]), st.integers(0, 340))),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(numbers, min_size=1, max_size=5))
def test_numbers_read_alike(texts: list[str]):
    """Every number literal: the same float (correctly rounded), the same integer, or the same refusal."""
    data = ("[" + ",".join(texts) + "]").encode()
    assert outcome(data) == strict(data)


@settings(max_examples=300, deadline=None)
@given(
    st.recursive(
        st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.text(':\\"ab\u00e9😀', max_size=6)),
        lambda inner: st.one_of(
            st.lists(inner, max_size=4), st.dictionaries(st.text(':ab"\\', max_size=3), inner, max_size=4)
        ),
        max_leaves=20,
    )
)
def test_documents_read_alike(value: object):
    data = json.dumps(value).encode()
    assert outcome(data) == strict(data)
