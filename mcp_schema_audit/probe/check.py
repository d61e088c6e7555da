"""Real results judged: each recorded ``tools/call`` result checked, per host profile, against the tool's own
``outputSchema`` and every cached version's, and turned into findings.

Findings (rules in the catalog): ``result-violates-own-schema``, ``result-missing-structured-content``,
``result-malformed`` and ``result-rejected-by-cached-schema`` (breaking, each with a witness whose
``instance`` is the real ``structuredContent``, or the result, and whose ``errors`` are the hosts' own
messages), ``result-text-missing`` (warning), and per call ``call-tool-error``, ``call-rpc-error``,
``call-timeout`` (info) and ``call-result-too-large`` (warning); with cached versions, a call whose arguments a
cached inputSchema allows and the served one does not, answered with an error, is ``input-call-rejected``
(breaking: the server really rejects what those hosts send). One finding covers every call that shows
the same problem at the same place (``witness.calls``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mcp_schema_audit.capture.target import masked, scrub_secrets, secrets_in
from mcp_schema_audit.findings import Finding, make_finding
from mcp_schema_audit.probe.hosts import (
    Verdict,
    VerdictKind,
    host_verdict,
    js_truthy,
    judged_profiles,
    wire_verdict,
)
from mcp_schema_audit.probe.mrtr import input_required_findings, introduced_findings
from mcp_schema_audit.probe.text import text_verdict
from mcp_schema_audit.schema import HOST_PROFILES, SchemaDoc
from mcp_schema_audit.snapshot import Snapshot
from mcp_schema_audit.vocabulary import UNMADE_OUTCOMES, direction_rank, modern_protocol
from mcp_schema_audit.wording import Text

#: A witness instance longer than this (characters of compact JSON) is shortened in the report.
WITNESS_CHARS = 4_000
_TEXT_CHARS = 200
_IDS_SHOWN = 5


@dataclass
class _Group:
    """Calls showing one problem at one place (a future finding)."""

    rule: str
    tool: str
    pointer: str
    instance_pointer: str
    keyword: str
    instance: Any
    hosts: dict[str, str] = field(default_factory=dict)  #: profile → its message (first call's)
    calls: list[str] = field(default_factory=list)
    cohorts: list[str] = field(default_factory=list)
    kind: VerdictKind = "schema"  #: the verdict's kind: schema, missing, wire, bad-schema
    own_schema: bool = True  #: the tool declares an outputSchema in the probed listing


def call_summary(record: dict[str, Any]) -> dict[str, Any]:
    """The report's line for one call record: ``{"id", "tool", "outcome", "is_error", "structured", "message"}``
    (``outcome``: ``result`` | ``tool-error`` | ``rpc-error`` | ``timeout`` | ``too-large`` | ``not-json`` |
    ``not-called``)."""
    out: dict[str, Any] = {"id": record.get("id"), "tool": record.get("tool"), "outcome": record.get("outcome")}
    result = raw if isinstance(raw := record.get("result"), dict) else None
    if result is not None:
        out["is_error"] = result.get("isError") is True
        out["structured"] = "structuredContent" in result
        if out["is_error"]:
            out["outcome"] = "tool-error"
            out["message"] = _first_text(result)
        elif result.get("resultType") not in (None, "complete"):
            out["outcome"] = "rpc-error"
            out["message"] = f"resultType {str(result.get('resultType'))[:40]!r}: probe cannot continue such a call"
    elif isinstance(record.get("error"), dict):
        err = record["error"]
        code = f"JSON-RPC error {err['code']}: " if isinstance(err.get("code"), int) else ""
        out["message"] = _clip(code + str(err.get("message", "")))
    if out.get("message") == "":
        del out["message"]
    return out


def check_records(
    served: Snapshot,
    records: list[dict[str, Any]],
    cached: list[Snapshot],
    *,
    source: str = "probe",
    outcomes: bool = True,
    text_check: bool = True,
    protocol: str | None = None,
    previous: Sequence[tuple[str, list[dict[str, Any]]]] = (),
) -> list[Finding]:
    """Findings for the call ``records`` (``call_record`` shapes, call order) of the server whose listing is
    ``served``, against the tools' own ``outputSchema`` in ``served`` and each cached version in ``cached``
    (labels name the cohorts, in the order given).

    ``source`` (``"probe"`` or ``"samples"``) goes into each witness; ``outcomes`` adds the per-call
    findings (tool errors, JSON-RPC errors, timeouts, oversized results) and ``text_check`` the
    ``result-text-missing`` warnings (never for a text the SDK rendered: ``probe.text``). Results are judged in
    the protocol era of the connection they came on: ``protocol`` (a recording's), else ``served``'s
    (``hosts.judged_profiles``). ``previous``: the call records of cached versions' recordings (``(label,
    calls)``): a call answered ``input_required`` that completed there is ``probe-input-required-introduced``
    (``mrtr.introduced_findings``) instead of a ``probe-input-required`` warning. Returns findings sorted by
    (tool, direction, pointer, rule).
    """
    modern = modern_protocol(protocol or served.protocol_version)
    tools = served.tool_map()
    docs: dict[tuple[int, str], SchemaDoc | None] = {}

    def doc_of(i: int, snap: Snapshot, tool: str) -> SchemaDoc | None:
        key = (i, tool)
        if key not in docs:
            schema = snap.tool_map().get(tool, {}).get("outputSchema")
            docs[key] = SchemaDoc(schema) if isinstance(schema, (dict, bool)) else None
        return docs[key]

    groups: dict[tuple[str, ...], _Group] = {}
    out: list[Finding] = []
    text_missing: dict[str, list[tuple[str, str]]] = {}
    for record in records:
        tool, call_id = str(record.get("tool")), str(record.get("id"))
        result = raw if isinstance(raw := record.get("result"), dict) else None
        if outcomes:
            out += _outcome_findings(record, result, cached, served) + input_required_findings(record, result)
        if result is None or result.get("resultType") not in (None, "complete"):
            continue
        wire_error = raw if isinstance(raw := record.get("sdk_error"), str) else None
        own_doc = doc_of(-1, served, tool) if tool in tools else None
        profiles = judged_profiles(result, modern=modern)
        own: dict[str, Verdict] = {
            p: host_verdict(p, tool, own_doc, result, wire_error=wire_error, modern=modern) for p in profiles
        }
        for profile, verdict in own.items():
            if verdict.rejected or verdict.kind == "undecided":
                rule = {
                    "missing": "result-missing-structured-content",
                    "wire": "result-malformed",
                    "undecided": "result-undecided",
                }.get(verdict.kind, "result-violates-own-schema")
                _add(groups, rule, tool, verdict, profile, call_id, result, None, own_doc is not None)
        for i, snap in enumerate(cached):
            cached_doc = doc_of(i, snap, tool)
            if cached_doc is None:
                continue  # the cohort does not know the tool, or holds no outputSchema for it: nothing checked
            for profile in profiles:
                if own[profile].rejected or wire_verdict(profile, result, wire_error, modern=modern) is not None:
                    continue  # already reported against the tool's own schema
                verdict = host_verdict(profile, tool, cached_doc, result, wire_error=wire_error, modern=modern)
                if verdict.rejected or verdict.kind == "undecided":
                    _add(
                        groups,
                        "result-undecided" if verdict.kind == "undecided" else "result-rejected-by-cached-schema",
                        tool,
                        verdict,
                        profile,
                        call_id,
                        result,
                        snap.label,
                        own_doc is not None,
                    )
        if text_check and "structuredContent" in result and result.get("isError") is not True:
            why, _ = text_verdict(result)
            if why:
                text_missing.setdefault(tool, []).append((call_id, why))
    out += [_finding(g, source) for g in groups.values()]
    introduced = introduced_findings(records, list(previous)) if outcomes else []
    covered = {f.delta for f in introduced}
    out = [f for f in out if not (f.rule == "probe-input-required" and f.delta in covered)] + introduced
    for tool, calls in text_missing.items():
        ids = [c for c, _ in calls]
        out.append(
            make_finding(
                "result-text-missing",
                tool,
                "",
                f"{_ids(ids)}: {calls[0][1]}",
                None,
                None,
                direction="output",
                delta=None,
            )
        )
    return sorted(out, key=lambda f: (f.tool, direction_rank(f.direction), f.pointer, f.rule, f.message))


def result_notes(
    served: Snapshot, records: list[dict[str, Any]], *, protocol: str | None = None, text_check: bool = True
) -> list[str]:
    """The report's notes on what ``check_records`` left unjudged, and why: results of a 2026-07-28 connection
    ``ts-sdk-v1`` cannot receive (``hosts.judged_profiles``) and, with ``text_check``, text blocks that are an
    SDK's own rendering (``probe.text``: ``result-text-missing`` is not reported for them)."""
    version = protocol or served.protocol_version
    modern = modern_protocol(version)
    unjudged: list[str] = []
    rendered: dict[str, list[str]] = {}
    for record in records:
        result = raw if isinstance(raw := record.get("result"), dict) else None
        if result is None or result.get("resultType") not in (None, "complete") or "structuredContent" not in result:
            continue
        if "ts-sdk-v1" not in judged_profiles(result, modern=modern):
            unjudged.append(str(record.get("id")))
        if text_check and result.get("isError") is not True:
            _, renderer = text_verdict(result)
            if renderer:
                rendered.setdefault(renderer, []).append(str(record.get("id")))
    notes = []
    if unjudged:
        notes.append(
            Text.of(
                "{calls} not judged for ts-sdk-v1: a structuredContent that is not a JSON object, as on this "
                "{version} connection, is allowed only in that protocol era, and ts-sdk-v1 speaks no protocol newer "
                "than 2025-11-25",
                calls=_ids(unjudged),
                version=version,
            ).render()
        )
    notes += [
        Text.of(
            "{calls}: the text blocks are how {renderer} (mcp.server.mcpserver) renders a returned value it wraps "
            'as {{"result": …}}: a str as itself, None as no block, a list item by item, not as JSON. '
            "result-text-missing is not reported for them: the tool's author cannot change that rendering",
            calls=_ids(ids),
            renderer=renderer,
        ).render()
        for renderer, ids in rendered.items()
    ]
    return notes


