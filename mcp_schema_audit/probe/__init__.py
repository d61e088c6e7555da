"""``probe``: call a server's tools and check what it really returns, against its own schema and every cached one.

A schema diff proves what *may* break; a probe shows what the server *does* send. The flow:

``plan`` (calls file, ``--auto`` safe tools) ▶ ``capture.calls.probe_server`` (listing, then each call, raw
results tapped off the wire) or a recording (``recording``, ``--replay``) ▶ ``check`` (per host profile:
``hosts``) ▶ findings ▶ policy ▶ ``report`` (``Report(kind="probe")``).

``samples_findings`` lets ``diff`` and ``history`` use a recording as evidence (``--samples``).
"""

from __future__ import annotations

from mcp_schema_audit.findings import Finding
from mcp_schema_audit.probe.check import call_summary, cap_instance, check_records, result_notes
from mcp_schema_audit.probe.recording import Recording, load_recording, write_recording
from mcp_schema_audit.snapshot import Snapshot, canonical_json

__all__ = [
    "Recording",
    "call_summary",
    "cap_instance",
    "check_records",
    "load_recording",
    "samples_findings",
    "write_recording",
]


def samples_findings(recording: Recording, new: Snapshot, cached: Snapshot) -> tuple[list[Finding], list[str]]:
    """Findings from a recording of NEW's results (``--samples``): each recorded result ``new``'s own
    outputSchema rejects, lacks structuredContent for, or that ``cached`` (the version hosts hold) rejects.

    The recorded results are checked against the schemas of the snapshot ``new`` (not the recording's
    listing). Returns ``(findings sorted by tool, direction, pointer, rule; notes)``: a note names the tools
    whose listing in the recording differs from ``new``'s (the recording may not be of NEW) and the calls of
    tools ``new`` does not list (not checked).
    """
    notes: list[str] = []
    recorded = recording.snapshot.tool_map()
    current = new.tool_map()
    differ = sorted(
        name
        for name, tool in recorded.items()
        if name in current and canonical_json(tool) != canonical_json(current[name])
    )
    if differ:
        shown = ", ".join(differ[:5]) + (f" and {len(differ) - 5} more" if len(differ) > 5 else "")
        notes.append(
            f"--samples {recording.source}: the recording's listing of {shown} differs from {new.label}'s: "
            f"was it recorded against {new.label}?"
        )
    records = [r for r in recording.calls if r.get("tool") in current]
    unknown = sorted({str(r.get("tool")) for r in recording.calls if r.get("tool") not in current})
    if unknown:
        notes.append(
            f"--samples {recording.source}: calls of tools {new.label} does not list are not checked: "
            + ", ".join(unknown[:5])
            + (" …" if len(unknown) > 5 else "")
        )
    protocol = recording.snapshot.protocol_version  # the era of the connection the results came on
    findings = check_records(
        new, records, [cached], source="samples", outcomes=False, text_check=False, protocol=protocol
    )
    notes += [
        f"--samples {recording.source}: {note}"
        for note in result_notes(new, records, protocol=protocol, text_check=False)
    ]
    return findings, notes
