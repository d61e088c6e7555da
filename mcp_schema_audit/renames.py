"""Renames: a tool, or an argument, removed and another added with the same schema is one change; an argument
renamed whose schema changed a little too is one rename and the changes of its schema.

Reported as removed + added, a renamed argument reads as two breaks with two pieces of advice ("keep accepting
the old argument", "make the new one optional"), and a renamed tool as a removal; the one thing to do is to
accept both names for a while. A pair counts as a rename when the two sides' schemas are equal once
annotations (``description``, ``title``, ``examples``, ``$comment``) are set aside and the pairing is unique
(one removed, one added candidate); a schema as plain as ``{"type": "string"}`` also needs similar names or
descriptions (``RENAME_SIMILARITY``), so that dropping ``cc`` and adding ``subject`` is not taken for one, unless
the two are the object's only argument gone and only argument added and both are required (``to`` →
``recipient``: every cached call sends the old name, none the new one).
The finding keeps the facts of the removed side (its witness: the old name, now refused). An argument whose schema
changed with the name (``looks_renamed_changed``: one type, the same keywords, at most ``CHANGED_KEYWORDS`` of them
with other values, a similar name or description) is one rename too, followed by the findings of the change on the
new name (``changed_renames``: the cached schema compared again with the argument under its new name; at most
``MAX_CHANGED_RENAMES`` per tool, each one more comparison).

Bounded work: for a rename with one schema (tools, arguments) each item's shape is made canonical once and the
items bucketed by it; of a shape with more than one keyword a pair is a rename only alone in its bucket (no pair
compared), a plain one's pairs are compared by name and description, on their first ``SIMILARITY_WINDOW``
characters after ``difflib``'s cheap upper bounds, at most ``PAIR_BUDGET`` pairs per pairing (a bucket past what is
left is skipped: its findings stay removed + added, as they are reported either way). A rename whose schema
changed too compares every pair, at most ``PAIR_BUDGET`` (past it, none). Every item and pair counts against
``--time-budget`` (``guard.check``). 60 renamed properties with 3,000-character descriptions took 33 s, past
``--time-budget 10``; 1,500 tools removed and 1,500 added, 13.6 s past ``--time-budget 2`` (2.25 M pairs).
"""

from __future__ import annotations

import copy
import difflib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from mcp_schema_audit import guard
from mcp_schema_audit.findings import Finding, make_finding
from mcp_schema_audit.jsontext import canonical, pointer, pointer_tokens
from mcp_schema_audit.vocabulary import SEVERITY_RANK
from mcp_schema_audit.wording import Text

#: Findings of an argument gone from the new schema, and of one the new schema adds.
REMOVED_ARGUMENT = ("input-property-removed-from-closed-object", "input-argument-ignored", "input-property-removed")
ADDED_ARGUMENT = ("input-required-added", "input-property-added", "input-required-added-with-default")
#: How alike (``difflib`` ratio) two names or two descriptions are at least for a plain schema's rename.
RENAME_SIMILARITY = 0.4
#: Characters of a name or description compared for similarity (a rename keeps its opening words).
SIMILARITY_WINDOW = 300
#: Removed × added pairs compared in one pairing (one tool's object, or the tool list).
PAIR_BUDGET = 20_000
_ANNOTATIONS = frozenset({"description", "title", "examples", "$comment"})
#: The tag of a removed or added finding whose renames were not searched (its bucket past ``PAIR_BUDGET``).
UNSEARCHED_TAG = "renames-not-searched"


def shape(schema: Any) -> Any:
    """``schema`` without annotation keywords, at every depth (what a rename must keep)."""
    if isinstance(schema, dict):
        return {k: shape(v) for k, v in schema.items() if k not in _ANNOTATIONS}
    if isinstance(schema, list):
        return [shape(v) for v in schema]
    return schema


