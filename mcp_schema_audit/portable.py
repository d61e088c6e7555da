"""Portability on the selected hosts and model providers: lint findings for one snapshot, regressions between two,
and the matrix of tools × hosts a report shows (``schema.portability`` decides; this module words it).

A finding here is about one host rule's hit on one tool: its ``hosts`` are exactly the selected profiles where
that rule fired on that tool at that place; its ``delta`` is the host rule's id (two rules at one pointer never
share a fingerprint). ``host-tool-unusable``/``host-tool-degraded`` are lint's, ``host-newly-unusable``/
``host-newly-degraded``/``host-usable-again`` diff's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcp_schema_audit.findings import Finding, make_finding
from mcp_schema_audit.schema.portability import STATES, HostRule, Tool, Verdict, judge_listing, judge_tool
from mcp_schema_audit.schema.portability.record import DEGRADING_EFFECTS, UNUSABLE_EFFECTS, Hit
from mcp_schema_audit.schema.portability.spelling import portable_schema, subschema_tokens
from mcp_schema_audit.snapshot import Snapshot
from mcp_schema_audit.vocabulary import PORTABILITY_PROFILES, portability_hosts
from mcp_schema_audit.words import plural

_RANK = {state: i for i, state in enumerate(reversed(STATES))}  # usable 0, degraded 1, unusable 2


selected = portability_hosts


def verdicts(snap: Snapshot, hosts: Sequence[str]) -> dict[str, list[Verdict]]:
    """Host → every tool's verdict on it (``judge_listing`` on the snapshot's tools and server name)."""
    name = snap.server.get("name") if isinstance(snap.server, dict) else None
    return judge_listing(snap.tools, hosts, name if isinstance(name, str) else "")


#: Where a host rule's behaviour is known from, in words (``HostRule.evidence``)
_EVIDENCE_WORDS = {
    "code": "seen in the provider's code",
    "docs": "per the provider's documentation",
    "issue": "per a public issue",
}


def _words(rule: HostRule, hit: Hit, hosts: list[str], state: str) -> str:
    """What the host does with the tool (raw text): the state, the hosts, the parameter, the rule's words, the
    host rule and where its behaviour is known from; the portable spelling is the finding's fix (``_remedy``)."""
    where = f"parameter {hit.parameter!r}: " if hit.parameter else ""
    text = f"{state} on {', '.join(hosts)}: {where}{hit.words}"
    if rule is not _LOST:  # lost with another tool's listing failure: that tool's finding names its host rule
        text += f" (host rule {rule.id}, {_EVIDENCE_WORDS.get(rule.evidence, rule.evidence)})"
    if rule.effect == "fails-listing":
        text += "; the host fails its whole tool listing, every tool of the server with it"
    return text


def spelled(tool: dict[str, Any] | None, rule: HostRule, hit: Hit, hosts: list[str]) -> str | None:
    """The portable spelling of ``hit``'s subschema (``spelling.portable_schema``) as JSON text, when the engine
    finds the rewritten inputSchema equivalent to the listed one under the SDK profiles (no finding above
    ``info`` either way) and ``rule`` no longer fires in that subschema on any of ``hosts``; else None."""
    from mcp_schema_audit.engine import compare_schemas
    from mcp_schema_audit.jsontext import canonical, pointer

    schema = tool.get("inputSchema") if tool is not None else None
    new = portable_schema(schema, rule, hit) if isinstance(schema, dict) else None
    if new is None or tool is None:
        return None
    tokens = subschema_tokens(hit)
    at = pointer(tokens)
    entry = {**tool, "inputSchema": new}
    for host in hosts:
        for r, h in judge_tool(Tool(entry), host).hits:
            if r.id == rule.id and (h.pointer == at or h.pointer.startswith(at + "/")):
                return None
    for a, b in ((schema, new), (new, schema)):
        if any(f.severity != "info" for f in compare_schemas(a, b, "input", str(tool.get("name", "")))):
            return None
    node: Any = new
    for tok in tokens:
        node = node[int(tok)] if isinstance(node, list) else node[tok]
    return canonical(node)


