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
(annotations a ``$ref`` collects) and no ``$id``/``id`` (base URIs). An in-place cycle is never answered.
"""

from __future__ import annotations

import contextvars
from typing import TYPE_CHECKING, Any

from mcp_schema_audit.schema.compile import INPLACE_CYCLE, SchemaCostError

if TYPE_CHECKING:
    from mcp_schema_audit.schema.doc import SchemaDoc

#: (id of a ``$ref`` target, id of an instance value) → (the value, its first error's message or "" when valid),
#: for the one validation under way.
_ACTIVE: contextvars.ContextVar[dict[tuple[int, int], tuple[Any, str]] | None] = contextvars.ContextVar(
    "memo", default=None
)
_CONTEXTUAL = ('"$dynamicRef"', '"$recursiveRef"', '"unevaluated', '"$id"', '"id"')
_CLASSES: dict[type, type] = {}


def memo_accepts(doc: SchemaDoc, instance: Any, profile: str) -> bool | None:
    """Is ``instance`` valid for ``profile`` against ``doc``, when ``doc`` is refused for its in-place cost (not a
    cycle) and holds nothing a ``$ref``'s outcome could depend on beyond its target and the value (module
    docstring)? ``None`` otherwise: the refusal stands. Raises as the host's validator does (``ValueError`` for a
    schema it cannot evaluate)."""
    try:
        doc.check_cost()
        return None
    except SchemaCostError:
        pass
    if doc._cost == INPLACE_CYCLE or any(word in doc.canonical for word in _CONTEXTUAL):
        return None
    built: Any = doc._build_validator(profile)
    if isinstance(built, str):
        return None  # the host cannot compile it: ``validator`` raises that where it is asked
    validator = _memo_class(type(built))(built.schema, registry=built._registry, format_checker=built.format_checker)
    token = _ACTIVE.set({})
    try:
        return bool(doc._evaluating(lambda: validator.is_valid(instance)))
    finally:
        _ACTIVE.reset(token)


def _memo_class(cls: type) -> type:
    """``cls`` with a ``$ref`` that remembers its outcome per (target, value) during a ``memo_accepts`` call."""
    if cls not in _CLASSES:
        from jsonschema import validators

        _CLASSES[cls] = validators.extend(cls, {"$ref": _memo_ref})
    return _CLASSES[cls]


def _memo_ref(validator: Any, ref: str, instance: Any, schema: Any) -> Any:
    from jsonschema.exceptions import ValidationError

    memo = _ACTIVE.get()
    if memo is None:
        yield from validator._validate_reference(ref=ref, instance=instance)
        return
    resolved = validator._resolver.lookup(ref)
    key = (id(resolved.contents), id(instance))
    hit = memo.get(key)
    if hit is not None and hit[0] is instance:
        if hit[1]:
            yield ValidationError(hit[1])
        return
    first = next(iter(validator.descend(instance, resolved.contents, resolver=resolved.resolver)), None)
    memo[key] = (instance, first.message if first is not None else "")
    if first is not None:
        yield first
