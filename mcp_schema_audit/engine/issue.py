"""Issues: what the compatibility engine finds at one pair of schema nodes, before it becomes a ``Finding``.

Made by the keyword families of the walk (``walk.FAMILIES``) and read by ``confirm``. An ``Issue``
speaks in P/V terms (P = the producing side, V = the validating side; see ``walk``), with paths
relative to the node pair where it was found; the walk makes them absolute and wraps witnesses
(``context.prefix``) as it returns. ``IssueKind`` names what was found.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from mcp_schema_audit.jsontext import canonical
from mcp_schema_audit.schema import json_type
from mcp_schema_audit.schema.dialects import SUBSCHEMA_KEYWORDS
from mcp_schema_audit.wording import Text

#: What an ``Issue`` found, in P/V terms: one of the kinds the rule catalog declares (``Rule.kinds``;
#: ``rules.kind_rules()`` maps each to a rule per direction, ``confirm`` uses that). ``-p``/``-v`` name the side
#: that has more (an enum value, a type, a property, a required key, a union branch); ``looser-p``/``looser-v``
#: the side whose constraint is looser; ``opened-p``/``closed-p`` an object P opened or closed; the rest name a
#: keyword (``format``, ``pattern``, ``oneof-overlap``, ``interop``) or what kept the engine from deciding
#: (``undecidable``, ``invalid``). A kind is declared once, in the catalog: ``tests/test_engine.py`` checks that
#: every kind the engine's modules build an ``Issue`` with is declared there, and every declared kind is built.
IssueKind = str

NO_WITNESS = object()  # "no witness"
ABS = "\x00abs"  # first step of an absolute pointer (a $ref target), never a real key


@dataclass
class Issue:
    """A change found at one pair of nodes, in P/V terms, with paths relative to that pair."""

    kind: IssueKind
    p_path: list[str]
    v_path: list[str]
    p_val: Any
    v_val: Any
    detail: Text
    witness: Any = NO_WITNESS
    inst: list[Any] = field(default_factory=list)
    p_abs: bool = False
    v_abs: bool = False
    #: the side's path names no keyword of its own (the change is absent on that side: the node is shown)
    p_bare: bool = False
    v_bare: bool = False
    #: what tells this change from another of the same kind at the same place (the enum value, the bound
    #: keyword); ``{"P": …}``/``{"V": …}`` entries name a side's value (``confirm`` keeps the new side's)
    delta: Any = None
    #: what rejects the witness on V's side when the paths name no keyword that does: ``(keyword, steps)``, the
    #: keyword at the instance place ``steps`` above this issue's (a change found inside a decomposed object
    #: value, ``decompose``, is rejected by V's ``const``/``enum`` at the value's own place)
    rejects: tuple[str, int] | None = None


class Budget(Exception):
    """A work budget of the comparison is spent (node pairs, validations, union branches, nesting)."""


class LocalUndecidable(Budget):
    """One subschema pair cannot be compared (an in-place cycle, more union branches than ``merge.MAX_BRANCHES``):
    only that pair is left undecided, a ``schema-undecidable`` warning at its pointer, and the walk compares the
    rest of the schema (at the root, the whole schema is undecided). The work budgets (``meter``) stay whole-tool."""


class InPlaceCycle(LocalUndecidable):
    """A subschema applies itself at the same place (``$ref``/``allOf``/``anyOf`` back to itself, or too many
    in-place applicators in a row): it cannot be normalized (a ``LocalUndecidable``)."""


def canon(value: Any) -> str:
    """Canonical JSON text of ``value``: the engine's key for JSON equality (``jsontext.canonical``)."""
    return canonical(value)


def same_value(a: Any, b: Any) -> bool:
    """JSON equality as JSON Schema's enum uses it (1 == 1.0, True != 1)."""
    return (
        json_type(a) == json_type(b)
        and canon(a) == canon(b)
        or (
            isinstance(a, (int, float))
            and isinstance(b, (int, float))
            and not isinstance(a, bool)
            and not isinstance(b, bool)
            and a == b
        )
    )


def value_key(value: Any) -> str:
    """A hashable key with enum equality: JSON type plus canonical JSON (1 and 1.0 equal, True and 1 not)."""
    if type(value) is str:
        return "string:" + value  # the string itself is its own canonical form here (no other type has this prefix)
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        value = int(value)
    return json_type(value) + ":" + canon(value)


def short(value: Any, limit: int = 80) -> str:
    """``value`` as a message shows it: JSON (a string as its ``repr``), cut to ``limit`` characters with "…"."""
    text = json.dumps(value, ensure_ascii=False, default=str) if not isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


#: Keywords whose value maps names to something (the next token of a pointer is a name): the subschema maps,
#: and ``dependentRequired``'s lists of names.
_NAMED = frozenset(k for k, shape in SUBSCHEMA_KEYWORDS.items() if shape == "map") | {"dependentRequired"}
#: Keywords whose value may be a list (the next token may be an index): the subschema lists, ``items`` (a list
#: in draft-07), and the value lists ``enum``, ``required``, ``type``.
_LISTED = frozenset(k for k, shape in SUBSCHEMA_KEYWORDS.items() if shape in ("list", "one_or_list")) | {
    "enum",
    "required",
    "type",
}


def keyword_at(tokens: list[Any]) -> str | None:
    """The keyword a pointer's last token names, or None when it names a subschema (a property, an index):
    ``["properties", "items"]`` → None; ``["properties", "a", "maxLength"]`` → ``"maxLength"``."""
    expect = "keyword"
    last: str | None = None
    for tok in tokens:
        if expect == "keyword":
            last = str(tok)
            expect = "name" if last in _NAMED else "index-or-keyword" if last in _LISTED else "keyword"
        elif expect == "name":
            last, expect = None, "keyword"
        else:  # an index after a list keyword, or (items/type as a single value) the next keyword
            if isinstance(tok, int) or (isinstance(tok, str) and tok.isdigit()):
                last, expect = None, "keyword"
            else:
                last = str(tok)
                expect = "name" if last in _NAMED else "index-or-keyword" if last in _LISTED else "keyword"
    return last
