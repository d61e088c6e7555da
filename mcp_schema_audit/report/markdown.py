"""The Markdown report (``--format markdown``): a pull-request comment or job summary of a diff, a lint, a
probe or a history.

Every piece of server text goes through ``md_escape`` (inline: CommonMark backslash escapes), ``md_lines``
(several lines inline), ``md_html`` (inside a raw HTML ``<summary>`` line: character references), ``md_code``
(code spans: nothing escaped) or ``md_fence`` (blocks): no markup, HTML, links, images, mentions or references
survive, and the text renders as it was sent. A report stays under
``MARKDOWN_BUDGET`` characters: what does not fit is counted, not shown.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

from mcp_schema_audit import __version__
from mcp_schema_audit.findings import Finding
from mcp_schema_audit.report import matrix
from mcp_schema_audit.report.cohorts import (
    GroupedFinding,
    History,
    affects,
    cohort_counts,
    is_tool_row,
)
from mcp_schema_audit.report.escape import inert, instance_json, no_workflow_commands, one_line
from mcp_schema_audit.report.formats import PLAIN, RenderOptions
from mcp_schema_audit.report.model import (
    Report,
    by_about,
    call_counts,
    call_line,
    describe_entry,
    detail,
    grouped,
    refused_by,
    runs,
    shared_detail,
    shared_fix,
    summary_line,
    title,
    traffic_words,
    validator_line,
    version_line,
    who,
    witness_sides,
)
from mcp_schema_audit.report.worddelta import finding_delta
from mcp_schema_audit.rules import RULES
from mcp_schema_audit.vocabulary import SEVERITIES

#: ASCII punctuation always written with a CommonMark backslash escape: code spans, emphasis, links and
#: images (``[``: without it ``]``, ``(`` and ``!`` form nothing), HTML and autolinks, strikethrough, GitHub math
#: (``$``) and table pipes (``\\|`` works inside a GFM table cell too). ``_`` is escaped only where it could open
#: or close emphasis (not inside a word: ``snake_case`` stays), ``&`` only where it could start a character
#: reference, the backslash only before ASCII punctuation or at the end (elsewhere it escapes nothing: ``\\n``
#: stays). Everything else is left as it is: ``{``, ``}``, ``>`` and ``!`` form nothing inside a line, and
#: server text never starts a line (every line begins with fixed text), so line-start syntax (lists, headings,
#: setext underlines, quotes) cannot form from it.
_MD_BACKSLASH = set("`*[<|~$")
_ASCII_PUNCT = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_AUTOLINK = re.compile(r"(?i)(://|www\.)")
_MENTION = re.compile(r"@|#(?=[0-9])")
#: GitHub's limit for one comment is 65,536 characters; keep well below it.
MARKDOWN_BUDGET = 60_000
#: Room kept for the line that counts what a report leaves out.
_LEFT_OUT_CHARS = 200
_MD_WITNESS_LIMIT = 4_000
_ICON = {"breaking": "🔴", "warning": "🟡", "info": "🔵"}


def _no_refs(s: str, references: bool) -> str:
    """``s`` with ``://`` and ``www.`` broken by a zero-width space (no autolinks) and, unless ``references``,
    a zero-width space after every ``@`` and every ``#`` before a digit (no mentions, team mentions, e-mail
    autolinks or issue references: GitHub links them in the rendered text, whatever the escaping)."""
    s = _AUTOLINK.sub(lambda m: ":\u200b//" if m.group() == "://" else m.group()[:3] + "\u200b.", s)
    if not references:
        s = _MENTION.sub(lambda m: m.group() + "\u200b", s)
    return s


def md_escape(text: Any, *, references: bool = False) -> str:
    """Server text as inert Markdown inline text (a paragraph, list item, heading or table cell): no markup,
    HTML, links, images, mentions or references survive, and it renders as the text that was sent.

    ``inert`` first, then line breaks as visible ``\\n``; the ASCII punctuation that could form markup gets a
    backslash escape (``_MD_BACKSLASH``; ``_`` outside words, ``&`` before a name or ``#``, ``\\`` before
    punctuation); a zero-width space follows every ``@`` and every ``#`` before a digit and breaks ``://`` and
    ``www.`` (``_no_refs``). ``references=True`` is for the user's own text (an ignore entry's reason): its
    ``#12`` and ``@team`` keep working, the rest is as inert. Not for raw HTML blocks (``<details><summary>``
    lines), where a backslash shows: use ``md_html`` there.
    """
    s = _no_refs(one_line(text), references)
    out = []
    last = len(s) - 1
    for i, ch in enumerate(s):
        after = s[i + 1] if i < last else ""
        if ch in _MD_BACKSLASH:
            out.append("\\" + ch)
        elif ch == "\\" and (not after or after in _ASCII_PUNCT):
            out.append("\\\\")
        elif ch == "_" and not (i and s[i - 1].isalnum() and after.isalnum()):
            out.append("\\_")
        elif ch == "&" and (after == "#" or after.isalnum()):
            out.append("\\&")
        else:
            out.append(ch)
    return "".join(out)


def md_html(text: Any, *, references: bool = False) -> str:
    """Server text inside a raw HTML block of the Markdown (the ``<details><summary>…</summary>`` line), where
    Markdown is not parsed and a backslash escape would show: ``one_line``, HTML specials as character
    references (``html.escape``), and no autolinks, mentions or references (``_no_refs``)."""
    return html.escape(_no_refs(one_line(text), references), quote=False)


def md_lines(text: Any) -> str:
    """Server text of several lines (a pydantic error: ``loc`` then ``  msg``) inline: each line ``md_escape``d,
    joined by ``<br>`` (a line break where it is shown, never a literal ``\\n``)."""
    return "<br>".join(md_escape(line) for line in str(text).strip("\n").split("\n"))


def md_code(text: Any) -> str:
    """Server text as a Markdown code span (one line; delimiters longer than any backtick run inside)."""
    s = one_line(text)
    longest = max((len(m) for m in re.findall(r"`+", s)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if (s.startswith("`") or s.endswith("`") or longest) else ""
    return f"{ticks}{pad}{s}{pad}{ticks}"


def md_fence(content: str, info: str = "") -> str:
    """A fenced code block around (already inert) ``content``, its fence longer than any backtick run in it."""
    longest = max((len(m) for m in re.findall(r"`+", content)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{content}\n{fence}"


def md_delta(segments: list[tuple[str, str]]) -> str:
    """A word delta (``worddelta.text_delta``) in Markdown: ``~~removed~~`` and ``**added**``, ``…`` where elided.

    Every piece of server text goes through ``md_escape`` (``~`` and ``*`` inside become references, so server
    text never closes a marker); whitespace at a piece's edges stays outside its markers (GitHub does not
    open ``~~`` or ``**`` before a space), and a change of whitespace only is shown as ``␣``.
    """
    out = []
    for kind, text in segments:
        if kind == "elided":
            out.append("…")
        elif kind == "same":
            out.append(md_escape(text))
        else:
            mark = "~~" if kind == "removed" else "**"
            core = text.strip()
            lead, trail = text[: len(text) - len(text.lstrip())], text[len(text.rstrip()) :]
            out.append(f"{md_escape(lead)}{mark}{md_escape(core) if core else '␣'}{mark}{md_escape(trail)}")
    return "".join(out)


def _md_change(f: Finding) -> str:
    """``<br>Change: …`` with the word delta of a changed text (``worddelta.has_delta``), else ``""``."""
    delta = finding_delta(f)
    return "" if delta is None else f"<br>Change: {md_delta(delta)}"


def md_about(f: Finding) -> str:
    """``**tool** · direction`` for a tool finding, ``prompt **name**`` (surface words, item in bold) otherwise."""
    if f.surface == "tool":
        return f"**{md_escape(f.tool)}** · {f.direction}" if f.tool else f"**{md_escape(f.subject)}**"
    words = f.subject[: len(f.subject) - len(f.name)]
    return f"{md_escape(words)}**{md_escape(f.name)}**"


def _md_finding(report: Report, f: Finding, *, witness: bool = True) -> str:
    where = md_code(f.pointer) if f.pointer else "(root)"
    block = (
        f"{_ICON[f.severity]} {md_about(f)} · {where} · "
        f"{md_escape(title(f))} (`{f.rule}`): {md_escape(detail(f))}{_md_change(f)}"
    )
    if (used := traffic_words(f)) is not None:
        block += f"<br>\n*Traffic: {used}*"
    if f.reason:
        block += f"<br>\n*Reason: {md_escape(f.reason)}*"
    if f.fix:
        block += f"<br>\n**Fix:** {md_escape(f.fix)}"
    if witness and f.witness:
        w = f.witness
        what = "result" if f.direction == "output" else "value" if f.surface == "tool" else "request"
        if w.get("accepted_by") == "server":
            what = "real result"
        accepted, rejected = witness_sides(report, f)
        summary = f"Witness: a {what} {md_html(accepted)}, {md_html(refused_by(f, rejected))}"
        body = [
            f"<details><summary>{summary}</summary>",
            "",
            md_fence(instance_json(w.get("instance"), _MD_WITNESS_LIMIT), "json"),
            "",
        ]
        if w.get("truncated"):
            body += ["(The instance is shortened: see the recording for the whole result.)", ""]
        if w.get("instance_pointer") not in (None, ""):
            body += [f"At {md_code(w['instance_pointer'])} of the instance.", ""]
        raw_errors = w.get("errors")
        errors: dict[str, Any] = raw_errors if isinstance(raw_errors, dict) else {}
        if len(errors) > 1:
            body += ["Host errors:", ""] + [f"- {md_escape(h)}: {md_lines(m)}" for h, m in errors.items()] + [""]
        elif w.get("error"):
            by = "Server error" if f.server is not None or f.direction == "input" else "Host error"
            message = str(w["error"]).strip("\n")
            if "\n" in message:  # pydantic's ``loc`` then ``  msg``: its lines (no line a workflow command)
                body += [f"{by}:", "", md_fence(no_workflow_commands(inert(message))), ""]
            else:
                body += [f"{by}: {md_escape(message)}", ""]
        body.append("</details>")
        block += "\n\n" + "\n".join(body)
    return block


def _md_group(group: list[Finding], *, bullet: bool = False) -> str:
    """Findings of one rule and severity as one entry: the count and the rule, the shared detail (or each one's),
    the fix once, then the list of where they are (``bullet``: the whole as one item of a list)."""
    first = group[0]
    shared = shared_detail(group)
    head = f"{_ICON[first.severity]} **{len(group)} ×** {md_escape(title(first))} (`{first.rule}`)"
    if shared is not None:
        head += f": {md_escape(shared)}"
    common_fix = shared_fix(group)
    if common_fix:
        head += f"<br>\n{'  ' if bullet else ''}**Fix:** {md_escape(common_fix)}"
    items = []
    for first_f, fs in by_about(group) if shared is not None else [(f, [f]) for f in group]:
        where = ", ".join(md_code(f.pointer) if f.pointer else "(root)" for f in fs)
        item = f"{md_about(first_f)} · {where}" + ("" if shared is not None else f": {md_escape(detail(first_f))}")
        for why in dict.fromkeys(f.reason for f in fs if f.reason):
            item += f" *({md_escape(why)})*"
        if common_fix is None:  # each one's own fix (a host rule's portable spelling)
            item += "".join(f" — **Fix:** {md_escape(how)}" for how in dict.fromkeys(f.fix for f in fs if f.fix))
        items.append(f"{'  ' if bullet else ''}- {item}")
    return (f"- {head}" if bullet else head) + "\n" + ("" if bullet else "\n") + "\n".join(items)


def _what(report: Report) -> str:
    """The line under the verdict saying what was judged: two versions, one snapshot, or one server."""
    if report.kind == "lint":
        base = f" against baseline **{md_escape(who(report.baseline))}**" if report.baseline is not None else ""
        return f"lint of **{md_escape(who(report.new))}**{base}"
    if report.kind == "probe":
        cached = (
            " · cached versions: " + ", ".join(f"**{md_escape(s.label)}**" for s in report.cached)
            if report.cached
            else ""
        )
        return f"probe of **{md_escape(who(report.new))}**{cached}"
    assert report.old is not None
    return f"**{md_escape(who(report.old))}** → **{md_escape(who(report.new))}** · mode: {md_escape(report.mode)}"


def render_report(report: Report, options: RenderOptions = PLAIN) -> str:
    """A pull-request comment: summary line first, then breaking, warnings, info (collapsed), ignored.

    Witnesses are collapsible ``<details>`` blocks with the instance as a JSON code block and the
    host's error. All server text goes through ``md_escape``/``md_code``/``md_fence``. Stays within
    ``MARKDOWN_BUDGET`` characters (footer included): findings are kept by severity (breaking, then warnings,
    then info, then ignored ones; a finding is left out only after every one of a higher severity is shown),
    and what is left out is counted per severity: ``N breaking, M info more in the JSON report``.
    """
    s = report.summary
    icon = "✅" if report.passed else "❌"
    verdict = "gate passed" if report.passed else "gate failed"
    ignored = f", {len(report.ignored)} ignored" if report.ignored else ""
    calls = f"{call_counts(report)} · " if report.kind == "probe" else ""
    parts = [
        f"### {icon} schema-audit {report.kind}: {calls}{s['breaking']} breaking, {s['warning']} warning, "
        f"{s['info']} info{ignored} — {verdict} (fail-on: {report.fail_on})"
    ]
    hosts = ", ".join(md_escape(h) for h in report.hosts)
    parts.append(f"{_what(report)} · hosts: {hosts}")
    parts += [md_escape(validator_line(v)) for v in report.server_validators]
    if (version := version_line(report)) is not None:
        parts.append(f"**{md_escape(version)}**")
    if report.rollout:
        parts.append(f"> **Rollout:** {md_escape(report.rollout)}")
    for note in report.notes:
        parts.append(f"> **Note:** {md_escape(note)}")
    for entry in report.expired_ignores:
        parts.append(
            f"> **Expired ignore entry** (no longer applies): {md_escape(describe_entry(entry), references=True)}"
        )
    if report.portability is not None:
        parts.append(matrix.markdown(report.portability, md_escape, md_html))
    if report.calls:
        parts.append(
            "\n".join(
                [f"<details><summary>{len(report.calls)} call{'s' if len(report.calls) != 1 else ''}</summary>", ""]
                + [f"- {md_escape(call_line(c))}" for c in report.calls[:200]]
                + ([f"- … {len(report.calls) - 200} more"] if len(report.calls) > 200 else [])
                + ["", "</details>"]
            )
        )
    if not report.findings:
        what = "schema changes" if report.kind == "diff" else "findings"
        parts.append(f"No {what}." if not report.ignored else f"No {what} besides ignored findings.")

    footer = f"<sub>schema-audit {__version__} · {summary_line(report).replace('--fail-on', 'fail-on')}</sub>"
    # room kept for the footer and the line counting what was left out, so the whole stays within the budget
    room = MARKDOWN_BUDGET - len(footer) - _LEFT_OUT_CHARS - sum(len(p) + 2 for p in parts)
    left_out: dict[str, int] = dict.fromkeys(SEVERITIES, 0)
    left_out_ignored = 0

    def add(text: str) -> bool:
        nonlocal room
        if len(text) + 2 > room:
            return False
        parts.append(text)
        room -= len(text) + 2
        return True

    by_sev: dict[str, list[Finding]] = {sev: [f for f in report.findings if f.severity == sev] for sev in SEVERITIES}
    full = False  # once a finding is left out, every finding after it (lower or equal severity) is too
    for sev, heading in (("breaking", "Breaking"), ("warning", "Warnings")):
        items = by_sev[sev]
        if not items:
            continue
        if full or not add(f"#### {heading} ({len(items)})"):
            left_out[sev] += len(items)
            full = True
            continue
        done = 0
        for unit in grouped(items):
            if not add(_md_finding(report, unit[0]) if len(unit) == 1 else _md_group(unit)):
                left_out[sev] += len(items) - done
                full = True
                break
            done += len(unit)
    collapsed: list[tuple[str, list[tuple[Finding, str | None]]]] = [
        ("info finding", [(f, None) for f in by_sev["info"]]),
        ("finding ignored by the config", list(report.ignored)),
    ]
    for label, entries in collapsed:
        if not entries:
            continue
        plural = "s" if len(entries) != 1 else ""
        word = label.replace("finding", "finding" + plural, 1)
        lines = [f"<details><summary>{len(entries)} {word}</summary>", ""]
        size = sum(len(x) + 1 for x in lines) + len("\n</details>") + 2
        shown = 0
        reasons = {id(f): reason for f, reason in entries}
        units = grouped([f for f, _ in entries]) if label.startswith("info") else [[f] for f, _ in entries]
        for unit in units:
            if full:
                break
            if len(unit) > 1:
                line = _md_group(unit, bullet=True)
            else:
                f, reason = unit[0], reasons[id(unit[0])]
                where = md_code(f.pointer) if f.pointer else "(root)"
                line = (
                    f"- {_ICON[f.severity]} {md_about(f)} · {where} · "
                    f"{md_escape(title(f))} (`{f.rule}`): {md_escape(detail(f))}{_md_change(f)}"
                )
                if reason is not None:
                    line += f" — ignored: {md_escape(reason, references=True)}"
            if size + len(line) + 1 > room:
                full = True
                break
            lines.append(line)
            size += len(line) + 1
            shown += len(unit)
        lines += ["", "</details>"]
        if not (shown and add("\n".join(lines))):
            shown = 0
        if label.startswith("info"):
            left_out["info"] += len(entries) - shown
        else:
            left_out_ignored += len(entries) - shown
    counts = [f"{n} {sev}" for sev, n in left_out.items() if n]
    if left_out_ignored:
        counts.append(f"{left_out_ignored} ignored")
    if counts:
        parts.append(
            f"*{', '.join(counts)} more in the JSON report (`--format json`; SARIF too): left out here to "
            "fit a pull-request comment.*"
        )
    parts.append(footer)
    return "\n\n".join(parts) + "\n"


_CELL = {"ok": "✅ ok", "new": "🆕 new", "absent": "— absent", "warning": "🟡 warning", "breaking": "🔴 breaking"}


def render_history(hist: History, options: RenderOptions = PLAIN) -> str:
    """A pull-request comment: verdict line, the matrix (tools with a warning or break only), conflicts,
    each breaking/warning finding once with the cached versions it affects, info findings collapsed.

    All server text goes through ``md_escape``/``md_code`` (as in the diff's Markdown); stays under
    ``MARKDOWN_BUDGET`` characters: rows and findings past it are counted, not shown.
    """
    labels = [c.label for c in hist.cohorts]
    groups = hist.grouped()
    count = {s: sum(1 for g in groups if g.severity == s) for s in ("breaking", "warning", "info")}
    icon = "✅" if hist.passed else "❌"
    verdict = "gate passed" if hist.passed else "gate failed"
    ignored = f", {len(hist.ignored)} ignored" if hist.ignored else ""
    parts = [
        f"### {icon} schema-audit history: {md_escape(hist.new.label)} against {len(labels)} cached "
        f"version{'s' if len(labels) != 1 else ''} — {count['breaking']} breaking, {count['warning']} warning, "
        f"{count['info']} info{ignored} — {verdict} (fail-on: {hist.fail_on})",
        f"**{md_escape(who(hist.new))}** · cached versions: {', '.join(md_escape(x) for x in labels)}",
    ]
    parts += [md_escape(validator_line(v)) for v in hist.server_validators]
    parts += [f"> **Note:** {md_escape(n)}" for n in hist.notes]
    parts += [
        f"> **Expired ignore entry** (no longer applies): {md_escape(describe_entry(entry), references=True)}"
        for entry in hist.expired_ignores
    ]
    used = sum(len(x) + 2 for x in parts)
    hidden = 0

    def add(text: str) -> bool:
        nonlocal used
        if used + len(text) + 2 > MARKDOWN_BUDGET - 200:
            return False
        parts.append(text)
        used += len(text) + 2
        return True

    m = hist.matrix()
    rows = [(tool, row) for tool, row in m.items() if any(v in ("warning", "breaking") for v in row.values())]
    if rows:
        table = [
            "| tool | " + " | ".join(md_escape(x) for x in labels) + " |",
            "| --- | " + " | ".join("---" for _ in labels) + " |",
        ]
        size = used + sum(len(x) + 1 for x in table) + 100
        for i, (tool, row) in enumerate(rows):
            line = f"| {md_escape(tool)} | " + " | ".join(_CELL[row[x]] for x in labels) + " |"
            if size + len(line) + 1 > MARKDOWN_BUDGET - 400:
                hidden += len(rows) - i
                break
            table.append(line)
            size += len(line) + 1
        ok = len(m) - len(rows)
        if ok:
            noun = "tool" if all(is_tool_row(hist, k) for k in m) else "row"
            table += ["", f"{ok} other {noun}{'s' if ok != 1 else ''}: no warning or break against any cached version."]
        add("\n".join(table))
    elif m:
        noun = "tools" if all(is_tool_row(hist, k) for k in m) else "rows"
        add(f"All {len(m)} {noun}: no warning or break against any cached version.")
    if hist.conflicts:
        lines = [f"#### Conflicts ({len(hist.conflicts)})", ""]
        for c in hist.conflicts:
            cached = "; ".join(
                f"{md_escape(lbl)} caches {md_code(json.dumps(v, ensure_ascii=False))}" for lbl, v in c.values.items()
            )
            lines.append(
                f"- **{md_escape(c.tool)}** {md_code(c.pointer) if c.pointer else '(root)'}: {cached}; "
                f"all of them accept only {md_code(json.dumps(c.common, ensure_ascii=False))}"
            )
        if not add("\n".join(lines)):
            hidden += len(hist.conflicts)
    if hist.version_gate and hist.steps:
        table = [
            "#### Release steps (version gate)",
            "",
            "| step | serverInfo.version | suggested | version findings |",
            "| --- | --- | --- | --- |",
        ]
        for step in hist.steps:
            found = ", ".join(f"{_ICON[f.severity]} `{f.rule}`" for f in step.findings) or "none"
            when = "" if step.gated else " (released: not gated)"
            table.append(
                f"| {md_escape(step.old)} → {md_escape(step.new)}{when} | "
                f"{md_escape(step.old_version or 'none')} → {md_escape(step.new_version or 'none')} | "
                f"{md_escape(step.suggested_version or 'none')} | {found} |"
            )
        if not add("\n".join(table)):
            hidden += len(hist.steps)

    def item(g: GroupedFinding, shown: tuple[str, ...]) -> str:
        rule = RULES.get(g.rule)
        title = rule.title if rule is not None else g.rule
        where = md_code(g.pointer) if g.pointer else "(root)"
        how = f" — **Fix:** {md_escape(g.fix)}" if g.fix else ""
        return (
            f"- {_ICON[g.severity]} {md_about(next(iter(g.latest.values())))} · {where} · {md_escape(title)} "
            f"(`{g.rule}`): {md_escape(affects(g, labels, shown))}{how}"
        )

    def group_item(unit: list[GroupedFinding]) -> str:
        g = unit[0]
        rule = RULES.get(g.rule)
        how = f"<br>\n  **Fix:** {md_escape(g.fix)}" if g.fix else ""
        abouts: dict[str, list[GroupedFinding]] = {}
        for one in unit:
            abouts.setdefault(one.about, []).append(one)
        rows = [
            f"  - {md_about(next(iter(gs[0].latest.values())))} · "
            + ", ".join(md_code(x.pointer) if x.pointer else "(root)" for x in gs)
            for gs in abouts.values()
        ]
        named = rule.title if rule is not None else g.rule
        head = (
            f"- {_ICON[g.severity]} **{len(unit)} ×** {md_escape(named)} (`{g.rule}`): {md_escape(affects(g, labels))}"
        )
        return "\n".join([head + how, *rows])

    for sev, heading in (("breaking", "Breaking"), ("warning", "Warnings")):
        items = [g for g in groups if g.severity == sev]
        if not items:
            continue
        lines = [f"#### {heading} ({len(items)})", ""]
        size = used + 40
        done = 0
        for unit in runs(
            items, lambda g: None if g.severity == "breaking" else (g.severity, g.rule, affects(g, labels))
        ):
            line = item(unit[0], ("breaking", "warning")) if len(unit) == 1 else group_item(unit)
            if size + len(line) + 1 > MARKDOWN_BUDGET - 300:
                hidden += len(items) - done
                break
            lines.append(line)
            size += len(line) + 1
            done += len(unit)
        if not add("\n".join(lines)):
            hidden += len(items)
    infos = [g for g in groups if g.severity == "info"]
    if infos:
        lines = [f"<details><summary>{len(infos)} info finding{'s' if len(infos) != 1 else ''}</summary>", ""]
        size = used + 80
        for i, g in enumerate(infos):
            line = item(g, ("info",))
            if size + len(line) + 1 > MARKDOWN_BUDGET - 250:
                hidden += len(infos) - i
                break
            lines.append(line)
            size += len(line) + 1
        lines += ["", "</details>"]
        if not add("\n".join(lines)):
            hidden += len(infos)
    if hist.ignored:
        lines = [
            f"<details><summary>{len(hist.ignored)} finding{'s' if len(hist.ignored) != 1 else ''} ignored by "
            "the config</summary>",
            "",
        ]
        for f, reason, cohort in hist.ignored:
            where = md_code(f.pointer) if f.pointer else "(root)"
            why = md_escape(reason, references=True)
            lines.append(f"- {md_escape(cohort)}: {md_about(f)} · {where} (`{f.rule}`) — ignored: {why}")
        if not add("\n".join([*lines, "", "</details>"])):
            hidden += len(hist.ignored)
    if not groups:
        parts.append(
            "No schema changes against any cached version."
            if not hist.ignored
            else "No schema changes against any cached version besides ignored findings."
        )
    if hidden:
        what = "row or finding" if hidden == 1 else "rows or findings"
        parts.append(
            f"*{hidden} more {what} in the JSON report (`--format json`; SARIF too): left out here to fit "
            "a pull-request comment.*"
        )
    counts = " · ".join(md_escape(x) for x in cohort_counts(hist))
    parts.append(f"<sub>schema-audit {__version__} · {counts}</sub>")
    return "\n\n".join(parts) + "\n"
