"""Verdicts for the keywords that constrain through other schemas: ``not``, ``if``/``then``/``else``,
``dependentSchemas``/``dependencies``, ``contains``/``minContains``/``maxContains``, ``unevaluatedItems``
and tuple ``items``, ``patternProperties``, an ``allOf`` the engine cannot merge, and OpenAPI ``nullable``.

Each case is data: (id, direction, old, new, expected rule, expected severity, the exact witness of a
breaking verdict). That witness is also checked independently: the accepting side (new for outputs, old
for inputs) accepts it and the other side rejects it, with python ``jsonschema`` (2020-12 unless
``$schema`` says otherwise) — independent of the engine's own confirmation.
"""

from __future__ import annotations

from typing import Any

import pytest
from json_pointer import resolves
from jsonschema import validators
from referencing import Registry

from mcp_schema_audit.engine import compare_schemas

S = {"type": "string"}
I = {"type": "integer"}  # noqa: E741 (S, I: the schemas of the tables below)
D7 = {"$schema": "http://json-schema.org/draft-07/schema#"}
KIND = {"kind": {"enum": ["a", "b"]}, "x": S, "y": S}
IF_A = {"properties": {"kind": {"const": "a"}}, "required": ["kind"]}
ARR = {"type": "array", "items": S}


def obj(props: dict[str, Any], required: list[str] = (), **extra: Any) -> dict[str, Any]:  # type: ignore[assignment]
    return {"type": "object", "properties": props, "required": list(required), **extra}


