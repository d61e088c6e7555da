"""Property-based cross-check of the compat engine against a real validator and hypothesis-jsonschema.

What is generated (``schema_mutations.py``): real-looking tool schemas — a ``type: object`` root
with 1–8 properties of string / integer / number / boolean / enum (or ``const``) / scalar unions /
``true`` types, arrays (mostly of objects), maps (``additionalProperties: <schema>``) and nested
objects; some required, some closed (``additionalProperties: false``), some nullable
(``type: [T, "null"]`` or ``anyOf`` with ``{type: null}``), some behind ``$defs`` + ``$ref``, some
with ``minLength``/``maxLength``/``minimum``/``maximum``/``minItems``/``maxItems``. A generated
*model* is rendered to JSON Schema with random but equivalent spellings; the new version is the
old model after 1–3 semantic mutations (add/remove property, toggle closure, widen/narrow enum,
union and bounds, add/remove required, nullable on/off, retype), rendered with independent
spellings (so every mutated pair also mixes in equivalent rewrites).

P is the producing side, V the validating side (output: P = new, V = old; input: P = old, V = new).

- ``test_equivalent_rewrites_are_silent``: two renderings of one model (inline ↔ ``$ref``,
  ``type: [T, "null"]`` ↔ ``anyOf`` null, ``type: [A, B]`` ↔ ``anyOf``, ``anyOf: [X]`` ↔ ``X``,
  reordered ``enum``/``required``/``anyOf``/properties, ``const x`` ↔ ``enum [x]``, ``true`` ↔
  ``{}``, annotations) give no breaking and no warning finding, in either direction.
- ``test_verdict_independent_of_spelling``: the same, inside a real change: respelling the old
  schema of a mutated pair keeps the highest severity in both directions.
- ``test_breaking_findings_have_confirmed_witnesses`` (property 1, no false positives): every
  breaking finding has a witness that is valid under P and invalid under V — checked here with
  python ``jsonschema`` (dialect from ``$schema``, default 2020-12, no format checking, explicit
  empty ``referencing.Registry()``). The schemas use no ``format``, no 2020-12-only keywords and
  only annotation siblings next to ``$ref``, so every host profile agrees with that check.
- ``test_no_false_negatives_{output,input}`` (property 2): an instance drawn from P with
  hypothesis-jsonschema that V rejects implies at least one breaking or warning finding.
- ``test_proven_breaks_are_not_downgraded`` (property 2, strict form; it checks property 2 too, on
  both directions, and gets the larger share of the budget): when such an instance exists,
  the engine must not answer only with warnings it *downgraded* for lack of a witness (``reason``
  set: "no witness could be built" / "witness not confirmed"): the instance is the witness it
  missed. Warnings that are warnings by design (an enum or type dropped, an object opened or
  closed, a newly required output field: ``reason`` is None) still satisfy it.
- ``test_finding_pointers_resolve``: every finding's ``pointer`` names a location in the old or the
  new schema (following local ``$ref``), as ``Finding`` documents and ``test_cases.py`` checks for
  the case corpus.

Open objects and "declares" (DESIGN.md §2): a key that P only *tolerates* (open object, not in
``properties``) is not assumed to be sent — for outputs the new server sends what the new schema
declares, for inputs callers send what the old schema declares. hypothesis-jsonschema would
otherwise invent undeclared keys: against a closed V that is the "object opened" hazard, which §2
makes a warning, and against an open V that declares the key with another type (P open without
``note``, V ``note: integer``; P tolerates ``{"note": "x"}``) it is not a break at all under §2.
Either would be a false "false negative". Instances are therefore drawn from
``close_objects(P)``: P with ``additionalProperties: false`` on every object subschema whose
``additionalProperties`` only tolerates (absent, ``true``, ``{}``, annotations only); an
``additionalProperties`` *schema* is a declaration and is kept (map values stay arbitrary keys),
and ``{"type": "object"}`` declares only ``{}``. Closing instead of pruning drawn instances
afterwards avoids mapping instance keys back through ``anyOf``/``$ref`` branches; since the schemas
contain no ``not``/``if``, ``close_objects(P)`` ⊆ P, and every drawn instance is re-validated
against P itself. Values of ``true``/``{}`` *properties* stay arbitrary (the property is declared;
its value is "anything").

Reproducibility and budget: every test runs with ``derandomize=True`` and no example database, so
CI sees the same examples on every run. ``SCHEMA_AUDIT_PBT_EXAMPLES`` sets the *total* number of
examples across this module (default 2000, split by ``SHARE``); ``SCHEMA_AUDIT_PBT_RANDOM=1``
switches to random exploration (still without writing a database into the tree).
"""

