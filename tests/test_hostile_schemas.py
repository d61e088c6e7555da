"""Hostile but loadable schemas through the real CLI: a report within ``DIFF_BUDGET_S``, never a crash, the
tool beside the hostile one still compared; remote ``$ref``s are findings, never requests or file reads.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, Literal

import jsonschema
import pytest
from hostile_cli import CANARY, DIFF_BUDGET_S, HostileHTTPServer, cli, obj, tool, tools_file, write_json

from mcp_schema_audit.schema.regex import pydantic_found

pytestmark = pytest.mark.timing  # bounds on time (``hostile_cli``): run by scripts/under_load.py

# ---- hostile but loadable schemas: a report within the budget, never a crash ---------------------


def _laughs_any_of(levels: int = 40) -> dict[str, Any]:
    """``$defs`` where each level is an ``anyOf`` of the previous level twice: 2**40 paths."""
    defs: dict[str, Any] = {"l0": {"type": "string"}}
    for i in range(1, levels + 1):
        defs[f"l{i}"] = {"anyOf": [{"$ref": f"#/$defs/l{i - 1}"}, {"$ref": f"#/$defs/l{i - 1}"}]}
    return {"type": "object", "$defs": defs, "properties": {"x": {"$ref": f"#/$defs/l{levels}"}}, "required": ["x"]}


def _laughs_props(levels: int = 40) -> dict[str, Any]:
    """``$defs`` where each level is an object with two properties referencing the previous level."""
    defs: dict[str, Any] = {"l0": {"type": "object", "properties": {"v": {"type": "string"}}}}
    for i in range(1, levels + 1):
        defs[f"l{i}"] = {
            "type": "object",
            "properties": {"a": {"$ref": f"#/$defs/l{i - 1}"}, "b": {"$ref": f"#/$defs/l{i - 1}"}},
            "required": ["a", "b"],
        }
    return {"type": "object", "$defs": defs, "properties": {"x": {"$ref": f"#/$defs/l{levels}"}}, "required": ["x"]}


def _deep(levels: int, leaf: str) -> dict[str, Any]:
    node: dict[str, Any] = {"type": leaf}
    for _ in range(levels):
        node = {"type": "object", "properties": {"a": node}, "required": ["a"]}
    return node


def _wide(n: int, closed: bool) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(n)}}
    if closed:
        schema["additionalProperties"] = False
    return schema


def _unevaluated_chain(levels: int, via_ref: bool) -> dict[str, Any]:
    """``levels`` nested ``allOf`` + ``unevaluatedProperties: false`` (each level re-walks the ones below)."""
    if via_ref:
        defs: dict[str, Any] = {"L0": {"properties": {"x": {"type": "string"}}}}
        for i in range(1, levels + 1):
            defs[f"L{i}"] = {"allOf": [{"$ref": f"#/$defs/L{i - 1}"}], "unevaluatedProperties": False}
        return {"type": "object", "$ref": f"#/$defs/L{levels}", "$defs": defs}
    node: dict[str, Any] = {"properties": {"x": {"type": "string"}}}
    for _ in range(levels):
        node = {"allOf": [node], "unevaluatedProperties": False}
    return {"type": "object", **node}


INVALID_SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": 42, "minimum": "x", "required": "q", "properties": [1]}},
}

#: case → (old inputSchema/outputSchema pair, new pair, rules of which at least one must be reported for tool "h")
#: A pair is (inputSchema, outputSchema); ``None`` for an absent outputSchema.
HOSTILE_SCHEMAS: dict[str, tuple[Any, Any, set[str] | None]] = {
    "invalid-json-schema": ((INVALID_SCHEMA, None), (INVALID_SCHEMA, None), None),
    "ref-not-a-string": (
        ({"type": "object", "properties": {"a": {"$ref": 5}}}, None),
        ({"type": "object", "properties": {"a": {"$ref": 5}}}, None),
        None,
    ),
    "ref-missing-pointer": (
        ({"type": "object", "properties": {"a": {"$ref": "#/$defs/nope"}}}, None),
        ({"type": "object", "properties": {"a": {"$ref": "#/$defs/nope"}}}, None),
        None,
    ),
    "ref-cycle": (
        (
            {
                "type": "object",
                "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
                "properties": {"x": {"$ref": "#/$defs/a"}},
            },
        )
        * 2,
        (
            {
                "type": "object",
                "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
                "properties": {"x": {"$ref": "#/$defs/a"}},
            },
        )
        * 2,
        None,
    ),
    "ref-root-self": (({"$ref": "#"}, {"$ref": "#"}), ({"$ref": "#"}, {"$ref": "#"}), None),
    "billion-laughs-anyOf": ((_laughs_any_of(), _laughs_any_of()), (_laughs_any_of(), _laughs_any_of()), None),
    "billion-laughs-properties": ((_laughs_props(), _laughs_props()), (_laughs_props(), _laughs_props()), None),
    # a schema that applies itself at the same place: validation recurses forever (was a Rust panic in rpds)
    "inplace-cycle-not": (
        (obj(x={"type": "string"}), None),
        ({"type": "object", "not": {"$ref": "#"}}, None),
        {"schema-undecidable"},
    ),
    "inplace-cycle-if": (
        ({"type": "object"}, None),
        ({"type": "object", "if": {"$ref": "#"}, "then": {}}, None),
        {"schema-undecidable"},
    ),
    "inplace-cycle-dependentSchemas": (
        ({"type": "object"}, None),
        ({"type": "object", "dependentSchemas": {"x": {"$ref": "#"}}}, None),
        {"schema-undecidable"},
    ),
    "inplace-cycle-defs": (
        ({"type": "object"}, None),
        (
            {
                "type": "object",
                "$ref": "#/$defs/a",
                "$defs": {"a": {"allOf": [{"$ref": "#/$defs/b"}]}, "b": {"anyOf": [{"$ref": "#/$defs/a"}]}},
            },
            None,
        ),
        {"schema-undecidable"},
    ),
    # unevaluatedProperties re-walks its allOf: Fibonacci growth per level (105 s at 14 levels before)
    "unevaluated-chain-ref-14": (
        (obj(x={"type": "string"}), None),
        (_unevaluated_chain(14, True), None),
        {"schema-undecidable", "input-object-closed"},
    ),
    "unevaluated-chain-inline-30": (
        (obj(x={"type": "string"}), None),
        (_unevaluated_chain(30, False), None),
        {"schema-undecidable", "input-object-closed"},
    ),
    # a non-string root $id: referencing cannot read it (was an internal error, exit 4)
    "root-id-not-a-string": (
        ({"type": "object"}, obj(a={"type": "string"})),
        ({"type": "object", "$id": 5}, {"type": "object", "$id": [], "properties": {"a": {"type": "integer"}}}),
        None,
    ),
    # ECMAScript ReDoS through a fixed count over overlapping alternatives (regress has no timeout)
    "ecma-redos-fixed-count": (
        (
            obj(y={"type": "string", "enum": ["a" * 40 + "\n"], "pattern": "^(?:a|a){40}$"}, z={"type": "string"})
            | {"required": ["y"]},
            None,
        ),
        (
            obj(y={"type": "string", "enum": ["a" * 40 + "\n"], "pattern": "^(?:a|a){40}$"}, z={"type": "string"})
            | {"required": ["y", "z"]},
            None,
        ),
        None,
    ),
    "nesting-250": (
        (_deep(250, "string"), _deep(250, "string")),
        (_deep(250, "integer"), _deep(250, "integer")),
        {"schema-undecidable"},
    ),
    "enum-100000": (
        (
            {"type": "object", "properties": {"e": {"enum": list(range(100_000))}}},
            obj(e={"enum": [str(i) for i in range(100_000)]}),
        ),
        (
            {"type": "object", "properties": {"e": {"enum": list(range(100_001))}}},
            obj(e={"enum": [str(i) for i in range(100_001)]}),
        ),
        None,
    ),
    # identical properties are skipped without a walk, so the one real change (the object closed) is found
    "wide-60000-properties": (
        ({"type": "object"}, _wide(60_000, False)),
        ({"type": "object"}, _wide(60_000, True)),
        {"schema-undecidable", "output-object-closed"},
    ),
    "redos-pattern-candidates": (
        ({"type": "object"}, obj(s={"type": "string", "pattern": "(a+)+b"})),
        ({"type": "object"}, obj(s={"type": "string", "pattern": "(a+)+c", "minLength": 40})),
        None,
    ),
    "redos-pattern-anchored": (
        ({"type": "object"}, obj(s={"type": "string", "pattern": "^(a|aa)+$"})),
        ({"type": "object"}, obj(s={"type": "string", "pattern": "^(a|a?)+$", "minLength": 40})),
        None,
    ),
    "redos-patternProperties-key": (
        (
            {"type": "object"},
            {"type": "object", "patternProperties": {"^(a+)+$": {"type": "string"}}, "additionalProperties": False},
        ),
        (
            {"type": "object"},
            {"type": "object", "properties": {"a" * 40 + "!": {"type": "string"}}, "additionalProperties": False},
        ),
        None,
    ),
    "invalid-regex": (
        ({"type": "object"}, obj(s={"type": "string", "pattern": "(("}, n={"enum": [1]})),
        ({"type": "object"}, obj(s={"type": "string", "pattern": "(("}, n={"enum": [1, 2]})),
        None,
    ),
    "minLength-1e9": (
        ({"type": "object"}, obj(s={"type": "string", "maxLength": 3})),
        ({"type": "object"}, obj(s={"type": "string", "minLength": 10**9})),
        None,
    ),
    "maxLength-1e9": (
        ({"type": "object"}, obj(s={"type": "string", "maxLength": 10**9})),
        ({"type": "object"}, obj(s={"type": "string"})),
        None,
    ),
    "minItems-1e9": (
        ({"type": "object"}, obj(s={"type": "array", "maxItems": 1})),
        ({"type": "object"}, obj(s={"type": "array", "minItems": 10**9})),
        None,
    ),
    "multipleOf-denormal": (
        ({"type": "object"}, obj(n={"type": "number", "multipleOf": 5e-324})),
        ({"type": "object"}, obj(n={"type": "number", "multipleOf": 1e-300, "minimum": 1e308})),
        None,
    ),
    "float-extremes": (
        ({"type": "object"}, obj(n={"type": "number", "maximum": 1.7e308})),
        ({"type": "object"}, obj(n={"type": "number", "minimum": -1.7e308, "multipleOf": 1e-308})),
        None,
    ),
    "int-extremes": (
        ({"type": "object"}, obj(n={"type": "integer", "maximum": 10**300})),
        ({"type": "object"}, obj(n={"type": "integer", "maximum": 10**305, "minimum": -(10**305)})),
        None,
    ),
    "nested-minItems-1000": (
        (
            {"type": "object"},
            obj(
                a={
                    "type": "array",
                    "minItems": 1000,
                    "items": {
                        "type": "array",
                        "minItems": 1000,
                        "items": {"type": "array", "minItems": 1000, "items": {"enum": [1]}},
                    },
                }
            ),
        ),
        (
            {"type": "object"},
            obj(
                a={
                    "type": "array",
                    "minItems": 1000,
                    "items": {
                        "type": "array",
                        "minItems": 1000,
                        "items": {"type": "array", "minItems": 1000, "items": {"enum": [1, 2]}},
                    },
                }
            ),
        ),
        None,
    ),
    "ref-empty-in-oneOf": (
        ({"type": "object", "maxProperties": 1}, {"type": "object", "maxProperties": 1}),
        (
            {"type": "object", "maxProperties": 1, "maxItems": 2, "oneOf": [{"x": 1}, {"$ref": ""}, {"y": ""}]},
            {"type": "object", "maxProperties": 1, "maxItems": 2, "oneOf": [{"x": 1}, {"$ref": ""}, {"y": ""}]},
        ),
        None,
    ),
    "bounds-not-numbers": (
        (
            {"type": "object"},
            obj(
                s={
                    "type": ["string", "array", "object"],
                    "minLength": "3",
                    "maxItems": [1],
                    "minProperties": {},
                    "minItems": "2",
                }
            ),
        ),
        (
            {"type": "object"},
            obj(
                s={
                    "type": ["string", "array", "object"],
                    "minLength": 2,
                    "maxItems": [2],
                    "minProperties": {"x": 1},
                    "minItems": 1,
                }
            ),
        ),
        None,
    ),
    "multipleOf-zero": (
        ({"type": "object"}, obj(n={"type": "integer", "multipleOf": 0})),
        ({"type": "object"}, obj(n={"type": "integer", "multipleOf": 0}, m={"enum": [1]})),
        None,
    ),
    # non-string entries of required (or a dependentRequired entry) that cannot be hashed (was exit 4)
    "required-unhashable-added": (
        ({"type": "object"}, obj(a={"type": "string"})),
        (
            {"type": "object", "required": [{}], "dependentRequired": {"a": [[1]]}},
            obj(a={"type": "string"}) | {"required": [[1], "a", {"x": 1}]},
        ),
        None,
    ),
    "required-unhashable-removed": (
        (
            {"type": "object", "required": [{}], "allOf": [{"required": ["a", []]}]},
            obj(a={"type": "string"}) | {"required": [[1]]},
        ),
        ({"type": "object"}, obj(a={"type": "string"})),
        None,
    ),
    # nested loops that can match empty: regress (the ECMAScript engine) allocates gigabytes on a 1-character
    # text and aborts; the translation to the regex package decides short texts, longer ones are undecided
    "regress-nested-empty-loops": (
        (obj(q={"type": "string", "pattern": "^a$"}), obj(a={"type": "string", "pattern": "^a$"})),
        (
            obj(q={"type": "string", "pattern": "^((a*)*)+c$"}),
            obj(a={"type": "string", "pattern": "^((a|)*){2}c$|(?:(?:a?)*)*b"}),
        ),
        None,
    ),
    "schema-keyword-junk": (
        ({"$schema": ["x"], "type": "object"}, {"$schema": {"a": 1}}),
        ({"$schema": ["y"], "type": "object"}, {"$schema": {"b": 1}}),
        None,
    ),
    "not-schemas-everywhere": (
        (
            {
                "type": "object",
                "properties": {
                    "a": {
                        "items": 5,
                        "prefixItems": {"x": 1},
                        "additionalProperties": "no",
                        "allOf": {},
                        "anyOf": [],
                        "oneOf": [5],
                        "not": 3,
                        "if": 4,
                        "enum": "x",
                        "required": 5,
                        "type": ["string", 5],
                    }
                },
            },
            True,
        ),
        (
            {
                "type": "object",
                "properties": {
                    "a": {
                        "items": [1],
                        "oneOf": [5, None],
                        "allOf": [None],
                        "anyOf": [[]],
                        "$ref": None,
                        "const": {"$ref": "#"},
                    }
                },
            },
            False,
        ),
        None,
    ),
    # issue 21: a pattern's size is bounded before any parser sees it. ``a|a|…`` of 100,001 alternatives (200 KB)
    # overflowed regress's native stack (SIGSEGV, exit 139) in input and output schemas; a 1.5 MB one of 60,000
    # alternatives took 54 s past ``--time-budget 5`` (re parsed it ~80 times): now refused, undecided, at once
    "regex-100k-alternatives": (
        (obj(x={"type": "string"}), obj(y={"type": "string"})),
        (
            obj(x={"type": "string", "pattern": "a|" * 100_000 + "a"}),
            obj(y={"type": "string", "pattern": "^(" + "|".join(f"w{i}" for i in range(120_000)) + ")$"}),
        ),
        {"input-pattern-changed"},
    ),
    "regex-1.5MB-60k-alternatives": (
        (obj(x={"type": "string"}), {"type": "object"}),
        (
            obj(x={"type": "string", "pattern": "|".join(f"alt{i:05d}{'q' * 17}" for i in range(60_000))}),
            {"type": "object"},
        ),
        {"input-pattern-changed"},
    ),
    # 30,000 patternProperties (1.16 MB): still running at 90 s past ``--time-budget 5``; 5,000 took 12.3 s (each
    # declared key searched every pattern, re's 512-entry cache recompiling them): each pattern is compiled once,
    # compiles and searches count against the work budget
    "patternProperties-30k": (
        (
            obj(**{f"k{i}_x": {"type": "string"} for i in range(150)})
            | {"patternProperties": {f"^k{i}_[a-z]+$": {"type": "string"} for i in range(30_000)}},
            {"type": "object"},
        ),
        (
            obj(**{f"k{i}_x": {"type": "integer"} for i in range(150)})
            | {"patternProperties": {f"^k{i}_[a-z]+$": {"type": "string"} for i in range(30_000)} | {"^z": {}}},
            {"type": "object"},
        ),
        {"schema-undecidable"},
    ),
    # a count of 2**32 or more: "internal error: OverflowError: the repetition number is too large" (exit 4)
    "regex-count-past-2**32": (
        (obj(x={"type": "string", "pattern": "^b+$"}), {"type": "object"}),
        (obj(x={"type": "string", "pattern": "^a{100000000000}$"}), {"type": "object"}),
        {"input-pattern-changed"},
    ),
}


def _pair_file(path: Path, pair: tuple[Any, Any], extra: list[dict[str, Any]] | None = None) -> Path:
    inp, out = pair
    return tools_file(path, [tool("h", inp, out), *(extra or [])])


#: A tool next to the hostile one, with a real breaking change (output enum widened).
NORMAL_OLD = tool("normal", out=obj(s={"enum": ["a", "b"]}) | {"additionalProperties": False})
NORMAL_NEW = tool("normal", out=obj(s={"enum": ["a", "b", "c"]}) | {"additionalProperties": False})


@pytest.mark.parametrize("case", list(HOSTILE_SCHEMAS))
def test_hostile_schema_is_reported_within_budget(case: str, tmp_path: Path) -> None:
    """Each hostile tool yields a report within ``DIFF_BUDGET_S``; the tool next to it is still compared."""
    old_pair, new_pair, expected = HOSTILE_SCHEMAS[case]
    old = _pair_file(tmp_path / "old.json", old_pair, [NORMAL_OLD])
    new = _pair_file(tmp_path / "new.json", new_pair, [NORMAL_NEW])
    run = cli("diff", str(old), str(new), "--format", "json", cwd=tmp_path)
    assert "Traceback" not in run.stderr and "panicked" not in run.stderr, run.stderr[-3000:]
    assert run.code in (0, 1), f"exit {run.code}: {run.stderr[-500:]}"
    assert run.timing.unloaded() < DIFF_BUDGET_S, f"{case} took {run.timing.describe()}"
    report = run.report()
    normal = {(f["rule"], f["severity"]) for f in report["findings"] if f["tool"] == "normal"}
    assert ("output-enum-value-added", "breaking") in normal, "the other tool was not compared"
    assert run.code == 1
    hostile = [f for f in report["findings"] if f["tool"] == "h"]
    for f in hostile:
        assert f["severity"] in ("breaking", "warning", "info")
        if f["severity"] == "breaking":
            # a breaking finding names who rejects its witness: host profiles, or (inputs) the server
            assert f["witness"] and (f["hosts"] or f.get("server", {}).get("outcome") == "rejected"), f
    if expected is not None:
        rules = {f["rule"] for f in hostile}
        assert rules & expected, f"expected one of {sorted(expected)} for the hostile tool, got {sorted(rules)}"
        assert any(f["severity"] == "warning" for f in hostile if f["rule"] in expected)


def test_invalid_schema_warning_gates(tmp_path: Path) -> None:
    """An invalid JSON Schema in a pairable snapshot is a finding, never exit 2 or 4: a diff reports a new
    one as an outputSchema as breaking for python-sdk (its client runs check_schema on outputSchemas), as an
    inputSchema as a warning naming no client (none checks it); lint reports it in any snapshot; an invalid
    schema unchanged between two versions is no change."""
    old = tools_file(tmp_path / "old.json", [tool("h", {"type": "object"})])
    new = tools_file(tmp_path / "new.json", [tool("h", INVALID_SCHEMA)])
    run = cli("diff", str(old), str(new), "--format", "json", cwd=tmp_path)
    report = run.report()
    got = {(f["rule"], f["severity"], tuple(f["hosts"])) for f in report["findings"]}
    assert ("schema-metaschema-invalid", "warning", ()) in got, got
    assert run.code == 0
    assert cli("diff", str(old), str(new), "--fail-on", "warning", cwd=tmp_path).code == 1
    new_out = tools_file(tmp_path / "new-out.json", [tool("h", {"type": "object"}, INVALID_SCHEMA)])
    run = cli("diff", str(old), str(new_out), "--format", "json", cwd=tmp_path)
    got = {(f["rule"], f["severity"], tuple(f["hosts"])) for f in run.report()["findings"]}
    assert ("schema-metaschema-invalid", "breaking", ("python-sdk",)) in got, got
    assert run.code == 1
    same = cli("diff", str(new), str(new), "--format", "json", cwd=tmp_path)
    assert same.code == 0 and same.report()["findings"] == []
    for snap, code in ((new, 0), (new_out, 1)):
        lint = cli("lint", str(snap), "--format", "json", cwd=tmp_path)
        assert lint.code == code and "schema-metaschema-invalid" in {f["rule"] for f in lint.report()["findings"]}


# ---- no network, no file reads during diff -------------------------------------------------------


def _atime_is_tracked(tmp_path: Path) -> bool:
    probe = tmp_path / "atime-probe"
    probe.write_text("x")
    os.utime(probe, (time.time() - 3 * 86400, time.time() - 4 * 86400))
    before = probe.stat().st_atime
    probe.read_text()
    return probe.stat().st_atime != before


def test_remote_refs_are_never_fetched(tmp_path: Path) -> None:
    """``$ref``/``$schema``/``$id`` to http:// and file:// are findings, never requests or reads."""
    fifo = tmp_path / "ref.fifo"
    os.mkfifo(fifo)  # opening it for reading blocks: a read would hang (and fail) the diff
    secret = tmp_path / "secret.json"
    write_json(secret, {"type": "string", "enum": [CANARY]})
    os.utime(secret, (time.time() - 3 * 86400, time.time() - 4 * 86400))
    atime = secret.stat().st_atime
    with HostileHTTPServer() as srv:
        base = srv.url("/schemas/")
        props = {
            "http": {"$ref": srv.url("/x.json")},
            "http-pointer": {"$ref": srv.url("/x.json#/$defs/a")},
            "relative": {"$id": base, "$ref": "y.json"},
            "file-fifo": {"$ref": fifo.as_uri()},
            "file-secret": {"$ref": secret.as_uri()},
            "dynamic": {"$dynamicRef": srv.url("/d.json#meta")},
            "n": {"enum": [1]},
        }

        def schema(values: list[int]) -> dict[str, Any]:
            p = json.loads(json.dumps(props))
            p["n"] = {"enum": values}
            return {
                "$schema": srv.url("/meta-schema"),
                "$id": srv.url("/root.json"),
                "type": "object",
                "properties": p,
                "required": list(p),
                "additionalProperties": False,
            }

        old = tools_file(tmp_path / "old.json", [tool("r", schema([1]), schema([1]))])
        new = tools_file(
            tmp_path / "new.json", [tool("r", schema([1, 2]), schema([1, 2])), tool("s", out={"$ref": srv.url("/s")})]
        )
        run = cli("diff", str(old), str(new), "--format", "json", cwd=tmp_path, timeout=40)
        text_run = cli("diff", str(old), str(new), cwd=tmp_path, timeout=40)
        snap_run = cli(
            "snapshot", "--out", str(tmp_path / "snap.json"), "--from-file", str(new), cwd=tmp_path, timeout=40
        )
        requests = list(srv.requests)
    assert requests == [], f"schema-audit made HTTP requests: {requests}"
    assert run.code in (0, 1) and text_run.code == run.code and snap_run.code == 0, run.stderr + text_run.stderr
    report = run.report()
    assert any(f["rule"] == "schema-invalid" for f in report["findings"]), "a remote $ref must be a finding"
    for out in (run.stdout, run.stderr, text_run.stdout, text_run.stderr):
        assert CANARY not in out, "the file:// $ref target was read"
    if _atime_is_tracked(tmp_path):
        assert secret.stat().st_atime == atime, "the file:// $ref target was opened"


