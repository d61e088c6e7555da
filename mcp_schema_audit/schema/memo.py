"""Validating one instance against a document refused for its in-place cost, with each ``$ref``'s verdict on each
part of the instance remembered.

``SchemaDoc.check_cost`` refuses a document whose validation could evaluate over ``INPLACE_BUDGET`` subschemas at
one place: a "billion laughs" of ``$defs`` whose ``allOf`` each name the previous level twice. A validator that
evaluates each (``$ref`` target, instance) pair anew does that work; but JSON is a tree, so a subschema is shared
only through ``$ref``, and with each ``$ref``'s outcome on each value kept, the work is bounded by the document's
subschemas times the instance's values. An attack put such a chain (1.3 KB, 2^15 evaluations) beside an enum a
release widened: the widening could not be confirmed on the new side and the gate passed. ``memo_accepts``
answers it, for the documents where a ``$ref``'s outcome depends on nothing but its target and the value: no
``$dynamicRef``/``$recursiveRef`` (dynamic scope), no ``unevaluatedProperties``/``unevaluatedItems``
(annotations a ``$ref`` collects) and no ``$id``/``id`` (base URIs). An in-place cycle is answered for python-sdk
only, by its own validator where that validation finishes (``cycle_answer``: ``anyOf`` stops at the first branch that
takes the value); TS SDK readers are never answered there.
"""

from __future__ import annotations

import contextlib
import contextvars
from typing import TYPE_CHECKING, Any, TypeVar

from mcp_schema_audit.fastpaths import ContentCache
from mcp_schema_audit.schema.compile import INPLACE_CYCLE, SchemaCostError
from mcp_schema_audit.schema.dialects import subschemas
from mcp_schema_audit.schema.reach import REACH_BUDGET, unreached_twin

if TYPE_CHECKING:
    from mcp_schema_audit.schema.doc import SchemaDoc

#: (id of a ``$ref`` target, id of an instance value) → (the value, a copy of its first error or None when valid),
#: for the one validation under way.
_ACTIVE: contextvars.ContextVar[dict[tuple[int, int], tuple[Any, Any]] | None] = contextvars.ContextVar(
    "memo", default=None
)
#: Keywords that make a ``$ref``'s outcome depend on more than its target and the value (found as keywords, in
#: schema positions: a property named ``id`` is not one).
_CONTEXTUAL = frozenset({"$dynamicRef", "$recursiveRef", "unevaluatedProperties", "unevaluatedItems", "$id", "id"})
_CLASSES: dict[type, type] = {}
V = TypeVar("V")


def refused_answer(doc: SchemaDoc, instance: Any, profile: str, *, errors: bool) -> Any:
    """What ``SchemaDoc.accepts`` (``errors`` False: a bool) or ``SchemaDoc.errors`` (a list) answers for a
        document refused as a whole: by the twin when ``instance`` never reaches the refused part
        (``reach.unreached_twin``), else by the memo (``memo_accepts``/``memo_errors``); ``None`` when neither can
        (the refusal stands), or when ``doc`` is not refused. For python-sdk, a document refused for an in-place
    cycle is answered by running its validator (``cycle_answer``) when that validation finishes."""
    twin = unreached_twin(doc, instance)
    if twin is not None:
        return twin.errors(instance, profile) if errors else twin.accepts(instance, profile)
    if profile == "python-sdk" and (answer := cycle_answer(doc, instance, errors=errors)) is not None:
        return answer
    return memo_errors(doc, instance, profile) if errors else memo_accepts(doc, instance, profile)


def memo_accepts(doc: SchemaDoc, instance: Any, profile: str) -> bool | None:
    """Is ``instance`` valid for ``profile`` against ``doc``, when ``doc`` is refused for its in-place cost (not a
    cycle) and holds nothing a ``$ref``'s outcome could depend on beyond its target and the value (module
    docstring)? ``None`` otherwise: the refusal stands. Raises as the host's validator does (``ValueError`` for a
    schema it cannot evaluate)."""
    validator = _validator(doc, profile)
    if validator is None:
        return None
    token = _ACTIVE.set({})
    try:
        return bool(doc._evaluating(lambda: validator.is_valid(instance)))
    finally:
        _ACTIVE.reset(token)


def memo_errors(doc: SchemaDoc, instance: Any, profile: str) -> list[Any] | None:
    """As ``memo_accepts``, the validation errors (best match first, as ``SchemaDoc.errors`` lists them): a
    ``$ref`` evaluated again on the same value yields a copy of its first error (keyword, value and paths)."""
    validator = _validator(doc, profile)
    if validator is None:
        return None

    token = _ACTIVE.set({})
    try:
        found = list(doc._evaluating(lambda: list(validator.iter_errors(instance))))
    finally:
        _ACTIVE.reset(token)
    return _best_first(found)


