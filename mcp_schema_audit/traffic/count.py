"""How many recorded calls each change breaks (``--traffic``), and the breaks only the traffic shows.

``tally`` reads the calls once, for every cached version at a time, and counts per tool:

- input: calls with an arguments object; of those, the ones the cached inputSchema accepts (what a host
  that cached it may send) and the new version's server rejects (its inputSchema read by its own validator,
  ``engine.servers.judge``): affected;
- output: results held against the cached outputSchema (complete, not ``isError``, of a tool the cached
  version gives one); of those, the ones some host profile rejects (``probe.hosts.host_verdict``): affected;
- every call, for findings about the tool as a whole (``tool-removed``: every call is affected).

``annotate`` then gives every tool finding ``traffic: {"calls": M, "affected": N}`` for its tool and
direction, and adds a breaking finding with the real call as witness where the traffic proves a break the
schema comparison did not report for that tool and direction: ``result-rejected-by-cached-schema`` (as
``--samples`` does) and ``input-recorded-call-rejected``. ``threshold`` is the policy on traffic.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

import orjson

from mcp_schema_audit.capture.target import masked, scrub_secrets, secrets_in
from mcp_schema_audit.engine.servers import ServerValidator, judge, server_view
from mcp_schema_audit.errors import UsageError
from mcp_schema_audit.findings import Finding, make_finding
from mcp_schema_audit.probe import cap_instance, check_records
from mcp_schema_audit.probe.hosts import host_verdict
from mcp_schema_audit.schema import HOST_PROFILES, SchemaDoc
from mcp_schema_audit.snapshot import Snapshot
from mcp_schema_audit.traffic.read import Call
from mcp_schema_audit.words import plural

#: What a rejected recorded result becomes (``probe.check_records``): rejected by the cached outputSchema, or by
#: the tool's current one too.
_RESULT_RULES = ("result-rejected-by-cached-schema", "result-violates-own-schema")
#: Verdicts remembered per tool and direction (then the memory starts again).
MEMO = 20_000
#: Rejected results kept per tool and cohort to build the traffic-only finding from (the count goes on).
KEPT = 3


@dataclass
class Usage:
    """One tool's recorded calls as seen by hosts of one cached version (see the module docstring)."""

    calls: int = 0
    inputs: int = 0
    inputs_affected: int = 0
    outputs: int = 0
    outputs_affected: int = 0
    input_witness: tuple[Call, str] | None = None
    rejected: list[dict[str, Any]] = field(default_factory=list)


class _Tool:
    """What one (cached, served) pair needs to judge calls of one tool, compiled once."""

    def __init__(self, name: str, cached: dict[str, Any] | None, served: dict[str, Any] | None, v: ServerValidator):
        from jsonschema import FormatChecker
        from jsonschema.validators import validator_for

        self.name, self.validator = name, v
        self.present = cached is not None and served is not None
        old_in = (cached or {}).get("inputSchema")
        new_in = (served or {}).get("inputSchema")
        self.new_in = new_in
        self.old_in = _Reading(old_in, _compiled(validator_for, old_in, None), quick=True)
        view = server_view(v, new_in) if isinstance(new_in, dict) else None
        # the view is checked with formats asserted: the quick reading (formats ignored) only where none is used
        quick = '"format"' not in orjson.dumps(view).decode() if view is not None else False
        self.new_view = _Reading(view, _compiled(validator_for, view, FormatChecker()), quick=quick)
        # a rejection of the view is the server's own when it converts nothing and reads formats as the view does
        self.view_decides = not v.coerces and (quick or v.wording != "jsonschema")
        out = (cached or {}).get("outputSchema")
        self.old_out = SchemaDoc(out) if isinstance(out, (dict, bool)) else None
        self.compiled: set[str] = set()
        #: verdicts of values seen before (real traffic repeats itself), by their JSON text; at most ``MEMO`` each
        self.seen_inputs: dict[bytes, str | None] = {}
        self.seen_outputs: dict[bytes, bool] = {}

    def input_verdict(self, arguments: Any, words: bool) -> str | None:
        """``input_rejected``, remembered for arguments seen before."""
        key = _key(arguments)
        if key is not None and key in self.seen_inputs:
            return self.seen_inputs[key]
        verdict = self.input_rejected(arguments, words)
        if key is not None:
            _remember(self.seen_inputs, key, verdict)
        return verdict

    def output_verdict(self, result: dict[str, Any]) -> bool:
        """``output_rejected``, remembered for results seen before."""
        key = _key(result)
        if key is not None and key in self.seen_outputs:
            return self.seen_outputs[key]
        verdict = self.output_rejected(result)
        if key is not None:
            _remember(self.seen_outputs, key, verdict)
        return verdict

    def input_rejected(self, arguments: Any, words: bool) -> str | None:
        """The new server's error for ``arguments`` the cached schema allows (``""`` unless ``words``: only whether
        it rejects them), None when not affected."""
        if not self.old_in.valid(arguments) or self.new_view.valid(arguments) is not False:
            return None
        if not words and self.view_decides:
            return ""
        outcome = judge(self.validator, self.new_in, arguments)
        return outcome.error if outcome.rejected else None

    def output_rejected(self, result: dict[str, Any]) -> bool:
        doc = self.old_out
        sc = result.get("structuredContent")
        if doc is not None and isinstance(sc, dict) and len(self.compiled) == len(HOST_PROFILES):
            answers = [doc.quick(doc.root, sc, p, True) for p in HOST_PROFILES]
            if all(a is not None for a in answers):
                return not all(answers)
        verdicts = [host_verdict(p, self.name, doc, result) for p in HOST_PROFILES]
        if doc is not None and isinstance(sc, dict):
            self.compiled.update(HOST_PROFILES)  # every profile's validator was built: quick may answer now
        return any(v.rejected for v in verdicts)


