"""Cross-check the engine's TypeScript host emulation against real Ajv (the validator both TS SDKs use).

The engine decides ``Finding.hosts`` by emulating each host profile with python ``jsonschema``
(``mcp_schema_audit/schema.py``). This module asks the real thing: it ``npm install``s ``ajv@8`` and
``ajv-formats@3`` into a temporary directory once per test session and runs ``tests/ajv/check.mjs``
(one long-lived node process) configured as the SDKs configure it
(/work/shared/notes/mcp-protocol-and-sdk.md §3):

- ``ts-sdk-v1``: draft-07 ``Ajv`` for every schema, ``$schema`` ignored;
- ``ts-sdk-v2``: ``Ajv2020`` / ``Ajv2019`` / draft-07 ``Ajv`` chosen by ``$schema``;
- both ``{strict:false, validateFormats:true, validateSchema:false, allErrors:true}`` + ajv-formats.

Checks, for every case in ``tests/cases`` and ``tests/cases/rules`` (its ``example`` is the probe), every pair
in ``EXTRA_PAIRS`` and every keyword case of ``tests/test_keywords.py`` (its witness is the probe):

1. ``test_breaking_hosts_match_ajv``: for each breaking finding with a witness, a TS profile is in
   ``finding.hosts`` exactly when real Ajv (that profile) accepts the witness under the accepting side
   (new for output, old for input) and rejects it under the rejecting side.
2. ``test_ajv_breaks_are_reported``: completeness. Every pair carries a known instance (``example`` in
   the case files, ``probe`` here); when real Ajv says that instance breaks a TS profile, the engine
   must report that profile in the hosts of some breaking finding.

Skipped (with the reason) when node/npm are missing or ``npm install`` fails (offline). Set
``SCHEMA_AUDIT_AJV_PREFIX`` to a directory that already has ``node_modules/ajv`` and
``node_modules/ajv-formats`` to skip the install.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_keywords import CASES as KEYWORD_CASES

HERE = Path(__file__).resolve().parent
CASES_DIR = HERE / "cases"
CASE_FILES = sorted(CASES_DIR.glob("*.json"))
RULE_CASE_FILES = sorted((CASES_DIR / "rules").glob("*.json"))
CHECK_MJS = HERE / "ajv" / "check.mjs"
TS_PROFILES = ("ts-sdk-v1", "ts-sdk-v2")
TOOL = "t"
D7 = "http://json-schema.org/draft-07/schema#"
D4 = "http://json-schema.org/draft-04/schema#"
D2019 = "https://json-schema.org/draft/2019-09/schema"
D2020 = "https://json-schema.org/draft/2020-12/schema"

NODE, NPM = shutil.which("node"), shutil.which("npm")
pytestmark = pytest.mark.skipif(NODE is None or NPM is None, reason="node and npm are needed to run real Ajv")


def _obj(
    props: dict[str, Any], required: list[str] | None = None, closed: bool = False, **extra: Any
) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        out["required"] = required
    if closed:
        out["additionalProperties"] = False
    out.update(extra)
    return out


# id, direction, old, new, probe (a value the accepting side accepts; the rejecting side may reject it)
EXTRA_PAIRS: list[dict[str, Any]] = [
    {
        "id": "format-dropped-output",
        "direction": "output",
        "old": _obj({"at": {"type": "string", "format": "date-time"}}, ["at"]),
        "new": _obj({"at": {"type": "string"}}, ["at"]),
        "probe": {"at": "yesterday"},
    },
    {
        "id": "unevaluated-closed-2020-gains-property-output",
        "direction": "output",
        "old": _obj({"a": {"type": "string"}}, ["a"], unevaluatedProperties=False, **{"$schema": D2020}),
        "new": _obj(
            {"a": {"type": "string"}, "b": {"type": "integer"}},
            ["a"],
            unevaluatedProperties=False,
            **{"$schema": D2020},
        ),
        "probe": {"a": "x", "b": 1},
    },
    {
        "id": "unevaluated-closed-2019-gains-property-output",
        "direction": "output",
        "old": _obj({"a": {"type": "string"}}, ["a"], unevaluatedProperties=False, **{"$schema": D2019}),
        "new": _obj(
            {"a": {"type": "string"}, "b": {"type": "integer"}},
            ["a"],
            unevaluatedProperties=False,
            **{"$schema": D2019},
        ),
        "probe": {"a": "x", "b": 1},
    },
    {
        "id": "prefixitems-grows-closed-tuple-output",
        "direction": "output",
        "old": _obj({"p": {"type": "array", "prefixItems": [{"type": "integer"}], "items": False}}, ["p"]),
        "new": _obj(
            {"p": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "items": False}}, ["p"]
        ),
        "probe": {"p": [1, "a"]},
    },
    {
        "id": "prefixitems-type-widened-output",
        "direction": "output",
        "old": _obj({"p": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]}}, ["p"]),
        "new": _obj({"p": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "string"}]}}, ["p"]),
        "probe": {"p": [0.5, "a"]},
    },
    {
        "id": "enum-widened-output",
        "direction": "output",
        "old": _obj({"status": {"type": "string", "enum": ["open", "closed"]}}, ["status"]),
        "new": _obj({"status": {"type": "string", "enum": ["open", "closed", "merged"]}}, ["status"]),
        "probe": {"status": "merged"},
    },
    {
        "id": "enum-narrowed-input",
        "direction": "input",
        "old": _obj({"mode": {"enum": ["fast", "slow", "auto"]}}, ["mode"]),
        "new": _obj({"mode": {"enum": ["fast", "slow"]}}, ["mode"]),
        "probe": {"mode": "auto"},
    },
    {
        "id": "nullable-added-type-list-output",
        "direction": "output",
        "old": _obj({"label": {"type": "string"}}, ["label"]),
        "new": _obj({"label": {"type": ["string", "null"]}}, ["label"]),
        "probe": {"label": None},
    },
    {
        "id": "nullable-added-anyof-ref-output",
        "direction": "output",
        "old": _obj(
            {"owner": {"$ref": "#/$defs/User"}},
            ["owner"],
            **{"$defs": {"User": _obj({"id": {"type": "integer"}}, ["id"])}},
        ),
        "new": _obj(
            {"owner": {"anyOf": [{"$ref": "#/$defs/User"}, {"type": "null"}]}},
            ["owner"],
            **{"$defs": {"User": _obj({"id": {"type": "integer"}}, ["id"])}},
        ),
        "probe": {"owner": None},
    },
    {
        "id": "required-removed-output",
        "direction": "output",
        "old": _obj({"id": {"type": "string"}, "url": {"type": "string"}}, ["id", "url"]),
        "new": _obj({"id": {"type": "string"}, "url": {"type": "string"}}, ["id"]),
        "probe": {"id": "x"},
    },
    {
        "id": "required-added-input",
        "direction": "input",
        "old": _obj({"q": {"type": "string"}, "limit": {"type": "integer"}}, ["q"]),
        "new": _obj({"q": {"type": "string"}, "limit": {"type": "integer"}}, ["q", "limit"]),
        "probe": {"q": "x"},
    },
    {
        "id": "draft07-zod-closed-gains-property-output",
        "direction": "output",
        "old": _obj({"t": {"type": "number"}}, ["t"], closed=True, **{"$schema": D7}),
        "new": _obj({"t": {"type": "number"}, "unit": {"type": "string"}}, ["t"], closed=True, **{"$schema": D7}),
        "probe": {"t": 1, "unit": "s"},
    },
    {
        "id": "draft07-integer-to-number-output",
        "direction": "output",
        "old": _obj({"n": {"type": "integer"}}, ["n"], **{"$schema": D7}),
        "new": _obj({"n": {"type": "number"}}, ["n"], **{"$schema": D7}),
        "probe": {"n": 0.5},
    },
    {
        "id": "closed-nested-array-items-gain-property-output",
        "direction": "output",
        "old": _obj(
            {
                "rows": {
                    "type": "array",
                    "items": {"type": "array", "items": _obj({"id": {"type": "integer"}}, ["id"], closed=True)},
                }
            },
            ["rows"],
        ),
        "new": _obj(
            {
                "rows": {
                    "type": "array",
                    "items": {
                        "type": "array",
                        "items": _obj({"id": {"type": "integer"}, "name": {"type": "string"}}, ["id"], closed=True),
                    },
                }
            },
            ["rows"],
        ),
        "probe": {"rows": [[{"id": 1, "name": "a"}]]},
    },
    {
        "id": "maxlength-decreased-input",
        "direction": "input",
        "old": _obj({"s": {"type": "string", "maxLength": 10}}, ["s"]),
        "new": _obj({"s": {"type": "string", "maxLength": 3}}, ["s"]),
        "probe": {"s": "abcdefgh"},
    },
    {
        "id": "pattern-added-input",
        "direction": "input",
        "old": _obj({"code": {"type": "string"}}, ["code"]),
        "new": _obj({"code": {"type": "string", "pattern": "^[A-Z]{3}$"}}, ["code"]),
        "probe": {"code": "abc"},
    },
    {
        "id": "oneof-overlapping-branch-added-input",
        "direction": "input",
        "old": _obj({"v": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}, ["v"]),
        "new": _obj({"v": {"oneOf": [{"type": "string"}, {"type": "integer"}, {"type": "number"}]}}, ["v"]),
        "probe": {"v": 1},
    },
    {
        "id": "const-changed-input",
        "direction": "input",
        "old": _obj({"kind": {"const": "a"}}, ["kind"]),
        "new": _obj({"kind": {"const": "b"}}, ["kind"]),
        "probe": {"kind": "a"},
    },
    {
        "id": "format-uuid-added-input",
        "direction": "input",
        "old": _obj({"id": {"type": "string"}}, ["id"]),
        "new": _obj({"id": {"type": "string", "format": "uuid"}}, ["id"]),
        "probe": {"id": "not-a-uuid"},
    },
    {
        "id": "draft07-format-uuid-added-input",
        "direction": "input",
        "old": _obj({"id": {"type": "string"}}, ["id"], **{"$schema": D7}),
        "new": _obj({"id": {"type": "string", "format": "uuid"}}, ["id"], **{"$schema": D7}),
        "probe": {"id": "not-a-uuid"},
    },
    {
        "id": "ref-sibling-maxlength-added-input",
        "direction": "input",
        "old": _obj({"s": {"$ref": "#/$defs/S"}}, ["s"], **{"$defs": {"S": {"type": "string"}}}),
        "new": _obj({"s": {"$ref": "#/$defs/S", "maxLength": 2}}, ["s"], **{"$defs": {"S": {"type": "string"}}}),
        "probe": {"s": "abc"},
    },
    {
        "id": "draft07-ref-sibling-maxlength-added-input",
        "direction": "input",
        "old": _obj(
            {"s": {"$ref": "#/definitions/S"}}, ["s"], **{"$schema": D7, "definitions": {"S": {"type": "string"}}}
        ),
        "new": _obj(
            {"s": {"$ref": "#/definitions/S", "maxLength": 2}},
            ["s"],
            **{"$schema": D7, "definitions": {"S": {"type": "string"}}},
        ),
        "probe": {"s": "abc"},
    },
    {
        "id": "format-uuid-dropped-output",
        "direction": "output",
        "old": _obj({"id": {"type": "string", "format": "uuid"}}, ["id"]),
        "new": _obj({"id": {"type": "string"}}, ["id"]),
        "probe": {"id": "not-a-uuid"},
    },
    {
        "id": "draft07-format-uuid-dropped-output",
        "direction": "output",
        "old": _obj({"id": {"type": "string", "format": "uuid"}}, ["id"], **{"$schema": D7}),
        "new": _obj({"id": {"type": "string"}}, ["id"], **{"$schema": D7}),
        "probe": {"id": "not-a-uuid"},
    },
    {
        "id": "format-hostname-dropped-output",
        "direction": "output",
        "old": _obj({"host": {"type": "string", "format": "hostname"}}, ["host"]),
        "new": _obj({"host": {"type": "string"}}, ["host"]),
        "probe": {"host": "not a host"},
    },
    {
        "id": "format-byte-dropped-output",
        "direction": "output",
        "old": _obj({"blob": {"type": "string", "format": "byte"}}, ["blob"]),
        "new": _obj({"blob": {"type": "string"}}, ["blob"]),
        "probe": {"blob": "not base64!"},
    },
    {
        "id": "format-int32-dropped-output",
        "direction": "output",
        "old": _obj({"n": {"type": "integer", "format": "int32"}}, ["n"]),
        "new": _obj({"n": {"type": "integer"}}, ["n"]),
        "probe": {"n": 3000000000},
    },
    {
        "id": "openapi-nullable-added-output",
        "direction": "output",
        "old": _obj({"label": {"type": "string"}}, ["label"]),
        "new": _obj({"label": {"type": "string", "nullable": True}}, ["label"]),
        "probe": {"label": None},
    },
    {
        "id": "openapi-nullable-removed-input",
        "direction": "input",
        "old": _obj({"label": {"type": "string", "nullable": True}}, ["label"]),
        "new": _obj({"label": {"type": "string"}}, ["label"]),
        "probe": {"label": None},
    },
    {
        "id": "multipleof-added-input",
        "direction": "input",
        "old": _obj({"x": {"type": "number"}}, ["x"]),
        "new": _obj({"x": {"type": "number", "multipleOf": 0.1}}, ["x"]),
        "probe": {"x": 0.05},
    },
    {
        # 0.01 is ten times 0.001, but validators divide in floating point: 0.35 / 0.001 is 349.99999999999994
        "id": "multipleof-finer-float-input",
        "direction": "input",
        "old": _obj({"x": {"type": "number", "multipleOf": 0.01}}, ["x"]),
        "new": _obj({"x": {"type": "number", "multipleOf": 0.001}}, ["x"]),
        "probe": {"x": 0.35},
    },
    {
        "id": "multipleof-coarser-float-output",
        "direction": "output",
        "old": _obj({"x": {"type": "number", "multipleOf": 0.001}}, ["x"]),
        "new": _obj({"x": {"type": "number", "multipleOf": 0.01}}, ["x"]),
        "probe": {"x": 0.35},
    },
    {
        "id": "draft04-closed-gains-property-output",
        "direction": "output",
        "old": _obj({"t": {"type": "number"}}, ["t"], closed=True, **{"$schema": D4}),
        "new": _obj({"t": {"type": "number"}, "unit": {"type": "string"}}, ["t"], closed=True, **{"$schema": D4}),
        "probe": {"t": 1, "unit": "s"},
    },
    {
        "id": "unchanged-2020-closed",
        "direction": "output",
        "old": _obj({"a": {"type": "string", "format": "date-time"}}, ["a"], closed=True, **{"$schema": D2020}),
        "new": _obj({"a": {"type": "string", "format": "date-time"}}, ["a"], closed=True, **{"$schema": D2020}),
        "probe": {"a": "2026-01-01T00:00:00Z"},
    },
    # -- regex dialects: Ajv compiles pattern/patternProperties with new RegExp(p, "u") (ASCII \d \w \b,
    #    $ only at the end, . stops at line terminators, \p{...}); python jsonschema uses Python re
    {
        "id": "pattern-ascii-digits-dropped-output",
        "direction": "output",
        "old": _obj({"n": {"type": "string", "pattern": "^\\d+$"}}, ["n"]),
        "new": _obj({"n": {"type": "string"}}, ["n"]),
        "probe": {"n": "\u0663"},
    },
    {
        "id": "pattern-digit-class-to-d-output",
        "direction": "output",
        "old": _obj({"n": {"type": "string", "pattern": "^[0-9]+$"}}, ["n"]),
        "new": _obj({"n": {"type": "string", "pattern": "^\\d+$"}}, ["n"]),
        "probe": {"n": "\u0663"},
    },
    {
        "id": "pattern-word-class-to-ascii-input",
        "direction": "input",
        "old": _obj({"w": {"type": "string", "pattern": "^\\w+$"}}, ["w"]),
        "new": _obj({"w": {"type": "string", "pattern": "^[A-Za-z0-9_]+$"}}, ["w"]),
        "probe": {"w": "caf\u00e9"},
    },
    {
        "id": "pattern-dollar-added-input",
        "direction": "input",
        "old": _obj({"s": {"type": "string"}}, ["s"]),
        "new": _obj({"s": {"type": "string", "pattern": "^[a-z]+$"}}, ["s"]),
        "probe": {"s": "abc\n"},
    },
    {
        "id": "pattern-dot-dropped-output",
        "direction": "output",
        "old": _obj({"line": {"type": "string", "pattern": "^.+$"}}, ["line"]),
        "new": _obj({"line": {"type": "string"}}, ["line"]),
        "probe": {"line": "a\u2028b"},
    },
    {
        "id": "pattern-unicode-property-dropped-output",
        "direction": "output",
        "old": _obj({"name": {"type": "string", "pattern": "^\\p{L}+$"}}, ["name"]),
        "new": _obj({"name": {"type": "string"}}, ["name"]),
        "probe": {"name": "h3"},
    },
    {
        "id": "patternproperties-closed-gains-unicode-digit-key-output",
        "direction": "output",
        "old": {"type": "object", "patternProperties": {"^\\d+$": {"type": "integer"}}, "additionalProperties": False},
        "new": {
            "type": "object",
            "properties": {"\u0663": {"type": "integer"}},
            "patternProperties": {"^\\d+$": {"type": "integer"}},
            "additionalProperties": False,
        },
        "probe": {"\u0663": 1},
    },
    {
        "id": "patternproperties-unevaluated-gains-unicode-digit-key-output",
        "direction": "output",
        "old": {"type": "object", "patternProperties": {"^\\d+$": {"type": "integer"}}, "unevaluatedProperties": False},
        "new": {
            "type": "object",
            "properties": {"\u0663": {"type": "integer"}},
            "patternProperties": {"^\\d+$": {"type": "integer"}},
            "unevaluatedProperties": False,
        },
        "probe": {"\u0663": 1},
    },
    {
        "id": "openapi-nullable-enum-without-null-output",
        "direction": "output",
        "old": _obj({"s": {"type": "string", "enum": ["a", "b"]}}, ["s"]),
        "new": _obj({"s": {"type": "string", "nullable": True, "enum": ["a", "b"]}}, ["s"]),
        "probe": {"s": None},
    },
]

# Documented, known disagreements between the engine's python emulation (jsonschema) and real Ajv:
# {(pair id, test name): reason}. Each is marked xfail(strict=True), so a fix shows up as an XPASS failure:
# then delete the entry. Failures NOT listed here are engine bugs (witness construction, SDK dialect
# handling) and are left failing on purpose.
KNOWN_DISAGREEMENTS: dict[tuple[str, str], str] = {}


def _pairs() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for path in CASE_FILES:
        case = json.loads(path.read_text(encoding="utf-8"))
        out.append(
            (
                f"case-{path.stem}",
                {"direction": case["direction"], "old": case["old"], "new": case["new"], "probe": case.get("example")},
            )
        )
    for path in RULE_CASE_FILES:  # tests/test_rule_cases.py: its ``example`` is the probe
        for case in json.loads(path.read_text(encoding="utf-8"))["cases"]:
            pair = {
                "direction": case["direction"],
                "old": case["old"],
                "new": case["new"],
                "probe": case.get("example"),
            }
            out.append((f"rule-{path.stem[0]}-{case['id']}", pair))
    for pair in EXTRA_PAIRS:
        out.append((pair["id"], pair))
    for cid, direction, old, new, _rule, _severity, witness in KEYWORD_CASES:  # tests/test_keywords.py
        out.append((f"keyword-{cid}", {"direction": direction, "old": old, "new": new, "probe": witness}))
    return out


PAIRS = _pairs()


def _params(test: str) -> list[Any]:
    params = []
    for pid, pair in PAIRS:
        reason = KNOWN_DISAGREEMENTS.get((pid, test))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params.append(pytest.param(pair, id=pid, marks=marks))
    return params


# -- real Ajv ------------------------------------------------------------------------------------------
class Ajv:
    """One node process running ``check.mjs``; ``validate(schema, instance, profile)`` → result dict."""

    def __init__(self, prefix: Path, stderr_path: Path) -> None:
        env = {**os.environ, "AJV_PREFIX": str(prefix), "NODE_PATH": str(prefix / "node_modules")}
        self._stderr = stderr_path.open("wb")
        self.proc = subprocess.Popen(
            [NODE, str(CHECK_MJS)],
            cwd=prefix,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
            encoding="utf-8",
        )
        self._memo: dict[str, dict[str, Any]] = {}
        self.stderr_path = stderr_path

    def validate(self, schema: Any, instance: Any, profile: str) -> dict[str, Any]:
        line = json.dumps({"schema": schema, "instance": instance, "profile": profile}, sort_keys=True)
        if line not in self._memo:
            assert self.proc.stdin is not None and self.proc.stdout is not None
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
            reply = self.proc.stdout.readline()
            if not reply:
                raise RuntimeError(f"check.mjs exited: {self.stderr_path.read_text(errors='replace')[-2000:]}")
            self._memo[line] = json.loads(reply)
        return self._memo[line]

    def accepts(self, schema: Any, instance: Any, profile: str) -> bool:
        return bool(self.validate(schema, instance, profile)["valid"])

    def formats(self) -> dict[str, Any]:
        """ajv-formats' own table (``check.mjs``): its format names, its regexes, the text of its formats.js."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"formats": True}) + "\n")
        self.proc.stdin.flush()
        table: dict[str, Any] = json.loads(self.proc.stdout.readline())
        return table

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        self._stderr.close()


