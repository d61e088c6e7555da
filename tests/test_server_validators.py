"""Server validator profiles checked against real servers built with the real frameworks.

Each server (``tests/servers``) has two releases, ``old`` and ``new``, with the same kinds of change (an optional
argument removed, an argument renamed, a required argument added, one added with a default, a type, an enum and
bounds narrowed, a nested object's key removed). For each framework the test snapshots both releases from the
running server, diffs them with ``schema-audit diff --format json`` (the server validator inferred, or named with
``--server-validator`` where the listing cannot tell), then calls the running ``new`` server with every input
finding's witness through the real Python SDK client and checks what the finding claims:

- ``rejected``: the call fails, and every line of ``server.error`` (the framework's own messages) is in the
  error the server sent, no more and no fewer of them (McpServer and MCPServer: inside the SDK's own framing);
- ``dropped``: the call succeeds and the tool did not receive the argument; ``kept``: it did;
- ``filled``: the call succeeds and the tool received the default;
- ``accepted``: the call succeeds.

Frameworks: the TypeScript SDK (``@modelcontextprotocol/sdk@1``) ``McpServer`` with zod 3 and with zod 4
(``z.object``, ``.strict()``, ``.passthrough()``), the low-level ``Server`` with zod's own converters (zod 4's
default output mode), Python ``MCPServer`` with pydantic (default and ``extra="forbid"`` models), and a
low-level Python server that validates with its listed schema (jsonschema). npm packages are installed into
temporary folders (``SCHEMA_AUDIT_ZOD3_PREFIX`` / ``SCHEMA_AUDIT_ZOD4_PREFIX`` name folders that already hold
``@modelcontextprotocol/sdk@1`` with zod 3 / zod 4). ``SCHEMA_AUDIT_SERVER_TABLE=FILE`` writes the claims
checked, per server and validator, with how many held.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import PYTHON, SERVERS
from gate_helpers import cli

NODE, NPM = shutil.which("node"), shutil.which("npm")


@dataclass(frozen=True)
class Server:
    """One framework's server: ``id``, how to start a release (``{release}`` in ``argv``), the npm prefix it
    needs (``zod3``/``zod4``, or ``""``), the validator ``auto`` must infer, the one the audit is run with, and
    how it frames a rejection (``_issue_lines``)."""

    id: str
    argv: tuple[str, ...]
    prefix: str
    inferred: str
    choice: str = "auto"
    wiring: str = "mcpserver"


ZOD = str(SERVERS / "zod_server.mjs")
SERVERS_UNDER_TEST = [
    Server("zod3-strip", ("node", ZOD, "{release}", "strip"), "zod3", "zod-strip"),
    # zod 3 writes .strict() like z.object (closed): the listing cannot tell, so the user names it
    Server("zod3-strict", ("node", ZOD, "{release}", "strict"), "zod3", "zod-strip", "zod-strict"),
    Server("zod3-passthrough", ("node", ZOD, "{release}", "passthrough"), "zod3", "zod-passthrough"),
    Server("zod3-lowlevel", ("node", ZOD, "{release}", "strip", "lowlevel"), "zod3", "zod-strip", wiring="lowlevel"),
    Server("zod4-strip", ("node", ZOD, "{release}", "strip"), "zod4", "zod-strip"),
    Server("zod4-strict", ("node", ZOD, "{release}", "strict"), "zod4", "zod-strip"),
    Server("zod4-passthrough", ("node", ZOD, "{release}", "passthrough"), "zod4", "zod-strip"),
    Server("zod4-lowlevel", ("node", ZOD, "{release}", "strip", "lowlevel"), "zod4", "zod-strip", wiring="lowlevel"),
    Server(
        "zod4-lowlevel-strict",
        ("node", ZOD, "{release}", "strict", "lowlevel"),
        "zod4",
        "zod-strip",
        "zod-strict",
        wiring="lowlevel",
    ),
    Server(
        "pydantic",
        (PYTHON, str(SERVERS / "pydantic_server.py"), "{release}"),
        "",
        "pydantic-ignore",
        wiring="mcpserver-python",
    ),
    Server(
        "jsonschema", (PYTHON, str(SERVERS / "jsonschema_server.py"), "{release}"), "", "published", wiring="jsonschema"
    ),
]
BY_ID = {s.id: s for s in SERVERS_UNDER_TEST}


# ---- the npm prefixes -----------------------------------------------------------------------------------


def _npm_prefix(tmp: Path, zod: str) -> Path:
    preset = os.environ.get(f"SCHEMA_AUDIT_{zod.upper()}_PREFIX")
    if preset and (Path(preset) / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        return Path(preset)
    if NODE is None or NPM is None:
        pytest.skip("node and npm are needed to run the TypeScript SDK servers")
    spec = ["@modelcontextprotocol/sdk@1", f"zod@{zod[-1]}"]
    cmd = [NPM, "install", "--no-audit", "--no-fund", "--prefix", str(tmp), *spec]
    try:
        proc = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"npm install {' '.join(spec)} failed (offline?): {exc}")
    if proc.returncode != 0:
        lines = [ln for ln in (proc.stderr or proc.stdout).splitlines() if ln.strip()]
        pytest.skip(f"npm install {' '.join(spec)} failed (offline?): {' | '.join(lines[:2])}")
    return tmp


@pytest.fixture(scope="module")
def prefixes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return {z: _npm_prefix(tmp_path_factory.mktemp(z), z) for z in ("zod3", "zod4")}


def _command(server: Server, release: str) -> list[str]:
    return [a.replace("{release}", release) for a in server.argv]


def _env(server: Server, prefixes: dict[str, Path]) -> dict[str, str]:
    return {"SDK_PREFIX": str(prefixes[server.prefix])} if server.prefix else {}


# ---- audit and call ---------------------------------------------------------------------------------------


@dataclass
class Audited:
    server: Server
    report: dict[str, Any]
    calls: dict[str, tuple[bool, str]]  # tool + json(arguments) → (failed, text the server sent)
    text: str  # the text report


def _snapshot(server: Server, release: str, prefixes: dict[str, Path], out: Path) -> None:
    env_args = [a for k, v in _env(server, prefixes).items() for a in ("-e", f"{k}={v}")]
    proc = cli("snapshot", "--label", release, "--out", str(out), *env_args, "--", *_command(server, release))
    assert proc.returncode == 0, proc.stderr


def _call_all(server: Server, prefixes: dict[str, Path], calls: list[tuple[str, Any]]) -> dict[str, tuple[bool, str]]:
    """Call the running ``new`` release once per (tool, arguments) with the real Python SDK client."""
    import anyio
    from mcp import Client, StdioServerParameters

    command = _command(server, "new")
    params = StdioServerParameters(command=command[0], args=command[1:], env={**os.environ, **_env(server, prefixes)})

    async def run() -> dict[str, tuple[bool, str]]:
        out: dict[str, tuple[bool, str]] = {}
        async with Client(params) as client:
            for tool, arguments in calls:
                try:
                    result = await client.call_tool(tool, arguments)
                except Exception as exc:  # noqa: BLE001 - a JSON-RPC error answer is the server's rejection
                    out[_key(tool, arguments)] = (True, str(exc))
                    continue
                text = "\n".join(getattr(c, "text", "") for c in result.content)
                out[_key(tool, arguments)] = (bool(result.is_error), text)
        return out

    return anyio.run(run)


def _key(tool: str, arguments: Any) -> str:
    return tool + " " + json.dumps(arguments, sort_keys=True)


def _judged(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for f in report["findings"] if f.get("server") and f.get("witness")]


def _audit(server: Server, prefixes: dict[str, Path], tmp: Path, choice: str) -> Audited:
    for release in ("old", "new"):
        if not (tmp / f"{release}.json").is_file():
            _snapshot(server, release, prefixes, tmp / f"{release}.json")
    args = ["diff", str(tmp / "old.json"), str(tmp / "new.json"), "--server-validator", choice]
    proc = cli(*args, "--format", "json")
    assert proc.returncode in (0, 1), proc.stderr
    report = json.loads(proc.stdout)
    text = cli(*args, "--format", "text").stdout
    calls = [(f["tool"], f["witness"]["instance"]) for f in _judged(report)]
    return Audited(server, report, _call_all(server, prefixes, calls) if calls else {}, text)


@pytest.fixture(scope="module")
def audited(prefixes: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Audited]:
    """(server id, validator choice) → the audit and the real server's answers to its witnesses."""
    out = {}
    for server in SERVERS_UNDER_TEST:
        tmp = tmp_path_factory.mktemp(server.id)
        for choice in dict.fromkeys((server.choice, "auto", "published")):
            out[(server.id, choice)] = _audit(server, prefixes, tmp, choice)
    table = os.environ.get("SCHEMA_AUDIT_SERVER_TABLE")
    if table:
        Path(table).write_text(_table(out), encoding="utf-8")
    return out