class _Reading:
    """One schema as a validator reads it: ``valid`` is True/False, or None when there is no usable schema."""

    def __init__(self, schema: Any, validator: Any, *, quick: bool) -> None:
        self.validator = validator
        self.doc = SchemaDoc(schema) if quick and validator is not None and isinstance(schema, dict) else None
        if self.doc is not None:
            try:
                self.doc.validator("python-sdk")  # quick answers only for a document its validator takes
            except Exception:  # noqa: BLE001 - then the validator decides every call
                self.doc = None

    def valid(self, instance: Any) -> bool | None:
        if self.validator is None:
            return None
        if self.doc is not None:
            answer = self.doc.quick(self.doc.root, instance, "python-sdk", True)
            if answer is not None:
                return answer
        return _valid(self.validator, instance)


def tally(
    calls: Iterable[Call],
    served: Snapshot,
    cached: list[Snapshot],
    validator: ServerValidator,
    progress: Callable[[int], None] | None = None,
) -> dict[str, dict[str, Usage]]:
    """``{cached label: {tool: Usage}}`` for the recorded ``calls`` (one pass), hosts of each version in
    ``cached`` talking to the server of ``served``."""
    new_tools = served.tool_map()
    judges: list[tuple[str, dict[str, Any], dict[str, _Tool]]] = [(c.label, c.tool_map(), {}) for c in cached]
    out: dict[str, dict[str, Usage]] = {c.label: {} for c in cached}
    for n, call in enumerate(calls, start=1):
        if progress is not None and n % 5000 == 0:
            progress(n)
        for label, old_tools, compiled in judges:
            tool = compiled.get(call.tool)
            if tool is None:
                tool = compiled[call.tool] = _Tool(
                    call.tool, old_tools.get(call.tool), new_tools.get(call.tool), validator
                )
            usage = out[label].setdefault(call.tool, Usage())
            usage.calls += 1
            if isinstance(call.arguments, dict) and tool.present:
                usage.inputs += 1
                error = tool.input_verdict(call.arguments, usage.input_witness is None)
                if error is not None:
                    usage.inputs_affected += 1
                    if usage.input_witness is None:
                        usage.input_witness = (call, error)
            result = call.result
            if (
                tool.old_out is not None
                and result is not None
                and result.get("resultType") in (None, "complete")
                and result.get("isError") is not True
            ):
                usage.outputs += 1
                if tool.output_verdict(result):
                    usage.outputs_affected += 1
                    if len(usage.rejected) < KEPT:
                        usage.rejected.append(
                            {"id": call.where, "tool": call.tool, "outcome": "result", "result": masked(result)}
                        )
    return out


