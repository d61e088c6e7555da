"""What a server framework takes although its own listing's JSON Schema refuses it, one keyword at a time.

A framework validates arguments with its own code, not with the JSON Schema it lists, and on some keywords the
two disagree (measured against the real frameworks in ``tests/test_server_validators.py``):

- ``multipleOf`` on a float: jsonschema divides (``0.3 / 0.1`` is ``2.9999999999999996``: "0.3 is not a multiple
  of 0.1"); pydantic-core allows a small remainder, zod 3 compares the two numbers as integers scaled by their
  decimal places and zod 4 the quotient with an integer, within a few epsilons (each ``floatSafeRemainder``): all
  take 0.3 for ``multiple_of=0.1`` / ``.multipleOf(0.1)``. pydantic-core itself is asked
  (``pydantic_core.SchemaValidator``).
- ``uniqueItems``: pydantic lists a ``set[int]`` so, and turns ``[0, 0]`` into ``{0}`` instead of refusing it.
- ``format`` (and the ``type`` beside it): pydantic parses ``date-time``, ``date``, ``time``, ``duration``,
  ``uuid``, ``ipv4``/``ipv6`` fields with its own parsers, which take ``0`` as a datetime, a date-time without an
  offset, ``60`` as a duration, a UUID without dashes, an integer as an IPv4 address: pydantic itself is asked
  (``pydantic.TypeAdapter`` of the field's Python type).
- lax mode (``pydantic_lax``): pydantic-core's own validators of ``int``, ``float`` and ``bool`` say whether a
  value of another type is taken (``"7"``, ``true``, ``"yes"``; not ``" t "`` nor ``"٣"``) and what it becomes,
  and that value meets the field's other keywords or not (``"3"`` for ``ge=5`` is refused).

``takes(wording, error)`` answers for one jsonschema error of the framework's reading (``engine.servers``).
"""

from __future__ import annotations

import functools
import math
import re
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from jsonschema.exceptions import ValidationError


def takes(wording: str, error: ValidationError) -> bool:
    """Does the framework of ``wording`` (``pydantic``, ``zod3``, ``zod4``) accept the value jsonschema refused
    with ``error`` for this keyword (see the module docstring)? False for any other keyword or framework."""
    kw, value, step = error.validator, error.instance, getattr(error, "validator_value", None)
    both: list[Any] = [value, step]
    value_, step_ = (float(x) if _number(x) else math.nan for x in both)
    if kw == "uniqueItems":
        return wording == "pydantic"
    fmt = error.schema.get("format") if isinstance(error.schema, dict) else None
    if wording == "pydantic" and kw in ("format", "type") and fmt in _PYDANTIC_FORMATS:
        return _pydantic_parses(str(fmt), value)
    if kw != "multipleOf" or math.isnan(value_) or math.isnan(step_) or step_ <= 0:
        return False
    integral = isinstance(error.schema, dict) and error.schema.get("type") == "integer"
    if wording == "pydantic":
        if isinstance(value, int) and isinstance(step, int) and integral:
            return False  # an int field: exact, as jsonschema
        return _pydantic_multiple(value, step_)  # a float field takes an int as a float (2**53 + 1 is 2**53)
    if wording == "zod3":
        return _zod3_remainder(value_, step_) == 0
    if wording == "zod4":
        return _zod4_multiple(value_, step_)
    return False


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _pydantic_multiple(value: Any, step: float) -> bool:
    import pydantic_core

    try:
        _float_validator(step).validate_python(value)
    except pydantic_core.ValidationError:
        return False
    return True


@functools.lru_cache(maxsize=256)
def _float_validator(step: float) -> Any:
    from pydantic_core import SchemaValidator, core_schema

    return SchemaValidator(core_schema.float_schema(multiple_of=step))


def _zod4_multiple(value: float, step: float) -> bool:
    """zod 4's ``floatSafeRemainder(val, step) === 0`` (``core/util.ts``): the quotient within 4 epsilons (scaled by
    its size) of an integer."""
    ratio = value / step
    return abs(ratio - round(ratio)) < 4 * 2.220446049250313e-16 * max(abs(ratio), 1.0)


def _zod3_remainder(value: float, step: float) -> float:
    """zod 3's ``floatSafeRemainder(val, step)`` (``types.ts``), in JavaScript's own number texts: the places after
    the point in each number's ``String()`` (``"1.5e+21"`` has five: ``"5e+21"``), both written with ``toFixed`` to
    that many places, the point dropped and read back with ``parseInt`` (``"15e+21"`` is 15), the remainder of the
    two over ``10 ** places`` (NaN for a step that reads as 0)."""
    places = max(_decimals(value), _decimals(step))
    if places > 100:  # toFixed throws past 100 digits: zod's check itself fails
        return math.nan
    as_int = [_js_parse_int(_js_to_fixed(x, places).replace(".", "", 1)) for x in (value, step)]
    if as_int[1] == 0 or math.isnan(as_int[0]) or math.isnan(as_int[1]):
        return math.nan
    return math.fmod(as_int[0], as_int[1]) / 10.0**places


def _decimals(x: float) -> int:
    """The length of what follows the point in JavaScript's ``String(x)`` (``js_string``), 0 without a point."""
    _, point, after = js_string(x).partition(".")
    return len(after) if point else 0