def checked_calls(served: Snapshot, records: list[dict[str, Any]], cached: list[Snapshot]) -> set[str]:
    """The ids of the call ``records`` whose result was held against an outputSchema: a complete result of a
    tool that declares one in ``served`` or in some ``cached`` version, not ``isError`` (or ``isError`` with a
    ``structuredContent``, which ``ts-sdk-v1`` validates). Tool errors, JSON-RPC errors, timeouts, calls not
    made and results of tools without any outputSchema are not checked."""
    out: set[str] = set()
    for record in records:
        result = raw if isinstance(raw := record.get("result"), dict) else None
        if result is None or result.get("resultType") not in (None, "complete"):
            continue
        if result.get("isError") is True and not js_truthy(result.get("structuredContent")):
            continue
        tool = record.get("tool")  # a string in every record (call_record, load_recording)
        if isinstance(tool, str) and any(
            isinstance(snap.tool_map().get(tool, {}).get("outputSchema"), (dict, bool)) for snap in [served, *cached]
        ):
            out.add(str(record.get("id")))
    return out


def nothing_checked(
    summaries: list[dict[str, Any]], *, skipped: list[dict[str, str]] | None = None, auto: bool = False
) -> Finding:
    """The ``probe-nothing-checked`` warning of a run in which no call's result was checked against an
    outputSchema (``summaries``: ``call_summary`` lines with ``checked``): how many calls were planned, made
    and failed, why nothing was checked, and what to do about it. ``skipped``: the tools ``--auto`` left out
    (``{"tool", "why"}``), named in the message."""
    planned = len(summaries)
    made = sum(1 for c in summaries if c.get("outcome") not in UNMADE_OUTCOMES)
    failed = sum(1 for c in summaries if c.get("outcome") != "result")
    results = planned - failed
    parts = [
        f"no call's result was checked against an outputSchema: {planned} call{'s' if planned != 1 else ''} "
        f"planned, {made} made, {failed} failed"
    ]
    steps = []
    if planned == 0:
        if auto and skipped:
            shown = "; ".join(f"{s['tool']}: {s['why']}" for s in skipped[:3]) + (
                f"; and {len(skipped) - 3} more" if len(skipped) > 3 else ""
            )
            parts.append(f"--auto left out every tool ({shown})")
        elif auto:
            parts.append("the server lists no tool --auto may call")
        steps = ["name the tools to call, with their arguments, in --calls FILE"]
        whys = [str(s.get("why", "")) for s in skipped or []] if auto else []
        if not whys or any("readOnlyHint" in why for why in whys):
            steps.append(
                "annotate read-only tools readOnlyHint: true so --auto may call them (SDK defaults set no annotation: "
                "TypeScript registerTool(name, {annotations: {readOnlyHint: true}, …}), Python "
                "@mcp.tool(annotations={'readOnlyHint': True}))"
            )
        if not whys or any(why.startswith("required argument") for why in whys):
            steps.append("give the required arguments --auto cannot fill examples in their schemas")
    else:
        if failed:
            steps.append(
                "fix the failing calls (their call-* findings say why), e.g. give the arguments each tool "
                "needs in --calls FILE"
            )
        if results:
            parts.append(
                f"{results} result{'s' if results != 1 else ''} of tools that declare no outputSchema "
                "here or in any --against version"
            )
            steps.append(
                "call tools that declare an outputSchema (or check against a snapshot whose tools declare "
                "one with --against)"
            )
        if auto and any("readOnlyHint" in str(s.get("why", "")) for s in skipped or []):
            steps.append("annotate read-only tools readOnlyHint: true so --auto may call them")
    detail = "; ".join(parts) + ". Next: " + "; ".join(steps[:-1]) + ("; or " if len(steps) > 1 else "") + steps[-1]
    return make_finding("probe-nothing-checked", "", "", detail, None, None, delta=None)  # "probe run: …"


