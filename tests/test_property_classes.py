"""The property cross-check on issue 19's witness classes: formats beside bounds and patterns, pattern-keyed
objects, object-valued consts and enums, impossible subschemas, empty-matching patterns and unknown formats.

The pairs are the property cross-check's tool schemas with one more property of such a class (``schema_classes``);
the properties and the oracle are those of ``test_property_crosscheck.py``: python ``jsonschema`` without format
checks for python-sdk, with ajv-formats' checks (``ajv_format_checker``, compared with the real package by
``tests/test_ajv_crosscheck.py``) for the TS hosts.

- ``test_class_breaking_findings_have_confirmed_witnesses`` (no false positives): every breaking finding's witness
  is valid under P and invalid under V for every host it names (a witness beside a format meets the format for the
  TS hosts it names), rejected for its own keyword; every pointer resolves in one of the schemas.
- ``test_class_proven_breaks_are_not_downgraded`` (no false negatives, strict form, both directions): instances
  of P that V rejects, for python-sdk (drawn from P with its formats dropped: they are annotations to that host)
  and for ts-sdk-v2 (drawn from P with its formats, kept only when they meet them), imply a breaking finding or a
  warning by design; never only warnings downgraded for lack of a witness.
- ``test_class_equivalent_shapes_are_silent``: an empty-matching pattern and none, an unknown format and none, two
  subschemas that accept nothing, an object ``const`` and its closed structure: no breaking or warning finding.

Budget: ``SCHEMA_AUDIT_PBT_EXAMPLES`` (the property cross-check's total; this module takes ``CLASS_SHARE`` of it),
derandomized, no example database, as there.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import event, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from json_pointer import resolves
from schema_classes import IMPOSSIBLE, class_pair, equivalent_class_pair
from schema_rewrites import close_objects, for_hypothesis_jsonschema, map_subschemas
from test_property_crosscheck import (
    TOTAL,
    _top,
    check_breaking_witnesses,
    from_schema,
    host_valid,
    pbt_settings,
    show,
    show_findings,
    sides,
    summary,
    v1_only,
)

from mcp_schema_audit.engine import compare_schemas

#: share of the property cross-check's TOTAL per test of this module
CLASS_SHARE = {"class_fp": 0.1, "class_strict": 0.15, "class_equiv": 0.05}
#: hypothesis-jsonschema knows no ``uuid`` format: drawn as real UUIDs (upper- and lower-case)
_UUIDS = st.uuids().map(str) | st.uuids().map(lambda u: str(u).upper())


def class_settings(share: str) -> settings:
    base = pbt_settings("fp")
    return settings(base, max_examples=max(1, round(TOTAL * CLASS_SHARE[share])))


def strip_formats(schema: Any) -> Any:
    """``schema`` without ``format`` (an annotation to python-sdk, which checks no format)."""
    if not isinstance(schema, dict):
        return schema
    out = map_subschemas(schema, strip_formats)
    out.pop("format", None)
    return out


def _unsatisfiable_as_false(schema: Any) -> Any:
    """``schema`` with the generator's subschemas that accept nothing (``IMPOSSIBLE``) spelled ``false``:
    hypothesis-jsonschema 0.23 fails an assertion on an impossible ``propertyNames`` beside ``minProperties``."""
    if schema in IMPOSSIBLE:
        return False
    return map_subschemas(schema, _unsatisfiable_as_false) if isinstance(schema, dict) else schema


def class_instances(data: st.DataObject, old: Any, new: Any, direction: str) -> list[tuple[str, Any]]:
    """(host, instance): instances of P that V rejects for that host; python-sdk's drawn from P without formats,
    ts-sdk-v2's from P with them (an instance P rejects for the host is skipped)."""
    p, v = sides(old, new, direction)
    out = []
    for host, source in (("python-sdk", strip_formats(p)), ("ts-sdk-v2", p)):
        custom = {"uuid": _UUIDS} if '"uuid"' in json.dumps(source) else None
        try:
            drawable = for_hypothesis_jsonschema(close_objects(_unsatisfiable_as_false(source)))
            strategy = from_schema(drawable, custom_formats=custom)
            instance = data.draw(strategy, label=f"{direction} instance ({host} reading)")
        except InvalidArgument as exc:
            event(f"no instances ({host} reading): hypothesis-jsonschema: {type(exc).__name__}")
            continue
        if not host_valid(p, instance, host):
            event(f"instance outside P skipped ({host} reading)")
            continue
        if not host_valid(v, instance, host):
            out.append((host, instance))
    return out


def _check_pointers(findings: list[Any], old: Any, new: Any) -> None:
    bad = [(f.rule, f.pointer) for f in findings if not (resolves(old, f.pointer) or resolves(new, f.pointer))]
    assert not bad, f"pointers in neither schema: {bad}"


@class_settings("class_fp")
@given(class_pair())
def test_class_breaking_findings_have_confirmed_witnesses(
    pair: tuple[dict[str, Any], dict[str, Any], list[str]],
) -> None:
    old, new, labels = pair
    show(old=old, new=new, mutations=labels)
    event(labels[0])
    for direction in ("output", "input"):
        findings = compare_schemas(old, new, direction, tool="t")
        show_findings(direction, findings)
        event(f"{labels[0]}, {direction} verdict: {_top(findings)}")
        check_breaking_witnesses(findings, old, new, direction)
        _check_pointers(findings, old, new)


@class_settings("class_strict")
@given(st.data())
def test_class_proven_breaks_are_not_downgraded(data: st.DataObject) -> None:
    direction = data.draw(st.sampled_from(["output", "input"]), label="direction")
    old, new, labels = data.draw(class_pair(), label="pair")
    show(old=old, new=new, mutations=labels)
    findings = compare_schemas(old, new, direction, tool="t")
    show_findings(direction, findings)
    check_breaking_witnesses(findings, old, new, direction)
    proofs = class_instances(data, old, new, direction)
    event(f"{labels[0]}, {direction}: instance rejected by V: {bool(proofs)}")
    if not proofs:
        return
    host, instance = proofs[0]
    by_design = [f for f in findings if f.severity == "breaking" or (f.severity == "warning" and not f.reason)]
    downgraded = [(f.rule, f.pointer, f.reason) for f in findings if f.severity == "warning" and f.reason]
    assert by_design, (
        f"{direction}: instance {instance!r} of P is rejected by V ({host} reading), but the engine reported "
        f"{'only downgraded warnings ' + repr(downgraded) if downgraded else 'nothing above info'}: {summary(findings)}"
    )
    if host != "python-sdk":  # the TS reading's break is claimed for a TS host
        hosts = {h for f in findings if f.severity == "breaking" for h in f.hosts}
        warned = any(f.severity == "warning" and not f.reason for f in findings)
        assert hosts - {"python-sdk"} or warned, (
            f"{direction}: instance {instance!r} breaks {host}, but no breaking finding names a TS host: "
            f"{[(f.rule, f.pointer, f.hosts) for f in findings]}"
        )


@class_settings("class_equiv")
@given(equivalent_class_pair())
def test_class_equivalent_shapes_are_silent(pair: tuple[dict[str, Any], dict[str, Any], list[str]]) -> None:
    old, new, labels = pair
    show(old=old, new=new, shape=labels)
    for direction in ("output", "input"):
        findings = compare_schemas(old, new, direction, tool="t")
        show_findings(direction, findings)
        loud = [f for f in findings if f.severity == "warning" or (f.severity == "breaking" and not v1_only(f))]
        assert not loud, f"{direction}: equivalent {labels[0]} shapes reported {summary(loud)}"
        check_breaking_witnesses(findings, old, new, direction)
