"""The server compared: its name (``serverInfo.name``), capabilities removed, narrowed or added, instructions
changed."""

from __future__ import annotations

from typing import Any

from mcp_schema_audit.findings import Finding
from mcp_schema_audit.jsontext import pointer_token
from mcp_schema_audit.snapshot import Snapshot
from mcp_schema_audit.surfaces.common import finding, short_text
from mcp_schema_audit.vocabulary import MODERN_PROTOCOL, modern_protocol
from mcp_schema_audit.wording import Text
from mcp_schema_audit.words import bounded_opcodes

#: words of the differing middle of two instructions matched word by word (beyond: one replacement)
_WINDOW_WORDS = 2_000

#: Top-level capabilities whose requests fail with Method not found once the server no longer serves them,
#: with the request a cached host then sends (method, params).
_REQUEST_CAPABILITIES = {
    "tools": ("tools/call", {"name": "…", "arguments": {}}),
    "prompts": ("prompts/get", {"name": "…"}),
    "resources": ("resources/read", {"uri": "…"}),
    "completions": (
        "completion/complete",
        {"ref": {"type": "ref/prompt", "name": "…"}, "argument": {"name": "…", "value": ""}},
    ),
    "logging": ("logging/setLevel", {"level": "info"}),
}


def _present(value: Any) -> bool:
    """A capability (or flag) counts as advertised unless absent, null or false."""
    return value is not None and value is not False


#: Capabilities that are containers of named entries (an empty one advertises nothing).
_CONTAINERS = ("experimental", "extensions")


def _capability_points(caps: dict[str, Any]) -> dict[str, Any]:
    """JSON Pointer → value of every advertised capability and flag: ``/tools``, ``/tools/listChanged``,
    ``/resources/subscribe``, ``/experimental/<name>`` (one level below the top; the ``experimental`` container
    counts only through its entries; ``extensions`` are left to ``surfaces.caching``)."""
    out: dict[str, Any] = {}
    for key, value in caps.items():
        if not _present(value) or key == "extensions":
            continue  # extensions are compared by identifier and settings (surfaces.caching)
        if key not in _CONTAINERS:
            out[f"/{pointer_token(key)}"] = value
        if isinstance(value, dict):
            for sub, flag in value.items():
                if _present(flag):
                    out[f"/{pointer_token(key)}/{pointer_token(sub)}"] = flag
    return out


def capability_findings(old: Snapshot, new: Snapshot) -> list[Finding]:
    before, after = _capability_points(old.capabilities), _capability_points(new.capabilities)
    out: list[Finding] = []
    gone_tops = {p for p in before if p.count("/") == 1 and p not in after}
    for ptr in sorted(before):
        if ptr in after:
            continue
        top = "/" + ptr.split("/")[1]
        if ptr != top and top in gone_tops:
            continue  # reported once, by its top-level capability
        key = ptr.split("/")[1]
        request = None
        if ptr == top and key in _REQUEST_CAPABILITIES:
            request = _REQUEST_CAPABILITIES[key]
        elif ptr == "/resources/subscribe":
            request = ("resources/subscribe", {"uri": "…"})
        if request is not None:
            method, params = request
            f = finding(
                "server-capability-removed",
                "server",
                "capabilities",
                ptr,
                f"{ptr[1:]} no longer advertised: hosts that cached it still send {method}",
                before[ptr],
                None,
                witness={
                    "instance": {"method": method, "params": params},
                    "accepted_by": "old",
                    "instance_pointer": "/method",
                    "error": f"Method not found: {method}",
                },
            )
            if old.protocol_version != new.protocol_version:
                # two captures over different protocol versions (--protocol legacy and auto): what a server
                # advertises differs by protocol, and a host keeps the version it negotiated
                f.severity, f.hosts, f.witness = "warning", [], None
                f.reason = (
                    f"captured over different protocol versions ({old.protocol_version} and "
                    f"{new.protocol_version}): capture both with the same --protocol to compare capabilities"
                )
            out.append(f)
        else:
            out.append(_narrowed(old, new, ptr, before[ptr]))
    for ptr in sorted(set(after) - set(before)):
        top = "/" + ptr.split("/")[1]
        if ptr != top and top not in before and top[1:] not in _CONTAINERS:
            continue  # part of a capability added as a whole
        out.append(
            finding(
                "server-capability-added", "server", "capabilities", ptr, f"{ptr[1:]} now advertised", None, after[ptr]
            )
        )
    return out