def _dependent_chain(count: int, max_length: int) -> dict[str, Any]:
    """An object whose ``dependentSchemas`` form a chain: ``k<i>`` present requires ``k<i+1>`` (and bounds it)."""
    return {
        "type": "object",
        "properties": {f"k{i}": {"type": "string"} for i in range(count)},
        "dependentSchemas": {
            f"k{i}": {"required": [f"k{i + 1}"], "properties": {f"k{i + 1}": {"maxLength": max_length}}}
            for i in range(count)
        },
    }


def test_the_sampler_reads_a_required_trigger_off_the_keys():
    """Every ``dependentSchemas``/``dependentRequired`` trigger is ``{"required": [K]}``: the sampler validated each
    of them, each round, for each sample (a 20 KB chain: 15 s and 195 MB in ``diff``; now 8 s and 120 MB). It
    reads them off the sample's keys: no validation at all."""
    from mcp_schema_audit.engine.sampler import sample
    from mcp_schema_audit.schema import SchemaDoc

    schema = _dependent_chain(640, 10)
    schema["required"] = ["k0"]
    doc = SchemaDoc(schema)
    calls: list[Any] = []
    real = doc.validator_for
    doc.validator_for = lambda *a, **k: calls.append(a) or real(*a, **k)  # type: ignore[method-assign]
    got = sample(schema, doc)
    assert calls == []
    assert set(got) == {f"k{i}" for i in range(641)} and real(schema).is_valid(got)


