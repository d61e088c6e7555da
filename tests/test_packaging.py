"""What ``pip install .`` (not editable: the Action installs schema-audit that way) puts into the wheel."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _pyproject() -> dict:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_every_subpackage_is_listed_for_the_wheel():
    """setuptools' explicit ``packages`` list takes no subpackage by itself: one missing from it is missing from
    every non-editable install (``import mcp_schema_audit.capture`` fails there)."""
    listed = set(_pyproject()["tool"]["setuptools"]["packages"])
    found = {
        "mcp_schema_audit." + ".".join(p.parent.relative_to(ROOT / "mcp_schema_audit").parts)
        for p in (ROOT / "mcp_schema_audit").rglob("__init__.py")
        if p.parent != ROOT / "mcp_schema_audit"
    }
    assert found | {"mcp_schema_audit"} <= listed, sorted(found - listed)
    assert "mcp_schema_audit.demo_server" in listed
