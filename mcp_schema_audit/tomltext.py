"""TOML in: the one way a TOML file's text is parsed (the configuration, a ``pyproject.toml`` version source).

``tomllib`` (``tomli`` on Python 3.10) parses nested arrays and inline tables recursively, so a file nested a few
thousand deep ends in ``RecursionError``; here it is a ``UsageError`` (exit 2) naming the file, like any TOML that
does not parse.
"""

from __future__ import annotations

import sys
from typing import Any

from mcp_schema_audit.errors import UsageError


def toml_loads(text: str, source: str, what: str = "a configuration") -> dict[str, Any]:
    """The table ``text`` (read from ``source``, ``what`` it is read as: ``"a configuration"``, ``"a version
    source"``) parses to. Raises ``UsageError`` (exit 2, one line naming ``source``) for invalid TOML and for TOML
    nested too deeply for the parser."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10
        import tomli as tomllib
    try:
        data: dict[str, Any] = tomllib.loads(text)
        return data
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{source}: invalid TOML: {exc}") from exc
    except RecursionError:  # tomllib parses nested arrays and inline tables recursively
        raise UsageError(f"{source}: invalid TOML: nested too deeply for {what}") from None
