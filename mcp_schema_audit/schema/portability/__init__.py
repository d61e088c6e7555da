"""Hosts and model providers as profiles: what each does with a tool's schema, from its own code where it exists.

``PROFILES`` holds the seven profiles beside the three SDK ones (``vocabulary.SDK_PROFILES``): ``openai-strict``,
``openai``, ``gemini``, ``anthropic``, ``claude-code``, ``vscode``, ``cursor``; each a documented rule set
(``record.HostRule``: effect, behaviour, source, evidence). ``judge_tool`` gives one tool's ``Verdict`` on one
host, ``judge_listing`` every tool's on every host asked for, with the tools a failing listing takes with it;
``spelling`` rewrites a hit's subschema portably where a mechanical spelling exists.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from mcp_schema_audit.schema.portability import anthropic_rules, editor_rules, gemini_rules, openai_rules
from mcp_schema_audit.schema.portability.record import (
    DEGRADING_EFFECTS,
    EFFECTS,
    STATES,
    UNUSABLE_EFFECTS,
    Hit,
    HostRule,
    Profile,
    Tool,
    Verdict,
)

__all__ = [
    "ALL_RULES",
    "EFFECTS",
    "HOST_NAMES",
    "PROFILES",
    "STATES",
    "Hit",
    "HostRule",
    "Profile",
    "Tool",
    "Verdict",
    "judge_listing",
    "judge_tool",
    "rule_by_id",
]

#: Every host rule, in catalog order.
ALL_RULES: tuple[HostRule, ...] = openai_rules.RULES + gemini_rules.RULES + anthropic_rules.RULES + editor_rules.RULES


def _profile(name: str, title: str, reads: str) -> Profile:
    return Profile(name, title, reads, tuple(r for r in ALL_RULES if name in r.hosts), NOTES.get(name, ""))


#: What else is known of each host: fallbacks, and other adapters' readings (pinned by
#: tests/test_portability_providers.py where the adapter's code is run).
NOTES = {
    "openai-strict": "The OpenAI Agents SDK sends a tool whose strict conversion raises without strict (a "
    "logged 'Error converting MCP schema to strict mode'): unusable here means it cannot be sent strict, and the "
    "openai profile says what happens to it then. The openai SDK's own helper (openai/lib/_pydantic.py "
    "_ensure_strict_json_schema, behind pydantic_function_tool) rewrites alike (every property required, objects "
    "closed) but raises only on boolean subschemas: an open object, a root union or a $ref beside keywords is "
    "left for the API to refuse with a 400.",
    "gemini": "This is the route of google-genai's MCP support (an mcp ClientSession or mcp Tool passed as a "
    "tool: parameters built by mcp_to_gemini_tool). A host that sends the inputSchema as parametersJsonSchema "
    "instead (google-genai's own agent-platform path, agent_platform_to_gemini_tool) meets the API's JSON "
    "Schema support, which no "
    "rule here models. Other adapters read the same schema otherwise. The Vercel AI SDK's @ai-sdk/google 3.0.141 "
    "(convertJSONSchemaToOpenAPISchema) raises on none of additionalProperties: false, boolean subschemas or "
    "items arrays (it drops additionalProperties, turns true/false into a boolean parameter), keeps minLength, "
    "allOf, oneOf and const (as enum), sends a recursive schema as parametersJsonSchema, and raises on mixed "
    "enums and on references to anything but a child of the root's $defs or definitions. "
    "LangChain's langchain-google-genai 4.4.3 "
    "(convert_to_genai_function_declarations) raises on none of them either but keeps only the first type of a "
    "type list or oneOf, drops a boolean property and pattern, format, minimum, maximum, and raises on a remote "
    "$ref. Both drop minLength's siblings (maxLength, minItems, uniqueItems, an object-valued "
    "additionalProperties), as google-genai does.",
    "claude-code": "Claude Code also names each tool mcp__<server>__<tool>; no rule here rests on that name.",
    "vscode": "A model then reads the tool with its own provider's rules: select the model's profile too "
    "(openai, anthropic, gemini). The refusal of $dynamicRef reported in firecrawl/firecrawl-mcp-server#116 is "
    "not what the code read does: the draft-07 metaschema admits unknown keywords, so a rule case keeps "
    "$dynamicRef usable here.",
    "cursor": "Cursor is closed source: every rule rests on public issues or its documentation as issues quote "
    "it; with Claude models the Anthropic API's own check applies too (anthropic-invalid-schema).",
}


#: The host and model-provider profiles by name, in the order reports show them.
PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        _profile(
            "openai-strict",
            "OpenAI function calling with strict: true, the schema made strict by the OpenAI Agents SDK",
            "the inputSchema as parameters and the tool name",
        ),
        _profile("openai", "OpenAI function calling, strict off", "the inputSchema as parameters and the tool name"),
        _profile(
            "gemini",
            "Gemini through the Google Gen AI SDK's MCP adapter (parameters as an OpenAPI-style Schema)",
            "the inputSchema, filtered and converted, and the tool name",
        ),
        _profile("anthropic", "Anthropic Messages API tools", "the inputSchema as input_schema and the tool name"),
        _profile(
            "claude-code",
            "Claude Code: the MCP TS SDK 1.x client, then the Anthropic API with every tool of every server",
            "the whole tools/list with every outputSchema compiled (TS SDK), then the inputSchema (API)",
        ),
        _profile(
            "vscode",
            "VS Code's MCP client (before the chosen model's own rules)",
            "the tool name, description, _meta.ui and inputSchema",
        ),
        _profile(
            "cursor", "Cursor's MCP client and gateway", "the tool and server names, the listing size, the inputSchema"
        ),
    )
}
#: The profile names, in report order.
HOST_NAMES: tuple[str, ...] = tuple(PROFILES)


def rule_by_id(rule_id: str) -> HostRule:
    """The host rule ``rule_id``; raises ``KeyError`` for an unknown id."""
    for rule in ALL_RULES:
        if rule.id == rule_id:
            return rule
    raise KeyError(rule_id)


def judge_tool(tool: Tool, host: str) -> Verdict:
    """What ``host`` does with ``tool``: every hit of the host's rules, and the state they decide (``unusable``
    for a hit that drops the tool or fails the listing, ``degraded`` for one that drops or rewrites part of
    it, else ``usable``). Raises ``KeyError`` for an unknown host. A rule that cannot read the schema says so
    in a hit of its own, never by raising (server data is untrusted)."""
    hits: list[tuple[HostRule, Hit]] = []
    for rule in PROFILES[host].rules:
        try:
            found = rule.check(tool)
        except (RecursionError, TypeError, ValueError, AttributeError, KeyError) as exc:
            found = [Hit("", None, None, f"the schema could not be read for this rule: {type(exc).__name__}")]
        hits += [(rule, hit) for hit in found]
    effects = {rule.effect for rule, _ in hits}
    state = "unusable" if effects & UNUSABLE_EFFECTS else "degraded" if effects & DEGRADING_EFFECTS else "usable"
    return Verdict(tool.name, host, state, tuple(hits))


def judge_listing(tools: Sequence[dict[str, Any]], hosts: Iterable[str], server: str = "") -> dict[str, list[Verdict]]:
    """Host → one ``Verdict`` per tool entry of ``tools`` (in listing order). On a host where some tool fails the
    whole listing, every other tool's verdict is ``unusable`` too (its hits unchanged: it is lost with the
    listing, not for a fault of its own). ``server``: the server's name, for rules that read it."""
    out: dict[str, list[Verdict]] = {}
    for host in hosts:
        verdicts = [
            judge_tool(Tool(entry, index, len(tools), server), host)
            for index, entry in enumerate(tools)
            if isinstance(entry, dict)
        ]
        culprits = tuple(v.tool for v in verdicts if v.listing_fails)
        if culprits:
            verdicts = [
                v
                if v.listing_fails
                else Verdict(v.tool, v.host, "unusable", v.hits, tuple(c for c in culprits if c != v.tool))
                for v in verdicts
            ]
        out[host] = verdicts
    return out
