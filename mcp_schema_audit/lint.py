"""Hazard lint of one snapshot, and listing-time breakers (schemas that make a host drop the whole tools/list).

``listing_breakers`` is shared with ``diff``: a new version that introduces one is breaking.
``lint_snapshot`` reports what will break cached hosts at the *next* release: closed output objects
and output value sets (warnings), listing-time breakers and metaschema-invalid schemas (breaking),
2020-12-only keywords that draft-07 hosts ignore (warnings), required-set drift from a baseline, invalid
``x-mcp-header`` annotations (breaking: Streamable HTTP clients drop the tool), Deprecated protocol features in
use, and (with a baseline of the same release captured with other credentials) a ``cacheScope: "public"`` list
that differs between the two.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import orjson

from mcp_schema_audit import fastpaths
from mcp_schema_audit.fastpaths import ContentCache
from mcp_schema_audit.findings import Finding, make_finding
from mcp_schema_audit.jsontext import canonical, pointer
from mcp_schema_audit.schema import HOST_PROFILES, MODERN_ONLY_KEYWORDS, RefError, SchemaDoc, oversized
from mcp_schema_audit.schema.dialects import subschemas
from mcp_schema_audit.schema.metacheck import METASCHEMA_MAX_NODES
from mcp_schema_audit.schema.reach import unvalidatable
from mcp_schema_audit.snapshot import Snapshot
from mcp_schema_audit.surfaces.caching import public_scope_findings
from mcp_schema_audit.surfaces.deprecated import deprecation_findings
from mcp_schema_audit.surfaces.headers import header_problems
from mcp_schema_audit.vocabulary import direction_rank

#: Subschemas visited per schema before the walk stops (bounded work on hostile input).
MAX_NODES = 100_000
_LEGACY_ERA = re.compile(r"^20(24|25)-")


def walk(schema: Any, max_nodes: int = MAX_NODES) -> Iterator[tuple[list[Any], Any]]:
    """Yield ``(pointer_tokens, subschema)`` for every subschema, the root first (``schema.subschemas``)."""
    return subschemas(schema, max_nodes)


def _witness(tool: dict[str, Any], error: str, ptr: str) -> dict[str, Any]:
    return {
        "instance": {k: tool.get(k) for k in ("name", "inputSchema", "outputSchema") if k in tool},
        "accepted_by": "new",
        "error": error[:500],
        "instance_pointer": ptr,
    }


def listing_breakers(tool: dict[str, Any], protocol_version: str | None) -> list[Finding]:
    """Schema shapes that make SDK clients reject a tools/list (or every call of this tool).

    Returns breaking findings with ``hosts`` and a witness whose instance is the tool entry and
    whose error is what the client says. ``protocol_version`` None is treated as the legacy era.
    """
    name = tool["name"]
    out: list[Finding] = []
    inp = tool.get("inputSchema")
    if not isinstance(inp, dict) or inp.get("type") != "object":
        missing = "inputSchema" not in tool
        f = make_finding(
            "input-schema-not-object",
            name,
            "" if missing else "/type",
            (
                "the tool has no inputSchema (MCP requires one, with type 'object'): SDK clients reject the whole "
                "tools/list"
                if missing
                else "inputSchema must have type 'object': SDK clients reject the whole tools/list"
            ),
            None,
            inp.get("type") if isinstance(inp, dict) else inp,
            direction="input",
        )
        f.hosts, f.witness = (
            list(HOST_PROFILES),
            _witness(
                tool,
                "inputSchema is required" if missing else "inputSchema.type must be 'object'",
                "/inputSchema" if missing else "/inputSchema/type",
            ),
        )
        out.append(f)
    outs = tool.get("outputSchema")
    legacy = protocol_version is None or bool(_LEGACY_ERA.match(protocol_version))
    if outs is not None and legacy and not (isinstance(outs, dict) and outs.get("type") == "object"):
        era = f"protocol {protocol_version}" if protocol_version else "a legacy (or unrecorded) protocol version"
        f = make_finding(
            "output-schema-not-object",
            name,
            "/type",
            f"outputSchema root is not type 'object' on {era}",
            None,
            outs.get("type") if isinstance(outs, dict) else outs,
            direction="output",
        )
        f.hosts, f.witness = (
            list(HOST_PROFILES),
            _witness(tool, "outputSchema.type must be 'object'", "/outputSchema/type"),
        )
        out.append(f)
    for direction, schema in (("input", inp), ("output", outs)):
        if isinstance(schema, dict) and isinstance(schema.get("properties"), dict):
            for key, sub in schema["properties"].items():
                if isinstance(sub, bool):
                    ptr = pointer(["properties", key])
                    f = make_finding(
                        "schema-boolean-property",
                        name,
                        ptr,
                        f"{direction}Schema property {key!r} is a boolean schema",
                        None,
                        sub,
                        direction=direction,
                    )
                    f.hosts = ["ts-sdk-v1"]
                    f.witness = _witness(tool, "Expected object, received boolean", f"/{direction}Schema{ptr}")
                    out.append(f)
    uncompilable = compile_problems(outs) if outs is not None else {}
    by_problem: dict[tuple[str, str], list[str]] = {}
    for profile, problem in uncompilable.items():
        by_problem.setdefault(problem, []).append(profile)
    for (ptr, why), hosts in by_problem.items():
        f = make_finding("output-schema-uncompilable", name, ptr, why, None, None, direction="output")
        f.hosts, f.witness = hosts, _witness(tool, why, "/outputSchema" + ptr)
        out.append(f)
    compiled = set(HOST_PROFILES) - set(uncompilable)
    endless: dict[tuple[str, str], list[str]] = {}
    for profile, (ptr, why) in (unvalidatable(outs, compiled) if outs is not None and compiled else {}).items():
        endless.setdefault((ptr, f"{why}: validating any result never ends"), []).append(profile)
    for (ptr, why), hosts in endless.items():
        f = make_finding("output-schema-unvalidatable", name, ptr, why, None, None, direction="output")
        f.hosts, f.witness = hosts, _witness(tool, why, "/outputSchema" + ptr)
        out.append(f)
    for direction, schema in (("input", inp), ("output", outs)):
        if schema is None or (direction == "output" and "python-sdk" in uncompilable):
            continue
        invalid = metaschema_problem(schema)
        if invalid:
            f = make_finding(
                "schema-metaschema-invalid", name, "", f"{direction}Schema: {invalid}", None, None, direction=direction
            )
            f.witness = _witness(tool, invalid, f"/{direction}Schema")
            if direction == "output":
                f.hosts = ["python-sdk"]  # its client runs check_schema on each outputSchema before a call's result
            else:  # no SDK client checks an inputSchema (the real clients list the tool and call it)
                f.severity, f.reason = "warning", INPUT_METASCHEMA_UNCHECKED
            out.append(f)
    return out


#: The reason of ``schema-metaschema-invalid`` on an inputSchema: a warning that names no client (checked against
#: the real python-sdk, TS SDK v1 and v2 clients in tests/test_real_clients.py).
INPUT_METASCHEMA_UNCHECKED = (
    "no SDK client checks an inputSchema against its metaschema (python-sdk runs check_schema on outputSchemas "
    "only): hosts list the tool and call it; a server or model provider that validates with this schema may refuse it"
)


def compile_problems(schema: Any) -> dict[str, tuple[str, str]]:
    """``{host profile: (pointer, reason)}`` for each profile whose host cannot compile ``schema``.

    A ``$ref`` that does not resolve locally (remote refs are never fetched) stops every profile.
    Otherwise each profile's own compiler decides (``SchemaDoc.compile_problem``): Python ``re`` for
    ``python-sdk``, Ajv's rules for the TS profiles (ECMAScript regexes with the ``u`` flag,
    ``nullable`` without ``type``, keyword values of the wrong type, an unsupported dialect for
    ``ts-sdk-v2``). Profiles that compile it are absent.
    """
    try:
        key: bytes | None = orjson.dumps(schema)  # exact text: the first unresolvable $ref in walk order
    except (orjson.JSONEncodeError, TypeError):
        key = None
    if key is None:
        return _compile_problems(schema)
    return dict(COMPILE_CACHE.get(key, lambda: _compile_problems(schema)))


#: ``compile_problems`` per exact schema text (a model many tools return is compiled once per run).
COMPILE_CACHE: ContentCache[dict[str, tuple[str, str]]] = ContentCache(1024)


def _compile_problems(schema: Any) -> dict[str, tuple[str, str]]:
    doc = SchemaDoc(schema)
    for tokens, node in walk(schema) if '"$ref"' in doc.canonical else ():
        ref = node.get("$ref") if isinstance(node, dict) else None
        if isinstance(ref, str):
            try:
                doc.lookup(ref)
            except RefError as exc:
                return {profile: (pointer(tokens + ["$ref"]), str(exc)) for profile in HOST_PROFILES}
    out: dict[str, tuple[str, str]] = {}
    for profile in HOST_PROFILES:
        problem = doc.compile_problem(profile)
        if problem is not None:
            out[profile] = problem
    return out


def metaschema_problem(schema: Any) -> str | None:
    """Why ``schema`` is invalid against its dialect's metaschema, or None (also for huge schemas).

    The fast path (``schema.metacheck.surely_valid``) settles the common case; the full ``check_schema`` runs
    only when it is not sure, once per distinct schema text (cached), and gives the precise error."""
    from mcp_schema_audit.schema import dialect_of
    from mcp_schema_audit.schema.metacheck import surely_valid_cached

    if fastpaths.enabled() and surely_valid_cached(schema, canonical(schema), dialect_of(schema), METASCHEMA_MAX_NODES):
        return None
    return METASCHEMA_CACHE.get(canonical(schema), lambda: _full_metaschema_problem(schema))


#: ``_full_metaschema_problem`` per schema text.
METASCHEMA_CACHE: ContentCache[str | None] = ContentCache(1024)


def _oversized_pattern(node: Any) -> bool:
    if not isinstance(node, dict):
        return False
    pats = [node["pattern"]] if isinstance(node.get("pattern"), str) else []
    pats += list(node["patternProperties"]) if isinstance(node.get("patternProperties"), dict) else []
    return any(oversized(p) is not None for p in pats)


def _full_metaschema_problem(schema: Any) -> str | None:
    from jsonschema import exceptions as jexc
    from jsonschema import validators

    nodes = [node for _, node in walk(schema, METASCHEMA_MAX_NODES + 1)]
    if len(nodes) > METASCHEMA_MAX_NODES or any(_oversized_pattern(node) for node in nodes):
        return None  # too big to check (jsonschema's "regex" format would hand the pattern to re.compile)

    try:
        cls = (
            validators.validator_for(schema, default=validators.Draft202012Validator)
            if isinstance(schema, dict) and isinstance(schema.get("$schema", ""), str)
            else validators.Draft202012Validator
        )
        cls.check_schema(schema)
    except jexc.SchemaError as exc:
        return f"{exc.message[:200]} at {pointer(list(exc.absolute_path)) or '(root)'}"
    except (RecursionError, ValueError, TypeError, OverflowError, MemoryError) as exc:
        # OverflowError: a counted repeat of 2**32 or more, which re.compile (jsonschema's "regex" format) cannot hold
        detail = f": {exc}" if isinstance(exc, OverflowError) else ""
        return f"cannot be checked: {type(exc).__name__}{detail}"
    return None


#: Keywords whose subschemas test or exclude values instead of describing results.
_TESTS_NOT_VALUES = ("not", "if", "contains", "propertyNames", "dependentSchemas")


def lint_snapshot(snap: Snapshot, *, baseline: Snapshot | None = None) -> list[Finding]:
    """Hazard findings for one snapshot, sorted by (tool, direction, pointer, rule).

    ``baseline``: output required sets must equal the baseline's at the same pointer.
    """
    out: list[Finding] = []
    base_tools = baseline.tool_map() if baseline is not None else {}
    for tool in snap.tools:
        name = tool["name"]
        out += listing_breakers(tool, snap.protocol_version)
        for direction in ("input", "output"):
            schema = tool.get(f"{direction}Schema")
            if schema is None:
                continue
            dialect = SchemaDoc(schema).dialect
            for tokens, node in walk(schema):
                if not isinstance(node, dict):
                    continue
                ptr = pointer(tokens)
                if dialect in ("2020-12", "2019-09"):
                    for kw in MODERN_ONLY_KEYWORDS:
                        if kw in node:
                            out.append(
                                make_finding(
                                    "dialect-portability",
                                    name,
                                    pointer(tokens + [kw]),
                                    f"{kw} is ignored by ts-sdk-v1 (draft-07 Ajv)",
                                    None,
                                    node[kw],
                                    direction=direction,
                                )
                            )
                if direction != "output" or any(t in _TESTS_NOT_VALUES for t in tokens if isinstance(t, str)):
                    continue  # inside not/if/contains …: a condition or an exclusion, not what results look like
                for kw in ("additionalProperties", "unevaluatedProperties"):
                    if node.get(kw) is False:
                        out.append(
                            make_finding(
                                "output-closed-object-hazard",
                                name,
                                pointer(tokens + [kw]),
                                "closed object: any field added later breaks cached hosts",
                                None,
                                False,
                            )
                        )
                for kw in ("enum", "const"):
                    if kw in node:
                        out.append(
                            make_finding(
                                "output-value-set-hazard",
                                name,
                                pointer(tokens + [kw]),
                                f"{kw}: any value added later breaks cached hosts",
                                None,
                                node[kw],
                            )
                        )
                if baseline is not None and "required" in node or (baseline is not None and "properties" in node):
                    out += _required_drift(name, tokens, node, base_tools.get(name), ptr)
        out += header_problems(tool)
    server = deprecation_findings(snap) + (public_scope_findings(snap, baseline) if baseline is not None else [])
    return sorted(out, key=lambda f: (f.tool, direction_rank(f.direction), f.pointer, f.rule)) + server


def _required_drift(
    name: str, tokens: list[Any], node: dict[str, Any], base_tool: dict[str, Any] | None, ptr: str
) -> list[Finding]:
    if base_tool is None or not isinstance(base_tool.get("outputSchema"), dict):
        return []
    base_node: Any = base_tool["outputSchema"]
    for tok in tokens:
        in_list = isinstance(base_node, list) and isinstance(tok, int) and tok < len(base_node)
        if isinstance(base_node, dict) and tok in base_node or in_list:
            base_node = base_node[tok]
        else:
            return []
    if not isinstance(base_node, dict):
        return []
    now = (
        {x for x in node.get("required", []) if isinstance(x, str)} if isinstance(node.get("required"), list) else set()
    )
    then = (
        {x for x in base_node.get("required", []) if isinstance(x, str)}
        if isinstance(base_node.get("required"), list)
        else set()
    )
    out = []
    for key in sorted(now - then):
        out.append(
            make_finding(
                "output-required-drift",
                name,
                pointer(tokens + ["properties", key]),
                f"{key!r} is required now but not in the baseline",
                False,
                True,
            )
        )
    for key in sorted(then - now):
        out.append(
            make_finding(
                "output-required-drift",
                name,
                pointer(tokens + ["properties", key]),
                f"{key!r} was required in the baseline and is not now",
                True,
                False,
            )
        )
    return out
