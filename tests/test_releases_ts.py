"""The 2026-07-28 fields a TypeScript SDK v2 server emits itself, and the release rules on two of its releases over
Streamable HTTP (``tests/servers/ts_release_server.mjs``: ``@modelcontextprotocol/server`` 2.x ``McpServer`` with
``cacheHints``, ``capabilities.extensions``, zod ``.meta({"x-mcp-header": …})`` and ``inputRequired()``; nothing is
written on the wire by hand).

The packages are installed into a temporary npm prefix (or ``SCHEMA_AUDIT_TS_SERVER_PREFIX`` names one that holds
``@modelcontextprotocol/server@2``, ``@modelcontextprotocol/node`` and ``zod@4``); the tests skip only when node/npm
are missing or npm cannot install them (offline)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import SERVERS, ServerProcess

from mcp_schema_audit.audit import diff_report
from mcp_schema_audit.capture import CaptureTarget, capture
from mcp_schema_audit.lint import lint_snapshot
from mcp_schema_audit.settings import Settings

SERVER = SERVERS / "ts_release_server.mjs"
NODE, NPM = shutil.which("node"), shutil.which("npm")
PACKAGES = ("@modelcontextprotocol/server@2", "@modelcontextprotocol/node@2", "zod@4")
PROTOCOL = "2026-07-28"


@pytest.fixture(scope="module")
def prefix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if NODE is None or NPM is None:
        pytest.skip("node and npm are needed to run the TypeScript SDK v2 server")
    preset = os.environ.get("SCHEMA_AUDIT_TS_SERVER_PREFIX")
    marker = Path("node_modules") / "@modelcontextprotocol" / "server" / "package.json"
    if preset and (Path(preset) / marker).is_file():
        return Path(preset)
    folder = tmp_path_factory.mktemp("ts-server")
    cmd = [NPM, "install", "--no-audit", "--no-fund", "--prefix", str(folder), *PACKAGES]
    try:
        proc = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"npm install {' '.join(PACKAGES)} failed (offline?): {exc}")
    if proc.returncode != 0 or not (folder / marker).is_file():
        lines = [ln for ln in (proc.stderr or proc.stdout).splitlines() if ln.strip() and "complete log" not in ln]
        pytest.skip(f"npm install {' '.join(PACKAGES)} failed (offline?): {' | '.join(lines[:2])}")
    return folder


@pytest.fixture(scope="module")
def servers(prefix: Path, http_server_factory: Any) -> dict[int, ServerProcess]:
    env = {"SDK_PREFIX": str(prefix)}
    return {
        v: http_server_factory(lambda port, v=v: [NODE or "node", str(SERVER), str(v), str(port)], env=env)
        for v in (1, 2, 3)
    }


def _version(prefix: Path) -> str:
    data = json.loads((prefix / "node_modules" / "@modelcontextprotocol" / "server" / "package.json").read_text())
    return str(data["version"])


def test_the_ts_sdk_v2_server_emits_the_2026_fields_over_streamable_http(
    servers: dict[int, ServerProcess], prefix: Path
) -> None:
    """Measured (docs/cli.md "The 2026-07-28 fields the SDKs emit"): ttlMs and cacheScope from ``cacheHints`` on
    tools/list, ``capabilities.extensions`` as given, ``x-mcp-header`` from zod's ``.meta()``; the snapshot keeps
    them; a diff of the two releases reports them."""
    assert _version(prefix).startswith("2.")
    snaps = {
        v: capture(CaptureTarget("http", url=s.url("/mcp")), label=f"ts{v}", protocol=PROTOCOL, timeout_s=60)
        for v, s in servers.items()
    }
    r1, r2, r3 = snaps[1], snaps[2], snaps[3]
    assert r1.protocol_version == PROTOCOL and r1.server == {"name": "mail", "version": "1.0.0"}
    assert r1.list_cache["tools/list"] == {"ttlMs": 86_400_000, "cacheScope": "public"}
    assert r1.capabilities["extensions"] == {"com.example/audit": {}, "com.example/search": {"maxResults": 10}}
    assert r1.tool_map()["send"]["inputSchema"]["properties"]["to"]["x-mcp-header"] == "To"
    found = {(f.rule, f.severity) for f in diff_report(r1, r2, Settings(version_gate="semver")).findings}
    assert {
        ("extension-removed", "breaking"),
        ("version-bump-too-small", "breaking"),
        ("header-renamed", "warning"),
        ("cache-scope-changed", "warning"),
        ("cache-ttl-increased", "warning"),
        ("extension-settings-changed", "warning"),
    } <= found, sorted(found)
    # an invalid x-mcp-header (on a number): the TS SDK v2 server warns on stderr and serves it (the Python SDK's
    # MCPServer refuses to register it); the raw capture keeps it and lint calls it breaking
    assert r3.tool_map()["lookup"]["inputSchema"]["properties"]["score"]["x-mcp-header"] == "Score"
    assert "invalid x-mcp-header" in servers[3].output()
    assert [(f.rule, f.tool) for f in lint_snapshot(r3) if f.rule.startswith("header-")] == [
        ("header-not-primitive", "lookup")
    ]


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcp_schema_audit", *args], capture_output=True, text=True, timeout=120, cwd=cwd
    )


def test_a_ts_sdk_v2_tool_that_newly_needs_input_is_found_against_a_recording(
    servers: dict[int, ServerProcess], tmp_path: Path
) -> None:
    """Release 2's ``forward`` returns ``inputRequired()``; to a client that declares no elicitation capability (the
    probe) the TS SDK v2 server answers the -32021 MissingRequiredClientCapability error, as the spec requires,
    instead of the input_required result. Against release 1's recording that is probe-input-required-introduced."""
    calls = tmp_path / "calls.json"
    calls.write_text('{"calls": [{"tool": "forward", "arguments": {"to": "a@example.com"}, "id": "f1"}]}')
    base = ["probe", "--calls", str(calls), "--protocol", PROTOCOL]
    first = _cli(*base, "--label", "ts1", "--record", "r1.json", "--url", servers[1].url("/mcp"), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    out = _cli(*base, "--against", "r1.json", "--format", "json", "--url", servers[2].url("/mcp"), cwd=tmp_path)
    assert out.returncode == 1, out.stderr
    report = json.loads(out.stdout)
    assert report["calls"][0]["outcome"] == "rpc-error" and "-32021" in report["calls"][0]["message"]
    found = [f for f in report["findings"] if f["rule"] == "probe-input-required-introduced"]
    assert len(found) == 1 and found[0]["severity"] == "breaking" and found[0]["pointer"] == "/error/code"
    w = found[0]["witness"]
    assert w["instance"]["error"]["code"] == -32021 and w["needs"] == ["elicitation"] and w["before"] == {"ts1": "f1"}
