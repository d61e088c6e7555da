"""Policy: what the user decided about findings: host profiles that count, severity overrides, accepted changes.

``apply_policy`` is the one step between findings and a report, for every command (through ``audit``). The
configuration it reads comes from ``settings``/``config``.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, replace
from typing import Any

from mcp_schema_audit.config import IgnoreEntry
from mcp_schema_audit.findings import Finding


@dataclass
class PolicyResult:
    """Findings after policy, the suppressed ones with their reasons, and expired ignore entries."""

    findings: list[Finding]
    ignored: list[tuple[Finding, str]]
    expired: list[dict[str, Any]]


def apply_policy(
    findings: list[Finding],
    *,
    severity: dict[str, str] | None = None,
    hosts: list[str] | None = None,
    ignore: list[IgnoreEntry] | None = None,
    today: _dt.date | None = None,
) -> PolicyResult:
    """Apply, in order: host restriction, severity overrides, the ignore list.

    - ``hosts``: a breaking finding confirmed only for hosts outside ``hosts`` becomes ``info``
      with a ``reason``; the confirmed list is narrowed to the selected hosts.
    - ``severity``: rule id → level overrides.
    - ``ignore``: matching findings move to ``ignored``; expired entries never match and are returned.
    Findings keep their order. Inputs are not mutated.
    """
    today = today or _dt.date.today()
    out: list[Finding] = []
    ignored: list[tuple[Finding, str]] = []
    active = [e for e in (ignore or []) if not e.expired(today)]
    expired = [e.describe() for e in (ignore or []) if e.expired(today)]
    # an entry with a fingerprint matches only the findings of that fingerprint: a long generated ignore list
    # (``--format ignore`` writes fingerprints) is looked up, not tried entry by entry for every finding
    by_print: dict[str, list[int]] = {}
    loose: list[int] = []
    for i, e in enumerate(active):
        (by_print.setdefault(e.fingerprint, []) if e.fingerprint is not None else loose).append(i)
    for f in findings:
        g = replace(f, hosts=list(f.hosts), tags=list(f.tags))
        if hosts is not None and g.severity == "breaking" and g.hosts:
            chosen = [h for h in g.hosts if h in hosts]
            if not chosen:
                g.severity = "info"
                g.reason = f"breaks only {', '.join(g.hosts)}, not selected by --host"
            g.hosts = chosen or g.hosts
            if chosen and "python-sdk" not in chosen and g.ajv_error and isinstance(g.witness, dict):
                g.witness = {**g.witness, "error": g.ajv_error}  # the selected (TS) hosts' own words
        if severity and g.rule in severity:
            g.severity = severity[g.rule]
        tried = sorted([*by_print.get(g.fingerprint, ()), *loose]) if by_print else loose
        entry = next((active[i] for i in tried if active[i].matches(g)), None)
        if entry is not None:
            ignored.append((g, entry.reason))
        else:
            out.append(g)
    return PolicyResult(out, ignored, expired)
