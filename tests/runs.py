"""Shorthands the tests use to run the audit core and the format registry with keyword settings.

Each calls the real thing (``audit.diff_report``, ``audit.probe_report``, ``report.formats.render``): the
keywords only build the ``Settings`` and ``RunLimits`` a test would otherwise spell out every time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp_schema_audit.audit import diff_report, probe_report
from mcp_schema_audit.report.formats import FORMATS, RenderOptions
from mcp_schema_audit.report.formats import render as _render
from mcp_schema_audit.settings import RunLimits, Settings


def settings(
    *,
    fail_on: str = "breaking",
    mode: str = "backward",
    hosts: list[str] | None = None,
    severity: dict[str, str] | None = None,
    ignore: list[Any] | None = None,
) -> Settings:
    """``Settings`` of the given policy (everything else at its default)."""
    return Settings(
        fail_on=fail_on,  # type: ignore[arg-type]
        mode=mode,  # type: ignore[arg-type]
        hosts=tuple(hosts) if hosts else None,
        severity=dict(severity or {}),
        ignore=tuple(ignore or ()),
    )


def run_diff(
    old: Any,
    new: Any,
    *,
    time_budget: float | None = None,
    jobs: int | None = None,
    samples: Any = None,
    **policy: Any,
) -> Any:
    """``audit.diff_report`` of OLD and NEW with the policy keywords of ``settings``."""
    return diff_report(old, new, settings(**policy), RunLimits(time_budget=time_budget, jobs=jobs), samples=samples)


def run_probe(
    listing: Any,
    records: list[dict[str, Any]],
    cached: list[Any],
    *,
    artifact: str | None = None,
    skipped: list[dict[str, str]] | None = None,
    auto: bool = False,
    **policy: Any,
) -> Any:
    """``audit.probe_report`` of call ``records`` with the policy keywords of ``settings``."""
    return probe_report(listing, records, cached, settings(**policy), artifact=artifact, skipped=skipped, auto=auto)


def render(report: Any, fmt: str, *, color: bool = False, width: int = 120) -> str:
    """``report`` (a ``Report`` or a ``History``) in ``fmt``, through the format registry."""
    return _render(report, fmt, RenderOptions(color=color, width=width))


def render_text(report: Any, *, color: bool = False, width: int = 120) -> str:
    """The text form of ``report``."""
    return render(report, "text", color=color, width=width)


def _renderer(fmt: str) -> Callable[[Any], str]:
    return lambda report: render(report, fmt)


render_json = _renderer("json")
render_markdown = _renderer("markdown")
render_sarif = _renderer("sarif")
render_github = _renderer("github")
render_junit = _renderer("junit")
#: Every report format that renders a report (not ``ignore``, which writes config): format → ``render(report)``.
RENDERERS: dict[str, Callable[[Any], str]] = {name: _renderer(name) for name in FORMATS if name != "ignore"}
