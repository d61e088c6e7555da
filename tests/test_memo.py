"""``schema.memo``: a document refused for its in-place cost is validated with each ``$ref``'s outcome kept, and
agrees with the real ``jsonschema`` on every answer; an attack that hid a widened enum behind such a chain."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from gate_helpers import cli

from mcp_schema_audit.schema import SchemaCostError, SchemaDoc
from mcp_schema_audit.schema.memo import memo_accepts


def _chain(levels: int, leaf: dict[str, Any], combine: str = "allOf", salt: str = "") -> dict[str, Any]:
    """``$defs`` a0 … a<levels>, each level naming the previous one twice: 2**levels evaluations in place."""
    defs: dict[str, Any] = {"a0": {**leaf, "description": salt}}
    for i in range(1, levels + 1):
        defs[f"a{i}"] = {combine: [{"$ref": f"#/$defs/a{i - 1}"}, {"$ref": f"#/$defs/a{i - 1}"}]}
    return {"$defs": defs, "type": "object", "properties": {"k": {"$ref": f"#/$defs/a{levels}"}}}


CASES = {
    "allof-string": ({"type": "string"}, "allOf"),
    "allof-enum": ({"enum": ["a", "b"]}, "allOf"),
    "anyof-string": ({"type": "string"}, "anyOf"),
    "anyof-min-length": ({"type": "string", "minLength": 2}, "anyOf"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_memo_agrees_with_jsonschema_where_the_cost_refuses(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the budget lowered so that a 2**10 chain is refused (the real validator still finishes it quickly),
    every answer is the real python ``jsonschema``'s, and the document is refused without the memo."""
    import mcp_schema_audit.schema.compile as compile_module
    import mcp_schema_audit.schema.doc as doc_module

    monkeypatch.setattr(compile_module, "INPLACE_BUDGET", 500)
    monkeypatch.setattr(doc_module, "INPLACE_BUDGET", 500)
    leaf, combine = CASES[case]
    schema = _chain(10, leaf, combine, salt=case)
    doc = SchemaDoc(schema)
    with pytest.raises(SchemaCostError):
        doc.check_cost()
    for value in ({"k": "c"}, {"k": "a"}, {"k": 5}, {"k": "ab"}, {}):
        real = jsonschema.Draft202012Validator(schema).is_valid(value)
        assert memo_accepts(doc, value, "python-sdk") is real, value
        assert doc.accepts(value, "python-sdk") is real, value
        assert doc.accepts(value, "ts-sdk-v2") is real, value


def test_memo_leaves_what_a_ref_outcome_may_depend_on_refused() -> None:
    """``unevaluatedProperties`` (annotations a ``$ref`` collects) or ``$dynamicRef`` anywhere: not answered."""
    schema = _chain(16, {"type": "string"})
    schema["unevaluatedProperties"] = False
    assert memo_accepts(SchemaDoc(schema), {"k": "c"}, "python-sdk") is None


