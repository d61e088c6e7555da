"""The report every format renders (a diff of two versions, a lint of one snapshot, a probe of one server),
and what several formats share: ordering, wording of findings and witnesses, where a finding is located.

A history of N cohorts is :class:`mcp_schema_audit.report.cohorts.History`; the format modules render both.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from mcp_schema_audit import __version__
from mcp_schema_audit.findings import Finding, summarize
from mcp_schema_audit.locate import snapshot_of_item
from mcp_schema_audit.rules import LISTING_RULES, RULES
from mcp_schema_audit.snapshot import Snapshot
from mcp_schema_audit.vocabulary import SDK_PROFILES, SEVERITY_RANK, UNMADE_OUTCOMES
from mcp_schema_audit.words import plural

REPORT_VERSION = 1
KINDS = ("diff", "lint", "probe")


@dataclass
class Report:
    """The result of ``diff``, ``lint`` or ``probe``: what was judged, the findings (sorted), policy results, the gate.

    ``kind`` says what the report is: ``"diff"`` (``old`` → ``new``: two versions), ``"lint"`` (``new`` is
    the linted snapshot; ``old`` is the ``baseline`` when one was given, else ``new`` again, which the JSON
    form has always carried) or ``"probe"`` (``new`` is the listing of the probed server, ``old`` is
    ``None``; ``cached`` are the ``--against`` versions its real results were checked against and
    ``calls`` one JSON-ready summary per call: ``{"id", "tool", "outcome", "is_error", "structured",
    "message"}``, in call order). ``mode`` is ``backward`` | ``forward`` | ``full`` (``lint`` for a lint
    report); ``hosts`` the host profiles considered; ``ignored`` the findings suppressed by the ignore
    list, each with the entry's reason; ``expired_ignores`` the ignore entries whose ``expires`` date has
    passed (JSON-ready dicts: ``reason`` and the match fields, ``expires`` as an ISO date). ``artifact``
    is the file SARIF and GitHub annotations point at for findings that live in no snapshot (the calls
    file or the recording of a probe).
    """

    old: Snapshot | None
    new: Snapshot
    findings: list[Finding]
    fail_on: str = "breaking"
    notes: list[str] = field(default_factory=list)  #: run-level remarks (e.g. protocol versions differ)
    mode: str = "backward"
    hosts: list[str] = field(default_factory=lambda: list(SDK_PROFILES))
    ignored: list[tuple[Finding, str]] = field(default_factory=list)
    expired_ignores: list[dict[str, Any]] = field(default_factory=list)
    kind: str = "diff"
    baseline: Snapshot | None = None
    cached: list[Snapshot] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    artifact: str | None = None
    #: how arguments sent to each served version were judged (``audit.validator_json``), for a diff
    server_validators: list[dict[str, Any]] = field(default_factory=list)
    #: the version NEW should carry for its findings (``surfaces.versions.suggested_version``; a diff only)
    suggested_version: str | None = None
    #: for a breaking release, how long hosts may keep the cached listing (``surfaces.caching.rollout_advice``)
    rollout: str | None = None
    #: ``--version-gate semver``: the text and Markdown reports show the suggested version
    version_gate: bool = False
    #: the portability matrix on the selected hosts and model providers (``portable.matrix``), or None
    portability: dict[str, Any] | None = None
    #: tool name → (source file, line) of its registration in the server's source (``--source-root``): where
    #: SARIF results and annotations of that tool point instead of the snapshot file
    sources: dict[str, tuple[str, int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown report kind {self.kind!r} (expected one of {', '.join(KINDS)})")
        if self.kind == "lint" and self.mode != "lint":
            self.mode = "lint"

    @property
    def summary(self) -> dict[str, int]:
        """Counts per severity."""
        return summarize(self.findings)

    @property
    def passed(self) -> bool:
        """True when no finding is at or above ``fail_on`` (always True for ``never``)."""
        return not self.failing()

    def failing(self) -> list[Finding]:
        """The findings at or above ``fail_on`` (none for ``never``), in report order."""
        if self.fail_on == "never":
            return []
        limit = SEVERITY_RANK[self.fail_on]
        return [f for f in self.findings if SEVERITY_RANK[f.severity] >= limit]

    def snapshots(self) -> list[Snapshot]:
        """Every snapshot the report names, without repeats: OLD (or the baseline), NEW, then the cached versions."""
        out: list[Snapshot] = []
        for s in [self.old, self.baseline, self.new, *self.cached]:
            if s is not None and all(s is not x for x in out):
                out.append(s)
        return out

    def to_json(self) -> dict[str, Any]:
        """The JSON report (stable contract; keys are only ever added). Schema: ``report_json_schema()``.

        Every kind has ``kind``, ``new``, ``findings``, ``summary``, ``gate``, ``notes``, ``mode``,
        ``hosts``, ``ignored`` and ``expired_ignores``; a diff and a lint also ``old``; a lint with a
        baseline ``baseline``; a probe ``cached`` (one side per ``--against`` version) and ``calls``.
        """
        out: dict[str, Any] = {
            "report_version": REPORT_VERSION,
            "schema_audit_version": __version__,
            "kind": self.kind,
            "mode": self.mode,
            "hosts": list(self.hosts),
            "new": side_json(self.new),
            "findings": [f.to_json() for f in self.findings],
            "summary": self.summary,
            "gate": {"fail_on": self.fail_on, "passed": self.passed},
            "notes": self.notes,
            "ignored": [{"finding": f.to_json(), "reason": reason} for f, reason in self.ignored],
            "expired_ignores": list(self.expired_ignores),
        }
        if self.old is not None:
            out["old"] = side_json(self.old)
        if self.baseline is not None:
            out["baseline"] = side_json(self.baseline)
        if self.server_validators:
            out["server_validators"] = [dict(v) for v in self.server_validators]
        if self.kind == "diff":
            out["suggested_version"] = self.suggested_version
            if self.rollout:
                out["rollout"] = self.rollout
        if self.portability is not None:
            out["portability"] = self.portability
        if self.kind == "probe":
            out["cached"] = [side_json(s) for s in self.cached]
            out["calls"] = [dict(c) for c in self.calls]
        return out


def side_json(s: Snapshot) -> dict[str, Any]:
    """``{"label", "server", "protocol_version", "source", "tool_count"}`` of one snapshot."""
    return {
        "label": s.label,
        "server": s.server,
        "protocol_version": s.protocol_version,
        "source": s.source,
        "tool_count": len(s.tools),
    }


# --- wording shared by several formats ------------------------------------------------------------------


def ordered(findings: list[Finding]) -> list[Finding]:
    """Breaking first, then warnings, then info; report order (tool, direction, pointer) within each."""
    return sorted(findings, key=lambda f: -SEVERITY_RANK[f.severity])


T = TypeVar("T")
#: Findings of one rule and severity (warning or info) shown as one group from this many on (text, Markdown).
GROUP_MIN = 3


def grouped(findings: list[Finding]) -> list[list[Finding]]:
    """``findings`` (in order) as entries to show: a warning or info rule with ``GROUP_MIN`` findings or more is
    one entry holding all of them, where its first finding was; every other finding (each breaking one: its
    witness proves it; each changed description or instructions, prose a reviewer reads word by word: ``prose``)
    is an entry of its own. Every finding is in exactly one entry (JSON keeps them all); an entry whose
    findings have different fixes (a host rule's portable spelling) shows each one's (``shared_fix``)."""
    return runs(findings, lambda f: None if f.severity == "breaking" or prose(f) else (f.severity, f.rule))


def prose(f: Finding) -> bool:
    """A changed description or server instructions, shown with its word delta: where a rug pull hides a prompt
    injection, so never folded into a group."""
    from mcp_schema_audit.report.worddelta import has_delta

    return (f.rule.endswith("-description-changed") or f.rule == "server-instructions-changed") and has_delta(f)


def runs(items: list[T], key: Callable[[T], Hashable | None]) -> list[list[T]]:
    """``items`` (in order) in entries: those of one ``key`` (``None``: never grouped) form one entry at the
    place of the first when there are ``GROUP_MIN`` or more, else each is an entry of its own."""
    keys = [key(item) for item in items]
    counts = Counter(k for k in keys if k is not None)
    out: list[list[T]] = []
    groups: dict[Hashable, list[T]] = {}
    for item, k in zip(items, keys, strict=True):
        if k is None or counts[k] < GROUP_MIN:
            out.append([item])
        elif k in groups:
            groups[k].append(item)
        else:
            groups[k] = [item]
            out.append(groups[k])
    return out


def by_about(group: list[Finding]) -> list[tuple[Finding, list[Finding]]]:
    """``group``'s findings by what they are about (tool and direction, or the item), in order: ``(first, all)``."""
    seen: dict[tuple[str, str, str], list[Finding]] = {}
    for f in group:
        seen.setdefault((f.surface, f.subject, f.direction), []).append(f)
    return [(fs[0], fs) for fs in seen.values()]


def shared_detail(group: list[Finding]) -> str | None:
    """The detail every finding of ``group`` shares (raw text), or ``None`` when they differ."""
    details = {detail(f) for f in group}
    return next(iter(details)) if len(details) == 1 else None


def shared_fix(group: list[Finding]) -> str | None:
    """The fix every finding of ``group`` shares (raw text, ``""`` for none), or ``None`` when they differ."""
    fixes = {f.fix for f in group}
    return next(iter(fixes)) if len(fixes) == 1 else None


def detail(f: Finding) -> str:
    """What changed, in words (raw text): ``Finding.detail_text`` (the ``[forward: …]`` lead, then the detail)."""
    return f.detail_text


def traffic_words(f: Finding) -> str | None:
    """What ``--traffic`` says of ``f``: ``affected 3 of 120 recorded calls``, ``unaffected in 120 recorded
    calls``, ``no recorded calls: potentially affected``; None without ``--traffic`` (or for another surface)."""
    t = f.traffic
    if t is None:
        return None
    calls, affected = int(t.get("calls", 0)), int(t.get("affected", 0))
    if not calls:
        return "no recorded calls: potentially affected"
    if not affected:
        return f"unaffected in {plural(calls, 'recorded call')}"
    return f"affected {affected} of {plural(calls, 'recorded call')}"


def title(f: Finding) -> str:
    """The rule's one-line title (the rule id for a rule outside the catalog)."""
    rule = RULES.get(f.rule)
    return rule.title if rule is not None else f.rule


def version_line(report: Report) -> str | None:
    """``suggested version: 2.0.0 (serverInfo.version 1.0.0 -> 1.1.0)`` for a diff run with ``--version-gate
    semver`` whose OLD sent a version (``None`` otherwise). Raw text: the versions are the server's."""
    if not report.version_gate or report.kind != "diff" or report.suggested_version is None or report.old is None:
        return None
    ov, nv = report.old.server.get("version"), report.new.server.get("version")
    return f"suggested version: {report.suggested_version} (serverInfo.version {ov} -> {nv or 'none'})"


def who(s: Snapshot) -> str:
    """``label (server-name version)`` as raw (not yet escaped) text."""
    name = s.server.get("name") if isinstance(s.server, dict) else None
    ver = s.server.get("version") if isinstance(s.server, dict) else None
    extra = " ".join(str(x) for x in (name, ver) if x)
    return f"{s.label}" + (f" ({extra})" if extra else "")


def subject(report: Report) -> str:
    """What was judged, in words (raw text): ``A -> B`` (diff), ``A against baseline B`` (lint), ``A, 3 calls
    made, 2 checked against …`` (probe)."""
    if report.kind == "lint":
        base = f" against baseline {report.baseline.label}" if report.baseline is not None else ""
        return f"{who(report.new)}{base}"
    if report.kind == "probe":
        if not any(c.get("checked") for c in report.calls):  # the probe-nothing-checked note says why
            return (
                f"{who(report.new)}, {call_counts(report)[: -len(', 0 checked')]}, none checked against an outputSchema"
            )
        against = f" and the cached {', '.join(s.label for s in report.cached)}" if report.cached else ""
        return f"{who(report.new)}, {call_counts(report)} against the tools' own{against} outputSchemas"
    assert report.old is not None
    return f"{who(report.old)} -> {who(report.new)}"


def call_counts(report: Report) -> str:
    """How many calls a probe made and how many results it checked against an outputSchema (raw text):
    ``6 calls made, 5 checked`` (``8 calls planned, 6 made, 5 checked`` when the run's budget left some out)."""
    checked = sum(1 for c in report.calls if c.get("checked"))
    return f"{calls_made(report)}, {checked} checked"


def calls_made(report: Report) -> str:
    """How many calls a probe made (raw text): ``6 calls made`` (``8 calls planned, 6 made`` when the run's budget
    left some out)."""
    n = len(report.calls)
    made = sum(1 for c in report.calls if c.get("outcome") not in UNMADE_OUTCOMES)
    return f"{plural(n, 'call')} planned, {made} made" if made != n else f"{plural(n, 'call')} made"


def headline(report: Report) -> str:
    """What the report is, in words (raw text): ``diff: A -> B`` (``diff (mode full): …``), ``lint: A``,
    ``probe: A, 3 calls, …``."""
    mode = f" (mode {report.mode})" if report.kind == "diff" and report.mode != "backward" else ""
    return f"{report.kind}{mode}: {subject(report)}"


def snapshot_of(report: Report, f: Finding) -> Snapshot:
    """The snapshot a finding is located in: NEW, unless its item (tool, prompt, resource, template) exists only
    in OLD (a removed one); for a
    real result a cached version rejects (probe, ``--samples``), the first such cached version."""
    cohorts = (f.witness or {}).get("cohorts") if isinstance(f.witness, dict) else None
    if cohorts:
        for s in report.snapshots():
            if s.label == cohorts[0] and s is not report.new and any(t.get("name") == f.tool for t in s.tools):
                return s
    return snapshot_of_item(f, [report.new] + ([report.old] if report.old is not None else []))


def validator_line(v: dict[str, Any]) -> str:
    """How inputs were judged, one line of every diff and history report (``audit.validator_json``'s dict):
    ``inputs to 0.2.6 judged as <summary> (zod-strip; inferred from …)`` or ``(… ; chosen with
    --server-validator)``. Holds server text (the label): render it inertly."""
    how = f"inferred from {v['inferred_from']}" if v["inferred"] else "chosen with --server-validator or the config"
    return f"inputs to {v['version']} judged as {v['summary']} ({v['validator']}; {how})"


def describe_entry(entry: Any) -> str:
    """An ignore entry (``{"rule", "tool", "pointer", "direction", "fingerprint", "reason", "expires"}``) in words."""
    if not isinstance(entry, dict):
        return str(entry)
    match = ", ".join(
        f"{k} {entry[k]}"
        for k in ("fingerprint", "rule", "tool", "direction", "pointer")
        if entry.get(k) not in (None, "")
    )
    extra = [f"reason: {entry['reason']}"] if entry.get("reason") else []
    if entry.get("expires"):
        extra.append(f"expired {entry['expires']}")
    return (match or "(matches everything)") + (f" ({'; '.join(extra)})" if extra else "")


def summary_line(report: Report) -> str:
    """``2 breaking, 0 warning, 1 info; gate FAILED (--fail-on breaking)`` (and ``; N ignored``)."""
    s = report.summary
    verdict = "gate passed" if report.passed else "gate FAILED"
    line = f"{s['breaking']} breaking, {s['warning']} warning, {s['info']} info; {verdict} (--fail-on {report.fail_on})"
    if report.ignored:
        line += f"; {len(report.ignored)} ignored"
    return line


def roles(report: Report, f: Finding) -> tuple[str, str]:
    """``(cached, served)``: the labels of the version hosts cached and the version the server runs, for ``f``.

    Backward findings: OLD is cached, NEW is served; forward findings (tag ``forward``): NEW is cached,
    OLD is served. Raw (not yet escaped) text.
    """
    if report.old is None:
        return report.new.label, report.new.label
    if is_forward(report, f):
        return report.new.label, report.old.label
    return report.old.label, report.new.label


def is_forward(report: Report, f: Finding) -> bool:
    """True for a finding of ``--mode forward|full`` that compares hosts holding NEW with a server running OLD."""
    return report.mode in ("forward", "full") and "forward" in f.tags


def real_result_sides(served: str, f: Finding) -> tuple[str, str]:
    """``(accepted, rejected)`` for a witness that is a real result (``accepted_by: "server"``: probe,
    ``--samples``): who sent it and which hosts reject it. Raw text."""
    w = f.witness or {}
    hosts = ", ".join(f.hosts)
    with_hosts = f" ({hosts})" if hosts else ""
    call = w.get("call")
    sent = f"sent by {served}" + (f" in call {call}" if call else "")
    cohorts = w.get("cohorts") or []
    if cohorts:
        return sent, f"hosts that cached {', '.join(str(c) for c in cohorts)}{with_hosts}"
    if f.rule == "result-malformed":  # the client's own parser refuses it, whatever the tool's schema
        return sent, f"the SDK clients{with_hosts}, before any outputSchema"
    return sent, f"hosts holding its current outputSchema{with_hosts}"


def listing_rejecters(f: Finding) -> str:
    """Who refuses a listing-time breaker and how, in words: ``"SDK clients (ts-sdk-v1) with the whole tools/list;
    SDK clients (python-sdk, ts-sdk-v2) on every call of the tool"`` (the rule's ``per_call`` profiles list the
    tool and fail its calls; the others lose the listing)."""
    per_call = RULES[f.rule].per_call if f.rule in RULES else ()
    listing = [h for h in f.hosts if h not in per_call]
    calls = [h for h in f.hosts if h in per_call]
    parts = [f"SDK clients ({', '.join(listing)}) with the whole tools/list"] if listing else []
    if calls:
        parts.append(f"SDK clients ({', '.join(calls)}) on every call of the tool")
    return "; ".join(parts) or "SDK clients with the whole tools/list"


def witness_sides(report: Report, f: Finding) -> tuple[str, str]:
    """``(accepted, rejected)``: who takes ``f``'s witness and who rejects it, in words with snapshot labels.

    E.g. ``("accepted by 0.2.6 (served)", "hosts that cached 0.2.5 (python-sdk, ts-sdk-v2)")`` for an output
    witness, ``("accepted by 0.2.5 (cached)", "the server running 0.2.6 (zod-strip, inferred)")`` for an
    argument witness (named by the server validator that judged it), ``("listed by 0.2.6 (served)", "SDK
    clients (…) with the whole tools/list")`` for a listing-time breaker, ``("sent by 0.2.6 in call c1",
    "hosts that cached 0.2.5 (…)")`` for a real result, ``("allowed by the inputSchema cached from v1", "the
    server running v2 (demo-mail 2.0.0)")`` for a real call's arguments (``input-call-rejected``). The witness's
    ``accepted_by`` (``"old"`` = OLD, ``"new"`` = NEW, as given on the command line; ``"server"`` for a real
    result) picks the accepting side.
    Callers write ``f"{accepted}, rejected by {rejected}"``. Raw (not yet escaped) text.
    """
    hosts = ", ".join(f.hosts)
    with_hosts = f" ({hosts})" if hosts else ""
    w = f.witness or {}
    if w.get("accepted_by") == "server":
        return real_result_sides(who(report.new) if report.kind == "probe" else report.new.label, f)
    listing = listing_rejecters(f)
    if f.rule == "input-call-rejected":  # a real call's arguments, built from a cached inputSchema
        cohorts = ", ".join(str(c) for c in w.get("cohorts") or [])
        return f"allowed by the inputSchema cached from {cohorts}", f"the server running {who(report.new)}"
    if report.kind in ("lint", "probe") or report.old is None:
        if f.rule in LISTING_RULES:
            return f"listed by {report.new.label}", listing
        return f"accepted by {report.new.label}", f"hosts{with_hosts}"
    cached, served = roles(report, f)
    if f.rule in LISTING_RULES:
        return f"listed by {served} (served)", listing
    served_side = "old" if is_forward(report, f) else "new"
    accepting_side = "old" if w.get("accepted_by") == "old" else "new"
    accepted = report.old.label if accepting_side == "old" else report.new.label
    if accepting_side == served_side:  # a result the server sends: hosts holding the other schema reject it
        return f"accepted by {accepted} (served)", f"hosts that cached {cached}{with_hosts}"
    if f.server is not None:  # an argument judged by the server's own validator (engine.arguments)
        how = f"{f.server['validator']}, inferred" if f.server.get("inferred") else f.server["validator"]
        return f"accepted by {accepted} (cached)", f"the server running {served} ({how})"
    # an argument witness no server validator judged: the server rejects it, and SDK host profiles are not it
    return f"accepted by {accepted} (cached)", f"the server running {served}"


#: What the server did with an argument witness, by ``Finding.server["outcome"]`` (``engine.servers``), when it did
#: not reject it: the words that replace "rejected by" (zod strips an unknown key without an error).
_SERVER_DID = {
    "dropped": "dropped without an error by",
    "kept": "kept unread by",
    "filled": "filled with a default by",
    "accepted": "accepted by",
}


def refused_by(f: Finding, rejected: str) -> str:
    """``"rejected by " + rejected``, or what the server did instead (``"dropped without an error by the server
    running v2 (zod-strip, inferred)"`` for an argument it strips): ``rejected`` is ``witness_sides``'s second."""
    outcome = (f.server or {}).get("outcome")
    return f"{_SERVER_DID.get(str(outcome), 'rejected by')} {rejected}"


def plain_message(report: Report, f: Finding, head: str, intro: str) -> str:
    """One-line plain text of a finding: head, pointer, detail, reason, then ``intro`` followed by who accepts
    and who rejects the witness (snapshot labels, ``witness_sides``) and the rejecting validator's error."""
    text = f"{head} {f.pointer or '(root)'}: {detail(f)}"
    if f.reason:
        text += f" ({f.reason})"
    if f.witness and f.witness.get("error"):
        accepted, rejected = witness_sides(report, f)
        text += f"{intro} {accepted}, {refused_by(f, rejected)}: {f.witness['error']}"
    return text


def call_line(call: dict[str, Any]) -> str:
    """One probe call in words (raw text): ``c1 get_chart: result (structuredContent)`` / ``…: tool error: …``."""
    what = {"not-listed": "not called"}.get(str(call.get("outcome")), str(call.get("outcome", "?")))
    if call.get("outcome") == "result":
        what = (
            "result"
            + (" (isError)" if call.get("is_error") else "")
            + (" with structuredContent" if call.get("structured") else " without structuredContent")
        )
        if call.get("checked") is False and not call.get("is_error"):
            what += " (not checked: no outputSchema)"
    message = call.get("message")
    name = str(call.get("tool")) if call.get("id") == call.get("tool") else f"{call.get('id')} ({call.get('tool')})"
    return f"{name}: {what}" + (f": {message}" if message else "")
