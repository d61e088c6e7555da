"""The typer application, its help formatting, and the one place that maps exceptions to exit codes.

Exit codes: 0 gate passed · 1 gate failed · 2 usage or input error · 3 capture error · 4 internal error.
The report goes to stdout (or ``--output``); progress and errors go to stderr, one line each."""

from __future__ import annotations

import functools
import os
import sys
from typing import Any, Callable

import typer

from mcp_schema_audit import __version__
from mcp_schema_audit.errors import ExitCode, SchemaAuditError, WallClockGuard

app = typer.Typer(
    name="schema-audit",
    help="Find MCP tool schema changes that break hosts holding a cached tools/list.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


class _Command(typer.core.TyperCommand):
    """A command whose ``--help`` shows metavars (``FILE``, ``KEY=VALUE``), never Python type names.

    typer prints ``<list[str]>``, ``<float range>`` or ``<str>`` for a parameter without a metavar,
    and appends that type to every argument even when it has one. Here an option shows its metavar
    (an option declared without one gets its name in capitals, e.g. ``--max-pages MAX_PAGES``) and an
    argument shows its metavar alone, in the help list and in the usage line.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if param.metavar is None and not getattr(param, "is_flag", False) and not getattr(param, "count", False):
                param.metavar = (param.name or "value").upper()

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        return pieces + [param.metavar or (param.name or "").upper()
                         for param in self.get_params(ctx) if param.param_type_name == "argument"]

    def format_options(self, ctx: Any, formatter: Any) -> None:
        arguments, options = [], []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if param.param_type_name == "argument":
                # typer's record is "<metavar> <type>": keep the metavar, drop the type placeholder
                arguments.append((param.metavar or (param.name or "").upper(), record[1]))
            else:
                options.append(record)
        for title, rows in (("Arguments", arguments), ("Options", options)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


def _command(summary: str) -> Callable[[Callable[..., Any]], Any]:
    """``@app.command()`` with the help formatting of :class:`_Command`; ``summary`` is the one line the top-level
    ``--help`` lists (at most ``SUMMARY_CHARS`` characters, so click never cuts it with "...")."""
    if len(summary) > SUMMARY_CHARS:
        raise ValueError(f"command summary longer than {SUMMARY_CHARS} characters: {summary!r}")
    return app.command(cls=_Command, short_help=summary)


#: Longest command summary: what fits beside the longest command name in an 80-column ``--help``.
SUMMARY_CHARS = 60


def _err(message: str) -> None:
    """One line on stderr, control characters escaped."""
    from mcp_schema_audit.report import inert

    sys.stderr.write(f"schema-audit: {' '.join(inert(message).splitlines())}\n")  # one line, whatever it quotes
    sys.stderr.flush()


def _guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run a command body; map SchemaAuditError → its exit code, anything unexpected → 4 (one line)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except typer.Exit:
            raise
        except SchemaAuditError as exc:
            _err(f"error: {exc.one_line()}")
            raise typer.Exit(int(exc.exit_code)) from None
        except KeyboardInterrupt:
            _err("interrupted")
            raise typer.Exit(130) from None
        except WallClockGuard as exc:
            _err(f"error: {exc}; the run was stopped and no report was written (a pathological schema or an "
                 "overloaded machine)")
            raise typer.Exit(int(ExitCode.INTERNAL)) from None
        except Exception as exc:  # a bug: never a traceback unless asked for
            if os.environ.get("SCHEMA_AUDIT_DEBUG"):
                raise
            _err(f"internal error: {type(exc).__name__}: {' '.join(str(exc).split())[:300]} "
                 "(set SCHEMA_AUDIT_DEBUG=1 for a traceback)")
            raise typer.Exit(int(ExitCode.INTERNAL)) from None

    return wrapper


def _version_callback(value: bool) -> None:
    if value:
        sys.stdout.write(f"schema-audit {__version__}\n")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version_callback, is_eager=True,
                                 help="Print the version and exit."),
) -> None:
    """Find MCP tool schema changes that break hosts holding a cached tools/list.

    Exit codes: 0 gate passed, 1 gate failed (findings at or above --fail-on),
    2 usage or input error, 3 capture error, 4 internal error.
    """


def main() -> None:
    """Console-script entry point. Usage errors exit 2 (typer/click); see the module docstring."""
    try:
        code = app(standalone_mode=False)
    except KeyboardInterrupt:  # pragma: no cover - interactive
        _err("interrupted")
        sys.exit(130)
    except Exception as exc:  # click/typer usage errors: one line, exit 2 (their own exit_code)
        if type(exc).__name__ == "NoArgsIsHelpError":
            sys.stderr.write(exc.format_message() + "\n")  # type: ignore[attr-defined]
            sys.exit(2)
        if hasattr(exc, "format_message") and hasattr(exc, "exit_code"):
            ctx = getattr(exc, "ctx", None)
            where = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
            _err(f"error: {exc.format_message()}{where}")
            sys.exit(int(exc.exit_code))
        if type(exc).__name__ == "Abort":
            _err("aborted")
            sys.exit(130)
        raise
    sys.exit(code if isinstance(code, int) else 0)
