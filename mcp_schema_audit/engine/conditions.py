"""Conditionals: ``if``/``then``/``else``, ``dependentSchemas``, ``dependentRequired`` and draft-07
``dependencies`` read as one model (a trigger, what applies when it holds, what applies otherwise),
shared by the comparison of conditionals and by the sampler that completes instances; and where
``unevaluatedProperties`` beside them is left undecided (``unmodelled_evaluation``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcp_schema_audit.engine.issue import Issue, canon
from mcp_schema_audit.wording import Text


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


#: Keywords beside ``unevaluatedProperties`` that evaluate properties in ways the walk does not merge into the
#: node: a conditional's branches, a dependent schema, a union member left unmerged (``merge``).
_EVALUATING_BESIDE = ("if", "then", "else", "dependentSchemas", "dependencies", "allOf", "anyOf", "oneOf", "not")
_OBJECT_KEYWORDS = ('"properties"', '"patternProperties"', '"additionalProperties"', '"unevaluatedProperties"')


def unmodelled_evaluation(p: dict[str, Any], v: dict[str, Any]) -> list[Issue]:
    """An ``undecidable`` issue for a pair where either side's ``unevaluatedProperties`` sees properties evaluated
    by a conditional, a dependent schema or an unmerged union member that declares object keywords: which keys
    that side closes depends on the value, which the walk does not follow (an attack release added ``then:
    {properties: {z: {}}}`` beside ``unevaluatedProperties: false``, and the walk called it a tightening). The
    rest of the pair is still compared."""
    if canon(p.get("unevaluatedProperties")) == canon(v.get("unevaluatedProperties")) and all(
        canon(p.get(k)) == canon(v.get(k)) for k in _EVALUATING_BESIDE
    ):
        return []  # the same evaluation on both sides: the walk's comparisons of the rest stand
    for node in (p, v):
        if "unevaluatedProperties" not in node:
            continue
        beside = [k for k in _EVALUATING_BESIDE if k in node and any(o in canon(node[k]) for o in _OBJECT_KEYWORDS)]
        if beside:
            return [
                Issue(
                    "undecidable",
                    ["unevaluatedProperties"] if "unevaluatedProperties" in p else [],
                    ["unevaluatedProperties"] if "unevaluatedProperties" in v else [],
                    None,
                    None,
                    Text.of(
                        "unevaluatedProperties beside {beside} that evaluate properties depending on the value: "
                        "which keys it refuses is not modelled",
                        beside=", ".join(beside),
                    ),
                )
            ]
    return []
