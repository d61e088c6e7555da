"""The documentation cannot drift from the code: the rule reference is what the catalog generates, every
command and flag the CLI has is in the CLI reference, the README's links resolve, and its test command is
the one CI runs."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest
import typer.main

from mcp_schema_audit.cli import app

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import gen_config_doc  # noqa: E402
import gen_rules_doc  # noqa: E402


def test_rules_reference_is_generated_from_the_catalog():
    from mcp_schema_audit.rules import RULES

    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert text == gen_rules_doc.render(), "docs/rules.md is out of date: run python scripts/gen_rules_doc.py"
    for rule_id in RULES:
        assert f"### `{rule_id}`" in text


def test_config_key_table_is_generated_from_the_declarations():
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert text == gen_config_doc.rendered(text), "docs/cli.md's key table is stale: run scripts/gen_config_doc.py"
    from mcp_schema_audit.config import KEYS

    for key in KEYS:
        assert f"| `{key.name}` |" in text


def test_the_architecture_page_names_every_module():
    """docs/architecture.md lists every module of the package (a package's modules by name, a top-level one by
    file name) and names no file that does not exist."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    package = ROOT / "mcp_schema_audit"
    missing = []
    for path in sorted(package.rglob("*.py")):
        if path.name == "__init__.py" or "__pycache__" in path.parts:
            continue
        name = path.name if path.parent == package else path.stem
        if f"`{name}`" not in text and f"`{name}/`" not in text and f"`{path.stem}`" not in text:
            missing.append(str(path.relative_to(ROOT)))
    assert not missing, f"docs/architecture.md does not name {missing}"
    for name in re.findall(r"`([a-z_/]+\.py)`", text):
        assert list(ROOT.rglob(name.split("/")[-1])), f"docs/architecture.md names {name}, which does not exist"


def _commands() -> dict[str, list[str]]:
    """Every command and its long option names, from the real CLI."""
    group = typer.main.get_command(app)
    out = {}
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        opts = [o for p in command.params for o in p.opts if o.startswith("--")]
        out[name] = opts
    return out


@pytest.mark.parametrize("command", sorted(_commands()))
def test_every_command_and_flag_is_in_the_cli_reference(command: str):
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    # the command's own sections: from each heading naming it to the next heading
    sections = [
        part
        for part in re.split(r"\n(?=## )", text)
        if re.match(rf"## `schema-audit {command}\b", part)
        or f"`schema-audit {command} " in part.split("\n", 1)[0]
        or f"`schema-audit {command}`" in part.split("\n", 1)[0]
    ]
    assert sections, f"docs/cli.md has no section for `schema-audit {command}`"
    text = "\n".join(sections)
    missing = [o for o in _commands()[command] if o not in ("--help",) and f"`{o}" not in text]
    assert not missing, f"docs/cli.md does not document {missing} of `schema-audit {command}`"


def test_readme_links_resolve_and_its_test_command_is_what_ci_runs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for target in re.findall(r"\]\(((?!https?://|#)[^)#]+)", readme):
        assert (ROOT / target).exists(), f"README links to missing {target}"
    for doc in (ROOT / "docs").glob("*.md"):
        for target in re.findall(r"\]\(((?!https?://|#)[^)#]+)", doc.read_text(encoding="utf-8")):
            assert (doc.parent / target).exists(), f"{doc.name} links to missing {target}"
    test_command = next(line for line in readme.splitlines() if "pytest" in line and line.startswith("python3 -m venv"))
    assert test_command in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_ci_recipes_read_the_snapshot_the_store_recipe_commits():
    """Every `git:origin/main:PATH` a CI recipe reads (docs/ci.md, docs/cli.md, action.yml) is a file the
    snapshot-store recipe of docs/ci.md commits: copying the recipes works end to end."""
    ci = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    recipe = ci.split("## The snapshot store in the repository", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    committed = {p for line in recipe.splitlines() if line.startswith("git add ") for p in line.split()[2:]}
    assert committed, recipe
    read = set()
    for doc in (
        ci,
        (ROOT / "docs" / "cli.md").read_text(encoding="utf-8"),
        (ROOT / "action.yml").read_text(encoding="utf-8"),
    ):
        read |= set(re.findall(r"git:origin/main:(\.schema-audit/[\w./-]+\.json)", doc))
    assert read and read <= committed, f"recipes read {sorted(read - committed)}, the store recipe commits {committed}"


def test_docs_pin_a_commit_and_claim_no_release_tag():
    """The repository publishes no release tags: no recipe uses `@v1` or `rev: v0.1.0`; each says how to pin."""
    for doc in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]:
        text = doc.read_text(encoding="utf-8")
        assert not re.search(r"OWNER/schema-audit@v\d", text), doc.name
        assert not re.search(r"^\s*rev:\s*v\d", text, re.M), doc.name
        if "OWNER/schema-audit@" in text:
            assert "OWNER/schema-audit@COMMIT_SHA" in text and "no release tags" in text and "@main" in text, doc.name


def test_the_readme_console_block_is_the_real_output():
    """The README's opening ``diff`` example is what the command prints: its lines before ``…`` are the output's
    first lines, and its last line the output's last (it once showed a finding that is not the first)."""
    import subprocess
    import sys

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("```console\n", 1)[1].split("```", 1)[0].splitlines()
    command, shown = block[0], block[1:]
    assert command == "$ schema-audit diff fixtures/seed/0.2.5.json fixtures/seed/0.2.6.json"
    real = subprocess.run(
        [sys.executable, "-m", "mcp_schema_audit", *command.split()[2:]],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "400", "NO_COLOR": "1"},
    ).stdout.splitlines()
    cut = shown.index("…")
    assert shown[:cut] == real[:cut] and shown[cut + 1 :] == real[-len(shown[cut + 1 :]) :]