#: The chain's bound: 3 times what its 220 entries take unloaded on the 2-core machine the suite is measured on
#: (20.5 s, at f910772 as now: the machine is about twice as slow as when 8 s was measured, ``--help`` 0.14 s
#: against 0.072 s). ``DIFF_BUDGET_S`` (20 s) was not several times that any more, and failed by 1-3 s.
DEPENDENT_CHAIN_BUDGET_S = 60.0


def test_a_long_dependent_schemas_chain_is_bounded(tmp_path: Path):
    """A 20 KB chain (220 entries) took 15 s and 195 MB before its work was bounded (on a machine twice as fast);
    400 entries (40 KB) are undecided by the work budget."""
    for count, verdict in ((220, "breaking"), (400, "schema-undecidable")):
        old = tools_file(tmp_path / f"old{count}.json", [tool("t", _dependent_chain(count, 10))])
        new = tools_file(tmp_path / f"new{count}.json", [tool("t", _dependent_chain(count, 5))])
        r = cli("diff", "--format", "json", str(old), str(new), cwd=tmp_path)
        findings = r.report()["findings"]
        if verdict == "breaking":
            assert {(f["rule"], f["severity"]) for f in findings} == {("input-constraint-tightened", "breaking")}
        else:
            assert [f["rule"] for f in findings] == [verdict] and "work budget exceeded" in findings[0]["message"]
        assert r.timing.unloaded() < DEPENDENT_CHAIN_BUDGET_S, r.timing.describe()


