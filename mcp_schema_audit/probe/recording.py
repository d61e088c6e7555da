"""Recordings of a probe (``--record``, read back by ``--replay`` and by ``diff``/``history --samples``).

A recording is canonical JSON (sorted keys, indent 2, final newline), written atomically::

    {"format": "schema-audit/probe-recording", "format_version": 1,
     "label": "…", "server": {"name", "title", "version"}, "protocol_version": "…", "transport": "stdio",
     "capabilities": {…},
     "tools": [ the listing's tools, raw, sorted by name ],
     "calls": [ {"id", "tool", "arguments", "outcome", "result" | "error", "sdk_error"?, "duration_s"?, "chars"?} ],
     "meta": {"recorded_at", "schema_audit_version", "sdk_version", "duration_s"}}

``calls[].result`` is each call's raw ``tools/call`` result exactly as the server sent it (``content``,
``structuredContent``, ``isError``, ``_meta`` …): real data from real tools, so treat a recording like
the tools' output itself. Header, environment and URL secret values are never in it: a result or error that
repeats one (a server echoing its token) has it replaced by ``***`` when it is received.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp_schema_audit.errors import InputError
from mcp_schema_audit.snapshot import Snapshot, atomic_write_text, canonical_json, check_tools, read_json_file

FORMAT_ID = "schema-audit/probe-recording"
FORMAT_VERSION = 1
OUTCOMES = (
    "result",
    "rpc-error",
    "timeout",
    "too-large",
    "not-json",
    "not-called",
    "not-listed",
    "cancelled",
    "no-reply",
)


@dataclass
class Recording:
    """What one probe saw: the listing (``snapshot``: label, server, protocol, transport, tools) and the call
    records in call order (``mcp_schema_audit.capture.calls.call_record`` shapes); ``meta`` volatile facts;
    ``source`` the file it was read from (not serialized)."""

    snapshot: Snapshot
    calls: list[dict[str, Any]]
    meta: dict[str, Any] = field(default_factory=dict)
    source: str = ""

    def to_json(self) -> dict[str, Any]:
        """The recording as a JSON-ready dict (see the module docstring)."""
        s = self.snapshot
        return {
            "format": FORMAT_ID,
            "format_version": FORMAT_VERSION,
            "label": s.label,
            "server": s.server,
            "protocol_version": s.protocol_version,
            "transport": s.transport,
            "capabilities": s.capabilities,
            "tools": s.tools,
            "calls": self.calls,
            "meta": self.meta,
        }


def write_recording(recording: Recording, path: Path) -> None:
    """Write ``recording`` to ``path`` as canonical JSON, atomically (an existing file is replaced).

    Raises ``InputError`` when a result holds what JSON cannot carry (NaN, a lone surrogate) or is nested
    too deeply to write; nothing is written then.
    """
    atomic_write_text(path, canonical_json(recording.to_json(), str(path)))


def load_recording(path: Path) -> Recording:
    """Read a recording written by ``--record``. Raises ``InputError`` for a file that is not one (wrong
    ``format``, an unsupported ``format_version``, a tool list that cannot be paired, malformed calls)."""
    return recording_from_data(read_json_file(path), str(path), path.stem)


def is_recording(data: Any) -> bool:
    """True for parsed JSON that says it is a probe recording (``format``)."""
    return isinstance(data, dict) and data.get("format") == FORMAT_ID


def load_against(ref: str, store: Path) -> tuple[Snapshot, list[dict[str, Any]] | None]:
    """What ``probe --against REF`` names: ``(snapshot, None)`` for a store label, a snapshot or tools/list file
    or ``git:REF:PATH``; ``(the recording's listing, its call records)`` for a probe recording (a file or
    ``git:REF:PATH``). Raises ``InputError``/``UsageError`` as ``load_snapshot``/``load_git_snapshot`` do."""
    from mcp_schema_audit.gitref import is_git_ref, read_git_file
    from mcp_schema_audit.snapshot import load_snapshot, parse_json_text, read_file_bytes, snapshot_from_data

    if is_git_ref(ref):
        text = read_git_file(ref)
    elif Path(ref).is_file():
        text = read_file_bytes(Path(ref))
    else:
        return load_snapshot(ref, store=store), None
    data = parse_json_text(text, ref)
    if is_recording(data):
        rec = recording_from_data(data, ref, Path(ref.rsplit(":", 1)[-1]).stem)
        return rec.snapshot, rec.calls
    snap = snapshot_from_data(data, source=ref)
    if not is_git_ref(ref):
        snap.keep_file_text(text)
    return snap, None


def recording_from_data(data: Any, source: str, stem: str) -> Recording:
    """The recording that parsed JSON ``data`` (read from ``source``; ``stem``: the label when it has none) holds.
    Raises ``InputError`` as ``load_recording``."""
    if not isinstance(data, dict) or data.get("format") != FORMAT_ID:
        raise InputError(f"{source}: not a probe recording (written by 'schema-audit probe --record FILE')")
    if data.get("format_version") != FORMAT_VERSION:
        raise InputError(
            f"{source}: recording format_version {data.get('format_version')!r} is not supported "
            f"(this schema-audit reads {FORMAT_VERSION})",
            hint="upgrade schema-audit or record again",
        )
    tools = check_tools(data.get("tools"), source)
    calls = data.get("calls")
    if not isinstance(calls, list):
        raise InputError(f"{source}: 'calls' must be a list")
    ids: set[str] = set()
    for i, call in enumerate(calls):
        if not isinstance(call, dict) or not isinstance(call.get("id"), str) or not isinstance(call.get("tool"), str):
            raise InputError(f"{source}: calls[{i}] needs a string id and tool")
        if call["id"] in ids:
            raise InputError(f"{source}: calls[{i}]: duplicate id {call['id']!r}")
        ids.add(call["id"])
        if call.get("outcome") not in OUTCOMES:
            raise InputError(f"{source}: calls[{i}]: unknown outcome {call.get('outcome')!r}")
        if call["outcome"] == "result" and not isinstance(call.get("result"), dict):
            raise InputError(f"{source}: calls[{i}]: a 'result' outcome needs a result object")
    label = named if isinstance(named := data.get("label"), str) and named else stem
    proto = data.get("protocol_version")
    snap = Snapshot(
        label=label,
        tools=tools,
        server=server if isinstance(server := data.get("server"), dict) else {},
        protocol_version=proto if isinstance(proto, str) else None,
        capabilities=caps if isinstance(caps := data.get("capabilities"), dict) else {},
        transport=str(data.get("transport") or "file"),
        meta={},
        source="",
    )
    meta = facts if isinstance(facts := data.get("meta"), dict) else {}
    return Recording(snapshot=snap, calls=calls, meta=meta, source=source)