# id, direction, old, new, rule (None = no finding above info), severity, witness of a breaking verdict
CASES: list[tuple[str, str, Any, Any, str | None, str | None, Any]] = [
    # not
    (
        "not-added-input",
        "input",
        obj({"s": S}, ["s"]),
        obj({"s": {**S, "not": {"const": ""}}}, ["s"]),
        "input-constraint-tightened",
        "breaking",
        {"s": ""},
    ),
    (
        "not-added-disjoint-input",
        "input",
        obj({"s": S}, ["s"]),
        obj({"s": {**S, "not": {"type": "null"}}}, ["s"]),
        None,
        None,
        None,
    ),
    (
        "not-removed-input",
        "input",
        obj({"s": {**S, "not": {"const": ""}}}, ["s"]),
        obj({"s": S}, ["s"]),
        "input-constraint-relaxed",
        "info",
        None,
    ),
    (
        "not-narrowed-output",
        "output",
        obj({"s": {**S, "not": {"enum": ["a", "b"]}}}, ["s"]),
        obj({"s": {**S, "not": {"const": "a"}}}, ["s"]),
        "output-constraint-relaxed",
        "breaking",
        {"s": "b"},
    ),
    (
        "not-widened-output",
        "output",
        obj({"s": {**S, "not": {"const": "a"}}}, ["s"]),
        obj({"s": {**S, "not": {"enum": ["a", "b"]}}}, ["s"]),
        None,
        None,
        None,
    ),
    (
        "not-required-key-closed-object",
        "input",
        obj({"a": S}, additionalProperties=False),
        obj({"a": S}, additionalProperties=False, **{"not": {"required": ["b"]}}),
        None,
        None,
        None,
    ),
    (
        "not-required-key-declared",
        "input",
        obj({"a": S, "b": S}),
        obj({"a": S, "b": S}, **{"not": {"required": ["b"]}}),
        "input-constraint-tightened",
        "breaking",
        {"b": "a"},
    ),
    # if / then / else
    (
        "if-then-added-input",
        "input",
        obj(KIND, ["kind"]),
        obj(KIND, ["kind"], **{"if": IF_A, "then": {"required": ["x"]}}),
        "input-constraint-tightened",
        "breaking",
        {"kind": "a"},
    ),
    (
        "if-then-removed-input",
        "input",
        obj(KIND, ["kind"], **{"if": IF_A, "then": {"required": ["x"]}}),
        obj(KIND, ["kind"]),
        "input-constraint-relaxed",
        "info",
        None,
    ),
    (
        "then-tightened-input",
        "input",
        obj(KIND, ["kind"], **{"if": IF_A, "then": {"required": ["x"]}}),
        obj(KIND, ["kind"], **{"if": IF_A, "then": {"required": ["x", "y"]}}),
        "input-constraint-tightened",
        "breaking",
        {"kind": "a", "x": "a"},
    ),
    (
        "then-met-by-required-input",
        "input",
        obj(KIND, ["kind", "x"]),
        obj(KIND, ["kind"], **{"if": IF_A, "then": {"required": ["x"]}}),
        None,
        None,
        None,
    ),
    (
        "else-added-input",
        "input",
        obj(KIND, ["kind"]),
        obj(KIND, ["kind"], **{"if": IF_A, "else": {"properties": {"x": {"maxLength": 2}}}}),
        "input-constraint-tightened",
        "breaking",
        {"kind": "b", "x": "aaa"},
    ),
    (
        "if-then-relaxed-output",
        "output",
        obj(KIND, ["kind"], **{"if": IF_A, "then": {"required": ["x"]}}),
        obj(KIND, ["kind", "x"]),
        "output-required-added",
        "warning",
        None,
    ),  # warning by policy, not by the condition
    (
        "if-then-dropped-output",
        "output",
        obj(KIND, ["kind"], **{"if": IF_A, "then": {"required": ["x"]}}),
        obj(KIND, ["kind"]),
        "output-constraint-relaxed",
        "breaking",
        {"kind": "a"},
    ),
    (
        "if-required-then-added-input",
        "input",
        obj({"id": S, "name": S}),
        obj({"id": S, "name": S}, **{"if": {"required": ["id"]}, "then": {"required": ["name"]}}),
        "input-constraint-tightened",
        "breaking",
        {"id": "a"},
    ),
    (
        "if-required-equals-dependent-required",
        "input",
        obj({"k": S, "t": S}, dependentRequired={"k": ["t"]}),
        obj({"k": S, "t": S}, **{"if": {"required": ["k"]}, "then": {"required": ["t"]}}),
        None,
        None,
        None,
    ),
    # dependentSchemas / dependencies
    (
        "dependent-schemas-added-input",
        "input",
        obj({"a": S, "b": S}),
        obj({"a": S, "b": S}, dependentSchemas={"a": {"required": ["b"]}}),
        "input-constraint-tightened",
        "breaking",
        {"a": "a"},
    ),
    (
        "dependent-schemas-met-input",
        "input",
        obj({"a": S, "b": S}, ["b"]),
        obj({"a": S, "b": S}, dependentSchemas={"a": {"required": ["b"]}}),
        None,
        None,
        None,
    ),
    (
        "dependent-schemas-value-tightened-output",
        "output",
        obj({"a": S, "b": S}, dependentSchemas={"a": {"properties": {"b": {"maxLength": 5}}}}),
        obj({"a": S, "b": S}, dependentSchemas={"a": {"properties": {"b": {"maxLength": 9}}}}),
        "output-constraint-relaxed",
        "breaking",
        {"a": "a", "b": "aaaaaa"},
    ),
    (
        "draft07-dependencies-array-added-input",
        "input",
        obj({"a": S, "b": S}, **D7),
        obj({"a": S, "b": S}, dependencies={"a": ["b"]}, **D7),
        "input-constraint-tightened",
        "breaking",
        {"a": "a"},
    ),
    (
        "draft07-dependencies-schema-added-input",
        "input",
        obj({"a": S, "b": I}, **D7),
        obj({"a": S, "b": I}, dependencies={"a": {"properties": {"b": {"minimum": 0}}, "required": ["b"]}}, **D7),
        "input-constraint-tightened",
        "breaking",
        {"a": "a", "b": -1},
    ),
    # draft-07 `dependencies` in a 2020-12 schema: python jsonschema ignores it, Ajv (both TS SDKs) applies it
    (
        "dependencies-in-2020-12-added-input",
        "input",
        obj({"a": S, "b": S}),
        obj({"a": S, "b": S}, dependencies={"a": ["b"]}),
        "input-constraint-tightened",
        "breaking",
        {"a": "a"},
    ),
    (
        "dependencies-replacing-dependent-required-output",
        "output",
        obj({"a": S, "b": S}, dependentRequired={"a": ["b"]}),
        obj({"a": S, "b": S}, dependencies={"a": ["b"]}),
        "output-constraint-relaxed",
        "breaking",
        {"a": "a"},
    ),
    # contains
    (
        "contains-added-input",
        "input",
        obj({"l": ARR}, ["l"]),
        obj({"l": {**ARR, "contains": {"const": "id"}}}, ["l"]),
        "input-constraint-tightened",
        "breaking",
        {"l": []},
    ),
    (
        "min-contains-raised-input",
        "input",
        obj({"l": {**ARR, "contains": {"const": "id"}}}, ["l"]),
        obj({"l": {**ARR, "contains": {"const": "id"}, "minContains": 2}}, ["l"]),
        "input-constraint-tightened",
        "breaking",
        {"l": ["id"]},
    ),
    (
        "max-contains-dropped-output",
        "output",
        obj({"l": {**ARR, "contains": {"const": "id"}, "maxContains": 1}}, ["l"]),
        obj({"l": {**ARR, "contains": {"const": "id"}}}, ["l"]),
        "output-constraint-relaxed",
        "breaking",
        {"l": ["id", "id"]},
    ),
    (
        "contains-removed-input",
        "input",
        obj({"l": {**ARR, "contains": {"const": "id"}}}, ["l"]),
        obj({"l": ARR}, ["l"]),
        "input-constraint-relaxed",
        "info",
        None,
    ),
    (
        "contains-narrowed-output",
        "output",
        obj({"l": {**ARR, "contains": {"type": "string"}}}, ["l"]),
        obj({"l": {**ARR, "contains": {"const": "id"}, "minContains": 2}}, ["l"]),
        None,
        None,
        None,
    ),
    # tuples: prefixItems + unevaluatedItems, draft-07 items array + additionalItems
    (
        "unevaluated-tuple-grows-output",
        "output",
        obj({"p": {"type": "array", "prefixItems": [I], "unevaluatedItems": False}}, ["p"]),
        obj({"p": {"type": "array", "prefixItems": [I, S], "unevaluatedItems": False}}, ["p"]),
        "output-type-widened",
        "breaking",
        {"p": [0, "a"]},
    ),
    (
        "unevaluated-items-equals-items-false",
        "output",
        obj({"p": {"type": "array", "prefixItems": [I], "unevaluatedItems": False}}, ["p"]),
        obj({"p": {"type": "array", "prefixItems": [I], "items": False}}, ["p"]),
        None,
        None,
        None,
    ),
    (
        "draft07-tuple-grows-output",
        "output",
        obj({"p": {"type": "array", "items": [I], "additionalItems": False}}, ["p"], **D7),
        obj({"p": {"type": "array", "items": [I, S], "additionalItems": False}}, ["p"], **D7),
        "output-type-widened",
        "breaking",
        {"p": [0, "a"]},
    ),
    # patternProperties
    (
        "pattern-properties-added-closed-output",
        "output",
        obj({"a": S}, ["a"], additionalProperties=False),
        obj({"a": S}, ["a"], additionalProperties=False, patternProperties={"^x_": I}),
        "output-property-added-to-closed-object",
        "breaking",
        {"a": "a", "x_": 0},
    ),
    (
        "pattern-properties-value-widened-output",
        "output",
        obj({}, patternProperties={"^x_": I}),
        obj({}, patternProperties={"^x_": {"type": "number"}}),
        "output-type-widened",
        "breaking",
        {"x_": 0.5},
    ),
    (
        "pattern-properties-covered-closed-output",
        "output",
        obj({"a": S}, additionalProperties=False, patternProperties={"^x_": I}),
        obj({"a": S}, additionalProperties=False, patternProperties={"^x_[a-z]*$": I}),
        None,
        None,
        None,
    ),
    (
        "map-values-constrained-by-pattern-input",
        "input",
        obj({}, additionalProperties=S),
        obj({}, additionalProperties=S, patternProperties={"^n_": {"maxLength": 1}}),
        "input-constraint-tightened",
        "breaking",
        {"n_": "aa"},
    ),
    (
        "map-value-constraint-dropped-output",
        "output",
        obj({}, additionalProperties=S),
        obj({}),
        "output-object-opened",
        "warning",
        None,
    ),
    # allOf that cannot be merged
    (
        "allof-anyof-narrowed-input",
        "input",
        obj({"a": S, "b": S}, allOf=[{"anyOf": [{"required": ["a"]}, {"required": ["b"]}]}]),
        obj({"a": S, "b": S}, allOf=[{"anyOf": [{"required": ["a"]}]}]),
        "input-union-branch-removed",
        "breaking",
        {"b": "a"},
    ),
    (
        "allof-anyof-widened-input",
        "input",
        obj({"a": S, "b": S}, allOf=[{"anyOf": [{"required": ["a"]}]}]),
        obj({"a": S, "b": S}, allOf=[{"anyOf": [{"required": ["a"]}, {"required": ["b"]}]}]),
        None,
        None,
        None,
    ),
    (
        "allof-ref-member-closed-gains-property-output",
        "output",
        {
            "type": "object",
            "allOf": [{"$ref": "#/$defs/A"}],
            "$defs": {"A": obj({"a": S}, ["a"], additionalProperties=False)},
        },
        {
            "type": "object",
            "allOf": [{"$ref": "#/$defs/A"}],
            "$defs": {"A": obj({"a": S, "b": S}, ["a", "b"], additionalProperties=False)},
        },
        "output-property-added-to-closed-object",
        "breaking",
        {"a": "a", "b": "a"},
    ),
    # found by the attack rounds: tuples, $ref targets, host-only readings, patternProperties on open objects
    (
        "contains-added-beside-prefix-items-input",
        "input",
        obj({"x": {"type": "array", "prefixItems": [I], "items": S, "minItems": 1}}),
        obj({"x": {"type": "array", "prefixItems": [I], "items": S, "minItems": 1, "contains": S}}),
        "input-constraint-tightened",
        "breaking",
        {"x": [0]},
    ),
    (
        "contains-ref-target-changed-input",
        "input",
        obj({"x": {"type": "array", "contains": {"$ref": "#/$defs/I"}}}, **{"$defs": {"I": S}}),
        obj({"x": {"type": "array", "contains": {"$ref": "#/$defs/I"}}}, **{"$defs": {"I": {"const": "a"}}}),
        "input-constraint-tightened",
        "breaking",
        {"x": [""]},
    ),
    # draft-07 Ajv (ts-sdk-v1) ignores minContains, so "contains" still needs one match there
    (
        "min-contains-zero-draft07-host-input",
        "input",
        obj({"x": {"type": "array"}}),
        obj({"x": {"type": "array", "contains": S, "minContains": 0}}),
        "input-constraint-tightened",
        "breaking",
        {"x": []},
    ),
    (
        "pattern-anchored-closed-input",
        "input",
        {"type": "object", "patternProperties": {"^a": {}}, "additionalProperties": False},
        {"type": "object", "patternProperties": {"^a$": {}}, "additionalProperties": False},
        "input-property-removed-from-closed-object",
        "breaking",
        {"abc": None},
    ),
    (
        "pattern-properties-added-open-input",
        "input",
        {"type": "object"},
        {"type": "object", "patternProperties": {"^a": S}},
        "input-type-narrowed",
        "breaking",
        {"a": 0},
    ),
    (
        "pattern-properties-dropped-open-output",
        "output",
        {"type": "object", "patternProperties": {"^a": S}},
        {"type": "object"},
        "output-type-removed",
        "warning",
        None,
    ),
    # only Ajv reads nullable, only ECMAScript's \s holds U+FEFF: breaking for the TS hosts alone
    (
        "not-nullable-ts-hosts-input",
        "input",
        obj({"x": {"type": "null"}}),
        obj({"x": {"type": "null", "not": {"type": "string", "nullable": True}}}),
        "input-constraint-tightened",
        "breaking",
        {"x": None},
    ),
    (
        "not-ecmascript-space-ts-hosts-input",
        "input",
        obj({"x": {"const": "\ufeff"}}),
        obj({"x": {"const": "\ufeff", "not": {"pattern": "^\\s$"}}}),
        "input-constraint-tightened",
        "breaking",
        {"x": "\ufeff"},
    ),
    # a oneOf branch that overlaps another on some values only (every string; strings of length 3 or 4)
    (
        "oneof-empty-branch-overlap-input",
        "input",
        obj({"e": {}}),
        obj({"e": {"oneOf": [{}, S]}}),
        "input-oneof-overlap",
        "breaking",
        {"e": "a"},
    ),
    (
        "oneof-length-overlap-input",
        "input",
        obj({"a": {"oneOf": [{**S, "maxLength": 3}, {**S, "minLength": 5}]}}),
        obj({"a": {"oneOf": [{**S, "maxLength": 4}, {**S, "minLength": 3}]}}),
        "input-oneof-overlap",
        "breaking",
        {"a": "aaa"},
    ),
    # additionalProperties sees only its own object's properties: moved beside a oneOf, it rejects them all
    (
        "closed-moved-out-of-oneof-input",
        "input",
        obj({"t": {"oneOf": [{"type": "object", "properties": {"file": {}}, "additionalProperties": False}]}}),
        obj({"t": {"oneOf": [{"type": "object", "properties": {"file": {}}}], "additionalProperties": False}}),
        "input-type-narrowed",
        "breaking",
        {"t": {"file": None}},
    ),
    (
        "closed-moved-into-oneof-output",
        "output",
        obj({"t": {"oneOf": [{"type": "object", "properties": {"file": {}}}], "additionalProperties": False}}),
        obj({"t": {"oneOf": [{"type": "object", "properties": {"file": {}}, "additionalProperties": False}]}}),
        "output-type-widened",
        "breaking",
        {"t": {"file": None}},
    ),
    # object size bounds: witnesses sized from P's declared properties
    (
        "min-properties-added-input",
        "input",
        obj({"a": {"type": "object"}}),
        obj({"a": {"type": "object", "minProperties": 1}}),
        "input-constraint-tightened",
        "breaking",
        {"a": {}},
    ),
    (
        "max-properties-relaxed-output",
        "output",
        obj({"a": {"type": "object", "properties": {"x": S, "y": S, "z": S}, "maxProperties": 2}}),
        obj({"a": {"type": "object", "properties": {"x": S, "y": S, "z": S}, "maxProperties": 3}}),
        "output-constraint-relaxed",
        "breaking",
        None,
    ),
    # a format change is proven with a value of the new format (TS hosts check formats)
    (
        "format-date-to-date-time-output",
        "output",
        obj({"d": {**S, "format": "date"}}, ["d"]),
        obj({"d": {**S, "format": "date-time"}}, ["d"]),
        "output-format-changed",
        "breaking",
        {"d": "2026-01-01T00:00:00Z"},
    ),
    # a const or enum that contradicts its own type accepts nothing (was an IndexError → undecidable): every
    # value the cached schema declares is rejected, as by any node that accepts nothing
    (
        "const-contradicts-type-input",
        "input",
        obj({"x": {"const": "a"}}),
        obj({"x": {"const": 1, "type": "string"}}),
        "input-type-narrowed",
        "breaking",
        {"x": "a"},
    ),
    # the witness item replaces the one that met the cached contains: the array keeps one after it
    (
        "items-narrowed-beside-contains-input",
        "input",
        obj({"x": {"type": "array", "items": {"type": "object"}, "contains": obj({"id": {"const": "a"}}, ["id"])}}),
        obj({"x": {"type": "array", "items": S}}),
        "input-type-narrowed",
        "breaking",
        {"x": [{}, {"id": "a"}]},
    ),
    (
        "allof-ref-target-narrowed-input",
        "input",
        obj({"x": {"allOf": [{"$ref": "#/$defs/A"}, {"anyOf": [S, I]}]}}, **{"$defs": {"A": {}}}),
        obj({"x": {"allOf": [{"$ref": "#/$defs/A"}, {"anyOf": [S, I]}]}}, **{"$defs": {"A": S}}),
        "input-type-narrowed",
        "breaking",
        {"x": 0},
    ),
]