def _alike(a: str, b: str) -> bool:
    """``difflib`` ratio of the two texts' first ``SIMILARITY_WINDOW`` characters at least ``RENAME_SIMILARITY``;
    its linear upper bounds (``real_quick_ratio``, ``quick_ratio``) first, so that most pairs cost no match."""
    if not (a and b):
        return False
    matcher = difflib.SequenceMatcher(None, a[:SIMILARITY_WINDOW].lower(), b[:SIMILARITY_WINDOW].lower())
    return (
        matcher.real_quick_ratio() >= RENAME_SIMILARITY
        and matcher.quick_ratio() >= RENAME_SIMILARITY
        and matcher.ratio() >= RENAME_SIMILARITY
    )


def looks_renamed(old_name: str, old: Any, new_name: str, new: Any, *, same_shape: bool | None = None) -> bool:
    """True when ``old`` (named ``old_name``) and ``new`` have one shape, and, for a plain one (at most one
    keyword), similar names or descriptions. ``same_shape``: already known (the shapes compared once)."""
    if same_shape is None:
        same_shape = canonical(shape(old)) == canonical(shape(new))
    if not same_shape:
        return False
    plain = not isinstance(old, dict) or len(shape(old)) <= 1
    if not plain:
        return True
    describe = [s.get("description") if isinstance(s, dict) else None for s in (old, new)]
    return _alike(old_name, new_name) or all(isinstance(d, str) for d in describe) and _alike(*describe)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Pairing:
    """Renames found between removed and added items: ``pairs`` (removed key → added key) and the keys whose
    renames were not searched, the pairs to compare being past ``PAIR_BUDGET`` (``unsearched``: removed keys,
    added keys), reported as removed and added with ``UNSEARCHED_TAG``."""

    pairs: dict[str, str] = field(default_factory=dict)
    unsearched: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())


def _unique_pairs(
    removed: dict[str, Any], added: dict[str, Any], looks: Callable[[str, Any, str, Any], bool] | None = None
) -> Pairing:
    """``removed key → added key`` for each removed item that looks renamed (``looks``, default ``looks_renamed``)
    to exactly one added item that no other removed item looks renamed to."""
    if looks is None or looks is looks_renamed:
        return _unique_by_shape(removed, added)
    matches: dict[str, list[str]] = {}
    if len(removed) * len(added) > PAIR_BUDGET:  # uniqueness unknown: no pair is called a rename
        return Pairing({}, (frozenset(removed), frozenset(added)))
    for r, old in removed.items():
        matches[r] = []
        for a, new in added.items():
            guard.check()
            if looks(r, old, a, new):
                matches[r].append(a)
    return Pairing(_unique(matches))


def _unique(matches: dict[str, list[str]]) -> dict[str, str]:
    """The pairs of ``matches`` (removed key → the added keys it looks renamed to) that are one to one."""
    claimed: dict[str, int] = {}
    for found in matches.values():
        for a in found:
            claimed[a] = claimed.get(a, 0) + 1
    return {r: found[0] for r, found in matches.items() if len(found) == 1 and claimed[found[0]] == 1}


def _unique_by_shape(removed: dict[str, Any], added: dict[str, Any]) -> Pairing:
    """``_unique_pairs`` for ``looks_renamed``: the items bucketed by shape (each made canonical once, a linear
    pass), pairs only tried within a bucket. Of a shape that is not plain every pair looks renamed, so a pair is
    unique only alone in its bucket (no pair tried); a plain shape's pairs are compared by name or description, at
    most ``PAIR_BUDGET`` of them in all (a bucket past what is left is skipped: its items stay removed and added,
    uniqueness being decided within one bucket). Each item and pair counts against ``--time-budget``."""
    buckets: dict[str, tuple[list[str], list[str]]] = {}
    for r, old in removed.items():
        guard.check()
        buckets.setdefault(canonical(shape(old)), ([], []))[0].append(r)
    for a, new in added.items():
        guard.check()
        bucket = buckets.get(canonical(shape(new)))
        if bucket is not None:
            bucket[1].append(a)
    out: dict[str, str] = {}
    skipped: tuple[set[str], set[str]] = (set(), set())
    budget = PAIR_BUDGET
    for olds, news in buckets.values():
        if not news:
            continue
        first = removed[olds[0]]
        if isinstance(first, dict) and len(shape(first)) > 1:  # not plain: one shape is a rename
            if len(olds) == len(news) == 1:
                out[olds[0]] = news[0]
            continue
        if len(olds) * len(news) > budget:
            skipped[0].update(olds)
            skipped[1].update(news)
            continue
        budget -= len(olds) * len(news)
        matches: dict[str, list[str]] = {}
        for r in olds:
            matches[r] = []
            for a in news:
                guard.check()
                if looks_renamed(r, removed[r], a, added[a], same_shape=True):
                    matches[r].append(a)
        out.update(_unique(matches))
    return Pairing(out, (frozenset(skipped[0]), frozenset(skipped[1])))