def _add(
    groups: dict[tuple[str, ...], _Group],
    rule: str,
    tool: str,
    verdict: Verdict,
    profile: str,
    call_id: str,
    result: dict[str, Any],
    cohort: str | None,
    own_schema: bool = True,
) -> None:
    """Count ``verdict`` into the group of its problem (one per rule, tool, kind, schema and instance place and
    keyword), and each of the result's other problems (``Verdict.also``) into its own."""
    places = [(verdict.schema_pointer, verdict.instance_pointer, verdict.keyword, verdict.message), *verdict.also]
    for schema_at, instance_at, keyword, message in places:
        key = (rule, tool, verdict.kind, schema_at, instance_at, keyword)
        group = groups.get(key)
        if group is None:
            shown = verdict.kind in ("schema", "bad-schema")
            group = groups[key] = _Group(
                rule,
                tool,
                schema_at,
                instance_at,
                keyword,
                result.get("structuredContent") if shown else _result_view(result),
                kind=verdict.kind,
                own_schema=own_schema,
            )
        group.hosts.setdefault(profile, message)
        if call_id not in group.calls:
            group.calls.append(call_id)
        if cohort is not None and cohort not in group.cohorts:
            group.cohorts.append(cohort)


def _finding(g: _Group, source: str) -> Finding:
    hosts = [p for p in HOST_PROFILES if p in g.hosts]
    calls = _ids(g.calls)
    if g.rule == "result-missing-structured-content":
        detail = f"{calls} returned no structuredContent (isError false) though the tool declares an outputSchema"
    elif g.rule == "result-malformed":
        detail = f"{calls} returned a result the SDK clients of {', '.join(hosts)} cannot parse, before any schema"
    elif g.rule == "result-rejected-by-cached-schema":
        # say what the current listing holds: an outputSchema that accepts the result, or none at all
        cohorts = ", ".join(g.cohorts)
        if g.kind == "missing":
            detail = (
                f"{calls} returned no structuredContent (isError false), which hosts that cached {cohorts} "
                f"reject ({', '.join(hosts)}): their cached outputSchema needs it"
                + ("" if g.own_schema else "; the tool declares no outputSchema now")
            )
        elif g.own_schema:
            detail = (
                f"{calls} returned a result its current outputSchema accepts and hosts that cached "
                f"{cohorts} reject ({', '.join(hosts)})"
            )
        else:
            detail = (
                f"{calls} returned a result hosts that cached {cohorts} reject ({', '.join(hosts)}); "
                "the tool declares no outputSchema now"
            )
    elif g.rule == "result-undecided":
        against = (
            f"the outputSchema hosts that cached {', '.join(g.cohorts)} hold" if g.cohorts else "its own outputSchema"
        )
        detail = (
            f"{calls} returned a result not checked against {against} for {', '.join(hosts)}: the check was "
            f"refused as too costly (neither valid nor invalid): {next(iter(g.hosts.values())).split(': ', 2)[-1]}"
        )
    else:
        detail = f"{calls} returned a result its own outputSchema rejects ({', '.join(hosts)})"
    first = next(iter(g.hosts.values()))
    instance, truncated = cap_instance(g.instance)
    witness: dict[str, Any] = {
        "instance": instance,
        "accepted_by": "server",
        "error": first,
        "errors": {p: g.hosts[p] for p in hosts},
        "instance_pointer": g.instance_pointer,
        "call": g.calls[0],
        "calls": list(g.calls),
        "source": source,
    }
    if g.cohorts:
        witness["cohorts"] = list(g.cohorts)
    if truncated:
        witness["truncated"] = True
    f = make_finding(
        g.rule,
        g.tool,
        g.pointer,
        detail,
        None,
        None,
        direction="output",
        witness=witness,
        delta={"keyword": g.keyword, "at": g.instance_pointer},
    )
    if g.cohorts:
        f.old_pointer = g.pointer
    else:
        f.new_pointer = g.pointer
    f.hosts = [] if g.rule == "result-undecided" else hosts  # undecided: no host is claimed to reject it
    return f


