"""Findings: the classified changes every command reports (diff, history, lint), and their identity.

A ``Finding`` is what the compatibility engine, the tool-metadata comparison and the listing checks
produce and what policy, history and the reporters consume. Its ``fingerprint`` is the stable
identity that ``[[ignore]]`` entries and SARIF ``partialFingerprints`` match.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from mcp_schema_audit.jsontext import stable_text
from mcp_schema_audit.rules import RULES
from mcp_schema_audit.vocabulary import SEVERITY_RANK, SURFACE_WORDS
from mcp_schema_audit.wording import EMPTY, Text, forward_words


class _NewSide:
    """The default ``Finding.delta``: the value on the new side stands for the change."""

    def __repr__(self) -> str:
        return "NEW_SIDE"

    def __reduce__(self) -> str:
        return "NEW_SIDE"  # unpickled (findings come back from worker processes) as the one module-level object


NEW_SIDE: Any = _NewSide()


@dataclass
class Finding:
    """One classified change.

    ``pointer`` is an RFC 6901 JSON Pointer into the tool's schema of ``direction`` (``""`` = root;
    the new schema's location when it exists there, else the old one's); ``old``/``new`` are the
    values on each side (``None`` when absent). ``delta`` is the value-level change this finding is
    about when several findings share a pointer (the one enum value removed, the one bound keyword);
    ``NEW_SIDE`` (the default) means ``new``, the value on the new side. ``witness`` is ``None`` or ``{"instance",
    "accepted_by": "new"|"old", "error", "instance_pointer"}``. ``hosts`` lists the host profiles a
    breaking finding was confirmed against.

    ``surface`` names what the finding is about (one of ``SURFACES``) and ``name`` the item: the tool's,
    prompt's or resource template's name, the resource's uri, or ``capabilities``/``instructions`` for
    the server. For a tool finding ``tool`` and ``name`` are the tool's name; for every other surface
    ``tool`` is ``""``, ``direction`` is the surface and ``pointer`` is a JSON Pointer into the item as
    listed (the served version's listing when the item is there, else the cached one's; for the server's
    capabilities, into the capabilities object).

    ``detail`` says what changed (a ``wording.Text``: our words, the values as data); ``message`` is the whole
    sentence, rendered when read: ``<subject>: <rule title> at <pointer>: <detail>``, for a forward finding
    (``forward``: the labels of the version hosts cached and the one the server runs) with the role words of
    those versions and a ``[forward: …]`` lead.
    """

    rule: str
    severity: str
    tool: str
    direction: str
    pointer: str
    detail: Text = EMPTY
    old: Any = None
    new: Any = None
    old_pointer: str | None = None
    new_pointer: str | None = None
    witness: dict[str, Any] | None = None
    hosts: list[str] = field(default_factory=list)
    reason: str | None = None
    tags: list[str] = field(default_factory=list)
    delta: Any = NEW_SIDE
    surface: str = "tool"
    #: where in the instance the change is (JSON Pointer), for the engine's own bookkeeping (not reported)
    instance_pointer: str | None = None
    #: the witness error in Ajv's words (the TS clients'), when ``witness["error"]`` is another host's: policy
    #: shows it instead when ``--host`` keeps only TS profiles (not reported itself)
    ajv_error: str | None = None
    name: str = ""
    #: ``(cached, served)`` labels of a forward finding (hosts cached NEW, the server runs OLD), else None
    forward: tuple[str, str] | None = None
    #: for an input finding judged by the server's own validator (``engine.arguments``): ``{"validator",
    #: "inferred", "outcome": rejected|dropped|kept|filled|accepted, "error"}``, else None
    server: dict[str, Any] | None = None
    #: with ``--traffic``, for a tool finding: ``{"calls": M, "affected": N}``, the recorded calls of its tool
    #: and direction and how many of them the change breaks (``traffic.count``), else None
    traffic: dict[str, int] | None = None
    #: this finding's own fix when the rule's is generic (a host rule's portable spelling), else ``""``
    remedy: str = ""

    def __post_init__(self) -> None:
        if self.surface == "tool" and not self.name:
            self.name = self.tool

    @property
    def subject(self) -> str:
        """Who the finding is about, in words (raw text): the tool's name for a tool finding, else the
        surface and the item: ``prompt greet``, ``resource file:///a.txt``, ``resource template docs``,
        ``server capabilities``, ``server instructions``; ``probe run`` for a finding about a whole probe run
        (``probe-nothing-checked``: a tool finding with no tool)."""
        if self.surface == "tool":
            return self.tool or "probe run"
        return f"{SURFACE_WORDS.get(self.surface, self.surface)} {self.name}"

    @property
    def detail_text(self) -> str:
        """What changed, in words (raw text): the detail rendered with this finding's role words, after the
        ``[forward: hosts cached NEW, server runs OLD] `` lead of a forward finding."""
        return self._lead() + self._words()

    @property
    def message(self) -> str:
        """The whole sentence (raw text): ``<subject>: <rule title> at <pointer or (root)>: <detail>``, the
        ``[forward: …]`` lead first for a forward finding."""
        rule = RULES.get(self.rule)
        head = f"{self.subject}: {rule.title if rule else self.rule} at {self.pointer or '(root)'}: "
        return self._lead() + head + self._words()

    def _lead(self) -> str:
        if self.forward is None:
            return ""
        cached, served = self.forward
        return f"[forward: hosts cached {cached}, server runs {served}] "

    def _words(self) -> str:
        return self.detail.render() if self.forward is None else self.detail.render(forward_words(*self.forward))

    @property
    def fingerprint(self) -> str:
        """Stable id, 16 hex chars: sha256 of rule, tool, direction, pointer and the value delta (for a
        finding about another surface than a tool: rule, surface, name, direction, pointer and delta).

        The delta is ``delta`` when set, else the value on the new side (canonical JSON), so two findings
        of one rule at one pointer (three enum values removed; ``minimum`` and ``maximum`` both dropped)
        never share a fingerprint, and an ``[[ignore]]`` entry for one change does not silence a later,
        different one. The old side's value is left out, so one change of a release has one fingerprint
        against every cached version (``history``). Messages, witnesses and severities are not part of it.
        """
        delta = self.new if self.delta is NEW_SIDE else self.delta
        parts = [self.rule, self.tool, self.direction, self.pointer, stable_text(delta)]
        if self.surface != "tool":
            parts[1:2] = [self.surface, self.name]
        key = "\x1f".join(parts)
        return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict (the report contract; keys are only ever added)."""
        out: dict[str, Any] = {
            "rule": self.rule,
            "severity": self.severity,
            "tool": self.tool,
            "direction": self.direction,
            "pointer": self.pointer,
            "message": self.message,
            "old": self.old,
            "new": self.new,
            "old_pointer": self.old_pointer,
            "new_pointer": self.new_pointer,
            "hosts": self.hosts,
            "fingerprint": self.fingerprint,
            "witness": self.witness,
            "surface": self.surface,
            "name": self.name,
        }
        if self.reason:
            out["reason"] = self.reason
        if self.tags:
            out["tags"] = self.tags
        if self.server is not None:
            out["server"] = dict(self.server)
        if self.fix:
            out["fix"] = self.fix
        if self.traffic is not None:
            out["traffic"] = dict(self.traffic)
        return out

    @property
    def fix(self) -> str:
        """How to ship this change without breaking cached hosts: the finding's own ``remedy`` when it has one,
        else the rule's ``fix`` (``""`` if it has none)."""
        if self.remedy:
            return self.remedy
        rule = RULES.get(self.rule)
        return rule.fix if rule is not None else ""