# ---- what a claim means -----------------------------------------------------------------------------------


def _at(value: Any, pointer: str) -> tuple[bool, Any]:
    for token in [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]:
        if not isinstance(value, dict) or token not in value:
            return False, None
        value = value[token]
    return True, value


def _issue_lines(wiring: str, text: str) -> list[str]:
    """The framework's own messages in the text a server sent, by how the server is wired: zod's lines after the
    TypeScript SDK's (or the hand-wired server's) framing, pydantic's ``loc\n  message`` blocks after Python
    MCPServer's, without ``[type=…]``; jsonschema's ``; ``-joined messages."""
    if wiring in ("mcpserver", "lowlevel"):
        framing = {
            "mcpserver": r"MCP error -32602: Input validation error: Invalid arguments for tool \w+: ",
            "lowlevel": r"Invalid arguments for \w+: ",
        }[wiring]
        head = re.match(framing, text)
        assert head, f"not the {wiring} framing: {text!r}"
        return text[head.end() :].split("\n")
    if wiring == "mcpserver-python":
        head = re.match(r"Error executing tool \w+: (\d+) validation errors? for \w+Arguments\n", text)
        assert head, f"not MCPServer's framing: {text!r}"
        blocks = re.findall(r"^(\S[^\n]*)\n  ([^\n]*?)(?: \[type=[^\n]*)?$", text[head.end() :], re.M)
        assert len(blocks) == int(head.group(1)), text
        return [f"{loc}\n  {msg}" for loc, msg in blocks]
    return text.split("; ")


