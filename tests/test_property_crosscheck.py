"""Property-based cross-check of the compat engine against a real validator and hypothesis-jsonschema.

What is generated (``schema_models.py``, ``schema_render.py``, ``schema_mutations.py``): real-looking tool
schemas — a ``type: object`` root with 1–8 properties of string / integer / number / boolean / enum (or
``const``) / scalar unions / ``true`` types, arrays (mostly of objects), maps (``additionalProperties:
<schema>``) and nested objects; some required, some closed (``additionalProperties: false``), some nullable
(``type: [T, "null"]`` or ``anyOf`` with ``{type: null}``), some behind ``$defs`` + ``$ref``, some
with ``minLength``/``maxLength``/``minimum``/``maximum``/``minItems``/``maxItems``. At modest rates
(``FEATURE_RATES``) also the newer keywords: ``if``/``then``/``else`` on a discriminator property,
``dependentSchemas`` (``required`` / ``not: {required}``), ``patternProperties`` (mostly on closed
objects), ``contains`` + ``minContains``/``maxContains``, tuples (``prefixItems`` with the tail
closed by ``items: false`` / ``unevaluatedItems: false`` / ``maxItems``, or open), ``not: {const|enum}``
on strings and integers, ``not: {type: "null"}``, and OpenAPI ``nullable: true`` beside ``type``.
A generated *model* is rendered to JSON Schema with random but equivalent spellings; the new version
is the old model after 1–3 semantic mutations (add/remove property, toggle closure, widen/narrow
enum, union and bounds, add/remove required, nullable on/off, retype; add/remove/change each newer
keyword, tuples gaining/losing a slot), rendered with independent spellings (so every mutated pair
also mixes in equivalent rewrites).

P is the producing side, V the validating side (output: P = new, V = old; input: P = old, V = new).

The oracle is python ``jsonschema`` (dialect from ``$schema``, default 2020-12, no format checking,
explicit empty ``referencing.Registry()``), i.e. the python-sdk host. Two things it does not see, and
how the tests handle them:

- OpenAPI ``nullable`` is an *annotation* to python ``jsonschema`` (``{type: "string", nullable:
  true}`` rejects ``null``); Ajv, which both TS SDK hosts run, reads it as "or null". Every claim
  made with the python oracle is about the python reading. Where a test checks a TS host, it uses
  ``host_valid``: python ``jsonschema`` on ``ajv_view(schema)`` (``nullable`` applied the way Ajv
  applies it; a schema Ajv would not compile is valid for nothing), with ``Draft7Validator`` for
  ts-sdk-v1 (draft-07 Ajv for every schema) and the ``$schema`` dialect for ts-sdk-v2.
- ts-sdk-v1's draft-07 Ajv ignores ``prefixItems``, ``unevaluatedItems``, ``dependentSchemas``,
  ``dependentRequired``, ``minContains`` and ``maxContains`` (and reads ``items: false`` as "no
  items"), so some spellings equivalent for the 2020-12 readers differ for it (see
  ``schema_render``), and a finding may legitimately break ts-sdk-v1 only (``v1_only``).

The properties:

- ``test_equivalent_rewrites_are_silent``: two renderings of one model (inline ↔ ``$ref``,
  ``type: [T, "null"]`` ↔ ``anyOf`` null, ``type: [A, B]`` ↔ ``anyOf``, ``anyOf: [X]`` ↔ ``X``,
  reordered ``enum``/``required``/``anyOf``/properties, ``const x`` ↔ ``enum [x]``, ``true`` ↔
  ``{}``, annotations; ``not {const x}`` ↔ ``not {enum [x]}``, ``not {type: null}`` ↔ ``not {const:
  null}``, ``S`` ↔ ``not {not S}``, ``dependentSchemas {k: {required: L}}`` ↔ ``dependentRequired
  {k: L}`` ↔ ``if {required: [k]} then {required: L}``, ``prefixItems`` + ``items: false`` ↔
  ``unevaluatedItems: false`` ↔ ``maxItems: n``, ``minContains: 1`` ↔ absent, no-op ``nullable``) give
  no warning and no breaking finding, in either direction — except a breaking finding for
  ts-sdk-v1 alone whose witness really separates the two renderings for ts-sdk-v1 (the 2020-12-only
  spellings above differ for that host; checked like property 1).
- ``test_verdict_independent_of_spelling``: the same, inside a real change: respelling the old
  schema of a mutated pair keeps the highest severity in both directions (ts-sdk-v1-only breaking
  findings aside, for the same reason).
- ``test_breaking_findings_have_confirmed_witnesses`` (property 1, no false positives): every
  breaking finding has a witness that, for *every host profile the finding names* in ``hosts``
  (python-sdk when it names none), is valid under P and invalid under V (``host_valid``); and it
  is a value P *declares*: valid under P for python-sdk or ts-sdk-v2 (the 2020-12 readers; the
  latter honours ``nullable``), not only under ts-sdk-v1's reading, which ignores ``prefixItems``,
  ``dependentSchemas`` etc. and so accepts values P excludes. The schemas use no ``format`` and only
  annotation siblings next to ``$ref``, so ``host_valid`` and the hosts agree (checked against real
  Ajv 8 for generated schemas and instances while writing this).
- ``test_no_false_negatives_{output,input}`` (property 2): an instance drawn from P with
  hypothesis-jsonschema that V rejects implies at least one breaking or warning finding. Checked
  for the python reading; and when ``nullable: true`` changes the Ajv reading of P or V, also for
  the ts-sdk-v2 reading (instances drawn from ``ajv_view(P)``, validity by ``host_valid``).
- ``test_proven_breaks_are_not_downgraded`` (property 2, strict form; it checks property 2 too, on
  both directions, and gets the larger share of the budget): when such an instance exists,
  the engine must not answer only with warnings it *downgraded* for lack of a witness (``reason``
  set: "no witness could be built" / "witness not confirmed"): the instance is the witness it
  missed. Warnings that are warnings by design (an enum or type dropped, an object opened or
  closed, a newly required output field: ``reason`` is None) still satisfy it.
- ``test_finding_pointers_resolve``: every finding's ``pointer`` names a location in the old or the
  new schema (following local ``$ref``), as ``Finding`` documents and ``test_cases.py`` checks for
  the case corpus.

Open objects and "declares" (docs/verdicts.md, Direction and severity): a key that P only *tolerates* (open object,
not in ``properties``) is not assumed to be sent — for outputs the new server sends what the new schema
declares, for inputs callers send what the old schema declares. hypothesis-jsonschema would
otherwise invent undeclared keys: against a closed V that is the "object opened" hazard, which §2
makes a warning, and against an open V that declares the key with another type (P open without
``note``, V ``note: integer``; P tolerates ``{"note": "x"}``) it is not a break at all under §2.
Either would be a false "false negative". Instances are therefore drawn from
``close_objects(P)``: P with ``additionalProperties: false`` on every object subschema whose
``additionalProperties`` only tolerates (absent, ``true``, ``{}``, annotations only), and
``items: false`` on every tuple whose tail only tolerates; an ``additionalProperties`` *schema* is a
declaration and is kept (map values stay arbitrary keys), and ``{"type": "object"}`` declares only
``{}``. Closing instead of pruning drawn instances afterwards avoids mapping instance keys back
through ``anyOf``/``$ref`` branches. With ``not``/``if``/``contains`` in the schemas closing is no
longer a subset by itself (closing inside ``not`` widens), so ``close_objects`` only closes at
monotone positions (never inside ``not``/``if``/``oneOf``/``contains``/``then``/``else``/
``dependentSchemas``, nor the ``$defs`` those reach); and every drawn instance is re-validated
against P itself: one P rejects is skipped (``event`` "instance outside P") and never counts as a
proof. Values of ``true``/``{}`` *properties* stay arbitrary (the property is declared; its value
is "anything").

hypothesis-jsonschema 0.23 knows draft-04..07 only: it silently ignores ``prefixItems``,
``unevaluatedItems``, ``dependentSchemas``, ``dependentRequired``, ``minContains`` and
``maxContains`` (drawing from a far larger set). Instances are drawn from
``for_hypothesis_jsonschema(close_objects(P))``, a draft-07 rendering: tuples → ``items: [...]`` +
``additionalItems``, ``dependent*`` → ``dependencies`` (both exact), ``minContains: m`` → the first
m items match ``contains`` (a subset), ``maxContains`` dropped (a superset: the ~2 % of instances
with too many matches are skipped as "outside P"). ``not``, ``contains`` and ``patternProperties``
it supports natively; ``if``/``then``/``else`` too, but its rewrite negates the whole parent object,
~20x slower, so the ``if`` shapes the generator emits become an exact ``anyOf`` whose negated part
only negates the tested value (``for_hypothesis_jsonschema``).

Reproducibility and budget: every test runs with ``derandomize=True`` and no example database, so
CI sees the same examples on every run. ``SCHEMA_AUDIT_PBT_EXAMPLES`` sets the *total* number of
examples across this module (default 2000, split by ``SHARE``); ``SCHEMA_AUDIT_PBT_RANDOM=1``
switches to random exploration (still without writing a database into the tree);
``SCHEMA_AUDIT_PBT_DISABLE`` turns generator features off (see ``schema_models``).
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
from json_pointer import keyword_at, resolves, value_at
from jsonschema.validators import Draft7Validator, Draft201909Validator, Draft202012Validator, validator_for
from referencing import Registry
from schema_models import tool_model
from schema_mutations import mutate
from schema_render import render
from schema_rewrites import AjvCompileError, ajv_view, close_objects, for_hypothesis_jsonschema, strip_nullable

from mcp_schema_audit.engine import compare_schemas
from mcp_schema_audit.schema import ajv_format_checker

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
    3. It rebuilds (re-canonicalises) the strategy of a property's schema every time it draws that
       key, and ``if``/``anyOf`` branches repeat the parent object: with the newer keywords, ~half of
       this module's runtime. Strategies are immutable and depend only on the schema, the alphabet
       (always the default here) and the custom formats (none here), so ``__from_schema`` is
       memoized by canonical JSON for calls without custom formats.
    """
    import hypothesis.strategies._internal.core as hcore
    import hypothesis_jsonschema._from_schema as hjs
    from hypothesis.internal.conjecture import utils as cu

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

    build = getattr(hjs, "__from_schema", None)
    if build is not None and not getattr(build, "_schema_audit_memo", False):
        built: dict[Any, Any] = {}

        def memoized_build(schema: Any, *, alphabet: Any, custom_formats: Any) -> Any:
            if custom_formats is not None and set(custom_formats) != {hjs._FORMATS_TOKEN}:
                return build(schema, alphabet=alphabet, custom_formats=custom_formats)
            key = (
                hjs.encode_canonical_json(schema),
                getattr(alphabet, "allow_x00", None),
                getattr(alphabet, "codec", None),
                custom_formats is None,
            )
            if key not in built:
                if len(built) > 50_000:
                    built.clear()
                built[key] = build(schema, alphabet=alphabet, custom_formats=custom_formats)
            return built[key]

        memoized_build._schema_audit_memo = True  # type: ignore[attr-defined]
        setattr(hjs, "__from_schema", memoized_build)

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
SHARE = {
    "equiv": 0.2,
    "respelled": 0.075,
    "fp": 0.25,
    "pointers": 0.05,
    "fn_output": 0.125,
    "fn_input": 0.125,
    "strict": 0.175,
}
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