def _validator(schema: Any) -> Any:
    cls = validators.validator_for(schema, default=validators.Draft202012Validator)
    return cls(schema, registry=Registry())


def _top(findings: list[Any]) -> list[Any]:
    rank = {"breaking": 2, "warning": 1}
    worst = max((rank.get(f.severity, 0) for f in findings), default=0)
    return [f for f in findings if rank.get(f.severity, 0) == worst and worst]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_keyword_verdict(case: tuple[Any, ...]) -> None:
    cid, direction, old, new, rule, severity, witness = case
    findings = compare_schemas(old, new, direction, tool="t")
    summary = [(f.rule, f.severity, f.pointer, f.reason) for f in findings]
    assert not any(f.rule == "schema-undecidable" for f in findings), summary
    assert all(resolves(old, f.pointer) or resolves(new, f.pointer) for f in findings), summary
    if rule is None:
        assert not _top(findings), summary
        return
    hits = [f for f in findings if f.rule == rule and f.severity == severity]
    assert hits, summary
    if severity == "breaking":
        assert _top(findings) and all(f.severity == "breaking" for f in _top(findings)), summary
        f = hits[0]
        assert f.witness is not None and f.hosts, summary
        if witness is not None:
            assert f.witness["instance"] == witness
        accepting, rejecting = (new, old) if direction == "output" else (old, new)
        assert _validator(accepting).is_valid(f.witness["instance"]), f.witness
        if "python-sdk" in f.hosts:  # the others are checked against real Ajv in test_ajv_crosscheck.py
            assert not _validator(rejecting).is_valid(f.witness["instance"]), f.witness
    else:
        assert max((f.severity for f in findings), key={"info": 0, "warning": 1, "breaking": 2}.get) == severity, (
            summary
        )