from __future__ import annotations

import json
import os
import types
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, event, given, note, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from jsonschema.validators import Draft202012Validator, validator_for
from referencing import Registry

from mcp_schema_audit.engine import compare_schemas

from json_pointer import resolves
from schema_mutations import close_objects, mutate, render, tool_model

hypothesis_jsonschema = pytest.importorskip("hypothesis_jsonschema")


def _install_compat_shims() -> None:
    """Make hypothesis-jsonschema 0.23.1 work (and fast enough) with current Hypothesis.

    1. It drives ``hypothesis.internal.conjecture.utils.many`` with the old
       ``while elements.more()`` protocol; newer Hypothesis replaced it by a context manager +
       iterator, so every object schema fails with ``AttributeError: 'many' object has no attribute
       'more'``. hypothesis-jsonschema (only) gets an adapter with the old protocol.
    2. It builds a fresh ``@st.composite`` per object schema, and Hypothesis re-parses the source of
       the decorated function every time (to warn when ``draw`` is unused): ~20 % of this module's
       runtime. The answer depends only on the code object, so it is memoized per code object.
    """
    from hypothesis.internal.conjecture import utils as cu
    import hypothesis.strategies._internal.core as hcore
    import hypothesis_jsonschema._from_schema as hjs

    if not hasattr(cu.many, "more") and not getattr(hjs.cu, "_schema_audit_shim", False):
        class LegacyMany:
            def __init__(self, data: Any, min_size: int, max_size: float, average_size: float) -> None:
                self._many = cu.many(data, min_size=min_size, max_size=max_size, average_size=average_size)
                self._many.__enter__()
                self._it = iter(self._many)

            def more(self) -> bool:
                try:
                    next(self._it)
                    return True
                except StopIteration:
                    self._many.__exit__(None, None, None)
                    return False

            def reject(self, why: str | None = None) -> None:
                self._many.reject(why)

        shim = types.SimpleNamespace(**{k: getattr(cu, k) for k in dir(cu) if not k.startswith("__")})
        shim.many = LegacyMany
        shim._schema_audit_shim = True
        hjs.cu = shim

    original = getattr(hcore, "is_first_param_referenced_in_function", None)
    if original is not None and not getattr(original, "_schema_audit_memo", False):
        memo: dict[Any, bool] = {}

        def memoized(f: Any) -> bool:
            code = getattr(f, "__code__", None)
            if code is None:
                return original(f)
            if code not in memo:
                memo[code] = original(f)
            return memo[code]

        memoized._schema_audit_memo = True  # type: ignore[attr-defined]
        hcore.is_first_param_referenced_in_function = memoized


_install_compat_shims()
from_schema = hypothesis_jsonschema.from_schema

TOTAL = int(os.environ.get("SCHEMA_AUDIT_PBT_EXAMPLES", "2000"))
#: share of TOTAL per test
SHARE = {"equiv": 0.2, "respelled": 0.075, "fp": 0.25, "pointers": 0.05, "fn_output": 0.125, "fn_input": 0.125,
         "strict": 0.175}
#: instances drawn from P per pair in the false-negative tests
INSTANCES_PER_PAIR = 2
RANDOM = os.environ.get("SCHEMA_AUDIT_PBT_RANDOM", "") not in ("", "0")


def pbt_settings(share: str) -> settings:
    return settings(
        max_examples=max(1, round(TOTAL * SHARE[share])),
        deadline=None,
        derandomize=not RANDOM,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
    )


# -- helpers -------------------------------------------------------------------------------------------
def is_valid(schema: Any, instance: Any) -> bool:
    """python-sdk host: dialect from ``$schema`` (default 2020-12), no format checking, no remote refs."""
    cls = validator_for(schema, default=Draft202012Validator)
    return cls(schema, registry=Registry()).is_valid(instance)


