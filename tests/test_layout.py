"""The code's shape holds: modules small enough to find one's way in, no private name used across modules, the
command line apart from everything else, short command functions, and imports that run one way only (the layers
of docs/architecture.md)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "mcp_schema_audit"
SOURCES = sorted(PACKAGE.rglob("*.py"))
SCRIPTS = sorted((ROOT / "scripts").glob("*.py"))
#: The layers, top to bottom: a module may import only from its own layer or below (never above).
LAYERS = [
    ("cli",),
    ("audit",),
    ("diff", "history", "lint", "portable", "probe", "metadata", "surfaces", "gitref", "prcheck", "traffic"),
    ("settings", "config", "policy"),
    ("report",),
    ("engine",),
    ("schema",),
]


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> list[tuple[int, str, list[str]]]:
    """``(line, module, names)`` of every ``import``/``from … import`` of the package in ``path``."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("mcp_schema_audit"):
            out.append((node.lineno, node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name, []) for a in node.names if a.name.startswith("mcp_schema_audit")]
    return out


@pytest.mark.parametrize("path", [*SOURCES, *SCRIPTS], ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_over_600_lines(path: Path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 600


def test_no_private_name_is_imported_across_modules():
    found = [
        f"{path.relative_to(ROOT)}:{line}: {module}.{name}"
        for path in [*SOURCES, *SCRIPTS]
        for line, module, names in _imports(path)
        for name in names
        if name.startswith("_") and not name.startswith("__")
    ]
    assert not found, "\n".join(found)


def test_nothing_outside_the_command_line_imports_it():
    found = [
        f"{path.relative_to(ROOT)}:{line}: {module}"
        for path in SOURCES
        if not _module(path).startswith("mcp_schema_audit.cli") and path.name != "__main__.py"
        for line, module, _ in _imports(path)
        if module == "mcp_schema_audit.cli" or module.startswith("mcp_schema_audit.cli.")
    ]
    assert not found, "\n".join(found)


def _layer(module: str) -> int | None:
    rest = module.removeprefix("mcp_schema_audit.").split(".")[0]
    return next((i for i, names in enumerate(LAYERS) if rest in names), None)


def test_imports_run_down_the_layers_only():
    upward = []
    for path in (p for p in SOURCES if p.name != "__main__.py"):  # the entry point runs the command line
        own = _layer(_module(path))
        for line, module, _ in _imports(path):
            theirs = _layer(module)
            if own is not None and theirs is not None and theirs < own:
                upward.append(f"{path.relative_to(ROOT)}:{line}: {_module(path)} imports {module}")
            if own is None and theirs is not None:  # a base module (findings, rules, snapshot, …) imports no layer
                upward.append(f"{path.relative_to(ROOT)}:{line}: base module {_module(path)} imports {module}")
    assert not upward, "\n".join(upward)


def test_command_functions_are_short():
    """A command parses its options, calls the audit core, renders and exits: at most 40 lines."""
    long = []
    for path in sorted((PACKAGE / "cli").glob("*_cmds.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and any(
                isinstance(d, ast.Call) and getattr(d.func, "id", "") == "command" for d in node.decorator_list
            ):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > 40:
                    long.append(f"{path.name}:{node.name}: {length} lines")
    assert not long, long