def _best_first(found: list[Any]) -> list[Any]:
    """``found`` with jsonschema's best match first, as ``SchemaDoc.errors`` lists them."""
    from jsonschema.exceptions import best_match

    best = best_match(iter(found)) if len(found) > 1 else None
    while best is not None and not any(best is e for e in found):
        best = best.parent  # as ``SchemaDoc.errors``: the top-level error holding python-sdk's pick goes first
    return found if best is None else [best, *(e for e in found if e is not best)]


#: In-place evaluations at one place from which a document that is not refused is still validated with each
#: ``$ref``'s outcome kept: a 10 KB ``$defs`` tree of 2^12 evaluations under each of 300 properties took 1 s per
#: validation (103 s for one tool) and takes milliseconds so; below it the plain validator is as fast.
MEMO_FROM = 1_000


def _validator(doc: SchemaDoc, profile: str) -> Any:
    """The host's validator of ``doc`` with the remembering ``$ref``, or ``None`` (module docstring): for a document
    refused for its cost, or one whose validation could evaluate ``MEMO_FROM`` subschemas at one place."""
    try:
        doc.check_cost()
        if doc._cost is None or doc._cost < MEMO_FROM:
            return None
    except SchemaCostError:
        pass
    if doc._cost == INPLACE_CYCLE:
        return None
    return _BUILT.get((profile, doc.canonical), lambda: _build(doc, profile))


def _build(doc: SchemaDoc, profile: str) -> Any:
    if _contextual(doc.root):
        return None
    built: Any = doc._build_validator(profile)
    if isinstance(built, str):
        return None  # the host cannot compile it: ``validator`` raises that where it is asked
    return _memo_class(type(built))(built.schema, registry=built._registry, format_checker=built.format_checker)


#: The remembering validator (or ``None``) per (profile, canonical schema text): built once, as ``SchemaDoc`` builds
#: its own.
_BUILT: ContentCache[Any] = ContentCache(256)


def _contextual(root: Any) -> bool:
    """Does a subschema of ``root`` hold a keyword of ``_CONTEXTUAL``? (Past ``REACH_BUDGET`` subschemas: yes.)"""
    for count, (_tokens, node) in enumerate(subschemas(root, REACH_BUDGET + 1)):
        if count >= REACH_BUDGET or (isinstance(node, dict) and not _CONTEXTUAL.isdisjoint(node)):
            return True
    return False


def _memo_class(cls: type) -> type:
    """``cls`` with a ``$ref`` that remembers its outcome per (target, value) during one validation (from the
    outermost ``$ref`` evaluated, or through a whole ``memo_accepts`` call)."""
    if cls in _REMEMBERING:
        return cls
    if cls not in _CLASSES:
        from jsonschema import validators

        _CLASSES[cls] = validators.extend(cls, {"$ref": _memo_ref})
        _REMEMBERING.add(_CLASSES[cls])
    return _CLASSES[cls]


_REMEMBERING: set[type] = set()


def _memo_ref(validator: Any, ref: str, instance: Any, schema: Any) -> Any:
    # every outcome is computed before the first error is yielded, so the memo is set and reset in one resumption
    yield from _memo_outcome(validator, ref, instance)


def _memo_outcome(validator: Any, ref: str, instance: Any) -> list[Any]:
    from jsonschema.exceptions import ValidationError

    memo = _ACTIVE.get()
    token = _ACTIVE.set({}) if memo is None else None  # the outermost $ref of a validation: a memo of its own
    try:
        memo = _ACTIVE.get()
        assert memo is not None
        resolved = validator._resolver.lookup(ref)
        key = (id(resolved.contents), id(instance))
        hit = memo.get(key)
        if hit is not None and hit[0] is instance:
            # a copy of the first error as it was found (keyword, value, paths below the $ref): callers read its
            # keyword (a server's lax coercions, ``engine.servers``) and prefix its paths as it goes up
            return [ValidationError.create_from(hit[1])] if hit[1] is not None else []
        found = list(validator.descend(instance, resolved.contents, resolver=resolved.resolver))
        memo[key] = (instance, ValidationError.create_from(found[0]) if found else None)
        return found
    finally:
        if token is not None:
            _ACTIVE.reset(token)


