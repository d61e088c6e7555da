"""Bad input found by the attack on the newest CLI features: each is a clean exit or a correct verdict."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

from mcp_schema_audit.diff import diff_snapshots
from mcp_schema_audit.history import version_key
from mcp_schema_audit.snapshot import snapshot_from_data

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "fixtures" / "seed"


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcp_schema_audit", *args], capture_output=True, text=True, cwd=cwd or ROOT, timeout=120
    )


def one_error_line(r: subprocess.CompletedProcess[str]) -> str:
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and lines[0].startswith("schema-audit: error: "), r.stderr
    return lines[0]


def test_history_refuses_two_versions_with_one_label(tmp_path: Path):
    """Two raw files both named tools.json carry the label "tools": one column would hide the other's breaks."""
    for name, enum in (("a", ["x"]), ("b", ["x", "y"]), ("c", ["x", "y", "z"])):
        (tmp_path / name).mkdir()
        (tmp_path / name / "tools.json").write_text(
            json.dumps(
                {
                    "tools": [
                        {
                            "name": "t",
                            "inputSchema": {"type": "object"},
                            "outputSchema": {"type": "object", "properties": {"e": {"enum": enum}}, "required": ["e"]},
                        }
                    ]
                }
            )
        )
    r = cli(
        "history",
        str(tmp_path / "c" / "tools.json"),
        "--against",
        str(tmp_path / "a" / "tools.json"),
        "--against",
        str(tmp_path / "b" / "tools.json"),
    )
    assert "same label ('tools')" in one_error_line(r)


