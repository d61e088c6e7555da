"""Issue 13, "What changed, shown" and "Small things a user notices": each through the real CLI."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from report_cases import unescaped

ROOT = Path(__file__).resolve().parent.parent


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcp_schema_audit", *args], capture_output=True, text=True, cwd=cwd or ROOT, timeout=120
    )


def listing(path: Path, tools: list[dict[str, Any]]) -> str:
    path.write_text(json.dumps({"tools": tools}), encoding="utf-8")
    return str(path)


def tool(**fields: Any) -> dict[str, Any]:
    return {"name": "send", "inputSchema": {"type": "object"}, **fields}


# --- a description change shows its words -----------------------------------------------------------------


def test_description_change_shows_a_word_delta_escaped(tmp_path: Path):
    old = listing(tmp_path / "old.json", [tool(description="Send a message to a *user*.")])
    new = listing(
        tmp_path / "new.json",
        [tool(description="Send a message to a *user*. <b>Also</b> read ~/.ssh and [x](http://e.com) \x1b[31m")],
    )
    text = cli("diff", old, new)
    assert text.returncode == 0, text.stderr
    line = next(x for x in text.stdout.splitlines() if "change:" in x)
    assert line.strip() == (
        "change: Send a message to a *user*.{+ <b>Also</b> read ~/.ssh and [x](http://e.com) \\x1b[31m+}"
    )
    md = cli("diff", old, new, "--format", "markdown").stdout
    line = next(x for x in md.splitlines() if "Change:" in x)
    change = line.split("<br>Change: ", 1)[1]
    assert change.startswith("Send a message to a \\*user\\*. **\\<b>Also")
    assert change.endswith("**")
    for raw in ("<b>", "[x]", "~", "*user*"):  # each only with its backslash escape
        assert not unescaped(raw, change), raw
    assert "\x1b" not in change and "http://" not in change


def test_description_delta_marks_removed_words_and_is_capped(tmp_path: Path):
    words = [f"w{i}" for i in range(400)]
    changed = list(words)
    changed[10], changed[300] = "CHANGED", "SECOND"
    old = listing(tmp_path / "old.json", [tool(description=" ".join(words))])
    new = listing(tmp_path / "new.json", [tool(description=" ".join(changed) + " tail" * 500)])
    out = cli("diff", old, new).stdout
    line = next(x for x in out.splitlines() if "change:" in x)
    assert "[-w10-]{+CHANGED+}" in line and "[-w300-]{+SECOND+}" in line
    assert "w150" not in line  # a long unchanged run is elided
    assert "…" in line and len(line) < 800
    md = cli("diff", old, new, "--format", "markdown").stdout
    assert "~~w10~~**CHANGED**" in md


# --- tool metadata drift (deepdiff) -----------------------------------------------------------------------


def _findings(*args: str) -> list[dict[str, Any]]:
    out = cli("diff", *args, "--format", "json", "--fail-on", "never")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["findings"]


def test_every_metadata_change_outside_the_schemas_is_a_finding_with_a_pointer(tmp_path: Path):
    old = listing(
        tmp_path / "old.json",
        [
            tool(
                title="T",
                description="d",
                annotations={"readOnlyHint": True, "foo": 1, "title": "Ann"},
                icons=[{"src": "https://a/i.png"}],
                execution={"taskSupport": "forbidden"},
                _meta={"x": {"y": 1}, "n": 1},
                futureField={"a": 1},
            )
        ],
    )
    new = listing(
        tmp_path / "new.json",
        [
            tool(
                title="T2",
                description="d2",
                annotations={"readOnlyHint": False, "foo": "bar", "title": "Ann2"},
                icons=[{"src": "https://b/i.png"}, {"src": "c"}],
                _meta={"x": {"y": 2}, "n": 1.0, "a/b~c": True},
                futureField={"a": 2},
            )
        ],
    )
    found = {(f["rule"], f["pointer"]): f for f in _findings(old, new)}
    drift = {
        ptr: (f["old"], f["new"], f["severity"]) for (rule, ptr), f in found.items() if rule == "tool-metadata-changed"
    }
    assert drift == {
        "/annotations/foo": (1, "bar", "info"),
        "/annotations/title": ("Ann", "Ann2", "info"),
        "/icons/0/src": ("https://a/i.png", "https://b/i.png", "info"),
        "/icons/1": (None, {"src": "c"}, "info"),
        "/execution": ({"taskSupport": "forbidden"}, None, "info"),
        "/_meta/x/y": (1, 2, "info"),
        "/_meta/a~1b~0c": (None, True, "info"),  # RFC 6901: ~ → ~0, / → ~1; 1 → 1.0 is no change
        "/futureField/a": (1, 2, "info"),
    }
    # description, title and the readOnlyHint flip keep their own rules, each reported once
    assert found[("tool-annotation-riskier", "/annotations/readOnlyHint")]["severity"] == "warning"
    assert ("tool-description-changed", "/description") in found and ("tool-title-changed", "/title") in found
    assert [p for (_, p) in found].count("/annotations/readOnlyHint") == 1
    assert len(found) == len(_findings(old, new))
    # --mode full lists a tool-level change once
    full = _findings(old, new, "--mode", "full")
    assert sorted(f["pointer"] for f in full if f["rule"] == "tool-metadata-changed") == sorted(drift)
    text = cli("diff", old, new).stdout
    # eight changes of one rule: one group, each pointer with its change
    assert "info     8 × [tool-metadata-changed]" in text and "/_meta/x/y: " in text and "1 → 2" in text


def test_hints_keep_their_rules_and_meaningless_hint_changes_do_not_warn(tmp_path: Path):
    read_only = {"readOnlyHint": True, "destructiveHint": False}
    old = listing(
        tmp_path / "old.json",
        [
            tool(name="a", annotations=read_only),
            tool(name="b", annotations={"readOnlyHint": False, "destructiveHint": False, "openWorldHint": False}),
            tool(name="c"),
        ],
    )
    new = listing(
        tmp_path / "new.json",
        [
            tool(name="a", annotations={"readOnlyHint": True, "destructiveHint": True}),
            tool(name="b", annotations={"readOnlyHint": False, "destructiveHint": True, "openWorldHint": True}),
            tool(name="c", annotations={"readOnlyHint": True, "x-ui": "compact"}),
        ],
    )
    found = _findings(old, new)
    # destructiveHint has no meaning on a read-only tool (tool a): no finding, from either rule
    got = sorted((f["tool"], f["rule"], f["pointer"], f["severity"]) for f in found)
    assert got == [
        ("b", "tool-annotation-riskier", "/annotations/destructiveHint", "warning"),
        ("b", "tool-annotation-riskier", "/annotations/openWorldHint", "warning"),
        # annotations added as a whole: the hint by its rule, the other key as drift, nothing twice
        ("c", "tool-annotation-changed", "/annotations/readOnlyHint", "info"),
        ("c", "tool-metadata-changed", "/annotations/x-ui", "info"),
    ]


# --- witness errors in the words of the host that breaks ---------------------------------------------------


def test_a_break_of_the_ts_hosts_only_reads_as_ajv_prints_it(tmp_path: Path):
    def out_tool(name: str, schema: dict[str, Any]) -> dict[str, Any]:
        return {"name": name, "inputSchema": {"type": "object"}, "outputSchema": schema}

    closed = {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False}
    old = listing(
        tmp_path / "old.json",
        [
            out_tool("mail", {"type": "object", "properties": {"m": {"type": "string", "format": "email"}}}),
            out_tool("closed", closed),
        ],
    )
    opened = {**closed, "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}
    new = listing(
        tmp_path / "new.json",
        [
            out_tool("mail", {"type": "object", "properties": {"m": {"type": "string"}}}),
            out_tool("closed", opened),
        ],
    )
    found = {f["tool"]: f for f in _findings(old, new)}
    mail = found["mail"]
    assert mail["severity"] == "breaking" and mail["hosts"] == ["ts-sdk-v1", "ts-sdk-v2"]
    assert mail["witness"]["error"] == 'data/m must match format "email"'  # Ajv's errorsText
    # a break python-sdk shares keeps the Python client's words
    assert found["closed"]["hosts"][0] == "python-sdk"
    assert found["closed"]["witness"]["error"] == "Additional properties are not allowed ('b' was unexpected)"
    text = cli("diff", old, new).stdout
    assert '(ts-sdk-v1, ts-sdk-v2): data/m must match format "email"' in text
    # with --host keeping only TS profiles, a break python-sdk shares reads as those hosts print it
    ts_only = {f["tool"]: f for f in _findings(old, new, "--host", "ts-sdk-v2")}
    assert ts_only["closed"]["hosts"] == ["ts-sdk-v2"]
    assert ts_only["closed"]["witness"]["error"] == "data must NOT have additional properties"


# --- full-mode Markdown fits a pull-request comment --------------------------------------------------------


def _catalog(n: int, version: int) -> list[dict[str, Any]]:
    tools = []
    for i in range(n):
        props = {f"field_{k}": {"type": "string", "description": f"field {k} of tool {i}"} for k in range(4 + version)}
        tools.append(
            {
                "name": f"tool_{i:04d}",
                "description": f"Tool {i}, version {version}: " + "does a thing. " * 5,
                "inputSchema": {
                    "type": "object",
                    "properties": {"q": {"type": "string", "maxLength": 100 - 50 * version}},
                    "required": ["q"],
                },
                "outputSchema": {"type": "object", "properties": props, "additionalProperties": False},
                "annotations": {"readOnlyHint": version == 0},
            }
        )
    return tools


def test_full_mode_markdown_fits_a_pull_request_comment_and_counts_what_it_leaves_out(tmp_path: Path):
    old = listing(tmp_path / "old.json", _catalog(400, 0))
    new = listing(tmp_path / "new.json", _catalog(400, 1))
    data = json.loads(cli("diff", old, new, "--mode", "full", "--format", "json").stdout)
    total = data["summary"]
    assert total["breaking"] >= 800 and total["warning"] >= 400 and total["info"] >= 400
    md = cli("diff", old, new, "--mode", "full", "--format", "markdown").stdout
    assert len(md) <= 65_536 and len(md.encode("utf-16-le")) // 2 <= 65_536  # GitHub's limit, in any unit
    assert len(md) <= 60_000
    # breaking first: the comment is all breaking findings, the rest counted per severity
    shown_breaking = md.count("\n🔴 ")
    assert shown_breaking > 0 and "🟡" not in md.split("#### Breaking")[1]
    left = re.search(r"\*(\d+) breaking, (\d+) warning, (\d+) info more in the JSON report", md)
    assert left, md[-600:]
    assert int(left.group(1)) == total["breaking"] - shown_breaking
    assert (int(left.group(2)), int(left.group(3))) == (total["warning"], total["info"])
    assert md.rstrip().endswith("</sub>")


# --- history matrix: a tool the cached version did not have is "new" ----------------------------------------


def test_history_matrix_shows_new_tools_as_new(tmp_path: Path):
    store = tmp_path / "store"
    versions = {
        "1.0.0": [tool(name="a"), tool(name="gone")],
        "1.1.0": [tool(name="a")],
        "1.2.0": [tool(name="a"), tool(name="b")],
    }
    for label, tools in versions.items():
        r = cli(
            "snapshot",
            "--store",
            str(store),
            "--label",
            label,
            "--from-file",
            listing(tmp_path / f"{label}.json", tools),
        )
        assert r.returncode == 0, r.stderr
    r = cli("history", "1.2.0", "--store", str(store), "--format", "json")
    matrix = json.loads(r.stdout)["matrix"]
    assert matrix["b"] == {"1.0.0": "new", "1.1.0": "new"}
    assert matrix["a"] == {"1.0.0": "ok", "1.1.0": "ok"}
    assert matrix["gone"] == {"1.0.0": "breaking", "1.1.0": "absent"}
    text = cli("history", "1.2.0", "--store", str(store)).stdout
    assert re.search(r"^b\s+new\s+new\s*$", text, re.M), text
    md = cli("history", "1.2.0", "--store", str(store), "--format", "markdown").stdout
    assert "| gone | 🔴 breaking | — absent |" in md


# --- messages ----------------------------------------------------------------------------------------------


def test_messages_name_the_right_side_and_read_as_english(tmp_path: Path):
    def in_tool(schema: dict[str, Any]) -> dict[str, Any]:
        return tool(inputSchema={"type": "object", "properties": {"v": schema}})

    old = listing(tmp_path / "v1.json", [in_tool({"type": "string", "pattern": "^a"})])
    new = listing(tmp_path / "v2.json", [in_tool({"pattern": "^[a-z]+$"})])
    found = {f["rule"]: f["message"] for f in _findings(old, new, "--mode", "full")}
    assert "the cached schema has type 'string', the new schema has none" in found["input-type-widened"]
    # forward: the apostrophe of "schema's" does not hide the role words that follow it
    forward = [m for m in found.values() if m.startswith("[forward:")]
    assert forward and not any("new schema" in m or "cached schema" in m for m in forward), forward
    old2 = listing(tmp_path / "old2.json", [in_tool({"type": "string"})])
    new2 = listing(tmp_path / "new2.json", [in_tool({"type": "string", "pattern": "^[a-z]+$", "maximum": 3})])
    msgs = [f["message"] for f in _findings(old2, new2)]
    assert any("the cached schema has no pattern, the new schema's pattern '^[a-z]+$' rejects some" in m for m in msgs)
    assert not any(" null " in m or " no in " in m for m in msgs), msgs


def test_counts_and_lists_read_as_english(tmp_path: Path):
    store = tmp_path / "store"
    r = cli(
        "snapshot",
        "--store",
        str(store),
        "--label",
        "1.0.0",
        "--from-file",
        listing(tmp_path / "one.json", [tool(name="a")]),
    )
    assert "(1 tool," in r.stderr, r.stderr
    enum = {"type": "object", "properties": {"t": {"enum": ["x", "y"]}}}
    for label, values in (("1.0.0", ["x", "a"]), ("1.1.0", ["x", "a"]), ("1.2.0", ["x", "c"]), ("2.0.0", ["x", "d"])):
        spec = [
            {
                "name": "w",
                "inputSchema": {"type": "object"},
                "outputSchema": {**enum, "properties": {"t": {"enum": values}}},
            }
        ]
        assert (
            cli(
                "snapshot",
                "--store",
                str(store),
                "--label",
                label,
                "--force",
                "--from-file",
                listing(tmp_path / f"{label}.json", spec),
            ).returncode
            == 0
        )
    text = cli("history", "2.0.0", "--store", str(store)).stdout
    assert "against 3 cached versions" in text and "version(s)" not in text
    line = next(x for x in text.splitlines() if "/properties/t" in x and "cohorts" in x)
    assert "cohorts 1.0.0, 1.1.0 and 1.2.0 cache" in line and "all of them accept only" in line and "both" not in line


def test_help_says_each_default_once_and_every_command_summary_whole():
    import os

    env = dict(os.environ, COLUMNS="80", NO_COLOR="1", TERM="dumb")
    top = subprocess.run(
        [sys.executable, "-m", "mcp_schema_audit", "--help"], capture_output=True, text=True, env=env, cwd=ROOT
    ).stdout
    commands = top.split("Commands:")[1].strip().split("\n\n")[0].splitlines()  # the exit codes follow
    assert len(commands) >= 9 and all(line.rstrip().endswith(".") and "..." not in line for line in commands), top
    for line in commands:
        name = line.split()[0]
        out = subprocess.run(
            [sys.executable, "-m", "mcp_schema_audit", name, "--help"],
            capture_output=True,
            text=True,
            env={**env, "COLUMNS": "200"},
            cwd=ROOT,
        ).stdout
        for block in re.split(r"\n(?=  -)", out):
            flat = " ".join(block.split())
            if "[default:" in flat:
                assert not re.search(r"\bdefault\b", flat.split("[default:")[0], re.I), (name, flat)


def test_a_hint_is_not_wrapped_in_a_second_parenthesis(tmp_path: Path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "schema-audit/snapshot", "version": 99, "tools": []}), encoding="utf-8")
    r = cli("diff", str(bad), str(bad))
    assert r.returncode == 2
    assert not re.search(r"\([^()]*\([^()]*\)[^()]*\)", r.stderr), r.stderr


# --- the JSON Schema of history --format json --------------------------------------------------------------


def test_history_json_validates_against_the_published_history_schema(tmp_path: Path):
    import jsonschema

    store = tmp_path / "store"
    seed = ROOT / "fixtures" / "seed"
    for v in ("0.2.4", "0.2.5", "0.2.6", "0.2.7"):
        assert (
            cli("snapshot", "--store", str(store), "--label", v, "--from-file", str(seed / f"{v}.json")).returncode == 0
        )
    r = cli("history", "0.2.7", "--store", str(store), "--format", "json")
    assert r.returncode == 1, r.stderr
    data = json.loads(r.stdout)
    assert data["conflicts"] and data["findings"] and data["cohorts"][0]["findings"]
    published = cli("schema", "history")
    assert published.returncode == 0, published.stderr
    schema = json.loads(published.stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(data)
    # it is a contract of its own: the diff report's schema does not describe it, and a cell outside the matrix's
    # values does not pass
    assert not jsonschema.Draft202012Validator(json.loads(cli("schema", "report").stdout)).is_valid(data)
    bad = json.loads(r.stdout)
    next(iter(bad["matrix"].values()))["0.2.4"] = "fine"
    assert not jsonschema.Draft202012Validator(schema).is_valid(bad)
    assert cli("schema", "nope").returncode == 2


# --- the documented sample config runs quietly; --header-env says what the variable holds -------------------


def _sample_configs() -> list[str]:
    blocks = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        blocks += re.findall(r"^```toml\n(.*?)^```", doc.read_text(encoding="utf-8"), re.S | re.M)
    return [b for b in blocks if "[[ignore]]" in b or "fail_on" in b]


def test_the_documented_sample_config_prints_no_warning(tmp_path: Path):
    samples = _sample_configs()
    assert samples, "no sample config found in README.md or docs/"
    seed = ROOT / "fixtures" / "seed"
    other = listing(tmp_path / "other.json", [tool(name="send")])  # a server without get_*/list_*/debug_* tools
    for i, text in enumerate(samples):
        work = tmp_path / f"run{i}"
        work.mkdir()
        (work / ".schema-audit.toml").write_text(text, encoding="utf-8")
        runs = [
            ("diff", str(seed / "0.2.5.json"), str(seed / "0.2.6.json")),
            ("diff", other, other),
            ("lint", str(seed / "0.2.6.json")),
            ("lint", other),
        ]
        for args in runs:
            r = cli(*args, cwd=work)
            assert r.returncode in (0, 1), (args, r.stderr)
            assert "warning" not in r.stderr.lower(), (args, r.stderr)
            assert not any(line.startswith(("warning:", "note: ")) for line in r.stdout.splitlines()), (args, r.stdout)


def test_header_env_help_says_the_variable_holds_the_whole_value():
    import os

    for command in ("snapshot", "probe"):
        out = subprocess.run(
            [sys.executable, "-m", "mcp_schema_audit", command, "--help"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "COLUMNS": "200"},
        ).stdout
        block = " ".join(out.split("\n  --header-env", 1)[1].split("\n  -", 1)[0].split())
        assert "whole value" in block and "Authorization: Bearer" in block, block