HOSTS = ("python-sdk", "ts-sdk-v1", "ts-sdk-v2")
_V2_CLASSES = {
    "Draft202012Validator": Draft202012Validator,
    "Draft201909Validator": Draft201909Validator,
    "Draft7Validator": Draft7Validator,
    "Draft6Validator": Draft7Validator,
}


def host_valid(schema: Any, instance: Any, host: str = "python-sdk") -> bool:
    """Is ``instance`` valid under ``schema`` for ``host``? python-sdk: ``is_valid``. The TS hosts
    run Ajv, which honours OpenAPI ``nullable`` (``ajv_view``; a schema Ajv does not compile accepts
    nothing): ts-sdk-v1 with its draft-07 class for every schema (2019-09/2020-12 keywords ignored),
    ts-sdk-v2 with the ``$schema`` dialect (default 2020-12; draft-04 and unknown ones: not compiled); both
    assert ``format`` as ajv-formats does (``ajv_format_checker``, compared with the real package by
    ``tests/test_ajv_crosscheck.py``), python-sdk asserts none."""
    if host == "python-sdk":
        return is_valid(schema, instance)
    assert host in HOSTS, host
    try:
        view = ajv_view(schema) if '"nullable"' in json.dumps(schema) else schema
    except AjvCompileError:
        return False
    if host == "ts-sdk-v1":
        cls = Draft7Validator
    else:
        cls = _V2_CLASSES.get(validator_for(schema, default=Draft202012Validator).__name__)
        if cls is None:
            return False
    return cls(view, registry=Registry(), format_checker=ajv_format_checker()).is_valid(instance)


