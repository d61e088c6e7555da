"""Snapshots: the model, the accepted input forms, strict JSON, the store and atomic writes.

One module per job (each imports only those before it):

- ``lines``: the 1-based line of each tool (or other item) in a JSON file's text, for SARIF and annotations;
- ``model``: the envelope (``Snapshot``, its sections and format versions), tool hashes, tool selection;
- ``jsonio``: strict JSON parsing (``parse_json_text``, ``unique_keys``), bounded file reads, and the
  canonical file form (``canonical_json``);
- ``forms``: which JSON a snapshot is built from (``snapshot_from_data``) and the pairability checks;
- ``atomic``: atomic text writes and the clean-up of stale temporary files;
- ``store``: labels → files in the store, and loading a snapshot by file or label.

This package re-exports the names other modules use (``__all__``), so ``from mcp_schema_audit.snapshot import
Snapshot, load_snapshot`` keeps working; a caller that wants one job only may import its module.
"""

from __future__ import annotations

from mcp_schema_audit.snapshot.atomic import (
    STALE_TEMP_AGE_S,
    TEMP_SUFFIX,
    atomic_write_text,
    remove_stale_temp_files,
    temp_name_pattern,
    temp_prefix,
)
from mcp_schema_audit.snapshot.forms import check_section, check_tools, snapshot_from_data
from mcp_schema_audit.snapshot.jsonio import (
    MAX_INPUT_BYTES,
    DuplicateKeyError,
    canonical_json,
    parse_json_text,
    read_file_bytes,
    read_json_file,
    unique_keys,
)
from mcp_schema_audit.snapshot.lines import locate_tool_lines
from mcp_schema_audit.snapshot.model import (
    CACHED_LISTS,
    FORMAT_ID,
    FORMAT_VERSION,
    LIST_SECTIONS,
    READABLE_VERSIONS,
    SECTIONS,
    Snapshot,
    merge_cache_hints,
    tool_hash,
    tool_selected,
)
from mcp_schema_audit.snapshot.store import (
    DEFAULT_STORE,
    check_label,
    is_label,
    load_snapshot,
    load_snapshot_file,
    store_path,
)

__all__ = [
    "CACHED_LISTS",
    "DEFAULT_STORE",
    "FORMAT_ID",
    "FORMAT_VERSION",
    "LIST_SECTIONS",
    "MAX_INPUT_BYTES",
    "READABLE_VERSIONS",
    "SECTIONS",
    "STALE_TEMP_AGE_S",
    "TEMP_SUFFIX",
    "DuplicateKeyError",
    "Snapshot",
    "atomic_write_text",
    "canonical_json",
    "check_label",
    "check_section",
    "check_tools",
    "is_label",
    "load_snapshot",
    "load_snapshot_file",
    "locate_tool_lines",
    "merge_cache_hints",
    "parse_json_text",
    "read_file_bytes",
    "read_json_file",
    "remove_stale_temp_files",
    "snapshot_from_data",
    "store_path",
    "temp_name_pattern",
    "temp_prefix",
    "tool_hash",
    "tool_selected",
    "unique_keys",
]