LOOP_DEFS = {"loop": {"allOf": [{"$ref": "#/$defs/loop"}]}}


@pytest.mark.parametrize("direction", ["input", "output"])
def test_a_cycle_on_an_optional_property_hides_no_change_beside_it(direction: str, tmp_path: Path) -> None:
    """A cycle on one optional property is decided there alone and the rest compared. Before, the whole
    schema was one schema-undecidable warning: a widened output enum (or a removed input value) beside it passed
    the gate with exit 0."""
    values_old, values_new = (["a", "b", "c"], ["a", "b"]) if direction == "input" else (["a", "b"], ["a", "b", "c"])
    old = {**obj(e={"enum": values_old}, x={"type": "object"}), "required": ["e"]}
    new = {**obj(e={"enum": values_new}, x={"$ref": "#/$defs/loop"}), "required": ["e"], "$defs": LOOP_DEFS}
    pair = (lambda s: (s, None)) if direction == "input" else (lambda s: ({"type": "object"}, s))
    files = [str(_pair_file(tmp_path / f"{side}.json", pair(s))) for side, s in (("old", old), ("new", new))]
    run = cli("diff", *files, "--format", "json", cwd=tmp_path)
    assert run.code == 1, run.stderr[-500:]
    found = {(f["rule"], f["pointer"], f["severity"]) for f in run.report()["findings"]}
    rule = "input-enum-value-removed" if direction == "input" else "output-enum-value-added"
    assert (rule, "/properties/e/enum", "breaking") in found, found
    # a call carrying x now fails (python-sdk's jsonschema recurses at x); a result's x the new schema loops on
    # is one the server's own schema cannot say anything of: undecided
    at_x = ("input-type-narrowed", "breaking") if direction == "input" else ("schema-undecidable", "warning")
    assert (at_x[0], "/properties/x", at_x[1]) in found, found
    [broken] = [f for f in run.report()["findings"] if f["rule"] == rule]
    assert broken["witness"]["instance"] == {"e": "c"}
    if direction == "output":  # the cached schema has no cycle: every SDK client rejects "c" there
        assert broken["hosts"] == ["python-sdk", "ts-sdk-v1", "ts-sdk-v2"]


def test_an_endless_inputschema_breaks_a_published_server_and_is_unproven_on_a_zod_one(tmp_path: Path) -> None:
    """A cycle every call reaches: breaking for a server that validates with its listed inputSchema (the real
    one fails every call: tests/test_server_validators.py), a warning on a zod server, which validates with its
    own schema (the listing cannot stand for it)."""
    old = tools_file(tmp_path / "old.json", [tool("h", {**obj(a={"type": "string"}), "required": ["a"]})])
    endless = {**obj(a={"type": "string"}), "required": ["a"], "allOf": [{"$ref": "#/$defs/loop"}], "$defs": LOOP_DEFS}
    new = tools_file(tmp_path / "new.json", [tool("h", endless)])
    verdicts = {}
    for validator in ("published", "zod-strip"):
        run = cli("diff", str(old), str(new), "--format", "json", "--server-validator", validator, cwd=tmp_path)
        assert run.code in (0, 1) and "Traceback" not in run.stderr, run.stderr[-500:]
        [f] = [f for f in run.report()["findings"] if f["rule"] == "input-schema-unvalidatable"]
        verdicts[validator] = (run.code, f["severity"], f["server"]["outcome"])
        assert f["witness"]["instance"] == {"a": "a"}
    assert verdicts == {"published": (1, "breaking", "rejected"), "zod-strip": (0, "warning", "undecided")}


def _nested(levels: int, leaf: str) -> dict[str, Any]:
    node: dict[str, Any] = {"description": leaf}
    for _ in range(levels):
        node = {"type": "object", "properties": {"n": node}}
    return node


CYCLE = {"$ref": "#/$defs/C"}
C_DEFS = {"C": {"allOf": [CYCLE]}}
CLOSED_CYCLE = {"type": "object", "additionalProperties": False, "properties": {"c": CYCLE}}
FIVE = [{"anyOf": [{"type": "object", "required": [f"{k}{i}"]} for i in range(5)]} for k in "pqr"]


def props(**declared: Any) -> dict[str, Any]:
    """An object declaring ``declared``, none of them required (the helper's shapes: a witness need not build
    the part that cannot be compared)."""
    return {"type": "object", "properties": declared}