def v1_only(f: Any) -> bool:
    """A breaking finding for ts-sdk-v1 alone: that host ignores the 2019-09/2020-12 keywords, so
    spellings equivalent for every other host may differ for it (see the module docstring)."""
    return f.severity == "breaking" and list(f.hosts) == ["ts-sdk-v1"]


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


#: keywords a validator names as the reason of its own error (``error.validator``)
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
_FAMILIES = [
    {"enum", "const"},
    {"minimum", "exclusiveMinimum"},
    {"maximum", "exclusiveMaximum"},
    {"contains", "minContains", "maxContains"},
    {"additionalProperties", "unevaluatedProperties"},
]


def _error_places(schema: Any, instance: Any) -> set[tuple[str, str]]:
    """(keyword, instance pointer) of every python-sdk error, union branches' errors included."""
    cls = validator_for(schema, default=Draft202012Validator)
    out: set[tuple[str, str]] = set()
    stack = list(cls(schema, registry=Registry()).iter_errors(instance))
    while stack:
        e = stack.pop()
        out.add(
            (str(e.validator), "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in e.absolute_path))
        )
        stack.extend(e.context or [])
    return out


def check_own_keyword(f: Any, v: Any) -> None:
    """A breaking finding's witness is rejected by the keyword the finding names (at its pointer, or at the
    rejecting side's pointer), at the finding's place in the instance or its parent's: a witness rejected
    for an unrelated reason is not a witness of this finding."""
    rejecting_ptr = f.old_pointer if f.direction == "output" else f.new_pointer
    kws = ({keyword_at(p) for p in (f.pointer, rejecting_ptr or "") if p} & SELF_REPORTING) or BY_RULE.get(
        f.rule, set()
    )
    if "-type-" in f.rule:  # a type rule is proven by a type error, wherever the new value came from, or by the
        # value set of a node whose type and enum leave no value (it accepts nothing, so every type is narrowed)
        kws = kws | {"type", "enum", "const"}
    if any(p and p.rsplit("/", 2)[-2:-1] == ["not"] for p in (f.pointer, rejecting_ptr or "")):
        kws = kws | {"not"}  # a keyword under not/not: jsonschema reports the rejection as the outer not's
    if rejecting_ptr and {"enum", "const"} & set(rejecting_ptr.split("/")):
        kws = kws | {"enum", "const"}  # an object-valued enum/const compared as structure rejects as a value set
    try:  # a keyword whose value is the false schema (items: false, additionalProperties: false) rejects by itself
        if rejecting_ptr and value_at(v, rejecting_ptr) is False:
            kws = kws | {rejecting_ptr.rsplit("/", 1)[-1]}
    except KeyError:
        pass
    if (f.old if f.direction == "output" else f.new) is False:
        kws = kws | SELF_REPORTING  # the rejecting node accepts nothing (minimum above maximum, …): any of its keywords
    if not kws or f.rule == "sampled-counterexample" or "python-sdk" not in f.hosts:
        return
    place = f.witness["instance_pointer"]
    places = {place, place.rsplit("/", 1)[0] if place else ""}
    found = _error_places(v, f.witness["instance"])
    assert any(
        (kw == k or any(kw in fam and k in fam for fam in _FAMILIES)) and at in places for kw in kws for k, at in found
    ), f"witness of {f.rule} at {f.pointer!r} is not rejected by {sorted(kws)} at {place!r}: {sorted(found)}"


def check_fingerprints(findings: list[Any]) -> None:
    """Distinct findings never share a fingerprint (SARIF merges them; one ignore entry would silence both)."""
    prints = [f.fingerprint for f in findings]
    assert len(prints) == len(set(prints)), [(f.rule, f.pointer, f.fingerprint) for f in findings]


def check_breaking_witnesses(findings: list[Any], old: Any, new: Any, direction: str) -> None:
    """Property 1: each breaking finding's witness is valid under P and invalid under V, for every
    host profile the finding names (python-sdk when it names none), and is a value P declares:
    valid under P for a 2020-12 reader (ts-sdk-v1's reading, which ignores ``prefixItems``,
    ``dependentSchemas``, …, accepts values P does not declare); it is rejected for the finding's own
    keyword at the finding's place (``check_own_keyword``); and fingerprints are unique."""
    p, v = sides(old, new, direction)
    check_fingerprints(findings)
    for f in findings:
        if f.severity != "breaking":
            continue
        assert f.witness is not None, f"breaking {f.rule} at {f.pointer!r} has no witness"
        inst = f.witness["instance"]
        assert f.witness.get("accepted_by") == ("new" if direction == "output" else "old"), (f.rule, f.witness)
        assert host_valid(p, inst, "python-sdk") or host_valid(p, inst, "ts-sdk-v2"), (
            f"witness of {f.rule} at {f.pointer!r} is not a value P declares (rejected by P for both 2020-12 "
            f"readers, python-sdk and ts-sdk-v2): {inst!r} (hosts {f.hosts})"
        )
        for host in f.hosts or ["python-sdk"]:
            assert host_valid(p, inst, host), (
                f"witness of {f.rule} at {f.pointer!r} is rejected by P for {host}: {inst!r} (hosts {f.hosts})"
            )
            assert not host_valid(v, inst, host), (
                f"witness of {f.rule} at {f.pointer!r} is accepted by V for {host}: {inst!r} (hosts {f.hosts})"
            )
        check_own_keyword(f, v)


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


def readings(old: Any, new: Any, direction: str) -> list[tuple[str, Any]]:
    """(host, schema to draw P's instances from): the python reading always; the ts-sdk-v2 (Ajv)
    reading too when OpenAPI ``nullable`` makes it differ for P or V."""
    p, v = sides(old, new, direction)
    if '"nullable"' not in json.dumps(p) + json.dumps(v):
        return [("python-sdk", p)]
    out = [("python-sdk", strip_nullable(p))]
    try:
        ajv_p, ajv_v = ajv_view(p), ajv_view(v)
    except AjvCompileError:
        return out
    if ajv_p != strip_nullable(p) or ajv_v != strip_nullable(v):
        out.append(("ts-sdk-v2", ajv_p))
    return out


def proving_instances(data: st.DataObject, old: Any, new: Any, direction: str) -> list[tuple[str, Any]]:
    """(host, instance) pairs: instances of P that V rejects for that host, drawn from
    ``for_hypothesis_jsonschema(close_objects(P))`` for each of ``readings`` (see module docstring).
    An instance P itself rejects is skipped, never counted."""
    p, v = sides(old, new, direction)
    out = []
    for host, source in readings(old, new, direction):
        try:
            strategy = from_schema(for_hypothesis_jsonschema(close_objects(source)))
        except InvalidArgument as exc:  # hypothesis-jsonschema cannot handle this schema
            event(f"no instances ({host} reading): hypothesis-jsonschema: {type(exc).__name__}")
            continue
        for i in range(INSTANCES_PER_PAIR):
            try:
                instance = data.draw(strategy, label=f"{direction} instance {i} ({host} reading)")
            except InvalidArgument as exc:
                event(f"no instances ({host} reading): hypothesis-jsonschema: {type(exc).__name__}")
                break
            if not host_valid(p, instance, host):
                event(f"instance outside P skipped ({host} reading)")
                continue
            if not host_valid(v, instance, host):
                out.append((host, instance))
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
        loud = [f for f in findings if f.severity == "warning" or (f.severity == "breaking" and not v1_only(f))]
        assert not loud, f"{direction}: equivalent rewrite reported {summary(loud)}: {[f.message for f in loud]}"
        check_breaking_witnesses(findings, old, new, direction)  # a ts-sdk-v1-only break must be real


@st.composite
def respelled_pair(draw: Any) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], list[str]]:
    """(old, old respelled, new, mutation labels): old and old respelled are equivalent schemas."""
    model = draw(tool_model())
    new_model, labels = draw(mutate(model))
    return render(model, draw(SEEDS)), render(model, draw(SEEDS)), render(new_model, draw(SEEDS)), labels