def tool_renames(old_tools: dict[str, Any], new_tools: dict[str, Any]) -> Pairing:
    """The ``Pairing`` of tools gone from ``new_tools`` (``pairs``: old name → new name) with the added tools
    whose input and output schemas they have (``looks_renamed`` on both; a tool without arguments or output schema
    pairs only by similar name or description), and the names not searched (past ``PAIR_BUDGET``)."""
    gone = {n: t for n, t in old_tools.items() if n not in new_tools}
    came = {n: t for n, t in new_tools.items() if n not in old_tools}
    if not gone or not came:
        return Pairing()

    def schemas(tool: dict[str, Any]) -> dict[str, Any]:
        return {
            "input": tool.get("inputSchema"),
            "output": tool.get("outputSchema"),
            "description": tool.get("description"),
        }

    return _unique_pairs({n: schemas(t) for n, t in gone.items()}, {n: schemas(t) for n, t in came.items()})


def renamed_tool_finding(removed: Finding, new_name: str) -> Finding:
    """The ``tool-renamed`` finding of ``removed`` (its ``tool-removed``), the tool now listed as ``new_name``."""
    f = make_finding(
        "tool-renamed",
        removed.tool,
        "",
        Text.of(
            "listed as {new!r} by the {served_server} (same schemas): calls to {old!r} now fail",
            new=new_name,
            old=removed.tool,
        ),
        removed.tool,
        new_name,
    )
    return replace(f, witness=removed.witness, hosts=list(removed.hosts), server=removed.server)


def _property_at(schema: Any, ptr: str) -> Any:
    node = schema
    for token in pointer_tokens(ptr):
        if not isinstance(node, dict) or token not in node:
            return None
        node = node[token]
    return node


def _argument(f: Finding) -> tuple[str, str] | None:
    """``(parent pointer, key)`` of an argument finding at ``…/properties/<key>``, else ``None``."""
    tokens = pointer_tokens(f.pointer)
    if len(tokens) < 2 or tokens[-2] != "properties":
        return None
    return pointer(tokens[:-2]), tokens[-1]


def _key_of(f: Finding) -> Any:
    """The ``key`` slot of a finding's detail (the argument an ``input-required-removed`` is about)."""
    return dict(f.detail.args).get("key")


def merge_argument_renames(findings: list[Finding], old_schema: Any, new_schema: Any) -> list[Finding]:
    """One tool's findings with each renamed argument (removed and added at one object, ``looks_renamed``) as one
    ``input-argument-renamed`` finding in place of the removed one and the added one; an argument gone (renamed or
    not) has no ``input-required-removed`` beside its removal (it was not made optional); a rename's severity is
    the pair's highest, its witness and server verdict the removed side's when that one breaks, else the added
    side's. Order is kept."""
    return _merged(findings, old_schema, new_schema, looks_renamed)[0]


