"""The CLI as a real subprocess and through typer's CliRunner: input forms, store, exit codes, one-line errors."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
import typer.main
from typer.testing import CliRunner

from mcp_schema_audit.cli import app
from mcp_schema_audit.snapshot import FORMAT_ID, load_snapshot, tool_hash

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "fixtures" / "seed"
TOOLS = [
    {"name": "b", "inputSchema": {"type": "object"}, "x-vendor": {"k": 1}, "_meta": {"m": 2}},
    {"name": "a", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}},
]


def cli(*args: str, cwd: Path | None = None, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcp_schema_audit", *args],
        capture_output=True,
        text=True,
        cwd=cwd or ROOT,
        timeout=60,
        input=stdin,
    )


@pytest.mark.parametrize("form", ["raw", "jsonrpc", "inspector"])
def test_snapshot_from_file_accepts_every_form(tmp_path: Path, form: str):
    result = {"tools": TOOLS}
    data = {"raw": result, "jsonrpc": {"jsonrpc": "2.0", "id": 1, "result": result}, "inspector": {"result": result}}[
        form
    ]
    src = tmp_path / "in.json"
    src.write_text(json.dumps(data))
    r = cli("snapshot", "--from-file", str(src), "--label", "v1", "--store", str(tmp_path / "s"))
    assert r.returncode == 0, r.stderr
    path = tmp_path / "s" / "snapshots" / "v1.json"
    text = path.read_text()
    snap = json.loads(text)
    assert snap["format"] == FORMAT_ID and snap["format_version"] == 3 and snap["label"] == "v1"
    assert snap["captured"] == [] and "prompts" not in snap and "instructions" not in snap  # a tools/list file
    assert [t["name"] for t in snap["tools"]] == ["a", "b"]
    assert snap["tools"][1]["x-vendor"] == {"k": 1} and snap["tools"][1]["_meta"] == {"m": 2}
    assert snap["tool_hashes"]["a"] == tool_hash(TOOLS[1])
    assert text.endswith("}\n") and text == json.dumps(snap, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    assert load_snapshot("v1", store=tmp_path / "s").label == "v1"


def test_snapshot_to_stdout_and_diff_by_label(tmp_path: Path):
    r = cli("snapshot", "--from-file", str(SEED / "0.2.5.json"), "--out", "-")
    assert r.returncode == 0 and json.loads(r.stdout)["format"] == FORMAT_ID
    store = tmp_path / "s"
    for v in ("0.2.5", "0.2.6"):
        assert cli("snapshot", "--from-file", str(SEED / f"{v}.json"), "-l", v, "--store", str(store)).returncode == 0
    r = cli("diff", "0.2.5", "0.2.6", "--store", str(store), "--format", "json", "--output", str(tmp_path / "r.json"))
    assert r.returncode == 1 and r.stdout == ""
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["old"]["label"] == "0.2.5" and report["summary"]["breaking"] > 0


def test_diff_reads_raw_corpus_files_and_does_not_import_the_sdk():
    code = (
        "import sys\nfrom mcp_schema_audit.cli import main\nsys.argv=['schema-audit','diff',"
        f"{str(ROOT / 'fixtures/corpus/server-memory/2025.9.25.json')!r},"
        f"{str(ROOT / 'fixtures/corpus/server-memory/2025.11.25.json')!r},'--format','json']\n"
        "try:\n    main()\nexcept SystemExit as e:\n    code = e.code\n"
        "sys.stderr.write('MCP_IMPORTED=%s CODE=%s' % ('mcp' in sys.modules, code))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert "MCP_IMPORTED=False" in r.stderr, r.stderr
    assert json.loads(r.stdout)["summary"]["info"] >= 9


def test_help_is_fast_and_sdk_free():
    code = (
        "import sys\nfrom mcp_schema_audit.cli import main\nsys.argv=['schema-audit','--help']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\nsys.stderr.write('MCP_IMPORTED=%s' % ('mcp' in sys.modules))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "MCP_IMPORTED=False" in r.stderr and "snapshot" in r.stdout


@pytest.mark.parametrize(
    "args,needle",
    [
        (["diff", "nope-a", "nope-b"], "no snapshot 'nope-a'"),
        (["diff", str(SEED / "0.2.5.json"), str(SEED)], "not a regular file"),
        (["diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), "--format", "yaml"], "--format must be one of"),
        (["diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), "--fail-on", "sometimes"], "--fail-on must be"),
        (["diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), "--mode", "sideways"], "--mode must be"),
        (["diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), "--host", "claude"], "--host must be"),
        (["snapshot", "--label", "x"], "give exactly one source"),
        (["snapshot", "--label", "../evil", "--from-file", str(SEED / "0.2.5.json")], "invalid label"),
        (["snapshot", "--label", "x", "--url", "ftp://h/x"], "http:// or https://"),
        (
            ["snapshot", "--label", "x", "--url", "http://127.0.0.1:9/mcp", "--header", "NoColon"],
            "--header must look like",
        ),
        (
            ["snapshot", "--label", "x", "--url", "http://127.0.0.1:9/mcp", "--header-env", "A=SA_UNSET_VAR_X"],
            "SA_UNSET_VAR_X is not set",
        ),
        (["snapshot", "--label", "x", "--protocol", "2099", "--", "true"], "--protocol must be"),
        (["schema", "nothing"], "unknown schema"),
        (["diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), "--jobs", "0"], "--jobs must be"),
        (["history", str(SEED / "0.2.6.json"), "--against", str(SEED / "0.2.5.json"), "-j", "-3"], "--jobs must be"),
    ],
)
def test_usage_and_input_errors_exit_2_with_one_line(args: list[str], needle: str):
    r = cli(*args)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert needle in r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "content,needle",
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "tools[0] is not an object"),  # a bare array is a tools listing
        ('"tools"', "expected a JSON object"),
        ('{"tools": {}}', "'tools' must be an array"),
        ('{"tools": [{"inputSchema": {}}]}', "has no name"),
        ('{"tools": [{"name": "a"}, {"name": "a"}]}', "duplicate tool name"),
        ('{"tools": [{"name": "a", "inputSchema": 3}]}', "inputSchema is not an object"),
        ('{"format": "schema-audit/snapshot", "format_version": 99, "tools": []}', "format_version 99"),
        ('{"tools": [{"name": "a", "inputSchema": {"maximum": NaN}}]}', "NaN is not valid JSON"),
        ('{"tools": [{"name": "a", "inputSchema": {"maximum": 1e400}}]}', "out of range"),
        ('{"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "nope"}}', "JSON-RPC error"),
    ],
)
def test_bad_input_files_exit_2(tmp_path: Path, content: str, needle: str):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    for args in (
        ["diff", str(bad), str(SEED / "0.2.5.json")],
        ["snapshot", "--from-file", str(bad), "--label", "x", "--store", str(tmp_path / "s")],
    ):
        r = cli(*args)
        assert r.returncode == 2 and needle in r.stderr, (args, r.stderr)
        assert "Traceback" not in r.stderr
    assert not (tmp_path / "s").exists() or not any((tmp_path / "s").rglob("*.json"))


def test_failed_import_leaves_existing_snapshot_intact(tmp_path: Path):
    store = tmp_path / "s"
    assert cli("snapshot", "--from-file", str(SEED / "0.2.5.json"), "-l", "v", "--store", str(store)).returncode == 0
    before = (store / "snapshots" / "v.json").read_bytes()
    bad = tmp_path / "bad.json"
    bad.write_bytes(b'{"tools": [\xff]}')
    r = cli("snapshot", "--from-file", str(bad), "-l", "v", "--store", str(store), "--force")
    assert r.returncode == 2 and "UTF-8" in r.stderr
    assert (store / "snapshots" / "v.json").read_bytes() == before
    assert [p.name for p in (store / "snapshots").iterdir()] == ["v.json"]


def test_text_report_shows_server_text_inertly(tmp_path: Path):
    evil = "\x1b[31mred\x1b[0m[bold red]x[/bold red][link=http://evil]y[/link]"
    old = {"tools": [{"name": evil, "inputSchema": {"type": "object"}, "description": "a"}]}
    new = {"tools": [{"name": evil, "inputSchema": {"type": "object"}, "description": "b\x1b]0;title\x07"}]}
    (tmp_path / "o.json").write_text(json.dumps(old))
    (tmp_path / "n.json").write_text(json.dumps(new))
    r = CliRunner().invoke(app, ["diff", str(tmp_path / "o.json"), str(tmp_path / "n.json")])
    assert r.exit_code == 0
    assert "\x1b" not in r.output and "\\x1b[31mred" in r.output
    assert "[bold red]x[/bold red][link=http://evil]y[/link]" in r.output


def test_version_and_python_m():
    r = cli("--version")
    assert r.returncode == 0 and r.stdout.startswith("schema-audit ")


_METAVAR_RE = re.compile(
    r"(?:'?[A-Z][A-Z_]*(?:(?:=|: )[A-Z_]+)?'?|[a-z0-9-]+(?:\|[a-z0-9-]+)+|\[-- [A-Z_]+\.\.\.\])(?:\.\.\.)?"
)
_TYPE_NAMES = {"STR", "INT", "FLOAT", "BOOL", "PATH", "TEXT", "INTEGER", "LIST", "VALUE", "VALUES"}


def _commands() -> dict[str, Any]:
    return dict(typer.main.get_command(app).commands)  # type: ignore[attr-defined]


def test_every_command_is_covered_by_the_help_test():
    assert {"snapshot", "probe", "diff", "history", "lint", "schema", "demo", "rules", "explain"} <= set(_commands())


@pytest.mark.parametrize("command", ["", *sorted(_commands())])
def test_help_shows_metavars_not_python_types(command: str):
    """``--help`` of every command names each value (FILE, KEY=VALUE, SECONDS), never ``<list[str]>``-style types."""
    r = cli(*([command] if command else []), "--help")
    assert r.returncode == 0 and r.stderr == "", r.stderr
    out = r.stdout
    assert "list[" not in out and "<" not in out, out
    assert not re.search(r"\b(str|int|float|path|bool)\b range", out), out
    usage = " ".join(out.split("\n\n")[0].split())
    assert not re.search(r"\{[a-z_]+\}|\[\[", usage), usage  # typer's {arg} and [[arg]]... placeholders
    if not command:
        return
    cmd = _commands()[command]
    for param in cmd.params:
        if param.param_type_name == "argument":
            assert param.metavar and _METAVAR_RE.fullmatch(param.metavar), (command, param.name, param.metavar)
            assert param.metavar in usage, (usage, param.metavar)
            assert re.search(rf"^  {re.escape(param.metavar)}  ", out, re.M), (command, param.metavar, out)
        elif not param.is_flag:
            metavar = param.metavar
            assert metavar and _METAVAR_RE.fullmatch(metavar) and metavar.strip("'") not in _TYPE_NAMES, (
                command,
                param.name,
                metavar,
            )
            assert f"{max(param.opts, key=len)} {metavar}" in out, (command, param.opts, metavar, out)


# --- snapshot never replaces an existing one without --force -----------------------------------------------


def test_snapshot_refuses_to_replace_a_stored_label_without_force(tmp_path: Path):
    store = tmp_path / "s"
    assert cli("snapshot", "--from-file", str(SEED / "0.2.5.json"), "-l", "v", "--store", str(store)).returncode == 0
    path = store / "snapshots" / "v.json"
    before = path.read_bytes()
    r = cli("snapshot", "--from-file", str(SEED / "0.2.6.json"), "-l", "v", "--store", str(store))
    assert r.returncode == 2, r.stderr
    assert "snapshot 'v' already exists in the store" in r.stderr and "--force" in r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert path.read_bytes() == before
    # refused before anything is captured: the server command never runs
    marker = tmp_path / "server-ran"
    r = cli(
        "snapshot", "-l", "v", "--store", str(store), "--", sys.executable, "-c", f"open({str(marker)!r}, 'w').close()"
    )
    assert r.returncode == 2 and "already exists" in r.stderr and not marker.exists()
    r = cli("snapshot", "--from-file", str(SEED / "0.2.6.json"), "-l", "v", "--store", str(store), "--force")
    assert r.returncode == 0, r.stderr
    assert json.loads(path.read_text())["server"]["version"] == "0.2.6"
    assert [p.name for p in (store / "snapshots").iterdir()] == ["v.json"]


def test_snapshot_out_file_follows_the_same_rule(tmp_path: Path):
    out = tmp_path / "snap.json"
    assert cli("snapshot", "--from-file", str(SEED / "0.2.5.json"), "--out", str(out)).returncode == 0
    before = out.read_bytes()
    r = cli("snapshot", "--from-file", str(SEED / "0.2.6.json"), "--out", str(out), "--label", "pr")
    assert r.returncode == 2 and f"{out} already exists; pass --force to replace it" in r.stderr
    assert out.read_bytes() == before
    assert cli("snapshot", "--from-file", str(SEED / "0.2.6.json"), "--out", str(out), "--force").returncode == 0
    assert out.read_bytes() != before
    # stdout is never "existing"
    assert cli("snapshot", "--from-file", str(SEED / "0.2.5.json"), "--out", "-").returncode == 0


# --- --format help lists exactly what each command accepts -----------------------------------------------


def _help_formats(command: str) -> list[str]:
    out = cli(command, "--help").stdout
    block = out[out.index("--format FORMAT") + len("--format FORMAT") :]
    block = " ".join(block.split("\n  -")[0].split())  # the option's help, unwrapped
    return re.findall(r"[a-z]+", block.split("(")[0].split(".")[0])


@pytest.mark.parametrize(
    "command,args",
    [
        ("diff", [str(SEED / "0.2.4.json"), str(SEED / "0.2.5.json")]),
        ("lint", [str(SEED / "0.2.5.json")]),
        ("history", [str(SEED / "0.2.5.json"), "--against", str(SEED / "0.2.4.json")]),
        ("rules", []),
    ],
)
def test_format_help_lists_every_accepted_value(command: str, args: list[str]):
    listed = _help_formats(command)
    r = cli(command, *args, "--format", "bogus")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    accepted = re.search(r"--format must be one of (.*) \(got 'bogus'\)", r.stderr).group(1).split(", ")
    assert listed == accepted, (listed, accepted)
    for fmt in listed:
        r = cli(command, *args, "--format", fmt)
        assert r.returncode in (0, 1), (command, fmt, r.stderr)
    if command == "lint":
        assert "ignore" in listed  # lint takes diff's formats, ignore included
        r = cli("lint", str(SEED / "0.2.5.json"), "--format", "ignore", "--fail-on", "warning")
        assert r.returncode == 0 and "[[ignore]]" in r.stdout  # writes config, not a gate (as in diff)


def test_time_budget_flag(tmp_path: Path):
    """--time-budget is a last-resort guard: when spent, the run stops with exit 4, one line, and no report
    (it never changes a finding); it is validated, and its --help default is the engine's ``RUN_TIME_BUDGET_S``."""
    from mcp_schema_audit.engine import RUN_TIME_BUDGET_S

    def write(name: str, required: list[str]) -> Path:
        tools = [
            {
                "name": f"t{i}",
                "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}, "required": required},
            }
            for i in range(3)
        ]
        path = tmp_path / name
        path.write_text(json.dumps({"tools": tools}))
        return path

    old, new = write("old.json", []), write("new.json", ["x"])
    full = cli("diff", str(old), str(new), "--format", "json", "--time-budget", "0")
    assert full.returncode == 1 and {f["rule"] for f in json.loads(full.stdout)["findings"]} == {"input-required-added"}
    out = tmp_path / "report.json"
    spent = cli("diff", str(old), str(new), "--format", "json", "--time-budget", "0.000001", "--output", str(out))
    assert spent.returncode == 4 and spent.stdout == "" and not out.exists(), spent.stderr
    assert len(spent.stderr.strip().splitlines()) == 1 and "--time-budget" in spent.stderr
    assert "Traceback" not in spent.stderr
    for bad in ("-1", "nan", "inf", "abc"):
        r = cli("diff", str(old), str(new), "--time-budget", bad)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr, bad
    for command in ("diff", "history"):
        assert f"default {RUN_TIME_BUDGET_S:g};" in " ".join(cli(command, "--help").stdout.split()), command


