"""Atomic text writes (a temporary file in the target's folder, fsync, rename) and the clean-up of the temporary
files a killed writer left behind.

Every file schema-audit writes goes through ``atomic_write_text``: snapshots (``store``), probe recordings
and ``--output`` reports. A crash or a kill never leaves a half-written target.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import secrets
import stat
import time
from pathlib import Path

from mcp_schema_audit.errors import InputError

#: Temporary files of :func:`atomic_write_text` are named ``.<target name>.<12 hex>.schema-audit.tmp``
#: (``.<first 96 characters>~<8 hex of the whole name>`` for target names longer than 128 characters).
TEMP_SUFFIX = ".schema-audit.tmp"
#: A temporary file of the same target older than this (seconds since its last modification) is left
#: over from a killed writer and is removed by the next write of that target.
STALE_TEMP_AGE_S = 3600.0
_TEMP_TOKEN_RE = r"[0-9a-f]{12}"


def temp_prefix(name: str) -> str:
    """What the names of the temporary files of a target file named ``name`` start with: ``"." + name``, or for a
    name longer than 128 characters ``"." + name[:96] + "~" + 8 hex digits of its sha256`` (106 characters, so
    that a temporary file's name, the prefix and 30 more characters, is not much longer than its target's)."""
    if len(name) <= 128:
        return f".{name}"
    return f".{name[:96]}~{hashlib.sha256(name.encode('utf-8', 'surrogateescape')).hexdigest()[:8]}"


def temp_name_pattern(path: Path) -> re.Pattern[str]:
    """The regex the names of ``path``'s temporary files match (another target's temporary files do not)."""
    return re.compile(re.escape(temp_prefix(path.name)) + r"\." + _TEMP_TOKEN_RE + re.escape(TEMP_SUFFIX) + r"\Z")


def remove_stale_temp_files(path: Path, *, max_age_s: float = STALE_TEMP_AGE_S, now: float | None = None) -> list[Path]:
    """Delete temporary files that a killed :func:`atomic_write_text` of ``path`` left in ``path``'s folder.

    Only regular files (never symlinks or folders) whose name matches :func:`temp_name_pattern` and
    whose modification time is more than ``max_age_s`` seconds before ``now`` (default: the current
    time, seconds since the epoch) are removed. A running write finishes within seconds and its file's
    time moves with every write, so it is not touched; should a writer stall for longer than
    ``max_age_s``, its final rename fails (``InputError``) and the target stays as it was. Returns the
    removed paths. Never raises: a folder that cannot be listed or a file that cannot be removed is
    skipped.
    """
    pattern = temp_name_pattern(path)
    limit = (time.time() if now is None else now) - max_age_s
    removed: list[Path] = []
    try:
        entries = list(os.scandir(path.parent))
    except OSError:
        return removed
    for entry in entries:
        if not pattern.match(entry.name):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISREG(info.st_mode) and info.st_mtime < limit:
                os.unlink(entry.path)
                removed.append(Path(entry.path))
        except OSError:
            continue
    return removed


def _create_temp(path: Path) -> tuple[int, str]:
    """Create and open a new temporary file next to ``path``; returns ``(fd, name)``.

    The file is created with mode 0o666 so that the kernel applies the umask (and a default ACL of the
    folder), as for any file a program creates. Raises ``OSError``.
    """
    prefix = temp_prefix(path.name)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(100):
        name = str(path.parent / f"{prefix}.{secrets.token_hex(6)}{TEMP_SUFFIX}")
        try:
            return os.open(name, flags, 0o666), name
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", str(path.parent))


def atomic_write_text(path: Path, text: str, *, exclusive: bool = False) -> None:
    """Write ``text`` (UTF-8, ``\\n`` line ends) to ``path`` atomically: a temporary file in the same
    folder, fsync, rename.

    A crash or a kill at any point leaves the old file intact (and at worst a temporary file named
    ``.<name>.<12 hex>.schema-audit.tmp``, see :func:`temp_name_pattern`); before writing, temporary
    files of the same target older than ``STALE_TEMP_AGE_S`` seconds are removed. Permissions: a new
    file gets mode 0o666 minus the umask (0o644 with umask 022), like any file a program creates; a
    replaced file keeps its mode. Creates missing parent folders. An existing target that is not a
    regular file or a folder (``/dev/null``, a FIFO, a terminal) is written to directly, never
    replaced. ``exclusive``: never replace an existing ``path``, even one that appeared while the text
    was prepared (the temporary file is hard-linked into place, which fails if the name exists): a
    concurrent writer of the same snapshot label loses with ``InputError`` instead of silently
    overwriting. Raises ``InputError`` (naming ``path`` and the OS reason) when the folder or the file
    cannot be written.
    """
    try:
        if stat.S_ISCHR(os.stat(path).st_mode) or stat.S_ISFIFO(os.stat(path).st_mode):
            with open(path, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
            return
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from exc
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_temp_files(path)
        try:
            old_mode: int | None = stat.S_IMODE(os.stat(path).st_mode)
        except FileNotFoundError:
            old_mode = None
        fd, tmp = _create_temp(path)
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            if old_mode is not None:
                os.chmod(fh.fileno() if os.chmod in os.supports_fd else tmp, old_mode)
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        if exclusive:
            try:
                os.link(tmp, path)
            except FileExistsError:
                raise InputError(
                    f"{path} appeared while this snapshot was being captured (another capture of "
                    "the same label?); pass --force to replace it"
                ) from None
            except OSError as exc:  # a file system without hard links: the check before capture must do
                if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK) or path.exists():
                    raise
                os.replace(tmp, path)
            else:
                os.unlink(tmp)
        else:
            os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise InputError(f"cannot write {path}: {exc.strerror or exc}") from exc
        raise