def _outcome_findings(
    record: dict[str, Any], result: dict[str, Any] | None, cached: list[Snapshot], served: Snapshot
) -> list[Finding]:
    tool, call_id = str(record.get("tool")), str(record.get("id"))
    if record.get("outcome") == "not-listed":
        return [_not_listed(tool, call_id, [s.label for s in cached if tool in s.tool_map()])]
    summary = call_summary(record)
    outcome, message = summary["outcome"], summary.get("message", "")
    if outcome in ("tool-error", "rpc-error"):
        rejected = _cached_call_rejected(record, message, cached, served)
        if rejected is not None:
            return [rejected]
    rule, detail = {
        "tool-error": ("call-tool-error", f"call {call_id}: the tool reported an error (isError): {message}"),
        "rpc-error": ("call-rpc-error", f"call {call_id}: {message or 'JSON-RPC error'}"),
        "timeout": ("call-timeout", f"call {call_id}: {message or 'no answer in time'}"),
        "not-called": ("call-timeout", f"call {call_id} not made: {message}"),
        "too-large": ("call-result-too-large", f"call {call_id}: {message}: not checked"),
        "not-json": ("result-malformed", f"call {call_id}: {message}: not checked"),
    }.get(outcome, (None, ""))
    if rule is None:
        return []
    return [make_finding(rule, tool, "", detail.rstrip(": "), None, None, delta=call_id)]


