"""The fmsg-mcp seed story (``fixtures/seed/``): 0.2.4 = 0.2.5, 0.2.6 breaks cached hosts, 0.2.7 opens.

Fixture sanity (generator output = committed files, the change list as documented) runs without the
engine; the rest drives ``diff_snapshots`` and the real CLI.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from jsonschema.validators import Draft202012Validator, validator_for
from referencing import Registry

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "fixtures" / "seed"
VERSIONS = ("0.2.4", "0.2.5", "0.2.6", "0.2.7")

# The 0.2.5 -> 0.2.6 change list, written out independently of build_seed.py.
ADDED_FIELDS = {  # tool -> pointers of optional properties added to closed objects
    "list_messages": {
        "/properties/untrusted_content_notice",
        "/properties/messages/items/properties/reaction",
        "/properties/messages/items/properties/attachments/items/properties/type",
    },
    "list_sent": {
        "/properties/messages/items/properties/reaction",
        "/properties/messages/items/properties/attachments/items/properties/type",
    },
    "get_message": {"/properties/untrusted_content_notice"},
    "get_thread": {"/properties/thread_topic", "/properties/untrusted_content_notice"},
    "wait_for_message": {"/properties/untrusted_content_notice"},
    "add_recipients": {"/properties/recipients"},
}
CHANGED_TOOLS = set(ADDED_FIELDS) | {"whoami"}
UNCHANGED_TOOLS = {
    "resolve_address",
    "delivery_status",
    "mark_read",
    "download_attachment",
    "save_attachment",
    "send_message",
    "reply",
    "react",
    "get_attachment_download_url",
}


# ------------------------------------------------------------------------------------------------
# helpers
# ------------------------------------------------------------------------------------------------


def raw(version: str) -> dict[str, Any]:
    return json.loads((SEED / f"{version}.json").read_text(encoding="utf-8"))


def tools(version: str) -> dict[str, dict[str, Any]]:
    return {t["name"]: t for t in raw(version)["tools"]}


def snap(version: str) -> Any:
    from mcp_schema_audit.snapshot import load_snapshot

    return load_snapshot(str(SEED / f"{version}.json"))


def diff(a: str, b: str) -> list[Any]:
    from mcp_schema_audit.diff import diff_snapshots

    return diff_snapshots(snap(a), snap(b))


def is_valid(schema: Any, instance: Any) -> bool:
    cls = validator_for(schema, default=Draft202012Validator)
    return cls(schema, registry=Registry()).is_valid(instance)


def confirm_witnesses(findings: list[Any], old: str, new: str) -> None:
    """Every breaking schema finding's witness is accepted by one side's schema and rejected by the other."""
    told, tnew = tools(old), tools(new)
    for f in findings:
        if f.severity != "breaking" or f.direction not in ("input", "output"):
            continue
        key = "outputSchema" if f.direction == "output" else "inputSchema"
        o, n = told[f.tool][key], tnew[f.tool][key]
        w = f.witness
        assert w is not None, (f.tool, f.rule, f.pointer)
        acc, rej = (n, o) if f.direction == "output" else (o, n)
        assert w["accepted_by"] == ("new" if f.direction == "output" else "old")
        assert is_valid(acc, w["instance"]), (f.tool, f.rule, w)
        # isolated: the cached schema rejects the witness for this change only, with the quoted error
        errors = [e.message for e in validator_for(rej, default=Draft202012Validator)(rej).iter_errors(w["instance"])]
        assert len(errors) == 1 and w["error"].startswith(errors[0]), (
            f.tool,
            f.rule,
            f.pointer,
            w["instance"],
            errors,
            w["error"],
        )


def walk(schema: Any, pointer: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every subschema (dict) with its JSON Pointer."""
    if isinstance(schema, dict):
        yield pointer, schema
        for k, v in schema.items():
            if k in ("properties", "$defs", "definitions", "patternProperties"):
                for name, sub in v.items():
                    yield from walk(sub, f"{pointer}/{k}/{name.replace('~', '~0').replace('/', '~1')}")
            elif k in ("items", "additionalProperties", "not") and isinstance(v, dict):
                yield from walk(v, f"{pointer}/{k}")
            elif k in ("anyOf", "oneOf", "allOf", "prefixItems") and isinstance(v, list):
                for i, sub in enumerate(v):
                    yield from walk(sub, f"{pointer}/{k}/{i}")


def strip(pointer: str, *suffixes: str) -> str:
    """Normalize a finding pointer to the subschema it is about (drop a trailing keyword)."""
    for s in suffixes:
        if pointer.endswith(s):
            return pointer[: -len(s)]
    return pointer


def brief(findings: list[Any]) -> list[tuple[str, str, str, str]]:
    return sorted((f.tool, f.rule, f.severity, f.pointer) for f in findings)


# ------------------------------------------------------------------------------------------------
# fixture sanity (no engine)
# ------------------------------------------------------------------------------------------------


