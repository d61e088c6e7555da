"""The report of one diff and its renderers. Renderers are pure: ``render_<format>(report) -> str``.

Formats (``RENDERERS``): ``text`` (humans, via rich without markup), ``json`` (the stable contract,
schema in ``report_schema.json``), ``markdown`` (a pull-request comment or step summary), ``sarif``
(SARIF 2.1.0 for code scanning), ``github`` (workflow commands: annotations) and ``junit`` (JUnit
XML, one test case per tool). Machine formats always emit a whole document, also with no findings.

Every piece of server-provided text (tool names, descriptions, enum values, schema keys, witness
values, validator errors) is shown inertly: control, bidi and zero-width characters (ANSI escapes
included) become visible ``\\xNN``/``\\uNNNN`` escapes (``inert``), rich markup is never interpreted,
and each format then escapes what is special to it (Markdown/HTML/mentions/links, SARIF embedded
links, workflow-command ``%``/newlines, XML via ElementTree).
"""

from __future__ import annotations

import functools
import io
import json
import re
import urllib.parse
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any, Callable

from mcp_schema_audit import __version__
from mcp_schema_audit.findings import SURFACE_WORDS, Finding, summarize
from mcp_schema_audit.locate import SECTION_OF as _SECTION
from mcp_schema_audit.locate import about as _about
from mcp_schema_audit.locate import junit_case as _case
from mcp_schema_audit.locate import line_of as _line_of
from mcp_schema_audit.locate import logical_name as _fqn
from mcp_schema_audit.locate import snapshot_of_item as _snapshot_of_item
from mcp_schema_audit.rules import RULES, SEVERITY_RANK, Rule
from mcp_schema_audit.schema import HOST_PROFILES
from mcp_schema_audit.snapshot import Snapshot

REPORT_VERSION = 1
FAIL_ON = ("breaking", "warning", "info", "never")
#: Control characters, bidi controls, zero-width characters, lone surrogates and XML non-characters.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069"
                      "\ufeff\ufff9-\ufffb\ufffe\uffff\ud800-\udfff]")
_SEVERITY_ORDER = ("breaking", "warning", "info")


def inert(text: Any) -> str:
    """``text`` as a string with every control, bidi or zero-width character replaced by a visible escape.

    Characters below U+0100 become ``\\xNN``, others ``\\uNNNN``; tab and newline are kept (each format
    deals with line structure itself). Non-strings are shown as compact JSON. The result is valid
    UTF-8 and valid XML 1.0 character data (lone surrogates are escaped too).
    """
    s = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False, default=str)
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}", s)


def _one_line(text: Any) -> str:
    """``inert`` text with tab, CR and LF shown as ``\\t``, ``\\r``, ``\\n`` (one line, nothing hidden)."""
    return inert(text).replace("\t", "\\t").replace("\n", "\\n")


@dataclass
class Report:
    """The result of ``diff`` (or ``lint``): both sides' identity, the findings (sorted), policy results, the gate.

    ``mode`` is ``backward`` | ``forward`` | ``full`` (``lint`` for a lint report); ``hosts`` the host
    profiles considered; ``ignored`` the findings suppressed by the ignore list, each with the entry's
    reason; ``expired_ignores`` the ignore entries whose ``expires`` date has passed (JSON-ready dicts:
    ``reason`` and the match fields, ``expires`` as an ISO date).
    """

    old: Snapshot
    new: Snapshot
    findings: list[Finding]
    fail_on: str = "breaking"
    notes: list[str] = field(default_factory=list)  #: run-level remarks (e.g. protocol versions differ)
    mode: str = "backward"
    hosts: list[str] = field(default_factory=lambda: list(HOST_PROFILES))
    ignored: list[tuple[Finding, str]] = field(default_factory=list)
    expired_ignores: list[dict[str, Any]] = field(default_factory=list)

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

    def to_json(self) -> dict[str, Any]:
        """The JSON report (stable contract; keys are only ever added). Schema: ``report_json_schema()``."""

        def side(s: Snapshot) -> dict[str, Any]:
            return {"label": s.label, "server": s.server, "protocol_version": s.protocol_version,
                    "source": s.source, "tool_count": len(s.tools)}

        return {
            "report_version": REPORT_VERSION,
            "schema_audit_version": __version__,
            "mode": self.mode,
            "hosts": list(self.hosts),
            "old": side(self.old),
            "new": side(self.new),
            "findings": [f.to_json() for f in self.findings],
            "summary": self.summary,
            "gate": {"fail_on": self.fail_on, "passed": self.passed},
            "notes": self.notes,
            "ignored": [{"finding": f.to_json(), "reason": reason} for f, reason in self.ignored],
            "expired_ignores": list(self.expired_ignores),
        }