def _claim_holds(audit: Audited, f: dict[str, Any]) -> str:
    """ "" when the finding's claim about the server is true of the real server, else why not: ``outcome: …``
    when the server did something else with the witness (rejected what is claimed accepted or the reverse,
    kept what is claimed dropped), ``words: …`` when it rejected it in other words."""
    server, witness = f["server"], f["witness"]
    failed, text = audit.calls[_key(f["tool"], witness["instance"])]
    outcome = server["outcome"]
    if outcome == "rejected":
        if not failed:
            return f"outcome: claimed rejected, the server accepted it: {text[:200]}"
        if server["error"].startswith("the inputSchema cannot be used: "):
            # the server's own validation raised (an endless schema: RecursionError): no validation words reach
            # the caller, only the framework's answer to a handler that raised (mcp's low-level Server)
            return "" if text == "Internal server error" else f"words: claimed a crashed validation, got {text!r}"
        real = sorted(_issue_lines(audit.server.wiring, text))
        claimed = sorted(_claimed_lines(server))
        return "" if real == claimed else f"words: claimed {claimed}, the server said {real}"
    if failed and outcome not in ("dropped", "kept"):
        return f"outcome: claimed {outcome}, the server rejected it: {text[:200]}"
    if failed:  # dropped or kept, and the call fails for another reason the finding names
        named = server["error"] and "fails for another reason" in f.get("reason", "")
        return "" if named else f"outcome: claimed {outcome}, the server rejected it: {text[:200]}"
    received = json.loads(text)
    present, value = _at(received, witness.get("instance_pointer") or "")
    if outcome == "dropped" and present:
        return f"outcome: claimed dropped, the tool received it: {text}"
    if outcome == "kept" and not present:
        return f"outcome: claimed kept, the tool did not receive it: {text}"
    if outcome == "filled" and (not present or value is None):
        return f"outcome: claimed filled, the tool received {text}"
    return ""


def _claimed_lines(server: dict[str, Any]) -> list[str]:
    if server["validator"].startswith("pydantic"):
        return re.findall(r"^\S[^\n]*\n  [^\n]*$", server["error"], re.M)
    return server["error"].split("\n")


def _table(audits: dict[tuple[str, str], Audited]) -> str:
    rows = [
        "| server | validator | claims about the server | outcome false | words false |",
        "| --- | --- | --- | --- | --- |",
    ]
    for (sid, choice), audit in audits.items():
        judged = _judged(audit.report)
        why = [_claim_holds(audit, f) for f in judged]
        outcome, words = (sum(w.startswith(k) for w in why) for k in ("outcome:", "words:"))
        rows.append(f"| {sid} | {choice} | {len(judged)} | {outcome} | {words} |")
    return "\n".join(rows) + "\n"


# ---- tests ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("sid", list(BY_ID))
def test_auto_infers_the_framework(sid: str, audited: dict[tuple[str, str], Audited]) -> None:
    report = audited[(sid, "auto")].report
    [validator] = report["server_validators"]
    assert validator["validator"] == BY_ID[sid].inferred
    assert validator["inferred"] is True and validator["inferred_from"]
    assert validator["version"] == "new"


@pytest.mark.parametrize("sid", list(BY_ID))
def test_every_claim_about_the_server_holds(sid: str, audited: dict[tuple[str, str], Audited]) -> None:
    server = BY_ID[sid]
    audit = audited[(sid, server.choice)]
    judged = _judged(audit.report)
    assert judged, "every server has input changes with witnesses"
    wrong = {f"{f['tool']} {f['rule']}": why for f in judged if (why := _claim_holds(audit, f))}
    assert not wrong, wrong
    # and the inputs are judged by the server alone: no host profile is named as the one that rejects
    assert all(f["hosts"] == [] for f in judged)


