"""The portability rules: what a host or model provider does with a tool, per ``--host`` (lint) and as a
regression between two versions (diff). Each finding names the host rule that decided it (``schema.portability``,
docs/hosts.md: its behaviour, source and evidence) and its ``hosts`` are exactly the selected profiles it applies
to."""

from __future__ import annotations

from mcp_schema_audit.rules.record import Rule

HOSTS_DOC = "docs/hosts.md: each host's rules with their sources (provider code, documentation, public issues)"

RULES: list[Rule] = [
    Rule(
        id="host-tool-unusable",
        direction="input",
        severity="breaking",
        family="portability",
        title="Tool unusable on a host",
        rationale=(
            "The host drops the tool, or fails its whole tool listing because of it (then every tool of the "
            "server is lost there), before any model can call it: the SDK validators are content, the users of "
            "that host are not."
        ),
        before='{"type": "object", "properties": {"q": {"type": "string"}}}',
        after='{"type": "object", "properties": {"q": {"type": "string"}}, "additionalProperties": false} (gemini)',
        error="google-genai: AttributeError: 'bool' object has no attribute 'items'",
        source=HOSTS_DOC,
        fix="the portable spelling the finding names (its host rule in docs/hosts.md)",
    ),
    Rule(
        id="host-tool-degraded",
        direction="input",
        severity="warning",
        family="portability",
        title="Tool degraded on a host",
        rationale=(
            "The host drops a parameter or a keyword, or rewrites the schema: the model is not told a constraint "
            "the server enforces (calls fail there instead), cannot send a parameter, or must send one the user "
            "left out."
        ),
        before='{"type": "object", "properties": {"code": {"type": "string"}}}',
        after='{"type": "object", "properties": {"code": {"type": "string", "minLength": 3}}} (gemini)',
        source=HOSTS_DOC,
        fix="the portable spelling the host rule names, or the constraint said in the description",
    ),
    Rule(
        id="host-newly-unusable",
        direction="input",
        severity="breaking",
        family="portability",
        title="Tool newly unusable on a host",
        rationale=(
            "The old version was usable (or degraded) on the host and the new one is not: a release that adds one "
            "$ref, one anyOf or one additionalProperties can make a tool, or every tool, disappear there."
        ),
        before='{"type": "object", "properties": {"id": {"type": "string"}}}',
        after='{"type": "object", "properties": {"id": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}} (cursor)',
        source=HOSTS_DOC,
        fix="the portable spelling the finding names (its host rule in docs/hosts.md)",
    ),
    Rule(
        id="host-newly-degraded",
        direction="input",
        severity="warning",
        family="portability",
        title="Tool newly degraded on a host",
        rationale="The new version loses a parameter or keyword on the host that the old one kept.",
        before='{"type": "object", "properties": {"mode": {"type": "string", "enum": ["fast"]}}}',
        after='{"type": "object", "properties": {"mode": {"const": "fast"}}} (gemini)',
        source=HOSTS_DOC,
        fix="the portable spelling the finding names (its host rule in docs/hosts.md)",
    ),
    Rule(
        id="host-usable-again",
        direction="input",
        severity="info",
        family="portability",
        title="Tool usable again on a host",
        rationale="The old version was unusable or degraded on the host; the new one is portable there.",
        source=HOSTS_DOC,
    ),
]
