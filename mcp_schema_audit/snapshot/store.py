"""The snapshot store and loading by name: labels → ``<store>/snapshots/<label>.json``, and a reference
(a file path or a label) → a ``Snapshot``.

Snapshots are written into the store with ``atomic.atomic_write_text`` (``cli.capture_cmds``); this module
names the files and reads them back.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from mcp_schema_audit.errors import InputError, UsageError
from mcp_schema_audit.snapshot.forms import snapshot_from_data
from mcp_schema_audit.snapshot.jsonio import parse_json_text, read_file_bytes
from mcp_schema_audit.snapshot.model import Snapshot

#: The store folder when neither ``--store`` nor a config file names one (relative to the current folder).
DEFAULT_STORE = Path(".schema-audit")
_LABEL_RE = re.compile(r"^[A-Za-z0-9_+][A-Za-z0-9._+-]{0,127}\Z")  # \Z: no trailing newline


def is_label(text: str) -> bool:
    """True when ``text`` can name a snapshot in a store (and so a file): 1 to 128 ASCII letters, digits and
    ``. _ + -``, not starting with ``.`` or ``-``, no line break."""
    return bool(_LABEL_RE.match(text or ""))


def check_label(label: str) -> str:
    """Return ``label`` if usable as a store file name (``is_label``). Raises ``UsageError``."""
    if not is_label(label):
        raise UsageError(f"invalid label {label!r}: use letters, digits and . _ + - (not starting with . or -)")
    return label


def store_path(store: Path, label: str) -> Path:
    """Path of the snapshot labelled ``label`` in ``store``: ``<store>/snapshots/<label>.json``. Raises
    ``UsageError`` for a ``label`` that is not one (``check_label``)."""
    return store / "snapshots" / f"{check_label(label)}.json"


def load_snapshot_file(path: Path) -> Snapshot:
    """Load the snapshot (or any accepted input form, see ``forms.snapshot_from_data``) in the file ``path``;
    ``line_of`` gives the line of each tool in the file (for SARIF regions), located on first use. Raises
    ``InputError`` (unreadable file, strict JSON, form)."""
    data = read_file_bytes(path)
    snap = snapshot_from_data(parse_json_text(data, str(path)), source=str(path))
    snap.keep_file_text(data)
    return snap


def load_snapshot(ref: str, *, store: Path = DEFAULT_STORE) -> Snapshot:
    """Load a snapshot named by ``ref``: an existing file path, or else a label in ``store``.

    ``line_of`` locates tools in the file on first use. Raises ``InputError`` when neither
    exists or the content is not an accepted form.
    """
    path = Path(ref)
    if path.is_file():
        return load_snapshot_file(path)
    if is_label(ref):
        stored = store / "snapshots" / f"{ref}.json"
        if stored.is_file():
            return load_snapshot_file(stored)
    if path.exists():
        raise InputError(f"{ref}: not a regular file")
    if ref.endswith(".json") or os.sep in ref or "/" in ref:
        raise InputError(f"{ref}: no such file (and no label {ref!r} in store {store})")
    raise InputError(
        f"no snapshot {ref!r}: not a file, and no label {ref!r} in store {store}",
        hint=f"capture it with: schema-audit snapshot --label {ref} -- <server command>" if is_label(ref) else None,
    )