@pytest.mark.parametrize("sid", ["zod3-strip", "zod3-lowlevel", "zod4-lowlevel"])
def test_a_stripping_server_ignores_removed_arguments(sid: str, audited: dict[tuple[str, str], Audited]) -> None:
    """The argument removed from a closed object (zod 3 and zod 4's output mode list z.object closed) is
    dropped by the real server: a warning of its own, not a -32602."""
    findings = audited[(sid, "auto")].report["findings"]
    ignored = {f["tool"] for f in findings if f["rule"] == "input-argument-ignored"}
    assert {"drop_optional", "nested_drop"} <= ignored
    # query -> q, both required: one rename, breaking (the old call's query is dropped and q is missing)
    [renamed] = [f for f in findings if f["tool"] == "renamed" and f["direction"] == "input"]
    assert (renamed["rule"], renamed["severity"]) == ("input-argument-renamed", "breaking")
    assert all(f["severity"] == "warning" for f in findings if f["rule"] == "input-argument-ignored")
    assert not [f for f in findings if f["rule"] == "input-property-removed-from-closed-object"]


@pytest.mark.parametrize("sid", ["zod3-strict", "zod4-strict", "zod4-lowlevel-strict"])
def test_a_strict_server_rejects_removed_arguments(sid: str, audited: dict[tuple[str, str], Audited]) -> None:
    audit = audited[(sid, BY_ID[sid].choice)]
    removed = [f for f in audit.report["findings"] if f["rule"] == "input-property-removed-from-closed-object"]
    assert {f["tool"] for f in removed} >= {"drop_optional", "nested_drop"}
    assert all(f["severity"] == "breaking" and f["server"]["outcome"] == "rejected" for f in removed)


@pytest.mark.parametrize("sid", [s.id for s in SERVERS_UNDER_TEST if s.id.startswith("zod")])
def test_zods_float_multiple_of_takes_what_jsonschema_refuses(
    sid: str, audited: dict[tuple[str, str], Audited]
) -> None:
    """Attack round 7 (a false break, exit 1): ``0.3 / 0.1`` is ``2.9999999999999996`` for jsonschema, but zod 3's
    ``floatSafeRemainder`` (decimal places) and zod 4's (quotient within a few epsilons) take 0.3 and 0.7 as
    multiples of 0.1: the narrowing from ``0.3 | 0.7`` to ``.multipleOf(0.1)`` breaks no call."""
    audit = audited[(sid, BY_ID[sid].choice)]
    taken = [f for f in _judged(audit.report) if f["tool"] == "step_float"]
    assert taken and all((f["severity"], f["server"]["outcome"]) == ("warning", "accepted") for f in taken), taken
    assert all(_claim_holds(audit, f) == "" for f in taken)
    # and a step a release adds is rejected, in zod's words
    [added] = [f for f in _judged(audit.report) if f["tool"] == "step_added"]
    assert (added["severity"], added["server"]["outcome"]) == ("breaking", "rejected") and _claim_holds(
        audit, added
    ) == ""
    # [a-z\u0663] -> [a-z\d]: JavaScript's \d is ASCII, Python's is Unicode: zod refuses "\u0663" (attack round 7:
    # no string was built from the cached pattern's own characters, exit 0); rejected in zod's words
    [digit] = [f for f in _judged(audit.report) if f["tool"] == "pattern_digit"]
    assert (digit["severity"], digit["witness"]["instance"]) == ("breaking", {"x": "\u0663"}), digit
    assert digit["server"]["outcome"] == "rejected" and _claim_holds(audit, digit) == ""


