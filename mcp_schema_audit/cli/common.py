"""What the commands share besides their options: one-line messages on stderr, reading snapshot references,
the labels and tool filter of a comparison, the progress bar, rendering and writing a report, the exit code of
a gate."""

from __future__ import annotations

import errno
import os
import re
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mcp_schema_audit.errors import ExitCode, UsageError, not_one_of
from mcp_schema_audit.globs import check_count, compiled, shown
from mcp_schema_audit.words import join_words, plural


def err(message: str) -> None:
    """One line on stderr (``schema-audit: …``), control characters escaped; nothing (never an exception) when
    stderr cannot take it (closed, a full disk): the exit code still tells."""
    from mcp_schema_audit.report.escape import inert, no_workflow_commands

    try:  # one line, whatever it quotes; no workflow command in it (a server's stderr is quoted here)
        sys.stderr.write(f"schema-audit: {no_workflow_commands(' '.join(inert(message).splitlines()))}\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass


def parse_pairs(values: Sequence[str], sep: str, what: str) -> dict[str, str]:
    """``NAME<sep>VALUE`` items as a dict (for ``sep`` ``:`` the value is stripped too). Raises ``UsageError``
    naming the flag ``what`` for an item without ``sep`` or with an empty name."""
    out: dict[str, str] = {}
    for item in values:
        if sep not in item:
            raise UsageError(f"{what} must look like NAME{sep}VALUE (got an entry without '{sep}')")
        k, v = item.split(sep, 1)
        k, v = k.strip(), v.strip() if sep == ":" else v
        if not k:
            raise UsageError(f"{what} has an empty name")
        out[k] = v
    return out


def quiet_sdk_logs(verbose: bool) -> None:
    """The SDK logs parse failures of server stdout noise with tracebacks: keep them off stderr unless -v."""
    import logging

    log = logging.getLogger("mcp")
    if verbose:
        logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s")
        for handler in logging.getLogger().handlers:  # httpx logs each request's URL: its query may hold a token
            handler.addFilter(_redacted_urls)
    else:
        log.addHandler(logging.NullHandler())
        log.propagate = False


#: a URL's userinfo (``//user:secret@``) and query values (``?api_key=…``): what -v's SDK and httpx lines redact
_URL_SECRETS = re.compile(r"(//)[^/@\s]+@|([?&][^=&#\s]+=)[^&#\s\"']+")


def _redacted_urls(record: Any) -> bool:
    """A logging filter: the record's message with URL credentials and query values written ``REDACTED`` (docs/
    security.md: secrets are never written to a log, ``-v`` included)."""
    message = record.getMessage()
    redacted = _URL_SECRETS.sub(lambda m: f"{m[1]}REDACTED@" if m[1] else f"{m[2]}REDACTED", message)
    if redacted != message:
        record.msg, record.args = redacted, None
    return True


def write_stdout(text: str) -> None:
    """Write ``text`` to stdout whole, buffered or not: on a real descriptor the bytes go out with ``os.write``
    in a loop, so a short write (a disk filling up, ``RLIMIT_FSIZE``) is retried until the kernel says why it
    cannot take more (``OSError``: ENOSPC, EFBIG). With ``PYTHONUNBUFFERED=1`` the text layer writes to the raw
    file once and drops what a short write did not take; this never does. Raises ``OSError``."""
    stream = sys.stdout
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # no descriptor (an embedding, a test runner's capture)
        stream.write(text)
        stream.flush()
        return
    stream.flush()
    data = memoryview(
        text.encode(getattr(stream, "encoding", None) or "utf-8", getattr(stream, "errors", None) or "strict")
    )
    while data:
        written = os.write(fd, data)
        if written <= 0:  # pragma: no cover - a write of nothing without an error: no progress possible
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        data = data[written:]


_STD_PATHS = {"/dev/stdout": 1, "/dev/stderr": 2}


def descriptor_of(out: str | None) -> int | None:
    """The open descriptor a path names (``-`` and ``/dev/stdout`` → 1, ``/dev/stderr`` → 2, ``/proc/self/fd/N``,
    ``/proc/<this pid>/fd/N`` and ``/dev/fd/N`` → N), else ``None``. Such a path is written through as a
    stream: replacing it atomically would replace the ``/dev/stdout`` symlink (as root: for the whole
    container) and lose the report."""
    if out is None or out == "-":
        return 1
    norm = os.path.normpath(out)
    if norm in _STD_PATHS:
        return _STD_PATHS[norm]
    for prefix in ("/proc/self/fd/", f"/proc/{os.getpid()}/fd/", "/dev/fd/"):
        if norm.startswith(prefix) and norm[len(prefix) :].isdigit():
            return int(norm[len(prefix) :])
    return None


def _write_fd(fd: int, text: str) -> None:
    data = memoryview(text.encode("utf-8"))
    while data:
        written = os.write(fd, data)
        if written <= 0:  # pragma: no cover - no progress without an error
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        data = data[written:]


def write_output(text: str, out: str | None) -> None:
    """Write a report to stdout (``out`` None or ``-``), through an open descriptor (``descriptor_of``:
    ``/dev/stdout``, ``/proc/self/fd/N``) or atomically to the file ``out``. Raises
    ``BrokenPipeError`` when the reader of stdout went away, ``InputError`` when stdout or the file cannot take
    it (a full disk: ``cannot write the report to stdout: No space left on device``)."""
    from mcp_schema_audit.errors import InputError
    from mcp_schema_audit.snapshot import atomic_write_text

    fd = descriptor_of(out) if out is None or out.strip() else None
    if fd is not None:
        where = "stdout" if fd == 1 else f"{out} (descriptor {fd})"
        try:
            if fd == 1:
                write_stdout(text)
            else:
                if fd == 2:
                    sys.stderr.flush()
                _write_fd(fd, text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise InputError(f"cannot write the report to {where}: {exc.strerror or exc}") from None
    elif out is None or not out.strip():
        raise UsageError("--output needs a file name (or - for stdout)")
    else:
        atomic_write_text(Path(out), text)


def render_for(report: Any, fmt: str, output: str | None) -> str:
    """``report`` (a ``Report`` or a ``History``) in ``fmt``: ``text`` in colour on a terminal (unless
    ``NO_COLOR``) and as wide as it; every other format as it is. Raises ``UsageError`` for an unknown format."""
    from mcp_schema_audit.report.formats import FORMATS, RenderOptions, render

    if fmt not in FORMATS:
        raise not_one_of("--format", fmt, list(FORMATS))
    tty = fmt == "text" and output is None and sys.stdout.isatty()
    width = shutil.get_terminal_size((120, 24)).columns if tty else 120
    return render(report, fmt, RenderOptions(color=tty and "NO_COLOR" not in os.environ, width=width))


def gate_exit(passed: bool, fmt: str) -> int:
    """The exit code of a judged run: 0 when the gate passed or the format is not a gate (``ignore``), else 1."""
    from mcp_schema_audit.report.formats import FORMATS

    return int(ExitCode.OK if passed or not FORMATS[fmt].gate else ExitCode.GATE_FAILED)


def load_ref(ref: str, store: Path) -> Any:
    """The ``Snapshot`` a reference names: a label in the store, a snapshot or tools/list file, or
    ``git:REF:PATH``. Raises ``InputError``/``UsageError``."""
    from mcp_schema_audit.gitref import is_git_ref, load_git_snapshot
    from mcp_schema_audit.snapshot import load_snapshot

    return load_git_snapshot(ref) if is_git_ref(ref) else load_snapshot(ref, store=store)


def _ref_parts(ref: str) -> tuple[str, list[str]]:
    """A snapshot reference as (git revision or ``""``, path components with ``.json`` dropped)."""
    rev = ""
    if ref.startswith("git:") and ref.count(":") >= 2:
        rev, ref = ref[4:].split(":", 1)
    parts = [p for p in ref.replace(os.sep, "/").split("/") if p not in ("", ".")]
    if parts and parts[-1].endswith(".json"):
        parts[-1] = parts[-1][: -len(".json")]
    return rev, parts


def distinct_labels(
    old: Any, new: Any, old_ref: str, new_ref: str, old_label: str | None, new_label: str | None
) -> None:
    """Set the labels the reports show for OLD and NEW: ``--old-label``/``--new-label`` when given; else, when
    both carry one label (``a/tools.json``, ``b/tools.json``), the shortest ends of their references that
    tell them apart (``a/tools``, ``b/tools``; for one path at two revisions ``main:tools``, ``HEAD:tools``).
    Raises ``UsageError`` for an empty or multi-line label."""
    for flag, value in (("--old-label", old_label), ("--new-label", new_label)):
        if value is not None and (not value.strip() or len(value.splitlines()) > 1 or len(value) > 200):
            raise UsageError(f"{flag} must be one line of text, 1 to 200 characters (got {value!r})")
    if old_label is None and new_label is None and old.label == new.label:
        (rev_a, a), (rev_b, b) = _ref_parts(old_ref), _ref_parts(new_ref)
        if a != b:  # the shortest ends of the paths that differ
            k = 1
            while k < max(len(a), len(b)) and a[-k:] == b[-k:]:
                k += 1
            old.label, new.label = "/".join(a[-k:]) or old.label, "/".join(b[-k:]) or new.label
        elif rev_a != rev_b:  # one path at two revisions
            old.label, new.label = f"{rev_a or 'worktree'}:{old.label}", f"{rev_b or 'worktree'}:{new.label}"
    old.label = old_label.strip() if old_label is not None else old.label
    new.label = new_label.strip() if new_label is not None else new.label


#: Globs that match no tool named one warning line each; the rest are counted on one more line.
_MISSED_SHOWN = 5


def tool_filter(snaps: list[Any], include: Sequence[str], exclude: Sequence[str]) -> tuple[list[Any], list[str]]:
    """Apply ``--tool``/``--exclude-tool`` to ``snaps``: ``(filtered copies, report notes)``.

    A glob that matches no tool name in any of ``snaps`` is a one-line warning on stderr, not an
    error; filters that leave no tool in scope while the snapshots have tools raise ``UsageError``
    (exit 2: a typo in a CI filter must not pass the gate with "No schema changes"). With no globs the
    snapshots are returned as they are and there is no note.
    """
    from mcp_schema_audit.snapshot import tool_selected

    if not include and not exclude:
        return list(snaps), []
    names = {t["name"] for s in snaps for t in s.tools}
    labels = list(dict.fromkeys(s.label for s in snaps))
    where = join_words((repr(x) for x in labels), "or") if len(labels) <= 3 else f"any of the {len(labels)} snapshots"
    for flag, key, globs in (("--tool", "tools", include), ("--exclude-tool", "exclude_tools", exclude)):
        check_count(globs, f"{flag} (or {key} in the config file)")
        missed = compiled(tuple(globs)).unmatched(names)
        for glob in missed[:_MISSED_SHOWN]:
            err(f"warning: {flag} {glob!r} matches no tool in {where}")
        if len(missed) > _MISSED_SHOWN:
            err(f"warning: {len(missed) - _MISSED_SHOWN} more {flag} globs match no tool in {where}")
    kept = sum(1 for n in names if tool_selected(n, list(include), list(exclude)))
    if names and not kept:
        raise UsageError(
            f"the tool filters leave none of the {plural(len(names), 'tool')} in scope; check --tool/--exclude-tool "
            "(or tools/exclude_tools in the config file)"
        )
    parts = ([f"--tool {shown(include)}"] if include else []) + (
        [f"--exclude-tool {shown(exclude)}"] if exclude else []
    )
    note = f"tool filter ({'; '.join(parts)}): {kept} of {plural(len(names), 'tool')} in scope"
    return [s.filtered(list(include), list(exclude)) for s in snaps], [note]


def checked_budget(seconds: float | None) -> float | None:
    """``--time-budget`` checked: None (the engine's default) or a finite number ≥ 0; raises ``UsageError``."""
    if seconds is None:
        return None
    if not (seconds >= 0) or seconds == float("inf"):
        raise UsageError(f"--time-budget must be a number of seconds ≥ 0 (got {seconds!r})")
    return seconds


def checked_jobs(jobs: int | None) -> int | None:
    """``--jobs`` checked: None (every available core) or an integer ≥ 1, capped at the available cores (with a
    note on stderr: more workers than cores only contend); raises ``UsageError``."""
    if jobs is not None and jobs < 1:
        raise UsageError(f"--jobs must be a number of processes ≥ 1 (got {jobs})")
    cores = available_cores()
    if jobs is not None and jobs > cores:
        err(f"note: --jobs {jobs} capped at the {cores} available cores")
        return cores
    return jobs


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the platform tells it, else ``os.cpu_count``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


class Progress:
    """A rich progress bar on stderr while tools are compared, only when stderr is a terminal (and ``TERM`` is
    not ``dumb``); otherwise nothing at all. Use as a context manager; ``update(done, total)`` is the
    engine's ``progress`` callback (a new pass, e.g. the forward half of ``--mode full`` or the next cohort
    of ``history``, starts again from 0). Refreshed by the callback, never by a thread (the worker pool forks)."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.bar: Any = None
        self.task: Any = None
        self.passes = 0
        self.last = -1
        self.shown = 0.0

    def __enter__(self) -> Progress:
        if sys.stderr.isatty() and os.environ.get("TERM") != "dumb":
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=Console(stderr=True),
                auto_refresh=False,
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task(self.what, total=None)
        return self

    @property
    def callback(self) -> Any:
        """The ``progress(done, total)`` callback, or None when no bar is shown."""
        return self.update if self.bar is not None else None

    def update(self, done: int, total: int) -> None:
        """Show ``done`` of ``total`` (a new pass when ``done`` went back); at most ten redraws a second."""
        if done <= self.last:
            self.passes += 1
        self.last = done
        label = self.what if not self.passes else f"{self.what} (pass {self.passes + 1})"
        self.bar.update(self.task, completed=done, total=total, description=label)
        now = time.monotonic()
        if done == total or now - self.shown >= 0.1:
            self.shown = now
            self.bar.refresh()

    def __exit__(self, *exc: Any) -> None:
        if self.bar is not None:
            self.bar.stop()


def samples_of(path: Path | None) -> Any:
    """The recording ``--samples`` names (``probe.load_recording``), or None. Raises ``InputError`` (exit 2)."""
    if path is None:
        return None
    from mcp_schema_audit.probe import load_recording

    return load_recording(path)


def resolved(config: Path | None, **flags: Any) -> Any:
    """``settings.resolve`` of the flags (``None`` for a repeatable flag not given is taken as none given), the
    config file's warnings printed on stderr first (one line each). Raises ``UsageError``."""
    from mcp_schema_audit.config import load_config
    from mcp_schema_audit.settings import resolve

    cfg = load_config(config)
    for warning in cfg.warnings:
        err(f"warning: {warning}")
    given: dict[str, Any] = {k: (() if v is None and k in _REPEATABLE else v) for k, v in flags.items()}
    return resolve(cfg, **given)


_REPEATABLE = ("hosts", "severity", "tools", "exclude_tools", "servers", "version_sources")
#: A command's parameter name → the ``settings.resolve`` keyword it is (the same name where not listed).
_FLAG_OF = {
    "host": "hosts",
    "tool": "tools",
    "exclude_tool": "exclude_tools",
    "server": "servers",
    "version_source": "version_sources",
}
_FLAGS = (
    "fail_on",
    "mode",
    "host",
    "server_validator",
    "traffic_threshold",
    "severity",
    "store",
    "fmt",
    "tool",
    "exclude_tool",
    "server",
    "version_source",
    "version_gate",
)


def settings_of(options: dict[str, Any], **extra: Any) -> Any:
    """``resolved`` for a command's parameters as they came (``locals()`` of the command function: ``config``
    and whichever of ``fail_on``, ``mode``, ``host``, ``severity``, ``store``, ``fmt``, ``tool``, ``exclude_tool``,
    ``server`` it has), with ``extra`` keywords of ``settings.resolve`` (``formats``, ``config_format``)."""
    flags = {_FLAG_OF.get(name, name): options[name] for name in _FLAGS if name in options}
    return resolved(options.get("config"), **flags, **extra)


def run_limits(time_budget: float | None, jobs: int | None) -> Any:
    """``settings.RunLimits`` of ``--time-budget`` and ``--jobs``, both checked (``UsageError``)."""
    from mcp_schema_audit.settings import RunLimits

    return RunLimits(time_budget=checked_budget(time_budget), jobs=checked_jobs(jobs))
