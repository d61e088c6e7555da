"""Conditionals: ``if``/``then``/``else``, ``dependentSchemas``, ``dependentRequired`` and draft-07
``dependencies`` read as one model (a trigger, what applies when it holds, what applies otherwise),
shared by the comparison of conditionals and by the sampler that completes instances."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcp_schema_audit.engine.issue import canon


@dataclass
class Cond:
    """One conditional: when ``if_`` matches, ``then`` applies, else ``else_`` (``True`` = no constraint)."""

    key: str  # identity across versions: "if:<canonical if>" or "dep:<property>"
    if_: Any
    then: Any
    else_: Any
    then_steps: list[Any]
    else_steps: list[Any]
    steps: list[Any]  # where the conditional itself lives (for findings about all of it)


def conditionals(node: dict[str, Any], legacy: bool = True) -> list[Cond]:
    """The conditionals of ``node``, one per trigger.

    ``if``/``then``/``else``; one per ``dependentSchemas`` and ``dependentRequired`` entry (and per
    draft-07 ``dependencies`` entry, schema or array): ``{"required": [key]}`` → the schema, or →
    ``{"required": [...]}``. Spellings of one trigger share a key, so they compare as equal: ``"dep:K"``
    for a dependency on K and for ``if: {"required": ["K"]}`` without ``else``; entries of one trigger
    are combined with ``allOf``. ``legacy=False`` leaves draft-07 ``dependencies`` out.
    """
    found: dict[str, Cond] = {}

    def add(c: Cond) -> None:
        if c.key in found:
            old = found[c.key]
            found[c.key] = Cond(
                c.key,
                old.if_,
                {"allOf": [old.then, c.then]},
                {"allOf": [old.else_, c.else_]},
                old.then_steps,
                old.else_steps,
                old.steps,
            )
        else:
            found[c.key] = c

    if "if" in node and ("then" in node or "else" in node):
        test = node["if"]
        req = test.get("required") if isinstance(test, dict) else None
        if (
            isinstance(req, list)
            and len(req) == 1
            and isinstance(req[0], str)
            and set(test) == {"required"}
            and "else" not in node
            and node.get("type") == "object"
        ):  # non-objects meet the if, not a dependency
            key = "dep:" + req[0]
        else:
            key = "if:" + canon(test)
        add(Cond(key, test, node.get("then", True), node.get("else", True), ["then"], ["else"], ["if"]))
    for kw in ("dependentSchemas", "dependentRequired") + (("dependencies",) if legacy else ()):
        deps = node.get(kw)
        if not isinstance(deps, dict):
            continue
        for key, sub in deps.items():
            if isinstance(sub, list):
                sub = {"required": [k for k in sub if isinstance(k, str)]}
            if isinstance(sub, (dict, bool)):
                add(Cond("dep:" + key, {"required": [key]}, sub, True, [kw, key], [], [kw, key]))
    return list(found.values())