def sides(old: Any, new: Any, direction: str) -> tuple[Any, Any]:
    """(P, V): the producing and the validating schema."""
    return (new, old) if direction == "output" else (old, new)


def summary(findings: list[Any]) -> list[tuple[str, str, str]]:
    return [(f.rule, f.severity, f.pointer) for f in findings]


def _top(findings: list[Any]) -> str:
    return next((s for s in ("breaking", "warning", "info") if any(f.severity == s for f in findings)), "none")


def show(**items: Any) -> None:
    """Print values compactly in a falsifying example's report."""
    for key, value in items.items():
        note(f"{key} = {json.dumps(value, default=str)}")


def show_findings(direction: str, findings: list[Any]) -> None:
    note(f"{direction} findings:")
    for f in findings:
        extra = f" reason={f.reason!r}" if f.reason else ""
        wit = f" witness={json.dumps(f.witness['instance'], default=str)}" if f.witness else ""
        note(f"  {f.severity} {f.rule} {f.pointer!r}{extra}{wit}")


def check_breaking_witnesses(findings: list[Any], old: Any, new: Any, direction: str) -> None:
    """Property 1: each breaking finding's witness is valid under P and invalid under V."""
    p, v = sides(old, new, direction)
    for f in findings:
        if f.severity != "breaking":
            continue
        assert f.witness is not None, f"breaking {f.rule} at {f.pointer!r} has no witness"
        inst = f.witness["instance"]
        assert f.witness.get("accepted_by") == ("new" if direction == "output" else "old"), (f.rule, f.witness)
        assert is_valid(p, inst), f"witness of {f.rule} at {f.pointer!r} is rejected by P: {inst!r}"
        assert not is_valid(v, inst), f"witness of {f.rule} at {f.pointer!r} is accepted by V: {inst!r}"


SEEDS = st.integers(0, 2**32 - 1)


@st.composite
def mutated_pair(draw: Any) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """(old schema, new schema, mutation labels). Spellings come from drawn seeds (drawing every
    renderer choice through Hypothesis made generation 4x slower); the model still shrinks, and
    surviving nodes keep their spelling while it does."""
    model = draw(tool_model())
    new_model, labels = draw(mutate(model))
    old = render(model, draw(SEEDS))
    new = render(new_model, draw(SEEDS))
    return old, new, labels


def proving_instances(data: st.DataObject, old: Any, new: Any, direction: str) -> list[Any]:
    """Instances drawn from ``close_objects(P)`` (see module docstring) that V rejects."""
    p, v = sides(old, new, direction)
    try:
        strategy = from_schema(close_objects(p))
    except InvalidArgument:  # hypothesis-jsonschema cannot handle this schema
        assume(False)
    out = []
    for i in range(INSTANCES_PER_PAIR):
        try:
            instance = data.draw(strategy, label=f"{direction} instance {i}")
        except InvalidArgument:
            assume(False)
        assume(is_valid(p, instance))  # close_objects(P) ⊆ P; guards against generator bugs
        if not is_valid(v, instance):
            out.append(instance)
    return out


# -- equivalence ---------------------------------------------------------------------------------------
@pbt_settings("equiv")
@given(tool_model(), SEEDS, SEEDS)
def test_equivalent_rewrites_are_silent(model: dict[str, Any], seed_old: int, seed_new: int) -> None:
    """Two spellings of one model: no breaking and no warning finding, in either direction."""
    old, new = render(model, seed_old), render(model, seed_new)
    show(old=old, new=new)
    for direction in ("output", "input"):
        findings = compare_schemas(old, new, direction, tool="t")
        show_findings(direction, findings)
        loud = [f for f in findings if f.severity in ("breaking", "warning")]
        assert not loud, f"{direction}: equivalent rewrite reported {summary(loud)}: {[f.message for f in loud]}"


@st.composite
def respelled_pair(draw: Any) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], list[str]]:
    """(old, old respelled, new, mutation labels): old and old respelled are equivalent schemas."""
    model = draw(tool_model())
    new_model, labels = draw(mutate(model))
    return render(model, draw(SEEDS)), render(model, draw(SEEDS)), render(new_model, draw(SEEDS)), labels