def _narrowed(old: Snapshot, new: Snapshot, ptr: str, value: Any) -> Finding:
    """``server-capability-narrowed`` for the flag or entry at ``ptr`` that ``old`` advertised and ``new`` does
    not. Across protocol versions it carries the reason; a ``listChanged`` flag gone across the 2026-07-28
    boundary is only the eras' difference (that era sends list-change notifications on a ``subscriptions/listen``
    stream alone, so a server advertises the flag per era), and is info."""
    flag = ptr.endswith("/listChanged")
    why = (
        "hosts are no longer told when the list changes"
        if flag
        else "what hosts used it for is unknown to schema-audit"
    )
    detail = f"{ptr[1:]} no longer advertised: {why}"
    f = finding("server-capability-narrowed", "server", "capabilities", ptr, detail, value, None)
    if old.protocol_version == new.protocol_version:
        return f
    versions = {"old": old.protocol_version or "not recorded", "new": new.protocol_version or "not recorded"}
    eras = {modern_protocol(old.protocol_version), modern_protocol(new.protocol_version)}
    if flag and old.protocol_version and new.protocol_version and len(eras) == 2:
        f.severity = "info"
        f.reason = Text.of(
            "captured in different protocol eras ({old} and {new}): from {modern} on, list-change notifications "
            "arrive only on a subscriptions/listen stream, so a server advertises listChanged per era (a python-sdk "
            "MCPServer: false on the initialize handshake, true on {modern} when it serves subscriptions/listen); "
            "capture both with the same --protocol to compare capabilities",
            modern=MODERN_PROTOCOL,
            **versions,
        ).render()
    else:
        f.reason = Text.of(
            "captured over different protocol versions ({old} and {new}): what a server advertises may differ by "
            "protocol version; capture both with the same --protocol to compare capabilities",
            **versions,
        ).render()
    return f


def _delta(old: str, new: str) -> str:
    """The text delta of two instructions, word by word: ``removed '…'; added '…'`` (each part shortened)."""
    a, b = old.split(" "), new.split(" ")
    removed: list[str] = []
    added: list[str] = []
    for tag, i1, i2, j1, j2 in bounded_opcodes(a, b, _WINDOW_WORDS):
        if tag in ("delete", "replace"):
            removed.append(" ".join(a[i1:i2]))
        if tag in ("insert", "replace"):
            added.append(" ".join(b[j1:j2]))
    parts = []
    if removed:
        parts.append("removed " + short_text(" … ".join(removed)))
    if added:
        parts.append("added " + short_text(" … ".join(added)))
    return "; ".join(parts) or "whitespace changed"


def instruction_findings(old: str | None, new: str | None) -> list[Finding]:
    if old == new:
        return []
    if old is None:
        detail = f"instructions added ({len(new or '')} characters): {short_text(new)}"
    elif new is None:
        detail = "instructions removed"
    else:
        detail = _delta(old, new)
    return [finding("server-instructions-changed", "server", "instructions", "", detail, old, new, security=True)]


def name_findings(old: Snapshot, new: Snapshot) -> list[Finding]:
    """``server-renamed`` when both snapshots name their server (``serverInfo.name``) and the names differ; a
    snapshot without a name (a ``tools/list`` file) is compared with nothing."""
    before, after = old.server.get("name"), new.server.get("name")
    if not (isinstance(before, str) and before and isinstance(after, str) and after) or before == after:
        return []
    detail = Text.of(
        "serverInfo.name {old} → {new}: what knows the server by its name (approvals, allow-lists, logs) sees "
        "another server",
        old=short_text(before),
        new=short_text(after),
    )
    return [finding("server-renamed", "server", "serverInfo", "/name", detail, before, after)]
