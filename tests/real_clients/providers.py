"""Runs inside a virtual environment holding the providers' own SDKs (``google-genai``, ``openai-agents``): reads
``[{"id", "name", "schema"}]`` on stdin, writes per id what each SDK's MCP path does with the tool on stdout:
``{"genai": {"raises": str|None, "parameters": the converted Schema (JSON)}, "strict": {"raises": str|None,
"schema": the strict schema}, "openai_helper": the same for the ``openai`` SDK's ``_ensure_strict_json_schema``,
"langchain": {"raises", "parameters"}}`` and ``genai_all`` (converting all the tools
at once: the error or None). LangChain's ``langchain-google-genai`` is optional (``langchain`` is None without it)."""

from __future__ import annotations

import copy
import json
import logging
import sys
import types
import warnings

logging.disable(logging.CRITICAL)
warnings.simplefilter("ignore")

from agents.strict_schema import ensure_strict_json_schema  # noqa: E402
from google.genai import _mcp_utils  # noqa: E402


def _tool(name: str, schema: object) -> object:
    return types.SimpleNamespace(name=name, description="d", inputSchema=copy.deepcopy(schema))


def _genai(name: str, schema: object) -> dict[str, object]:
    try:
        tool = _mcp_utils.mcp_to_gemini_tool(_tool(name, schema))
    except Exception as exc:
        return {"raises": f"{type(exc).__name__}: {exc}"[:300], "parameters": None}
    params = tool.function_declarations[0].parameters
    return {"raises": None, "parameters": params.model_dump(mode="json", exclude_none=True) if params else None}


def _langchain(name: str, schema: object) -> dict[str, object] | None:
    try:
        from langchain_google_genai._function_utils import convert_to_genai_function_declarations
    except ImportError:
        return None
    try:
        tools = convert_to_genai_function_declarations(
            [{"name": name, "description": "d", "parameters": copy.deepcopy(schema)}]
        )
    except Exception as exc:
        return {"raises": f"{type(exc).__name__}: {exc}"[:300], "parameters": None}
    params = tools[0].function_declarations[0].parameters
    return {"raises": None, "parameters": params.model_dump(mode="json", exclude_none=True) if params else None}


def _openai_helper(schema: object) -> dict[str, object]:
    """The ``openai`` SDK's own strict helper (behind ``pydantic_function_tool``) on a raw schema."""
    from openai.lib._pydantic import _ensure_strict_json_schema

    raw = copy.deepcopy(schema)
    try:
        out = _ensure_strict_json_schema(raw, path=(), root=raw)  # type: ignore[arg-type]
    except Exception as exc:
        return {"raises": f"{type(exc).__name__}: {exc}"[:300], "schema": None}
    return {"raises": None, "schema": out}


def _strict(schema: object) -> dict[str, object]:
    try:
        return {"raises": None, "schema": ensure_strict_json_schema(copy.deepcopy(schema))}  # type: ignore[arg-type]
    except Exception as exc:
        return {"raises": f"{type(exc).__name__}: {exc}"[:300], "schema": None}


def main() -> None:
    cases = json.load(sys.stdin)
    out = {
        c["id"]: {
            "genai": _genai(c["name"], c["schema"]),
            "strict": _strict(c["schema"]),
            "openai_helper": _openai_helper(c["schema"]),
            "langchain": _langchain(c["name"], c["schema"]),
        }
        for c in cases
    }
    try:
        _mcp_utils.mcp_to_gemini_tools([_tool(c["name"], c["schema"]) for c in cases])
        everything = None
    except Exception as exc:
        everything = f"{type(exc).__name__}: {exc}"[:300]
    json.dump({"cases": out, "genai_all": everything}, sys.stdout)


if __name__ == "__main__":
    main()
