"""The typer application, its help formatting, and the one place that maps exceptions to exit codes.

Exit codes: 0 gate passed · 1 gate failed · 2 usage or input error · 3 capture error · 4 internal error.
The report goes to stdout (or ``--output``); progress and errors go to stderr, one line each."""

from __future__ import annotations

import difflib
import errno
import functools
import importlib
import os
import sys
import time
from collections.abc import Callable
from typing import Any

import typer

from mcp_schema_audit import IMPORTED_AT, __version__
from mcp_schema_audit.cli.common import err
from mcp_schema_audit.errors import ExitCode, SchemaAuditError, WallClockGuard

_clock: dict[str, float] = {}


def run_started() -> float:
    """When this command started (``time.monotonic()``): the process start under ``main()``, else (an
    in-process runner) the command's own start. ``--timeout`` counts from here."""
    return _clock.get("run", time.monotonic())


#: The commands, in the order the top-level ``--help`` lists them: capture, then judge, then the catalog.
COMMAND_ORDER = (
    "snapshot",
    "demo",
    "probe",
    "record",
    "check",
    "diff",
    "history",
    "lint",
    "schema",
    "rules",
    "explain",
)


class _Group(typer.core.TyperGroup):
    """The command group: lists its commands in ``COMMAND_ORDER`` (any other after them, by name)."""

    def list_commands(self, ctx: Any) -> list[str]:
        names = super().list_commands(ctx)
        rank = {name: i for i, name in enumerate(COMMAND_ORDER)}
        return sorted(names, key=lambda n: (rank.get(n, len(rank)), n))