def annotate(findings: list[Finding], usage: dict[str, Usage], served: Snapshot, cached: Snapshot) -> list[Finding]:
    """``findings`` (one cached version's) with ``traffic`` on every tool finding, plus the findings only the
    traffic proves (see the module docstring), in the order given (the added ones last)."""
    covered = {(f.tool, f.direction) for f in findings if f.surface == "tool" and f.severity == "breaking"}
    out = [_counted(f, usage.get(f.tool)) if f.surface == "tool" and f.tool else f for f in findings]
    for tool, u in sorted(usage.items()):
        if u.rejected and (tool, "output") not in covered and tool in served.tool_map():
            found = check_records(served, u.rejected, [cached], source="traffic", outcomes=False, text_check=False)
            out += [_counted(f, u) for f in found if f.rule in _RESULT_RULES]
        if u.input_witness is not None and (tool, "input") not in covered:
            out.append(_counted(_input_finding(tool, u, cached, served), u))
    return out


def _input_finding(tool: str, u: Usage, cached: Snapshot, served: Snapshot) -> Finding:
    assert u.input_witness is not None
    call, error = u.input_witness
    instance, truncated = cap_instance(masked(call.arguments))
    error = scrub_secrets(error, secrets_in(call.arguments))
    detail = (
        f"{u.inputs_affected} of {u.inputs} recorded calls sent arguments the inputSchema {cached.label} lists "
        f"allows and {served.label}'s server rejects (first: {call.where})"
    )
    witness: dict[str, Any] = {
        "instance": instance,
        "accepted_by": "old",
        "error": error[:500],
        "instance_pointer": None,
        "call": call.where,
        "source": "traffic",
    }
    if truncated:
        witness["truncated"] = True
    return make_finding("input-recorded-call-rejected", tool, "", detail, None, None, witness=witness)


def _counted(f: Finding, u: Usage | None) -> Finding:
    if u is None:
        return replace(f, traffic={"calls": 0, "affected": 0})
    if f.direction == "input":
        calls, affected = u.inputs, u.inputs_affected
    elif f.direction == "output":
        calls, affected = u.outputs, u.outputs_affected
    else:
        calls, affected = u.calls, (u.calls if f.rule == "tool-removed" else 0)
    return replace(f, traffic={"calls": calls, "affected": affected})


def threshold(findings: list[Finding], spec: str | None) -> list[Finding]:
    """The policy on traffic: with ``spec`` (``"N"`` calls or ``"N%"`` of the recorded calls), a breaking tool
    finding whose tool and direction have recorded calls but fewer affected than that becomes a warning;
    a finding without recorded calls stays as it is ("potentially affected"). None: schema-first, nothing
    changes. Raises ``UsageError`` for a malformed ``spec``."""
    if spec is None:
        return findings
    text = spec.strip()
    try:
        value = float(text[:-1]) if text.endswith("%") else int(text)
    except ValueError:
        raise UsageError(
            f"traffic-threshold must be a number of calls (5) or a percentage (1%), got {spec!r}"
        ) from None
    if value < 0:
        raise UsageError(f"traffic-threshold must not be negative, got {spec!r}")
    percent = text.endswith("%")
    out = []
    for f in findings:
        t = f.traffic
        if f.severity == "breaking" and t and t["calls"]:
            needed = t["calls"] * value / 100 if percent else value
            if t["affected"] < needed or (t["affected"] == 0):
                f = replace(
                    f,
                    severity="warning",
                    reason=f"affected {t['affected']} of {plural(t['calls'], 'recorded call')}, "
                    f"under the traffic threshold {text}",
                )
        out.append(f)
    return out


def _key(value: Any) -> bytes | None:
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        return None


def _remember(memo: dict[bytes, Any], key: bytes, verdict: Any) -> None:
    if len(memo) >= MEMO:
        memo.clear()
    memo[key] = verdict


def _compiled(validator_for: Any, schema: Any, checker: Any) -> Any:
    if not isinstance(schema, (dict, bool)):
        return None
    try:
        cls = validator_for(schema if isinstance(schema, dict) else {})
        return cls(schema, format_checker=checker)
    except Exception:  # noqa: BLE001 - a schema no validator builds: nothing is counted for it
        return None


def _valid(validator: Any, instance: Any) -> bool:
    try:
        return bool(validator.is_valid(instance))
    except Exception:  # noqa: BLE001 - an unresolvable $ref, a bad pattern: not provably valid
        return False