def test_generator_reproduces_committed_files() -> None:
    spec = importlib.util.spec_from_file_location("build_seed", SEED / "build_seed.py")
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    for name, text in mod.build_all().items():
        assert (SEED / name).read_text(encoding="utf-8") == text, f"{name} is stale: run fixtures/seed/build_seed.py"


def test_seed_files_shape() -> None:
    source = json.loads((SEED / "fmsg-output-schemas-0.2.5.json").read_text(encoding="utf-8"))
    assert len(source) == 16
    for v in VERSIONS:
        data = raw(v)
        assert data["serverInfo"] == {"name": "fmsg-mcp", "version": v}
        assert data["protocolVersion"] == "2025-11-25"
        assert [t["name"] for t in data["tools"]] == list(source)
        for t in data["tools"]:
            assert t["description"]
            ins = t["inputSchema"]
            assert ins["type"] == "object" and ins["additionalProperties"] is False and "properties" in ins
            assert "$schema" not in ins and "$schema" not in t["outputSchema"]
            assert set(ins.get("required", [])) <= set(ins["properties"])
    assert all(tools("0.2.5")[n]["outputSchema"] == s for n, s in source.items())
    assert raw("0.2.4")["tools"] == raw("0.2.5")["tools"]


def test_seed_0_2_6_changes_only_the_documented_tools() -> None:
    t5, t6 = tools("0.2.5"), tools("0.2.6")
    unchanged = {n for n in t5 if json.dumps(t5[n]) == json.dumps(t6[n])}
    assert unchanged == UNCHANGED_TOOLS
    for name in t5:
        assert t5[name]["inputSchema"] == t6[name]["inputSchema"]
        assert t5[name]["description"] == t6[name]["description"]
    w6 = t6["whoami"]["outputSchema"]
    assert w6["properties"]["transport"]["enum"] == ["stdio", "streamable-http"]
    assert "directory_names" not in w6["required"] and "directory_names" in w6["properties"]
    assert t6["wait_for_message"]["outputSchema"]["properties"]["status"]["enum"] == [
        "message",
        "timeout",
        "interrupted",
    ]
    for tool, pointers in ADDED_FIELDS.items():
        old_ptrs = {p for p, _ in walk(t5[tool]["outputSchema"])}
        new = dict(walk(t6[tool]["outputSchema"]))
        fresh = set(new) - old_ptrs
        assert {p for p in fresh if not any(p.startswith(q + "/") for q in fresh)} == pointers, tool
        for p in pointers:
            owner = new[p.rsplit("/", 2)[0]]
            assert owner["additionalProperties"] is False
            assert p.rsplit("/", 1)[1] not in owner.get("required", [])


def test_seed_0_2_7_is_open_and_frozen() -> None:
    t5, t6, t7 = tools("0.2.5"), tools("0.2.6"), tools("0.2.7")
    for name, tool in t7.items():
        assert tool["inputSchema"] == t5[name]["inputSchema"]
        sub7 = dict(walk(tool["outputSchema"]))
        assert set(sub7) == {p for p, _ in walk(t6[name]["outputSchema"])}, name
        sub5 = dict(walk(t5[name]["outputSchema"]))
        for p, s in sub7.items():
            assert "additionalProperties" not in s and "enum" not in s, (name, p)
            if p in sub5 and "required" in sub5[p]:
                assert s["required"] == sub5[p]["required"], (name, p)
    assert t7["whoami"]["outputSchema"]["properties"]["transport"] == {"type": "string"}
    assert t7["get_attachment_download_url"]["outputSchema"]["properties"]["authentication"]["const"] == "bearer"


# ------------------------------------------------------------------------------------------------
# engine
# ------------------------------------------------------------------------------------------------


def test_identical_versions_have_no_findings() -> None:
    assert diff("0.2.4", "0.2.5") == []


def test_0_2_6_breaks_hosts_that_cached_0_2_5() -> None:
    findings = diff("0.2.5", "0.2.6")
    got = brief(findings)
    confirm_witnesses(findings, "0.2.5", "0.2.6")
    assert {f.tool for f in findings} == CHANGED_TOOLS, got
    assert all(f.direction == "output" for f in findings), got
    assert not [f for f in findings if f.severity == "warning"], got
    assert {f.tool for f in findings if f.severity == "breaking"} == CHANGED_TOOLS, got

    added = {
        (f.tool, f.pointer)
        for f in findings
        if f.rule == "output-property-added-to-closed-object" and f.severity == "breaking"
    }
    assert added == {(t, p) for t, ps in ADDED_FIELDS.items() for p in ps}, got

    whoami = [f for f in findings if f.tool == "whoami"]
    req = [f for f in whoami if f.rule == "output-required-removed"]
    assert len(req) == 1 and req[0].severity == "breaking", got
    assert "directory_names" in req[0].pointer + req[0].message + json.dumps(req[0].old) + json.dumps(req[0].new)
    assert "directory_names" not in req[0].witness["instance"]

    transport = [f for f in whoami if f.rule == "output-enum-value-added"]
    assert len(transport) == 1 and transport[0].severity == "breaking", got
    assert transport[0].pointer.startswith("/properties/transport")
    assert transport[0].witness["instance"]["transport"] == "streamable-http"
    # http disappearing narrows the output: never more than info
    assert all(f.severity == "info" for f in whoami if f.rule == "output-enum-value-removed")

    status = [f for f in findings if f.tool == "wait_for_message" and f.rule == "output-enum-value-added"]
    assert len(status) == 1 and status[0].severity == "breaking", got
    assert status[0].pointer.startswith("/properties/status")
    assert status[0].witness["instance"]["status"] == "interrupted"