def _cached_call_rejected(
    record: dict[str, Any], message: str, cached: list[Snapshot], served: Snapshot
) -> Finding | None:
    """``input-call-rejected`` for a call the server answered with an error (``message``) whose arguments every
    listed cohort in ``cached`` that allows them allows and the served inputSchema does not (python-sdk's
    reading); ``None`` when no cached version allows them or the served schema allows them too (the tool's own
    error) or either schema cannot be read."""
    tool, arguments = str(record.get("tool")), record.get("arguments")
    served_schema = served.tool_map().get(tool, {}).get("inputSchema")
    if not isinstance(arguments, dict) or not isinstance(served_schema, dict):
        return None
    try:
        if SchemaDoc(served_schema).accepts(arguments):
            return None
        cohorts = [
            snap.label
            for snap in cached
            if isinstance(schema := snap.tool_map().get(tool, {}).get("inputSchema"), dict)
            and SchemaDoc(schema).accepts(arguments)
        ]
    except (ValueError, RecursionError):  # an unreadable schema (RefError is a ValueError): no claim
        return None
    if not cohorts:
        return None
    call_id = str(record.get("id"))
    detail = Text.of(
        "call {call}: arguments the inputSchema cached from {cohorts} allows were rejected by the server",
        call=call_id,
        cohorts=", ".join(cohorts),
    )
    instance, truncated = cap_instance(masked(arguments))  # credential-named values as ***, as for traffic
    witness: dict[str, Any] = {
        "instance": instance,
        "accepted_by": "old",
        "error": scrub_secrets(_clip(message or "an error", 500), secrets_in(arguments)),
        "instance_pointer": "",
        "call": call_id,
        "calls": [call_id],
        "cohorts": cohorts,
        "source": "probe",
    }
    if truncated:
        witness["truncated"] = True
    f = make_finding(
        "input-call-rejected", tool, "", detail, None, None, direction="input", witness=witness, delta=call_id
    )
    f.instance_pointer = ""
    return f


