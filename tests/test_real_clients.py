"""Ground truth: the host profiles checked against the real SDK clients they stand for.

One server (``tests/servers/scenario_server.py``, exact bytes) lists one tool per case, each advertising a
chosen ``outputSchema`` and returning a chosen result. Then:

- ``schema-audit``'s probe (``capture.calls.probe_server`` + ``probe.check_records``) predicts, per case and
  host profile, whether that host's client rejects the call;
- the real clients call every tool after listing them once (they cache the listing and validate each
  result against it): the Python SDK client (``mcp`` 2.x ``Client``, in this process), the TypeScript SDK
  client (npm ``@modelcontextprotocol/sdk``, latest 1.x) and, when it installs, the TS SDK v2 client
  (``@modelcontextprotocol/client`` 2.x), both run by ``tests/real_clients/ts_client.mjs`` with node.

Cases: the probe's own (each finding kind, each profile difference: formats, ``isError``, ``null``,
non-object ``structuredContent``, 2020-12 keywords draft-07 ignores, ``$ref`` siblings, ``nullable``, big
integers, ECMAScript regexes), and the shared real-world cases (``tests/cases``, output direction): the
cached (old) schema with the case's example and with each breaking finding's witness, and the new schema
with the example. The probe must predict a rejection for a profile exactly when the real client rejects;
for the witnesses, the engine's ``Finding.hosts`` must also be exactly the rejecting clients.

npm packages are installed into a temporary folder once (``SCHEMA_AUDIT_SDK_PREFIX`` names a folder that
already has them); skipped with the reason where node/npm are missing or the install fails.
``SCHEMA_AUDIT_AGREEMENT_TABLE=FILE`` writes the agreement table (case × client × predicted × real) as Markdown.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import PYTHON, SERVERS

HERE = Path(__file__).resolve().parent
TS_CLIENT = HERE / "real_clients" / "ts_client.mjs"
SCENARIO_SERVER = SERVERS / "scenario_server.py"
NODE, NPM = shutil.which("node"), shutil.which("npm")
#: one worker runs this module under pytest-xdist: the npm install, the server and the clients run once
pytestmark = pytest.mark.xdist_group("real-clients")
PROFILES = ("python-sdk", "ts-sdk-v1", "ts-sdk-v2")
D7 = "http://json-schema.org/draft-07/schema#"
D2020 = "https://json-schema.org/draft/2020-12/schema"
NO_SC = object()


def _obj(props: dict[str, Any], required: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": props}
    if required is not None:
        out["required"] = required
    out.update(extra)
    return out


A = _obj({"a": {"type": "string"}}, ["a"])
#: id → (outputSchema, structuredContent or NO_SC, isError)
PROBE_CASES: dict[str, tuple[Any, Any, bool]] = {
    "closed-extra-field": ({**A, "additionalProperties": False}, {"a": "x", "b": 1}, False),
    "open-extra-field": (A, {"a": "x", "b": 1}, False),
    "valid": (A, {"a": "x"}, False),
    "missing-structured-content": (A, NO_SC, False),
    "missing-structured-content-iserror": (A, NO_SC, True),
    "invalid-structured-content-iserror": (A, {"a": 5}, True),
    "null-structured-content": (A, None, False),
    "array-structured-content": (A, [1, 2], False),
    "empty-object-missing-required": (A, {}, False),
    "format-date-time-without-offset": (
        _obj({"at": {"type": "string", "format": "date-time"}}, ["at"]),
        {"at": "2026-01-01T10:00:00"},
        False,
    ),
    "format-email": (_obj({"e": {"type": "string", "format": "email"}}, ["e"]), {"e": "not an email"}, False),
    "enum-value-outside": (_obj({"s": {"enum": ["a", "b"]}}, ["s"]), {"s": "c"}, False),
    # a $ref under a nested $id resolves inside that resource (its own E), not the root's
    "nested-id-ref-enum-outside": (
        _obj(
            {"s": {"$id": "https://e.x/s", **_obj({"a": {"$ref": "#/$defs/E"}}), "$defs": {"E": {"enum": ["x"]}}}},
            ["s"],
            **{"$defs": {"E": {"enum": ["x", "y"]}}},
        ),
        {"s": {"a": "y"}},
        False,
    ),
    # a value outside the enum a $dynamicRef reaches (TS SDK v1's draft-07 Ajv reads $dynamicRef as unknown)
    "dynamic-ref-enum-outside": (
        _obj({"a": {"$dynamicRef": "#val"}}, ["a"], **{"$defs": {"v": {"$dynamicAnchor": "val", "enum": ["x"]}}}),
        {"a": "y"},
        False,
    ),
    "const-differs": (_obj({"v": {"const": "1"}}, ["v"]), {"v": "2"}, False),
    "required-missing": (_obj({"a": {"type": "string"}, "b": {"type": "string"}}, ["a", "b"]), {"a": "x"}, False),
    "unevaluated-properties-2020": ({**A, "$schema": D2020, "unevaluatedProperties": False}, {"a": "x", "b": 1}, False),
    "prefix-items-items-false": (
        _obj({"p": {"type": "array", "prefixItems": [{"type": "integer"}], "items": False}}, ["p"]),
        {"p": [1]},
        False,
    ),
    "draft07-ref-sibling-maxlength": (
        _obj(
            {"s": {"$ref": "#/definitions/S", "maxLength": 2}},
            ["s"],
            **{"$schema": D7, "definitions": {"S": {"type": "string"}}},
        ),
        {"s": "abc"},
        False,
    ),
    "openapi-nullable": (_obj({"x": {"type": "string", "nullable": True}}, ["x"]), {"x": None}, False),
    "anyof-ref-closed-extra": (
        _obj(
            {"result": {"anyOf": [{"$ref": "#/$defs/M"}, {"type": "null"}]}},
            ["result"],
            **{"$defs": {"M": {**_obj({"id": {"type": "string"}}, ["id"]), "additionalProperties": False}}},
        ),
        {"result": {"id": "x", "t": 1}},
        False,
    ),
    "integer-beyond-2-53": (
        _obj({"n": {"type": "integer", "maximum": 9007199254740992}}, ["n"]),
        {"n": 9007199254740993},
        False,
    ),
    "pattern-unicode-digit": (_obj({"n": {"type": "string", "pattern": "^\\d+$"}}, ["n"]), {"n": "\u0663"}, False),
    "pattern-dollar-before-newline": (
        _obj({"s": {"type": "string", "pattern": "^[a-z]+$"}}, ["s"]),
        {"s": "abc\n"},
        False,
    ),
    "float-one-as-integer": (_obj({"n": {"type": "integer"}}, ["n"]), {"n": 1.0}, False),
    "format-uri-relative": (_obj({"u": {"type": "string", "format": "uri"}}, ["u"]), {"u": "/relative/path"}, False),
    "dependent-required-2020": (_obj({"a": {}, "b": {}}, [], dependentRequired={"a": ["b"]}), {"a": 1}, False),
    "min-contains-zero": (
        _obj({"l": {"type": "array", "contains": {"type": "string"}, "minContains": 0}}, ["l"]),
        {"l": [1]},
        False,
    ),
    "unique-items-int-and-float": (_obj({"l": {"type": "array", "uniqueItems": True}}, ["l"]), {"l": [1, 1.0]}, False),
    "allof-closed-branch": (
        {
            "type": "object",
            "allOf": [
                _obj({"a": {"type": "string"}}, ["a"]),
                {"type": "object", "properties": {"b": {}}, "additionalProperties": False},
            ],
        },
        {"a": "x", "b": 1},
        False,
    ),
    "draft04-dialect": ({**A, "$schema": "http://json-schema.org/draft-04/schema#"}, {"a": "x"}, False),
}


def _shared_cases() -> dict[str, tuple[Any, Any, bool, list[str] | None]]:
    """Output cases of ``tests/cases``: (schema, structuredContent, isError, engine hosts or None)."""
    from mcp_schema_audit.engine import compare_schemas

    out: dict[str, tuple[Any, Any, bool, list[str] | None]] = {}
    for path in sorted((HERE / "cases").glob("*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        if case["direction"] != "output":
            continue  # arguments are validated by the server, not by the client: no client verdict to check
        cid = "case-" + path.stem.split("-")[0]
        if case.get("example") is not None:
            out[f"{cid}-old-example"] = (case["old"], case["example"], False, None)
            out[f"{cid}-new-example"] = (case["new"], case["example"], False, None)
        findings = compare_schemas(case["old"], case["new"], "output", tool="t")
        for i, f in enumerate(x for x in findings if x.severity == "breaking" and x.witness):
            out[f"{cid}-witness-{i}"] = (case["old"], f.witness["instance"], False, list(f.hosts))
    return out


SHARED = _shared_cases()


def _scenario() -> dict[str, Any]:
    tools, results = [], {}
    cases = {**{k: (*v, None) for k, v in PROBE_CASES.items()}, **SHARED}
    for name, (schema, structured, is_error, _hosts) in cases.items():
        tools.append({"name": name, "inputSchema": {"type": "object"}, "outputSchema": schema})
        result: dict[str, Any] = {"content": [{"type": "text", "text": "see structuredContent"}]}
        if structured is not NO_SC:
            result["structuredContent"] = structured
        if is_error:
            result["isError"] = True
        results[name] = result
    return {"name": "real-clients", "version": "1.0.0", "tools": tools, "results": results}


# ---- fixtures --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server_command(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    path = tmp_path_factory.mktemp("real-clients") / "scenario.json"
    path.write_text(json.dumps(_scenario()), encoding="utf-8")
    return [PYTHON, str(SCENARIO_SERVER), "--scenario", str(path)]


@pytest.fixture(scope="module")
def probed(server_command: list[str]) -> dict[str, dict[str, str]]:
    """The probe's verdicts: case → {host profile it predicts rejects the call: the message it predicts}."""
    from mcp_schema_audit.capture import CaptureTarget
    from mcp_schema_audit.capture.calls import PlannedCall, probe_server
    from mcp_schema_audit.probe import check_records

    def plan(listing: Any) -> list[PlannedCall]:
        return [PlannedCall(t["name"], t["name"]) for t in listing.tools]

    listing, _planned, records = probe_server(
        CaptureTarget("stdio", command=server_command), plan, label="cases", timeout_s=120, call_timeout_s=20
    )
    out: dict[str, dict[str, str]] = {t["name"]: {} for t in listing.tools}
    for f in check_records(listing, records, []):
        if f.rule in ("result-violates-own-schema", "result-missing-structured-content", "result-malformed"):
            assert f.witness is not None
            for host in f.hosts:
                out[f.tool].setdefault(host, f.witness["errors"][host])
    return out


