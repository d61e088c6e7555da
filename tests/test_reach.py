"""A document refused as a whole (an in-place cycle, an in-place cost over the budget) still validates the values
that never reach the refused part (``schema.reach``): 26 bytes added to a release no longer hide its breaks.
Checked against the real validator: python ``jsonschema`` evaluates a subschema only where the instance takes
it, so it terminates on exactly those values, with the same verdict."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from gate_helpers import cli
from jsonschema import Draft202012Validator

from mcp_schema_audit.schema import SchemaDoc
from mcp_schema_audit.schema.reach import unreached_twin

CYCLE = {"$ref": "#/properties/q"}  # applies itself at /q: validating a value with q never ends


def _laughs(levels: int) -> dict[str, Any]:
    """``$defs`` where each level is an ``anyOf`` of two ``$ref``s to the one below: 2**levels subschemas."""
    defs: dict[str, Any] = {"L0": {"type": "string"}}
    for i in range(1, levels + 1):
        defs[f"L{i}"] = {"anyOf": [{"$ref": f"#/$defs/L{i - 1}"}, {"$ref": f"#/$defs/L{i - 1}"}]}
    return defs


SCHEMAS = {
    "cycle-under-a-property": {
        "type": "object",
        "properties": {"s": {"enum": ["a", "b"]}, "q": CYCLE},
        "required": ["s"],
    },
    "cycle-in-items": {
        "type": "object",
        "properties": {
            "list": {"type": "array", "items": {"$ref": "#/properties/list/items"}},
            "n": {"type": "integer"},
        },
    },
    "cycle-through-not-and-if": {
        "type": "object",
        "properties": {
            "x": {"not": {"$ref": "#/properties/x"}},
            "y": {"if": {"$ref": "#/properties/y"}, "then": {"type": "string"}},
            "n": {"type": "integer"},
        },
        "additionalProperties": {"type": "boolean"},
    },
    "laughs-under-a-property": {
        "type": "object",
        "properties": {"n": {"type": "integer"}, "deep": {"$ref": "#/$defs/L30"}},
        "$defs": _laughs(30),
    },
}
INSTANCES = [
    {"s": "a"},
    {"s": "z"},
    {"n": 1},
    {"n": "x"},
    {},
    {"s": "a", "q": 1},
    {"list": []},
    {"list": [1]},
    {"deep": "x"},
]


def _real(schema: dict[str, Any], instance: Any) -> bool | None:
    """python jsonschema's verdict on the real schema, or None when it does not terminate (RecursionError)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(400)
    try:
        return Draft202012Validator(schema).is_valid(instance)
    except RecursionError:
        return None
    finally:
        sys.setrecursionlimit(limit)


@pytest.mark.parametrize("name", list(SCHEMAS))
def test_an_unreached_refusal_validates_as_the_real_validator_does(name: str):
    schema = SCHEMAS[name]
    doc = SchemaDoc(schema)
    with pytest.raises(ValueError):
        doc.check_cost()  # refused as a whole
    judged = 0
    for instance in INSTANCES:
        twin = unreached_twin(doc, instance)
        if twin is None:
            continue  # may reach the refused part: still refused (checked below for the cycles)
        judged += 1
        if "laughs" not in name:  # the real validator on 2**30 subschemas would not finish either
            assert _real(schema, instance) is doc.accepts(instance), (name, instance)
        assert doc.accepts(instance) is twin.accepts(instance)
    assert judged >= 3, name
    if name == "cycle-under-a-property":
        assert unreached_twin(doc, {"s": "a", "q": 1}) is None and _real(schema, {"s": "a", "q": 1}) is None
        with pytest.raises(ValueError, match="in-place"):
            doc.accepts({"s": "a", "q": 1})
    if name == "cycle-in-items":
        assert unreached_twin(doc, {"list": []}) is not None  # no item: items is never evaluated
        assert unreached_twin(doc, {"list": [1]}) is None and _real(schema, {"list": [1]}) is None


def test_a_refusal_every_value_reaches_stays_undecided():
    """``allOf: [{"$ref": "#"}]`` at the root applies itself to every value: nothing is validated, no break is
    claimed (the witness stays unconfirmed)."""
    schema = {"type": "object", "properties": {"s": {"enum": ["a", "b", "c"]}}, "allOf": [{"$ref": "#"}]}
    doc = SchemaDoc(schema)
    assert all(unreached_twin(doc, i) is None for i in INSTANCES)


