"""``history`` in a store whose snapshots carry different server names: a server that renamed itself (MotherDuck's
0.8.1 reports ``motherduck``, 1.1.0 ``mcp-server-motherduck``) and a store shared by two servers. No stored
snapshot is ever left out silently: without a choice (``--server NAME``, the config key ``servers``) the run is
exit 2 naming it; a former name makes the old snapshots cohorts with a ``server-renamed`` finding; NEW's own
name leaves the other servers' snapshots out with a report note. The real CLI as a subprocess."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from gate_helpers import ROOT, cli

QUERY = {"type": "object", "properties": {"sql": {"type": "string"}}, "required": ["sql"]}
#: MotherDuck's rename, minimized: 0.8.1 has query and list_databases; 1.1.0 only execute_query
MOTHERDUCK = {
    "0.8.1": ("motherduck", [{"name": "query", "inputSchema": QUERY}, {"name": "list_databases", "inputSchema": {}}]),
    "1.1.0": ("mcp-server-motherduck", [{"name": "execute_query", "inputSchema": QUERY}]),
}
WEATHER = {"w-3.0": ("weather", [{"name": "forecast", "inputSchema": {"type": "object"}}])}


def _store(tmp_path: Path, snaps: dict[str, tuple[str, list[dict]]]) -> str:
    store = tmp_path / "store"
    for label, (name, tools) in snaps.items():
        src = tmp_path / f"{label}.json"
        src.write_text(json.dumps({"tools": tools, "serverInfo": {"name": name, "version": label.split("-")[-1]}}))
        r = cli("snapshot", "--store", str(store), "--label", label, "--from-file", str(src))
        assert r.returncode == 0, r.stderr
    return str(store)


def test_a_renamed_server_is_refused_until_the_choice_is_made(tmp_path: Path) -> None:
    """Before: exit 0, 0.8.1 named only on stderr among "snapshots of other servers". Now exit 2, one line, naming
    the former name and the option."""
    store = _store(tmp_path, MOTHERDUCK)
    r = cli("history", "1.1.0", "--store", store)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and r.stdout == "" and len(lines) == 1, r.stderr
    assert "cannot tell which stored snapshots are versions of '1.1.0'" in lines[0]
    assert "'motherduck' (0.8.1)" in lines[0] and "--server motherduck" in lines[0]
    assert "--server mcp-server-motherduck" in lines[0] and "config key servers" in lines[0]


def test_a_former_name_makes_the_old_snapshots_cohorts_with_a_rename_finding(tmp_path: Path) -> None:
    store = _store(tmp_path, MOTHERDUCK)
    r = cli("history", "1.1.0", "--store", store, "--server", "motherduck", "--format", "json")
    assert r.returncode == 1, r.stderr
    data = json.loads(r.stdout)
    assert [c["label"] for c in data["cohorts"]] == ["0.8.1"]
    found = {(g["rule"], g["name"], g["severity"]) for g in data["findings"]}
    assert found == {
        ("tool-removed", "list_databases", "breaking"),
        ("tool-renamed", "query", "breaking"),  # query → execute_query, the same inputSchema: one finding
        ("server-renamed", "serverInfo", "warning"),
    }
    renamed = next(f for f in data["cohorts"][0]["findings"] if f["rule"] == "server-renamed")
    assert renamed["old"] == "motherduck" and renamed["new"] == "mcp-server-motherduck"
    assert renamed["surface"] == "server" and renamed["pointer"] == "/name"
    assert "serverInfo.name 'motherduck' → 'mcp-server-motherduck'" in renamed["message"]
    assert data["matrix"]["server serverInfo"] == {"0.8.1": "warning"}
    # the tool-removed witnesses are calls a cached host makes: arguments its inputSchema allows, {} for {}
    witnesses = {
        f["name"]: f["witness"]["instance"]
        for f in data["cohorts"][0]["findings"]
        if f["rule"] in ("tool-removed", "tool-renamed")
    }
    assert witnesses == {
        "list_databases": {"name": "list_databases", "arguments": {}},
        "query": {"name": "query", "arguments": {"sql": "a"}},
    }
    # the same as --against 0.8.1 (where the rename is a finding too), and the glob '*' takes every snapshot
    against = json.loads(cli("history", "1.1.0", "--store", store, "--against", "0.8.1", "--format", "json").stdout)
    assert {(g["rule"], g["name"]) for g in against["findings"]} == {(rule, name) for rule, name, _ in found}
    every = json.loads(cli("history", "1.1.0", "--store", store, "--server", "*", "--format", "json").stdout)
    assert [c["label"] for c in every["cohorts"]] == ["0.8.1"]


def test_the_config_key_servers_decides_for_every_run(tmp_path: Path) -> None:
    store = _store(tmp_path, MOTHERDUCK)
    (tmp_path / ".schema-audit.toml").write_text(f'store = "{store}"\nservers = ["motherduck"]\n')
    r = cli("history", "1.1.0", "--format", "json", cwd=tmp_path)
    assert r.returncode == 1 and [c["label"] for c in json.loads(r.stdout)["cohorts"]] == ["0.8.1"], r.stderr
    # a flag replaces the config's list: NEW's own name only leaves the old name's snapshot out
    r = cli("history", "1.1.0", "--server", "mcp-server-motherduck", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout == "", r.stderr
    assert "left out 1 stored snapshot of other servers" in r.stderr and "'motherduck': 0.8.1" in r.stderr
    assert "nothing to check" in r.stderr
    (tmp_path / ".schema-audit.toml").write_text('servers = "motherduck"\n')
    r = cli("history", "1.1.0", "--store", store, cwd=tmp_path)
    assert r.returncode == 2 and "servers must be a list of glob strings" in r.stderr, r.stderr


def test_a_store_shared_by_two_servers(tmp_path: Path) -> None:
    """Two versions of the rename and a genuine second server (weather) in one store."""
    store = _store(tmp_path, {**MOTHERDUCK, **WEATHER})
    r = cli("history", "1.1.0", "--store", store)
    assert r.returncode == 2 and "'motherduck' (0.8.1); 'weather' (w-3.0)" in r.stderr, r.stderr
    # the former name is NEW's history, weather is left out: named in the report's notes, not silently
    r = cli("history", "1.1.0", "--store", store, "--server", "motherduck", "--format", "json")
    data = json.loads(r.stdout)
    assert r.returncode == 1 and [c["label"] for c in data["cohorts"]] == ["0.8.1"], r.stderr
    note = "left out 1 stored snapshot of other servers (a name neither 'mcp-server-motherduck' nor matched by"
    assert any(n.startswith(note) and n.endswith("'weather': w-3.0") for n in data["notes"]), data["notes"]
    text = cli("history", "1.1.0", "--store", store, "--server", "motherduck").stdout
    assert "note: left out 1 stored snapshot of other servers" in text
    # a typo in --server is a warning, and leaves the snapshot out as any other name would be
    r = cli("history", "1.1.0", "--store", store, "--server", "motherduk", "--server", "motherduck")
    assert "warning: --server 'motherduk' matches no server name in the store" in r.stderr, r.stderr
    # --server chooses among the store's snapshots: with --against it is a usage error
    r = cli("history", "1.1.0", "--store", store, "--server", "motherduck", "--against", "0.8.1")
    assert r.returncode == 2 and "--server chooses among the store's snapshots" in r.stderr, r.stderr


def test_two_captured_servers_in_one_store_need_their_own_name(tmp_path: Path) -> None:
    """Real captures: the demo mail server (``demo-mail``) at two releases and the docs server of the surface
    tests (``surface-docs``) in one store. The mail history is checked against the mail release only once
    --server names it; the docs snapshot is never a cohort and never gives a rename finding."""
    store = str(tmp_path / "st")
    demo = str(ROOT / "fixtures" / "demo_server" / "mail_server.py")
    docs = str(ROOT / "tests" / "servers" / "surface_server.py")
    for label, command in (
        ("mail-1", [demo, "--version", "1"]),
        ("docs-1", [docs, "--version", "1"]),
        ("mail-2", [demo, "--version", "2"]),
    ):
        r = cli("snapshot", "--store", store, "--label", label, "--", sys.executable, *command, timeout=120)
        assert r.returncode == 0, r.stderr
    r = cli("history", "mail-2", "--store", store)
    assert r.returncode == 2 and "'surface-docs' (docs-1)" in r.stderr, r.stderr
    r = cli("history", "mail-2", "--store", store, "--server", "demo-mail", "--format", "json")
    data = json.loads(r.stdout)
    assert r.returncode == 1 and [c["label"] for c in data["cohorts"]] == ["mail-1"], r.stderr
    assert "server-renamed" not in {g["rule"] for g in data["findings"]}
    assert any("'surface-docs': docs-1" in n for n in data["notes"]), data["notes"]


@pytest.mark.parametrize("mode", ["backward", "full"])
def test_diff_reports_the_rename_once(tmp_path: Path, mode: str) -> None:
    files = []
    for label, (name, tools) in MOTHERDUCK.items():
        path = tmp_path / f"{label}.json"
        path.write_text(json.dumps({"tools": tools, "serverInfo": {"name": name, "version": label}}))
        files.append(str(path))
    data = json.loads(cli("diff", *files, "--mode", mode, "--format", "json").stdout)
    renamed = [f for f in data["findings"] if f["rule"] == "server-renamed"]
    assert len(renamed) == 1 and renamed[0]["severity"] == "warning", data["findings"]
    # a file without a server name (a tools/list file) is compared with no name
    (tmp_path / "raw.json").write_text(json.dumps({"tools": MOTHERDUCK["0.8.1"][1]}))
    data = json.loads(cli("diff", str(tmp_path / "raw.json"), files[0], "--format", "json").stdout)
    assert data["findings"] == []
