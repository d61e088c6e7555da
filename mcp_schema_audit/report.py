"""The report of one diff and its renderers. Renderers are pure: ``render_<format>(report) -> str``.

Every piece of server-provided text (tool names, descriptions, enum values, schema keys) is shown
inertly: control characters (ANSI escapes included) are replaced by visible escapes and rich
markup is never interpreted. Machine formats never go through rich.
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass, field
from typing import Any

from mcp_schema_audit import __version__
from mcp_schema_audit.engine import Finding, summarize
from mcp_schema_audit.rules import SEVERITY_RANK
from mcp_schema_audit.snapshot import Snapshot

REPORT_VERSION = 1
FAIL_ON = ("breaking", "warning", "info", "never")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069]")


def inert(text: Any) -> str:
    """``text`` as a string with every control or bidi character replaced by a ``\\xNN``/``\\uNNNN`` escape."""
    s = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False, default=str)
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}", s)


@dataclass
class Report:
    """The result of ``diff``: both sides' identity, the findings (sorted), and the gate."""

    old: Snapshot
    new: Snapshot
    findings: list[Finding]
    fail_on: str = "breaking"
    notes: list[str] = field(default_factory=list)  #: run-level remarks (e.g. protocol versions differ)

    @property
    def summary(self) -> dict[str, int]:
        """Counts per severity."""
        return summarize(self.findings)

    @property
    def passed(self) -> bool:
        """True when no finding is at or above ``fail_on`` (always True for ``never``)."""
        if self.fail_on == "never":
            return True
        limit = SEVERITY_RANK[self.fail_on]
        return not any(SEVERITY_RANK[f.severity] >= limit for f in self.findings)

    def to_json(self) -> dict[str, Any]:
        """The JSON report (stable contract; keys are only ever added)."""

        def side(s: Snapshot) -> dict[str, Any]:
            return {"label": s.label, "server": s.server, "protocol_version": s.protocol_version,
                    "source": s.source, "tool_count": len(s.tools)}

        return {
            "report_version": REPORT_VERSION,
            "schema_audit_version": __version__,
            "old": side(self.old),
            "new": side(self.new),
            "findings": [f.to_json() for f in self.findings],
            "summary": self.summary,
            "gate": {"fail_on": self.fail_on, "passed": self.passed},
            "notes": self.notes,
        }


def render_json(report: Report) -> str:
    """Canonical JSON of ``Report.to_json()`` with a final newline."""
    return json.dumps(report.to_json(), sort_keys=True, indent=2, ensure_ascii=False, default=str) + "\n"


_STYLE = {"breaking": "bold red", "warning": "yellow", "info": "cyan"}


def render_text(report: Report, *, color: bool = False, width: int = 120) -> str:
    """A human report: header, one table row per finding (breaking first), witnesses, summary line."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    buf = io.StringIO()
    console = Console(file=buf, width=width, force_terminal=color, no_color=not color, highlight=False,
                      emoji=False, markup=False, soft_wrap=False)

    def who(s: Snapshot) -> str:
        name = s.server.get("name") if s.server else None
        ver = s.server.get("version") if s.server else None
        extra = " ".join(x for x in (inert(name) if name else "", inert(ver) if ver else "") if x)
        return f"{inert(s.label)}" + (f" ({extra})" if extra else "")

    console.print(Text(f"schema-audit diff: {who(report.old)} -> {who(report.new)}"))
    for note in report.notes:
        console.print(Text(f"note: {inert(note)}", style="yellow"))
    ordered = sorted(report.findings, key=lambda f: -SEVERITY_RANK[f.severity])
    if not ordered:
        console.print(Text("No schema changes."))
    for f in ordered:
        detail = f.message.split(": ", 2)[-1] if f.message.count(": ") >= 2 else f.message
        head = Text()
        head.append(f"{f.severity:<8}", style=_STYLE[f.severity])
        head.append(f" {inert(f.tool)} {f.direction} {inert(f.pointer) or '(root)'}  [{f.rule}]")
        console.print(head)
        console.print(Text(f"         {inert(detail)}"))
        if f.reason:
            console.print(Text(f"         ({inert(f.reason)})", style="dim"))
        if f.severity == "breaking" and f.witness:
            w = f.witness
            inst = json.dumps(w.get("instance"), ensure_ascii=False, sort_keys=True, default=str)
            if len(inst) > 300:
                inst = inst[:299] + "…"
            console.print(Text(f"         witness ({w.get('accepted_by')} accepts): {inert(inst)}", style="dim"))
            console.print(Text(f"         hosts {', '.join(f.hosts)} reject it: {inert(w.get('error', ''))}",
                               style="dim"))
    s = report.summary
    verdict = "gate passed" if report.passed else "gate FAILED"
    console.print(Text(f"{s['breaking']} breaking, {s['warning']} warning, {s['info']} info; {verdict} "
                       f"(--fail-on {report.fail_on})", style="bold" if not report.passed else ""))
    return buf.getvalue()


RENDERERS = {"text": render_text, "json": render_json}