# --- helpers shared by several formats ---------------------------------------------------------------


def _ordered(findings: list[Finding]) -> list[Finding]:
    """Breaking first, then warnings, then info; report order (tool, direction, pointer) within each."""
    return sorted(findings, key=lambda f: -SEVERITY_RANK[f.severity])


def _detail(f: Finding) -> str:
    """The finding's message without the ``tool: Title at pointer: `` prefix the engine puts first."""
    msg = f.message
    prefix = ""
    if msg.startswith("[forward:") and "] " in msg:
        prefix, msg = msg[: msg.index("] ") + 2], msg[msg.index("] ") + 2:]
    rule = RULES.get(f.rule)
    head = f"{f.subject}: "
    if msg.startswith(head):
        msg = msg[len(head):]
        if rule is not None:
            lead = f"{rule.title} at {f.pointer or '(root)'}: "
            if msg.startswith(lead):
                msg = msg[len(lead):]
    return prefix + msg


def _title(f: Finding) -> str:
    rule = RULES.get(f.rule)
    return rule.title if rule is not None else f.rule


def _who(s: Snapshot) -> str:
    """``label (server-name version)`` as raw (not yet escaped) text."""
    name = s.server.get("name") if isinstance(s.server, dict) else None
    ver = s.server.get("version") if isinstance(s.server, dict) else None
    extra = " ".join(str(x) for x in (name, ver) if x)
    return f"{s.label}" + (f" ({extra})" if extra else "")


def _snapshot_of(report: Report, f: Finding) -> Snapshot:
    """The snapshot a finding is located in: NEW, unless the tool (prompt, resource, template) exists only in
    OLD (a removed one)."""
    return _snapshot_of_item(f, [report.new, report.old])


def _describe_entry(entry: Any) -> str:
    """An ignore entry (``{"rule", "tool", "pointer", "direction", "fingerprint", "reason", "expires"}``) in words."""
    if not isinstance(entry, dict):
        return str(entry)
    match = ", ".join(f"{k} {entry[k]}" for k in ("fingerprint", "rule", "tool", "direction", "pointer")
                      if entry.get(k) not in (None, ""))
    extra = [f"reason: {entry['reason']}"] if entry.get("reason") else []
    if entry.get("expires"):
        extra.append(f"expired {entry['expires']}")
    return (match or "(matches everything)") + (f" ({'; '.join(extra)})" if extra else "")


def _summary_line(report: Report) -> str:
    s = report.summary
    verdict = "gate passed" if report.passed else "gate FAILED"
    line = f"{s['breaking']} breaking, {s['warning']} warning, {s['info']} info; {verdict} (--fail-on {report.fail_on})"
    if report.ignored:
        line += f"; {len(report.ignored)} ignored"
    return line


def _instance_json(instance: Any, limit: int | None = None) -> str:
    text = json.dumps(instance, ensure_ascii=False, sort_keys=True, indent=2, default=str)
    if limit is not None and len(text) > limit:
        text = text[:limit] + "\n… (truncated)"
    return inert(text)


# --- json --------------------------------------------------------------------------------------------


def render_json(report: Report) -> str:
    """Canonical JSON of ``Report.to_json()`` with a final newline.

    Control, bidi and zero-width characters and lone surrogates from the input are written as JSON
    ``\\u`` escapes with four hex digits: the text is valid UTF-8 and parses back to exactly the same value.
    """
    return _json_text(report.to_json(), sort_keys=True)


def _json_text(value: Any, *, sort_keys: bool) -> str:
    """JSON (indent 2, UTF-8 text, final newline) with every ``_CONTROL`` character as a ``\\u`` escape (four hex digits).

    Such characters only occur inside strings, so the text parses back to the same value; bidi
    controls and lone surrogates never reach a terminal or an editor raw, and the text is valid UTF-8.
    """
    text = json.dumps(value, sort_keys=sort_keys, indent=2, ensure_ascii=False, default=str) + "\n"
    return _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


@functools.lru_cache(maxsize=1)
def _schema_text() -> str:
    from importlib import resources

    return resources.files("mcp_schema_audit").joinpath("report_schema.json").read_text(encoding="utf-8")


