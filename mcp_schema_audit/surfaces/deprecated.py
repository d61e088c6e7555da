"""Deprecated protocol features a server uses, from the spec's registry (MCP 2026-07-28 ``deprecated.mdx``,
SEP-2596), with each feature's migration path and earliest removal.

What a snapshot shows: the ``logging`` capability (Logging, SEP-2577) and a capture over the HTTP+SSE transport
(``transport: "sse"``). Roots and sampling are client features a server reaches through requests, and Dynamic
Client Registration belongs to the authorization server: a listing does not show them.
"""

from __future__ import annotations

from mcp_schema_audit.findings import Finding
from mcp_schema_audit.snapshot import Snapshot
from mcp_schema_audit.surfaces.common import finding

#: Feature → (deprecated in, migration path, earliest removal), as the registry states them.
REGISTRY = {
    "Logging": (
        "2026-07-28",
        "log to stderr for stdio transports; use OpenTelemetry for observability",
        "the first revision released on or after 2027-07-28",
    ),
    "HTTP+SSE transport": (
        "2025-03-26",
        "Streamable HTTP",
        "three months after SEP-2596 reaches Final",
    ),
}


def _used(feature: str, where: str, ptr: str) -> Finding:
    since, migrate, removal = REGISTRY[feature]
    detail = f"{feature} is Deprecated (since {since}; {where}): earliest removal {removal}; migrate to: {migrate}"
    return finding("deprecated-feature-used", "server", feature, ptr, detail, None, feature)


def deprecation_findings(snap: Snapshot) -> list[Finding]:
    """One ``deprecated-feature-used`` warning per Deprecated feature ``snap`` shows (``name``: the feature)."""
    out = []
    logging = snap.capabilities.get("logging")
    if logging is not None and logging is not False:
        out.append(_used("Logging", "the server advertises the logging capability", "/logging"))
    if snap.transport == "sse":
        out.append(_used("HTTP+SSE transport", "this snapshot was captured over it", ""))
    return out