@pytest.mark.parametrize("sid", [s.id for s in SERVERS_UNDER_TEST if s.id.startswith("zod")])
def test_zod_reads_strings_as_utf16_code_units(sid: str, audited: dict[tuple[str, str], Audited]) -> None:
    """Attack round 9: zod 3's ``.max(2)`` refuses "😀😀" (JavaScript's ``String.length`` is 4; was info, exit 0) and
    its ``.min(2)`` takes "😀" (was a false break); zod 4 counts code points, as jsonschema. Every claim is checked
    against the real server."""
    audit = audited[(sid, BY_ID[sid].choice)]
    found = {
        (f["tool"], f["severity"]): f
        for f in audit.report["findings"]
        if f["tool"].startswith(("length_", "pattern_units", "format_", "flags_", "added_", "step_small", "time_"))
    }
    judged = [
        f
        for f in _judged(audit.report)
        if f["tool"].startswith(("length_", "pattern_units", "format_", "flags_", "added_", "step_small", "time_"))
    ]
    assert judged and not (wrong := [(f["tool"], why) for f in judged if (why := _claim_holds(audit, f))]), wrong
    if sid.startswith("zod3"):
        emoji = found[("length_max", "breaking")]
        assert emoji["witness"]["instance"] == {"x": "\U0001f600\U0001f600"}
        assert emoji["server"]["outcome"] == "rejected"
        assert ("length_min", "breaking") not in found
        assert found[("length_min", "warning")]["server"]["outcome"] == "accepted"
    else:
        assert ("length_max", "breaking") not in found and ("length_max", "warning") not in found
        assert found[("length_min", "breaking")]["server"]["outcome"] == "rejected"
    # the listing keeps only a regex's source: ^.{1,2}$ refuses "😀😀" (four code units) as /^.{1,2}$/ but takes it
    # as /^.{1,2}$/u, so no rejection is claimed (attack round 11: every flag zod may have used is read)
    assert ("pattern_units", "breaking") not in found
    # zod 3 lists z.string().email() / .datetime() as a format and checks with its own code: "a@b.c" has no
    # two-letter TLD and "…t00:00:00z" no upper-case T (jsonschema's checkers take both: was info, exit 0)
    # attack round 10: what zod checks with its own code (z.ipv6(): new URL) or with flags its listing drops
    # (/^abc$/i, zod 3's .ulid() /…/i, .emoji()'s \p{…} with u) is never claimed rejected where the server takes it
    accepted = {"format_ipv6", "format_ulid", "flags_i", "flags_s", "step_small"}
    accepted |= {"format_emoji", "time_precision"} if sid.startswith("zod3") else set()
    assert not [key for key in found if key[0] in accepted and key[1] == "breaking"], sorted(found)
    # a format added where the cached schema had none: a warning for hosts, but the server refuses the call; zod 4
    # lists z.url() as a bare format too (no pattern) and checks it with new URL() (was a warning, exit 0)
    assert found[("added_email", "breaking")]["server"]["outcome"] == "rejected"
    url = found[("added_url", "breaking")]
    assert url["server"]["outcome"] == "rejected", url
    assert url["server"]["error"].endswith(("Invalid URL at x", "Invalid url at x")), url
    if sid.startswith("zod4"):  # z.iso.time({precision: 3}) refuses a repeated seconds group, in its own words
        time = found[("time_precision", "breaking")]
        assert time["witness"]["instance"] == {"x": "00:00:00.000:00.000"}, time
        assert time["server"]["error"].startswith("Invalid ISO time"), time
    if sid.startswith("zod3"):
        for tool, value in (("format_email", "a@b.c"), ("format_datetime", "2020-01-01t00:00:00z")):
            f = found[(tool, "breaking")]
            assert f["witness"]["instance"] == {"x": value} and f["server"]["outcome"] == "rejected", f


def test_a_default_the_server_fills_is_not_breaking(audited: dict[tuple[str, str], Audited]) -> None:
    """zod 4's output mode lists a .default() field as required; the server fills it."""
    findings = audited[("zod4-lowlevel", "auto")].report["findings"]
    [f] = [f for f in findings if f["tool"] == "default_added" and f["direction"] == "input"]
    assert (f["rule"], f["severity"], f["server"]["outcome"]) == ("input-required-added-with-default", "info", "filled")
    # a server that validates with its schema and fills nothing rejects the same change
    js = audited[("jsonschema", "auto")].report["findings"]
    [g] = [g for g in js if g["tool"] == "default_added" and g["direction"] == "input"]
    assert (g["rule"], g["severity"], g["server"]["outcome"]) == ("input-required-added", "breaking", "rejected")


