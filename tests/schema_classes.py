"""Hypothesis strategies for the witness classes of issue 19, grafted onto the property cross-check's tool schemas.

``class_pair()`` draws a mutated pair of real-looking tool models (``schema_models``/``schema_mutations``), adds one
property, ``SHAPE``, to both (a ``raw`` model: its schema as given), and renders each (``schema_render``: ``SHAPE``
may land in ``$defs``, under a single-branch ``anyOf``, …). Its old and new subschemas come from one of these
classes:

- ``format``: a string ``format`` (``date-time``, ``date``, ``uri``, ``uuid``, ``email``) beside a ``pattern``, a
  ``maxLength`` and/or a ``minLength`` (each side drawn on its own; sometimes the format is absent on one side);
- ``pattern_keys``: an object whose keys a ``patternProperties`` regex may not match (the empty key, a key with a
  newline, an upper-case one), closed (``additionalProperties: false``) or reopened by an
  ``additionalProperties`` schema;
- ``object_values``: an object-valued ``const``/``enum`` on one side, the same objects as structure (``properties``
  with value sets, ``required``, closed or not) or another set of objects on the other;
- ``impossible``: a subschema no value satisfies (a ``type`` beside a disjoint ``enum``/``const``, contradicting
  bounds, an impossible ``propertyNames`` with ``minProperties``/``required``) on one side or both;
- ``empty_pattern``: patterns whose search succeeds on every string (unanchored ``a*``, ``(x|)``, ``b?``, ``^``)
  beside anchored ones and none;
- ``unknown_format``: formats no host defines (``x-color``, ``semver``, …) beside none and a known one.

``equivalent_class_pair()`` draws one tool model rendered twice with an *equivalent* ``SHAPE`` on each side (an
empty-matching pattern ↔ none, an unknown format ↔ none, one impossible subschema ↔ another, an object ``const``
↔ the closed structure with every key required and its value fixed): the engine must stay silent.

Regular expressions are kept to the part Python ``re`` and ECMAScript read alike (no ``$``, ``.``, ``\\d``, ``\\w``,
``\\b``), so that python ``jsonschema`` stands for the TS hosts' pattern checks in ``test_property_classes.py``.
A property whose subschema may accept nothing is never required (P would accept nothing at all).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from schema_models import tool_model
from schema_mutations import mutate
from schema_render import render

SHAPE = "shape"
CLASSES = ("format", "pattern_keys", "object_values", "impossible", "empty_pattern", "unknown_format")
#: the classes with fewer variants of their own drawn as often as the others in effect
_WEIGHTED = (*CLASSES, "object_values", "empty_pattern", "impossible")
FORMATS = ("date-time", "date", "uri", "uuid", "email")
#: patterns per format that some values of the format meet and others do not (dialect-neutral, see the docstring)
FORMAT_PATTERNS = {
    "date-time": ("Z", "^2", "[+]", "^19", "T00"),
    "date": ("^2", "-0[1-6]-", "^19"),
    "uri": ("^https:", "^http", "example", "[?]"),
    "uuid": ("^[0-9a-f]", "[A-F]", "^0", "-4"),
    "email": ("@example[.]com", "^[a-z]", "[A-Z]", "[+]"),
}
#: lengths around the format's usual ones (``uuid`` 35: the format and the bound leave no value for a TS host)
FORMAT_LENGTHS = {
    "date-time": (19, 20, 22, 25, 30),
    "date": (9, 10, 11),
    "uri": (8, 12, 20, 40),
    "uuid": (35, 36, 37),
    "email": (5, 8, 20, 40),
}
KEY_PATTERNS = ("^[a-z]", "[a-z]", "^[^\\n]", "^x-", "^[^A-Z]")
KEY_VALUES = ({"type": "integer"}, {"type": "string"}, {"type": "boolean"})
OBJECTS = ({"kind": "a", "n": 1}, {"kind": "b", "n": 2}, {"kind": "a"}, {"kind": "b", "n": 1, "x": True})
IMPOSSIBLE = (
    {"type": "integer", "enum": ["a", "b"]},
    {"type": "string", "const": 1},
    {"type": "string", "minLength": 3, "maxLength": 2},
    {"type": "integer", "minimum": 5, "maximum": 4},
    {"type": "array", "minItems": 3, "maxItems": 1},
    {"type": "object", "propertyNames": False, "minProperties": 1},
    {"type": "object", "propertyNames": {"type": "integer"}, "required": ["a"]},
    {"type": "object", "propertyNames": {"minLength": 2, "maxLength": 1}, "minProperties": 1},
)
POSSIBLE = (
    {"type": "integer"},
    {"type": "string"},
    {"type": "string", "enum": ["a", "b"]},
    {"type": "object", "additionalProperties": {"type": "integer"}},
    {"type": "object", "propertyNames": {"minLength": 2}, "additionalProperties": {"type": "integer"}},
    {"type": "array", "items": {"type": "integer"}},
)
EMPTY_PATTERNS = ("a*", "(x|)", "b?", "^", "(?:ab)*", "z*$")
SOME_PATTERNS = ("^a", "b", "^[0-9]+", "^[^b]")
UNKNOWN_FORMATS = ("x-color", "semver", "phone", "markdown")


def _maybe(draw: Any, values: tuple[Any, ...]) -> Any:
    return draw(st.one_of(st.none(), st.sampled_from(values)))


@st.composite
def _format_side(draw: Any, fmt: str) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "string"}
    if draw(st.integers(0, 5)) > 0:
        out["format"] = fmt
    drawn = {
        "pattern": _maybe(draw, FORMAT_PATTERNS[fmt]),
        "maxLength": _maybe(draw, FORMAT_LENGTHS[fmt]),
        "minLength": _maybe(draw, FORMAT_LENGTHS[fmt]),
    }
    out.update({kw: value for kw, value in drawn.items() if value is not None})
    if out.get("minLength", 0) > out.get("maxLength", 10**9):
        out["minLength"], out["maxLength"] = out["maxLength"], out["minLength"]
    return out


@st.composite
def _pattern_keys_side(draw: Any, pattern: str) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "patternProperties": {pattern: draw(st.sampled_from(KEY_VALUES))}}
    if draw(st.booleans()):
        out["properties"] = {"id": {"type": "string"}}
    extra = draw(st.sampled_from((False, False, *KEY_VALUES)))
    out["additionalProperties"] = extra
    return out


def _structure(draw: Any, objects: list[dict[str, Any]]) -> dict[str, Any]:
    """The objects as structure: each key's values as a value set, some keys required, closed or not."""
    keys = sorted({k for o in objects for k in o})
    props = {}
    for k in keys:
        values = sorted({o[k] for o in objects if k in o}, key=repr)
        props[k] = {"const": values[0]} if len(values) == 1 else {"enum": values}
    out: dict[str, Any] = {"type": "object", "properties": props}
    required = [k for k in keys if draw(st.booleans())]
    if required:
        out["required"] = required
    closed = draw(st.sampled_from((False, {"type": "integer"}, None)))
    if closed is not None:
        out["additionalProperties"] = closed
    return out


