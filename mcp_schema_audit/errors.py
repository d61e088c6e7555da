"""Exit codes and the exception hierarchy; the CLI maps every exception to an exit code in one place.

Library code raises these; only ``cli`` formats them (one line on stderr).
"""

from __future__ import annotations

import difflib
import enum
from collections.abc import Sequence


class ExitCode(enum.IntEnum):
    """Process exit codes (README, Exit codes). Stable: CI scripts depend on them."""

    OK = 0  #: gate passed: no finding at or above ``--fail-on``
    GATE_FAILED = 1  #: findings at or above ``--fail-on``
    USAGE = 2  #: bad flags, unreadable or invalid input file
    CAPTURE = 3  #: the server did not start, timed out or broke the protocol
    INTERNAL = 4  #: an unexpected error (a bug in schema-audit)


class SchemaAuditError(Exception):
    """Base class. ``exit_code`` says how the CLI exits; ``hint`` is an optional second sentence."""

    exit_code: ExitCode = ExitCode.INTERNAL

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint

    def one_line(self) -> str:
        """The message and hint as a single line (newlines folded), as printed by the CLI: ``message; hint``
        (a hint is a sentence of its own, often with a parenthesis inside: never wrapped in another one)."""
        text = str(self) if not self.hint else f"{self}; {self.hint}"
        return " ".join(text.split())


class UsageError(SchemaAuditError):
    """A flag or argument is wrong (exit 2)."""

    exit_code = ExitCode.USAGE


def not_one_of(what: str, value: object, allowed: Sequence[str]) -> UsageError:
    """The ``UsageError`` for ``value`` not among ``allowed``: ``--format must be one of text, json, … (got
    'jsno'; did you mean json?)``; the suggestion only when one is close (difflib, cutoff 0.6)."""
    close = difflib.get_close_matches(value, list(allowed), n=1, cutoff=0.6) if isinstance(value, str) else []
    hint = f"; did you mean {close[0]}?" if close else ""
    return UsageError(f"{what} must be one of {', '.join(allowed)} (got {value!r}{hint})")


class InputError(SchemaAuditError):
    """An input file (snapshot, tools/list JSON) is missing, unreadable or of the wrong shape (exit 2)."""

    exit_code = ExitCode.USAGE


class CaptureError(SchemaAuditError):
    """Capturing ``tools/list`` from a server failed (exit 3): start, handshake, timeout, protocol. ``output``:
    the stdio server's stderr lines as kept, cleaned and with secrets masked (printed in full under ``-v``)."""

    exit_code = ExitCode.CAPTURE

    def __init__(self, message: str, *, hint: str | None = None, output: tuple[str, ...] = ()) -> None:
        super().__init__(message, hint=hint)
        self.output = output


class RunTimeExceeded(SchemaAuditError):
    """The last-resort wall-clock guard of a comparison fired (exit 4). Verdicts are bounded by counted work,
    so this means a pathological input or machine, and the run stops instead of changing any finding."""

    exit_code = ExitCode.INTERNAL


class WallClockGuard(BaseException):
    """A last-resort wall-clock guard inside one step (a regex search) fired: the run stops with exit 4.

    A ``BaseException`` so that no "undecided, go on" handler of the engine can turn it into a finding:
    the findings never depend on seconds."""


#: What a handler of "the validator failed" (a panic in the regex engine's Rust code is a ``BaseException``)
#: must let through: interruption, exit, generator close and the last-resort time guard.
MUST_PROPAGATE: tuple[type[BaseException], ...] = (KeyboardInterrupt, SystemExit, GeneratorExit, WallClockGuard)