#: attack round 4: (direction, old schema, new schema, the breaking rule beside a part that cannot be compared)
LOCAL_UNDECIDED: dict[str, tuple[str, Any, Any, str]] = {
    # a cycle met while listing a closed object's values (engine.decompose) made the whole tool one warning
    "cycle-in-listed-values": (
        "output",
        {**props(s=CLOSED_CYCLE, a={"enum": ["x"]}), "$defs": C_DEFS},
        props(s={"const": {}}, a={"enum": ["x", "y"]}),
        "output-enum-value-added",
    ),
    "cycle-in-listed-values-input": (
        "input",
        props(s={"const": {}}, b={"type": "string"}),
        {**props(s=CLOSED_CYCLE, b={"type": "string"}), "required": ["b"], "$defs": C_DEFS},
        "input-required-added",
    ),
    # 3 x 5 union branches (125 > MAX_BRANCHES) in one property
    "union-explosion-beside": (
        "output",
        props(s={"type": "object"}, a={"enum": ["x"]}),
        props(s={"allOf": FIVE}, a={"enum": ["x", "y"]}),
        "output-enum-value-added",
    ),
    # a description changed 150 levels down (3 KB): Python's stack, not MAX_DEPTH, ran out
    "deep-nesting-beside": (
        "output",
        props(a={"enum": ["x"]}, l=_nested(150, "old")),
        props(a={"enum": ["x", "y"]}, l=_nested(150, "new")),
        "output-enum-value-added",
    ),
    # a cycle in a later anyOf branch python-sdk reaches only for values the first branch rejects
    "cycle-in-new-anyof-branch-input": (
        "input",
        props(a={"enum": ["x", "y"]}),
        {**props(a={"anyOf": [{"enum": ["x"]}, CYCLE]}), "$defs": C_DEFS},
        "input-enum-value-removed",
    ),
    "cycle-in-cached-anyof-branch-input": (
        "input",
        {**props(a={"anyOf": [{"enum": ["x", "y"]}, CYCLE]}), "$defs": C_DEFS},
        props(a={"enum": ["x"]}),
        "input-enum-value-removed",
    ),
    "cycle-in-cached-anyof-branch-output": (
        "output",
        {**props(a={"anyOf": [{"enum": ["x"]}, CYCLE]}), "$defs": C_DEFS},
        props(a={"enum": ["x", "y"]}),
        "output-enum-value-added",
    ),
    # a $dynamicRef whose $dynamicAnchor target changed (one schema resource: it resolves as a $ref would);
    # identical $dynamicRef text was taken for an identical subtree: "No schema changes"
    "dynamic-ref-target-output": (
        "output",
        {**props(a={"$dynamicRef": "#val"}), "$defs": {"v": {"$dynamicAnchor": "val", "enum": ["x"]}}},
        {**props(a={"$dynamicRef": "#val"}), "$defs": {"v": {"$dynamicAnchor": "val", "enum": ["x", "y"]}}},
        "output-enum-value-added",
    ),
    "dynamic-ref-target-input": (
        "input",
        {**props(a={"$dynamicRef": "#val"}), "$defs": {"v": {"$dynamicAnchor": "val", "enum": ["x", "y"]}}},
        {**props(a={"$dynamicRef": "#val"}), "$defs": {"v": {"$dynamicAnchor": "val", "enum": ["x"]}}},
        "input-enum-value-removed",
    ),
    # ... also beside a second schema resource that does not declare the anchor (attack round 5: "equivalent")
    "dynamic-ref-target-beside-a-second-resource": (
        "output",
        {
            **props(x={"$dynamicRef": "#node"}),
            "$defs": {"n": {"$dynamicAnchor": "node", "enum": ["a"]}, "o": {"$id": "https://ex.com/other"}},
        },
        {
            **props(x={"$dynamicRef": "#node"}),
            "$defs": {"n": {"$dynamicAnchor": "node", "enum": ["a", "b"]}, "o": {"$id": "https://ex.com/other"}},
        },
        "output-enum-value-added",
    ),
    # a $ref under a nested $id names that resource's own $defs (was resolved from the root: no change seen)
    "nested-id-ref-output": (
        "output",
        {**props(s={"$id": "https://e.x/s", **props(a={"$ref": "#/$defs/E"}), "$defs": {"E": {"enum": ["x"]}}})},
        {**props(s={"$id": "https://e.x/s", **props(a={"$ref": "#/$defs/E"}), "$defs": {"E": {"enum": ["x", "y"]}}})},
        "output-enum-value-added",
    ),
    "nested-id-ref-input": (
        "input",
        {**props(s={"$id": "https://e.x/s", **props(a={"$ref": "#/$defs/E"}), "$defs": {"E": {"enum": ["x", "y"]}}})},
        {**props(s={"$id": "https://e.x/s", **props(a={"$ref": "#/$defs/E"}), "$defs": {"E": {"enum": ["x"]}}})},
        "input-enum-value-removed",
    ),
    "root-anyof-cycle-input": (
        "input",
        props(m={"enum": ["x", "y"]}),
        {**props(m={"enum": ["x"]}), "anyOf": [{"type": "object"}, CYCLE], "$defs": C_DEFS},
        "input-enum-value-removed",
    ),
}


@pytest.mark.parametrize("case", list(LOCAL_UNDECIDED))
def test_a_part_that_cannot_be_compared_hides_no_break_beside_it(case: str, tmp_path: Path) -> None:
    """Each was exit 0 (one schema-undecidable warning for the whole tool, or an unconfirmed witness): the part
    is undecided alone and the break beside it is breaking, its witness checked by python-sdk's own validator
    (a value an earlier anyOf branch takes never reaches the cycle; one that reaches it fails)."""
    direction, old, new, rule = LOCAL_UNDECIDED[case]
    pair = (lambda s: (s, None)) if direction == "input" else (lambda s: ({"type": "object"}, s))
    files = [str(_pair_file(tmp_path / f"{side}.json", pair(s))) for side, s in (("old", old), ("new", new))]
    run = cli("diff", *files, "--format", "json", cwd=tmp_path)
    assert run.code == 1 and "Traceback" not in run.stderr, (run.code, run.stderr[-800:])
    found = [f for f in run.report()["findings"] if f["rule"] == rule]
    assert found and all(f["severity"] == "breaking" for f in found), run.report()["findings"]


@pytest.mark.parametrize("direction", ["input", "output"])
def test_an_enum_past_max_enum_is_compared_as_sets(direction: str, tmp_path: Path) -> None:
    """10,001 values a side (past MAX_ENUM together) with one value removed (input) or added (output): two plain
    value sets are compared by set difference, breaking; before, one schema-undecidable warning and exit 0."""
    values = [f"v{i}" for i in range(10_001)]
    old, new = (values, values[1:]) if direction == "input" else (values, [*values, "new"])
    pair = (lambda s: (s, None)) if direction == "input" else (lambda s: ({"type": "object"}, s))
    schemas = [props(a={"type": "string", "enum": e}) for e in (old, new)]
    files = [
        str(_pair_file(tmp_path / f"{side}.json", pair(s))) for side, s in zip(("old", "new"), schemas, strict=True)
    ]
    run = cli("diff", *files, "--format", "json", cwd=tmp_path)
    assert run.code == 1, run.stderr[-500:]
    rule = "input-enum-value-removed" if direction == "input" else "output-enum-value-added"
    [f] = [f for f in run.report()["findings"] if f["rule"] == rule]
    assert f["severity"] == "breaking" and f["witness"]["instance"] == {"a": "v0" if direction == "input" else "new"}


UE = {"type": "object", "properties": {"k": {"type": "string"}}, "unevaluatedProperties": False}

#: unevaluatedProperties beside keywords that evaluate properties depending on the value (attack round 4): the
#: walk does not follow which keys they evaluate, so it says so instead of a false tightening or rewrite
UNEVALUATED_BESIDE: dict[str, tuple[str, Any, Any]] = {
    "dependent-schemas-added": ("output", UE, {**UE, "dependentSchemas": {"k": {"properties": {"z": {}}}}}),
    "then-added": ("output", UE, {**UE, "if": {"required": ["k"]}, "then": {"properties": {"z": {}}}}),
    "if-added": ("output", UE, {**UE, "if": {"properties": {"z": {}}}}),
    "else-removed-input": ("input", {**UE, "if": {"required": ["k"]}, "else": {"properties": {"z": {}}}}, UE),
}


@pytest.mark.parametrize("case", list(UNEVALUATED_BESIDE))
def test_unevaluated_properties_beside_a_conditional_is_never_a_silent_verdict(case: str, tmp_path: Path) -> None:
    direction, old, new = UNEVALUATED_BESIDE[case]
    pair = (lambda s: (s, None)) if direction == "input" else (lambda s: ({"type": "object"}, s))
    files = [str(_pair_file(tmp_path / f"{side}.json", pair(s))) for side, s in (("old", old), ("new", new))]
    run = cli("diff", *files, "--format", "json", cwd=tmp_path)
    assert run.code in (0, 1), run.stderr[-500:]
    found = {(f["rule"], f["pointer"], f["severity"]) for f in run.report()["findings"]}
    assert ("schema-undecidable", "/unevaluatedProperties", "warning") in found, found


D2020 = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}
A_B = {"properties": {"a": {}}}
#: unevaluatedProperties where it sees fewer keys than it seems to (attack round 4: each was "schema-rewritten",
#: info, exit 0): beside additionalProperties (which evaluates every other key, §11.3) it closes nothing, and in
#: an allOf member it sees only the member's own properties, never the parent's
UNEVALUATED_SCOPE: dict[str, tuple[str, Any, Any, str, str]] = {
    "beside-additional-true-removed": (
        "input",
        {**D2020, **A_B, "additionalProperties": True, "unevaluatedProperties": False},
        {**D2020, **A_B, "unevaluatedProperties": False},
        "input-object-closed",
        "/unevaluatedProperties",
    ),
    "beside-additional-true-added": (
        "output",
        {**D2020, **A_B, "unevaluatedProperties": False},
        {**D2020, **A_B, "additionalProperties": True, "unevaluatedProperties": False},
        "output-object-opened",
        "/unevaluatedProperties",
    ),
    "member-closes-parent-property": (
        "input",
        {**D2020, "allOf": [A_B], "properties": {"b": {}}},
        {**D2020, "allOf": [{**A_B, "unevaluatedProperties": False}], "properties": {"b": {}}},
        "input-type-narrowed",
        "/properties/b",
    ),
}


