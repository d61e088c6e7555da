"""Ground truth for the provider profiles: the providers' own code run offline on every rule case's schema.

- ``google-genai`` 3.6.1, its MCP adapter (``_mcp_utils.mcp_to_gemini_tool``): the conversion raises exactly
  where the ``gemini`` profile's code rules say the listing fails, converting a whole tool list fails with one
  such tool, and the keywords the profile says are dropped are absent from the ``parameters`` it builds.
- ``openai-agents`` 0.24, ``strict_schema.ensure_strict_json_schema`` (what its MCP adapter runs with
  ``convert_schemas_to_strict``): it raises exactly where the ``openai-strict`` profile's code rules say the tool
  cannot be sent strict; optional parameters come back required, free-form objects closed.
- the Vercel AI SDK's Google provider (npm ``@ai-sdk/google``) and LangChain's ``langchain-google-genai``: they
  drop the constraint keywords the ``gemini`` profile names (outside the few they keep), and where they read a
  schema otherwise than google-genai, they do what the gemini profile's notes (docs/hosts.md) say.

The SDKs are installed once per session into a temporary venv / npm prefix (``SCHEMA_AUDIT_PROVIDER_PYTHON``
names a Python that already has them, ``SCHEMA_AUDIT_AI_SDK_PREFIX`` a folder with ``@ai-sdk/google``); skipped
with the reason where the install fails (offline) or node/npm are missing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path
from typing import Any

import pytest

from mcp_schema_audit.schema.portability import Tool, judge_tool
from mcp_schema_audit.snapshot.store import load_snapshot_file
from tests.test_portability import CASES, case_tool

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PROVIDERS = HERE / "real_clients" / "providers.py"
AI_SDK = HERE / "real_clients" / "ai_sdk_google.mjs"
PY_PACKAGES = ("google-genai==3.6.1", "openai-agents==0.24.0", "langchain-google-genai==4.4.3")
NPM_PACKAGES = ("@ai-sdk/google@3.0.141",)
NODE, NPM = shutil.which("node"), shutil.which("npm")
pytestmark = pytest.mark.xdist_group("providers")
#: the keys of JSON Schema and of google-genai's Schema dump for the keywords the tests look up
SNAKE = {
    "minLength": "min_length", "maxLength": "max_length", "minItems": "min_items", "maxItems": "max_items",
    "uniqueItems": "unique_items", "minProperties": "min_properties", "maxProperties": "max_properties",
    "additionalProperties": "additional_properties", "oneOf": "one_of", "allOf": "all_of",
}  # fmt: skip
#: what @ai-sdk/google's convertJSONSchemaToOpenAPISchema copies (every other keyword is dropped)
AI_SDK_KEEPS = {
    "description",
    "required",
    "format",
    "type",
    "enum",
    "const",
    "properties",
    "items",
    "allOf",
    "anyOf",
    "oneOf",
    "minLength",
}


#: schemas beyond the rule cases whose adapter behaviour docs/hosts.md states
EXTRA = [{"id": "extra/mixed-enum", "name": "t", "schema": {"type": "object", "properties": {"a": {"enum": ["a", 1]}}}}]


def _corpus() -> list[dict[str, Any]]:
    """Every tool of the fixtures' corpus (every version), as a rule case without an expectation."""
    out = []
    for path in sorted((ROOT / "fixtures" / "corpus").glob("*/*.json")):
        snap = load_snapshot_file(path)
        for tool in snap.tools:
            out.append({"id": f"corpus/{path.parent.name}/{path.stem}/{tool['name']}", "host": "", "tool": tool})
    return out


CORPUS = _corpus()


def _schemas() -> list[dict[str, Any]]:
    cases = CASES + CORPUS
    return [{"id": c["id"], "name": c["tool"]["name"], "schema": c["tool"]["inputSchema"]} for c in cases] + EXTRA