app = typer.Typer(
    cls=_Group,
    name="schema-audit",
    help="Find MCP tool schema changes that break hosts holding a cached tools/list.",
    epilog=(
        "Exit codes: 0 gate passed; 1 gate failed (a finding at or above --fail-on); 2 usage or input error; 3 "
        "capture error; 4 internal error; 130/143 interrupted/terminated. Each command's --help gives its own."
    ),
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
        return pieces + [
            param.metavar or (param.name or "").upper()
            for param in self.get_params(ctx)
            if param.param_type_name == "argument"
        ]

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


#: The exit codes a command's ``--help`` ends with (docs/cli.md, "Exit codes", has the whole table)
def gate_exits(*, live: bool, budget: bool) -> str:
    """The exit codes of a gating command: ``live`` when it starts or calls a server (3), ``budget`` when it has
    ``--time-budget`` (its guard is exit 4)."""
    capture = "; 3 capture error (the server could not be started, listed or called)" if live else ""
    guard = ", or the --time-budget guard fired" if budget else ""
    return (
        "0 no finding at or above --fail-on; 1 the gate failed (a finding at or above it); 2 usage or input "
        f"error{capture}; 4 internal error{guard}; 130/143 interrupted/terminated."
    )


CAPTURE_EXITS = (
    "0 captured; 2 usage or input error (a snapshot that exists without --force); 3 capture error (the "
    "server could not be started or listed); 4 internal error; 130/143 interrupted/terminated."
)
CATALOG_EXITS = "0 printed; 2 usage error (an unknown name or rule id, no such finding in the report)."
SCHEMA_EXITS = "0 printed; 2 usage error (an unknown schema name)."
RULES_EXITS = "0 printed; 2 usage error (an unknown --format)."


def command(summary: str, help: str | None = None, *, exits: str) -> Callable[[Callable[..., Any]], Any]:
    """Register a command on ``app``: ``summary`` is the one line the top-level ``--help`` lists (at most
    ``SUMMARY_CHARS`` characters, so click never cuts it with "..."), ``help`` the command's own ``--help`` text
    (default: its docstring);
    the help formatting of :class:`_Command`; every exception of the body mapped to its exit code (``guarded``);
    ``exits`` the command's exit codes, one sentence its ``--help`` ends with (``GATE_EXITS`` and friends)."""
    if len(summary) > SUMMARY_CHARS:
        raise ValueError(f"command summary longer than {SUMMARY_CHARS} characters: {summary!r}")

    def register(fn: Callable[..., Any]) -> Any:
        return app.command(cls=_Command, short_help=summary, help=help, epilog=f"Exit codes: {exits}")(guarded(fn))

    return register


#: Longest command summary: what fits beside the longest command name in an 80-column ``--help``.
SUMMARY_CHARS = 60


class _ClosedStdout:
    """Stands for a stdout the caller closed (``>&-``, Python's ``sys.stdout`` is None): writing to it is a reader
    gone away (``BrokenPipeError``: exit 141, quietly), and a command that writes nothing there is unaffected."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "stdout is closed")

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        raise OSError(9, "stdout is closed")


class _ClosedStderr(_ClosedStdout):
    """Stands for a closed stderr: what would go there is dropped (the exit code still tells)."""

    def write(self, text: str) -> int:
        return len(text)


#: errno values of a write that found no room (a full disk or quota, a file size limit)
_FULL = {getattr(errno, name) for name in ("ENOSPC", "EDQUOT", "EFBIG") if hasattr(errno, name)}


def guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run a command body; every exception it raises becomes one line on stderr and its exit code
    (``exit_code_of``)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except typer.Exit:
            raise
        except BaseException as exc:
            code = exit_code_of(exc)
            if code is None:
                raise
            raise typer.Exit(code) from None

    return wrapper


def exit_code_of(exc: BaseException) -> int | None:
    """The one place that maps an exception to an exit code (after saying what happened in one line on stderr):
    a ``SchemaAuditError`` its own code, Ctrl-C 130, SIGTERM 143, a closed stdout 141, no room to write 2, the
    last-resort time guard 4, a click usage error its own code (2), anything else 4 (a bug; never a traceback
    unless ``SCHEMA_AUDIT_DEBUG`` is set). ``None``: let it propagate (``SystemExit``, or a bug under
    ``SCHEMA_AUDIT_DEBUG``)."""
    if isinstance(exc, SchemaAuditError):
        err(f"error: {exc.one_line()}")
        return int(exc.exit_code)
    if isinstance(exc, KeyboardInterrupt):
        return _interrupted(exc)
    if isinstance(exc, BrokenPipeError):  # the reader of stdout went away (`| head -1`): end quietly
        return _stdout_closed()
    if isinstance(exc, OSError) and exc.errno in _FULL:
        return _no_room(exc)
    if isinstance(exc, WallClockGuard):
        err(
            f"error: {exc}; the run was stopped and no report was written (a pathological schema or an "
            "overloaded machine)"
        )
        return int(ExitCode.INTERNAL)
    if isinstance(exc, typer.Abort):
        err("aborted")
        return 130
    if isinstance(exc, _CLICK.ClickException):
        return _usage_error(exc)
    if isinstance(exc, SystemExit) or not isinstance(exc, Exception) or os.environ.get("SCHEMA_AUDIT_DEBUG"):
        return None
    err(
        f"internal error: {type(exc).__name__}: {' '.join(str(exc).split())[:300]} "
        "(set SCHEMA_AUDIT_DEBUG=1 for a traceback)"
    )
    return int(ExitCode.INTERNAL)


def _usage_error(exc: Any) -> int:
    """A click/typer usage error in one line (``see 'schema-audit diff --help'``), with the fix for a server
    option given before ``--``; its own exit code (2)."""
    if isinstance(exc, _NO_ARGS_IS_HELP):
        sys.stderr.write(exc.format_message() + "\n")
        return 2
    ctx = getattr(exc, "ctx", None)
    hint = _server_command_hint(exc, sys.argv[1:])
    if hint:  # not click's "Possible options": the option is the server's, not ours
        err(f"error: no such option of schema-audit: {getattr(exc, 'option_name', '')}{hint}")
    else:
        message = _no_such_option(exc, ctx) or exc.format_message()
        err(f"error: {message}" + (f" (see '{ctx.command_path} --help')" if ctx is not None else ""))
    return int(exc.exit_code)


def _no_such_option(exc: Any, ctx: Any) -> str | None:
    """``No such option: --fail-onn (did you mean --fail-on?)`` for an unknown long option, the suggestions drawn
    from the command's own options by their names without dashes (click compares them with the dashes, so
    ``--bogus`` came back with ``--host, --jobs, --out``); no suggestion when none is close. ``None`` for any
    other usage error."""
    if not isinstance(exc, _CLICK.NoSuchOption) or ctx is None or not exc.option_name.startswith("--"):
        return None
    typed = exc.option_name[2:].split("=", 1)[0]
    names = sorted({o for p in ctx.command.params for o in getattr(p, "opts", []) if o.startswith("--")})
    bare = {n[2:]: n for n in names}
    close = [bare[n] for n in bare if n.startswith(typed) and len(typed) >= 3]
    close += [bare[n] for n in difflib.get_close_matches(typed, list(bare), n=3, cutoff=0.75) if bare[n] not in close]
    hint = f" (did you mean {', '.join(close[:3])}?)" if close else ""
    return f"No such option: {exc.option_name}{hint}"


#: The click typer runs on: typer 0.28 vendors its own copy (``typer._click``), older typers use click itself;
#: its exceptions are found through one typer exports, so ``isinstance`` works with either
_CLICK: Any = importlib.import_module(typer.BadParameter.__module__)
#: ``schema-audit`` with no command prints the help and exits 2 (click 8.2+ raises this; older clicks none)
_NO_ARGS_IS_HELP: Any = getattr(_CLICK, "NoArgsIsHelpError", ())


#: exit code after the reader of stdout went away: 128 + SIGPIPE, what a shell shows for ``yes | head -1``
PIPE_CLOSED_EXIT = 141


def _stdout_closed() -> int:
    """Point stdout at /dev/null so that no later flush fails again (nothing is printed), return 141."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no real file descriptor (an embedding, a test runner): nothing to protect
        pass
    return PIPE_CLOSED_EXIT