def remembering_class(cls: type[V], schema: Any) -> type[V]:
    """``cls`` (a jsonschema validator class) as a validator of ``schema`` (a raw schema or its ``SchemaDoc``)
    should be: with each ``$ref``'s outcome on each value kept during one validation when that validation could
    evaluate ``MEMO_FROM`` subschemas at one place (and nothing a ``$ref``'s outcome could depend on beyond its
    target and the value is in ``schema``), else ``cls`` itself. ``SchemaDoc`` builds its validators so, and
    ``engine.servers`` a server's own reading of an inputSchema."""
    from mcp_schema_audit.schema.doc import SchemaDoc

    doc = schema if isinstance(schema, SchemaDoc) else SchemaDoc(schema)
    if not isinstance(doc.root, dict) or '"$ref"' not in doc.canonical:
        return cls
    with contextlib.suppress(SchemaCostError):
        doc.check_cost()
    if doc._cost is None or doc._cost < MEMO_FROM or doc._cost == INPLACE_CYCLE or _contextual(doc.root):
        return cls
    remembering: type[V] = _memo_class(cls)
    return remembering


def _refused_for_a_cycle(doc: SchemaDoc) -> bool:
    """``check_cost`` refuses ``doc`` for an in-place cycle (not for its cost)."""
    try:
        doc.check_cost()
    except SchemaCostError:
        return doc._cost == INPLACE_CYCLE
    return False


class _Loops(Exception):
    """python-sdk's validation came back to the in-place cycle without end (``RecursionError``)."""


def cycle_answer(doc: SchemaDoc, instance: Any, *, errors: bool) -> Any:
    """python-sdk's own answer for ``doc`` refused for an in-place cycle (``check_cost``), by running its validator
    (``jsonschema``): a validation that finishes (the value never came back to the cycle: an earlier ``anyOf``
    branch took it, python-sdk stops there) is the real answer, as ``refused_answer`` gives it; ``None`` when it
    recurses without end (``python_loops``) or ``doc`` is not refused for a cycle. Bounded by the interpreter's
    recursion limit."""
    if not _refused_for_a_cycle(doc):  # not refused, or refused for its cost (the memo answers)
        return None
    built: Any = doc._build_validator("python-sdk")
    if isinstance(built, str):
        return None

    def run() -> list[Any]:
        try:
            with _rust_panics_unprinted():
                return list(built.iter_errors(instance))
        except RecursionError:
            raise _Loops() from None

    try:
        found = doc._evaluating(run)
    except _Loops:
        return None
    return _best_first(found) if errors else not found


def loops_at(doc: SchemaDoc, node: Any, instance: Any) -> bool:
    """True when python-sdk's validator validating ``instance`` at ``node`` (a subschema of ``doc``, a document
    refused for an in-place cycle) comes back to the cycle without end; False when it finishes, fails otherwise,
    or ``doc`` is not refused for a cycle. Bounded by the interpreter's recursion limit."""
    if not _refused_for_a_cycle(doc):
        return False
    built: Any = doc._build_validator("python-sdk")
    if isinstance(built, str):
        return False

    def run() -> bool:
        try:
            with _rust_panics_unprinted():
                return bool(built.evolve(schema=node).is_valid(instance))
        except RecursionError:
            raise _Loops() from None

    try:
        doc._evaluating(run)
    except _Loops:
        return True
    except (ValueError, LookupError):  # an unresolvable $ref: another failure of the validator
        return False
    except BaseException as exc:  # pyo3's PanicException: the recursion limit met inside rpds' Rust code
        if type(exc).__name__ != "PanicException":
            raise
        return True
    return False


@contextlib.contextmanager
def _rust_panics_unprinted() -> Any:
    """File descriptor 2 pointed at the null device while a validation runs into the recursion limit on purpose:
    when the limit is met inside ``referencing``'s ``rpds`` maps (Rust), the panic hook prints a backtrace there
    (pyo3 then raises ``PanicException``), which is no message of ours and would reach the user's terminal."""
    import os
    import sys

    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError):
        yield
        return
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def python_loops(doc: SchemaDoc, instance: Any) -> bool:
    """True when python-sdk's validator validating ``instance`` against ``doc``, a document refused for an in-place
    cycle, comes back to the cycle without end: what the python-sdk client (on a result) and a server validating
    with its listed inputSchema (on arguments) fail the value with. False when it finishes or ``doc`` is not
    refused for a cycle."""
    if not _refused_for_a_cycle(doc):
        return False
    try:
        return cycle_answer(doc, instance, errors=False) is None
    except (ValueError, LookupError):  # RefError: another failure of the validator is not the cycle
        return False
