"""The Action's install step (scripts/action_install.sh, called by action.yml): a cold run builds the wheelhouse
of the package and its whole closure, a warm run (the wheelhouse actions/cache restored) installs from it alone,
with no index; the key changes with the package's files and the ``package`` input. The measured times are
benchmarks/bench_install.py's (docs/ci.md), not asserted here."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "action_install.sh"


def _run(step: str, env: dict[str, str], timeout: float = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(SCRIPT), step], env={**os.environ, **env}, capture_output=True, text=True, timeout=timeout
    )


def _action_copy(tmp: Path) -> Path:
    """The action's checkout as the runner has it: pyproject.toml, the package (with the demo server it ships),
    the scripts (no .git)."""
    action = tmp / "action"
    action.mkdir()
    shutil.copy2(ROOT / "pyproject.toml", action / "pyproject.toml")
    shutil.copy2(ROOT / "README.md", action / "README.md")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "mcp_schema_audit", action / "mcp_schema_audit", ignore=ignore)
    shutil.copytree(ROOT / "scripts", action / "scripts", ignore=ignore)
    shutil.copytree(ROOT / "fixtures" / "demo_server", action / "fixtures" / "demo_server", ignore=ignore)
    return action


def test_the_key_follows_the_package_files_and_the_package_input(tmp_path: Path):
    action = _action_copy(tmp_path)
    env = {"ACTION_PATH": str(action), "RUNNER_TEMP": str(tmp_path)}
    first = _run("key", env)
    assert first.returncode == 0 and first.stdout.startswith("key=schema-audit-wheels-"), first.stderr
    assert len(first.stdout.strip()) == len("key=schema-audit-wheels-") + 32
    assert _run("key", env).stdout == first.stdout  # stable
    (action / "mcp_schema_audit" / "__pycache__").mkdir(exist_ok=True)
    (action / "mcp_schema_audit" / "__pycache__" / "x.pyc").write_bytes(b"\0")
    assert _run("key", env).stdout == first.stdout  # bytecode is not part of it
    assert _run("key", {**env, "PACKAGE": "mcp-schema-audit==9"}).stdout != first.stdout
    with (action / "mcp_schema_audit" / "words.py").open("a", encoding="utf-8") as f:
        f.write("\n# changed\n")
    assert _run("key", env).stdout != first.stdout
    bad = _run("nonsense", env)
    assert bad.returncode == 2 and bad.stderr.strip() == "usage: action_install.sh key|install"


@pytest.mark.live
def test_a_warm_install_needs_no_index_and_gives_a_working_cli(tmp_path: Path):
    """Cold: pip builds the wheelhouse (the index, or this machine's pip cache). Warm: with every index made
    unreachable, the install takes the wheels alone and the CLI runs; the venv is made again each time."""
    if shutil.which("python3") is None:
        pytest.skip("python3 is not on PATH")
    action = _action_copy(tmp_path)
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    env = {"ACTION_PATH": str(action), "RUNNER_TEMP": str(temp)}
    cold = _run("install", env)
    assert cold.returncode == 0, cold.stderr[-2000:]
    assert cold.stdout.strip().splitlines()[-1].startswith("schema-audit "), cold.stdout
    wheels = temp / "schema-audit-wheels"
    assert (wheels / ".complete").is_file() and any(p.name.startswith("mcp_schema_audit-") for p in wheels.iterdir())
    built = sorted(p.name for p in wheels.glob("*.whl"))
    offline = {"PIP_INDEX_URL": "http://127.0.0.1:9/simple", "PIP_FIND_LINKS": "", "PIP_EXTRA_INDEX_URL": ""}
    warm = _run("install", {**env, **offline})
    assert warm.returncode == 0, warm.stderr[-2000:]
    assert sorted(p.name for p in wheels.glob("*.whl")) == built  # nothing was rebuilt
    cli = temp / "schema-audit-venv" / "bin" / "schema-audit"
    rules = subprocess.run([str(cli), "rules", "--format", "json"], capture_output=True, text=True, timeout=120)
    assert rules.returncode == 0 and '"output-enum-value-added"' in rules.stdout, rules.stderr