def test_undecidable_keyword_names_itself() -> None:
    # a `not` the engine can neither violate with a candidate nor rule out: a warning naming `not`
    old = obj({"s": S}, ["s"])
    new = obj({"s": {**S, "not": {"pattern": "^(?=.*[0-9])(?=.*[A-Z]).{12}$"}}}, ["s"])
    findings = compare_schemas(old, new, "input", tool="t")
    assert [(f.rule, f.severity, f.pointer) for f in findings] == [
        ("schema-undecidable", "warning", "/properties/s/not")
    ]
    assert "'not'" in findings[0].message


def test_nullable_added_to_output_breaks_ts_hosts_only() -> None:
    old = obj({"label": S}, ["label"])
    new = obj({"label": {**S, "nullable": True}}, ["label"])
    (f,) = [f for f in compare_schemas(old, new, "output", tool="t") if f.rule == "output-type-widened"]
    assert f.pointer == "/properties/label/nullable"
    assert f.severity == "breaking" and f.hosts == ["ts-sdk-v1", "ts-sdk-v2"]
    assert f.witness["instance"] == {"label": None}


def test_nullable_on_both_sides_is_silent() -> None:
    schema = obj({"label": {**S, "nullable": True}}, ["label"])
    assert compare_schemas(schema, dict(schema), "output", tool="t") == []