def _values(objects: list[dict[str, Any]]) -> dict[str, Any]:
    return {"const": objects[0]} if len(objects) == 1 else {"enum": objects}


@st.composite
def class_shape(draw: Any) -> tuple[str, Any, Any, bool]:
    """(class, old subschema, new subschema, required) for ``SHAPE``."""
    cls = draw(st.sampled_from(_WEIGHTED))
    required = draw(st.booleans())
    if cls == "format":
        fmt = draw(st.sampled_from(FORMATS))
        old, new = draw(_format_side(fmt)), draw(_format_side(fmt))
        required = required and not ({old.get("maxLength"), new.get("maxLength")} & {35})
    elif cls == "pattern_keys":
        pattern = draw(st.sampled_from(KEY_PATTERNS))
        other = pattern if draw(st.integers(0, 3)) else draw(st.sampled_from(KEY_PATTERNS))
        old, new = draw(_pattern_keys_side(pattern)), draw(_pattern_keys_side(other))
    elif cls == "object_values":
        objects = draw(st.lists(st.sampled_from(OBJECTS), min_size=1, max_size=3, unique_by=repr))
        sides = [_values(objects), _structure(draw, objects)]
        if draw(st.integers(0, 3)) == 0:  # another set of objects
            sides[1] = _values(draw(st.lists(st.sampled_from(OBJECTS), min_size=1, max_size=3, unique_by=repr)))
        old, new = sides if draw(st.booleans()) else sides[::-1]
    elif cls == "impossible":
        old = draw(st.sampled_from(IMPOSSIBLE + POSSIBLE))
        new = draw(st.sampled_from(IMPOSSIBLE if old in POSSIBLE else IMPOSSIBLE + POSSIBLE))
        required = False
    elif cls == "empty_pattern":
        old, new = ({"type": "string"} for _ in range(2))
        for side in (old, new):
            pattern = draw(st.sampled_from((None, *EMPTY_PATTERNS, *EMPTY_PATTERNS, *SOME_PATTERNS)))
            if pattern is not None:
                side["pattern"] = pattern
    else:
        old, new = ({"type": "string"} for _ in range(2))
        for side in (old, new):
            fmt = draw(st.sampled_from((None, *UNKNOWN_FORMATS, *UNKNOWN_FORMATS, "date")))
            if fmt is not None:
                side["format"] = fmt
    return cls, old, new, required


