"""Validity of the simplest subschemas without a validator: the answer ``jsonschema`` would give, at dict speed.

The engine asks "is this value valid under this node?" thousands of times per catalog, mostly of leaf
nodes such as ``{"type": "string", "enum": ["a", "b"]}``. Building a ``jsonschema`` validator for
each node (``evolve``: a resolver, a resource) costs more than the answer. ``quick_valid`` answers
for nodes made only of the keywords below, for the ``python-sdk`` reading (the validator classes of
``SchemaDoc``, formats not asserted), and says "don't know" (None) for anything else, which then goes
to the real validator. Given the document's root (``refs_root``: only for a document without ``$id``, whose
every ``#/…`` reference resolves inside it), local ``$ref``s are followed as jsonschema follows them: beside
the other keywords from 2019-09 on, alone (its siblings ignored) in draft-06/07.

The Ajv reading (``formats``: the TS profiles' format checker) answers as the TS profiles' validators do
(``schema.hosts``): formats asserted by that checker, and nothing answered where they differ from the
python reading or from each other: an integer beyond 2**53 in the value or the node (JavaScript doubles),
a ``$ref`` with siblings or to another place than the root or a ``$defs``/``definitions`` entry (Ajv's reading
of siblings is emulated by rewriting the document, which moves such places), a ``$schema`` anywhere but the
root of the validator's own schema (``whole``: it switches jsonschema's class).

Its answers are those of ``jsonschema``'s own keyword functions (``jsonschema/_keywords.py``: same
comparisons, same equality ``_utils.equal`` for scalars); the fast-path test runs every report with it on
and off and compares them byte for byte, and ``tests/test_quick.py`` compares it with each profile's
validator on drawn schemas and values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcp_schema_audit.jsontext import unescape_token
from mcp_schema_audit.schema.dialects import DEFS_REF, JS_SAFE

if TYPE_CHECKING:
    from jsonschema import FormatChecker

#: Keywords answered here, and annotations the python-sdk reading ignores (``format`` included: its
#: validators are built with ``format_checker=None``).
_ANSWERED = frozenset(
    {
        "type",
        "enum",
        "const",
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "properties",
        "required",
        "additionalProperties",
        "anyOf",
        "allOf",
        "oneOf",
        "not",
        "items",
        "minItems",
        "maxItems",
        "$ref",
        "$schema",
    }
)
_IGNORED = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "$comment",
        "deprecated",
        "readOnly",
        "writeOnly",
        "format",
        "$defs",
        "definitions",
    }
)
_KNOWN = _ANSWERED | _IGNORED
#: Dialects whose jsonschema classes share these keywords' meaning (draft-04: boolean exclusive bounds, no
#: ``const``, integers without ``1.0``: left to the validator).
_DIALECTS = frozenset({"draft-06", "draft-07", "2019-09", "2020-12"})
_SCALARS = (str, int, float, bool, type(None))
#: Dialects whose ``$ref`` ignores its sibling keywords (jsonschema's ``ignore_ref_siblings``).
_REF_ALONE = frozenset({"draft-06", "draft-07"})
#: ``$schema`` URIs (without a trailing ``#``) → dialect: a nested ``$schema`` switches jsonschema's validator
#: class on the way down (``evolve`` → ``validator_for``); answered only when it names the same dialect.
_SCHEMA_URIS = {
    "https://json-schema.org/draft/2020-12/schema": "2020-12",
    "https://json-schema.org/draft/2019-09/schema": "2019-09",
    "http://json-schema.org/draft-07/schema": "draft-07",
    "http://json-schema.org/draft-06/schema": "draft-06",
}


#: ``_is_type``'s answer per (type name, class of a value parsed from JSON), where the class alone decides (an
#: integral float is an integer only by its value: left to ``_is_type``).
_TYPE_HITS: dict[tuple[str, type], bool] = {
    (name, cls): hit
    for name, hits in (
        ("string", {str}),
        ("object", {dict}),
        ("array", {list}),
        ("boolean", {bool}),
        ("null", {type(None)}),
        ("number", {int, float}),
        ("integer", {int}),
    )
    for cls in (str, dict, list, bool, type(None), int, float)
    for hit in [cls in hits]
    if not (name == "integer" and cls is float)
}


def _is_type(value: Any, name: str) -> bool | None:
    """jsonschema's draft-06+ type checker for a value parsed from JSON; None for an unknown type name."""
    if name == "string":
        return isinstance(value, str)
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if name == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
    return None


