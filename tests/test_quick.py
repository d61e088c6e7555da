"""``schema.quick.quick_valid`` answers exactly as the jsonschema validator the python-sdk profile builds."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_schema_audit.schema import SchemaDoc
from mcp_schema_audit.schema.quick import quick_valid

_DIALECT_URI = {
    "2020-12": "https://json-schema.org/draft/2020-12/schema",
    "2019-09": "https://json-schema.org/draft/2019-09/schema",
    "draft-07": "http://json-schema.org/draft-07/schema#",
    "draft-06": "http://json-schema.org/draft-06/schema#",
    "draft-04": "http://json-schema.org/draft-04/schema#",
}

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.sampled_from([0.0, 1.0, 2.5, -1.5, 1e300]),
    st.text(max_size=4),
    st.sampled_from(["a", "b", "ab", "\U0001f600"]),
)
values = st.one_of(scalars, st.lists(scalars, max_size=2), st.dictionaries(st.text(max_size=2), scalars, max_size=2))
types = st.sampled_from(["string", "integer", "number", "boolean", "null", "object", "array", "int", "String"])
bounds = st.one_of(st.integers(-3, 6), st.sampled_from([0.5, 2.0, True, "3", None]))
nodes = st.fixed_dictionaries(
    {},
    optional={
        "type": st.one_of(types, st.lists(types, max_size=3), st.just(5)),
        "enum": st.one_of(st.lists(values, max_size=4), st.just("a")),
        "const": values,
        "minLength": bounds,
        "maxLength": bounds,
        "minimum": bounds,
        "maximum": bounds,
        "exclusiveMinimum": bounds,
        "exclusiveMaximum": bounds,
        "title": st.just("t"),
        "format": st.just("email"),
        "description": st.just("d"),
        "pattern": st.just("^a"),
        "multipleOf": st.just(2),
    },
).map(lambda d: {k: v for k, v in d.items() if v is not None})
names = st.sampled_from(["a", "b", "c"])
quick_nodes = nodes.map(lambda d: {k: v for k, v in d.items() if k not in ("pattern", "multipleOf")})
objects = st.recursive(
    quick_nodes,
    lambda inner: st.fixed_dictionaries(
        {},
        optional={
            "type": st.sampled_from(["object", ["object", "null"], "string"]),
            "properties": st.one_of(st.dictionaries(names, st.one_of(inner, st.booleans()), max_size=3), st.just([])),
            "required": st.one_of(st.lists(names, max_size=3), st.just("a"), st.just([1])),
            "additionalProperties": st.one_of(st.booleans(), inner, st.just(0)),
            "patternProperties": st.just({"^a": {"type": "string"}}),
            "anyOf": st.lists(inner, max_size=3),
            "allOf": st.lists(inner, max_size=2),
            "oneOf": st.lists(inner, max_size=3),
            "not": inner,
        },
    ),
    max_leaves=6,
)
object_values = st.recursive(
    scalars, lambda inner: st.dictionaries(names | st.text(max_size=2), inner, max_size=4), max_leaves=8
)


def _real(node: dict, value: object, dialect: str) -> bool | None:
    doc = SchemaDoc({"$schema": _DIALECT_URI[dialect], "properties": {"x": node}})
    try:
        return bool(doc.validator_for(node, "python-sdk").is_valid(value))
    except Exception:
        return None


@settings(max_examples=1500, deadline=None)
@given(node=nodes, value=values, dialect=st.sampled_from(sorted(_DIALECT_URI)))
def test_quick_answers_as_jsonschema(node: dict, value: object, dialect: str) -> None:
    quick = quick_valid(node, value, dialect)
    if quick is None:
        return
    assert quick == _real(node, value, dialect), (node, value, dialect)


@settings(max_examples=1500, deadline=None)
@given(node=objects, value=object_values, dialect=st.sampled_from(["2020-12", "draft-07"]))
def test_quick_objects_answer_as_jsonschema(node: dict, value: object, dialect: str) -> None:
    quick = quick_valid(node, value, dialect)
    if quick is None:
        return
    assert quick == _real(node, value, dialect), (node, value, dialect)


@pytest.mark.parametrize(
    "node,value,dialect,expected",
    [
        ({"type": "integer"}, 1.0, "2020-12", True),  # draft-06+: an integral float is an integer
        ({"type": "integer"}, 1.0, "draft-04", None),  # draft-04: left to the validator
        ({"enum": [1, 2]}, True, "2020-12", False),  # true is not 1 (jsonschema's unbool)
        ({"enum": [True]}, 1, "2020-12", False),
        ({"enum": [1]}, 1.0, "2020-12", True),
        ({"const": "a", "type": "string"}, "a", "draft-07", True),
        ({"maxLength": 1}, "\U0001f600", "2020-12", True),  # code points, as Python's len
        ({"minimum": "3"}, 5, "2020-12", None),  # a malformed bound: the validator decides
        ({"minimum": "3"}, "x", "2020-12", True),  # ... unless it does not apply to the value
        ({"type": "string", "pattern": "^a"}, "a", "2020-12", None),
        ({"type": "strnig"}, "a", "2020-12", None),  # UnknownType: the validator decides
        ({"enum": [[1]]}, [1], "2020-12", None),  # containers on both sides: the validator decides
        ({"exclusiveMaximum": 3}, 3, "draft-06", False),
        (True, {"a": 1}, "2020-12", True),
        (
            {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "required": ["a"],
                "additionalProperties": False,
            },
            {"a": "x"},
            "2020-12",
            True,
        ),
        (
            {"properties": {"a": {"type": "string"}}, "additionalProperties": False},
            {"a": "x", "b": 1},
            "2020-12",
            False,
        ),
        ({"required": ["a"]}, {}, "draft-07", False),
        ({"required": ["a"]}, "not an object", "draft-07", True),
        ({"properties": {"a": {"pattern": "^x"}}}, {"a": "x"}, "2020-12", None),  # a regex: the validator decides
        ({"properties": []}, {"a": 1}, "2020-12", None),  # malformed: jsonschema raises
        ({"type": "string", "properties": []}, {"a": 1}, "2020-12", None),
        ({"anyOf": [{"type": "string"}, {"type": "null"}]}, None, "2020-12", True),
        ({"anyOf": [{"type": "string"}, {"pattern": "^a"}]}, "x", "2020-12", True),  # stops at the first valid branch
        ({"anyOf": [{"pattern": "^a"}, {"type": "string"}]}, "x", "2020-12", None),
        ({"oneOf": [{"type": "integer"}, {"type": "number"}]}, 1, "2020-12", False),
        ({"not": {"type": "null"}}, None, "draft-07", False),
        (False, None, "2020-12", False),
    ],
)
def test_quick_cases(node: object, value: object, dialect: str, expected: bool | None) -> None:
    assert quick_valid(node, value, dialect) is expected
    if expected is not None and isinstance(node, dict):
        assert _real(node, value, dialect) is expected


def test_nan_is_left_alone_or_answered_alike() -> None:
    node = {"minimum": 0}
    quick = quick_valid(node, math.nan, "2020-12")
    assert quick is None or quick == _real(node, math.nan, "2020-12")


json_values = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(-2, 2), st.sampled_from([1.0, 0.0, 2.5]), st.sampled_from(["a", "1"])
    ),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2),
    max_leaves=6,
)


@settings(max_examples=1500, deadline=None)
@given(items=st.lists(json_values, max_size=5))
def test_unique_items_answers_as_jsonschema(items: list) -> None:
    """The python-sdk profile's uniqueItems gives jsonschema's own verdict (``_utils.uniq``), without its
    quadratic fallback."""
    from jsonschema import Draft202012Validator

    ours = SchemaDoc({"type": "array", "uniqueItems": True}).validator("python-sdk").is_valid(items)
    assert ours == Draft202012Validator({"type": "array", "uniqueItems": True}).is_valid(items), items


# -- references, arrays and the TS profiles' (Ajv) reading ------------------------------------------------
big = 2**53 + 1
ref_scalars = st.one_of(
    scalars,
    st.sampled_from(
        [
            big,
            -big,
            2**53,
            "2026-01-01T00:00:00Z",
            "2026-01-01",
            "a@b.co",
            "123e4567-e89b-12d3-a456-426614174000",
            2**31,
        ]
    ),
)
ref_values = st.recursive(
    ref_scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(names, inner, max_size=3), max_leaves=8
)
ref_leaves = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(["string", "integer", "number", "object", "array", "null", ["string", "null"]]),
        "format": st.sampled_from(["date-time", "email", "uuid", "int32", "date", "no-such-format"]),
        "maximum": st.sampled_from([3, 2**53, big, 1.5]),
        "enum": st.lists(ref_scalars, min_size=1, max_size=3),
        "minLength": st.integers(0, 3),
        "$ref": st.sampled_from(
            ["#/$defs/A", "#/$defs/B", "#", "#/$defs/none", "#/$defs/A/properties/a", "other.json#/x"]
        ),
        "$schema": st.sampled_from(
            ["https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft-07/schema#"]
        ),
        "description": st.just("d"),
    },
)
ref_nodes = st.recursive(
    ref_leaves,
    lambda inner: st.fixed_dictionaries(
        {},
        optional={
            "type": st.sampled_from(["object", "array", ["object", "null"]]),
            "properties": st.dictionaries(names, inner, max_size=3),
            "required": st.lists(names, max_size=2),
            "additionalProperties": st.one_of(st.booleans(), inner),
            "items": st.one_of(inner, st.booleans()),
            "minItems": st.integers(0, 2),
            "maxItems": st.integers(0, 3),
            "anyOf": st.lists(inner, min_size=1, max_size=3),
            "not": inner,
            "$ref": st.sampled_from(["#/$defs/A", "#/$defs/B"]),
        },
    ),
    max_leaves=6,
)


def _doc(dialect: str, node: dict, a: dict, b: dict) -> SchemaDoc:
    return SchemaDoc({"$schema": _DIALECT_URI[dialect], "$defs": {"A": a, "B": b}, **node})


def _verdict(run: object) -> bool | None:
    try:
        return bool(run())  # type: ignore[operator]
    except Exception:
        return None


@settings(max_examples=2500, deadline=None)
@given(
    node=ref_nodes,
    a=ref_nodes,
    b=ref_nodes,
    value=ref_values,
    dialect=st.sampled_from(["2020-12", "2019-09", "draft-07"]),
    profile=st.sampled_from(["python-sdk", "ts-sdk-v1", "ts-sdk-v2"]),
)
def test_quick_references_and_profiles_answer_as_the_validators(
    node: dict, a: dict, b: dict, value: object, dialect: str, profile: str
) -> None:
    """Local ``$ref``s (beside other keywords, or alone in draft-07), ``items``/``minItems``/``maxItems``, nested
    ``$schema``s, and the Ajv reading (formats asserted, integers beyond 2**53) answer as the profile's own
    validator, for the whole document and for a subschema of it."""
    doc = _doc(dialect, node, a, b)
    if _verdict(lambda: doc.validator(profile)) is None:
        return  # the profile cannot compile it: quick is never asked
    quick = doc.quick(doc.root, value, profile)
    if quick is not None:
        assert quick == _verdict(lambda: doc.validator(profile).is_valid(value)), (doc.root, value, profile)
    sub = doc.root["$defs"]["A"]
    quick = doc.quick(sub, value, profile)
    if quick is not None:
        assert quick == _verdict(lambda: doc.validator_for(sub, profile).is_valid(value)), (doc.root, value, profile)


@pytest.mark.parametrize(
    "root,value,profile,expected",
    [
        # a $ref beside other keywords: both apply from 2019-09 on; in draft-07 the siblings are ignored
        ({"$defs": {"S": {"type": "string"}}, "$ref": "#/$defs/S", "maxLength": 1}, "ab", "python-sdk", False),
        (
            {
                "$schema": "http://json-schema.org/draft-07/schema#",
                "definitions": {"S": {"type": "string"}},
                "$ref": "#/definitions/S",
                "maxLength": 1,
            },
            "ab",
            "python-sdk",
            True,
        ),
        (
            {"$defs": {"S": {"type": "string"}}, "type": "array", "items": {"$ref": "#/$defs/S"}, "maxItems": 2},
            ["a", "b"],
            "python-sdk",
            True,
        ),
        (
            {"$defs": {"S": {"type": "string"}}, "type": "array", "items": {"$ref": "#/$defs/S"}},
            ["a", 1],
            "ts-sdk-v2",
            False,
        ),
        ({"type": "string", "format": "date-time"}, "2026-01-01", "python-sdk", True),  # formats not asserted
        ({"type": "string", "format": "date-time"}, "2026-01-01", "ts-sdk-v1", False),  # ajv-formats asserts them
        ({"type": "string", "format": "date-time"}, "2026-01-01T00:00:00Z", "ts-sdk-v2", True),
        ({"type": "integer", "maximum": 2**53}, 2**53 + 1, "ts-sdk-v1", None),  # a double in JavaScript
        ({"$ref": "other.json#/x"}, 1, "python-sdk", None),  # not a local pointer
        ({"$id": "https://example.com/s", "$defs": {"S": {}}, "$ref": "#/$defs/S"}, 1, "python-sdk", None),
    ],
)
def test_quick_reference_cases(root: dict, value: object, profile: str, expected: bool | None) -> None:
    doc = SchemaDoc(root)
    assert doc.quick(doc.root, value, profile) is expected
    if expected is not None:
        assert doc.validator(profile).is_valid(value) is expected


nested_nodes = st.recursive(
    ref_leaves,
    lambda inner: st.fixed_dictionaries(
        {"properties": st.dictionaries(names, inner, min_size=1, max_size=3)},
        optional={
            "type": st.sampled_from(["object", ["object", "null"]]),
            "required": st.lists(names, max_size=2),
            "additionalProperties": st.one_of(st.booleans(), inner),
            "anyOf": st.lists(inner, min_size=1, max_size=2),
        },
    ),
    max_leaves=8,
)


nested_values = st.recursive(
    ref_scalars, lambda inner: st.dictionaries(names, inner, min_size=1, max_size=3), max_leaves=8
)


def _error_facts(errors: list) -> list:
    def facts(e: object) -> tuple:
        return (
            e.message,
            e.validator,
            list(e.absolute_path),
            list(e.absolute_schema_path),  # type: ignore[attr-defined]
            list(e.relative_schema_path),
            [facts(c) for c in e.context or []],
        )  # type: ignore[attr-defined]

    return [facts(e) for e in errors]


@settings(max_examples=1500, deadline=None)
@given(
    node=nested_nodes,
    a=ref_nodes,
    value=nested_values,
    dialect=st.sampled_from(["2020-12", "draft-07"]),
    profile=st.sampled_from(["python-sdk", "ts-sdk-v1", "ts-sdk-v2"]),
)
def test_narrowed_errors_are_the_whole_validations(
    node: dict, a: dict, value: object, dialect: str, profile: str
) -> None:
    """``SchemaDoc.errors`` validating only the one property ``quick`` cannot vouch for gives the errors of the
    whole validation: the same messages, keywords, instance and schema paths, in the same order."""
    from mcp_schema_audit import fastpaths

    def run() -> object:
        doc = _doc(dialect, node, a, {})
        try:
            return _error_facts(doc.errors(value, profile))
        except Exception as exc:  # noqa: BLE001 - the same failure either way
            return type(exc).__name__

    fast = run()
    with fastpaths.disabled():
        slow = run()
    assert fast == slow, (node, value, profile)


def test_narrowed_errors_follow_properties() -> None:
    doc = SchemaDoc(
        {
            "type": "object",
            "properties": {
                "a": {"type": "object", "properties": {"b": {"enum": ["x"]}, "c": {"type": "string"}}},
                "d": {"type": "integer"},
            },
            "additionalProperties": False,
        }
    )
    value = {"a": {"b": "y", "c": "s"}, "d": 1}
    assert doc._narrowed(value, "python-sdk") == ({"enum": ["x"]}, "y", ["a", "b"])
    (error,) = doc.errors(value)
    assert list(error.absolute_path) == ["a", "b"]
    assert list(error.absolute_schema_path) == ["properties", "a", "properties", "b", "enum"]
    assert doc._narrowed({"a": {"b": "y"}, "d": "1"}, "python-sdk") is None  # two places fail: the whole is validated


def test_unique_items_keeps_each_reading() -> None:
    """jsonschema compares sortable items with their neighbours only, so it lets this array through (the Python
    client accepts it); Ajv compares every pair (the TS clients reject it)."""
    items = [[False, 0], [False, False], [False, 0]]
    doc = SchemaDoc({"type": "array", "uniqueItems": True})
    assert doc.validator("python-sdk").is_valid(items) is True
    assert doc.validator("ts-sdk-v2").is_valid(items) is False
    assert doc.validator("python-sdk").is_valid([{"a": 1}, {"a": 1}]) is False  # unsortable: all pairs compared


def test_narrowing_stops_where_jsonschema_reads_otherwise() -> None:
    """Past a draft-07 ``$ref`` (its siblings are ignored) and into a ``false`` property (reported without its
    path), ``errors`` validates the whole instance: the same errors as with the fast paths off."""
    from mcp_schema_audit import fastpaths

    d7 = "http://json-schema.org/draft-07/schema#"
    for root, value in (
        (
            {
                "$schema": d7,
                "$ref": "#/definitions/A",
                "definitions": {"A": {"type": "object"}},
                "properties": {"a": {"type": "string"}},
            },
            {"a": 5},
        ),
        ({"properties": {"a": False}}, {"a": 5}),
    ):
        fast = _error_facts(SchemaDoc(root).errors(value))
        with fastpaths.disabled():
            slow = _error_facts(SchemaDoc(root).errors(value))
        assert fast == slow, root


def test_ajv_reading_follows_only_definitions() -> None:
    """ts-sdk-v1 validates a copy where ``$ref`` siblings move into ``allOf``: a pointer through an ``allOf`` is
    left to its validator; one to a ``$defs`` entry is followed."""
    root = {
        "properties": {"a": {"$ref": "#/$defs/A/allOf/0"}},
        "$defs": {"A": {"$ref": "#/$defs/B", "type": "string", "allOf": [{"type": "integer"}]}, "B": {}},
    }
    doc = SchemaDoc(root)
    assert doc.quick(root, {"a": "x"}, "ts-sdk-v1") is None
    assert doc.validator("ts-sdk-v1").is_valid({"a": "x"}) is True
    assert doc.profiles_agree is False  # python-sdk rejects that value
    plain = SchemaDoc({"properties": {"a": {"$ref": "#/$defs/S"}}, "$defs": {"S": {"type": "string"}}})
    assert plain.quick(plain.root, {"a": 1}, "ts-sdk-v1") is False


def test_fast_check_refuses_a_defs_list_in_draft07() -> None:
    from mcp_schema_audit.schema.metacheck import surely_valid

    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "$defs": [{"type": 5}], "$ref": "#/$defs/0"}
    assert surely_valid(schema, "draft-07", ajv=True) is False
