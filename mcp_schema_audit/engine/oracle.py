"""The sampling oracle: a second, independent line of defence, so a gap in the engine is never a silent pass.

After the walk, where the two schemas of a tool differ, the oracle draws a bounded, seeded set of
values the producing side P *declares* (every declared property, each union branch and enum value in
turn, bound edges, ``$ref`` targets) and validates each against the validating side V under each
host profile. It works on the *regions* where the schemas differ (``regions``): identical subtrees
are left out, and an object whose other properties are identical is sampled with the differing ones
only, so a 1,000-property schema with one changed property costs one property. A rejection is
*explained* when a breaking or warning finding sits at (or around) the same place in the instance;
an unexplained one is embedded in a whole instance, confirmed against both whole schemas per host
profile, and becomes a breaking ``sampled-counterexample`` finding with that instance as witness.
When the schemas differ and neither the walk nor the oracle found anything, one info finding says so
(``schema-rewritten``: "equivalent on N samples").

The generator (``draw.Draw``) reads raw schemas with its own code (not ``normalize``), so it does not
share the walk's blind spots. It is deterministic: the seed comes from the tool name and direction.
"""

from __future__ import annotations

import json
import random
import zlib
from typing import Any

from mcp_schema_audit.engine.draw import Draw
from mcp_schema_audit.engine.identity import Identity
from mcp_schema_audit.engine.issue import Budget
from mcp_schema_audit.engine.meter import ORACLE_VALIDATION_BUDGET, Meter
from mcp_schema_audit.engine.nodes import ASSERTIONS, dict_at, well_formed_names
from mcp_schema_audit.engine.nodes import names as required_names
from mcp_schema_audit.engine.sampler import NoSample, sample
from mcp_schema_audit.findings import Finding, make_finding
from mcp_schema_audit.jsontext import canonical, pointer
from mcp_schema_audit.schema import HOST_PROFILES, RefError, SchemaDoc, type_set
from mcp_schema_audit.schema.dialects import subschemas

#: Values drawn per region (a region: a place where the two schemas differ).
SAMPLES_PER_REGION = 12
#: Regions sampled per tool and direction; past it the rest is left to the walk's findings.
MAX_REGIONS = 64
_OBJECT_ONLY = (
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "$ref",
    "$dynamicRef",
    "dependentSchemas",
    "dependentRequired",
    "dependencies",
    "minProperties",
    "maxProperties",
    "unevaluatedProperties",
    "patternProperties",
    "propertyNames",
    "$recursiveRef",
)


class _Region:
    """A place where P and V differ: their subschemas there, where that is in the instance, and (for an object
    whose other properties are identical) the only property names to draw."""

    __slots__ = ("p", "v", "inst", "keys", "p_at", "v_at")

    def __init__(
        self, p: Any, v: Any, inst: list[Any], keys: list[str] | None, p_at: list[Any], v_at: list[Any]
    ) -> None:
        self.p, self.v, self.inst, self.keys, self.p_at, self.v_at = p, v, inst, keys, p_at, v_at


def regions(
    p: Any,
    v: Any,
    ident: Identity,
    inst: list[Any] | None = None,
    depth: int = 0,
    out: list[_Region] | None = None,
    at: tuple[list[Any], list[Any]] = ([], []),
) -> list[_Region]:
    """The regions where raw subschemas ``p`` and ``v`` differ, outermost first: object properties and array
    items are descended into while everything else about the node is the same; anything else is one region.
    ``at``: the schema locations (tokens) of ``p`` and ``v`` in their documents."""
    inst = inst or []
    out = [] if out is None else out
    p_at, v_at = at
    if len(out) >= MAX_REGIONS or ident.identical(p, v):
        return out
    if depth < 32 and _bare_ref(p) and _bare_ref(v):
        # both sides name a definition: the difference is inside the definitions, where the walk goes on
        try:
            (pt, pt_at), (vt, vt_at) = _target(ident.p.doc, p, p_at), _target(ident.v.doc, v, v_at)
        except RefError:
            pass
        else:
            return regions(pt, vt, ident, inst, depth + 1, out, (pt_at, vt_at))
    plain = (
        isinstance(p, dict) and isinstance(v, dict) and depth < 32 and not any(k in p or k in v for k in _OBJECT_ONLY)
    )
    if plain and type_set(p) == type_set(v) == {"object"} and _object_regions(p, v, ident, inst, depth, out, at):
        return out
    if (
        plain
        and type_set(p) == type_set(v) == {"array"}
        and isinstance(p.get("items"), dict)
        and isinstance(v.get("items"), dict)
        and "prefixItems" not in p
        and "prefixItems" not in v
        and "contains" not in p
        and "contains" not in v
        and not p.get("uniqueItems")
        and not v.get("uniqueItems")
    ):
        rest_p = {k: x for k, x in p.items() if k in ASSERTIONS and k != "items"}
        rest_v = {k: x for k, x in v.items() if k in ASSERTIONS and k != "items"}
        if ident.identical(rest_p, rest_v) and not p.get("minItems"):
            return regions(
                p["items"], v["items"], ident, [*inst, 0], depth + 1, out, ([*p_at, "items"], [*v_at, "items"])
            )
    out.append(_Region(p, v, inst, None, p_at, v_at))
    return out