def test_pydantic_forbid_rejects_and_default_ignores(audited: dict[tuple[str, str], Audited]) -> None:
    findings = audited[("pydantic", "auto")].report["findings"]
    by_tool = {f["tool"]: f for f in findings if f["direction"] == "input" and "/y" in f["pointer"]}
    assert by_tool["nested_forbid"]["severity"] == "breaking"
    assert by_tool["nested_forbid"]["server"]["error"] == "opts.y\n  Extra inputs are not permitted"
    # pydantic's default model lists itself open and drops the key: the argument is ignored (a warning whose
    # witness, the cached call carrying it, the real server takes without passing it on: _claim_holds)
    ignored = by_tool["nested_ignore"]
    assert (ignored["rule"], ignored["severity"]) == ("input-argument-ignored", "warning")
    assert ignored["server"]["outcome"] == "dropped" and ignored["witness"]["instance_pointer"] == "/opts/y"
    assert _claim_holds(audited[("pydantic", "auto")], ignored) == ""
    # x: int | bool -> x: int: lax mode takes true as 1, so the narrowed type breaks no call (was a false break)
    [lax] = [f for f in findings if f["tool"] == "bool_to_int" and f["direction"] == "input"]
    outcome = (lax["severity"], lax["server"]["outcome"], lax["witness"]["instance"])
    assert outcome == ("warning", "accepted", {"x": True})
    assert _claim_holds(audited[("pydantic", "auto")], lax) == ""
    # x: bool -> x: Literal[0, 1] (enum [0, 1]): pydantic compares literals with ==, so true and false still work
    literals = [f for f in findings if f["tool"] == "bool_to_literal" and f["severity"] != "info"]
    assert {json.dumps(f["witness"]["instance"]) for f in literals} == {'{"x": true}', '{"x": false}'}, literals
    for f in literals:
        assert (f["severity"], f["server"]["outcome"]) == ("warning", "accepted"), f
        assert _claim_holds(audited[("pydantic", "auto")], f) == ""
    # ^[a-z]+$ -> ^[a-z--c]+$: pydantic-core's Rust regex reads "--" as a set difference (a-z but c), Python's re
    # and ECMAScript as a range: no host's reading rejects a value, the real server does (attack round 6: exit 0)
    [narrowed] = [f for f in findings if f["tool"] == "pattern_set_operation" and f["direction"] == "input"]
    assert (narrowed["severity"], narrowed["server"]["outcome"]) == ("breaking", "rejected"), narrowed
    assert "c" in narrowed["witness"]["instance"]["s"]
    assert narrowed["server"]["error"] == "s\n  String should match pattern '^[a-z--c]+$'"
    assert _claim_holds(audited[("pydantic", "auto")], narrowed) == ""
    # ^a(?i)b$ -> ^ab$: Python's re refuses a global flag past the start, Rust's regex reads it to the end, so the
    # cached server took "aB" (attack round 7: the witness search built no string from the pattern, exit 0)
    [inline] = [f for f in findings if f["tool"] == "pattern_inline_flag" and f["direction"] == "input"]
    assert (inline["severity"], inline["server"]["outcome"]) == ("breaking", "rejected"), inline
    assert inline["witness"]["instance"]["s"].lower() == "ab" and inline["witness"]["instance"]["s"] != "ab"
    assert _claim_holds(audited[("pydantic", "auto")], inline) == ""
    # dict[str, int] -> dict[Annotated[str, StringConstraints(pattern="^a")], int]: listed as patternProperties,
    # which JSON Schema leaves open to other keys; pydantic rejects them (was info, exit 0)
    [keyed] = [f for f in findings if f["tool"] == "dict_keys_constrained" and f["severity"] == "breaking"]
    assert keyed["pointer"] == "/properties/d/patternProperties/^a" and keyed["server"]["outcome"] == "rejected"
    key = next(iter(keyed["witness"]["instance"]["d"]))
    assert keyed["server"]["error"] == f"d.{key}.[key]\n  String should match pattern '^a'"
    assert _claim_holds(audited[("pydantic", "auto")], keyed) == ""
    # float multipleOf and set[int]'s uniqueItems: pydantic takes 0.3 as a multiple of 0.1 and drops duplicates,
    # where jsonschema refuses both (attack round 7: two false breaks, exit 1)
    for name in ("step_float", "list_to_set"):
        taken = [f for f in findings if f["tool"] == name and f["direction"] == "input" and f.get("server")]
        assert taken and all(f["severity"] == "warning" for f in taken), (name, taken)
        assert all(f["server"]["outcome"] == "accepted" for f in taken), taken
        assert all(_claim_holds(audited[("pydantic", "auto")], f) == "" for f in taken)
    # x: int -> x: bool: the first witness, 0, is false in lax mode; another integer of the cached type breaks
    [to_bool] = [f for f in findings if f["tool"] == "int_to_bool" and f["direction"] == "input"]
    assert (to_bool["severity"], to_bool["server"]["outcome"]) == ("breaking", "rejected"), to_bool
    assert to_bool["witness"]["instance"]["x"] not in (0, 1)
    assert _claim_holds(audited[("pydantic", "auto")], to_bool) == ""
    [added] = [f for f in findings if f["tool"] == "step_added" and f["direction"] == "input"]
    assert (added["severity"], added["server"]["outcome"]) == ("breaking", "rejected"), added
    assert added["server"]["error"].endswith("Input should be a multiple of 0.5")
    assert _claim_holds(audited[("pydantic", "auto")], added) == ""
    # the same constrained keys on both sides: a narrowed value is broken with a key both servers take
    [values] = [f for f in findings if f["tool"] == "dict_values_narrowed" and f["severity"] == "breaking"]
    assert all(k.startswith("a") for k in values["witness"]["instance"]["d"]), values
    assert values["server"]["outcome"] == "rejected" and _claim_holds(audited[("pydantic", "auto")], values) == ""
    # the keys' pattern ^[a-z]+$ -> ^[a-z--c]+$: only pydantic-core's Rust regex reads a set difference, and only
    # pydantic holds every key to it (attack round 7: a key was tried by python-sdk's reading alone, exit 0)
    [setop] = [f for f in findings if f["tool"] == "dict_keys_set_operation" and f["severity"] == "breaking"]
    assert all("c" in k for k in setop["witness"]["instance"]["d"]) and setop["server"]["outcome"] == "rejected"
    assert setop["pointer"] == "/properties/d/patternProperties/^[a-z--c]+$", setop
    assert _claim_holds(audited[("pydantic", "auto")], setop) == ""


