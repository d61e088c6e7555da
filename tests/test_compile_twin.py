"""The Ajv compile walk with a twin (the other version of the tool's schema) answers exactly as without one.

``compile.ajv_compile_problem(doc, kind, twin)`` skips subtrees identical to a place of the twin that the
twin's own walk found clean. A subtree identical to the twin's but at a place the twin's walk never
compiled (an ``if`` without ``then``, ``additionalItems`` beside a non-array ``items``, a ``$defs`` entry its
``$ref`` does not reach, the children of an always-valid node) must still be walked: the cases below put a
compile problem in exactly such subtrees, and the property test draws pairs of schemas with problems
anywhere and compares the answers.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_schema_audit.engine import compare_schemas
from mcp_schema_audit.engine.identity import Identity
from mcp_schema_audit.fastpaths import clear_caches
from mcp_schema_audit.schema import SchemaDoc
from mcp_schema_audit.schema.compile import ajv_compile_problem

BAD = {"type": "strin"}  # Ajv: type must be JSONType or JSONType[]


def _both(doc_schema: Any, twin_schema: Any, kind: str = "draft-07") -> tuple[Any, Any, Any]:
    """(answer without a twin, answer with one, the twin's own answer)."""
    doc, twin = SchemaDoc(doc_schema), SchemaDoc(twin_schema)
    identity = Identity(doc, twin)
    return (
        ajv_compile_problem(doc, kind),
        ajv_compile_problem(doc, kind, (twin, identity.identical)),
        ajv_compile_problem(twin, kind),
    )


CASES = {
    # the twin's "if" has no then/else: Ajv never compiles it there, so the identical subtree is not known clean
    "if-without-then-in-twin": ({"if": copy.deepcopy(BAD), "then": {"minLength": 1}}, {"if": copy.deepcopy(BAD)}),
    # draft-07 ignores additionalItems beside a non-array items
    "additional-items-ignored-in-twin": (
        {"items": [{}], "additionalItems": copy.deepcopy(BAD)},
        {"items": {}, "additionalItems": copy.deepcopy(BAD)},
    ),
    # the twin's $ref reaches another $defs entry
    "ref-to-another-def": (
        {"$ref": "#/$defs/b", "$defs": {"a": {"type": "string"}, "b": copy.deepcopy(BAD)}},
        {"$ref": "#/$defs/a", "$defs": {"a": {"type": "string"}, "b": copy.deepcopy(BAD)}},
    ),
    # a twin node with "then" alone: Ajv compiles neither "then" nor anything under it
    "then-without-if-in-twin": (
        {"properties": {"x": {"if": {"minLength": 1}, "then": copy.deepcopy(BAD)}}},
        {"properties": {"x": {"then": copy.deepcopy(BAD)}}},
    ),
    # a changed property with a problem beside identical ones
    "changed-property": (
        {"properties": {"a": {"type": "string"}, "b": {"enum": []}}},
        {"properties": {"a": {"type": "string"}, "b": {"enum": ["x"]}}},
    ),
    # identical subtrees are skipped, the first problem is the one the full walk finds
    "problem-after-identical": (
        {"properties": {"a": {"type": "string"}, "z": {"nullable": True}}},
        {"properties": {"a": {"type": "string"}}},
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_twin_walk_answers_as_the_full_walk(case: str) -> None:
    doc_schema, twin_schema = CASES[case]
    full, with_twin, twin_own = _both(doc_schema, twin_schema)
    assert twin_own is None, "the cases' twins compile"
    assert full is not None, "each case has a problem to find"
    assert with_twin == full


def test_a_tool_whose_old_schema_ajv_refuses_is_still_seen_through_the_pair() -> None:
    """End to end: a cached schema that TS hosts cannot compile (the identical subtree is under an 'if'
    the new schema no longer compiles) gives the same findings with and without the fast paths."""
    from mcp_schema_audit import fastpaths

    old = {
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "if": copy.deepcopy(BAD),
        "then": {"required": ["a"]},
    }
    new = {"type": "object", "properties": {"a": {"type": "string"}}, "if": copy.deepcopy(BAD)}
    clear_caches()
    fast = [f.to_json() for f in compare_schemas(old, new, "output", "t")]
    with fastpaths.disabled():
        slow = [f.to_json() for f in compare_schemas(old, new, "output", "t")]
    assert fast == slow


# -- property: problems anywhere, twins that differ anywhere ------------------------------------------------
_problems = st.sampled_from(
    [{"type": "strin"}, {"nullable": True}, {"enum": []}, {"id": "x"}, {"maxLength": "3"}, {"pattern": "\\Z"}]
)
_leaves = st.one_of(
    st.sampled_from(
        [{"type": "string"}, {"type": "integer", "minimum": 0}, {"enum": ["a", "b"]}, {"description": "d"}, True, {}]
    ),
    _problems,
)
_schemas = st.recursive(
    _leaves,
    lambda inner: st.fixed_dictionaries(
        {},
        optional={
            "type": st.just("object"),
            "properties": st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3),
            "anyOf": st.lists(inner, min_size=1, max_size=2),
            "not": inner,
            "if": inner,
            "then": inner,
            "else": inner,
            "items": st.one_of(inner, st.lists(inner, min_size=1, max_size=2)),
            "additionalItems": inner,
            "additionalProperties": inner,
            "$defs": st.fixed_dictionaries({"m": inner, "n": inner}),
            "$ref": st.sampled_from(["#/$defs/m", "#/$defs/n"]),
        },
    ),
    max_leaves=8,
)


def _mutate(schema: Any, data: st.DataObject) -> Any:
    """A copy of ``schema`` with one subtree replaced or one keyword dropped (the other version of the tool)."""
    out = copy.deepcopy(schema)
    places: list[tuple[Any, Any]] = []
    stack = [out]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            places.extend((node, k) for k in node)
            stack.extend(node.values())
        elif isinstance(node, list):
            places.extend((node, i) for i in range(len(node)))
            stack.extend(node)
    if not places:
        return data.draw(_schemas)
    parent, key = data.draw(st.sampled_from(places))
    if isinstance(parent, dict) and data.draw(st.booleans()):
        del parent[key]  # a keyword dropped (then, the array form of items …)
    else:
        parent[key] = data.draw(_schemas)
    return out


@settings(max_examples=3000, deadline=None)
@given(schema=_schemas, data=st.data(), kind=st.sampled_from(["draft-07", "2020-12"]))
def test_twin_walk_answers_as_the_full_walk_on_drawn_pairs(schema: Any, data: st.DataObject, kind: str) -> None:
    other = _mutate(schema, data)
    for one, two in ((schema, other), (other, schema)):  # each version as the twin of the other
        full, with_twin, twin_own = _both(one, two, kind)
        if twin_own is None:  # the walk only ever takes a twin whose own walk found nothing
            assert with_twin == full


# -- the metaschema fast check that spares the walk ------------------------------------------------------------
_more_problems = st.sampled_from(
    [
        {"additionalItems": 5},
        {"formatMaximum": 3},
        {"type": []},
        {"required": "a"},
        {"items": [5]},
        {"dependencies": {"a": ["b"]}},
        {"$ref": "#/x", "x": BAD},
        {"$ref": "#/properties/a"},
        {"type": None},
        {"minimum": "0"},
    ]
)
_any_schemas = st.recursive(
    st.one_of(_leaves, _more_problems),
    lambda inner: st.fixed_dictionaries(
        {},
        optional={
            "type": st.just("object"),
            "properties": st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2),
            "anyOf": st.lists(inner, min_size=1, max_size=2),
            "not": inner,
            "if": inner,
            "then": inner,
            "items": st.one_of(inner, st.lists(inner, min_size=1, max_size=2)),
            "additionalItems": inner,
            "$defs": st.fixed_dictionaries({"m": inner}),
            "definitions": st.fixed_dictionaries({"m": inner}),
            "$ref": st.sampled_from(["#/$defs/m", "#/definitions/m", "#"]),
        },
    ),
    max_leaves=6,
)
_URIS = {
    "2020-12": "https://json-schema.org/draft/2020-12/schema",
    "draft-07": "http://json-schema.org/draft-07/schema#",
}


@settings(max_examples=3000, deadline=None)
@given(schema=_any_schemas, dialect=st.sampled_from(["2020-12", "draft-07"]))
def test_schemas_the_fast_check_calls_clean_compile_in_every_ajv_class(schema: Any, dialect: str) -> None:
    """``metacheck.surely_valid(…, ajv=True)`` vouches only for schemas Ajv's compile walk finds nothing in, for
    every class a TS profile compiles them with (``SchemaDoc.compile_problem`` then skips the walk)."""
    from mcp_schema_audit.schema.metacheck import surely_valid

    root = {"$schema": _URIS[dialect], **schema} if isinstance(schema, dict) else schema
    if surely_valid(root, dialect, ajv=True):
        for kind in {"draft-07", dialect}:  # the Ajv classes the TS profiles compile a schema of this dialect with
            assert ajv_compile_problem(SchemaDoc(root), kind) is None, (root, kind)


@pytest.mark.parametrize(
    "schema,clean",
    [
        ({"type": "object", "properties": {"id": {"type": "string"}}}, True),  # a property named id is no "id"
        ({"type": "object", "properties": {"a": {"id": "x"}}}, False),
        ({"enum": []}, False),
        ({"properties": {"a": {"pattern": "^a"}}}, False),  # ECMAScript's reading: the walk decides
        ({"$ref": "#/$defs/a", "$defs": {"a": {"type": "string"}}}, True),
        ({"$ref": "#/x", "x": {"type": "strin"}}, False),  # a target the check does not visit
    ],
)
def test_fast_check_cases(schema: Any, clean: bool) -> None:
    from mcp_schema_audit.schema.metacheck import surely_valid

    assert surely_valid(schema, "2020-12", ajv=True) is clean