def test_0_2_7_opens_without_breaking_0_2_6_hosts() -> None:
    findings = diff("0.2.6", "0.2.7")
    got = brief(findings)
    assert all(f.severity != "breaking" for f in findings), got
    assert all(f.direction == "output" for f in findings), got
    t6 = tools("0.2.6")

    closed = {
        (name, p)
        for name, t in t6.items()
        for p, s in walk(t["outputSchema"])
        if s.get("additionalProperties") is False
    }
    opened = {
        (f.tool, strip(f.pointer, "/additionalProperties"))
        for f in findings
        if f.rule == "output-object-opened" and f.severity == "warning"
    }
    assert opened == closed, got

    enums = {(name, p) for name, t in t6.items() for p, s in walk(t["outputSchema"]) if "enum" in s}
    assert {("whoami", "/properties/transport"), ("wait_for_message", "/properties/status")} <= enums
    dropped = {
        (f.tool, strip(f.pointer, "/enum"))
        for f in findings
        if f.rule == "output-enum-removed" and f.severity == "warning"
    }
    assert dropped == enums, got

    # directory_names is required again (frozen at 0.2.5): a hazard, not a break
    req = [f for f in findings if f.rule == "output-required-added"]
    assert [(f.tool, f.severity) for f in req] == [("whoami", "warning")], got
    assert "directory_names" in req[0].pointer + req[0].message + json.dumps(req[0].old) + json.dumps(req[0].new)


def test_0_2_7_still_breaks_hosts_that_cached_0_2_5() -> None:
    """The fix opens objects, but a host holding 0.2.5's closed copy still rejects the added fields."""
    findings = diff("0.2.5", "0.2.7")
    got = brief(findings)
    confirm_witnesses(findings, "0.2.5", "0.2.7")
    added = {(f.tool, f.pointer) for f in findings if f.rule == "output-property-added-to-closed-object"}
    assert added == {(t, p) for t, ps in ADDED_FIELDS.items() for p in ps}, got
    assert {f.tool for f in findings if f.severity == "breaking"} == set(ADDED_FIELDS), got
    # enums became plain strings: the value set is open (warning), no declared new value (no break)
    assert not [f for f in findings if f.rule in ("output-enum-value-added", "output-required-removed")], got
    assert ("whoami", "output-enum-removed") in {(f.tool, f.rule) for f in findings}, got


# ------------------------------------------------------------------------------------------------
# CLI as a real subprocess
# ------------------------------------------------------------------------------------------------


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcp_schema_audit", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_cli_diff_json_fails_the_gate_on_0_2_6() -> None:
    proc = run_cli("diff", "fixtures/seed/0.2.5.json", "fixtures/seed/0.2.6.json", "--format", "json")
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    assert isinstance(doc["findings"], list) and doc["findings"]
    counts = Counter(f["severity"] for f in doc["findings"])
    assert {k: doc["summary"][k] for k in ("breaking", "warning", "info")} == {
        k: counts[k] for k in ("breaking", "warning", "info")
    }, doc["summary"]
    api = diff("0.2.5", "0.2.6")
    assert doc["summary"]["breaking"] == sum(f.severity == "breaking" for f in api)
    rules = {(f["tool"], f["rule"]) for f in doc["findings"]}
    assert ("whoami", "output-enum-value-added") in rules
    assert ("get_message", "output-property-added-to-closed-object") in rules


def test_cli_diff_identical_passes_the_gate() -> None:
    proc = run_cli("diff", "fixtures/seed/0.2.4.json", "fixtures/seed/0.2.5.json", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["findings"] == []
    assert {k: doc["summary"][k] for k in ("breaking", "warning", "info")} == {"breaking": 0, "warning": 0, "info": 0}


def test_cli_diff_warnings_only() -> None:
    """0.2.6 -> 0.2.7 has warnings but nothing breaking; the JSON still lists them."""
    proc = run_cli("diff", "fixtures/seed/0.2.6.json", "fixtures/seed/0.2.7.json", "--format", "json")
    doc = json.loads(proc.stdout)
    assert doc["summary"]["breaking"] == 0 and doc["summary"]["warning"] > 0, doc["summary"]
    assert proc.returncode == 0, proc.stderr  # the default gate (--fail-on breaking) passes on warnings