def test_a_small_refused_addition_no_longer_hides_the_releases_breaks(tmp_path: Path):
    """The attack: a property ``q: {"$ref": "#/properties/q"}`` added beside an output enum widened and an argument's
    type narrowed made both unconfirmed warnings, exit 0. Both are breaking now, with witnesses that never reach
    ``q``; the refusal itself is still a warning."""
    old = {
        "name": "t",
        "inputSchema": {"type": "object", "properties": {"n": {"type": "string"}}, "required": ["n"]},
        "outputSchema": {"type": "object", "properties": {"s": {"enum": ["a", "b"]}}, "required": ["s"]},
    }
    new = {
        "name": "t",
        "inputSchema": {
            "type": "object",
            "properties": {"n": {"type": "integer"}, "z": {"$ref": "#/properties/z"}},
            "required": ["n"],
        },
        "outputSchema": {
            "type": "object",
            "properties": {"s": {"enum": ["a", "b", "c"]}, "q": CYCLE},
            "required": ["s"],
        },
    }
    a, b = tmp_path / "old.json", tmp_path / "new.json"
    a.write_text(json.dumps({"tools": [old]}))
    b.write_text(json.dumps({"tools": [new]}))
    r = cli("diff", str(a), str(b), "--format", "json")
    assert r.returncode == 1, r.stderr
    got = {(f["rule"], f["severity"]): f for f in json.loads(r.stdout)["findings"]}
    assert got[("output-enum-value-added", "breaking")]["witness"]["instance"] == {"s": "c"}
    assert "q" not in got[("input-type-narrowed", "breaking")]["witness"]["instance"]
    assert ("schema-undecidable", "warning") in got
    # the cycle is a $ref chain Ajv resolves as it compiles: the TS SDKs fail (tests/test_real_clients.py)
    assert got[("output-schema-uncompilable", "breaking")]["hosts"] == ["ts-sdk-v1", "ts-sdk-v2"]
    for f in got.values():
        if f["severity"] == "breaking" and f["rule"] != "output-schema-uncompilable":
            # the claim holds for the real validator on the real schema
            schema = new["outputSchema"] if f["direction"] == "output" else new["inputSchema"]
            assert _real(schema, f["witness"]["instance"]) is (f["direction"] == "output"), f