@pytest.mark.parametrize("case", list(UNEVALUATED_SCOPE))
def test_unevaluated_properties_sees_only_what_its_schema_evaluates(case: str, tmp_path: Path) -> None:
    direction, old, new, rule, where = UNEVALUATED_SCOPE[case]
    pair = (lambda s: (s, None)) if direction == "input" else (lambda s: ({"type": "object"}, s))
    files = [str(_pair_file(tmp_path / f"{side}.json", pair(s))) for side, s in (("old", old), ("new", new))]
    run = cli("diff", *files, "--format", "json", cwd=tmp_path)
    assert run.code in (0, 1), run.stderr[-500:]
    found = {(f["rule"], f["pointer"]): f for f in run.report()["findings"]}
    assert (rule, where) in found, sorted(found)
    assert "schema-rewritten" not in {r for r, _ in found}
    if rule == "input-type-narrowed":  # a declared argument every call now fails with: proven on the real validator
        assert run.code == 1 and found[(rule, where)]["witness"]["instance"] == {"b": None}


_L = {"$ref": "#/$defs/L"}


@pytest.mark.parametrize(
    "taken",
    [
        {"allOf": [{"patternProperties": {"^a": _L}}]},
        {"$ref": "#/$defs/T"},
        {"anyOf": [{"properties": {"a": _L}}, {"type": "object"}]},
        {"allOf": [{"properties": {"a": _L}}]},
    ],
)
def test_a_cycle_one_level_under_a_required_argument_fails_every_call(taken: dict[str, Any], tmp_path: Path) -> None:
    """Attack round 6: the required argument ``a`` is taken into a cycle by a schema evaluated at the root's place
    (an allOf member's patternProperties or properties, a $ref target, the first anyOf branch), not by the root's
    own properties: every call fails (python-sdk's jsonschema recurses without end), but the reach looked only at
    the node holding ``required`` (two undecidable warnings, exit 0)."""
    defs = {"L": _L, "T": {"patternProperties": {"^a": _L}}}
    old = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "$defs": defs}
    files = [
        str(_pair_file(tmp_path / f"{side}.json", (s, None))) for side, s in (("old", old), ("new", {**old, **taken}))
    ]
    run = cli("diff", *files, "--format", "json", cwd=tmp_path)
    assert run.code == 1, (run.stderr[-500:], run.report()["findings"])
    assert any(
        f["rule"] == "input-schema-unvalidatable" and f["severity"] == "breaking" for f in run.report()["findings"]
    )


@pytest.mark.parametrize(
    ("direction", "cycle", "breaks"),
    [
        ("input", _L, True),
        ("output", _L, True),
        ("input", {"anyOf": [{"type": "string"}, _L]}, False),  # python-sdk's anyOf stops at the string branch
    ],
)
def test_a_cycle_on_an_optional_property_fails_the_values_carrying_it(
    direction: str, cycle: Any, breaks: bool, tmp_path: Path
) -> None:
    """Round-4 leftover: a cycle put on an optional property (validating any value there never ends) was only an
    undecided pair; a call (a result) carrying the property fails in python-sdk's jsonschema, so it is breaking
    with that value as witness. Where the value never comes back to the cycle, nothing breaks."""
    plain = {"type": "object", "properties": {"q": {"type": "string"}, "z": {"type": "integer"}}, "$defs": {"L": _L}}
    looping = {**plain, "properties": {"q": cycle, "z": {"type": "integer"}}}
    old, new = (plain, looping) if direction == "input" else (looping, plain)
    pair = (lambda s: (s, None)) if direction == "input" else (lambda s: ({"type": "object"}, s))
    files = [str(_pair_file(tmp_path / f"{side}.json", pair(s))) for side, s in (("old", old), ("new", new))]
    run = cli("diff", *files, "--format", "json", cwd=tmp_path)
    found = [f for f in run.report()["findings"] if f["pointer"] == "/properties/q"]
    assert run.code == (1 if breaks else 0), (run.stderr[-500:], found)
    if not breaks:
        assert all(f["severity"] != "breaking" for f in found), found
        return
    [f] = found
    assert f["severity"] == "breaking" and f["witness"]["instance"] == {"q": "a"}
    with pytest.raises(RecursionError):
        jsonschema.Draft202012Validator(looping).is_valid({"q": "a"})


@pytest.mark.parametrize(
    "conditional",
    [
        # attack round 7: keys only an else declares (admitted while the if's key is absent), and a then's then
        {"if": {"required": ["a"]}, "else": {"properties": {"d": {"type": "integer"}, "e": {"type": "integer"}}}},
        {
            "if": {"required": ["a"]},
            "then": {"properties": {"b": {}}, "if": {"required": ["b"]}, "then": {"properties": {"c": {}}}},
        },
    ],
)
def test_a_property_count_beside_conditionals_and_unevaluated_properties_has_a_witness(
    conditional: dict[str, Any], tmp_path: Path
) -> None:
    """``maxProperties`` added where ``unevaluatedProperties: false`` admits the keys the conditionals declare:
    the sized objects tried held the object's own optional key first (so an else's keys were unevaluated) or
    missed a nested then's keys: no witness, exit 0."""
    plain = {**D2020, "properties": {"a": {"type": "integer"}}, **conditional, "unevaluatedProperties": False}
    cap = 2 if "then" in conditional else 1
    schemas = [{**props(x=s), "required": ["x"]} for s in (plain, {**plain, "maxProperties": cap})]
    files = [
        str(_pair_file(tmp_path / f"{side}.json", (sch, None)))
        for side, sch in zip(("old", "new"), schemas, strict=True)
    ]
    run = cli("diff", *files, "--format", "json", cwd=tmp_path)
    assert run.code == 1, (run.stderr[-500:], run.report()["findings"])
    [f] = [f for f in run.report()["findings"] if f["severity"] == "breaking"]
    value = f["witness"]["instance"]
    assert jsonschema.Draft202012Validator(schemas[0]).is_valid(value)
    assert not jsonschema.Draft202012Validator(schemas[1]).is_valid(value)


def test_a_removed_enum_value_beside_a_union_explosion_in_a_required_property(tmp_path: Path) -> None:
    """Round-4 leftover: the witness call for a removed enum value needs a value of the required property ``r``,
    an ``allOf`` of 12 two-way ``anyOf``s (4,096 combinations); the sampler kept the first member's union only and
    let a branch's ``required`` replace the one beside it, so ``r`` missed 11 keys, the witness failed for another
    reason and the break was an unconfirmed warning (exit 0)."""
    exploded = {
        "type": "object",
        "allOf": [{"anyOf": [{"required": [f"a{i}"]}, {"required": [f"b{i}"]}]} for i in range(12)],
    }
    old = {"type": "object", "properties": {"e": {"enum": ["a", "b", "c"]}, "r": exploded}, "required": ["e", "r"]}
    new = {**old, "properties": {"e": {"enum": ["a", "b"]}, "r": exploded}}
    files = [str(_pair_file(tmp_path / f"{side}.json", (s, None))) for side, s in (("old", old), ("new", new))]
    run = cli("diff", *files, "--format", "json", cwd=tmp_path)
    assert run.code == 1, (run.stderr[-500:], run.report()["findings"])
    [f] = [f for f in run.report()["findings"] if f["rule"] == "input-enum-value-removed"]
    assert f["severity"] == "breaking" and f["witness"]["instance"]["e"] == "c"
    assert jsonschema.Draft202012Validator(old).is_valid(f["witness"]["instance"])


#: Attack round 7: a cycle under a keyword the walk reads without pairing nodes (each: the undecidable warnings
#: only, exit 0): (old property p, new property p, the old value that loops). The schemas' ``$defs`` hold ``L``.
CYCLES_UNDER: dict[str, tuple[Any, Any]] = {
    "then": ({"type": "string"}, {"type": "string", "if": {"const": "zzz"}, "then": _L}),
    "not": ({"type": "string"}, {"not": _L}),
    "else": ({"type": ["string", "integer"]}, {"if": {"type": "string"}, "else": _L}),
    "property-names": ({"type": "object"}, {"type": "object", "propertyNames": _L}),
    "contains": ({"type": "array"}, {"type": "array", "contains": _L}),
    "dependent-schemas": ({"type": "string"}, {"type": "string"}),  # the root's dependentSchemas, below
}


