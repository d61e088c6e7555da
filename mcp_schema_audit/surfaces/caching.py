"""The 2026-07-28 caching hints of every list and the server's extensions, compared.

``cache_findings``: a list's ``ttlMs`` increased (warning ``cache-ttl-increased``) or its ``cacheScope`` changed
(warning ``cache-scope-changed``), for lists whose hints both snapshots hold (``Snapshot.list_cache``).
``extension_findings``: ``capabilities.extensions`` entries removed (breaking), added (info), or with settings of
another shape under the same identifier (warning, SEP-2133's MUST). ``rollout_advice`` is the fix text of a
breaking release: how long hosts may keep the cached version's listing.
"""

from __future__ import annotations

from typing import Any

from mcp_schema_audit.findings import Finding
from mcp_schema_audit.jsontext import pointer_token, same_json
from mcp_schema_audit.snapshot import CACHED_LISTS, Snapshot
from mcp_schema_audit.surfaces.common import finding, short_text
from mcp_schema_audit.words import duration_words


def cache_findings(old: Snapshot, new: Snapshot) -> list[Finding]:
    """TTL increases and cacheScope changes of each list (``tools/list``, ``prompts/list``, ``resources/list``,
    ``resources/templates/list``); ``name`` is the list method, ``pointer`` ``/ttlMs`` or ``/cacheScope``."""
    out: list[Finding] = []
    for method in CACHED_LISTS:
        o, n = old.list_cache.get(method, {}), new.list_cache.get(method, {})
        ot, nt = o.get("ttlMs"), n.get("ttlMs")
        if isinstance(ot, int) and isinstance(nt, int) and nt > ot:
            detail = (
                f"ttlMs {ot} → {nt} ({duration_words(max(ot, 0))} → {duration_words(nt)}): the next breaking "
                "release reaches cached hosts that much later"
            )
            out.append(finding("cache-ttl-increased", "server", method, "/ttlMs", detail, ot, nt))
        os_, ns = o.get("cacheScope"), n.get("cacheScope")
        if isinstance(os_, str) and isinstance(ns, str) and os_ != ns:
            why = (
                "shared gateways and proxies now serve one copy to every user"
                if ns == "public"
                else f"shared caches that stored it as public may serve it to every user up to its TTL "
                f"({duration_words(ot) if isinstance(ot, int) else 'unknown'})"
            )
            detail = f"cacheScope {short_text(os_)} → {short_text(ns)}: {why}"
            out.append(finding("cache-scope-changed", "server", method, "/cacheScope", detail, os_, ns))
    return out


def public_scope_findings(snap: Snapshot, other: Snapshot) -> list[Finding]:
    """``cache-scope-public-list-varies`` for each list ``snap`` marks ``cacheScope: "public"`` whose items differ
    in ``other``, a capture of the same release (same server name and version) with other credentials (the
    Action's ``configurations``, or ``lint --baseline``). Nothing when the two are different releases."""
    if snap.server.get("version") is None or (snap.server.get("name"), snap.server.get("version")) != (
        other.server.get("name"),
        other.server.get("version"),
    ):
        return []
    out: list[Finding] = []
    lists = {"tools/list": "tools", "prompts/list": "prompts", "resources/list": "resources"}
    lists["resources/templates/list"] = "resource_templates"
    for method, attr in lists.items():
        if snap.list_cache.get(method, {}).get("cacheScope") != "public":
            continue
        mine, theirs = getattr(snap, attr), getattr(other, attr)
        if mine is None or theirs is None:
            continue
        key = "name" if attr != "resources" else "uri"
        a, b = {i.get(key) for i in mine}, {i.get(key) for i in theirs}
        if a != b or not same_json(sorted(mine, key=str), sorted(theirs, key=str)):
            only = sorted(str(x) for x in a ^ b)[:5]
            which = f" (only on one side: {', '.join(only)})" if only else " (same names, different entries)"
            detail = (
                f'{method} says cacheScope "public" but {snap.label} and {other.label} list different items{which}: '
                "shared caches may serve one user's list to every user; send private"
            )
            out.append(
                finding("cache-scope-public-list-varies", "server", method, "/cacheScope", detail, None, "public")
            )
    return out


def rollout_advice(cached: Snapshot) -> str | None:
    """For a breaking release, what the cached version's ``tools/list`` TTL means:
    ``hosts may keep 1.0.0's listing up to 24 h: lower ttlMs one TTL before the release`` (``None`` when it sent
    no positive ``ttlMs``). The version is the server's, else the snapshot's label (raw text)."""
    ttl = cached.list_cache.get("tools/list", {}).get("ttlMs")
    if not isinstance(ttl, int) or ttl <= 0:
        return None
    version = cached.server.get("version") if isinstance(cached.server.get("version"), str) else cached.label
    return f"hosts may keep {version}'s listing up to {duration_words(ttl)}: lower ttlMs one TTL before the release"


def _extensions(caps: dict[str, Any]) -> dict[str, Any]:
    ext = caps.get("extensions")
    return {k: v for k, v in ext.items() if v is not None and v is not False} if isinstance(ext, dict) else {}


def _shape(value: Any, prefix: str = "") -> dict[str, str]:
    """JSON Pointer → JSON type of every member of a settings object (nested objects walked)."""
    out: dict[str, str] = {}
    if isinstance(value, dict):
        for key, sub in value.items():
            ptr = f"{prefix}/{pointer_token(str(key))}"
            out[ptr] = _type(sub)
            out.update(_shape(sub, ptr))
    return out


def _type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return "string" if isinstance(value, str) else "null"


def extension_findings(old: Snapshot, new: Snapshot) -> list[Finding]:
    """``capabilities.extensions`` compared: ``name`` is ``capabilities``, ``pointer`` ``/extensions/<id>``."""
    before, after = _extensions(old.capabilities), _extensions(new.capabilities)
    out: list[Finding] = []
    for ext in sorted(set(before) | set(after)):
        ptr = f"/extensions/{pointer_token(ext)}"
        if ext not in after:
            witness = {
                "instance": {"extensions": {ext: before[ext]}},
                "accepted_by": "old",
                "instance_pointer": ptr,
                "error": f"extension {ext} not offered by the server",
            }
            detail = f"extension {short_text(ext)} no longer offered: hosts that negotiated it lose it"
            out.append(
                finding("extension-removed", "server", "capabilities", ptr, detail, before[ext], None, witness=witness)
            )
        elif ext not in before:
            detail = f"extension {short_text(ext)} now offered"
            out.append(finding("extension-added", "server", "capabilities", ptr, detail, None, after[ext]))
        else:
            was, now = _shape(before[ext]), _shape(after[ext])
            changed = [p for p in sorted(was) if p not in now or now[p] != was[p]]
            if changed:
                parts = [f"{p[1:]} removed" if p not in now else f"{p[1:]} {was[p]} → {now[p]}" for p in changed[:5]]
                detail = (
                    f"settings of {short_text(ext)} changed shape ({'; '.join(parts)}): a breaking change to an "
                    "extension MUST use a new identifier (SEP-2133)"
                )
                out.append(
                    finding(
                        "extension-settings-changed", "server", "capabilities", ptr, detail, before[ext], after[ext]
                    )
                )
    return out
