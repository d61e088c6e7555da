"""Rule cases: the verdict classes of the verdict-trust issue (``tests/cases/rules/*.json``), as data.

Each file holds one class (keywords beside unions, one finding per break, equivalent spellings, branch
pairing, witnesses, fingerprints; then the fresh-user trial's open-object names and sizes; then issue 19's witnesses
beside formats, witnesses that exist and decidable questions) and its cases:
``old``/``new`` schemas, ``direction`` and what must hold of the engine's findings:

- ``expect``: the highest severity (``none`` = nothing above info);
- ``rules``: rule ids that must be among the findings; ``absent``: rule ids that must not;
- ``breaking_count`` / ``loud_count``: how many breaking / breaking-or-warning findings exactly;
- ``witness``: some breaking finding's witness is exactly this instance (for ``tool-removed``, whose ``new`` is
  ``null``, the call ``{"name", "arguments"}`` a cached host makes);
- ``pointer``: the first finding of ``rules[0]`` is at this JSON Pointer;
- ``witness_length``: finding pointer → the length of its witness's value at the finding's instance
  pointer (a 256-character string for ``maxLength: 255``, 11 distinct items for ``maxItems: 10``);
- ``hosts``: every breaking finding names exactly these host profiles (a witness beside a ``format`` meets the
  format, so the TS hosts, which assert it, reject it too; checked against real Ajv by
  ``tests/test_ajv_crosscheck.py``, which runs these cases as well, and here against python ``jsonschema``'s
  format checker on the accepting side);
- ``finding_count``: how many findings exactly, info included (a type replaced is one finding);
- ``example``: an instance the accepting side accepts and the other may reject (real Ajv's verdict on it
  must be among the breaking findings' hosts: ``tests/test_ajv_crosscheck.py``).

And for every case, whatever it expects: every pointer resolves in one of the schemas; no two findings
share a fingerprint; every breaking finding's witness is accepted by the accepting side and rejected by
the other for its own keyword at its own place in the instance (checked here with python
``jsonschema``, independently of the engine's confirmation).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from json_pointer import keyword_at, resolves, value_at
from jsonschema.validators import Draft202012Validator, validator_for
from referencing import Registry

from mcp_schema_audit.engine import compare_schemas

ROOT = Path(__file__).resolve().parent / "cases" / "rules"
FILES = sorted(ROOT.glob("*.json"))
CASES = [(path.stem, case) for path in FILES for case in json.loads(path.read_text(encoding="utf-8"))["cases"]]
RANK = {"none": 0, "info": 0, "warning": 1, "breaking": 2}
#: keywords a validator names as the reason of its own error (the others report an inner keyword)
SELF_REPORTING = {
    "type",
    "enum",
    "const",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minContains",
    "maxContains",
    "required",
    "minProperties",
    "maxProperties",
    "not",
}
#: rules whose rejecting keyword holds a schema (a pointer ending in it may name the subschema instead)
BY_RULE = {
    "output-property-added-to-closed-object": {"additionalProperties", "unevaluatedProperties"},
    "input-property-removed-from-closed-object": {"additionalProperties", "unevaluatedProperties"},
    "output-oneof-overlap": {"oneOf"},
    "input-oneof-overlap": {"oneOf"},
}
FAMILIES = [
    {"enum", "const"},
    {"minimum", "exclusiveMinimum"},
    {"maximum", "exclusiveMaximum"},
    {"contains", "minContains", "maxContains"},
    {"additionalProperties", "unevaluatedProperties"},
]


def errors(schema: Any, instance: Any) -> list[Any]:
    cls = validator_for(schema, default=Draft202012Validator)
    return list(cls(schema, registry=Registry()).iter_errors(instance))


def keyword_errors(errs: list[Any]) -> set[tuple[str, str]]:
    """(validator keyword, instance pointer) of every error, branches' errors included."""
    out: set[tuple[str, str]] = set()
    stack = list(errs)
    while stack:
        e = stack.pop()
        # the false schema reports no keyword of its own: the keyword holding it is the one that rejects
        kw = e.validator if e.validator is not None else next(iter(reversed(e.absolute_schema_path)), None)
        out.add((str(kw), "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in e.absolute_path)))
        stack.extend(e.context or [])
    return out


def same(kw: str, validator: str) -> bool:
    return kw == validator or any(kw in fam and validator in fam for fam in FAMILIES)


def at(instance: Any, ptr: str) -> Any:
    for token in list(ptr.split("/")[1:]) if ptr else []:
        instance = instance[int(token)] if isinstance(instance, list) else instance[token]
    return instance


def check_witness(f: Any, old: Any, new: Any) -> None:
    """Accepted by the accepting side, rejected by the other for the finding's own keyword and place."""
    w = f.witness
    assert w is not None and f.hosts, (f.rule, f.pointer)
    if f.rule == "tool-removed":  # a call of the cached tool: its arguments an object the cached inputSchema allows
        arguments = w["instance"]["arguments"]
        assert isinstance(arguments, dict) and not errors(old, arguments), w
        return
    accepting, rejecting = (new, old) if f.direction == "output" else (old, new)
    inst = w["instance"]
    assert not errors(accepting, inst), f"witness of {f.rule} at {f.pointer} rejected by the accepting side"
    if "python-sdk" not in f.hosts:
        return  # a TS-only break (formats, ECMAScript regexes): checked against real Ajv elsewhere
    errs = errors(rejecting, inst)
    assert errs, f"witness of {f.rule} at {f.pointer} accepted by the rejecting side: {inst!r}"
    # the keyword the finding names: at its pointer, or at the rejecting side's pointer (the cached enum that
    # rejects a widened type's null)
    rejecting_ptr = f.old_pointer if f.direction == "output" else f.new_pointer
    kws = ({keyword_at(p) for p in (f.pointer, rejecting_ptr or "") if p} & SELF_REPORTING) or BY_RULE.get(
        f.rule, set()
    )
    if "-type-" in f.rule:  # a type rule is proven by a type error, wherever the new value came from
        kws = kws | {"type"}
        try:  # or by the value set of a node whose type and enum leave it no value (it accepts nothing)
            node = value_at(rejecting, rejecting_ptr) if rejecting_ptr else None
        except KeyError:
            node = None
        if isinstance(node, dict):
            kws = kws | ({"enum", "const"} & set(node))
    if any(p and p.rsplit("/", 2)[-2:-1] == ["not"] for p in (f.pointer, rejecting_ptr or "")):
        kws = kws | {"not"}  # a keyword under not/not: jsonschema reports the rejection as the outer not's
    if rejecting_ptr and {"enum", "const"} & set(rejecting_ptr.split("/")):
        kws = kws | {"enum", "const"}  # an object-valued enum/const compared as structure rejects as a value set
    try:  # a keyword whose value is the false schema (items: false, additionalProperties: false) rejects by itself
        if rejecting_ptr and value_at(rejecting, rejecting_ptr) is False:
            kws = kws | {rejecting_ptr.rsplit("/", 1)[-1]}
    except KeyError:
        pass
    if (f.old if f.direction == "output" else f.new) is False:
        kws = kws | SELF_REPORTING  # the rejecting node accepts nothing (minimum above maximum, …): any of its keywords
    if kws and f.rule != "sampled-counterexample":
        place = w["instance_pointer"]
        places = {place, place.rsplit("/", 1)[0] if place else ""}
        found = keyword_errors(errs)
        assert any(same(kw, k) and p in places for kw in kws for k, p in found), (
            f"witness of {f.rule} at {f.pointer} is not rejected by {kws} at {place!r}: {sorted(found)}"
        )


@pytest.mark.parametrize(("group", "case"), CASES, ids=[c["id"] for _, c in CASES])
def test_rule_case(group: str, case: dict[str, Any]) -> None:
    old, new, direction = case["old"], case["new"], case["direction"]
    findings = compare_schemas(old, new, direction, tool="t")
    summary = [(f.rule, f.severity, f.pointer, f.reason) for f in findings]
    top = max((RANK[f.severity] for f in findings), default=0)
    assert top == RANK[case["expect"]], summary
    rules = {f.rule for f in findings}
    assert set(case.get("rules", [])) <= rules, summary
    assert not set(case.get("absent", [])) & rules, summary
    breaking = [f for f in findings if f.severity == "breaking"]
    if "breaking_count" in case:
        assert len(breaking) == case["breaking_count"], summary
    if "loud_count" in case:
        assert len([f for f in findings if f.severity != "info"]) == case["loud_count"], summary
    if "witness" in case:
        assert any(f.witness["instance"] == case["witness"] for f in breaking), summary
    if "pointer" in case:
        assert next(f.pointer for f in findings if f.rule == case["rules"][0]) == case["pointer"], summary
    if "finding_count" in case:
        assert len(findings) == case["finding_count"], summary
    if "hosts" in case:
        assert breaking and all(sorted(f.hosts) == sorted(case["hosts"]) for f in breaking), [
            (f.rule, f.pointer, f.hosts, f.witness) for f in breaking
        ]
        accepting = new if direction == "output" else old
        for f in breaking:  # the witness meets the accepting side's formats too (python jsonschema's own checks)
            cls = validator_for(accepting, default=Draft202012Validator)
            checked = cls(accepting, registry=Registry(), format_checker=cls.FORMAT_CHECKER)
            assert checked.is_valid(f.witness["instance"]), (f.rule, f.witness)
    for ptr, length in case.get("witness_length", {}).items():
        f = next(f for f in breaking if f.pointer == ptr)
        assert len(at(f.witness["instance"], f.witness["instance_pointer"])) == length, (ptr, summary)
    # whatever the case expects
    assert all(resolves(old, f.pointer) or resolves(new, f.pointer) for f in findings), summary
    prints = [f.fingerprint for f in findings]
    assert len(prints) == len(set(prints)), summary
    for f in breaking:
        check_witness(f, old, new)


def test_every_class_has_three_cases_per_direction_at_least() -> None:
    """Each class of the issue comes with variants in both directions."""
    by_group: dict[str, dict[str, int]] = {}
    for group, case in CASES:
        by_group.setdefault(group, {"input": 0, "output": 0})[case["direction"]] += 1
    # the six classes of the verdict-trust issue, the fresh-user trial's, and issue 19's three: witnesses beside
    # formats (H), witnesses that exist (I), decidable questions (J); each of these with three cases per direction
    assert len(by_group) == 10, sorted(by_group)
    for group, counts in by_group.items():
        assert sum(counts.values()) >= 4 and min(counts.values()) >= 1, (group, counts)
        if group[0] in "HIJ":
            assert min(counts.values()) >= 3, (group, counts)


def test_every_breaking_or_warning_rule_says_how_to_fix_it():
    """A report's ``fix:`` line (text, Markdown, JSON ``fix``, annotations, SARIF ``help``) comes from the rule: every
    rule that can fail a gate names the next step, lint's hazards included."""
    from mcp_schema_audit.rules import RULES

    assert [r.id for r in RULES.values() if r.severity != "info" and not r.fix] == []