@pytest.mark.parametrize("case", list(CYCLES_UNDER))
def test_a_value_the_new_schema_loops_on_is_a_witness_wherever_the_cycle_is(case: str, tmp_path: Path) -> None:
    """Every family's witness search now counts a value python-sdk's jsonschema recurses on at V's node (the new
    document refused for an in-place cycle) as rejected there, so the break gets its witness whatever keyword
    holds the cycle; confirmed by jsonschema raising RecursionError, and never for a value the old schema
    refuses."""
    old_p, new_p = CYCLES_UNDER[case]
    old = {"type": "object", "properties": {"p": old_p}, "$defs": {"L": _L}}
    new = {"type": "object", "properties": {"p": new_p}, "$defs": {"L": _L}}
    if case == "dependent-schemas":
        new["dependentSchemas"] = {"p": _L}
    files = [str(_pair_file(tmp_path / f"{side}.json", (sch, None))) for side, sch in (("old", old), ("new", new))]
    run = cli("diff", *files, "--format", "json", cwd=tmp_path)
    assert run.code == 1, (run.stderr[-500:], run.report()["findings"])
    for f in [f for f in run.report()["findings"] if f["severity"] == "breaking"]:
        value = f["witness"]["instance"]
        assert jsonschema.Draft202012Validator(old).is_valid(value), f
        with pytest.raises(RecursionError):
            jsonschema.Draft202012Validator(new).is_valid(value)


@pytest.mark.parametrize("direction", ["input", "output"])
def test_branches_closed_over_different_keys_reject_a_value_with_both(direction: str, tmp_path: Path) -> None:
    """Attack round 6: each ``anyOf`` branch closes (``unevaluatedProperties: false``) over one of the declared
    keys, so ``{"a": 0, "b": 0}`` fails both while each key alone passes; the witness of the change below the
    branch held one key only and the union took it (an unconfirmed warning, exit 0). The witness now carries the
    other declared properties too, and jsonschema rejects it."""
    closed = [{"properties": {k: {}}, "unevaluatedProperties": False} for k in "ab"]
    plain = {**D2020, "properties": {"a": {}, "b": {}}}
    old, new = (plain, {**plain, "anyOf": closed}) if direction == "input" else ({**plain, "anyOf": closed}, plain)
    pair = (lambda s: (s, None)) if direction == "input" else (lambda s: ({"type": "object"}, s))
    files = [str(_pair_file(tmp_path / f"{side}.json", pair(s))) for side, s in (("old", old), ("new", new))]
    run = cli("diff", *files, "--format", "json", cwd=tmp_path)
    assert run.code == 1, (run.stderr[-500:], run.report()["findings"])
    [f] = [f for f in run.report()["findings"] if f["severity"] == "breaking"]
    assert set(f["witness"]["instance"]) == {"a", "b"}
    validator = jsonschema.Draft202012Validator({**plain, "anyOf": closed})
    assert (
        not validator.is_valid(f["witness"]["instance"])
        and jsonschema.validate(f["witness"]["instance"], plain) is None
    )


@pytest.mark.parametrize(
    ("server", "old_pattern", "new_pattern", "code", "severity"),
    [
        # JavaScript's $ is the end of the string: "a\n" fails /^[a-z]+$/ on a zod server, but /^[a-z]+$/m takes it,
        # and the listing keeps no flag: no rejection is claimed (attack round 11; the real servers: round 5 and
        # tests/test_server_validators.py)
        ("zod-strip", "^[a-z]+\\n?$", "^[a-z]+$", 0, "warning"),
        # JavaScript's \w is ASCII: "é" failed under the cached pattern too, so nothing that worked breaks (was a
        # false break, from Python's Unicode \w)
        ("zod-strip", "^\\w+$", "^[A-Za-z0-9_]+$", 0, "warning"),
        # pydantic-core's Rust regex: $ is the end of the string too (Python's re let "a\n" through: exit 0)
        ("pydantic-ignore", "^[a-z]+\\n?$", "^[a-z]+$", 1, "breaking"),
        # ... and its \w is Unicode, as Python's: "é" worked before and fails now
        ("pydantic-ignore", "^\\w+$", "^[A-Za-z0-9_]+$", 1, "breaking"),
    ],
)
def test_a_server_reads_its_patterns_with_its_own_regex_engine(
    server: str, old_pattern: str, new_pattern: str, code: int, severity: str, tmp_path: Path
) -> None:
    """Attack round 5 (checked by the attacker on real zod 3.25.76: old accepts "a\\n", new rejects it; both
    reject "é"; pydantic-core's own validators are the judge for pydantic, ``test_pydantic_patterns_are_read_by_
    pydantic_core``): the server validator reads patterns as the framework does, and a witness the cached
    version's server refused as well is no break."""
    schemas = [props(x={"type": "string", "pattern": p}) for p in (old_pattern, new_pattern)]
    files = [
        str(_pair_file(tmp_path / f"{side}.json", (s, None))) for side, s in zip(("old", "new"), schemas, strict=True)
    ]
    run = cli("diff", *files, "--format", "json", "--server-validator", server, cwd=tmp_path)
    assert run.code == code, run.stderr[-500:]
    [f] = [f for f in run.report()["findings"] if f["rule"] == "input-constraint-tightened"]
    assert f["severity"] == severity, f


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ({"type": "string", "enum": ["abc"]}, {"type": "string", "pattern": "^[a-z--c]+$"}),
        ({"type": "string", "pattern": "^[a-z]+$"}, {"type": "string", "pattern": "^[a-z--c]+$"}),
        ({"type": "string", "pattern": "^[a-z]+$"}, {"type": "string", "pattern": "^[a-z&&[^c]]+$"}),
        ({"type": "string", "pattern": "^[a-c]+$"}, {"type": "string", "pattern": "^[a-c~~b]+$"}),
    ],
)
@pytest.mark.parametrize("server", ["pydantic-ignore", "published"])
def test_a_pattern_only_the_servers_regex_engine_narrows(
    old: dict[str, Any], new: dict[str, Any], server: str, tmp_path: Path
) -> None:
    """Attack round 6 (pydantic-core 2.x, ``test_pydantic_patterns_are_read_by_pydantic_core``): Rust regex reads
    ``--``, ``&&`` and ``~~`` in a class as set operations, Python's ``re`` and ECMAScript as ranges and literals,
    so no host's reading of the new pattern rejects "abc" and the witness search found none (info or a warning,
    exit 0). Witnesses are now also sought under the server framework's reading of both versions: on a pydantic
    server the change is breaking, with pydantic's words; on a server validating with its listed schema
    (Python's ``re``) it is not."""
    files = [str(_pair_file(tmp_path / f"{side}.json", (props(x=s), None))) for side, s in (("old", old), ("new", new))]
    run = cli("diff", *files, "--format", "json", "--server-validator", server, cwd=tmp_path)
    breaking = [f for f in run.report()["findings"] if f["severity"] == "breaking"]
    if server == "published":  # Python's re reads "[a-z&&[^c]]" as a class and a literal "]": that one breaks
        assert (run.code == 1) is ("&&" in new["pattern"]) is bool(breaking), breaking
        return
    assert run.code == 1, run.stderr[-500:]
    [f] = breaking
    assert f["server"]["outcome"] == "rejected" and f["hosts"] == []
    assert f["server"]["error"] == f"x\n  String should match pattern '{new['pattern']}'"
    assert pydantic_found(new["pattern"], f["witness"]["instance"]["x"]) is False


#: Attack round 7: string patterns whose break only some reading's witnesses show (each was a warning, exit 0):
#: (server validator, old pattern, new x schema). pydantic-core's Rust regex reads POSIX classes, ``\pL``, nested
#: classes, a superscript outside ``\w`` and a flag group past the start (which Python refuses) its own way;
#: Python's ``re`` lets a combining mark, a newline under ``(?s)`` and a carriage return through where the
#: rewritten pattern does not.
READING_GAPS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "posix-class": ("pydantic-ignore", "^[[:alpha:]]+$", {"type": "string", "pattern": "^[a-y]+$"}),
    "unicode-letter-class": ("pydantic-ignore", "^\\pL+$", {"type": "string", "pattern": "^[a-z]+$"}),
    "superscript-outside-rust-word": ("pydantic-ignore", "^[\u00b2a]+$", {"type": "string", "pattern": "^\\w+$"}),
    "nested-class-max-length": (
        "pydantic-ignore",
        "^[[a-z]]+$",
        {"type": "string", "pattern": "^[[a-z]]+$", "maxLength": 1},
    ),
    "set-difference-to-enum": ("pydantic-ignore", "^[a-z--c]+$", {"type": "string", "enum": ["a", "b", "d"]}),
    "inline-flag-past-start": ("pydantic-ignore", "^a(?i)b$", {"type": "string", "pattern": "^ab$"}),
    "combining-mark": ("published", "^[a\u0301]+$", {"type": "string", "pattern": "^[a]+$"}),
    "dotall": ("published", "(?s)^a.b$", {"type": "string", "pattern": "^a.b$"}),
    "carriage-return": ("published", "^.+$", {"type": "string", "pattern": "^[^\\r]+$"}),
}


