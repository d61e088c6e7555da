"""Write the table of configuration keys in ``docs/cli.md`` from their declarations (``config.KEYS``).

Run ``python scripts/gen_config_doc.py`` after changing a key; ``--check`` exits 1 when the table in the file
differs from what the declarations give. ``tests/test_docs.py`` runs the same comparison. The table sits between
the lines ``<!-- config-keys:start -->`` and ``<!-- config-keys:end -->``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from mcp_schema_audit.config import KEYS, choices_of  # noqa: E402

DOC = ROOT / "docs" / "cli.md"
START, END = "<!-- config-keys:start -->", "<!-- config-keys:end -->"


def render_table() -> str:
    """The Markdown table: key, the flag it is the default for, what it takes, default, commands, doc."""
    rows = ["| key | flag | takes | default | read by | what it does |", "|---|---|---|---|---|---|"]
    takes = {
        "choices": "an array of",
        "globs": "an array of globs",
        "paths": "an array of file paths",
        "severity": "a table rule = level",
        "entries": "an array of tables",
        "string": "a string",
        "choice": "one of",
    }
    for key in KEYS:
        what = takes[key.kind]
        if key.kind in ("choice", "choices"):
            what += " " + ", ".join(f"`{c}`" for c in choices_of(key))
        flag = f"`{key.flag}`" if key.flag else ""
        commands = ", ".join(key.commands)
        rows.append(f"| `{key.name}` | {flag} | {what} | {key.default} | {commands} | {key.doc.replace('|', '/')} |")
    return "\n".join(rows) + "\n"


def rendered(text: str) -> str:
    """``text`` (docs/cli.md) with the table between the markers written anew."""
    head, rest = text.split(START + "\n", 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{render_table()}{END}{tail}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when docs/cli.md's table is out of date")
    args = ap.parse_args()
    text = DOC.read_text(encoding="utf-8")
    new = rendered(text)
    if args.check:
        if new != text:
            print("docs/cli.md's config key table is out of date: run python scripts/gen_config_doc.py")
            return 1
        return 0
    DOC.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