def _merged(
    findings: list[Finding],
    old_schema: Any,
    new_schema: Any,
    looks: Callable[[str, Any, str, Any], bool],
    limit: int | None = None,
) -> tuple[list[Finding], list[tuple[str, str, str]]]:
    """``merge_argument_renames`` with the pairs ``looks`` finds (at most ``limit``), and the pairs merged:
    ``(parent pointer, old key, new key)``."""
    by_parent: dict[str, tuple[dict[str, Finding], dict[str, Finding]]] = {}
    for f in findings:
        where = _argument(f) if f.direction == "input" and not f.tags else None
        if where is None or f.rule not in (*REMOVED_ARGUMENT, *ADDED_ARGUMENT):
            continue
        gone, came = by_parent.setdefault(where[0], ({}, {}))
        (gone if f.rule in REMOVED_ARGUMENT else came)[where[1]] = f
    merged: dict[int, Finding] = {}
    dropped: set[int] = set()
    unsearched: set[int] = set()
    pairs: list[tuple[str, str, str]] = []
    for parent, (gone, came) in by_parent.items():
        olds = {k: _property_at(old_schema, f.pointer) for k, f in gone.items()}
        news = {k: _property_at(new_schema, f.pointer) for k, f in came.items()}
        pairing = _sole_required_swap(old_schema, new_schema, parent, olds, news) if looks is looks_renamed else None
        pairing = pairing or _unique_pairs(olds, news, looks)
        for key in pairing.unsearched[0]:
            unsearched.add(id(gone[key]))
        for key in pairing.unsearched[1]:
            unsearched.add(id(came[key]))
        for old_key, new_key in pairing.pairs.items():
            if limit is not None and len(pairs) >= limit:
                break
            pairs.append((parent, old_key, new_key))
            a, b = gone[old_key], came[new_key]
            lead = a if SEVERITY_RANK[a.severity] >= SEVERITY_RANK[b.severity] else b
            detail = (
                Text.of("argument {old!r} looks renamed to {new!r} (same schema)", old=old_key, new=new_key)
                if looks is looks_renamed
                else Text.of(
                    "argument {old!r} looks renamed to {new!r}, its schema changed too (reported under the new name)",
                    old=old_key,
                    new=new_key,
                )
            )
            f = make_finding("input-argument-renamed", a.tool, b.pointer, detail, old_key, new_key)
            merged[id(a)] = replace(
                f,
                severity=lead.severity,
                old_pointer=a.pointer,
                new_pointer=b.pointer,
                witness=lead.witness,
                hosts=list(lead.hosts),
                server=lead.server,
            )
            dropped.add(id(b))
        # an argument gone (renamed or not) is not "made optional": its removal is the finding
        required = pointer([*pointer_tokens(parent), "required"])
        dropped.update(
            id(f)
            for f in findings
            if f.rule == "input-required-removed" and f.pointer == required and dict(f.detail.args).get("key") in gone
        )
    out = [merged.get(id(f), f) for f in findings if id(f) not in dropped]
    return [unsearched_tagged(f) if id(f) in unsearched else f for f in out], pairs


def _sole_required_swap(
    old_schema: Any, new_schema: Any, parent: str, olds: dict[str, Any], news: dict[str, Any]
) -> Pairing | None:
    """The one rename of an object where exactly one argument is gone and one added, each required on its side,
    with one shape, however plain (``to`` → ``recipient``, both ``{"type": "string"}``): every cached call still
    sends the old name and none sends the new one. None otherwise (then ``looks_renamed`` decides)."""
    if len(olds) != 1 or len(news) != 1:
        return None
    (old_key, old), (new_key, new) = next(iter(olds.items())), next(iter(news.items()))

    def required(schema: Any, key: str) -> bool:
        node = _property_at(schema, parent)
        listed = node.get("required") if isinstance(node, dict) else None
        return isinstance(listed, list) and key in listed

    if not (required(old_schema, old_key) and required(new_schema, new_key)):
        return None
    return Pairing({old_key: new_key}) if canonical(shape(old)) == canonical(shape(new)) else None


def unsearched_tagged(f: Finding) -> Finding:
    """``f`` (a removed or added finding) tagged ``UNSEARCHED_TAG``: whether it is half of a rename is not known."""
    return f if UNSEARCHED_TAG in f.tags else replace(f, tags=[*f.tags, UNSEARCHED_TAG])


