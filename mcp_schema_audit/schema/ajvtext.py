"""Validation errors in Ajv's words (Ajv 8 ``errorsText``, English messages), as the TS SDK clients print them.

The TS host profiles validate with ``jsonschema`` classes that read schemas as Ajv does; what they find is
rewritten here into Ajv's own wording (``data/x must NOT have additional properties``), so a user can match
the report with the error their TS host shows. Used by ``probe`` (real results) and the engine's witnesses.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from mcp_schema_audit.jsontext import pointer as json_pointer

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError


def ajv_text(errors: Sequence[ValidationError]) -> str:
    """Ajv's ``errorsText`` for jsonschema ``ValidationError``s: each in Ajv's words (``ajv_message``), a union's
    branch errors before the union's own (``ajv_order``), joined by ``", "``."""
    return ", ".join(ajv_message(e) for e in ajv_order(errors))


def ajv_order(errors: Sequence[ValidationError]) -> list[ValidationError]:
    """Ajv with ``allErrors`` reports every failing keyword, a union's branch errors before the union's own;
    jsonschema nests branch errors in ``context``. Flattened the Ajv way (at most 20 entries)."""
    out: list[ValidationError] = []

    def visit(err: ValidationError) -> None:
        if len(out) >= 20:
            return
        if err.validator in ("anyOf", "oneOf") and err.context:
            for sub in err.context:
                visit(sub)
        out.append(err)

    for err in sorted(errors, key=lambda e: [str(t) for t in e.absolute_schema_path]):
        visit(err)
    return out[:20]


def ajv_message(error: ValidationError) -> str:
    """One jsonschema ``ValidationError`` in Ajv's words, as ``errorsText`` prints it: ``data/a/0 must be string``."""
    path = json_pointer(list(error.absolute_path))
    return f"data{path} {_ajv_text(error)}"


def _ajv_text(error: ValidationError) -> str:
    kw, value = error.validator, error.validator_value
    if kw == "type":
        return "must be " + (",".join(value) if isinstance(value, list) else str(value))
    simple = {
        "additionalProperties": "must NOT have additional properties",
        "unevaluatedProperties": "must NOT have unevaluated properties",
        "enum": "must be equal to one of the allowed values",
        "const": "must be equal to constant",
        "anyOf": "must match a schema in anyOf",
        "oneOf": "must match exactly one schema in oneOf",
        "not": "must NOT be valid",
        "propertyNames": "property name must be valid",
        "false": "boolean schema is false",
    }
    if kw in simple:
        return simple[kw]
    if kw == "required":
        missing = _quoted(error.message)
        return f"must have required property '{missing}'"
    if kw in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        op = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}[kw]
        return f"must be {op} {value}"
    limits = {
        "minLength": ("fewer", "characters"),
        "maxLength": ("more", "characters"),
        "minItems": ("fewer", "items"),
        "maxItems": ("more", "items"),
        "minProperties": ("fewer", "properties"),
        "maxProperties": ("more", "properties"),
    }
    if kw in limits:
        word, unit = limits[kw]
        return f"must NOT have {word} than {value} {unit}"
    if kw == "format":
        return f'must match format "{value}"'
    if kw == "pattern":
        return f'must match pattern "{value}"'
    if kw == "multipleOf":
        return f"must be multiple of {value}"
    if kw == "uniqueItems":
        return "must NOT have duplicate items"
    if kw in ("contains", "minContains", "maxContains"):
        return "must contain at least 1 valid item(s)" if kw != "maxContains" else "must contain at most valid item(s)"
    if kw in ("dependentRequired", "dependencies"):
        return "must have properties when a property is present"
    if kw in ("if", "then", "else"):
        return f'must match "{kw if kw != "if" else "then"}" schema'
    if kw in ("items", "additionalItems", "unevaluatedItems", "prefixItems"):
        return "must NOT have more items"
    return error.message


def _quoted(message: str) -> str:
    """The property name jsonschema quotes first in ``message`` (``'x' is a required property``)."""
    if message.startswith("'") and "'" in message[1:]:
        return message[1 : message.index("'", 1)]
    return message.split(" ")[0]