def _object_regions(
    p: dict[str, Any],
    v: dict[str, Any],
    ident: Identity,
    inst: list[Any],
    depth: int,
    out: list[_Region],
    at: tuple[list[Any], list[Any]],
) -> bool:
    """Two object schemas whose keywords other than ``properties`` (and a well-formed ``required``) are
    identical: one region for the properties added, removed or made (not) required, then the regions inside
    each property both declare, appended to ``out``. False (nothing appended) when the other keywords differ."""
    p_at, v_at = at
    pp = dict_at(p, "properties")
    vp = dict_at(v, "properties")
    # what else the node asserts (its $defs and annotations assert nothing about its values)
    # (a malformed ``required``, e.g. holding an object, stays with the rest: compared whole, never split)
    rest_p = {
        k: x
        for k, x in p.items()
        if k in ASSERTIONS and k != "properties" and not (k == "required" and well_formed_names(x))
    }
    rest_v = {
        k: x
        for k, x in v.items()
        if k in ASSERTIONS and k != "properties" and not (k == "required" and well_formed_names(x))
    }
    req_p, req_v = set(required_names(p.get("required"))), set(required_names(v.get("required")))
    if not ident.identical(rest_p, rest_v):
        return False
    changed = [k for k in dict.fromkeys([*pp, *vp]) if k not in pp or k not in vp or (k in req_p) != (k in req_v)]
    if changed:
        out.append(_Region(p, v, inst, changed, p_at, v_at))
    changed_set = set(changed)  # a set: 30,000 keys made required once took O(n²)
    for k in pp:
        if k in vp and k not in changed_set:
            regions(
                pp[k],
                vp[k],
                ident,
                [*inst, k],
                depth + 1,
                out,
                ([*p_at, "properties", k], [*v_at, "properties", k]),
            )
    return True


def _bare_ref(node: Any) -> bool:
    return (
        isinstance(node, dict)
        and isinstance(node.get("$ref"), str)
        and not any(k in ASSERTIONS for k in node if k != "$ref")
    )


def _target(doc: SchemaDoc, node: dict[str, Any], at: list[Any]) -> tuple[Any, list[Any]]:
    """The target of a bare ``$ref`` and its location (the referring node's when the pointer is not local)."""
    target, tokens = doc.lookup(node["$ref"])
    local = not (tokens and str(tokens[0]).startswith("$ref:"))
    return target, list(tokens) if local else at


def _pruned(node: Any, keys: list[str] | None) -> Any:
    """An object region's schema with only the differing properties (the others are identical on both sides)."""
    if keys is None or not isinstance(node, dict):
        return node
    props = dict_at(node, "properties")
    out = dict(node)
    out["properties"] = {k: s for k, s in props.items() if k in keys}
    if isinstance(node.get("required"), list):
        out["required"] = [k for k in node["required"] if isinstance(k, str) and k in keys]
    return out


def _only_by_reference(p: Any, v: Any) -> bool:
    """Are raw nodes ``p`` and ``v`` written alike (so they differ only in what their ``$ref``s name)?"""
    return isinstance(p, dict) and isinstance(v, dict) and canonical(p) == canonical(v)


#: Schema places ``_targets`` visits at most (a region past it is sampled as any other)
_TARGETS_LIMIT = 256


def _targets(doc: SchemaDoc, node: Any) -> list[str]:
    """JSON Pointers of the ``$ref`` targets reachable from ``node`` in ``doc``, following ``$ref`` inside them
    (at most ``_TARGETS_LIMIT`` subschemas visited; each target once)."""
    out: list[str] = []
    stack, seen, visited = [node], set(), 0
    while stack and visited < _TARGETS_LIMIT:
        for _tokens, sub in subschemas(stack.pop(), _TARGETS_LIMIT):
            visited += 1
            ref = sub.get("$ref") if isinstance(sub, dict) else None
            if not isinstance(ref, str) or ref in seen:
                continue
            seen.add(ref)
            try:
                target, tokens = doc.lookup(ref)
            except (RefError, ValueError, TypeError, LookupError):
                continue
            out.append(pointer(tokens))
            stack.append(target)
    return out