def _has_ajv(prefix: Path) -> bool:
    return all((prefix / "node_modules" / name / "package.json").is_file() for name in ("ajv", "ajv-formats"))


@pytest.fixture(scope="session")
def ajv_prefix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory with ajv@8 and ajv-formats@3 installed (once per test session)."""
    preset = os.environ.get("SCHEMA_AUDIT_AJV_PREFIX")
    if preset and _has_ajv(Path(preset)):
        return Path(preset)
    prefix = tmp_path_factory.mktemp("ajv")
    cmd = [NPM, "install", "--no-audit", "--no-fund", "--prefix", str(prefix), "ajv@8", "ajv-formats@3"]
    try:
        proc = subprocess.run(cmd, cwd=prefix, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"npm install ajv@8 ajv-formats@3 failed (offline?): {exc}")
    if proc.returncode != 0 or not _has_ajv(prefix):
        lines = [ln for ln in (proc.stderr or proc.stdout).splitlines() if ln.strip() and "complete log" not in ln]
        pytest.skip(
            f"npm install ajv@8 ajv-formats@3 failed (offline?), exit {proc.returncode}: {' | '.join(lines[:2])}"
        )
    return prefix


@pytest.fixture(scope="session")
def ajv(ajv_prefix: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ajv]:
    runner = Ajv(ajv_prefix, tmp_path_factory.mktemp("ajv-log") / "check.stderr")
    try:
        # smoke test: the SDK configurations behave as documented (notes §3.1/§3.2)
        closed = {"$schema": D2020, "type": "object", "properties": {}, "unevaluatedProperties": False}
        assert runner.accepts(closed, {"x": 1}, "ts-sdk-v1"), "ts-sdk-v1 must ignore unevaluatedProperties"
        assert not runner.accepts(closed, {"x": 1}, "ts-sdk-v2"), "ts-sdk-v2 must enforce unevaluatedProperties"
        assert not runner.accepts({"type": "string", "format": "date-time"}, "x", "ts-sdk-v1"), "formats enforced"
        yield runner
    finally:
        runner.close()


# -- helpers -------------------------------------------------------------------------------------------
def _findings(pair: dict[str, Any]) -> list[Any]:
    """Engine findings for a pair (an absent inputSchema means the tool is absent on that side)."""
    from mcp_schema_audit.engine import compare_schemas

    return compare_schemas(pair["old"], pair["new"], pair["direction"], tool=TOOL)


def _ajv_breaks(ajv: Ajv, pair: dict[str, Any], instance: Any, profile: str) -> tuple[bool, str]:
    """Does real Ajv (``profile``) accept ``instance`` on the accepting side and reject it on the other?

    An absent rejecting side (tool removed) rejects every call.
    """
    accepting, rejecting = (pair["new"], pair["old"]) if pair["direction"] == "output" else (pair["old"], pair["new"])
    acc = ajv.validate(accepting, instance, profile)
    if rejecting is None:
        return bool(acc["valid"]), f"accepting side: {acc}; rejecting side: tool absent"
    rej = ajv.validate(rejecting, instance, profile)
    return bool(acc["valid"]) and not rej["valid"], f"accepting side: {acc}; rejecting side: {rej}"


# -- tests ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("pair", _params("test_breaking_hosts_match_ajv"))
def test_breaking_hosts_match_ajv(pair: dict[str, Any], ajv: Ajv) -> None:
    """Each breaking finding's TS hosts are exactly the TS profiles for which real Ajv confirms its witness."""
    findings = _findings(pair)
    checked = 0
    mismatches = []
    for f in findings:
        if f.severity != "breaking" or f.witness is None:
            continue
        instance = f.witness["instance"]
        if f.direction == "tool":  # tool removed: the witness is a tools/call; its arguments meet the old inputSchema
            instance = instance["arguments"]
        for profile in TS_PROFILES:
            breaks, detail = _ajv_breaks(ajv, pair, instance, profile)
            checked += 1
            if breaks != (profile in f.hosts):
                mismatches.append(
                    f"{f.rule} at {f.pointer!r}: witness {instance!r}, engine hosts {f.hosts}, "
                    f"real Ajv {profile} {'breaks' if breaks else 'does not break'} ({detail})"
                )
    assert not mismatches, "engine host emulation disagrees with real Ajv:\n" + "\n".join(mismatches)