def test_demo_keep_refuses_to_replace_stored_snapshots(tmp_path: Path):
    src = tmp_path / "in.json"
    src.write_text(json.dumps({"tools": TOOLS}))
    assert cli("snapshot", "--from-file", str(src), "--label", "v1", "--store", str(tmp_path)).returncode == 0
    before = (tmp_path / "snapshots" / "v1.json").read_bytes()
    r = cli("demo", "--keep", str(tmp_path))
    assert r.returncode == 2 and "pass --force" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert (tmp_path / "snapshots" / "v1.json").read_bytes() == before


def _pty_run(args: list[str], tmp_path: Path) -> tuple[int, bytes, str]:
    """Run the CLI with stderr on a pseudo-terminal and stdout to a file: (exit code, stderr bytes, stdout)."""
    import os
    import pty

    master, slave = pty.openpty()
    out = tmp_path / "stdout.txt"
    with out.open("w") as stdout:
        proc = subprocess.Popen(
            [sys.executable, "-m", "mcp_schema_audit", *args],
            stdout=stdout,
            stderr=slave,
            cwd=ROOT,
            env={**os.environ, "TERM": "xterm"},
        )
    os.close(slave)
    err = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        err += chunk
    os.close(master)
    return proc.wait(timeout=120), err, out.read_text(encoding="utf-8")


