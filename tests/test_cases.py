"""Real-world compatibility cases (``tests/cases/*.json``) through the compat engine's Python API.

Each case: ``old``/``new`` schema (``null`` = the tool is absent on that side), ``direction``,
``expected`` (``breaking`` | ``warning`` | ``safe``) and an ``example`` payload. The highest severity
among the engine's findings must equal ``expected`` (``safe`` = nothing above info), and every
breaking finding must carry a witness that a real validator confirms.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from json_pointer import resolves
from jsonschema.validators import Draft202012Validator, validator_for
from referencing import Registry

CASES_DIR = Path(__file__).resolve().parent / "cases"
CASE_FILES = sorted(CASES_DIR.glob("*.json"))
RANK = {"info": 0, "warning": 1, "breaking": 2}
EXPECTED_RANK = {"safe": 0, "warning": 1, "breaking": 2}
RULE_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
TOOL = "t"


def load_case(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def is_valid(schema: Any, instance: Any, *, formats: bool = False) -> bool:
    """Validate with the dialect named by ``$schema`` (default 2020-12), no remote refs."""
    cls = validator_for(schema, default=Draft202012Validator)
    checker = cls.FORMAT_CHECKER if formats else None
    return cls(schema, registry=Registry(), format_checker=checker).is_valid(instance)


def confirm_witness(finding: Any, old: Any, new: Any) -> None:
    """A breaking schema finding's witness: the accepting side accepts it, the other side rejects it."""
    w = finding.witness
    assert w is not None, f"breaking finding {finding.rule} at {finding.pointer!r} has no witness"
    assert set(w) >= {"instance", "accepted_by", "error", "instance_pointer"}, w
    accepting = "new" if finding.direction == "output" else "old"
    assert w["accepted_by"] == accepting, (finding.rule, w)
    assert isinstance(w["error"], str) and w["error"], w
    assert isinstance(w["instance_pointer"], str) and (
        w["instance_pointer"] in ("",) or w["instance_pointer"].startswith("/")
    )
    acc, rej = (new, old) if accepting == "new" else (old, new)
    assert acc is not None and rej is not None
    inst = w["instance"]
    # Confirmed for the profile without format checking or, for format-only breaks, with formats checked.
    confirmed = [f for f in (False, True) if is_valid(acc, inst, formats=f) and not is_valid(rej, inst, formats=f)]
    assert confirmed, f"witness not confirmed for {finding.rule} at {finding.pointer!r}: {inst!r}"
    # The witness shows this change alone: the rejecting side reports exactly one error, the one quoted.
    errors = rejection_errors(rej, inst, formats=confirmed[0])
    assert len(errors) == 1 and w["error"].startswith(errors[0]), (
        finding.rule,
        finding.pointer,
        inst,
        errors,
        w["error"],
    )


def rejection_errors(schema: Any, instance: Any, *, formats: bool = False) -> list[str]:
    cls = validator_for(schema, default=Draft202012Validator)
    checker = cls.FORMAT_CHECKER if formats else None
    return [e.message for e in cls(schema, registry=Registry(), format_checker=checker).iter_errors(instance)]


def check_shape(finding: Any) -> None:
    assert RULE_RE.match(finding.rule), finding.rule
    assert finding.severity in RANK, finding.severity
    assert finding.direction in ("input", "output", "tool"), finding.direction
    assert isinstance(finding.pointer, str) and (finding.pointer == "" or finding.pointer.startswith("/"))
    assert isinstance(finding.message, str) and finding.message
    assert isinstance(finding.hosts, list)


def run_case(case: dict[str, Any]) -> list[Any]:
    """Findings for one case (an absent inputSchema means the tool is absent on that side)."""
    from mcp_schema_audit.engine import compare_schemas

    return compare_schemas(case["old"], case["new"], case["direction"], tool=TOOL)


@pytest.mark.parametrize("path", CASE_FILES, ids=[p.stem for p in CASE_FILES])
def test_case_data_is_consistent(path: Path) -> None:
    """The case files themselves: the example shows the change (no engine involved)."""
    case = load_case(path)
    assert case["direction"] in ("input", "output")
    assert case["expected"] in EXPECTED_RANK
    old, new = case["old"], case["new"]
    accepting, other = (new, old) if case["direction"] == "output" else (old, new)
    assert accepting is not None, "the accepting side must exist"
    if "example" not in case:
        return
    assert is_valid(accepting, case["example"]), "example must be valid under the accepting side"
    if other is None:
        return
    if case["expected"] == "breaking":
        assert not is_valid(other, case["example"]), "a breaking case's example should be rejected by the other side"
    else:
        assert is_valid(other, case["example"]), "a non-breaking case's example must pass both sides"


def test_all_cases_present() -> None:
    assert len(CASE_FILES) == 15, [p.name for p in CASE_FILES]


@pytest.mark.parametrize("path", CASE_FILES, ids=[p.stem for p in CASE_FILES])
def test_case_verdict(path: Path) -> None:
    case = load_case(path)
    findings = run_case(case)
    for f in findings:
        check_shape(f)
    top = max((RANK[f.severity] for f in findings), default=0)
    summary = [(f.rule, f.severity, f.pointer) for f in findings]
    assert top == EXPECTED_RANK[case["expected"]], f"expected {case['expected']}, got {summary}"

    old, new = case["old"], case["new"]
    for f in findings:
        if f.direction in ("input", "output"):
            assert f.direction == case["direction"], summary
            assert f.tool == TOOL
            assert resolves(old, f.pointer) or resolves(new, f.pointer), (
                f"pointer {f.pointer!r} of {f.rule} is in neither schema"
            )
        if f.severity != "breaking":
            continue
        if f.direction in ("input", "output"):
            confirm_witness(f, old, new)
        elif f.witness is not None:
            # tool-level (tool removed): the witness is a tools/call the cached schema allowed,
            # {"name": tool, "arguments": {...}}
            call = f.witness["instance"]
            assert call["name"] == TOOL and f.witness["accepted_by"] == "old", f.witness
            assert is_valid(old, call["arguments"]), f.witness

    if old is None or new is None:
        rule = "tool-removed" if new is None else "tool-added"
        if case["direction"] == "output":
            rule = "output-schema-removed" if new is None else "output-schema-added"
        assert rule in {f.rule for f in findings}, summary