def _grouped(found: dict[str, list[Verdict]]) -> dict[tuple[str, str, str], tuple[HostRule, Hit, list[str]]]:
    """(tool, host rule, pointer) → (rule, hit, the hosts where it fired), in listing and profile order."""
    out: dict[tuple[str, str, str], tuple[HostRule, Hit, list[str]]] = {}
    for host, per_tool in found.items():
        for verdict in per_tool:
            for rule, hit in verdict.hits:
                key = (verdict.tool, rule.id, hit.pointer)
                if key not in out:
                    out[key] = (rule, hit, [])
                if host not in out[key][2]:
                    out[key][2].append(host)
    return out


def _remedy(rule: HostRule, spelled: str | None, hit: Hit) -> str:
    """The finding's fix: the portable spelling the engine checked (``spelled``), else the one the rule's check
    gave for this place (``hit.fix``), else the host rule's own fix; with where the rule is described."""
    if rule is _LOST:
        return (
            "make the tools that now fail the listing portable (their own host-newly-unusable findings give the "
            "spelling); this tool itself needs no change"
        )
    where = f"(host rule {rule.id} in docs/hosts.md)"
    if spelled:
        return f"use the portable spelling {spelled}, equivalent under the SDK profiles {where}"
    how = hit.fix or rule.fix
    return f"{how} {where}" if how else f"see {where[1:-1]}"


def _finding(
    rule_id: str,
    tool: dict[str, Any] | None,
    name: str,
    rule: HostRule,
    hit: Hit,
    hosts: list[str],
    state: str,
    delta: str | None = None,
) -> Finding:
    fix = spelled(tool, rule, hit, hosts) if rule_id != "host-usable-again" else None
    words = _words(rule, hit, hosts, state)
    f = make_finding(rule_id, name, hit.pointer, words, None, hit.keyword, delta=delta or rule.id)
    f.hosts = list(hosts)
    if rule_id != "host-usable-again":
        f.remedy = _remedy(rule, fix, hit)
    if f.severity == "breaking" and tool is not None:
        instance = {k: tool.get(k) for k in ("name", "inputSchema", "outputSchema") if k in tool}
        f.witness = {
            "instance": instance,
            "accepted_by": "new",
            "error": hit.words[:500],
            "instance_pointer": "/inputSchema" + hit.pointer,
        }
    return f


def lint_findings(snap: Snapshot, hosts: Sequence[str]) -> list[Finding]:
    """``host-tool-unusable`` (breaking) for each hit that drops a tool or fails the listing on a selected host,
    ``host-tool-degraded`` (warning) for each that drops or rewrites part of one; harmless normalizations
    (effect ``accepts``) are not findings. Sorted by tool, then pointer, then host rule."""
    chosen = selected(hosts)
    if not chosen:
        return []
    entries = snap.tool_map()
    out = []
    for (name, _, _), (rule, hit, where) in _grouped(verdicts(snap, chosen)).items():
        if rule.effect in UNUSABLE_EFFECTS:
            out.append(_finding("host-tool-unusable", entries.get(name), name, rule, hit, where, "unusable"))
        elif rule.effect in DEGRADING_EFFECTS:
            out.append(_finding("host-tool-degraded", entries.get(name), name, rule, hit, where, "degraded"))
    return sorted(out, key=lambda f: (f.tool, f.pointer, str(f.delta)))