def _version_callback(value: bool) -> None:
    if value:
        sys.stdout.write(f"schema-audit {__version__}\n")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version_callback, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Find MCP tool schema changes that break hosts holding a cached tools/list.

    Exit codes: 0 gate passed, 1 gate failed (findings at or above --fail-on),
    2 usage or input error, 3 capture error, 4 internal error.
    """
    _clock["run"] = _clock.get("main", time.monotonic())


def _server_command_hint(exc: Exception, argv: list[str]) -> str:
    """For ``snapshot --label x python -m mod`` (a server command whose own options reach ours because ``--``
    is missing): `` (the server command goes after --: schema-audit snapshot --label x -- python -m mod)``.
    ``""`` for any other error."""
    import shlex

    ctx = getattr(exc, "ctx", None)
    command = getattr(ctx, "command", None)
    if not isinstance(exc, _CLICK.NoSuchOption) or command is None or command.name not in ("snapshot", "probe"):
        return ""
    if "--" in argv or command.name not in argv:
        return ""
    tokens = argv[argv.index(command.name) + 1 :]
    takes_value = {
        opt
        for p in command.params
        if getattr(p, "param_type_name", "") == "option"
        and not getattr(p, "is_flag", False)
        and not getattr(p, "count", False)
        for opt in p.opts
    }
    j = 0
    while j < len(tokens) and tokens[j].startswith("-"):
        j += 2 if tokens[j] in takes_value else 1
    if j >= len(tokens) or getattr(exc, "option_name", None) not in tokens[j:]:
        return ""  # no server command before the unknown option: a plain typo of ours
    fixed = shlex.join([command.name, *tokens[:j], "--", *tokens[j:]])
    return f" (the server command goes after --, with its own options: schema-audit {fixed})"


class Terminated(KeyboardInterrupt):
    """SIGTERM (``timeout``, a CI job cancelled) or SIGHUP (a closed terminal) taken as Ctrl-C is: the same
    clean-up (a stdio server and its process group stopped, no half-written file), then exit 143 (128 + SIGTERM)."""


def _interrupted(exc: KeyboardInterrupt) -> int:
    """Say how the run was stopped (one line) and return its exit code: 143 for SIGTERM, 130 for Ctrl-C."""
    terminated = isinstance(exc, Terminated)
    err("terminated" if terminated else "interrupted")
    return 143 if terminated else 130


def _no_room(exc: OSError) -> int:
    """Say that the output found no room (a full disk: only writes raise these errnos) and return exit code 2.
    stdout then points at /dev/null, so that the text left in its buffer does not fail once more at exit (an
    "Exception ignored" line and exit 120)."""
    err(f"error: cannot write the output: {exc.strerror or exc}")
    _stdout_closed()
    return int(ExitCode.USAGE)


def _flush_or_exit() -> None:
    """Flush stdout; a write that finds no room (``_FULL``) or a closed reader ends the run with its exit code
    (2, 141) and one line, as every other write to stdout does."""
    try:
        sys.stdout.flush()
    except OSError as exc:
        mapped = exit_code_of(exc)
        if mapped is None:
            raise
        sys.exit(mapped)


def _on_sigterm(signum: int, frame: Any) -> None:
    import signal

    signal.signal(signum, signal.SIG_DFL)  # a second SIGTERM (or SIGHUP) ends the process at once
    raise Terminated()


def main() -> None:
    """Console-script entry point. Usage errors exit 2 (typer/click); see the module docstring."""
    _clock["main"] = IMPORTED_AT
    import atexit
    import signal
    import warnings

    # a stranger's pattern (``[[:alpha:]]``, ``[a--b]``) makes re's parser warn on stderr wherever it is compiled
    # (normalizing, jsonschema's "regex" format, the sampler): two lines each, echoed into the Action's log
    warnings.filterwarnings("ignore", message=r"Possible (nested set|set \w)", category=FutureWarning)

    signal.signal(signal.SIGTERM, _on_sigterm)
    if hasattr(signal, "SIGHUP"):  # a closed terminal or session: the same clean-up (the server stopped), exit 143
        signal.signal(signal.SIGHUP, _on_sigterm)
    if sys.stdout is None:
        sys.stdout = _ClosedStdout()
    if sys.stderr is None:
        sys.stderr = _ClosedStderr()
    import gc

    # Interpreter shutdown would otherwise collect every object of the SDK, pydantic and httpx once more
    # (0.2-0.3 s on a busy machine, after a timeout too): nothing left needs it, every file is closed.
    atexit.register(gc.freeze)
    stdout = sys.stdout
    try:
        code = app(standalone_mode=False)
        sys.stdout.flush()  # here, not at interpreter exit, so that a closed pipe is caught below
    except SystemExit as exc:
        # click itself catches EPIPE (in --help, --version), wraps stdout and exits 1: 1 means "gate failed"
        # here, so give the closed pipe its own code
        if sys.stdout is not stdout:
            sys.exit(_stdout_closed())
        _flush_or_exit()  # --help and --version print into the buffer: a full disk is found here, not at exit
        raise exc from None
    except BaseException as exc:
        mapped = exit_code_of(exc)
        if mapped is None:
            raise
        sys.exit(mapped)
    sys.exit(code if isinstance(code, int) else 0)
