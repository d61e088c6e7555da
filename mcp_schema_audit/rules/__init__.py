"""The rule catalog: every finding schema-audit can emit, one record each (``record.Rule``), in one catalog.

The records live in ``tools`` (the tool entry, whole schemas, listings, lint, the engine's own verdicts),
``results`` (real results, probe runs), ``outputs`` (outputSchema changes), ``inputs`` (inputSchema changes),
``portability`` (hosts and model providers), ``surfaces`` (prompts, resources, resource templates, the server)
and ``releases`` (whether hosts notice a release: versions, caching hints, x-mcp-header, extensions, MCP Apps,
deprecations). ``RULES`` holds them by id in catalog order
(the order SARIF rule indices follow); the tables other modules need are derived from the records here.
"""

from __future__ import annotations

from mcp_schema_audit.rules import inputs, outputs, portability, releases, results, surfaces, tools
from mcp_schema_audit.rules.record import Rule
from mcp_schema_audit.vocabulary import SEVERITIES, SEVERITY_RANK

__all__ = [
    "LISTING_RULES",
    "RULES",
    "SEVERITIES",
    "SEVERITY_RANK",
    "SYMMETRIC_RULES",
    "VALUE_SET_RULES",
    "Rule",
    "closest_rules",
    "kind_rules",
    "unknown_rule_message",
]


def _catalog(*groups: list[Rule]) -> dict[str, Rule]:
    out: dict[str, Rule] = {}
    for rule in (r for group in groups for r in group):
        if rule.id in out:
            raise RuntimeError(f"duplicate rule id {rule.id}")
        out[rule.id] = rule
    return out


#: Every rule by id, in catalog order.
RULES: dict[str, Rule] = _catalog(
    tools.RULES,
    results.RULES,
    outputs.RULES,
    inputs.RULES,
    portability.RULES,
    surfaces.RULES,
    releases.RULES,
    results.RUN_RULES,
    results.TRAFFIC_RULES,
)
#: Rules whose witness is a tool entry that SDK clients reject with the whole tools/list.
LISTING_RULES = frozenset(r.id for r in RULES.values() if r.listing)
#: Rules whose finding says the same whichever version hosts cached (``--mode full`` lists them once).
SYMMETRIC_RULES = frozenset(r.id for r in RULES.values() if r.symmetric)
#: Rules about a closed output value set (enum/const) hosts cached: where ``history`` finds conflicts.
VALUE_SET_RULES = frozenset(r.id for r in RULES.values() if r.value_set)


def kind_rules() -> dict[str, tuple[str, str]]:
    """Engine issue kind → ``(rule id for outputSchemas, rule id for inputSchemas)``, from the records' ``kinds``
    (a rule of direction ``tool`` stands for both). Raises ``RuntimeError`` when a kind lacks a direction."""
    sides: dict[str, dict[str, str]] = {}
    for rule in RULES.values():
        for kind in rule.kinds:
            for direction in ("output", "input") if rule.direction == "tool" else (rule.direction,):
                sides.setdefault(kind, {})[direction] = rule.id
    missing = sorted(k for k, s in sides.items() if len(s) != 2)
    if missing:
        raise RuntimeError(f"issue kinds without a rule for both directions: {', '.join(missing)}")
    return {kind: (s["output"], s["input"]) for kind, s in sides.items()}


def closest_rules(word: str, n: int = 3) -> list[str]:
    """Up to ``n`` catalog ids closest to ``word`` (difflib's ratio), best first: for "did you mean"."""
    import difflib

    return difflib.get_close_matches(word.strip(), list(RULES), n=n, cutoff=0.6)


def unknown_rule_message(word: str) -> str:
    """``unknown rule 'x'`` with the closest ids as a did-you-mean, else a pointer to ``schema-audit rules``."""
    close = closest_rules(word)
    if close:
        return f"unknown rule {word!r}; did you mean {' or '.join(close)}? (see 'schema-audit rules')"
    return f"unknown rule {word!r} (see 'schema-audit rules')"