def report_json_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) of ``render_json`` output (a fresh dict each call).

    Loaded from the package data file ``mcp_schema_audit/report_schema.json``. Objects allow keys
    the schema does not list, because the report only ever gains keys.
    """
    return json.loads(_schema_text())


# --- text --------------------------------------------------------------------------------------------

_STYLE = {"breaking": "bold red", "warning": "yellow", "info": "cyan"}


def _tx(text: Any) -> str:
    """Server text for the text report: one line (``_one_line``), and no ``::`` or ``##[`` left, so no
    line of a CI log, wrapped or not, can read as a GitHub workflow command (shown as ``:\\x3a``)."""
    return _one_line(text).replace("::", ":\\x3a").replace("##[", "#\\x23[")


def render_text(report: Report, *, color: bool = False, width: int = 120) -> str:
    """A human report: header, one entry per finding (breaking first), witnesses, summary line."""
    from rich.console import Console
    from rich.text import Text

    buf = io.StringIO()
    # soft_wrap: never hard-wrap a line (CI logs and files keep whole lines; terminals wrap themselves)
    console = Console(file=buf, width=width, force_terminal=color, no_color=not color, highlight=False,
                      emoji=False, markup=False, soft_wrap=True)

    def who(s: Snapshot) -> str:
        return _tx(_who(s))

    if report.mode == "lint":
        console.print(Text(f"schema-audit lint: {who(report.new)}"))
    else:
        mode = "" if report.mode == "backward" else f" (mode {_tx(report.mode)})"
        console.print(Text(f"schema-audit diff{mode}: {who(report.old)} -> {who(report.new)}"))
    for note in report.notes:
        console.print(Text(f"note: {_tx(note)}", style="yellow"))
    ordered = _ordered(report.findings)
    if not ordered:
        console.print(Text("No findings." if report.mode == "lint" else "No schema changes."
                           if not report.ignored else f"No findings besides {len(report.ignored)} ignored."))
    for f in ordered:
        head = Text()
        head.append(f"{f.severity:<8}", style=_STYLE[f.severity])
        tags = f" ({', '.join(f.tags)})" if f.tags else ""
        head.append(f" {_tx(_about(f))} {_tx(f.pointer) or '(root)'}  [{f.rule}]{tags}")
        console.print(head)
        console.print(Text(f"         {_tx(_detail(f))}"))
        if f.reason:
            console.print(Text(f"         ({_tx(f.reason)})", style="dim"))
        if f.severity == "breaking" and f.witness:
            w = f.witness
            inst = json.dumps(w.get("instance"), ensure_ascii=False, sort_keys=True, default=str)
            if len(inst) > 300:
                inst = inst[:299] + "…"
            console.print(Text(f"         witness: {_tx(inst)}", style="dim"))
            accepted, rejected = witness_sides(report, f)
            console.print(Text(f"         {_tx(accepted)}, rejected by {_tx(rejected)}: "
                               f"{_tx(w.get('error', ''))}", style="dim"))
            fix = _fix(f.rule)
            if fix:
                console.print(Text(f"         fix: {fix}", style="dim"))
    for f, reason in report.ignored:
        console.print(Text(f"ignored  {_tx(_about(f))} {_tx(f.pointer) or '(root)'}  [{f.rule}]: "
                           f"{_tx(reason)}", style="dim"))
    for entry in report.expired_ignores:
        console.print(Text(f"warning: expired ignore entry no longer applies: {_tx(_describe_entry(entry))}",
                           style="yellow"))
    console.print(Text(_summary_line(report), style="bold" if not report.passed else ""))
    return buf.getvalue()


#: Rules whose witness is a tool entry that SDK clients reject with the whole tools/list.
_LISTING_RULES = ("input-schema-not-object", "output-schema-not-object", "schema-boolean-property",
                  "output-schema-uncompilable", "schema-metaschema-invalid")


def roles(report: Report, f: Finding) -> tuple[str, str]:
    """``(cached, served)``: the labels of the version hosts cached and the version the server runs, for ``f``.

    Backward findings: OLD is cached, NEW is served; forward findings (tag ``forward``): NEW is cached,
    OLD is served. Raw (not yet escaped) text.
    """
    if _is_forward(report, f):
        return report.new.label, report.old.label
    return report.old.label, report.new.label


def _is_forward(report: Report, f: Finding) -> bool:
    """True for a finding of ``--mode forward|full`` that compares hosts holding NEW with a server running OLD."""
    return report.mode in ("forward", "full") and "forward" in f.tags


def witness_sides(report: Report, f: Finding) -> tuple[str, str]:
    """``(accepted, rejected)``: who takes ``f``'s witness and who rejects it, in words with snapshot labels.

    E.g. ``("accepted by 0.2.6 (served)", "hosts that cached 0.2.5 (python-sdk, ts-sdk-v2)")`` for an output
    witness, ``("accepted by 0.2.5 (cached)", "the server running 0.2.6 (python-sdk)")`` for an argument
    witness, ``("listed by 0.2.6 (served)", "SDK clients (…) with the whole tools/list")`` for a listing-time
    breaker. The witness's ``accepted_by`` (``"old"`` = OLD, ``"new"`` = NEW, as given on the command line)
    picks the accepting side. Callers write ``f"{accepted}, rejected by {rejected}"``. Raw (not yet
    escaped) text.
    """
    hosts = ", ".join(f.hosts)
    with_hosts = f" ({hosts})" if hosts else ""
    w = f.witness or {}
    listing = f"SDK clients{with_hosts} with the whole tools/list"
    if report.mode == "lint":
        if f.rule in _LISTING_RULES:
            return f"listed by {report.new.label}", listing
        return f"accepted by {report.new.label}", f"hosts{with_hosts}"
    cached, served = roles(report, f)
    if f.rule in _LISTING_RULES:
        return f"listed by {served} (served)", listing
    served_side = "old" if _is_forward(report, f) else "new"
    accepting_side = "old" if w.get("accepted_by") == "old" else "new"
    accepted = report.old.label if accepting_side == "old" else report.new.label
    if accepting_side == served_side:  # a result the server sends: hosts holding the other schema reject it
        return f"accepted by {accepted} (served)", f"hosts that cached {cached}{with_hosts}"
    return f"accepted by {accepted} (cached)", f"the server running {served}{with_hosts}"


def _fix(rule_id: str) -> str:
    from mcp_schema_audit.rules import RULES

    rule = RULES.get(rule_id)
    return rule.fix if rule is not None else ""


# --- markdown ----------------------------------------------------------------------------------------

#: Characters written as numeric character references: inline Markdown syntax, HTML, GitHub math ($)
#: and table pipes. References are decoded as literal text in Markdown and in HTML blocks alike.
#: Server text never starts a line (every line begins with fixed text), so line-start syntax
#: (lists, headings, setext underlines, quotes) cannot form from it.
_MD_ENTITY = set("\\`*_{}[]()<>#!|~&$")
_AUTOLINK = re.compile(r"(?i)(://|www\.)")
#: GitHub's limit for one comment is 65,536 characters; keep well below it.
MARKDOWN_BUDGET = 60_000
_MD_WITNESS_LIMIT = 4_000
_ICON = {"breaking": "🔴", "warning": "🟡", "info": "🔵"}


def md_escape(text: Any) -> str:
    """Server text as inert Markdown: no markup, HTML, links, images, mentions or references survive.

    ``inert`` first, then line breaks as visible ``\\n``; Markdown/HTML punctuation becomes numeric
    character references; a zero-width space follows every ``@`` and ``#`` (no mentions, team
    mentions, e-mail autolinks or issue references) and breaks ``://`` and ``www.`` (no autolinks).
    """
    s = _one_line(text)
    s = _AUTOLINK.sub(lambda m: ":\u200b//" if m.group() == "://" else m.group()[:3] + "\u200b.", s)
    out = []
    for ch in s:
        if ch in _MD_ENTITY:
            out.append(f"&#{ord(ch)};")
            if ch == "#":
                out.append("\u200b")
        elif ch == "@":
            out.append("@\u200b")
        else:
            out.append(ch)
    return "".join(out)


def md_code(text: Any) -> str:
    """Server text as a Markdown code span (one line; delimiters longer than any backtick run inside)."""
    s = _one_line(text)
    longest = max((len(m) for m in re.findall(r"`+", s)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if (s.startswith("`") or s.endswith("`") or longest) else ""
    return f"{ticks}{pad}{s}{pad}{ticks}"


def md_fence(content: str, info: str = "") -> str:
    """A fenced code block around (already inert) ``content``, its fence longer than any backtick run in it."""
    longest = max((len(m) for m in re.findall(r"`+", content)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{content}\n{fence}"


def _md_finding(report: Report, f: Finding, *, witness: bool = True) -> str:
    where = md_code(f.pointer) if f.pointer else "(root)"
    block = (f"{_ICON[f.severity]} {_md_about(f)} · {where} · "
             f"{md_escape(_title(f))} (`{f.rule}`): {md_escape(_detail(f))}")
    if f.reason:
        block += f"<br>\n*Reason: {md_escape(f.reason)}*"
    if witness and f.witness:
        w = f.witness
        what = "result" if f.direction == "output" else "value" if f.surface == "tool" else "request"
        accepted, rejected = witness_sides(report, f)
        summary = f"Witness: a {what} {md_escape(accepted)}, rejected by {md_escape(rejected)}"
        body = [f"<details><summary>{summary}</summary>", "",
                md_fence(_instance_json(w.get("instance"), _MD_WITNESS_LIMIT), "json"), ""]
        if w.get("instance_pointer") not in (None, ""):
            body += [f"At {md_code(w['instance_pointer'])} of the instance.", ""]
        if w.get("error"):
            body += [f"Host error: {md_escape(w['error'])}", ""]
        body.append("</details>")
        block += "\n\n" + "\n".join(body)
    return block


def _md_about(f: Finding) -> str:
    """``**tool** · direction`` for a tool finding, ``prompt **name**`` (surface words, item in bold) otherwise."""
    if f.surface == "tool":
        return f"**{md_escape(f.tool)}** · {f.direction}"
    words = f.subject[: len(f.subject) - len(f.name)]
    return f"{md_escape(words)}**{md_escape(f.name)}**"


def render_markdown(report: Report) -> str:
    """A pull-request comment: summary line first, then breaking, warnings, info (collapsed), ignored.

    Witnesses are collapsible ``<details>`` blocks with the instance as a JSON code block and the
    host's error. All server text goes through ``md_escape``/``md_code``/``md_fence``. Stays under
    ``MARKDOWN_BUDGET`` characters: findings past it are counted, not shown.
    """
    s = report.summary
    icon = "✅" if report.passed else "❌"
    verdict = "gate passed" if report.passed else "gate failed"
    ignored = f", {len(report.ignored)} ignored" if report.ignored else ""
    parts = [f"### {icon} schema-audit: {s['breaking']} breaking, {s['warning']} warning, {s['info']} info"
             f"{ignored} — {verdict} (fail-on: {report.fail_on})"]
    hosts = ", ".join(md_escape(h) for h in report.hosts)
    parts.append(f"**{md_escape(_who(report.old))}** → **{md_escape(_who(report.new))}** · "
                 f"mode: {md_escape(report.mode)} · hosts: {hosts}")
    for note in report.notes:
        parts.append(f"> **Note:** {md_escape(note)}")
    for entry in report.expired_ignores:
        parts.append(f"> **Expired ignore entry** (no longer applies): {md_escape(_describe_entry(entry))}")
    if not report.findings:
        parts.append("No schema changes." if not report.ignored else "No schema changes besides ignored findings.")

    used = sum(len(p) + 2 for p in parts)
    hidden = 0

    def add(text: str) -> bool:
        nonlocal used
        if used + len(text) + 2 > MARKDOWN_BUDGET:
            return False
        parts.append(text)
        used += len(text) + 2
        return True

    by_sev = {sev: [f for f in report.findings if f.severity == sev] for sev in _SEVERITY_ORDER}
    for sev, heading in (("breaking", "Breaking"), ("warning", "Warnings")):
        items = by_sev[sev]
        if not items:
            continue
        if not add(f"#### {heading} ({len(items)})"):
            hidden += len(items)
            continue
        for i, f in enumerate(items):
            if not add(_md_finding(report, f)):
                hidden += len(items) - i
                break
    for title, items in (("info finding", [(f, None) for f in by_sev["info"]]),
                         ("finding ignored by the config", list(report.ignored))):
        if not items:
            continue
        plural = "s" if len(items) != 1 else ""
        word = title.replace("finding", "finding" + plural, 1)
        lines = [f"<details><summary>{len(items)} {word}</summary>", ""]
        shown = 0
        size = used + sum(len(x) + 1 for x in lines) + 20
        for f, reason in items:
            where = md_code(f.pointer) if f.pointer else "(root)"
            line = (f"- {_ICON[f.severity]} {_md_about(f)} · {where} · "
                    f"{md_escape(_title(f))} (`{f.rule}`): {md_escape(_detail(f))}")
            if reason is not None:
                line += f" — ignored: {md_escape(reason)}"
            if size + len(line) + 1 > MARKDOWN_BUDGET:
                break
            lines.append(line)
            size += len(line) + 1
            shown += 1
        hidden += len(items) - shown
        lines += ["", "</details>"]
        if shown:
            add("\n".join(lines))
    if hidden:
        parts.append(f"*{hidden} more finding(s) not shown here: see the JSON or SARIF report.*")
    parts.append(f"<sub>schema-audit {__version__} · {_summary_line(report).replace('--fail-on', 'fail-on')}</sub>")
    return "\n\n".join(parts) + "\n"


# --- sarif -------------------------------------------------------------------------------------------

SARIF_SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
_SARIF_LEVEL = {"breaking": "error", "warning": "warning", "info": "note"}
_SARIF_URI_SAFE = "/-._~!$&'()*+,;=@"


def sarif_text(text: Any) -> str:
    """Plain SARIF message text: one line (``inert``, visible ``\\n``), and ``\\``, ``[``, ``]`` escaped so
    no embedded link (``[text](target)``, SARIF §3.11.6) can form."""
    return re.sub(r"([\\\[\]])", r"\\\1", _one_line(text))


def artifact_uri(source: str) -> str | None:
    """A SARIF ``artifactLocation.uri`` for a snapshot ``source`` (``None`` when there is none).

    ``git:REF:PATH`` → PATH; an absolute path under the working directory → relative to it (code
    scanning wants repository-relative paths); other absolute paths → ``file:`` URIs. Percent-encoded.
    """
    if not source:
        return None
    path = source
    if source.startswith("git:") and source.count(":") >= 2:
        path = source.split(":", 2)[2]
    if "\\" in path and PureWindowsPath(path).drive:
        path = PureWindowsPath(path).as_posix()
    p = Path(path)
    if p.is_absolute():
        try:
            p = p.relative_to(Path.cwd())
        except ValueError:
            return p.as_uri()
    rel = PurePosixPath(p.as_posix()).as_posix()
    if rel.startswith("./"):
        rel = rel[2:]
    return urllib.parse.quote(rel, safe=_SARIF_URI_SAFE)  # ':' is encoded, so no segment reads as a scheme


def _sarif_uri(snap: Snapshot) -> str:
    """The snapshot's ``artifact_uri``; without a source, its default store path (code scanning rejects a
    whole log when one result has no physical location)."""
    uri = artifact_uri(snap.source)
    if uri is None:
        uri = urllib.parse.quote(f".schema-audit/snapshots/{snap.label}.json", safe=_SARIF_URI_SAFE)
    return uri


def _rule_descriptor(rule: Rule) -> dict[str, Any]:
    help_lines = [rule.rationale]
    md_lines = [rule.rationale]
    if rule.before or rule.after:
        help_lines += [f"before: {rule.before}", f"after: {rule.after}"]
        md_lines += ["", "Before:", "", md_fence(rule.before, "json"), "", "After:", "", md_fence(rule.after, "json")]
    if rule.error:
        help_lines.append(f"host error: {rule.error}")
        md_lines += ["", f"Host error: {md_code(rule.error)}"]
    if rule.source:
        help_lines.append(f"source: {rule.source}")
        md_lines += ["", f"Source: {md_escape(rule.source)}"]
    return {
        "id": rule.id,
        "name": "".join(part.capitalize() for part in rule.id.split("-")),
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.rationale},
        "help": {"text": "\n".join(help_lines), "markdown": "\n".join(md_lines)},
        "defaultConfiguration": {"level": _SARIF_LEVEL[rule.severity]},
        "properties": {"direction": rule.direction, "tags": ["mcp", "json-schema", rule.direction]},
    }


def _plain_message(report: Report, f: Finding, head: str, intro: str) -> str:
    """One-line plain text of a finding: head, pointer, detail, reason, then ``intro`` followed by who accepts
    and who rejects the witness (snapshot labels, ``witness_sides``) and the rejecting validator's error."""
    text = f"{head} {f.pointer or '(root)'}: {_detail(f)}"
    if f.reason:
        text += f" ({f.reason})"
    if f.witness and f.witness.get("error"):
        accepted, rejected = witness_sides(report, f)
        text += f"{intro} {accepted}, rejected by {rejected}: {f.witness['error']}"
    return text