def js_string(x: float) -> str:
    """JavaScript's ``String(x)`` of a finite double (ECMA-262 ``Number::toString``): the shortest digits, which
    ``repr`` spells too, in plain notation from 1e-6 up to below 1e21, in exponent form beyond (``7e-7``,
    ``1.5e+21``); ``repr`` switches below 1e-4 and from 1e16."""
    if x == 0:
        return "0"
    if x < 0:
        return "-" + js_string(-x)
    _, dig, exp = Decimal(repr(x)).normalize().as_tuple()
    digits = "".join(map(str, dig))
    k = len(digits)
    n = k + int(exp)  # x = 0.digits × 10**n
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * -n + digits
    e = n - 1
    return digits[0] + ("." + digits[1:] if k > 1 else "") + ("e+" if e >= 0 else "e-") + str(abs(e))


def _js_to_fixed(x: float, places: int) -> str:
    """JavaScript's ``x.toFixed(places)``: ``String(x)`` from 1e21 on, else the exact value rounded half away from
    zero (the larger n of a tie) to ``places`` digits after the point."""
    if abs(x) >= 1e21:
        return js_string(x)
    q = abs(Decimal(x)).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    text = f"{q:f}"
    return ("-" + text) if x < 0 and q != 0 else text


def _js_parse_int(text: str) -> float:
    """JavaScript's ``parseInt(text)``: an optional sign and the digits that follow, as the nearest double; NaN
    without a digit."""
    m = _LEADING_INT.match(text.strip())
    return float(int(m.group(0))) if m else math.nan


_LEADING_INT = re.compile(r"[+-]?[0-9]+")


#: The Python type pydantic lists with each ``format`` (``model_json_schema``), whose own parser decides.
_PYDANTIC_FORMATS = {
    "date-time": "datetime.datetime",
    "date": "datetime.date",
    "time": "datetime.time",
    "duration": "datetime.timedelta",
    "uuid": "uuid.UUID",
    "ipv4": "ipaddress.IPv4Address",
    "ipv6": "ipaddress.IPv6Address",
}


def _pydantic_parses(fmt: str, value: Any) -> bool:
    import pydantic

    try:
        _adapter(fmt).validate_python(value)
    except (pydantic.ValidationError, ValueError, TypeError):
        return False
    return True


@functools.lru_cache(maxsize=16)
def _adapter(fmt: str) -> Any:
    import importlib

    import pydantic

    module, name = _PYDANTIC_FORMATS[fmt].rsplit(".", 1)
    return pydantic.TypeAdapter(getattr(importlib.import_module(module), name))


#: What ``pydantic_lax`` returns for a value pydantic does not take.
NOT_TAKEN = object()


def pydantic_lax(error: ValidationError) -> Any:
    """The value pydantic's lax mode makes of ``error``'s instance where jsonschema refused its ``type``
    (pydantic-core's own ``int``/``float``/``bool`` validators: ``"7"`` → 7, ``true`` → 1, ``"yes"`` → True), or
    the instance itself for an ``enum``/``const`` it lists under Python's ``==`` (``Literal[1]`` takes ``true``
    and ``1.0``); ``NOT_TAKEN`` otherwise."""
    value_of = getattr(error, "validator_value", None)
    if error.validator in ("enum", "const"):
        listed = value_of if error.validator == "enum" and isinstance(value_of, list) else [value_of]
        scalar = (bool, int, float)
        taken = type(error.instance) in scalar and any(type(v) in scalar and v == error.instance for v in listed)
        return error.instance if taken else NOT_TAKEN
    if error.validator != "type" or isinstance(error.instance, (dict, list)) or error.instance is None:
        return NOT_TAKEN
    import pydantic_core

    for wanted in value_of if isinstance(value_of, list) else [value_of]:
        if wanted not in ("integer", "number", "boolean"):
            continue
        try:
            return _core(str(wanted)).validate_python(error.instance)
        except pydantic_core.ValidationError:
            continue
    return NOT_TAKEN


@functools.lru_cache(maxsize=4)
def _core(wanted: str) -> Any:
    from pydantic_core import SchemaValidator, core_schema

    schema: Any = {"integer": core_schema.int_schema, "number": core_schema.float_schema}.get(wanted)
    return SchemaValidator((schema or core_schema.bool_schema)())


def refusals_after(error: ValidationError, value: Any) -> list[ValidationError]:
    """The errors of ``error``'s schema, but for its ``type`` and the keyword lax mode answered (``enum``), on
    ``value`` (what pydantic made of the refused instance), at ``error``'s place: the bounds and steps a
    lax-mode value must still meet. [] when there are none, or the schema cannot be run alone (a ``$ref``)."""
    from collections import deque

    from jsonschema.validators import validator_for

    schema = error.schema
    if not isinstance(schema, dict):
        return []
    rest = {k: v for k, v in schema.items() if k not in ("type", error.validator)}  # what lax mode answered
    try:
        found = list(validator_for(rest)(rest).iter_errors(value))
    except Exception:  # a $ref outside this schema, a malformed keyword: nothing more is told
        return []
    for e in found:
        e.path = deque([*error.absolute_path, *e.path])
    return found