def make_finding(
    rule_id: str,
    tool: str,
    ptr: str,
    detail: str | Text,
    old: Any,
    new: Any,
    *,
    direction: str | None = None,
    witness: dict[str, Any] | None = None,
    delta: Any = NEW_SIDE,
) -> Finding:
    """A ``Finding`` of catalog rule ``rule_id`` about tool ``tool`` at pointer ``ptr`` with the rule's default
    severity. ``detail``: a ``Text``, or words of ours with no slot (a ``str``, shown as it is). Raises
    ``KeyError`` for a rule id not in the catalog.
    """
    rule = RULES[rule_id]
    return Finding(
        rule=rule_id,
        severity=rule.severity,
        tool=tool,
        direction=direction or rule.direction,
        pointer=ptr,
        detail=detail if isinstance(detail, Text) else Text.literal(detail),
        old=old,
        new=new,
        witness=witness,
        delta=delta,
    )


def summarize(findings: list[Finding]) -> dict[str, int]:
    """Counts per severity: ``{"breaking": n, "warning": n, "info": n}``."""
    counts = {"breaking": 0, "warning": 0, "info": 0}
    for f in findings:
        counts[f.severity] += 1
    return counts


def max_severity(findings: list[Finding]) -> str | None:
    """The highest severity among ``findings`` (``None`` when empty)."""
    return max((f.severity for f in findings), key=SEVERITY_RANK.__getitem__, default=None)