def _sarif_result(report: Report, f: Finding, index: dict[str, int], ignored_reason: str | None) -> dict[str, Any]:
    snap = _snapshot_of(report, f)
    text = _plain_message(report, f, f"{f.tool} ({f.direction})" if f.surface == "tool" else f.subject, ". Witness")
    fqn = _fqn(f)
    # code scanning requires a region: the line of the tool's "name" in the snapshot file (1 when unknown,
    # e.g. for git:REF:PATH, whose content may differ from the working tree's file)
    location = {"physicalLocation": {"artifactLocation": {"uri": _sarif_uri(snap)},
                                     "region": {"startLine": _line_of(snap, f)}},
                "logicalLocations": [{"name": inert(f.name), "fullyQualifiedName": inert(fqn),
                                      "kind": "function" if f.surface == "tool" else "object"}]}
    props: dict[str, Any] = {"tool": f.tool, "surface": f.surface, "name": f.name, "direction": f.direction,
                             "pointer": f.pointer,
                             "old_pointer": f.old_pointer, "new_pointer": f.new_pointer, "hosts": f.hosts,
                             "severity": f.severity, "witness": f.witness, "old": f.old, "new": f.new,
                             "snapshot": snap.label}
    if f.reason:
        props["reason"] = f.reason
    if f.tags:
        props["tags"] = f.tags
    result: dict[str, Any] = {
        "ruleId": f.rule,
        "level": _SARIF_LEVEL[f.severity],
        "message": {"text": sarif_text(text)},
        "locations": [location],
        "partialFingerprints": {"schemaAudit/v1": f.fingerprint},
        "properties": props,
    }
    if f.rule in index:
        result["ruleIndex"] = index[f.rule]
    if ignored_reason is not None:
        result["suppressions"] = [{"kind": "external", "status": "accepted",
                                   "justification": sarif_text(ignored_reason)}]
    return result


