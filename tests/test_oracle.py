"""The sampling oracle (``engine.oracle``): a rejection no finding explains becomes a finding; a rewrite
with no difference says so; the work stays in the regions where the schemas differ; the same inputs give
the same findings."""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator

from mcp_schema_audit.engine import compare_schemas
from mcp_schema_audit.engine.identity import Identity
from mcp_schema_audit.engine.oracle import oracle_findings, regions
from mcp_schema_audit.schema import SchemaDoc

S = {"type": "string"}


def obj(props: dict[str, Any], required: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(props if required is None else required), **extra}


def test_an_unexplained_rejection_becomes_a_confirmed_finding() -> None:
    """With the walk's findings taken away, the oracle alone finds the break, with a real witness."""
    old, new = obj({"a": S, "b": S}), obj({"a": S, "b": {"type": "string", "maxLength": 2}})
    found = oracle_findings([], SchemaDoc(old), SchemaDoc(new), "t", "input")
    assert [f.rule for f in found] == ["sampled-counterexample"]
    f = found[0]
    assert f.severity == "breaking" and f.hosts and f.pointer == "/properties/b"
    instance = f.witness["instance"]
    assert Draft202012Validator(old).is_valid(instance) and not Draft202012Validator(new).is_valid(instance)
    assert f.witness["accepted_by"] == "old" and f.witness["instance_pointer"] == "/b"


def test_a_finding_at_the_place_explains_the_rejection() -> None:
    old, new = obj({"a": S}), obj({"a": {"type": "string", "maxLength": 2}})
    findings = compare_schemas(old, new, "input", oracle=False)
    assert [f.rule for f in findings] == ["input-constraint-tightened"]
    assert oracle_findings(findings, SchemaDoc(old), SchemaDoc(new), "t", "input") == []
    assert [f.rule for f in compare_schemas(old, new, "input")] == ["input-constraint-tightened"]


def test_an_equivalent_rewrite_is_reported_as_such() -> None:
    old = obj({"a": {"anyOf": [S, {"type": "null"}]}, "n": {"type": "integer", "exclusiveMinimum": 0}})
    new = obj({"a": {"type": ["null", "string"], "description": "x"}, "n": {"type": "integer", "minimum": 1}})
    for direction in ("input", "output"):
        findings = compare_schemas(old, new, direction)
        assert [f.rule for f in findings] == ["schema-rewritten"], direction
        assert findings[0].severity == "info" and "equivalent on" in findings[0].message
    assert compare_schemas(old, old, "input") == []  # nothing changed: nothing said


def test_regions_leave_identical_properties_out() -> None:
    """A 500-property object with one changed property and one added: the oracle samples those two only."""
    props = {f"p{i}": {"type": "string", "maxLength": 10} for i in range(500)}
    old = obj(props, additionalProperties=False)
    new = obj({**props, "p7": {"type": "string", "maxLength": 3}, "extra": S}, list(props), additionalProperties=False)
    found = regions(new, old, Identity(SchemaDoc(new), SchemaDoc(old)))
    assert [(r.inst, r.keys) for r in found] == [([], ["extra"]), (["p7"], None)]
    findings = compare_schemas(old, new, "output")
    assert {f.rule for f in findings if f.severity == "breaking"} == {"output-property-added-to-closed-object"}


def test_the_oracle_is_deterministic() -> None:
    old = obj({"a": {"anyOf": [{"type": "integer", "minimum": 1}]}, "b": {"enum": ["x", "y"]}})
    new = obj(
        {
            "a": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "integer", "maximum": 1}]},
            "b": {"enum": ["x", "y", "z"]},
        }
    )
    runs = [[f.to_json() for f in compare_schemas(old, new, "output")] for _ in range(3)]
    assert runs[0] == runs[1] == runs[2]


def test_the_oracle_stops_on_its_own_budget_without_claiming_equivalence() -> None:
    """The oracle's validations are counted on a meter of its own (``ORACLE_VALIDATION_BUDGET``): spent, it stops
    with what it found, and claims no "equivalent on N samples" it did not check."""
    from mcp_schema_audit.engine.meter import ORACLE_VALIDATION_BUDGET, Meter
    from mcp_schema_audit.engine.oracle import _oracle

    old = obj({"a": {"anyOf": [S, {"type": "null"}]}})
    new = obj({"a": {"type": ["null", "string"], "description": "x"}})
    p, v = SchemaDoc(old), SchemaDoc(new)
    assert [f.rule for f in _oracle([], p, v, "t", "input", None, Meter(ORACLE_VALIDATION_BUDGET))] == [
        "schema-rewritten"
    ]
    spent = Meter(ORACLE_VALIDATION_BUDGET)
    spent.add((0, ORACLE_VALIDATION_BUDGET))
    assert _oracle([], p, v, "t", "input", None, spent) == []
