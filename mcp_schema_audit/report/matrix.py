"""The portability matrix (tools × hosts: usable, degraded, unusable) as the text, Markdown and HTML reports show it;
the JSON report carries it whole (``Report.portability``, from ``portable.matrix``).

Tool names are server text: each format escapes them with its own escaper (``escape``, given by the caller).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: Rows the text report shows (the tools not usable everywhere first; the JSON report has them all).
TEXT_ROWS = 20
#: Rows the Markdown table shows.
MARKDOWN_ROWS = 50


def counts_line(portability: dict[str, Any], escape: Callable[[Any], str]) -> str:
    """``gemini: 3 usable, 1 degraded, 2 unusable (the listing fails: a); openai-strict: …``."""
    parts = []
    for host in portability["hosts"]:
        c = portability["counts"][host]
        text = f"{host}: {c['usable']} usable, {c['degraded']} degraded, {c['unusable']} unusable"
        culprits = portability.get("listing_fails", {}).get(host) or []
        if culprits:
            shown = ", ".join(escape(t) for t in culprits[:3]) + (" …" if len(culprits) > 3 else "")
            text += f" (the listing fails: {shown})"
        parts.append(text)
    return "; ".join(parts)


def cell(row: dict[str, Any], host: str) -> str:
    """A row's state on ``host``: ``degraded``, or ``usable→unusable`` when it changed (diff)."""
    now = row["states"][host]
    was = row.get("was", {}).get(host)
    return f"{was}→{now}" if was is not None and was != now else now


def _rows(portability: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows worth showing: a tool not usable on some host, or whose state changed (diff)."""
    return [
        r
        for r in portability["tools"]
        if any(s != "usable" for s in r["states"].values())
        or any(r["states"][h] != w for h, w in r.get("was", {}).items())
    ]


def ordered_rows(portability: dict[str, Any]) -> list[dict[str, Any]]:
    """Every row, the tools not usable somewhere (or whose state changed) first."""
    rows = _rows(portability)
    first = {id(r) for r in rows}
    return rows + [r for r in portability["tools"] if id(r) not in first]


def text_lines(portability: dict[str, Any], escape: Callable[[Any], str]) -> list[str]:
    """The compact text form: the counts line, then one line per tool that is not usable everywhere (at most
    ``TEXT_ROWS``), columns padded."""
    hosts = portability["hosts"]
    rows = _rows(portability)
    out = [f"portability: {counts_line(portability, escape)}"]
    if not rows:
        return out
    names = [escape(r["tool"]) for r in rows[:TEXT_ROWS]]
    width = min(max([len(n) for n in names] + [4]), 40)
    cells = [[cell(r, h) for h in hosts] for r in rows[:TEXT_ROWS]]
    widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, h in enumerate(hosts)]
    out.append("  " + "tool".ljust(width) + "  " + "  ".join(h.ljust(w) for h, w in zip(hosts, widths, strict=False)))
    for name, row in zip(names, cells, strict=False):
        shown = name if len(name) <= width else name[: width - 1] + "…"
        out.append(
            "  " + shown.ljust(width) + "  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=False)).rstrip()
        )
    if len(rows) > TEXT_ROWS:
        out.append(f"  … {len(rows) - TEXT_ROWS} more tools in the JSON report")
    return out


def markdown(portability: dict[str, Any], escape: Callable[[Any], str], html_escape: Callable[[Any], str]) -> str:
    """A collapsible table: one row per tool (at most ``MARKDOWN_ROWS``, the tools not usable somewhere first),
    one column per host, and the counts. ``escape`` makes text inert in a table cell, ``html_escape`` in the raw
    HTML ``<summary>`` line."""
    hosts = portability["hosts"]
    rows = ordered_rows(portability)
    lines = [
        f"<details><summary>Portability: {html_escape(counts_line(portability, str))}</summary>",
        "",
        "| tool | " + " | ".join(hosts) + " |",
        "|---|" + "---|" * len(hosts),
    ]
    for r in rows[:MARKDOWN_ROWS]:
        lines.append(f"| {escape(r['tool'])} | " + " | ".join(cell(r, h) for h in hosts) + " |")
    if len(rows) > MARKDOWN_ROWS:
        lines.append(f"| … {len(rows) - MARKDOWN_ROWS} more tools in the JSON report |" + " |" * len(hosts))
    return "\n".join(lines + ["", "</details>"])