def _graft(model: dict[str, Any], sub: Any, required: bool) -> dict[str, Any]:
    """``model`` (a root object model) with the property ``SHAPE`` whose schema is ``sub`` as it is (``raw``)."""
    out = {**model, "props": {**model["props"], SHAPE: {"k": "raw", "schema": sub}}}
    out["required"] = [*model["required"], *([SHAPE] if required else [])]
    return out


SEEDS = st.integers(0, 2**32 - 1)


@st.composite
def class_pair(draw: Any) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """(old schema, new schema, labels): a mutated tool pair with a ``SHAPE`` property of one class."""
    model = draw(tool_model())
    new_model, labels = draw(mutate(model)) if draw(st.booleans()) else (model, [])
    cls, old_sub, new_sub, required = draw(class_shape())
    old = render(_graft(model, old_sub, required), draw(SEEDS))
    new = render(_graft(new_model, new_sub, required), draw(SEEDS))
    return old, new, [f"class {cls}", *labels]


@st.composite
def equivalent_shape(draw: Any) -> tuple[str, Any, Any]:
    """(class, subschema, an equivalent subschema)."""
    cls = draw(st.sampled_from(("empty_pattern", "unknown_format", "impossible", "object_values")))
    if cls == "empty_pattern":
        base: dict[str, Any] = {"type": "string"}
        if draw(st.booleans()):
            base["minLength"] = 1
        sides = [{**base, "pattern": draw(st.sampled_from(EMPTY_PATTERNS))}, dict(base)]
    elif cls == "unknown_format":
        sides = [{"type": "string", "format": draw(st.sampled_from(UNKNOWN_FORMATS))}, {"type": "string"}]
    elif cls == "impossible":
        sides = [draw(st.sampled_from(IMPOSSIBLE)), draw(st.sampled_from(IMPOSSIBLE))]
    else:
        obj = draw(st.sampled_from(OBJECTS))
        props = {k: {"const": v} for k, v in obj.items()}
        sides = [{"const": obj}, {"type": "object", "properties": props, "required": sorted(obj)}]
        sides[1]["additionalProperties"] = False
    return (cls, *(sides if draw(st.booleans()) else sides[::-1]))


@st.composite
def equivalent_class_pair(draw: Any) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """(schema, an equivalent schema, labels): one tool model rendered twice, each with an equivalent ``SHAPE``."""
    model = draw(tool_model())
    cls, a, b = draw(equivalent_shape())
    required = cls != "impossible" and draw(st.booleans())
    return render(_graft(model, a, required), draw(SEEDS)), render(_graft(model, b, required), draw(SEEDS)), [cls]