def diff_findings(old: Snapshot, new: Snapshot, hosts: Sequence[str]) -> list[Finding]:
    """Portability regressions from OLD to NEW on the selected hosts, for the tools both list.

    A tool newly unusable on a host (it was usable or degraded) is ``host-newly-unusable`` (breaking) for each
    new hit that makes it so, or once naming the tools whose listing failure takes it along; a tool that gains
    a degrading hit is ``host-newly-degraded`` (warning) per new hit; a tool unusable or degraded before and
    better now is ``host-usable-again`` (info). A new hit of a host rule that fires at the same pointer in OLD is
    not new. ``hosts`` on each finding: the selected hosts where it holds."""
    chosen = selected(hosts)
    if not chosen:
        return []
    before, after = verdicts(old, chosen), verdicts(new, chosen)
    entries = new.tool_map()
    out: dict[tuple[str, str, str, str], Finding] = {}
    for host in chosen:
        was = {v.tool: v for v in before[host]}
        for now in after[host]:
            then = was.get(now.tool)
            if then is None:
                continue
            for rule_id, rule, hit, state in _changes(then, now):
                delta = f"{rule.id}:{','.join(now.lost_with)}" if rule is _LOST and now.lost_with else rule.id
                key = (rule_id, now.tool, hit.pointer, delta)
                if key in out:
                    out[key].hosts.append(host)
                    continue
                out[key] = _finding(rule_id, entries.get(now.tool), now.tool, rule, hit, [host], state, delta)
    return sorted(out.values(), key=lambda f: (f.tool, f.pointer, f.rule, str(f.delta)))


_LOST = HostRule(
    id="lost-with-listing",
    hosts=PORTABILITY_PROFILES,
    effect="fails-listing",
    title="Lost with the listing",
    behaviour="another tool makes the host fail the whole listing",
    source="docs/hosts.md",
    evidence="code",
    check=lambda tool: [],
)


def _changes(then: Verdict, now: Verdict) -> list[tuple[str, HostRule, Hit, str]]:
    """The findings (rule id, host rule, hit, state words) that one tool's move from ``then`` to ``now`` makes."""
    old_hits = {(r.id, h.pointer) for r, h in then.hits}
    new_hits = [(r, h) for r, h in now.hits if (r.id, h.pointer) not in old_hits]
    if _RANK[now.state] < _RANK[then.state]:
        return [("host-usable-again", _LOST, Hit("", None, None, f"was {then.state}, now {now.state}"), now.state)]
    out: list[tuple[str, HostRule, Hit, str]] = []
    if now.state == "unusable" and then.state != "unusable":
        own = [(r, h) for r, h in new_hits if r.effect in UNUSABLE_EFFECTS]
        out += [("host-newly-unusable", r, h, "newly unusable") for r, h in own]
        if not own and now.lost_with:
            hit = Hit(
                "",
                None,
                None,
                f"lost with the listing: {plural(len(now.lost_with), 'tool')} "
                f"({', '.join(now.lost_with[:5])}) now fail it",
            )
            out.append(("host-newly-unusable", _LOST, hit, "newly unusable"))
    elif now.state != "usable":
        out += [("host-newly-degraded", r, h, "newly degraded") for r, h in new_hits if r.effect in DEGRADING_EFFECTS]
    return out


def matrix(snap: Snapshot, hosts: Sequence[str], previous: Snapshot | None = None) -> dict[str, Any] | None:
    """The portability matrix of ``snap`` on the selected hosts (None when none is selected): ``{"hosts", "tools":
    [{"tool", "states": {host: state}, "was": {host: state} (with ``previous``, for tools it lists)}], "counts":
    {host: {"usable", "degraded", "unusable"}}, "listing_fails": {host: [tools]}, "verdicts": [Verdict.to_json()
    of every tool not usable]}`` (JSON-ready)."""
    chosen = selected(hosts)
    if not chosen:
        return None
    now = verdicts(snap, chosen)
    then = verdicts(previous, chosen) if previous is not None else None
    old = {h: {v.tool: v.state for v in then[h]} for h in chosen} if then is not None else None
    tools: list[dict[str, Any]] = []
    for i, entry in enumerate(v.tool for v in now[chosen[0]]):
        row: dict[str, Any] = {"tool": entry, "states": {h: now[h][i].state for h in chosen}}
        if old is not None:
            row["was"] = {h: old[h][entry] for h in chosen if entry in old[h]}
        tools.append(row)
    counts = {h: {s: sum(1 for v in now[h] if v.state == s) for s in reversed(STATES)} for h in chosen}
    return {
        "hosts": chosen,
        "tools": tools,
        "counts": counts,
        "listing_fails": {h: [v.tool for v in now[h] if v.listing_fails] for h in chosen},
        "verdicts": [v.to_json() for h in chosen for v in now[h] if v.state != "usable"],
    }