@pytest.fixture(scope="module")
def predicted(probed: dict[str, dict[str, str]]) -> dict[str, set[str]]:
    """case → host profiles the probe predicts reject the call."""
    return {case: set(hosts) for case, hosts in probed.items()}


def _python_client(command: list[str]) -> dict[str, str | None]:
    """The real Python SDK client: list once, call every tool; tool → None (accepted) or the error it raised."""
    import anyio
    from mcp import Client, StdioServerParameters

    async def run() -> dict[str, str | None]:
        out: dict[str, str | None] = {}
        async with Client(StdioServerParameters(command=command[0], args=command[1:])) as client:
            for tool in (await client.list_tools()).tools:
                try:
                    await client.call_tool(tool.name, {})
                    out[tool.name] = None
                except Exception as exc:  # noqa: BLE001 - the client's own failure is the verdict
                    out[tool.name] = f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
        return out

    return anyio.run(run)


@pytest.fixture(scope="module")
def sdk_prefix(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Folders with the TS SDK clients installed: {"ts-sdk-v1": prefix, "ts-sdk-v2": prefix} (v2 optional)."""
    if NODE is None or NPM is None:
        pytest.skip("node and npm are needed to run the real TypeScript SDK clients")
    preset = os.environ.get("SCHEMA_AUDIT_SDK_PREFIX")
    packages = {
        "ts-sdk-v1": ("@modelcontextprotocol/sdk", "@modelcontextprotocol/sdk@1"),
        "ts-sdk-v2": ("@modelcontextprotocol/client", "@modelcontextprotocol/client@2"),
    }

    def installed(prefix: Path) -> dict[str, Path]:
        return {
            p: prefix
            for p, (name, _) in packages.items()
            if (prefix / "node_modules" / name / "package.json").is_file()
        }

    if preset and "ts-sdk-v1" in installed(Path(preset)):
        return installed(Path(preset))
    prefix = tmp_path_factory.mktemp("ts-sdk")
    for wanted in ([spec for _, spec in packages.values()], [packages["ts-sdk-v1"][1]]):
        cmd = [NPM, "install", "--no-audit", "--no-fund", "--prefix", str(prefix), *wanted]
        try:
            proc = subprocess.run(cmd, cwd=prefix, capture_output=True, text=True, timeout=300)
        except (OSError, subprocess.TimeoutExpired) as exc:
            pytest.skip(f"npm install {' '.join(wanted)} failed (offline?): {exc}")
        if proc.returncode == 0 and "ts-sdk-v1" in installed(prefix):
            return installed(prefix)
    lines = [ln for ln in (proc.stderr or proc.stdout).splitlines() if ln.strip() and "complete log" not in ln]
    pytest.skip(f"npm install @modelcontextprotocol/sdk@1 failed (offline?): {' | '.join(lines[:2])}")


def _ts_client(profile: str, prefix: Path, command: list[str], line: str = "") -> tuple[str, dict[str, str | None]]:
    line = line or ("v1" if profile == "ts-sdk-v1" else "v2")
    proc = subprocess.run(
        [NODE or "node", str(TS_CLIENT), line, *command],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "SDK_PREFIX": str(prefix)},
    )
    assert proc.returncode == 0, f"{profile} client failed: {proc.stderr[-2000:]}"
    rows = [json.loads(ln) for ln in proc.stdout.splitlines() if ln.strip()]
    head, calls = rows[0], rows[1:]
    return head["package"], {r["tool"]: (None if r["ok"] else r["error"]) for r in calls}


@pytest.fixture(scope="module")
def real(server_command: list[str], sdk_prefix: dict[str, Path]) -> dict[str, tuple[str, dict[str, str | None]]]:
    """profile → (client package, tool → None or the error the real client raised)."""
    import importlib.metadata

    out = {"python-sdk": (f"mcp@{importlib.metadata.version('mcp')}", _python_client(server_command))}
    for profile, prefix in sdk_prefix.items():
        out[profile] = _ts_client(profile, prefix, server_command)
    return out


# ---- tests -----------------------------------------------------------------------------------------------


CASE_IDS = [*PROBE_CASES, *SHARED]


def _table(predicted: dict[str, set[str]], real: dict[str, tuple[str, dict[str, str | None]]]) -> list[str]:
    rows = ["| case | client | predicted | real | agree |", "| --- | --- | --- | --- | --- |"]
    for case in CASE_IDS:
        for profile, (package, verdicts) in real.items():
            want = "rejects" if profile in predicted[case] else "accepts"
            got = "rejects" if verdicts.get(case) is not None else "accepts"
            rows.append(f"| {case} | {profile} ({package}) | {want} | {got} | {'yes' if want == got else 'NO'} |")
    return rows


def test_every_case_reaches_every_client(
    predicted: dict[str, set[str]], real: dict[str, tuple[str, dict[str, str | None]]]
) -> None:
    table = os.environ.get("SCHEMA_AUDIT_AGREEMENT_TABLE")
    if table:
        Path(table).write_text("\n".join(_table(predicted, real)) + "\n", encoding="utf-8")
    assert set(predicted) == set(CASE_IDS)
    for profile, (_package, verdicts) in real.items():
        assert set(verdicts) == set(CASE_IDS), f"{profile} did not call every tool"
    assert len(PROBE_CASES) >= 29 and len(SHARED) >= 30


@pytest.mark.parametrize("case", CASE_IDS)
def test_probe_predicts_exactly_the_real_rejections(
    case: str, predicted: dict[str, set[str]], real: dict[str, tuple[str, dict[str, str | None]]]
) -> None:
    wrong = []
    for profile, (package, verdicts) in real.items():
        rejects = verdicts[case] is not None
        if rejects != (profile in predicted[case]):
            wrong.append(
                f"{profile} ({package}) {'rejects' if rejects else 'accepts'} "
                f"({verdicts[case]}); the probe predicted {'rejects' if not rejects else 'accepts'}"
            )
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("case", [c for c, v in SHARED.items() if v[3] is not None])
def test_engine_witness_hosts_are_the_real_rejecting_clients(
    case: str, real: dict[str, tuple[str, dict[str, str | None]]]
) -> None:
    hosts = set(SHARED[case][3] or [])
    rejecting = {p for p, (_pkg, verdicts) in real.items() if verdicts[case] is not None}
    # a profile whose client was not run (ts-sdk-v2 when its package did not install) is not judged
    assert hosts & set(real) == rejecting, f"engine hosts {sorted(hosts)}, real clients rejecting {sorted(rejecting)}"


@pytest.mark.parametrize(
    "case",
    [
        "closed-extra-field",
        "missing-structured-content",
        "enum-value-outside",
        "required-missing",
        "format-email",
        "anyof-ref-closed-extra",
    ],
)
def test_real_messages_are_the_predicted_wording(
    case: str, probed: dict[str, dict[str, str]], real: dict[str, tuple[str, dict[str, str | None]]]
) -> None:
    """The hosts' own words, as the probe's witnesses quote them: each real client's error starts with the
    predicted message (python-sdk appends jsonschema's 'Failed validating …' detail)."""
    for profile, (package, verdicts) in real.items():
        if profile not in probed[case]:
            continue
        message = verdicts[case]
        assert message is not None, f"{profile} ({package}) accepted {case}"
        assert message.startswith(probed[case][profile]), (profile, message, probed[case][profile])


def test_results_of_the_2026_era_agree_with_the_real_clients(sdk_prefix: dict[str, Path]) -> None:
    """On a 2026-07-28 connection structuredContent may be any JSON value. The low-level server of
    ``tests/servers/era_server.py`` sends null under ``type: ["object", "null"]``, an array under an array root and
    null under an object schema: the Python client (mode auto) and the TS v2 client (versionNegotiation auto), both
    negotiating 2026-07-28, reject exactly what the probe predicts for python-sdk and ts-sdk-v2 in that era (the
    TS v1 client cannot negotiate it; the probe does not judge it on such values)."""
    from mcp_schema_audit.capture import CaptureTarget
    from mcp_schema_audit.capture.calls import PlannedCall, probe_server
    from mcp_schema_audit.probe import check_records

    command = [PYTHON, str(SERVERS / "era_server.py"), "--server", "lowlevel"]
    listing, _planned, records = probe_server(
        CaptureTarget("stdio", command=command),
        lambda snap: [PlannedCall(t["name"], t["name"]) for t in snap.tools],
        label="era",
        protocol="2026-07-28",
        timeout_s=120,
        call_timeout_s=20,
    )
    assert listing.protocol_version == "2026-07-28"
    predicted: dict[str, set[str]] = {t["name"]: set() for t in listing.tools}
    for f in check_records(listing, records, []):
        predicted[f.tool] |= set(f.hosts)
    assert predicted == {"maybe_null": set(), "numbers": set(), "strict_null": {"python-sdk", "ts-sdk-v2"}}
    real = {"python-sdk": _python_client(command)}
    if "ts-sdk-v2" in sdk_prefix:
        real["ts-sdk-v2"] = _ts_client("ts-sdk-v2", sdk_prefix["ts-sdk-v2"], command, "v2-auto")[1]
    for profile, verdicts in real.items():
        assert {tool for tool, error in verdicts.items() if error} == {
            tool for tool, hosts in predicted.items() if profile in hosts
        }, (profile, verdicts)


# ---- listing-time claims ---------------------------------------------------------------------------------


#: case → the tool a release lists (its old version: ``{"type": "object"}`` schemas), for the listing-time rules
#: (``input-schema-not-object``, ``output-schema-not-object``, ``schema-boolean-property``,
#: ``output-schema-uncompilable``, ``schema-metaschema-invalid``): each is served alone (a client that refuses
#: the listing loses every tool), listed once and called once by each real client.
def _out(output_schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": output_schema}


LISTING_CASES: dict[str, dict[str, Any]] = {
    "input-type-string": {"name": "t", "inputSchema": {"type": "string"}},
    "input-missing": {"name": "t"},
    "input-no-type": {"name": "t", "inputSchema": {"properties": {}}},
    "output-array": {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}},
    "input-boolean-property": {"name": "t", "inputSchema": {"type": "object", "properties": {"a": True}}},
    "output-boolean-property": {
        "name": "t",
        "inputSchema": {"type": "object"},
        "outputSchema": {"type": "object", "properties": {"a": True}},
    },
    "output-bad-regex": {
        "name": "t",
        "inputSchema": {"type": "object"},
        "outputSchema": {"type": "object", "properties": {"a": {"type": "string", "pattern": "^(a$"}}},
    },
    "input-metaschema-invalid": {"name": "t", "inputSchema": {"type": "object", "properties": {"a": {"type": "text"}}}},
    "output-metaschema-invalid": {
        "name": "t",
        "inputSchema": {"type": "object"},
        "outputSchema": {"type": "object", "properties": {"a": {"type": "text"}}},
    },
    # refusals every result reaches (validation never ends) and $ref chains Ajv resolves without end as it compiles
    "output-root-cycle": _out({"type": "object", "allOf": [{"$ref": "#"}]}),
    "output-root-double-not": _out({"type": "object", "not": {"not": {"$ref": "#"}}}),
    "output-dynamic-ref-unresolved": _out({"$schema": D2020, "type": "object", "$dynamicRef": "#nope"}),
    "output-dynamic-ref-pointer-missing": _out({"$schema": D2020, "type": "object", "$dynamicRef": "#/$defs/gone"}),
    "output-dynamic-ref-resolved": _out(
        {"$schema": D2020, "$dynamicAnchor": "node", "type": "object", "properties": {"c": {"$dynamicRef": "#node"}}}
    ),
    "output-property-ref-chain": _out({"type": "object", "properties": {"q": {"$ref": "#/properties/q"}}}),
    "output-defs-ref-chain": _out(
        {
            "type": "object",
            "properties": {"x": {"$ref": "#/$defs/A"}},
            "$defs": {"A": {"$ref": "#/$defs/B", "description": "alias"}, "B": {"$ref": "#/$defs/A"}},
        }
    ),
    "output-draft07-cycle-beside-ref": _out(
        {
            "$schema": D7,
            "type": "object",
            "$ref": "#/definitions/A",
            "allOf": [{"$ref": "#"}],
            "definitions": {"A": {"type": "object"}},
        }
    ),
    "output-root-cycle-in-anyof": _out({"type": "object", "anyOf": [{"type": "object"}, {"$ref": "#"}]}),
    "output-draft07-root-cycle-in-anyof": _out(
        {"$schema": D7, "type": "object", "anyOf": [{"type": "object"}, {"$ref": "#"}]}
    ),
    "output-root-cycle-in-oneof": _out({"type": "object", "oneOf": [{"type": "object"}, {"$ref": "#"}]}),
    "output-root-cycle-in-if": _out({"type": "object", "if": {"$ref": "#"}, "then": {"type": "object"}}),
    "output-root-cycle-in-lone-if": _out({"type": "object", "if": {"$ref": "#"}}),
    # a required property's cycle: every result that passes ``required`` reaches it (the listed result has ``a``)
    "output-required-property-cycle": _out(
        {
            "type": "object",
            "properties": {"a": {"type": "string", "allOf": [{"$ref": "#/properties/a"}]}},
            "required": ["a"],
        }
    ),
    "output-required-property-if-cycle": _out(
        {"type": "object", "properties": {"a": {"type": "string", "if": {"$ref": "#/properties/a"}}}, "required": ["a"]}
    ),
    "output-required-dependent-schemas-cycle": _out(
        {
            "$schema": D2020,
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "dependentSchemas": {"a": {"$ref": "#"}},
            "required": ["a"],
        }
    ),
    "input-root-cycle": {"name": "t", "inputSchema": {"type": "object", "allOf": [{"$ref": "#"}]}},
    # attack round 4: then beside an if every value passes, else beside one every value fails; a required key no
    # property declares (additionalProperties validates it) and propertyNames (it validates the key itself)
    "output-root-cycle-in-then": _out({"type": "object", "if": {}, "then": {"$ref": "#"}}),
    "output-root-cycle-in-else": _out({"type": "object", "if": False, "else": {"$ref": "#"}}),
    "output-required-additional-cycle": _out(
        {"type": "object", "required": ["a"], "additionalProperties": {"allOf": [{"$ref": "#/additionalProperties"}]}}
    ),
    "output-required-property-names-cycle": _out(
        {"type": "object", "required": ["a"], "propertyNames": {"allOf": [{"$ref": "#/propertyNames"}]}}
    ),
}
#: Cases the listing check leaves undecided (a ``schema-undecidable`` warning stays): whatever it claims must fail
#: in the real client, but it need not name every client that does. Under a ``not``, Ajv evaluates the ``allOf``
#: before it rejects the ``type`` (the untyped rules run whatever the type check found); python-sdk's jsonschema
#: rejects the ``type`` first (keywords in the schema's order) and never recurses.
UNDECIDED_LISTING_CASES: dict[str, dict[str, Any]] = {
    "output-root-cycle-under-impure-not": _out({"type": "object", "not": {"type": "string", "allOf": [{"$ref": "#"}]}}),
    # an optional property's cycle: the listed result has it (every client fails), a result without it would not
    "output-optional-property-cycle": _out(
        {"type": "object", "properties": {"a": {"type": "string", "allOf": [{"$ref": "#/properties/a"}]}}}
    ),
}


def _listing_claims(tmp_path: Path, tool: dict[str, Any]) -> set[str]:
    """The host profiles ``diff`` says reject a release that lists ``tool``: the hosts of its breaking findings of
    listing-time rules (the old version lists the same tool with ``{"type": "object"}`` schemas)."""
    from gate_helpers import cli

    from mcp_schema_audit.rules import RULES

    old = {"name": "t", "inputSchema": {"type": "object"}}
    if "outputSchema" in tool:
        old["outputSchema"] = {"type": "object"}
    for name, listed in (("old", old), ("new", tool)):
        (tmp_path / f"{name}.json").write_text(json.dumps({"protocolVersion": "2025-11-25", "tools": [listed]}))
    r = cli("diff", str(tmp_path / "old.json"), str(tmp_path / "new.json"), "-f", "json")
    assert r.returncode in (0, 1), r.stderr
    found = json.loads(r.stdout)["findings"]
    return {h for f in found if RULES[f["rule"]].listing and f["severity"] == "breaking" for h in f["hosts"]}


def _python_listing(command: list[str]) -> str | None:
    """The real Python SDK client: list, then call ``t``; None, or where it failed and why."""
    import anyio
    from mcp import Client, StdioServerParameters

    async def run() -> str | None:
        async with Client(StdioServerParameters(command=command[0], args=command[1:])) as client:
            try:
                await client.list_tools()
            except Exception as exc:  # noqa: BLE001 - the client's own failure is the verdict
                return f"listing: {type(exc).__name__}: {exc}"
            try:
                await client.call_tool("t", {})
            except Exception as exc:  # noqa: BLE001
                return f"call: {type(exc).__name__}: {exc}"
        return None

    try:
        return anyio.run(run)
    except BaseException as exc:  # noqa: BLE001 - a refused listing surfaces as the task group's error
        return f"listing: {type(exc).__name__}: {' '.join(str(exc).split())[:300]}"


def _ts_listing(profile: str, prefix: Path, command: list[str]) -> str | None:
    """A real TS SDK client (``ts_client.mjs``): it prints ``{"listed": …}`` once the listing is accepted, then one
    line per call; a refused listing is an uncaught error (exit 1, no such line). None, or where it failed."""
    proc = subprocess.run(
        [NODE or "node", str(TS_CLIENT), "v1" if profile == "ts-sdk-v1" else "v2", *command],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "SDK_PREFIX": str(prefix)},
    )
    rows = [json.loads(ln) for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if not rows or "listed" not in rows[0]:
        return "listing: " + " ".join(proc.stderr.split())[-300:]
    calls = [r for r in rows[1:] if r.get("tool") == "t"]
    assert calls, proc.stderr[-1000:]
    return None if calls[0]["ok"] else f"call: {calls[0]['error']}"


@pytest.mark.parametrize("case", [*LISTING_CASES, *UNDECIDED_LISTING_CASES])
def test_listing_time_claims_name_exactly_the_real_clients_that_fail(
    case: str, tmp_path: Path, sdk_prefix: dict[str, Path]
) -> None:
    """Every host profile a listing-time finding names fails in its real client (the listing refused, or every call
    of the tool), and no other: an inputSchema without ``type: "object"`` (a string type, none, no schema at all)
    is refused by all three (a server validator once judged that listing as if it were arguments: a warning
    naming no client); a boolean property and a regex ECMAScript refuses by TS SDK v1's listing; an invalid
    outputSchema by python-sdk's and TS v2's calls; an inputSchema invalid against its metaschema by none (it
    was said to be refused by python-sdk, whose client runs check_schema on outputSchemas only); an outputSchema
    whose validation never ends for any result (``allOf``/``not``/``oneOf``/``if`` back to itself, an unresolvable
    ``$dynamicRef``; Ajv's 2020-12 class also through ``anyOf``) by every client that recurses, and a ``$ref``
    chain that comes back to itself by the TS SDKs (Ajv resolves it as it compiles). ``UNDECIDED_LISTING_CASES``:
    what is claimed fails, no more is asserted."""
    tool = LISTING_CASES.get(case) or UNDECIDED_LISTING_CASES[case]
    scenario = tmp_path / "scenario.json"
    result: dict[str, Any] = {"content": [{"type": "text", "text": "ok"}]}
    if "outputSchema" in tool:
        result["structuredContent"] = {"a": "x"}
    scenario.write_text(json.dumps({"name": "listing", "version": "1", "tools": [tool], "results": {"t": result}}))
    command = [PYTHON, str(SCENARIO_SERVER), "--scenario", str(scenario)]
    real = {"python-sdk": _python_listing(command)}
    for profile, prefix in sdk_prefix.items():
        real[profile] = _ts_listing(profile, prefix, command)
    failing = {profile for profile, failure in real.items() if failure is not None}
    claimed = _listing_claims(tmp_path, tool)
    # a profile whose client was not run (ts-sdk-v2 when its package did not install) is not judged
    if case in UNDECIDED_LISTING_CASES:
        assert claimed & set(real) <= failing and failing, (claimed, real)
    else:
        assert claimed & set(real) == failing, (claimed, real)