def render_sarif(report: Report) -> str:
    """SARIF 2.1.0: one run, ``tool.driver`` = schema-audit with the whole rule catalog, one result per finding.

    Ignored findings are results with an external, accepted ``suppression`` (justification = the
    ignore entry's reason). Locations: the snapshot file (NEW's; OLD's for a removed tool) with a
    ``region.startLine`` (the line of the tool's ``"name"`` in that file when it was loaded from a file,
    else 1) plus a logical location ``tool/outputSchema#pointer``; ``properties`` carries tool, direction, pointer,
    hosts and witness; ``partialFingerprints["schemaAudit/v1"]`` is the finding's fingerprint.
    """
    rules = [_rule_descriptor(r) for r in RULES.values()]
    known = {r.id for r in RULES.values()}
    for f in [*report.findings, *(g for g, _ in report.ignored)]:
        if f.rule not in known:  # a rule outside the catalog (should not happen): still describe it
            known.add(f.rule)
            rules.append({"id": f.rule, "shortDescription": {"text": f.rule},
                          "defaultConfiguration": {"level": _SARIF_LEVEL[f.severity]}})
    index = {r["id"]: i for i, r in enumerate(rules)}
    results = [_sarif_result(report, f, index, None) for f in _ordered(report.findings)]
    results += [_sarif_result(report, f, index, reason) for f, reason in report.ignored]

    def side(s: Snapshot) -> dict[str, Any]:
        return {"label": s.label, "server": s.server, "protocol_version": s.protocol_version, "source": s.source}

    return sarif_log([report.old, report.new], rules, results, {
        "mode": report.mode, "hosts": list(report.hosts), "old": side(report.old), "new": side(report.new),
        "summary": report.summary, "gate": {"fail_on": report.fail_on, "passed": report.passed},
        "notes": [inert(n) for n in report.notes], "expired_ignores": report.expired_ignores})