@pytest.mark.parametrize("case", list(READING_GAPS))
def test_a_pattern_break_only_some_readings_witness_is_found(case: str, tmp_path: Path) -> None:
    """The witness holds for the real party: pydantic's own model built from both versions' fields (the cached
    one takes it, the new one refuses it), or jsonschema for a server validating with its listed schema."""
    import pydantic

    server, old_pattern, new_x = READING_GAPS[case]
    schemas = [props(x={"type": "string", "pattern": old_pattern}), props(x=new_x)]
    files = [
        str(_pair_file(tmp_path / f"{side}.json", (sch, None)))
        for side, sch in zip(("old", "new"), schemas, strict=True)
    ]
    run = cli("diff", *files, "--format", "json", "--server-validator", server, cwd=tmp_path)
    assert run.code == 1, (run.stderr[-500:], run.report()["findings"])
    [f] = [f for f in run.report()["findings"] if f["severity"] == "breaking"]
    x = f["witness"]["instance"]["x"]
    if server == "published":
        assert jsonschema.Draft202012Validator(schemas[0]).is_valid({"x": x})
        assert not jsonschema.Draft202012Validator(schemas[1]).is_valid({"x": x})
        return

    def accepts(field: Any) -> bool:
        try:
            pydantic.create_model("M", x=field).model_validate({"x": x})
        except pydantic.ValidationError:
            return False
        return True

    new_field: Any = (Literal[tuple(new_x.get("enum", ()))], ...)
    if "pattern" in new_x:
        new_field = (str, pydantic.Field(pattern=new_x["pattern"], max_length=new_x.get("maxLength")))
    assert accepts((str, pydantic.Field(pattern=old_pattern))) and not accepts(new_field), x


_KEYED = {"type": "object", "patternProperties": {"^p_": {"type": "integer"}}, "additionalProperties": False}


@pytest.mark.parametrize(
    ("direction", "plain"),
    [
        ("input", _KEYED),
        ("input", {"type": "object", "propertyNames": {"pattern": "^k"}}),
        ("input", {"type": "object", "unevaluatedProperties": False, "patternProperties": {"^p_": {}}}),
        ("output", _KEYED),
    ],
)
def test_a_gap_witness_uses_keys_the_object_takes(direction: str, plain: dict[str, Any], tmp_path: Path) -> None:
    """Attack round 7: the gap between ``minProperties: 3`` and ``maxProperties: 1`` was tried with keys ``_0``,
    ``_1``, which the object's own key rules (patternProperties closed by additionalProperties or
    unevaluatedProperties, propertyNames) refuse: no witness, exit 0. Its keys now come from those rules."""
    gap = {**plain, "anyOf": [{"minProperties": 3}, {"maxProperties": 1}]}
    old, new = (plain, gap) if direction == "input" else (gap, plain)
    pair = (lambda s: (s, None)) if direction == "input" else (lambda s: ({"type": "object"}, s))
    schemas = [{**props(x=s), "required": ["x"]} for s in (old, new)]
    files = [
        str(_pair_file(tmp_path / f"{side}.json", pair(sch))) for side, sch in zip(("old", "new"), schemas, strict=True)
    ]
    run = cli("diff", *files, "--format", "json", cwd=tmp_path)
    assert run.code == 1, (run.stderr[-500:], run.report()["findings"])
    [f] = [f for f in run.report()["findings"] if f["severity"] == "breaking"]
    accepting, rejecting = (plain, gap) if direction == "input" else (plain, gap)
    value = f["witness"]["instance"]["x"]
    assert jsonschema.Draft202012Validator(accepting).is_valid(value) and len(value) == 2
    assert not jsonschema.Draft202012Validator(rejecting).is_valid(value)


@pytest.mark.parametrize(
    ("pattern", "text"),
    [("^abc$", "abc\n"), ("^abc$", "abc"), ("b", "abc"), ("^\\w$", "é"), ("^\\d$", "\u0663"), ("(?=a)a", "a")],
)
def test_pydantic_patterns_are_read_by_pydantic_core(pattern: str, text: str) -> None:
    """``pydantic_found`` agrees with a real pydantic model's ``Field(pattern=...)``: the default engine, and for
    a lookaround (which the Rust engine refuses) the ``python-re`` engine such a model must use."""
    import pydantic
    import pydantic_core

    from mcp_schema_audit.schema.regex import pydantic_found

    try:
        model = pydantic.create_model("M", x=(str, pydantic.Field(pattern=pattern)))
    except pydantic_core.SchemaError:  # the Rust engine refuses the pattern: the model takes the python-re engine
        model = pydantic.create_model(
            "M", __config__=pydantic.ConfigDict(regex_engine="python-re"), x=(str, pydantic.Field(pattern=pattern))
        )
    try:
        model(x=text)
        accepted = True
    except pydantic.ValidationError:
        accepted = False
    assert pydantic_found(pattern, text) is accepted


@pytest.mark.parametrize(
    ("direction", "plain", "gap", "witness"),
    [
        ("input", {"type": "integer"}, {"type": "integer", "anyOf": [{"minimum": 2}, {"maximum": 0}]}, 1),
        ("output", {"type": "integer"}, {"type": "integer", "anyOf": [{"minimum": 2}, {"maximum": 0}]}, 1),
        ("input", {"type": "string"}, {"type": "string", "anyOf": [{"minLength": 2}, {"maxLength": 0}]}, "a"),
        # attack round 5: the gaps between object and array branches (a key other than the required one; a size
        # between the bounds) were never tried either
        (
            "input",
            {"type": "object"},
            {"type": "object", "anyOf": [{"required": ["k"]}, {"maxProperties": 0}]},
            {"_": 0},
        ),
        (
            "output",
            {"type": "object"},
            {"type": "object", "anyOf": [{"required": ["k"]}, {"maxProperties": 0}]},
            {"_": 0},
        ),
        (
            "input",
            {"type": "object"},
            {"type": "object", "anyOf": [{"minProperties": 3}, {"maxProperties": 1}]},
            {"_0": 0, "_1": 0},
        ),
        ("input", {"type": "array"}, {"type": "array", "anyOf": [{"minItems": 3}, {"maxItems": 1}]}, [0, 0]),
        ("output", {"type": "array"}, {"type": "array", "anyOf": [{"minItems": 3}, {"maxItems": 1}]}, [0, 0]),
        # attack round 6: a gap only reached with the keys (items) P itself requires: the filler objects lacked them
        (
            "input",
            {"type": "object", "required": ["a"]},
            {"type": "object", "anyOf": [{"required": ["b"]}, {"maxProperties": 1}]},
            {"a": None, "_": 0},
        ),
        (
            "output",
            {"type": "object", "required": ["a"]},
            {"type": "object", "anyOf": [{"required": ["a", "b"]}, {"maxProperties": 1}]},
            {"a": None, "_0": 0},
        ),
        (
            "input",
            {"type": "array", "prefixItems": [{"const": 5}], "minItems": 1},
            {"type": "array", "anyOf": [{"minItems": 3}, {"maxItems": 1}]},
            [5, 0],
        ),
    ],
)
def test_a_value_in_the_gap_between_union_branches_is_a_witness(
    direction: str, plain: Any, gap: Any, witness: Any, tmp_path: Path
) -> None:
    """Attack round 5: a value every branch of the narrower union rejects (1 between minimum 2 and maximum 0) was
    never tried (the witness was searched per branch): an unconfirmed warning, exit 0."""
    old, new = (plain, gap) if direction == "input" else (gap, plain)
    pair = (lambda s: (s, None)) if direction == "input" else (lambda s: ({"type": "object"}, s))
    schemas = [{**props(x=s), "required": ["x"]} for s in (old, new)]
    files = [
        str(_pair_file(tmp_path / f"{side}.json", pair(s))) for side, s in zip(("old", "new"), schemas, strict=True)
    ]
    run = cli("diff", *files, "--format", "json", cwd=tmp_path)
    assert run.code == 1, (run.stderr[-500:], run.report()["findings"])
    assert any(
        f["severity"] == "breaking" and f["witness"]["instance"] == {"x": witness} for f in run.report()["findings"]
    )