def _relates(a: str, b: str) -> bool:
    """Is one JSON Pointer a prefix of the other (the same place, or one inside the other)?"""
    return a == b or a.startswith(b + "/") or b.startswith(a + "/") or a == "" or b == ""


def oracle_findings(
    findings: list[Finding],
    p_doc: SchemaDoc,
    v_doc: SchemaDoc,
    tool: str,
    direction: str,
    ident: Identity | None = None,
) -> list[Finding]:
    """The oracle's findings for one tool and direction whose schemas differ (see the module docstring).

    ``findings`` are the walk's; returns ``sampled-counterexample`` findings (breaking, confirmed per host
    profile) for rejections none of them explains, or one ``schema-rewritten`` info when ``findings`` is
    empty and nothing was found; otherwise ``[]``. Never raises for hostile schemas. Its validations are counted
    on a ``Meter`` of its own (``ORACLE_VALIDATION_BUDGET``: it never takes the budget the walk's findings are
    confirmed and judged with); once that is spent, the oracle stops with what it found.
    """
    try:
        return _oracle(findings, p_doc, v_doc, tool, direction, ident, Meter(ORACLE_VALIDATION_BUDGET))
    except (RecursionError, MemoryError):
        return []


def _oracle(
    findings: list[Finding],
    p_doc: SchemaDoc,
    v_doc: SchemaDoc,
    tool: str,
    direction: str,
    ident: Identity | None,
    meter: Meter,
) -> list[Finding]:
    try:
        p_doc.check_cost()
        v_doc.check_cost()
    except ValueError:
        return []  # an unvalidatable side is reported by compare_schemas
    loud = [f for f in findings if f.severity in ("breaking", "warning")]
    if any(f.instance_pointer is None for f in loud):
        return []  # a schema-level warning (dialect, budget, undecidable root) already covers every value
    places = [f.instance_pointer or "" for f in loud]
    # where the findings are in the schema: a definition reached from several places is reported once (at the
    # first place), and a rejection at another place it reaches is the same change
    schema_places = [f.pointer for f in loud]
    ident = ident or Identity(p_doc, v_doc)
    seed = zlib.crc32(f"{tool}\x1f{direction}".encode("utf-8", "surrogatepass"))
    drawn = 0
    out: list[Finding] = []
    seen: set[str] = set()
    for region in regions(p_doc.root, v_doc.root, ident):
        where = pointer(region.inst)
        if any(_relates(where, place) for place in places):
            continue  # a finding already speaks for this place: any rejection here is explained
        if any(
            _relates(pointer(region.p_at if direction == "output" else region.v_at), place) for place in schema_places
        ):
            continue  # ... or for this place of the schema (a shared $defs entry)
        new_doc, new_node = (p_doc, region.p) if direction == "output" else (v_doc, region.v)
        if _only_by_reference(region.p, region.v) and any(
            _relates(target, place) for target in _targets(new_doc, new_node) for place in schema_places
        ):
            continue  # ... or it differs only in what its $ref names, where a finding already is
        p_node, v_node = _pruned(region.p, region.keys), _pruned(region.v, region.keys)
        # hosts that read this region alike answer alike: one of them asks for all
        hosts = ("python-sdk",) if p_doc.agrees_at(p_node) and v_doc.agrees_at(v_node) else HOST_PROFILES
        check = _Checker(p_doc, p_node, v_doc, v_node, hosts, meter)
        rng = random.Random(seed + len(region.inst))
        tried: set[str] = set()
        for k in range(SAMPLES_PER_REGION):
            try:
                value = Draw(p_doc, rng, k).value(region.p, 0, region.keys)
            except (NoSample, RecursionError, TypeError, ValueError, KeyError, AttributeError):
                continue
            if direction == "input" and not region.inst and not isinstance(value, dict):
                continue  # MCP tool arguments are always an object (CallToolRequest.params.arguments)
            key = json.dumps(value, sort_keys=True, default=str) + type(value).__name__
            if key in tried:
                continue  # the same value drawn again proves nothing new
            tried.add(key)
            drawn += 1
            try:
                if not check.rejected(value):
                    continue
                witness = _embed(p_doc, region.inst, value)
                if witness is None:
                    continue
                new_at = region.p_at if direction == "output" else region.v_at
                f = _confirmed(p_doc, v_doc, witness, pointer(new_at), tool, direction, where, meter)
            except Budget:
                return out  # the oracle's budget is spent: what it found so far (no "equivalent" claim)
            if f is not None and f.fingerprint not in seen:
                seen.add(f.fingerprint)
                out.append(f)
                places.append(where)
                break
    if not findings and not out and drawn:
        f = make_finding(
            "schema-rewritten", tool, "", f"rewritten: equivalent on {drawn} samples", None, None, direction=direction
        )
        out.append(f)
    return out