def sarif_log(snaps: list[Snapshot], rules: list[dict[str, Any]], results: list[dict[str, Any]],
              properties: dict[str, Any]) -> str:
    """The SARIF 2.1.0 log text of one schema-audit run: ``snaps`` become the artifacts (one per distinct
    URI, in order), ``rules`` the driver's rule descriptors, ``results`` and the run's ``properties`` as
    given. Shared by ``diff`` and ``history``."""
    artifacts: list[dict[str, Any]] = []
    for snap in snaps:
        uri = _sarif_uri(snap)
        if all(a["location"]["uri"] != uri for a in artifacts):
            artifacts.append({"location": {"uri": uri}, "roles": ["analysisTarget"], "mimeType": "application/json"})
    log = {
        "$schema": SARIF_SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "schema-audit", "version": __version__, "semanticVersion": __version__,
                                "rules": rules}},
            "artifacts": artifacts,
            "results": results,
            "columnKind": "unicodeCodePoints",
            "properties": properties,
        }],
    }
    return _json_text(log, sort_keys=False)


# --- github workflow commands ------------------------------------------------------------------------

_GH_COMMAND = {"breaking": "error", "warning": "warning", "info": "notice"}


def gh_data(text: Any) -> str:
    """Workflow-command data: ``inert``, then ``%``, CR and LF percent-encoded (GitHub's escaping)."""
    return inert(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def gh_property(text: Any) -> str:
    """Workflow-command property value: as ``gh_data`` plus ``:`` and ``,`` percent-encoded."""
    return gh_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(report: Report) -> str:
    """GitHub Actions workflow commands: one ``::error``/``::warning``/``::notice`` line per finding.

    Each line names the snapshot file (``file=``, with ``line=`` of the tool's ``"name"`` as in SARIF) and
    a title with the rule; the message says tool,
    direction, pointer, what changed and the witness error. Then one ``::warning`` per expired ignore
    entry and a final ``::notice`` with the summary (so the output is never empty).
    """
    lines = []
    for f in _ordered(report.findings):
        snap = _snapshot_of(report, f)
        props = []
        uri = artifact_uri(snap.source)
        if uri is not None and "://" not in uri and not uri.startswith("file:"):
            props.append(f"file={gh_property(urllib.parse.unquote(uri))}")
            props.append(f"line={_line_of(snap, f)}")  # the tool's "name" line, as in SARIF
        props.append(f"title={gh_property(f'schema-audit {f.severity}: {_title(f)} [{f.rule}]')}")
        msg = _plain_message(report, f, _about(f), " | witness")
        lines.append(f"::{_GH_COMMAND[f.severity]} {','.join(props)}::{gh_data(msg)}")
    for entry in report.expired_ignores:
        lines.append(f"::warning title={gh_property('schema-audit expired ignore entry')}::"
                     f"{gh_data('no longer applies: ' + _describe_entry(entry))}")
    lines.append(f"::notice title={gh_property('schema-audit')}::"
                 f"{gh_data(_who(report.old) + ' -> ' + _who(report.new) + ': ' + _summary_line(report))}")
    return "\n".join(lines) + "\n"


# --- junit -------------------------------------------------------------------------------------------


def _xml(text: Any) -> str:
    """Server text for XML: one line, valid XML 1.0 characters (ElementTree escapes ``& < > "``)."""
    return _one_line(text)


def _junit_entry(report: Report, f: Finding, reason: str | None = None) -> str:
    lines = [f"[{f.severity}] {f.rule}: {f.direction} {_xml(f.pointer) or '(root)'}: {_xml(_detail(f))}"]
    if f.reason:
        lines.append(f"  reason: {_xml(f.reason)}")
    if f.witness:
        w = f.witness
        inst = json.dumps(w.get("instance"), ensure_ascii=False, sort_keys=True, default=str)
        accepted, rejected = witness_sides(report, f)
        lines.append(f"  witness, {_xml(accepted)}: {_xml(inst)}")
        if w.get("error"):
            lines.append(f"  rejected by {_xml(rejected)}: {_xml(w['error'])}")
    if reason is not None:
        lines.append(f"  ignored: {_xml(reason)}")
    lines.append(f"  fingerprint: {f.fingerprint}")
    return "\n".join(lines)


def render_junit(report: Report) -> str:
    """JUnit XML: one ``<testcase>`` per tool (old ∪ new, by name), then one per prompt, resource and resource
    template (named like ``prompt summarize``) and ``server capabilities``/``server instructions`` when they
    have findings; ``classname`` = the server's name
    (else the new snapshot's label). A test case with findings at or above ``fail_on`` gets one
    ``<failure>`` (type = its highest severity) listing them; other findings and ignored ones go to
    ``<system-out>``. Built with ElementTree: every text is escaped, never concatenated as XML.
    """
    failing_ids = {id(f) for f in report.failing()}
    tools = sorted({t.get("name") for t in report.old.tools} | {t.get("name") for t in report.new.tools}
                   | {f.tool for f in report.findings if f.surface == "tool"}
                   | {f.tool for f, _ in report.ignored if f.surface == "tool"}, key=str)
    others = {f.subject for f in report.findings if f.surface != "tool"} | {
        f.subject for f, _ in report.ignored if f.surface != "tool"}
    for surface, section in _SECTION.items():
        if surface != "tool":
            for snap in (report.old, report.new):
                others |= {f"{SURFACE_WORDS[surface]} {name}" for name in snap.section_map(section) or {}}
    tools += sorted(others)
    server = report.new.server.get("name") if isinstance(report.new.server, dict) else None
    classname = _xml(server or report.new.label or "mcp-server")
    suite_name = _xml(f"schema-audit: {_who(report.old)} -> {_who(report.new)}")
    root = ET.Element("testsuites", {"name": "schema-audit"})
    suite = ET.SubElement(root, "testsuite", {"name": suite_name})
    props = ET.SubElement(suite, "properties")
    for name, value in (("schema-audit.version", __version__), ("mode", report.mode),
                        ("hosts", ",".join(report.hosts)), ("fail_on", report.fail_on),
                        ("old", report.old.label), ("new", report.new.label)):
        ET.SubElement(props, "property", {"name": name, "value": _xml(value)})
    failures = 0
    for tool in tools:
        case = ET.SubElement(suite, "testcase", {"classname": classname, "name": _xml(tool), "time": "0"})
        mine = [f for f in _ordered(report.findings) if _case(f) == tool]
        bad = [f for f in mine if id(f) in failing_ids]
        rest = [f for f in mine if id(f) not in failing_ids]
        if bad:
            failures += 1
            top = bad[0].severity
            n = len(bad)
            failure = ET.SubElement(case, "failure", {
                "type": top,
                "message": f"{n} finding{'s' if n != 1 else ''} at or above {report.fail_on}: "
                           + "; ".join(f"{f.rule} at {_xml(f.pointer) or '(root)'}" for f in bad),
            })
            failure.text = "\n\n".join(_junit_entry(report, f) for f in bad)
        out = [_junit_entry(report, f) for f in rest] + [_junit_entry(report, f, r) for f, r in report.ignored
                                                          if _case(f) == tool]
        if out:
            ET.SubElement(case, "system-out").text = "\n\n".join(out)
    counts = {"tests": str(len(tools)), "failures": str(failures), "errors": "0", "skipped": "0", "time": "0"}
    suite.attrib.update(counts)
    root.attrib.update(counts)
    ET.indent(root, space="  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


RENDERERS: dict[str, Callable[[Report], str]] = {
    "text": render_text,
    "json": render_json,
    "markdown": render_markdown,
    "sarif": render_sarif,
    "github": render_github,
    "junit": render_junit,
}