def _not_listed(tool: str, call_id: str, cohorts: list[str]) -> Finding:
    """``call-tool-not-listed`` for a call the calls file names and the server does not list (not made); the
    cached versions that list the tool are named: their hosts still call it."""
    detail = Text.of("call {call} not made: the server does not list tool {tool}", call=call_id, tool=repr(tool))
    if cohorts:
        detail = Text.of(
            "call {call} not made: the server does not list tool {tool}, which hosts that cached {cohorts} still "
            "call (the diff against them reports tool-removed)",
            call=call_id,
            tool=repr(tool),
            cohorts=", ".join(cohorts),
        )
    return make_finding("call-tool-not-listed", tool, "", detail, None, None, delta=call_id)


def _result_view(result: dict[str, Any]) -> dict[str, Any]:
    """The parts of a result a missing/malformed witness shows: everything but ``_meta``."""
    return {k: v for k, v in result.items() if k != "_meta"}


def _first_text(result: dict[str, Any]) -> str:
    content = blocks if isinstance(blocks := result.get("content"), list) else []
    for block in content:
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            return _clip(block["text"])
    return ""


def _clip(text: str, limit: int = _TEXT_CHARS) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _ids(ids: list[str]) -> str:
    shown = ", ".join(ids[:_IDS_SHOWN]) + (f" and {len(ids) - _IDS_SHOWN} more" if len(ids) > _IDS_SHOWN else "")
    return f"call{'s' if len(ids) != 1 else ''} {shown}"


def cap_instance(value: Any, max_chars: int = WITNESS_CHARS) -> tuple[Any, bool]:
    """``(value, False)`` when its compact JSON fits ``max_chars``; else ``(shortened copy, True)``: strings cut,
    arrays and objects cut to their first entries (a marker string says how many more), values deeper than a
    few levels replaced by ``"…"``; tighter limits are tried until it fits."""
    if _fits(value, max_chars):
        return value, False
    for depth, items, chars in ((8, 20, 200), (6, 10, 100), (4, 5, 60), (3, 3, 40), (2, 2, 20)):
        small = _shrink(value, depth, items, chars)
        if _fits(small, max_chars):
            return small, True
    return "… (too large to show)", True


def _fits(value: Any, max_chars: int) -> bool:
    try:
        return len(json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)) <= max_chars
    except (ValueError, RecursionError):
        return False


def _shrink(value: Any, depth: int, items: int, chars: int) -> Any:
    if isinstance(value, str):
        return value if len(value) <= chars else value[:chars] + "…"
    if not isinstance(value, (list, dict)):
        return value
    if depth <= 0:
        return "…"
    if isinstance(value, list):
        out: list[Any] = [_shrink(x, depth - 1, items, chars) for x in value[:items]]
        if len(value) > items:
            out.append(f"… {len(value) - items} more item(s)")
        return out
    keys = list(value)[:items]
    obj = {(k if len(k) <= chars else k[:chars] + "…"): _shrink(value[k], depth - 1, items, chars) for k in keys}
    if len(value) > items:
        obj["…"] = f"{len(value) - items} more key(s)"
    return obj