@pytest.mark.parametrize("pair", _params("test_ajv_breaks_are_reported"))
def test_ajv_breaks_are_reported(pair: dict[str, Any], ajv: Ajv) -> None:
    """When real Ajv shows the pair's known instance breaking a TS profile, some breaking finding names it."""
    probe = pair.get("probe")
    if probe is None:
        pytest.skip("no example instance")
    findings = _findings(pair)
    reported = {h for f in findings if f.severity == "breaking" for h in f.hosts}
    # A rule whose catalog severity is "warning" (e.g. input-format-changed) flags the change on purpose
    # without claiming hosts; only breaks the engine missed or failed to confirm are errors here.
    if any(f.severity == "warning" and f.reason is None for f in findings):
        pytest.skip(
            "the engine reports this change with a warning-by-policy rule: "
            + ", ".join(sorted({f.rule for f in findings if f.severity == "warning" and f.reason is None}))
        )
    missing = []
    for profile in TS_PROFILES:
        breaks, detail = _ajv_breaks(ajv, pair, probe, profile)
        if breaks and profile not in reported:
            missing.append(f"{profile}: real Ajv breaks on {probe!r} ({detail})")
    summary = [(f.rule, f.severity, f.pointer, f.hosts, f.reason) for f in findings]
    assert not missing, (
        "breaks real Ajv confirms but the engine does not report:\n" + "\n".join(missing) + f"\nfindings: {summary}"
    )