def test_a_costly_chain_beside_a_widened_enum_no_longer_passes_the_gate(tmp_path: Path) -> None:
    """The attack: 1.3 KB of ``allOf`` chain (2**15 evaluations) on the property whose enum a release widened made
    the widening an unconfirmed warning: exit 0. Now it is breaking; and with the chain ending in the old enum, the
    new value is really refused by the new schema, so nothing is claimed."""
    old = {"type": "object", "properties": {"k": {"type": "string", "enum": ["a", "b"]}}, "required": ["k"]}
    for leaf, breaking in (({"type": "string"}, True), ({"enum": ["a", "b"]}, False)):
        new = _chain(15, leaf)
        new["properties"]["k"] = {"type": "string", "enum": ["a", "b", "c"], "allOf": [{"$ref": "#/$defs/a15"}]}
        new["required"] = ["k"]
        for name, schema in (("old", old), ("new", new)):
            listing = {"tools": [{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": schema}]}
            (tmp_path / f"{name}.json").write_text(json.dumps(listing))
        r = cli("diff", str(tmp_path / "old.json"), str(tmp_path / "new.json"), "-f", "json")
        found = [(f["rule"], f["severity"]) for f in json.loads(r.stdout)["findings"]]
        assert (("output-enum-value-added", "breaking") in found) is breaking, found
        assert r.returncode == (1 if breaking else 0), r.stderr


def _k(enum: list[str], chained: bool) -> dict[str, Any]:
    k: dict[str, Any] = {"type": "string", "enum": enum}
    if chained:
        k["allOf"] = [{"$ref": "#/$defs/a15"}]
    return k


def _object(k: dict[str, Any], chained: bool, **props: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": {**props, "k": k}, "required": ["k"]}
    if chained:
        out["$defs"] = _chain(15, {"type": "string"})["$defs"]
    return out


VARIANTS = {
    # the second attack round: the rejecting side chained too, a property named like a keyword, an input narrowing
    "output-both-sides": ("outputSchema", (["a", "b"], True), (["a", "b", "c"], True), {}),
    "output-cached-side": ("outputSchema", (["a", "b"], True), (["a", "b", "c"], False), {}),
    "output-beside-a-property-named-id": ("outputSchema", (["a", "b"], False), (["a", "b", "c"], True), {"id": {}}),
    "input-narrowed": ("inputSchema", (["a", "b", "c"], False), (["a", "b"], True), {}),
}


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_a_costly_chain_on_either_side_keeps_the_break(variant: str, tmp_path: Path) -> None:
    """The chain on the side that must reject the witness (``SchemaDoc.errors``: the memo answered only
    ``accepts``), or beside a property named ``id`` (the memo once declined any text holding ``"id"``): still
    breaking, exit 1."""
    where, (old_enum, old_chained), (new_enum, new_chained), props = VARIANTS[variant]
    for name, (enum, chained) in (("old", (old_enum, old_chained)), ("new", (new_enum, new_chained))):
        tool: dict[str, Any] = {"name": "t", "inputSchema": {"type": "object"}}
        tool[where] = _object(_k(enum, chained), chained, **props)
        (tmp_path / f"{name}.json").write_text(json.dumps({"tools": [tool]}))
    r = cli("diff", str(tmp_path / "old.json"), str(tmp_path / "new.json"), "-f", "json")
    breaking = [f["rule"] for f in json.loads(r.stdout)["findings"] if f["severity"] == "breaking"]
    assert r.returncode == 1 and breaking, (r.stderr, breaking)


def test_memo_errors_agree_with_jsonschema(monkeypatch: pytest.MonkeyPatch) -> None:
    """``memo_errors`` is empty exactly when the real validator accepts, and locates a direct error as it does."""
    import mcp_schema_audit.schema.compile as compile_module
    import mcp_schema_audit.schema.doc as doc_module
    from mcp_schema_audit.schema.memo import memo_errors

    monkeypatch.setattr(compile_module, "INPLACE_BUDGET", 500)
    monkeypatch.setattr(doc_module, "INPLACE_BUDGET", 500)
    schema = _object(_k(["a", "b"], True), True)
    schema["$defs"] = _chain(10, {"type": "string", "minLength": 1}, salt="errors")["$defs"]
    schema["properties"]["k"]["allOf"] = [{"$ref": "#/$defs/a10"}]
    doc = SchemaDoc(schema)
    for value in ({"k": "c"}, {"k": "a"}, {"k": ""}, {"k": 5}, {}):
        real = list(jsonschema.Draft202012Validator(schema).iter_errors(value))
        got = memo_errors(doc, value, "python-sdk")
        assert got is not None and bool(got) is bool(real), value
    enum_error = memo_errors(doc, {"k": "c"}, "python-sdk")
    assert enum_error and enum_error[0].validator == "enum" and list(enum_error[0].path) == ["k"]


def _tree(n: int, levels: int, max_length: int) -> dict[str, Any]:
    defs: dict[str, Any] = {f"d{i}": {"allOf": [{"$ref": f"#/$defs/d{i + 1}"}] * 2} for i in range(levels)}
    defs[f"d{levels}"] = {"type": "string", "maxLength": max_length}
    return {"type": "object", "properties": {f"p{i}": {"$ref": "#/$defs/d0"} for i in range(n)}, "$defs": defs}


def test_a_costly_document_under_the_refusal_budget_is_validated_with_the_memo() -> None:
    """Attack round 4: a 10 KB ``$defs`` tree of 2**12 evaluations (under ``INPLACE_BUDGET``, so not refused)
    under each of 300 arguments cost a plain validator about 1 s per validation and one tool 103 s. Its validators
    (``SchemaDoc``'s and a server's own, ``engine.servers``) keep each ``$ref``'s outcome, and answer as the real
    ``jsonschema`` does; a cheap document keeps the plain class."""
    from mcp_schema_audit.engine import servers
    from mcp_schema_audit.schema.memo import MEMO_FROM, remembering_class

    schema = _tree(3, 12, 4)
    doc = SchemaDoc(schema)
    doc.check_cost()  # not refused
    assert doc._cost is not None and doc._cost >= MEMO_FROM
    cls = jsonschema.Draft202012Validator
    assert remembering_class(cls, schema) is not cls
    assert remembering_class(cls, _tree(3, 2, 4)) is cls
    for value in ({"p0": "abc"}, {"p0": "abcde"}, {"p1": 5}, {}, {"p0": "a", "p2": "toolong"}):
        real = list(cls(schema).iter_errors(value))
        assert doc.accepts(value, "python-sdk") is (not real), value
        assert doc.accepts(value, "ts-sdk-v2") is (not real), value
        assert bool(doc.errors(value, "python-sdk")) is bool(real), value
        judged = servers.judge(servers.PROFILES["published"], schema, value)
        assert bool(judged.rejected) is bool(real), value


def test_three_hundred_arguments_on_a_costly_tree_finish_within_the_budget(tmp_path: Path) -> None:
    """The whole diff of that tool finishes under ``--time-budget 60`` (it took 103 s; about 1 s now: the figure is
    in benchmarks/bench_hostile.py), with one finding for the one change: the 299 other arguments that name the
    same ``$defs`` entry were each a ``sampled-counterexample`` "no other finding explains" (the oracle now
    follows their ``$ref``s to the finding)."""
    for name, max_length in (("old", 50), ("new", 40)):
        tool = {"name": "t", "inputSchema": _tree(300, 12, max_length)}
        (tmp_path / f"{name}.json").write_text(json.dumps({"tools": [tool]}))
    r = cli("diff", str(tmp_path / "old.json"), str(tmp_path / "new.json"), "-f", "json", "--time-budget", "60")
    assert r.returncode == 1, r.stderr[-300:]
    breaking = [f for f in json.loads(r.stdout)["findings"] if f["severity"] == "breaking"]
    assert [(f["rule"], f["pointer"]) for f in breaking] == [("input-constraint-tightened", "/$defs/d12/maxLength")]


def _leaf_tree(levels: int, leaf: Any) -> dict[str, Any]:
    defs: dict[str, Any] = {f"l{i}": {"allOf": [{"$ref": f"#/$defs/l{i + 1}"}] * 2} for i in range(levels)}
    defs[f"l{levels}"] = leaf
    return {"type": "object", "properties": {"x": {"$ref": "#/$defs/l0"}}, "required": ["x"], "$defs": defs}


@pytest.mark.parametrize(
    ("old_leaf", "new_leaf"),
    [
        ({"enum": [1, True]}, {"const": 1, "type": "integer"}),  # Literal[1] takes true
        ({"enum": ["7", 7]}, {"type": "integer"}),  # lax mode takes "7"
        ({"enum": ["true", True]}, {"type": "boolean"}),  # ... and "true"
    ],
)
def test_a_remembered_error_keeps_its_keyword(old_leaf: Any, new_leaf: Any, tmp_path: Path) -> None:
    """Attack round 6: under a $defs tree the memo answers (2**8 evaluations), an error met again was a bare
    message without its keyword, so pydantic's coercions were not seen and the witness was a false break (exit 1;
    a warning on the same leaf without the tree). The remembered error is a copy of the first one."""
    for name, leaf in (("old", old_leaf), ("new", new_leaf)):
        tool = {"name": "t", "inputSchema": _leaf_tree(8, leaf)}
        (tmp_path / f"{name}.json").write_text(json.dumps({"tools": [tool]}))
    args = ("diff", str(tmp_path / "old.json"), str(tmp_path / "new.json"), "-f", "json")
    r = cli(*args, "--server-validator", "pydantic-ignore")
    assert r.returncode == 0, r.stdout[-500:]
    loud = [f for f in json.loads(r.stdout)["findings"] if f["severity"] != "info"]
    assert loud and all(f["severity"] == "warning" and f["server"]["outcome"] == "accepted" for f in loud), loud