@pbt_settings("respelled")
@given(respelled_pair())
def test_verdict_independent_of_spelling(
    pair: tuple[dict[str, Any], dict[str, Any], dict[str, Any], list[str]],
) -> None:
    """Equivalent spellings are not changes (docs/verdicts.md, Direction and severity), so respelling the old schema
    of a real change must not change the verdict: the same highest severity, in both directions."""
    old, old2, new, labels = pair
    show(old=old, old_respelled=old2, new=new, mutations=labels)
    for direction in ("output", "input"):
        a = compare_schemas(old, new, direction, tool="t")
        b = compare_schemas(old2, new, direction, tool="t")
        show_findings(f"{direction} (old)", a)
        show_findings(f"{direction} (old respelled)", b)
        a = [f for f in a if not v1_only(f)]  # spellings equivalent for 2020-12 readers may differ for v1
        b = [f for f in b if not v1_only(f)]
        # a wall-clock budget (10 s per tool, regex timeouts) reached on a loaded machine decides nothing
        assume(not any("budget exceeded" in f.message or "takes too long" in f.message for f in a + b))
        # the gate's part of the verdict (info may differ: a respelled schema is "rewritten", an equal one not)
        loud_a = _top([f for f in a if f.severity != "info"])
        loud_b = _top([f for f in b if f.severity != "info"])
        assert loud_a == loud_b, (
            f"{direction}: verdict {loud_a} for old, {loud_b} for the same old schema "
            f"respelled: {summary(a)} vs {summary(b)}"
        )


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
        host, instance = proofs[0]
        assert loud, (
            f"{direction}: instance {instance!r} of P is rejected by V ({host} reading), but the engine "
            f"reported nothing above info: {summary(findings)}"
        )


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
    host, instance = proofs[0]
    assert any(f.severity in ("breaking", "warning") for f in findings), (
        f"{direction}: instance {instance!r} of P is rejected by V ({host} reading), but the engine reported "
        f"nothing above info"
    )
    by_design = [f for f in findings if f.severity == "breaking" or (f.severity == "warning" and not f.reason)]
    downgraded = [f for f in findings if f.severity == "warning" and f.reason]
    assert by_design, (
        f"{direction}: instance {instance!r} of P is rejected by V ({host} reading), but the engine "
        f"only reported downgraded warnings {[(f.rule, f.pointer, f.reason) for f in downgraded]}"
    )
