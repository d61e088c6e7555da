"""What one host rule is, what it finds in a tool, and what a host does with a tool in the end.

A ``HostRule`` is one documented behaviour of a host or model provider towards a tool's schema: what the host
does (``effect``), in words (``behaviour``), where that is known from (``source``, and ``evidence``: the
provider's own code, its documentation, or a public issue), a tool it fires on (``before``) and the portable
spelling (``fix``). Its ``check`` finds the places of one tool where the rule applies (``Hit``). A profile's
``Verdict`` for a tool is the worst effect among its hits: ``unusable`` (the tool is dropped, or the host fails
the whole listing because of it), ``degraded`` (a parameter or keyword is dropped or rewritten), ``usable``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from mcp_schema_audit.schema.dialects import subschemas

#: What a host does with a schema, worst first: fails the whole listing (every tool of the server is lost),
#: drops the tool, drops a parameter, drops (ignores) a keyword, rewrites the schema into one that accepts
#: other values, accepts it after a harmless normalization (a renamed tool, a default filled in).
EFFECTS: tuple[str, ...] = ("fails-listing", "drops-tool", "drops-parameter", "drops-keyword", "rewrites", "accepts")
#: The effects that make a tool unusable on the host, and those that degrade it.
UNUSABLE_EFFECTS = frozenset({"fails-listing", "drops-tool"})
DEGRADING_EFFECTS = frozenset({"drops-parameter", "drops-keyword", "rewrites"})
#: What ``evidence`` may say: the provider's own code was read and is run by the tests (``code``), the rule rests
#: only on the provider's documentation (``docs``) or only on a public issue (``issue``).
EVIDENCE: tuple[str, ...] = ("code", "docs", "issue")
#: A tool's state on a host, worst first.
STATES: tuple[str, ...] = ("unusable", "degraded", "usable")


@dataclass(frozen=True)
class Tool:
    """What a host rule sees of one tool: its ``entry`` as listed, its ``index`` in the listing (0-based), the
    ``listed`` count of tools of the listing and the ``server`` name (``serverInfo.name``, or "")."""

    entry: dict[str, Any]
    index: int = 0
    listed: int = 1
    server: str = ""

    @property
    def name(self) -> str:
        name = self.entry.get("name")
        return name if isinstance(name, str) else ""

    @property
    def input_schema(self) -> Any:
        return self.entry.get("inputSchema")


@dataclass(frozen=True)
class Hit:
    """One place where a host rule applies: ``pointer`` (RFC 6901, into the inputSchema; ``""`` for the tool
    as a whole), the ``parameter`` concerned (a top-level property name, or None), the ``keyword`` concerned
    (or None) and ``words``: what happens there, in our words with the server's values quoted."""

    pointer: str
    parameter: str | None = None
    keyword: str | None = None
    words: str = ""
    #: the portable spelling for this place when the check can say it (the parameter's own name and type),
    #: else ``""`` (the rule's ``fix`` stands)
    fix: str = ""


@dataclass(frozen=True, kw_only=True)
class HostRule:
    """One documented behaviour of one or more hosts (``hosts``: profile names).

    ``id``: stable kebab-case id; ``effect``: one of ``EFFECTS``; ``title``: one line; ``behaviour``: what the
    host does, in the host's own terms where known (its error, its log line); ``source``: code paths (with the
    package version read), documentation URLs, issue threads; ``evidence``: one of ``EVIDENCE``; ``before``: an
    inputSchema it fires on (JSON text); ``fix``: the portable spelling; ``check``: the tool → its hits."""

    id: str
    hosts: tuple[str, ...]
    effect: str
    title: str
    behaviour: str
    source: str
    evidence: str
    before: str = ""
    fix: str = ""
    check: Callable[[Tool], list[Hit]] = field(compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.effect not in EFFECTS or self.evidence not in EVIDENCE:
            raise ValueError(f"host rule {self.id}: effect {self.effect!r} or evidence {self.evidence!r} unknown")

    @property
    def unusable(self) -> bool:
        """Does a hit of this rule make the tool unusable on its hosts?"""
        return self.effect in UNUSABLE_EFFECTS


@dataclass(frozen=True)
class Profile:
    """A host or model provider: ``name``, ``title`` (who it is, which code path or product), ``reads`` (what of
    the tool entry it reads, in words), its ``rules`` in order and ``notes`` (what else is known: other
    adapters' readings, fallbacks)."""

    name: str
    title: str
    reads: str
    rules: tuple[HostRule, ...]
    notes: str = ""


@dataclass(frozen=True)
class Verdict:
    """What ``host`` does with one tool: ``state`` (one of ``STATES``), the ``hits`` that decide it (rule,
    hit), and ``listing_fails``: the tool makes the host fail its whole listing (so every tool of the server
    is unusable there); ``lost_with``: the other tools whose hits fail the listing this tool is lost with."""

    tool: str
    host: str
    state: str
    hits: tuple[tuple[HostRule, Hit], ...] = ()
    lost_with: tuple[str, ...] = ()

    @property
    def listing_fails(self) -> bool:
        return any(rule.effect == "fails-listing" for rule, _ in self.hits)

    def to_json(self) -> dict[str, Any]:
        """``{"tool", "host", "state", "listing_fails", "lost_with", "hits": [{"rule", "effect", "pointer", "parameter",
        "keyword", "words"}]}`` (JSON-ready; server text stays data)."""
        return {
            "tool": self.tool,
            "host": self.host,
            "state": self.state,
            "listing_fails": self.listing_fails,
            "lost_with": list(self.lost_with),
            "hits": [
                {
                    "rule": rule.id,
                    "effect": rule.effect,
                    "pointer": hit.pointer,
                    "parameter": hit.parameter,
                    "keyword": hit.keyword,
                    "words": hit.words,
                }
                for rule, hit in self.hits
            ],
        }


def nodes(schema: Any) -> Iterator[tuple[list[Any], Any]]:
    """``(pointer tokens, subschema)`` of every subschema of ``schema`` (``dialects.subschemas``, bounded)."""
    return subschemas(schema, 20_000)


def parameter_of(tokens: list[Any]) -> str | None:
    """The top-level parameter a place belongs to: ``properties/<name>/…`` → name, else None."""
    if len(tokens) >= 2 and tokens[0] == "properties" and isinstance(tokens[1], str):
        return tokens[1]
    return None


def quoted(value: Any, limit: int = 60) -> str:
    """``value`` as a short quoted text for our words (JSON, a string in quotes; cut at ``limit`` characters)."""
    import json

    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def keyword_hits(
    schema: Any, keywords: frozenset[str], words: Callable[[str, Any], str], *, below_root: bool = False
) -> list[Hit]:
    """A hit for every subschema of ``schema`` that has one of ``keywords`` (``below_root``: not the root
    itself), at the keyword's pointer, with ``words(keyword, value)``."""
    from mcp_schema_audit.jsontext import pointer

    out = []
    for tokens, node in nodes(schema):
        if not isinstance(node, dict) or (below_root and not tokens):
            continue
        for kw in sorted(keywords & node.keys()):
            out.append(Hit(pointer(tokens + [kw]), parameter_of(tokens), kw, words(kw, node[kw])))
    return out
