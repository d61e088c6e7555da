"""``--traffic``: real calls (recordings, OTLP traces, JSON Lines) as evidence for ``diff`` and ``history``.

``read`` streams the calls of each file whatever its format; ``count`` tallies them per cached version and
tool, gives every tool finding its ``traffic`` counts, adds the breaks only the traffic proves and applies the
policy on traffic (``traffic_threshold``). ``usage`` and ``judged`` are what the audit core calls.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from mcp_schema_audit.capture.target import masked
from mcp_schema_audit.engine.servers import ServerValidator
from mcp_schema_audit.findings import Finding
from mcp_schema_audit.snapshot import Snapshot
from mcp_schema_audit.traffic.count import Usage, annotate, tally, threshold
from mcp_schema_audit.traffic.read import FORMATS, Call, detect, read_calls

__all__ = ["FORMATS", "Call", "Usage", "detect", "judged", "masked", "read_calls", "usage", "usage_note"]


def usage(
    paths: Sequence[Path],
    served: Snapshot,
    cached: list[Snapshot],
    validator: ServerValidator,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, dict[str, Usage]]:
    """The calls of every file in ``paths`` (each format detected first, so a bad file fails before any work),
    tallied for hosts of each version in ``cached`` talking to ``served``'s server: ``{label: {tool: Usage}}``.
    ``progress(bytes read, total bytes)`` as the files are read. Raises ``InputError`` (exit 2) for a file
    that cannot be read or is malformed (``read``)."""
    for path in paths:
        detect(path)
    total = sum(p.stat().st_size for p in paths)

    def calls() -> Iterator[Call]:
        base = 0
        for path in paths:
            tell = None if progress is None else (lambda read, size, base=base: progress(base + read, total))
            yield from read_calls(path, tell)
            base += path.stat().st_size

    return tally(calls(), served, cached, validator)


def judged(
    findings: list[Finding], used: dict[str, Usage], served: Snapshot, cached: Snapshot, spec: str | None
) -> list[Finding]:
    """``findings`` of hosts that cached ``cached`` with their traffic counts, the traffic-only breaks, and the
    policy ``spec`` (``Settings.traffic_threshold``) applied."""
    return threshold(annotate(findings, used, served, cached), spec)


def usage_note(used: dict[str, Usage], paths: Sequence[Path], served: Snapshot) -> str:
    """The report's note on the traffic: how many calls of how many tools, from which files, and the tools
    ``served`` does not list."""
    calls = sum(u.calls for u in used.values())
    listed = served.tool_map()
    unknown = sorted(t for t in used if t not in listed)
    files = ", ".join(str(p) for p in paths)
    note = f"traffic: {calls} recorded call(s) of {len(used)} tool(s) from {files}"
    if unknown:
        shown = ", ".join(unknown[:5]) + (" …" if len(unknown) > 5 else "")
        note += f"; calls of tools {served.label} does not list: {shown}"
    return note