def test_the_old_assumption_made_false_claims(audited: dict[tuple[str, str], Audited]) -> None:
    """Judged as if every server validated with its listed schema (before server validators), stripping and
    default-filling servers get claims of rejection they do not make; judged by their own validator (inferred,
    or named where the listing cannot tell), no claim is false, in outcome or in words."""
    before = [
        (sid, f["tool"])
        for (sid, choice), a in audited.items()
        if choice == "published"
        for f in _judged(a.report)
        if _claim_holds(a, f).startswith("outcome:")
    ]
    after = [
        (sid, f["tool"])
        for (sid, choice), a in audited.items()
        if choice == BY_ID[sid].choice
        for f in _judged(a.report)
        if _claim_holds(a, f)
    ]
    assert len(before) >= 8 and after == []
    assert {sid for sid, _ in before} >= {"zod3-strip", "zod3-lowlevel", "zod4-lowlevel"}


def test_a_cycle_in_the_inputschema_is_decided_where_calls_reach_it(audited: dict[tuple[str, str], Audited]) -> None:
    """A cycle on an optional argument fails the calls carrying it (the real server answers each with an internal
    error), and the enum value removed beside it is breaking (the real server rejects it); a cycle every call
    reaches fails every call of a server validating with its listed inputSchema (the real one answers each with
    an internal error). Before, both were one schema-undecidable warning and the gate passed."""
    audit = audited[("jsonschema", "auto")]
    by = {(f["tool"], f["rule"]): f for f in audit.report["findings"] if f["tool"].startswith("cycle_")}
    beside = by[("cycle_beside", "input-enum-value-removed")]
    assert beside["severity"] == "breaking" and beside["server"]["outcome"] == "rejected"
    assert by[("cycle_beside", "schema-undecidable")]["severity"] == "warning"
    # and the call carrying the optional argument the cycle is on fails too (attack round 4: a warning only)
    carrying = by[("cycle_beside", "input-type-narrowed")]
    assert (carrying["pointer"], carrying["severity"], carrying["server"]["outcome"]) == (
        "/properties/x",
        "breaking",
        "rejected",
    )
    assert audit.calls[_key("cycle_beside", carrying["witness"]["instance"])] == (True, "Internal server error")
    assert _claim_holds(audit, carrying) == ""
    endless = by[("cycle_root", "input-schema-unvalidatable")]
    assert endless["severity"] == "breaking" and endless["server"]["outcome"] == "rejected"
    assert audit.calls[_key("cycle_root", endless["witness"]["instance"])] == (True, "Internal server error")
    assert _claim_holds(audit, endless) == "" and _claim_holds(audit, beside) == ""
    # a cycle in a later anyOf branch: the removed value reaches it (the server fails the call), and at the root
    # the first branch takes every object, so the server rejects the value in jsonschema's words
    for tool in ("cycle_branch", "cycle_root_branch"):
        f = by[(tool, "input-enum-value-removed")]
        assert f["severity"] == "breaking" and f["server"]["outcome"] == "rejected" and _claim_holds(audit, f) == ""
    assert (
        audit.calls[_key("cycle_branch", by[("cycle_branch", "input-enum-value-removed")]["witness"]["instance"])][1]
        == "Internal server error"
    )


def test_the_report_names_the_server_validator(audited: dict[tuple[str, str], Audited]) -> None:
    text = audited[("zod3-strip", "auto")].text
    assert "rejected by the server running new (zod-strip, inferred)" in text
    assert "inputs to new judged as a TypeScript McpServer with zod z.object" in text
    assert "set --server-validator zod-strict" in text


# ---- the probe --auto advice, on the real frameworks --------------------------------------------------------