@pbt_settings("respelled")
@given(respelled_pair())
def test_verdict_independent_of_spelling(pair: tuple[dict[str, Any], dict[str, Any], dict[str, Any], list[str]]) -> None:
    """Equivalent spellings are not changes (DESIGN.md §2), so respelling the old schema of a real
    change must not change the verdict: the same highest severity, in both directions."""
    old, old2, new, labels = pair
    show(old=old, old_respelled=old2, new=new, mutations=labels)
    for direction in ("output", "input"):
        a = compare_schemas(old, new, direction, tool="t")
        b = compare_schemas(old2, new, direction, tool="t")
        show_findings(f"{direction} (old)", a)
        show_findings(f"{direction} (old respelled)", b)
        assert _top(a) == _top(b), (f"{direction}: verdict {_top(a)} for old, {_top(b)} for the same old schema "
                                    f"respelled: {summary(a)} vs {summary(b)}")


# -- property 1: no false positives --------------------------------------------------------------------
@pbt_settings("fp")
@given(mutated_pair())
def test_breaking_findings_have_confirmed_witnesses(pair: tuple[dict[str, Any], dict[str, Any], list[str]]) -> None:
    old, new, labels = pair
    show(old=old, new=new, mutations=labels)
    for direction in ("output", "input"):
        findings = compare_schemas(old, new, direction, tool="t")
        show_findings(direction, findings)
        event(f"{direction} verdict: {_top(findings)}")
        check_breaking_witnesses(findings, old, new, direction)


@pbt_settings("pointers")
@given(mutated_pair())
def test_finding_pointers_resolve(pair: tuple[dict[str, Any], dict[str, Any], list[str]]) -> None:
    old, new, labels = pair
    show(old=old, new=new, mutations=labels)
    for direction in ("output", "input"):
        findings = compare_schemas(old, new, direction, tool="t")
        show_findings(direction, findings)
        bad = [(f.rule, f.pointer) for f in findings if not (resolves(old, f.pointer) or resolves(new, f.pointer))]
        assert not bad, f"{direction}: pointers in neither schema: {bad}"


# -- property 2: no false negatives --------------------------------------------------------------------
def _no_false_negatives(data: st.DataObject, direction: str) -> None:
    old, new, labels = data.draw(mutated_pair(), label="pair")
    show(old=old, new=new, mutations=labels)
    findings = compare_schemas(old, new, direction, tool="t")
    show_findings(direction, findings)
    check_breaking_witnesses(findings, old, new, direction)  # property 1 comes for free
    proofs = proving_instances(data, old, new, direction)
    loud = [f for f in findings if f.severity in ("breaking", "warning")]
    event(f"{direction}: instance rejected by V: {bool(proofs)}; verdict {_top(findings)}")
    if proofs:
        assert loud, (f"{direction}: instance {proofs[0]!r} of P is rejected by V, but the engine reported "
                      f"nothing above info: {summary(findings)}")


@pbt_settings("fn_output")
@given(st.data())
def test_no_false_negatives_output(data: st.DataObject) -> None:
    _no_false_negatives(data, "output")


@pbt_settings("fn_input")
@given(st.data())
def test_no_false_negatives_input(data: st.DataObject) -> None:
    _no_false_negatives(data, "input")


@pbt_settings("strict")
@given(st.data())
def test_proven_breaks_are_not_downgraded(data: st.DataObject) -> None:
    direction = data.draw(st.sampled_from(["output", "input"]), label="direction")
    old, new, labels = data.draw(mutated_pair(), label="pair")
    show(old=old, new=new, mutations=labels)
    findings = compare_schemas(old, new, direction, tool="t")
    show_findings(direction, findings)
    check_breaking_witnesses(findings, old, new, direction)
    proofs = proving_instances(data, old, new, direction)
    event(f"{direction}: instance rejected by V: {bool(proofs)}")
    if not proofs:
        return
    assert any(f.severity in ("breaking", "warning") for f in findings), (
        f"{direction}: instance {proofs[0]!r} of P is rejected by V, but the engine reported nothing above info")
    by_design = [f for f in findings if f.severity == "breaking" or (f.severity == "warning" and not f.reason)]
    downgraded = [f for f in findings if f.severity == "warning" and f.reason]
    assert by_design, (f"{direction}: instance {proofs[0]!r} of P is rejected by V, but the engine only reported "
                       f"downgraded warnings {[(f.rule, f.pointer, f.reason) for f in downgraded]}")
