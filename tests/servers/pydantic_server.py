"""A Python SDK ``MCPServer`` (pydantic) whose tools answer with the arguments they received (JSON text).

usage: python pydantic_server.py RELEASE   (RELEASE old|new: the two versions tests/test_server_validators.py
audits). ``nested_forbid`` takes a model with ``extra="forbid"``, ``nested_ignore`` one with pydantic's default.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, ConfigDict, Field, StringConstraints


class Opts(BaseModel):
    model_config = ConfigDict(extra="forbid")
    x: str
    y: str | None = None


class OptsNew(BaseModel):
    model_config = ConfigDict(extra="forbid")
    x: str


class Loose(BaseModel):
    x: str
    y: str | None = None


class LooseNew(BaseModel):
    x: str


app = MCPServer("pydantic-validators")


def tool(fn):  # type: ignore[no-untyped-def]
    return app.tool(name=fn.__name__.removesuffix("_"))(fn)


if sys.argv[1] == "old":

    @tool
    def drop_optional(a: str, b: str | None = None) -> str:
        return json.dumps({"a": a, "b": b})

    @tool
    def renamed(query: str) -> str:
        return json.dumps({"query": query})

    @tool
    def required_added(a: str) -> str:
        return json.dumps({"a": a})

    @tool
    def type_narrowed(n: float) -> str:
        return json.dumps({"n": n})

    @tool
    def enum_narrowed(e: Literal["a", "b", "c"]) -> str:
        return json.dumps({"e": e})

    @tool
    def nested_forbid(opts: Opts) -> str:
        return opts.model_dump_json()

    @tool
    def nested_ignore(opts: Loose) -> str:
        return opts.model_dump_json()

    @tool
    def str_to_int(n: str) -> str:
        return json.dumps({"n": n})

    @tool
    def min_length(s: str) -> str:
        return json.dumps({"s": s})

    @tool
    def bool_to_int(x: int | bool) -> str:
        return json.dumps({"x": x})

    @tool
    def bool_to_literal(x: bool) -> str:
        return json.dumps({"x": x})

    @tool
    def pattern_set_operation(s: str = Field(pattern="^[a-z]+$")) -> str:
        return json.dumps({"s": s})

    @tool
    def pattern_inline_flag(s: str = Field(pattern="^a(?i)b$")) -> str:  # Rust regex: case-blind from (?i) on
        return json.dumps({"s": s})

    @tool
    def dict_keys_constrained(d: dict[str, int]) -> str:
        return json.dumps({"d": d})

    @tool
    def step_float(x: Literal[0.3, 0.7]) -> str:
        return json.dumps({"x": x})

    @tool
    def list_to_set(x: list[int]) -> str:
        return json.dumps({"x": x})

    @tool
    def step_added(x: float) -> str:
        return json.dumps({"x": x})

    @tool
    def int_to_bool(x: int) -> str:
        return json.dumps({"x": x})

    @tool
    def dict_values_narrowed(d: dict[Annotated[str, StringConstraints(pattern="^a")], float]) -> str:
        return json.dumps({"d": d})

    @tool
    def dict_keys_set_operation(d: dict[Annotated[str, StringConstraints(pattern="^[a-z]+$")], int]) -> str:
        return json.dumps({"d": d})

else:

    @tool
    def drop_optional(a: str) -> str:
        return json.dumps({"a": a})

    @tool
    def renamed(q: str) -> str:
        return json.dumps({"q": q})

    @tool
    def required_added(a: str, d: str) -> str:
        return json.dumps({"a": a, "d": d})

    @tool
    def type_narrowed(n: int) -> str:
        return json.dumps({"n": n})

    @tool
    def enum_narrowed(e: Literal["a", "b"]) -> str:
        return json.dumps({"e": e})

    @tool
    def nested_forbid(opts: OptsNew) -> str:
        return opts.model_dump_json()

    @tool
    def nested_ignore(opts: LooseNew) -> str:
        return opts.model_dump_json()

    @tool
    def str_to_int(n: int) -> str:
        return json.dumps({"n": n})

    @tool
    def min_length(s: str = Field(min_length=3)) -> str:
        return json.dumps({"s": s})

    @tool
    def bool_to_int(x: int) -> str:  # lax mode: true is taken as 1
        return json.dumps({"x": x})

    @tool
    def bool_to_literal(x: Literal[0, 1]) -> str:  # Literal compares with ==: true is 1, false 0
        return json.dumps({"x": x})

    @tool
    def pattern_set_operation(s: str = Field(pattern="^[a-z--c]+$")) -> str:  # Rust regex: a-z except c
        return json.dumps({"s": s})

    @tool
    def pattern_inline_flag(s: str = Field(pattern="^ab$")) -> str:
        return json.dumps({"s": s})

    @tool
    def step_float(x: float = Field(multiple_of=0.1)) -> str:  # pydantic-core's remainder takes 0.3 and 0.7
        return json.dumps({"x": x})

    @tool
    def list_to_set(x: set[int]) -> str:  # listed uniqueItems: true; pydantic drops duplicates
        return json.dumps({"x": sorted(x)})

    @tool
    def step_added(x: float = Field(multiple_of=0.5)) -> str:
        return json.dumps({"x": x})

    @tool
    def int_to_bool(x: bool) -> str:  # lax mode takes 0 and 1 as booleans, not 2
        return json.dumps({"x": x})

    @tool
    def dict_keys_constrained(d: dict[Annotated[str, StringConstraints(pattern="^a")], int]) -> str:
        return json.dumps({"d": d})  # listed as patternProperties; pydantic rejects a key "^a" does not match

    @tool
    def dict_values_narrowed(d: dict[Annotated[str, StringConstraints(pattern="^a")], int]) -> str:
        return json.dumps({"d": d})

    @tool
    def dict_keys_set_operation(d: dict[Annotated[str, StringConstraints(pattern="^[a-z--c]+$")], int]) -> str:
        return json.dumps({"d": d})  # Rust regex: keys of a-z but c


app.run()