# -- formats: the engine's port of ajv-formats against the real package ---------------------------------------
#: values every format is probed with besides the engine's own strings of it (``formatted.format_pool``)
_FORMAT_PROBES: list[Any] = [
    "",
    "a",
    " ",
    "\n",
    "x@",
    "@b.c",
    "a@b",
    "a b@c.d",
    "2024-02-29",
    "2023-02-29",
    "2024-13-01",
    "2024-01-01T00:00:00",
    "2024-01-01T24:00:00Z",
    "2024-01-01T23:59:60Z",
    "2024-01-01T23:59:60+01:00",
    "2024-01-01T00:59:60+01:00",
    "2024-01-01T00:00:00+24:00",
    "2024-01-01\u00a000:00:00Z",
    "2024-01-01\u212a00:00:00Z",
    "23:59:60Z",
    "00:00:00.5",
    "00:00:00+0100",
    "http://",
    "http://example.com",
    "HTTP://EXAMPLE.COM/\u00e9",
    "example.com",
    "/relative/path",
    "a:b",
    "urn:uuid:00000000-0000-0000-0000-000000000000",
    "::",
    "1.2.3.4",
    "256.1.1.1",
    "1:2:3:4:5:6:7:8:9",
    "a" * 64 + ".com",
    "\u0663",
    "PT",
    "P1W2D",
    "~",
    "/~2",
    "#/a b",
    "YQ=",
    "!!!\n",
    "(?<n>a)",
    "a\\Z",
    "[",
    "\\p{L}",
    "{id}",
    "{+a,b:3}",
    "%zz",
    "\ud800",
    "\u017f@example.com",
    "https://ex\u212aample.com/",
    "ex\u212aample.com",
    0,
    1,
    -1,
    1.5,
    1.0,
    2**31 - 1,
    2**31,
    -(2**31),
    -(2**31) - 1,
    2**53 + 1,
    10**30,
    True,
    None,
]


