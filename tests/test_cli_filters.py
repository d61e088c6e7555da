"""Tool include/exclude filters (``--tool GLOB``, ``--exclude-tool GLOB``, config ``tools``/``exclude_tools``)
on ``diff``, ``lint`` and ``history``, and the config file's ``format``: through the real CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_schema_audit.snapshot import snapshot_from_data, tool_selected

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "fixtures" / "seed"
OLD, NEW = str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json")


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcp_schema_audit", *args], capture_output=True, text=True, cwd=cwd or ROOT, timeout=120
    )


def tools_of(report: dict) -> set[str]:
    return {f["tool"] for f in report["findings"]} | {i["finding"]["tool"] for i in report["ignored"]}


@pytest.fixture(scope="module")
def unfiltered() -> dict:
    r = cli("diff", OLD, NEW, "--format", "json")
    assert r.returncode == 1, r.stderr
    return json.loads(r.stdout)


def test_tool_selected_globs_are_case_sensitive_fnmatch():
    assert tool_selected("get_thread", ["get_*"], None)
    assert not tool_selected("get_thread", ["GET_*"], None)
    assert not tool_selected("get_thread", ["get_*"], ["*thread"])
    assert tool_selected("whoami", None, ["get_?hread"]) and tool_selected("whoami", [], [])
    assert tool_selected("list_sent", ["whoami", "list_[ms]*"], None)
    snap = snapshot_from_data({"tools": [{"name": n} for n in ("a1", "a2", "b1")]}, source="x.json")
    snap.tool_lines = {"a1": 3, "a2": 4, "b1": 5}
    kept = snap.filtered(["a*"], ["*2"])
    assert [t["name"] for t in kept.tools] == ["a1"] and kept.tool_lines == {"a1": 3}
    assert [t["name"] for t in snap.tools] == ["a1", "a2", "b1"]  # the original is untouched


def test_diff_tool_filters(unfiltered: dict):
    assert {"whoami", "get_thread", "get_message", "list_sent"} <= tools_of(unfiltered)
    r = cli("diff", OLD, NEW, "--format", "json", "--tool", "get_*", "--tool", "whoami")
    assert r.returncode == 1 and r.stderr == "", r.stderr
    data = json.loads(r.stdout)
    assert tools_of(data) == {t for t in tools_of(unfiltered) if t.startswith("get_") or t == "whoami"}
    assert data["new"]["tool_count"] == 4 and data["old"]["tool_count"] == 4
    assert data["notes"][-1] == "tool filter (--tool get_*, whoami): 4 of 16 tools in scope"
    kept = [f for f in unfiltered["findings"] if f["tool"] in tools_of(data)]
    assert [f["fingerprint"] for f in data["findings"]] == [f["fingerprint"] for f in kept]

    r = cli("diff", OLD, NEW, "--format", "json", "--tool", "get_*", "--exclude-tool", "*_thread")
    assert tools_of(json.loads(r.stdout)) == {"get_message"}
    r = cli("diff", OLD, NEW, "--format", "json", "--exclude-tool", "list_*", "--exclude-tool", "whoami")
    left = tools_of(json.loads(r.stdout))
    assert left and not any(t.startswith("list_") or t == "whoami" for t in left)


def test_a_glob_that_matches_nothing_is_a_one_line_warning_not_an_error():
    r = cli("diff", OLD, NEW, "--format", "json", "--tool", "WHOAMI")  # case-sensitive: matches nothing
    # no tool left in scope at all: a usage error, so a typo in a CI filter cannot pass the gate
    assert r.returncode == 2 and r.stdout == "", r.stderr
    assert r.stderr.splitlines() == [
        "schema-audit: warning: --tool 'WHOAMI' matches no tool in '0.2.5' or '0.2.6'",
        "schema-audit: error: the tool filters leave none of the 16 tools in scope; "
        "check --tool/--exclude-tool (or tools/exclude_tools in the config file)",
    ]
    r = cli("diff", OLD, NEW, "--tool", "whoami", "--tool", "nope*", "--exclude-tool", "zzz")
    assert r.returncode == 1
    assert r.stderr.splitlines() == [
        "schema-audit: warning: --tool 'nope*' matches no tool in '0.2.5' or '0.2.6'",
        "schema-audit: warning: --exclude-tool 'zzz' matches no tool in '0.2.5' or '0.2.6'",
    ]
    assert "whoami output" in r.stdout and "get_thread" not in r.stdout


def test_a_tool_only_in_one_snapshot_counts_as_matching(tmp_path: Path):
    old = tmp_path / "old.json"
    old.write_text(
        json.dumps(
            {
                "tools": [
                    {"name": "gone", "inputSchema": {"type": "object"}},
                    {"name": "kept", "inputSchema": {"type": "object"}},
                ]
            }
        )
    )
    new = tmp_path / "new.json"
    new.write_text(json.dumps({"tools": [{"name": "kept", "inputSchema": {"type": "object"}}]}))
    r = cli("diff", str(old), str(new), "--format", "json", "--tool", "gone")
    assert r.returncode == 1 and r.stderr == ""
    assert [f["rule"] for f in json.loads(r.stdout)["findings"]] == ["tool-removed"]
    r = cli("diff", str(old), str(new), "--format", "json", "--exclude-tool", "gone")
    assert r.returncode == 0 and json.loads(r.stdout)["findings"] == []


def test_lint_tool_filters_cover_the_baseline_too():
    full = json.loads(cli("lint", NEW, "--format", "json", "--baseline", OLD).stdout)
    assert "whoami" in {f["tool"] for f in full["findings"]}
    r = cli("lint", NEW, "--format", "json", "--baseline", OLD, "--exclude-tool", "whoami")
    data = json.loads(r.stdout)
    assert data["findings"] and "whoami" not in {f["tool"] for f in data["findings"]}
    assert any(n.startswith("tool filter (--exclude-tool whoami): 15 of 16 tools") for n in data["notes"])
    r = cli("lint", NEW, "--tool", "whoami", "--tool", "missing_tool")
    assert r.returncode == 0, r.stderr
    assert "warning: --tool 'missing_tool' matches no tool" in r.stderr and len(r.stderr.splitlines()) == 1
    assert {line.split()[1] for line in r.stdout.splitlines() if line.startswith(("warning ", "breaking"))} == {
        "whoami"
    }


def test_history_tool_filters():
    args = [
        "history",
        str(SEED / "0.2.7.json"),
        "--against",
        str(SEED / "0.2.5.json"),
        "--against",
        str(SEED / "0.2.6.json"),
        "--format",
        "json",
    ]
    data = json.loads(cli(*args, "--tool", "whoami", "--tool", "get_th*").stdout)
    assert set(data["matrix"]) == {"whoami", "get_thread"}
    assert {g["tool"] for g in data["findings"]} <= {"whoami", "get_thread"}
    assert data["notes"] == ["tool filter (--tool whoami, get_th*): 2 of 16 tools in scope"]
    assert data["conflicts"] and data["conflicts"][0]["tool"] == "whoami"
    data = json.loads(cli(*args, "--exclude-tool", "whoami").stdout)
    assert "whoami" not in data["matrix"] and data["conflicts"] == []
    r = cli(*args[:-2], "--tool", "nothing_like_it")
    assert r.returncode == 2 and "leave none of the 16 tools in scope" in r.stderr, r.stderr
    assert r.stderr.startswith(
        "schema-audit: warning: --tool 'nothing_like_it' matches no tool in '0.2.7', '0.2.5' or '0.2.6'\n"
    )


def test_config_tools_and_exclude_tools(tmp_path: Path, unfiltered: dict):
    cfg = tmp_path / ".schema-audit.toml"
    cfg.write_text('tools = ["get_*", "whoami"]\nexclude_tools = ["get_message"]\n')
    data = json.loads(cli("diff", OLD, NEW, "--format", "json", cwd=tmp_path).stdout)
    assert tools_of(data) == {"get_thread", "whoami"}
    # a flag replaces the config's list
    data = json.loads(cli("diff", OLD, NEW, "--format", "json", "--tool", "list_*", cwd=tmp_path).stdout)
    assert tools_of(data) == {t for t in tools_of(unfiltered) if t.startswith("list_")}
    in_scope = {"get_thread", "get_attachment_download_url", "whoami"}
    data = json.loads(cli("history", NEW, "--against", OLD, "--format", "json", cwd=tmp_path).stdout)
    assert set(data["matrix"]) == in_scope
    lint = json.loads(cli("lint", NEW, "--format", "json", cwd=tmp_path).stdout)
    assert {f["tool"] for f in lint["findings"]} <= in_scope and lint["new"]["tool_count"] == 3
    for bad, needle in (
        ('tools = "get_*"\n', "tools must be a list of glob strings"),
        ("exclude_tools = [1]\n", "exclude_tools must be a list of glob strings"),
    ):
        cfg.write_text(bad)
        r = cli("diff", OLD, NEW, cwd=tmp_path)
        assert r.returncode == 2 and needle in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_config_format_is_the_default_for_diff_and_lint(tmp_path: Path):
    cfg = tmp_path / ".schema-audit.toml"
    cfg.write_text('format = "json"\n')
    r = cli("diff", OLD, NEW, cwd=tmp_path)
    assert r.returncode == 1 and json.loads(r.stdout)["summary"]["breaking"] > 0
    assert cli("diff", OLD, NEW, "--format", "github", cwd=tmp_path).stdout.startswith("::")
    assert json.loads(cli("lint", NEW, cwd=tmp_path).stdout)["mode"] == "lint"
    r = cli("lint", NEW, OLD, cwd=tmp_path)
    assert r.returncode == 2 and "--format json (the config file's format) takes one snapshot" in r.stderr
    assert cli("history", NEW, "--against", OLD, cwd=tmp_path).stdout.startswith("schema-audit history:")
    cfg.write_text('format = "yaml"\n')
    r = cli("diff", OLD, NEW, cwd=tmp_path)
    assert r.returncode == 2 and "format must be one of" in r.stderr and "Traceback" not in r.stderr


def _long_globs(count: int) -> list[str]:
    """``count`` globs, half tool names, half wildcards; one of them (``react``) names a real tool."""
    half = count // 2
    return ["react", *(f"tool_{i}" for i in range(half - 1)), *(f"[a-z]*x{i}*" for i in range(count - half))]


@pytest.mark.timing
def test_a_long_exclude_tools_list_is_compiled_once(tmp_path: Path):
    """50,000 globs took more than a minute (``fnmatch`` keeps 32,768 compiled patterns: each name compiled every
    glob again) and printed 50,000 warnings. Now a list is compiled once (a set of names, one regex for the
    wildcards): the 10,000 a list may hold take about a second, and the warnings are counted past five."""
    import timing

    config = tmp_path / "long.toml"
    config.write_text(f"exclude_tools = {json.dumps(_long_globs(10_000))}\n", encoding="utf-8")
    proc, took = timing.run(
        [sys.executable, "-m", "mcp_schema_audit", "diff", "--config", str(config), "--format", "json", OLD, NEW],
        timeout=120,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    assert "react" not in tools_of(report) and "get_thread" in tools_of(report)
    warnings = proc.stderr.splitlines()
    assert len(warnings) == 6 and warnings[-1].endswith(  # 4,999 names and 5,000 wildcards miss
        "9994 more --exclude-tool globs match no tool in '0.2.5' or '0.2.6'"
    )
    assert any("(10000 in all)" in note for note in report["notes"]), report["notes"]
    assert took.unloaded() < 20, took.describe()


def test_more_globs_than_a_list_may_hold_is_exit_2(tmp_path: Path):
    config = tmp_path / "longer.toml"
    config.write_text(f"exclude_tools = {json.dumps(_long_globs(50_000))}\n", encoding="utf-8")
    r = cli("diff", "--config", str(config), OLD, NEW)
    assert r.returncode == 2
    assert r.stderr.splitlines() == [
        f"schema-audit: error: {config}: exclude_tools: 50000 globs, more than the 10000 one list may hold "
        "(name a family with a wildcard, e.g. admin_*)"
    ]


@pytest.mark.timing
def test_a_long_ignore_list_matches_each_pattern_compiled_once(tmp_path: Path):
    """50,000 ``[[ignore]]`` entries took 45 s (23 s of CPU; this one 19 s without the waits for a CPU): every
    finding tried every entry through ``fnmatch``, past its cache. Each pattern is compiled once now, and entries
    with a fingerprint are looked up."""
    import timing

    # more patterns than fnmatch's cache holds (32,768)
    loose = "".join(f'[[ignore]]\ntool = "zz{i}*"\nreason = "r"\n' for i in range(40_000))
    prints = "".join(f'[[ignore]]\nfingerprint = "{i:016x}"\nreason = "r"\n' for i in range(10_000))
    last = '[[ignore]]\ntool = "whoami"\nreason = "accepted"\n'
    config = tmp_path / "ignore.toml"
    config.write_text(loose + prints + last, encoding="utf-8")
    proc, took = timing.run(
        [sys.executable, "-m", "mcp_schema_audit", "diff", "--config", str(config), "--format", "json", OLD, NEW],
        timeout=120,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    assert {i["finding"]["tool"] for i in report["ignored"]} == {"whoami"}
    assert took.unloaded() < 15, took.describe()