class _Checker:
    """The hosts that can read one region: does some host accept a value under P's node and reject it under V's?
    V is asked first (most values pass it, and then P need not be asked); the quick reading (``SchemaDoc.quick``)
    answers where it can, the host's validator (built when first needed, once per node) where it cannot."""

    def __init__(
        self, p_doc: SchemaDoc, p_node: Any, v_doc: SchemaDoc, v_node: Any, hosts: tuple[str, ...], meter: Meter
    ) -> None:
        self.hosts: list[str] = []
        self.meter = meter
        self.p_doc, self.p_node, self.v_doc, self.v_node = p_doc, p_node, v_doc, v_node
        for host in hosts:
            try:
                p_doc.ready(host)
                v_doc.ready(host)
            except Exception:  # a host that cannot compile either side decides nothing here
                continue
            self.hosts.append(host)

    def _valid(self, doc: SchemaDoc, node: Any, host: str, value: Any) -> bool:
        self.meter.count_validation(node)
        got = doc.quick(node, value, host)
        return bool(doc.validator_for(node, host).is_valid(value)) if got is None else got

    def rejected(self, value: Any) -> bool:
        for host in self.hosts:
            try:
                if not self._valid(self.v_doc, self.v_node, host, value) and self._valid(
                    self.p_doc, self.p_node, host, value
                ):
                    return True
            except Budget:
                raise
            except Exception:  # undecidable for this host (hostile regex, uncompilable): no verdict
                continue
        return False


def _embed(p_doc: SchemaDoc, inst: list[Any], value: Any) -> Any:
    """A whole instance of P with ``value`` at instance path ``inst`` (objects merged, array item 0)."""
    if not inst:
        return value
    try:
        root = sample(p_doc.root, p_doc)
    except (NoSample, RecursionError, RefError):
        root = {} if isinstance(inst[0], str) else []
    container = root
    for step in inst[:-1]:
        if isinstance(step, str) and isinstance(container, dict):
            container = container.setdefault(step, {})
        elif isinstance(step, int) and isinstance(container, list):
            while len(container) <= step:
                container.append({})
            container = container[step]
        else:
            return None
    last = inst[-1]
    if isinstance(last, str) and isinstance(container, dict):
        old = container.get(last)
        container[last] = {**old, **value} if isinstance(old, dict) and isinstance(value, dict) else value
    elif isinstance(last, int) and isinstance(container, list):
        while len(container) <= last:
            container.append(value)
        container[last] = value
    else:
        return None
    return root


def _confirmed(
    p_doc: SchemaDoc,
    v_doc: SchemaDoc,
    witness: Any,
    schema_ptr: str,
    tool: str,
    direction: str,
    where: str,
    meter: Meter,
) -> Finding | None:
    """A ``sampled-counterexample`` finding when ``witness`` is a value P declares (a full reader accepts it) that
    V rejects for some host; None otherwise. Each validation charged to ``meter`` (raises ``Budget``)."""
    hosts: list[str] = []
    error = ""
    declared = False
    for host in HOST_PROFILES:
        meter.count_validation(p_doc.root)
        meter.count_validation(v_doc.root)
        try:
            accepted = p_doc.accepts(witness, host)
            errs = v_doc.errors(witness, host) if accepted else []
        except (RefError, ValueError, RecursionError):
            continue
        declared = declared or (accepted and host in ("python-sdk", "ts-sdk-v2"))
        if accepted and errs:
            hosts.append(host)
            error = error or errs[0].message
    if not hosts or not declared:
        return None
    side = "new" if direction == "output" else "cached"
    f = make_finding(
        "sampled-counterexample",
        tool,
        schema_ptr,
        f"a value the {side} schema declares at {where or '(root)'} "
        f"is rejected by the other side ({error[:200]}), and no other finding explains it",
        None,
        None,
        direction=direction,
        delta={"instance": where},
    )
    f.hosts = hosts
    f.instance_pointer = where
    f.witness = {
        "instance": witness,
        "accepted_by": "new" if direction == "output" else "old",
        "error": error[:500],
        "instance_pointer": where,
    }
    return f