def test_format_table_is_ajv_formats(ajv: Ajv) -> None:
    """The port defines exactly ajv-formats' formats, and its regular expressions are ajv-formats' own (source and
    flags), the ones its ``uri`` and ``byte`` functions test included."""
    from mcp_schema_audit.schema import AJV_FORMATS
    from mcp_schema_audit.schema.formats import ECMA_SOURCES

    table = ajv.formats()
    assert sorted(AJV_FORMATS) == sorted(table["names"])
    for name, (source, flags) in table["regexes"].items():
        assert ECMA_SOURCES[name] == (source, flags), name
    uri_source, _ = ECMA_SOURCES["URI"]
    assert f"const URI = /{uri_source}/i;" in table["text"]
    byte_source, _ = ECMA_SOURCES["BYTE"]
    assert f"const BYTE = /{byte_source}/gm;" in table["text"]


@pytest.mark.parametrize("fmt", sorted(__import__("mcp_schema_audit.schema", fromlist=["AJV_FORMATS"]).AJV_FORMATS))
def test_format_checks_match_ajv(fmt: str, ajv: Ajv) -> None:
    """Every format's check agrees with real ajv-formats (both TS classes) on the engine's own strings of the format
    (its examples and their one-edit variants: what witnesses are built from) and on ``_FORMAT_PROBES``."""
    from mcp_schema_audit.engine.formatted import format_pool
    from mcp_schema_audit.schema import ajv_conforms

    wrong = []
    for value in [*format_pool(fmt), *_FORMAT_PROBES]:
        for profile in TS_PROFILES:
            real = ajv.accepts({"format": fmt}, value, profile)
            if real != ajv_conforms(value, fmt):
                wrong.append(f"{value!r} ({profile}): ajv-formats {'accepts' if real else 'rejects'}")
    assert not wrong, f"format {fmt!r}: the port disagrees with real ajv-formats on\n" + "\n".join(wrong[:40])