#: A cycle in place (``L``: ``{"$ref": "#/$defs/L"}``): validating any value at it never ends.
_LOOP = {"$ref": "#/$defs/L"}
_LOOP_DEFS = {"L": {"$ref": "#/$defs/L"}}
ENDLESS_CASES = {
    # schema → does every value's validation (python-sdk's jsonschema) fail to finish?
    "root-allof": ({"type": "object", "allOf": [{"$ref": "#"}]}, True),
    "root-double-not": ({"not": {"not": {"$ref": "#"}}}, True),
    "defs-loop": ({"$ref": "#/$defs/A", "$defs": {"A": {"allOf": [{"$ref": "#/$defs/A"}]}}}, True),
    "oneof-branch": ({"oneOf": [{"type": "object"}, {"$ref": "#"}]}, True),
    "if-branch": ({"if": {"$ref": "#"}}, True),
    "dynamic-ref-nowhere": ({"$schema": "https://json-schema.org/draft/2020-12/schema", "$dynamicRef": "#nope"}, True),
    "anyof-first-branch-valid": ({"anyOf": [{"type": "object"}, {"$ref": "#"}]}, False),
    "required-property": (
        {"properties": {"b": {"allOf": [{"$ref": "#/properties/b"}]}}, "required": ["b"]},
        True,  # {} fails required; {"b": 1} recurses
    ),
    "required-dependent-schema": ({"dependentSchemas": {"b": {"$ref": "#"}}, "required": ["b"]}, True),
    "recursive-data-type": ({"properties": {"b": {"$ref": "#"}}, "required": ["b"]}, False),
    "under-a-property": ({"properties": {"a": {"$ref": "#"}}}, False),
    "then-beside-an-if-every-value-passes": ({"if": {}, "then": {"$ref": "#"}}, True),
    "else-beside-an-if-every-value-fails": ({"if": False, "else": {"$ref": "#"}}, True),
    "then-beside-a-real-if": ({"if": {"required": ["z"]}, "then": {"$ref": "#"}}, False),
    "required-additional-properties": (
        {"required": ["b"], "additionalProperties": {"allOf": [{"$ref": "#/additionalProperties"}]}},
        True,
    ),
    "required-property-names": ({"required": ["b"], "propertyNames": {"allOf": [{"$ref": "#/propertyNames"}]}}, True),
    # attack round 4: a required key only a patternProperties regex takes has that entry evaluated on every value
    "required-pattern-property": (
        {"required": ["b"], "patternProperties": {"^b$": {"allOf": [{"$ref": "#/patternProperties/%5Eb$"}]}}},
        True,
    ),
    "required-key-beside-a-pattern-it-misses": (
        {
            "required": ["b"],
            "patternProperties": {"^z": {}},
            "additionalProperties": {"allOf": [{"$ref": "#/additionalProperties"}]},
        },
        True,
    ),
    "required-key-a-pattern-takes-from-additional": (
        {
            "required": ["b"],
            "patternProperties": {"b": {}},
            "additionalProperties": {"allOf": [{"$ref": "#/additionalProperties"}]},
        },
        False,
    ),
    "draft07-beside-ref": (
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "$ref": "#/definitions/A",
            "allOf": [{"$ref": "#"}],
            "definitions": {"A": {"type": "object"}},
        },
        False,
    ),
    # attack round 6: the required key taken one level down, by a schema evaluated in full at the same place
    "required-key-an-allof-member-takes": (
        {"required": ["b"], "allOf": [{"properties": {"b": _LOOP}}], "$defs": _LOOP_DEFS},
        True,
    ),
    "required-key-a-ref-target-pattern-takes": (
        {"required": ["b"], "$ref": "#/$defs/T", "$defs": {**_LOOP_DEFS, "T": {"patternProperties": {"^b": _LOOP}}}},
        True,
    ),
    "required-key-an-allof-pattern-takes": (
        {"required": ["b"], "allOf": [{"patternProperties": {"^b": _LOOP}}], "$defs": _LOOP_DEFS},
        True,
    ),
    "required-key-the-first-anyof-branch-takes": (
        {"required": ["b"], "anyOf": [{"properties": {"b": _LOOP}}, {}], "$defs": _LOOP_DEFS},
        True,
    ),
    "required-key-a-later-anyof-branch-takes": (
        {"required": ["b"], "anyOf": [{}, {"properties": {"b": _LOOP}}], "$defs": _LOOP_DEFS},
        False,
    ),
    # attack round 8: unevaluatedProperties makes python-sdk validate every anyOf branch (the evaluated keys)
    "unevaluated-properties-tries-every-anyof-branch": (
        {
            "type": "object",
            "properties": {"b": {}},
            "anyOf": [{"properties": {"b": {}}}, _LOOP],
            "unevaluatedProperties": False,
            "$defs": _LOOP_DEFS,
        },
        True,
    ),
    "required-key-every-oneof-branch-sees": (
        {"required": ["b"], "oneOf": [{}, {"properties": {"b": _LOOP}}], "$defs": _LOOP_DEFS},
        True,
    ),
}


@pytest.mark.parametrize("case", list(ENDLESS_CASES))
def test_every_value_reaches_agrees_with_jsonschema(case: str) -> None:
    """``every_value_reaches`` for python-sdk says "never ends" exactly where the real ``jsonschema`` (the
    validator python-sdk's client runs on each result) accepts no value and never finishes on some (a value without
    a required property is refused before), and lets some value pass elsewhere (an ``anyOf`` that stops at its
    first valid branch; a cycle only an optional property reaches; a recursive data type; draft-07, where ``$ref``
    hides its siblings)."""
    import jsonschema
    from referencing.exceptions import Unresolvable

    from mcp_schema_audit.schema import SchemaDoc
    from mcp_schema_audit.schema.reach import every_value_reaches

    schema, endless = ENDLESS_CASES[case]
    assert (every_value_reaches(SchemaDoc(schema), "python-sdk") is not None) is endless
    outcomes = set()
    for value in ({}, {"b": 1}):
        cls = jsonschema.validators.validator_for(schema)
        try:
            cls(schema).validate(value)
            outcomes.add("valid")
        except (RecursionError, Unresolvable):
            outcomes.add("endless")
        except jsonschema.ValidationError:
            outcomes.add("invalid")  # refused anyway (a required property missing)
    # never ends for some value, and no value passes; else some value passes
    assert ("valid" not in outcomes and "endless" in outcomes) if endless else ("valid" in outcomes), outcomes