@pytest.mark.timing
def test_exponential_validation_is_refused_not_attempted() -> None:
    # "billion laughs" through anyOf: validating a value that fails every branch would try 2**30 paths.
    # Under `not`, every witness candidate is such a value; the engine must answer quickly, with a warning.
    # (CPU time: the work is bounded, and a busy machine does not stretch CPU time as it does the wall clock)
    import time

    defs: dict[str, Any] = {
        f"d{i}": {"anyOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]} for i in range(30)
    }
    defs["d30"] = {"type": "string"}
    old = {"type": "object", "properties": {"s": I}, "$defs": defs}
    new = {"type": "object", "properties": {"s": {**I, "not": {"$ref": "#/$defs/d0"}}}, "$defs": defs}
    start = time.process_time()
    findings = compare_schemas(old, new, "input", tool="t")
    assert time.process_time() - start < 20
    assert findings and all(f.severity == "warning" for f in findings), [(f.rule, f.reason) for f in findings]


def test_rule_catalog_examples_produce_their_rule() -> None:
    """Every rule's before/after example (``schema-audit explain``), when both are JSON, is a change the
    engine reports with that rule (input findings judged by the server validator ``after`` shows, as ``diff``
    judges them): the documentation cannot drift from the verdicts."""
    import json

    from mcp_schema_audit.engine.arguments import judge_inputs
    from mcp_schema_audit.engine.servers import infer
    from mcp_schema_audit.renames import merge_argument_renames
    from mcp_schema_audit.rules import RULES

    checked, wrong = 0, []
    for rule in RULES.values():
        if rule.direction not in ("input", "output") or rule.family.startswith("lint"):  # lint reads one snapshot
            continue
        try:
            before, after = json.loads(rule.before), json.loads(rule.after)
        except ValueError:
            continue  # prose examples ("(absent)", "{"anyOf": [A, B]}")
        findings = compare_schemas(before, after, rule.direction, tool="t")
        if rule.direction == "input":  # as diff judges them: by the server validator the new listing shows
            findings = judge_inputs(findings, after, infer([{"name": "t", "inputSchema": after}]))
            findings = merge_argument_renames(findings, before, after)  # as diff pairs them (renames.py)
        got = {f.rule for f in findings}
        checked += 1
        if rule.id not in got:
            wrong.append(f"{rule.id}: {sorted(got)}")
    assert checked >= 35 and not wrong, wrong
