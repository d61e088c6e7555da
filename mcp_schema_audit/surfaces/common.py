"""What the comparisons of every surface share: a finding about one item, a changed text, short server text."""

from __future__ import annotations

from typing import Any

from mcp_schema_audit.findings import NEW_SIDE, Finding
from mcp_schema_audit.rules import RULES
from mcp_schema_audit.wording import Text

TEXT_LIMIT = 300


def finding(
    rule_id: str,
    surface: str,
    name: str,
    ptr: str,
    detail: str | Text,
    old: Any,
    new: Any,
    *,
    witness: dict[str, Any] | None = None,
    delta: Any = NEW_SIDE,
    security: bool = False,
    old_pointer: str | None = None,
    new_pointer: str | None = None,
) -> Finding:
    """A finding of catalog rule ``rule_id`` (default severity) about item ``name`` of ``surface``.

    The message reads ``"<surface> <name>: <rule title> at <pointer or (root)>: <detail>"``; ``detail`` is words
    of ours with the values already in them (shown as it is) or a ``wording.Text``."""
    rule = RULES[rule_id]
    return Finding(
        rule=rule_id,
        severity=rule.severity,
        tool="",
        direction=surface,
        pointer=ptr,
        detail=detail if isinstance(detail, Text) else Text.literal(detail),
        old=old,
        new=new,
        old_pointer=old_pointer,
        new_pointer=new_pointer,
        witness=witness,
        delta=delta,
        tags=["security"] if security else [],
        surface=surface,
        name=name,
    )


def short_text(text: Any, limit: int = TEXT_LIMIT) -> str:
    """``repr(text)``, cut to ``limit`` characters (server text: reporters show it inertly)."""
    s = repr(text)
    return s if len(s) <= limit else s[: limit - 1] + "…"


def text_changes(
    surface: str,
    name: str,
    o: dict[str, Any],
    n: dict[str, Any],
    rule_id: str,
    keys: tuple[str, ...],
    prefix: str = "",
    label: str = "",
) -> list[Finding]:
    out = []
    for key in keys:
        if o.get(key) != n.get(key):
            what = f"{label}{key}" if label else key
            out.append(
                finding(
                    rule_id,
                    surface,
                    name,
                    f"{prefix}/{key}",
                    f"{what} changed: {short_text(o.get(key))} → {short_text(n.get(key))}",
                    o.get(key),
                    n.get(key),
                    security=True,
                )
            )
    return out
