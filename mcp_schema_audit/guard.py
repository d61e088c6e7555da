"""The last-resort wall-clock guard of a comparison, checked inside the work of one tool, not only between tools.

Verdicts are bounded by counted work (``engine.meter.WORK_BUDGET`` node pairs, ``VALIDATION_BUDGET``
validations, the sampler's and the text deltas' own counts), never by seconds. This guard is the backstop for a
pathological input or machine: ``diff`` arms it with ``--time-budget`` (``armed``), and the engine's hot loops
call ``check()`` (the walk's node pairs, validations, the sampler, declared keys, word deltas). Past the
deadline ``check`` raises ``TimeBudgetExceeded``, a ``WallClockGuard`` (a ``BaseException``: no "undecided, go
on" handler turns it into a finding), and the run stops with exit 4 and no report. A forked worker inherits
the armed deadline. Imports nothing of the package but its errors.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

from mcp_schema_audit.errors import WallClockGuard

#: ``check()`` calls between two reads of the clock (a read costs more than the count).
CHECK_EVERY = 64

_deadline: float | None = None
_budget = 0.0
_calls = 0


class TimeBudgetExceeded(WallClockGuard):
    """``--time-budget`` ran out inside one tool's work (exit 4, no report)."""


@contextlib.contextmanager
def armed(budget_s: float) -> Iterator[None]:
    """Arm the guard for ``budget_s`` seconds from now (``0`` or negative: no guard) for the ``with`` block."""
    global _deadline, _budget
    before = (_deadline, _budget)
    _deadline, _budget = (time.monotonic() + budget_s if budget_s > 0 else None), budget_s
    try:
        yield
    finally:
        _deadline, _budget = before


def check() -> None:
    """Raise ``TimeBudgetExceeded`` when the armed deadline has passed (the clock is read every ``CHECK_EVERY``
    calls); nothing when no guard is armed."""
    global _calls
    if _deadline is None:
        return
    _calls += 1
    if _calls % CHECK_EVERY == 0 and time.monotonic() > _deadline:
        raise TimeBudgetExceeded(
            f"the comparison ran longer than {seconds_text(_budget)} s inside one tool (the --time-budget guard; "
            "rerun with --time-budget 0 to wait for it, or report the input)"
        )


def seconds_text(seconds: float) -> str:
    """``seconds`` as a user wrote it: ``0.00001``, ``900``, ``2.5`` (never ``1e-05``), to the microsecond."""
    return f"{seconds:.6f}".rstrip("0").rstrip(".") or "0"