def unsearched_note(findings: list[Finding]) -> str | None:
    """The run's note when some findings carry ``UNSEARCHED_TAG`` (``None`` when none does): how many removed
    and added tools or arguments were left unpaired, and why."""
    tagged = [f for f in findings if UNSEARCHED_TAG in f.tags]
    if not tagged:
        return None
    tools = sorted({f.tool for f in tagged})
    shown = ", ".join(tools[:5]) + (f" and {len(tools) - 5} more" if len(tools) > 5 else "")
    return (
        f"renames were not searched for {len(tagged)} removed or added tools or arguments ({shown}): more than "
        f"{PAIR_BUDGET:,} pairs to compare with one shape; they are reported as removed and added (tag "
        f"{UNSEARCHED_TAG})"
    )


#: Keywords (annotations aside) that may differ between the two sides of a rename whose schema changed too.
CHANGED_KEYWORDS = 2
#: Renames with a changed schema looked for per tool (each costs one more comparison of the tool's inputSchema).
MAX_CHANGED_RENAMES = 8


def looks_renamed_changed(old_name: str, old: Any, new_name: str, new: Any) -> bool:
    """True when ``old`` (named ``old_name``) and ``new`` declare one ``type`` and the same keywords (annotations
    aside), the values of at least one and at most ``CHANGED_KEYWORDS`` of them changed, and have similar names or
    descriptions: an argument renamed whose schema changed too (an enum value added, a bound moved). Cost: one
    canonical text per keyword."""
    if not (isinstance(old, dict) and isinstance(new, dict)) or "type" not in old:
        return False
    if canonical(old.get("type")) != canonical(new.get("type")):
        return False
    a, b = shape(old), shape(new)
    if a.keys() != b.keys():
        return False
    differ = [k for k in a if canonical(a[k]) != canonical(b[k])]
    if not 0 < len(differ) <= CHANGED_KEYWORDS:
        return False
    describe = [old.get("description"), new.get("description")]
    return _alike(old_name, new_name) or all(isinstance(d, str) for d in describe) and _alike(*describe)  # type: ignore[arg-type]


def changed_renames(
    findings: list[Finding], old_schema: Any, new_schema: Any, compare: Callable[[Any], list[Finding]]
) -> list[Finding]:
    """One tool's input findings (after ``merge_argument_renames``) with each argument renamed whose schema changed
    too (``looks_renamed_changed``, removed and added at one object, paired uniquely) as one
    ``input-argument-renamed`` finding in place of the removed one, the added one and the old key's
    ``input-required-removed``, and after it the findings of the change: ``compare(renamed)``, the comparison of
    ``renamed`` (the cached inputSchema with the old argument under its new name) with the new inputSchema, those
    at or under the new argument's pointer (their witnesses: calls with the new name that the cached schema
    allowed under the old one). At most ``MAX_CHANGED_RENAMES`` pairs; order of the others kept."""
    merged, pairs = _merged(findings, old_schema, new_schema, looks_renamed_changed, MAX_CHANGED_RENAMES)
    out = merged
    for parent, old_key, new_key in pairs:
        renamed = _renamed_argument(old_schema, parent, old_key, new_key)
        if renamed is None:
            continue
        at = pointer([*pointer_tokens(parent), "properties", new_key])
        out += [f for f in compare(renamed) if f.pointer == at or f.pointer.startswith(at + "/")]
    return out


def _renamed_argument(schema: Any, parent: str, old_key: str, new_key: str) -> Any:
    """A copy of ``schema`` with the argument ``old_key`` of the object at ``parent`` listed as ``new_key`` (in its
    place, and in ``required``), or None when that object is not where the pointer says."""
    out = copy.deepcopy(schema)
    node = _property_at(out, parent)
    if not isinstance(node, dict) or not isinstance(node.get("properties"), dict) or new_key in node["properties"]:
        return None
    node["properties"] = {new_key if k == old_key else k: v for k, v in node["properties"].items()}
    if isinstance(node.get("required"), list):
        node["required"] = [new_key if k == old_key else k for k in node["required"]]
    return out