def test_progress_bar_on_a_terminal_only(tmp_path: Path):
    """A rich progress bar (tools compared / total) on stderr when it is a terminal; nothing when it is not;
    the report on stdout is the same either way."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_catalog import catalogs

    cats = catalogs(120)
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps({"tools": cats["old"]}), encoding="utf-8")
    new.write_text(json.dumps({"tools": cats["rewrite"]}), encoding="utf-8")
    args = ["diff", str(old), str(new), "--format", "json"]
    code, err, tty_out = _pty_run(args, tmp_path)
    assert code == 1 and b"comparing tools" in err and b"120/120" in err, err[-400:]
    plain = cli(*args)
    assert plain.returncode == 1 and plain.stderr == "" and plain.stdout == tty_out


@pytest.mark.parametrize("command", sorted(_commands()))
def test_help_ends_with_the_commands_exit_codes(command: str):
    """Every command's ``--help`` ends with its exit codes, each one a code of docs/cli.md's table (or, for
    ``record``, the server's own status)."""
    out = " ".join(cli(command, "--help").stdout.split())
    tail = out.rsplit("Exit codes: ", 1)
    assert len(tail) == 2, out
    codes = set(re.findall(r"(?:^|; )(\d+)(?:/\d+)? ", tail[1]))
    documented = set(re.findall(r"^\| (\d+)", (ROOT / "docs" / "cli.md").read_text(), re.M))
    assert codes and codes <= documented | {"128"}, (command, codes)
    gated = {"diff", "history", "lint", "probe", "check"}
    assert ("1 the gate failed" in tail[1]) == (command in gated), (command, tail[1])
    # a flag the exit codes name is one the command has
    for flag in set(re.findall(r"--[a-z][a-z-]+", tail[1])):
        assert re.search(rf"^\s+(?:-\w, )?{flag}\b", cli(command, "--help").stdout, re.M), (command, flag)


def test_the_top_level_help_gives_the_exit_codes():
    out = " ".join(cli("--help").stdout.split())
    assert "Exit codes: 0 gate passed; 1 gate failed" in out and "Each command's --help gives its own." in out
