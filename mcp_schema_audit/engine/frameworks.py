"""What a server framework takes although its own listing's JSON Schema refuses it, one keyword at a time.

A framework validates arguments with its own code, not with the JSON Schema it lists, and on some keywords the
two disagree (measured against the real frameworks in ``tests/test_server_validators.py``):

- ``multipleOf`` on a float: jsonschema divides (``0.3 / 0.1`` is ``2.9999999999999996``: "0.3 is not a multiple
  of 0.1"); pydantic-core allows a small remainder, zod 3 compares the two numbers as integers scaled by their
  decimal places and zod 4 the quotient with an integer, within a few epsilons (each ``floatSafeRemainder``): all
  take 0.3 for ``multiple_of=0.1`` / ``.multipleOf(0.1)``. pydantic-core itself is asked
  (``pydantic_core.SchemaValidator``).
- ``uniqueItems``: pydantic lists a ``set[int]`` so, and turns ``[0, 0]`` into ``{0}`` instead of refusing it.

``takes(wording, error)`` answers for one jsonschema error of the framework's reading (``engine.servers``).
"""

from __future__ import annotations

import functools
import math
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
    if kw != "multipleOf" or math.isnan(value_) or math.isnan(step_) or step_ <= 0:
        return False
    if isinstance(value, int) and isinstance(step, int):
        return False  # exact in every reading
    if wording == "pydantic":
        return _pydantic_multiple(value_, step_)
    if wording == "zod3":
        return _zod3_remainder(value_, step_) == 0
    if wording == "zod4":
        return _zod4_multiple(value_, step_)
    return False


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _pydantic_multiple(value: float, step: float) -> bool:
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
    """zod 3's ``floatSafeRemainder(val, step)`` (``types.ts``): the decimal places of each number's shortest text,
    both scaled to integers with that many places, their remainder (NaN for a step that scales to 0)."""
    places = max(_decimals(value), _decimals(step))
    if places > 300:
        return math.fmod(value, step)
    as_int = [int(f"{x:.{places}f}".replace(".", "")) for x in (value, step)]
    if as_int[1] == 0:
        return math.nan
    return float((as_int[0] % as_int[1]) / 10**places)


def _decimals(x: float) -> int:
    """Digits after the point in JavaScript's ``String(x)`` (``repr`` spells the same shortest digits; an
    exponent form has none after a point for zod either)."""
    text = repr(x)
    if "e" in text or "E" in text:
        return 0
    return len(text.split(".")[1]) if "." in text else 0