def test_output_to_a_device_writes_through_it():
    """--output /dev/null runs only the gate; the device must stay a device (it was renamed over)."""
    r = cli("diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), "--output", "/dev/null")
    assert r.returncode == 1 and r.stdout == "", r.stderr
    assert stat.S_ISCHR(Path("/dev/null").stat().st_mode)


def test_labels_and_versions_from_strangers():
    assert version_key("v0.2.10") > version_key("v0.2.9")
    for label in ("v²", "1" * 5000, "v1.٣"):  # str.isdigit() digits int() refuses, or an int past the limit
        assert isinstance(version_key(label), tuple)


def test_trailing_newline_in_a_label_is_refused(tmp_path: Path):
    r = cli("snapshot", "--store", str(tmp_path), "--label", "v1\n", "--from-file", str(SEED / "0.2.5.json"))
    one_error_line(r)
    assert not (tmp_path / "snapshots").exists() or not list((tmp_path / "snapshots").iterdir())


def test_server_text_in_stderr_lines_cannot_start_a_new_line(tmp_path: Path):
    """A newline in a protocolVersion echoed on stderr would let a server write a GitHub workflow command."""
    src = tmp_path / "in.json"
    src.write_text(
        json.dumps(
            {
                "protocolVersion": "2025-06-18\n::error file=x,line=1::injected",
                "tools": [{"name": "t", "inputSchema": {"type": "object"}}],
            }
        )
    )
    r = cli("snapshot", "--from-file", str(src), "--out", str(tmp_path / "s.json"))
    assert r.returncode == 0, r.stderr
    assert not any(line.startswith("::") for line in r.stderr.splitlines()), r.stderr


def test_pyproject_tool_entry_that_is_not_a_table(tmp_path: Path):
    for text in ("tool = 5\n", 'tool = "x"\n', "[tool]\nschema-audit = 5\n", '[tool]\nschema-audit = "abc"\n'):
        (tmp_path / "pyproject.toml").write_text(text)
        r = cli("diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), cwd=tmp_path)
        assert "must be a table" in one_error_line(r), text


def test_spent_time_budget_stops_the_run_before_listing_time_checks_change_anything():
    """A spent guard never turns listing-time checks into warnings: the run stops (exit 4) instead."""
    import pytest

    from mcp_schema_audit.errors import RunTimeExceeded
    from mcp_schema_audit.settings import RunLimits

    def snap(kind: str, source: str):
        return snapshot_from_data(
            {"tools": [{"name": f"t{i}", "inputSchema": {"type": kind}} for i in range(5)]}, source=source
        )

    with pytest.raises(RunTimeExceeded):
        diff_snapshots(snap("object", "old"), snap("string", "new"), RunLimits(time_budget=1e-9))
    full = diff_snapshots(snap("object", "old"), snap("string", "new"), RunLimits(time_budget=0))
    assert any(f.severity == "breaking" for f in full)


def test_exclusive_write_never_replaces_a_file_that_appeared(tmp_path: Path):
    """Two captures of one label: the second to finish must not silently replace the first one's snapshot."""
    import pytest

    from mcp_schema_audit.errors import InputError
    from mcp_schema_audit.snapshot import atomic_write_text

    target = tmp_path / "snapshots" / "rel.json"
    atomic_write_text(target, "first\n", exclusive=True)
    with pytest.raises(InputError, match="appeared while this snapshot was being captured"):
        atomic_write_text(target, "second\n", exclusive=True)
    assert target.read_text() == "first\n" and sorted(p.name for p in target.parent.iterdir()) == ["rel.json"]
    atomic_write_text(target, "third\n")  # --force
    assert target.read_text() == "third\n"


def test_diff_malformed_required_entries_are_compared_not_crashed(tmp_path: Path):
    """``required`` holding an object or a list (unhashable) in inputSchema or outputSchema was an internal
    error (exit 4, ``unhashable type``) in the oracle: it is a schema invalid against its metaschema, reported
    as such when it appears, and compared like any other malformed keyword, in both directions."""
    for bad in ([{}], [[1]], ["a", {"x": 1}]):
        old, new = tmp_path / "old.json", tmp_path / "new.json"
        old.write_text(
            json.dumps(
                {"tools": [{"name": "a", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}}]}
            )
        )
        new.write_text(
            json.dumps(
                {
                    "tools": [
                        {
                            "name": "a",
                            "inputSchema": {"type": "object", "required": bad},
                            "outputSchema": {"type": "object", "required": bad},
                        }
                    ]
                }
            )
        )
        for a, b in ((old, new), (new, old)):
            for mode in ("backward", "full"):
                r = cli("diff", str(a), str(b), "--format", "json", "--mode", mode)
                assert r.returncode in (0, 1) and "internal error" not in r.stderr and "Traceback" not in r.stderr, (
                    bad,
                    a.name,
                    mode,
                    r.stderr,
                )
                rules = {(f["rule"], f["direction"], f["severity"]) for f in json.loads(r.stdout)["findings"]}
                if a is old and mode == "backward":
                    # no SDK client checks an inputSchema; python-sdk's runs check_schema on the outputSchema
                    assert ("schema-metaschema-invalid", "input", "warning") in rules, rules
                    assert ("schema-metaschema-invalid", "output", "breaking") in rules, rules
                    assert r.returncode == 1


def test_duplicate_json_keys_are_refused_in_every_json_input(tmp_path: Path):
    """A key twice in one object was read silently, the last one winning: ``"format_version": 2,
    "format_version": 1`` dropped prompts and resources from the comparison, ``{"name": "a", "name": "b"}``
    renamed a tool. Every JSON file read (snapshot, tools/list file, --from-file, --samples, --replay, a
    schema deep inside) is exit 2, ``duplicate key 'X' in FILE``, and nothing is written."""
    seed = (ROOT / "tests" / "data" / "surfaces" / "v1.json").read_text(encoding="utf-8")
    assert '"format_version": 2,' in seed
    snap = tmp_path / "snap.json"
    snap.write_text(seed.replace('"format_version": 2,', '"format_version": 2, "format_version": 1,', 1))
    raw = tmp_path / "raw.json"
    raw.write_text('{"tools": [{"name": "a", "name": "b", "inputSchema": {"type": "object"}}]}')
    deep = tmp_path / "deep.json"
    deep.write_text(
        '{"tools": [{"name": "a", "inputSchema": {"type": "object", "properties": '
        '{"x": {"type": "string"}, "x": {"type": "integer"}}}}]}'
    )
    recording = tmp_path / "rec.json"
    rec = (ROOT / "fixtures" / "probe" / "demo-v2.recording.json").read_text(encoding="utf-8")
    assert '"format_version": 1,' in rec
    recording.write_text(rec.replace('"format_version": 1,', '"format_version": 1, "format_version": 2,', 1))
    calls = tmp_path / "calls.json"
    calls.write_text('{"calls": [{"tool": "a", "tool": "b"}]}')
    cases = [
        (("diff", str(snap), str(SEED / "0.2.5.json")), snap, "format_version"),
        (("diff", str(SEED / "0.2.5.json"), str(raw)), raw, "name"),
        (("diff", str(deep), str(deep)), deep, "x"),
        (("lint", str(raw)), raw, "name"),
        (("history", str(raw), "--against", str(deep)), raw, "name"),
        (
            ("diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), "--samples", str(recording)),
            recording,
            "format_version",
        ),
        (("probe", "--replay", str(recording)), recording, "format_version"),
        (("probe", "--calls", str(calls), "--url", "http://127.0.0.1:9/mcp", "--timeout", "5"), calls, "tool"),
        (("snapshot", "--label", "x", "--store", str(tmp_path / "store"), "--from-file", str(raw)), raw, "name"),
    ]
    for args, path, key in cases:
        r = cli(*args)
        line = one_error_line(r)
        assert "duplicate key '" in line and line.endswith(f" in {path}"), (args, line)
        if key:
            assert f"duplicate key '{key}' in" in line, line
    assert not (tmp_path / "store").exists()


def test_a_pattern_re_warns_about_prints_nothing_on_stderr(tmp_path: Path):
    """``[[:alpha:]]`` and sets with ``--``, ``&&``, ``~~``, ``||`` made Python's ``re`` print a FutureWarning and
    the source line (two lines each, eight for one schema) on stderr, wherever the pattern was compiled; the Action
    echoes the CLI's stderr into the job log. Nothing but the report now, in diff and lint."""
    patterns = ["[[:alpha:]]+", "[a--b]", "[a&&b]", "[a~~b]", "[a||b]"]
    props = {f"p{i}": {"type": "string", "pattern": p, "format": "regex"} for i, p in enumerate(patterns)}
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    for path, extra in ((old, {}), (new, {"q": {"type": "string", "pattern": "[[:digit:]]"}})):
        schema = {"type": "object", "properties": {**props, **extra}, "additionalProperties": False}
        tool = {"name": "t", "inputSchema": schema, "outputSchema": schema}
        path.write_text(json.dumps({"tools": [tool]}), encoding="utf-8")
    for args in (("diff", str(old), str(new)), ("lint", str(new)), ("diff", str(old), str(new), "--format", "json")):
        r = cli(*args)
        assert r.returncode in (0, 1), r.stderr
        assert r.stderr == "", r.stderr


def test_a_snapshot_file_of_too_many_values_is_exit_2_before_parsing(tmp_path):
    """13 million ``{}`` in a 40 MB file (under the 64 MiB bound) took 1 GB and crashed the JSON writer with a
    segfault (exit 139) under a 4 GB address limit; 12.5 million ``"ab"`` in 60 MB, 2 GB and the same. Past
    ``MAX_JSON_VALUES`` values, counted on the bytes (marks inside strings not counted), a file is now one line,
    exit 2. A description of five million commas and braces is text: it passes."""
    from gate_helpers import cli

    small = tmp_path / "small.json"
    small.write_text('{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}')
    for item in ("{}", '"ab"', "1.5"):
        fat = tmp_path / "fat.json"
        body = ",".join([item] * 4_100_000)
        fat.write_text('{"tools":[{"name":"t","inputSchema":{"type":"object","x-a":[' + body + "]}}]}")
        r = cli("diff", str(fat), str(small))
        assert r.returncode == 2 and "holds more than 4,000,000 JSON values" in r.stderr, (item, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1
    text = tmp_path / "text.json"
    text.write_text('{"tools":[{"name":"t","description":"' + ",{" * 2_500_000 + '","inputSchema":{"type":"object"}}]}')
    assert cli("diff", str(text), str(small)).returncode == 0