def _equal(one: Any, two: Any) -> bool | None:
    """``jsonschema._utils.equal`` when one side is a scalar; None when both are containers."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return bool(one == two)
    one_box, two_box = isinstance(one, (list, dict)), isinstance(two, (list, dict))
    if one_box and two_box:
        return None
    if one_box or two_box:
        return False
    if isinstance(one, bool) or isinstance(two, bool):
        return type(one) is type(two) and one == two
    return bool(one == two)


def _bound(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _sized(node: dict[str, Any], size: int, low: str, high: str) -> bool | None:
    """Does ``size`` (a string's or an array's length) meet ``node``'s ``low``/``high`` keywords (``minLength``/
    ``maxLength``, ``minItems``/``maxItems``)? None for a bound that is no number (jsonschema decides)."""
    ok = True
    for kw, shorter in ((low, True), (high, False)):
        if kw in node:
            limit = node[kw]
            if not _bound(limit):
                return None
            ok = ok and not (size < limit if shorter else size > limit)
    return ok


def quick_valid(
    node: Any,
    value: Any,
    dialect: str,
    depth: int = 0,
    refs_root: Any = None,
    *,
    formats: FormatChecker | None = None,
    whole: bool = False,
) -> bool | None:
    """Is ``value`` (parsed JSON) valid under ``node`` for the python-sdk reading of ``dialect`` (or, with
    ``formats``, the Ajv reading of the Ajv class ``dialect`` names)?

    Returns True/False only for a boolean schema or an object of ``_KNOWN`` keywords with well-formed
    values, whose subschemas (``properties``, ``additionalProperties``, ``items``, the applicators, and with
    ``refs_root`` the targets of ``#/…`` references into it) are answered here too (up to 32 levels); None
    ("ask the validator") otherwise. ``refs_root``: the root of a document without ``$id`` (None: a ``$ref``
    is left to the validator). ``formats``: a jsonschema ``FormatChecker`` for the Ajv reading (module
    docstring); ``whole``: ``node`` is the validator's own schema (the document root). Never raises.
    """
    if dialect not in _DIALECTS:
        return None
    return reader(dialect, refs_root, formats).answer(node, value, depth, whole)


def reader(dialect: str, refs_root: Any = None, formats: FormatChecker | None = None) -> QuickReader:
    """A reading to ask many questions of (``QuickReader.answer`` answers as ``quick_valid``); ``dialect`` must be
    one of ``_DIALECTS`` (else every answer is None)."""
    return QuickReader(dialect if dialect in _DIALECTS else "", refs_root, formats, False)


def _big_int(value: Any, depth: int) -> bool:
    """Does ``value`` hold an integer a JavaScript double cannot hold exactly (or nest too deep to tell)?"""
    if isinstance(value, int) and not isinstance(value, bool):
        return abs(value) > JS_SAFE
    if depth > 32:
        return True
    if isinstance(value, list):
        return any(_big_int(x, depth + 1) for x in value)
    if isinstance(value, dict):
        return any(_big_int(x, depth + 1) for x in value.values())
    return False


_NOWHERE = object()  # a reference not followed here
_APPLICATORS = ("anyOf", "allOf", "oneOf", "not")
_APPLICATOR_SET = frozenset(_APPLICATORS)
_VALUE_SETS = frozenset(("enum", "const"))
_LENGTHS = frozenset(("minLength", "maxLength"))
_BOUNDS = frozenset(("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"))


class QuickReader:
    """One reading: a dialect (or Ajv class), the document root references resolve into, and for the Ajv
    reading its format checker. ``valid`` answers as ``quick_valid`` documents."""

    __slots__ = ("dialect", "refs_root", "formats", "whole")

    def __init__(self, dialect: str, refs_root: Any, formats: FormatChecker | None, whole: bool) -> None:
        self.dialect, self.refs_root, self.formats, self.whole = dialect, refs_root, formats, whole

    def answer(self, node: Any, value: Any, depth: int = 0, whole: bool = False) -> bool | None:
        """``quick_valid``'s answer for ``value`` under ``node`` in this reading (``whole``: ``node`` is the
        validator's own schema)."""
        if not self.dialect or (self.formats is not None and _big_int(value, 0)):
            return None  # a dialect not answered here; or a value a TS host reads as a double
        self.whole = whole and depth == 0
        return self.valid(node, value, depth)

    def valid(self, node: Any, value: Any, depth: int) -> bool | None:
        if node is True or node is False:
            return node
        if depth >= 32 or not isinstance(node, dict) or not _KNOWN.issuperset(node):
            return None
        if not isinstance(value, _SCALARS) and not isinstance(value, (list, dict)):
            return None
        ajv = self.formats is not None
        if "$schema" in node:
            uri = node["$schema"]
            if ajv and not (self.whole and depth == 0):
                return None
            if not ajv and (not isinstance(uri, str) or _SCHEMA_URIS.get(uri.rstrip("#")) != self.dialect):
                return None
        ok = True
        if "$ref" in node:
            if ajv and (len(node) > 1 or not (isinstance(node["$ref"], str) and DEFS_REF.fullmatch(node["$ref"]))):
                # siblings, or a pointer through places the draft-07 class's rewritten copy of the document
                # (``hosts.ajv_ref_siblings``: siblings moved into ``allOf``) may shift
                return None
            target = _local_target(self.refs_root, node["$ref"])
            if target is _NOWHERE:
                return None
            got = self.valid(target, value, depth + 1)
            if got is None or self.dialect in _REF_ALONE:
                return got
            ok = got
        if "type" in node:
            types = node["type"]
            if types.__class__ is str and (types, value.__class__) in _TYPE_HITS:
                ok = (
                    ok and _TYPE_HITS[types, value.__class__]
                )  # the common case: one type name, a value parsed from JSON
            else:
                types = [types] if isinstance(types, str) else types
                if not isinstance(types, list):
                    return None
                hits = [_is_type(value, t) if isinstance(t, str) else None for t in types]
                if None in hits:
                    return None  # jsonschema raises UnknownType: left to it
                ok = ok and any(hits)
        for kw in ("enum", "const") if not _VALUE_SETS.isdisjoint(node) else ():
            if kw in node:
                options = node[kw] if kw == "enum" else [node[kw]]
                if not isinstance(options, list) or (ajv and _big_int(options, 0)):
                    return None
                found = False
                for each in options:
                    same = _equal(each, value)
                    if same is None:
                        return None
                    if same:
                        found = True
                        break
                ok = ok and found
        if self.formats is not None and "format" in node:
            try:
                ok = ok and bool(self.formats.conforms(value, node["format"]))
            except Exception:  # a checker that raises (a guarded regex out of budget, an unhashable name)
                return None
        if isinstance(value, str) and not _LENGTHS.isdisjoint(node):
            got = _sized(node, len(value), "minLength", "maxLength")
            if got is None:
                return None
            ok = ok and got
        if isinstance(value, (int, float)) and not isinstance(value, bool) and not _BOUNDS.isdisjoint(node):
            for kw in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
                if kw in node:
                    limit = node[kw]
                    if not _bound(limit) or (ajv and _big_int(limit, 0)):
                        return None
                    bad = (
                        value < limit
                        if kw == "minimum"
                        else value > limit
                        if kw == "maximum"
                        else value <= limit
                        if kw == "exclusiveMinimum"
                        else value >= limit
                    )
                    ok = ok and not bad
        if isinstance(value, list):
            got = self._array(node, value, depth)
            if got is None:
                return None
            ok = ok and got
        if not _APPLICATOR_SET.isdisjoint(node):
            got = self._applicators(node, value, depth)
            if got is None:
                return None
            ok = ok and got
        if isinstance(value, dict):
            # checked even when already invalid: a malformed keyword makes jsonschema raise, whatever the order
            got = self._object(node, value, depth)
            return None if got is None else ok and got
        return ok

    def _applicators(self, node: dict[str, Any], value: Any, depth: int) -> bool | None:
        """``anyOf`` (branches in order, up to the first valid one, as jsonschema stops there), ``allOf``,
        ``oneOf`` (every branch) and ``not``; None when a branch it evaluates is not answered here."""
        ok = True
        for kw in _APPLICATORS:
            if kw not in node:
                continue
            sub = node[kw]
            if kw == "not":
                got = self.valid(sub, value, depth + 1)
                if got is None:
                    return None
                ok = ok and not got
                continue
            if not isinstance(sub, list) or (not sub and kw != "allOf"):
                return None  # malformed, or an empty list (jsonschema's own reading of it is left to it)
            if kw == "anyOf":
                found = False
                for branch in sub:
                    got = self.valid(branch, value, depth + 1)
                    if got is None:
                        return None
                    if got:
                        found = True
                        break
                ok = ok and found
                continue
            answers = [self.valid(branch, value, depth + 1) for branch in sub]
            if None in answers:
                return None
            ok = ok and (all(answers) if kw == "allOf" else answers.count(True) == 1)
        return ok

    def _object(self, node: dict[str, Any], value: dict[str, Any], depth: int) -> bool | None:
        """``properties``, ``required`` and ``additionalProperties`` (no ``patternProperties`` beside them) as
        jsonschema applies them to an object ``value``."""
        props = node.get("properties", {})
        required = node.get("required", [])
        extra = node.get("additionalProperties", True)
        if (
            not isinstance(props, dict)
            or not isinstance(required, list)
            or not (extra is True or extra is False or isinstance(extra, dict))
        ):
            return None
        ok = True
        for name in required:
            if not isinstance(name, str):
                return None
            if name not in value:
                ok = False
        for name, sub in props.items():
            if name in value:
                got = self.valid(sub, value[name], depth + 1)
                if got is None:
                    return None
                ok = ok and got
        if extra is not True:
            for name in value:
                if name not in props:
                    got = False if extra is False else self.valid(extra, value[name], depth + 1)
                    if got is None:
                        return None
                    ok = ok and got
        return ok

    def _array(self, node: dict[str, Any], value: list[Any], depth: int) -> bool | None:
        """``minItems``, ``maxItems`` and a single-schema ``items`` (no ``prefixItems``/``additionalItems`` beside
        it: those keywords are not answered here) as jsonschema applies them to an array ``value``."""
        ok = _sized(node, len(value), "minItems", "maxItems")
        if ok is None:
            return None
        if "items" in node:
            items = node["items"]
            if not (items is True or items is False or isinstance(items, dict)):
                return None  # the tuple form (draft-07) or malformed (2020-12): left to the validator
            for each in value:
                got = self.valid(items, each, depth + 1)
                if got is None:
                    return None
                ok = ok and got
        return ok


def _local_target(root: Any, ref: Any) -> Any:
    """The subschema of ``root`` that ``ref`` (``#`` or ``#/json/pointer``) names, as ``referencing`` finds it
    (``~1``/``~0`` unescaped, list indexes in their plain spelling); ``_NOWHERE`` without a root, for another
    form of reference (a URI, an anchor, percent-escapes) or a pointer to nothing: the validator decides."""
    if root is None or not isinstance(ref, str) or not ref.startswith("#") or "%" in ref:
        return _NOWHERE
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        return _NOWHERE
    node = root
    for token in ref[2:].split("/"):
        if isinstance(node, dict):
            token = unescape_token(token)
            if token not in node:
                return _NOWHERE
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and str(int(token)) == token and int(token) < len(node):
            node = node[int(token)]
        else:
            return _NOWHERE
    return node