@pytest.fixture(scope="session")
def provider_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    python = os.environ.get("SCHEMA_AUDIT_PROVIDER_PYTHON")
    if not python:
        home = tmp_path_factory.mktemp("providers")
        venv.EnvBuilder(with_pip=True).create(home)
        python = str(home / "bin" / "python")
        cmd = [python, "-m", "pip", "install", "-q", "--disable-pip-version-check", *PY_PACKAGES]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        except (OSError, subprocess.TimeoutExpired) as exc:
            pytest.skip(f"pip install {' '.join(PY_PACKAGES)} failed (offline?): {exc}")
        if proc.returncode != 0:
            lines = [ln for ln in proc.stderr.splitlines() if ln.strip() and "WARNING" not in ln]
            pytest.skip(f"pip install {' '.join(PY_PACKAGES)} failed (offline?): {' | '.join(lines[:2])}")
    proc = subprocess.run(
        [python, str(PROVIDERS)], input=json.dumps(_schemas()), capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


@pytest.fixture(scope="session")
def ai_sdk_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    if NODE is None or NPM is None:
        pytest.skip("node and npm are needed to run the Vercel AI SDK's Google provider")
    prefix = Path(os.environ.get("SCHEMA_AUDIT_AI_SDK_PREFIX") or tmp_path_factory.mktemp("ai-sdk"))
    if not (prefix / "node_modules" / "@ai-sdk" / "google" / "package.json").is_file():
        cmd = [NPM, "install", "--no-audit", "--no-fund", "--prefix", str(prefix), *NPM_PACKAGES]
        try:
            proc = subprocess.run(cmd, cwd=prefix, capture_output=True, text=True, timeout=300)
        except (OSError, subprocess.TimeoutExpired) as exc:
            pytest.skip(f"npm install {' '.join(NPM_PACKAGES)} failed (offline?): {exc}")
        if proc.returncode != 0:
            pytest.skip(f"npm install {' '.join(NPM_PACKAGES)} failed (offline?): {proc.stderr.strip()[:200]}")
    script = prefix / "ai_sdk_google.mjs"
    shutil.copy(AI_SDK, script)  # node resolves @ai-sdk/google from the script's folder
    data = prefix / "cases.json"
    data.write_text(json.dumps(_schemas()), encoding="utf-8")
    proc = subprocess.run([NODE, str(script), str(data)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def _code_hits(case: dict[str, Any], host: str, effects: set[str]) -> list[str]:
    verdict = judge_tool(case_tool(case), host)
    return [r.id for r, _ in verdict.hits if r.evidence == "code" and r.effect in effects]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_google_genai_raises_exactly_where_gemini_says_the_listing_fails(
    case: dict[str, Any], provider_results: dict[str, Any]
) -> None:
    genai = provider_results["cases"][case["id"]]["genai"]
    fails = _code_hits(case, "gemini", {"fails-listing"})
    assert bool(genai["raises"]) == bool(fails), (genai["raises"], fails)


@pytest.mark.parametrize("case", CORPUS, ids=[c["id"] for c in CORPUS])
def test_the_corpus_census_agrees_with_the_providers_code(
    case: dict[str, Any], provider_results: dict[str, Any]
) -> None:
    """The census in docs/hosts.md: on every real tool of the corpus, google-genai raises exactly where the gemini
    profile's code rules fail the listing, ensure_strict_json_schema exactly where openai-strict drops the tool."""
    found = provider_results["cases"][case["id"]]
    assert bool(found["genai"]["raises"]) == bool(_code_hits(case, "gemini", {"fails-listing"})), found["genai"]
    assert bool(found["strict"]["raises"]) == bool(_code_hits(case, "openai-strict", {"drops-tool"})), found["strict"]


def test_one_such_tool_fails_the_whole_list(provider_results: dict[str, Any]) -> None:
    assert provider_results["genai_all"] and "AttributeError" in provider_results["genai_all"]


def _at(dump: Any, tokens: list[str]) -> Any:
    """The Schema dump's node for JSON Schema tokens (properties/items/anyOf), or None."""
    for tok in tokens:
        key = {"anyOf": "any_of"}.get(tok, tok)
        if isinstance(dump, list) and tok.isdigit() and int(tok) < len(dump):
            dump = dump[int(tok)]
        elif isinstance(dump, dict) and key in dump:
            dump = dump[key]
        else:
            return None
    return dump


@pytest.mark.parametrize(
    "case", [c for c in CASES if c["host"] == "gemini" and c["state"] == "degraded"], ids=lambda c: c["id"]
)
def test_google_genai_drops_what_gemini_says_it_drops(case: dict[str, Any], provider_results: dict[str, Any]) -> None:
    params = provider_results["cases"][case["id"]]["genai"]["parameters"]
    checked = 0
    for rule, hit in judge_tool(case_tool(case), "gemini").hits:
        tokens = hit.pointer.split("/")[1:]
        if rule.id in ("gemini-dropped-constraint", "gemini-dropped-shape"):
            node = _at(params, tokens[:-1])
            assert isinstance(node, dict), (hit.pointer, params)
            assert SNAKE.get(hit.keyword or "", hit.keyword) not in node and hit.keyword not in node, (
                hit.pointer,
                node,
            )
            if "untyped" in hit.words:
                assert "type" not in node and "any_of" not in node, node
            checked += 1
        elif rule.id == "gemini-recursive-ref":
            node = _at(params, tokens[:-2])  # the array whose items were the recursion
            assert isinstance(node, dict) and "items" not in node, (hit.pointer, params)
            checked += 1
    assert checked


def _takes_null(node: Any) -> bool:
    import jsonschema

    return jsonschema.Draft202012Validator(node).is_valid(None)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_ensure_strict_raises_exactly_where_openai_strict_drops_the_tool(
    case: dict[str, Any], provider_results: dict[str, Any]
) -> None:
    strict = provider_results["cases"][case["id"]]["strict"]
    drops = _code_hits(case, "openai-strict", {"drops-tool"})
    assert bool(strict["raises"]) == bool(drops), (strict["raises"], drops)


@pytest.mark.parametrize(
    "case", [c for c in CASES if c["host"] == "openai-strict" and c["state"] == "degraded"], ids=lambda c: c["id"]
)
def test_ensure_strict_rewrites_what_openai_strict_says_it_rewrites(
    case: dict[str, Any], provider_results: dict[str, Any]
) -> None:
    out = provider_results["cases"][case["id"]]["strict"]["schema"]
    for rule, hit in judge_tool(case_tool(case), "openai-strict").hits:
        node = _at(out, hit.pointer.split("/")[1:])
        if rule.id == "openai-strict-optional-required":
            assert hit.parameter in out["required"], out
            if "already accepts" in hit.words:  # the advice says null stands for none: the converted one takes it
                assert _takes_null(_at(out, hit.pointer.split("/")[1:])), (hit.pointer, out)
        elif rule.id == "openai-strict-free-form-object":
            assert node["additionalProperties"] is False and not node.get("properties"), node
        elif rule.id == "openai-strict-one-of":
            parent = _at(out, hit.pointer.split("/")[1:-1])
            assert "oneOf" not in parent and parent["anyOf"], parent


@pytest.mark.parametrize(
    "case", [c for c in CASES if c["host"] == "gemini" and c["state"] == "degraded"], ids=lambda c: c["id"]
)
def test_ai_sdk_google_drops_the_same_constraints(case: dict[str, Any], ai_sdk_results: dict[str, Any]) -> None:
    result = ai_sdk_results[case["id"]]
    assert "ok" in result, result
    params = result["ok"].get("parameters") or result["ok"].get("parametersJsonSchema")
    for rule, hit in judge_tool(case_tool(case), "gemini").hits:
        if rule.id == "gemini-dropped-constraint" and hit.keyword not in AI_SDK_KEEPS:
            tokens = hit.pointer.split("/")[1:-1]
            node = params
            for tok in tokens:
                node = node[int(tok)] if isinstance(node, list) else node[tok]
            assert hit.keyword not in node, (hit.pointer, node)


@pytest.mark.parametrize("case", [c for c in CASES if c["host"] == "openai-strict"], ids=lambda c: c["id"])
def test_the_openai_sdk_helper_rewrites_alike_and_raises_less(
    case: dict[str, Any], provider_results: dict[str, Any]
) -> None:
    """``openai.lib._pydantic._ensure_strict_json_schema`` (what ``pydantic_function_tool`` runs) makes every
    property required and closes objects as the Agents SDK does; it raises on booleans only and leaves an open
    object, a root union or a $ref beside keywords in place for the API to refuse (the profile's notes)."""
    helper = provider_results["cases"][case["id"]]["openai_helper"]
    hits = judge_tool(case_tool(case), "openai-strict").hits
    booleans = [h for r, h in hits if r.id == "openai-strict-boolean-schema"]
    assert bool(helper["raises"]) == bool(booleans), helper["raises"]
    if helper["raises"]:
        return
    out = helper["schema"]
    for rule, hit in hits:
        if rule.id == "openai-strict-optional-required":
            assert hit.parameter in out["required"], out
        elif rule.id == "openai-strict-open-object":
            node = _at(out, hit.pointer.split("/")[1:])
            assert node is not False, out  # left open


def _params(result: dict[str, Any]) -> Any:
    return result["ok"].get("parameters") or result["ok"].get("parametersJsonSchema")


def test_ai_sdk_google_reads_otherwise_where_the_notes_say(ai_sdk_results: dict[str, Any]) -> None:
    r = ai_sdk_results
    assert "additionalProperties" not in _params(r["gemini/additional-properties-false"])
    assert _params(r["gemini/boolean-property"])["properties"]["v"]["type"] == "boolean"
    assert "ok" in r["gemini/items-array"]
    assert "parametersJsonSchema" in r["gemini/recursive-ref-cut"]["ok"]
    assert _params(r["gemini/min-length-dropped"])["properties"]["code"]["minLength"] == 3
    assert _params(r["gemini/const-dropped"])["properties"]["mode"]["enum"] == ["fast"]
    assert "oneOf" in _params(r["gemini/one-of-dropped"])["properties"]["id"]
    assert "ok" in r["gemini/definitions-ref"]  # it resolves root definitions as well as $defs
    assert "raise" in r["extra/mixed-enum"] and "raise" in r["gemini/remote-ref"]


def _lc(provider_results: dict[str, Any], case_id: str) -> dict[str, Any]:
    result = provider_results["cases"][case_id]["langchain"]
    if result is None:
        pytest.skip("langchain-google-genai is not installed in the provider environment")
    return result


def test_langchain_google_genai_reads_otherwise_where_the_notes_say(provider_results: dict[str, Any]) -> None:
    def props(case_id: str) -> dict[str, Any]:
        result = _lc(provider_results, case_id)
        assert result["raises"] is None, result
        return result["parameters"]["properties"]

    for case_id in ("gemini/additional-properties-false", "gemini/items-array", "gemini/definitions-ref"):
        props(case_id)  # no raise
    assert "v" not in props("gemini/boolean-property")
    assert props("gemini/nullable-and-union-types")["b"] == {"type": "STRING"}
    assert props("gemini/one-of-dropped")["id"] == {"type": "STRING"}
    plain = props("gemini/plain-with-kept-constraints")
    assert "pattern" not in plain["q"] and "format" not in plain["q"] and "minimum" not in plain["n"]
    assert _lc(provider_results, "gemini/remote-ref")["raises"]


@pytest.mark.parametrize(
    "case", [c for c in CASES if c["host"] == "gemini" and c["state"] == "degraded"], ids=lambda c: c["id"]
)
def test_langchain_drops_the_same_constraints(case: dict[str, Any], provider_results: dict[str, Any]) -> None:
    result = _lc(provider_results, case["id"])
    assert result["raises"] is None, result
    for rule, hit in judge_tool(case_tool(case), "gemini").hits:
        if rule.id == "gemini-dropped-constraint":
            node = _at(result["parameters"], hit.pointer.split("/")[1:-1])
            assert isinstance(node, dict) and SNAKE.get(hit.keyword or "", hit.keyword) not in node, (hit.pointer, node)


def test_the_profiles_read_python_only_from_the_standard_schema_model() -> None:
    """The portability package itself never imports a provider SDK (they live in the test venv only)."""
    assert "google.genai" not in sys.modules and "agents" not in sys.modules
    assert judge_tool(Tool({"name": "t", "inputSchema": {"type": "object"}}), "gemini").state == "usable"