@pytest.mark.live
@pytest.mark.parametrize("zod", ["zod3", "zod4"])
def test_the_auto_advice_for_examples_holds_on_each_zod(prefixes: dict[str, Path], zod: str, tmp_path: Path):
    """``probe --auto`` tells a tool left out for a required argument to give it examples: with zod 4's
    ``.meta({examples: […]})`` (the advice) the argument is filled and the tool called; zod 3's ``.describe()``
    gives only words, so the tool stays out, with the advice that names zod 3's ``.default()`` instead."""
    server = str(SERVERS / "zod_examples_server.mjs")
    out = tmp_path / "probe.json"
    proc = cli(
        "probe", "--auto", "--format", "json", "--output", str(out), "-e", f"SDK_PREFIX={prefixes[zod]}",
        "--", NODE or "node", server,
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    made = [c for c in report["calls"] if c["tool"] == "search" and c.get("outcome") == "result"]
    advice = " ".join(proc.stderr.split())
    if zod == "zod4":
        assert len(made) == 1 and "left out 0 tools" in advice, (report["calls"], advice)
    else:
        assert not made, report["calls"]
        assert "--auto left out search: required argument 'folder'" in advice, advice
        # the report says it too (JSON notes; Markdown and text show the notes), not only stderr
        assert any(n.startswith("--auto left out search: required argument 'folder'") for n in report["notes"])
        # in the words of the server's own framework (inferred: zod 3), not every framework's
        assert "zod 3: none, its .describe() gives no examples" in advice, advice
        assert "pydantic" not in advice and "zod 4:" not in advice, advice


@pytest.mark.live
def test_zod4_words_for_a_left_out_field_are_zods_own(prefixes: dict[str, Path]):
    """For each shape of field (enum, literal, integer, nullable, union, …): the rejection schema-audit predicts
    for a call that leaves it out, from the inputSchema zod 4's converter lists, is zod 4's own message."""
    from dataclasses import replace

    from mcp_schema_audit.engine.servers import PROFILES, judge

    proc = subprocess.run(
        [NODE or "node", str(SERVERS / "zod_missing_words.mjs")],
        env={**os.environ, "SDK_PREFIX": str(prefixes["zod4"])},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(rows) == 10
    for row in rows:
        outcome = judge(replace(PROFILES["zod-strip"], wording="zod4"), row["schema"], {})
        assert outcome.rejected, row
        assert outcome.rejected[0] == ("/" + row["field"], row["message"]), (row, outcome.rejected)


#: Values zod 4's ``z.url()`` and ``z.jwt()`` are asked about, each with what ``zod_formats.ZOD4_CHECKS`` must say:
#: it may answer "may take" for a value zod refuses (read in the server's favour), never the other way.
_ZOD4_FORMAT_VALUES = {
    "uri": [
        "abc",
        " http://x ",
        "\u00a0http://x",
        "\x01\u00a0http://x",
        "h\tttp://x",
        "mailto:a",
        "http:",
        "a:b",
        "1a:b",
        "\u3000http://x\u3000",
        "\ufeffhttp://x",
        "\x85http://x",
        "\u200bhttp://x",
        "",
        " ",
        "\ta:b\n",
        "-a:b",
    ],
    "jwt": ["a", "a.b.c", "..", "eyJhbGciOiJIUzI1NiJ9.e30.x", ".a.b", "a.b", "a.b.c.d", "eyJhbGciOiJIUzI1NiJ9.."],
}
_ZOD4_FORMAT_SCRIPT = """
const z = require(require.resolve("zod", {paths: [process.env.SDK_PREFIX]}));
const values = JSON.parse(require("fs").readFileSync(0, "utf8"));
const check = {uri: z.url(), jwt: z.jwt()};
const out = {};
for (const [format, list] of Object.entries(values)) out[format] = list.map((v) => check[format].safeParse(v).success);
process.stdout.write(JSON.stringify(out));
"""


def test_zod4_bare_formats_are_refused_only_where_zod_refuses(prefixes: dict[str, Path]) -> None:
    """zod 4 lists ``z.url()`` (``new URL(value.trim())``) and ``z.jwt()`` without a pattern: every value the
    reading calls refused is refused by the real zod 4, and the plain cases are decided (a reading that took
    everything would pass the first half)."""
    from mcp_schema_audit.engine.zod_formats import ZOD4_CHECKS

    assert NODE is not None
    proc = subprocess.run(
        [NODE, "-e", _ZOD4_FORMAT_SCRIPT],
        input=json.dumps(_ZOD4_FORMAT_VALUES),
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "SDK_PREFIX": str(prefixes["zod4"])},
        check=True,
    )
    real = json.loads(proc.stdout)
    for fmt, values in _ZOD4_FORMAT_VALUES.items():
        for value, zod_takes in zip(values, real[fmt], strict=True):
            assert zod_takes <= ZOD4_CHECKS[fmt](value), (fmt, value)  # never refused where zod takes it
    assert not ZOD4_CHECKS["uri"]("abc") and ZOD4_CHECKS["uri"](" http://x ") and not ZOD4_CHECKS["jwt"]("a.b")
