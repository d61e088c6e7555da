"""Scalars: numeric bounds and ``multipleOf``, string lengths and ``pattern``, ``format``.

Every change is one issue with its own witness: two bounds added are two findings, each proven by
a value that the other side rejects for that keyword alone (``WalkContext.pick`` with the keyword),
so accepting one finding never hides another. ``bound_issues`` compares one bound keyword for the
other families too (``minItems``, ``maxProperties`` …). ``type`` and ``enum``/``const`` are in
``values``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from mcp_schema_audit.engine.context import WalkContext
from mcp_schema_audit.engine.formatted import formatted_strings
from mcp_schema_audit.engine.issue import NO_WITNESS, Issue, IssueKind, canon, short
from mcp_schema_audit.engine.nodes import Node
from mcp_schema_audit.engine.regex_strings import regex_examples
from mcp_schema_audit.engine.sampler import (
    FORMAT_SAMPLES,
    MAX_WITNESS_LENGTH,
    bound,
    number_candidates,
    string_candidates,
)
from mcp_schema_audit.engine.settle import is_number
from mcp_schema_audit.engine.values import common_types
from mcp_schema_audit.schema import type_set
from mcp_schema_audit.wording import Text

_UNICODE_LOOKALIKES = str.maketrans({**{str(d): chr(0x0660 + d) for d in range(10)}, "a": "é", "e": "é", "x": "ж"})
#: Hosts that check ``format`` (ajv-formats); python-sdk does not.
_FORMAT_CHECKING = ("ts-sdk-v2", "ts-sdk-v1")


def regex_dialect_candidates(texts: list[Any]) -> list[str]:
    """Variants of ``texts`` on which regex engines (Python's, ECMAScript's, pydantic-core's Rust) disagree or a
    rewritten pattern stops matching: a trailing newline (``$``), Unicode digits and letters (``\\d``, ``\\w``),
    line separators (``.``) and Unicode spaces (``\\s``), first; then a newline or carriage return inside
    (``(?s)``, ``[^\\r]``), a combining mark, a superscript digit (Rust's ``\\w`` leaves it out), the case of the
    last letter and of all letters changed (scoped and global ``(?i)``), for the first 3 texts. Each kind for every
    text before the next kind, so a caller's cap keeps some of each."""
    strings = [x for x in texts if isinstance(x, str)][:8]
    kinds: tuple[Callable[[str], str], ...] = (
        lambda s: s + "\n",
        lambda s: s.translate(_UNICODE_LOOKALIKES),
        lambda s: s + "\u2028",
        lambda s: s.replace(" ", "\u0085"),
        lambda s: s[:1] + "\n" + s[1:],
        lambda s: s[:1] + "\r" + s[1:],
        lambda s: s[:1] + "\n" + s[2:],
        lambda s: s + "\u0301",
        lambda s: s + "\u00b2",
        lambda s: s[:-1] + s[-1:].swapcase(),
        lambda s: s.swapcase(),
    )
    out = [kind(s) for i, kind in enumerate(kinds) for s in (strings if i < 4 else strings[:3])]
    return list(dict.fromkeys(x for x in out if x not in texts))


def int_or(x: Any, default: int) -> int:
    """``x`` when it is an integer (not a bool), else ``default``."""
    return x if isinstance(x, int) and not isinstance(x, bool) else default


def _is_multiple(a: Any, b: Any) -> bool:
    """Is ``a`` a whole multiple of ``b`` as the numbers are written (``0.01`` of ``0.001``: yes), compared exactly
    as decimals (no tolerance: ``1e-10`` is no multiple of ``0.3``)?"""
    try:
        q = Decimal(repr(a)) / Decimal(repr(b))
        return bool(q == q.to_integral_value())
    except (ArithmeticError, TypeError, ValueError):
        return False


def _float_step(x: Any) -> bool:
    """Is ``x`` a ``multipleOf`` validators divide by in floating point (a number with a fractional part)? jsonschema
    divides by a float and checks the quotient is whole; Ajv checks ``x / m`` against its integer part; an integer
    step is an exact remainder in jsonschema."""
    return isinstance(x, float) and math.isfinite(x) and not x.is_integer()


def decimal_multiples(step: Any, near: list[Any], count: int = 60) -> list[float]:
    """Numbers written as whole multiples of ``step`` (``0.35`` for ``0.01``: the decimal product, then the nearest
    double, as a caller writes it), ``count`` of them from 0 and a few from each of ``near`` (the bounds): the values
    a schema with ``multipleOf: step`` declares, where a finer step's float division may refuse one (``0.35 /
    0.001`` is ``349.99999999999994``)."""
    try:
        d = Decimal(repr(step))
    except (ArithmeticError, TypeError, ValueError):
        return []
    if not d.is_finite() or d <= 0:
        return []
    starts = [(0, count)]
    for b in near:
        if is_number(b) and math.isfinite(b):
            try:
                starts.append((int((Decimal(repr(b)) / d).to_integral_value()), count // 6))
            except (ArithmeticError, ValueError):
                continue
    out: list[float] = []
    for first, many in starts:
        for k in range(first, first + many):
            try:
                x = float(d * k)
            except (ArithmeticError, OverflowError):
                break
            if math.isfinite(x):
                out.append(x)
    return list(dict.fromkeys(out))


def _bound_delta(kw: str, p_val: Any, v_val: Any) -> dict[str, Any]:
    return {"keyword": kw, "P": p_val, "V": v_val}


def bound_issues(
    ctx: WalkContext,
    p: dict[str, Any],
    v: dict[str, Any],
    kw: str,
    upper: bool,
    cands: list[Any],
    p_val: Any,
    v_val: Any,
    p_steps: list[Any] | None = None,
    v_steps: list[Any] | None = None,
    reject_kw: str | None = None,
) -> list[Issue]:
    """Compare one bound keyword; P looser than V is breaking, with a witness from ``cands`` that V
    rejects for this keyword (``reject_kw`` when another keyword enforces the bound: ``items: false``)."""
    if canon(p_val) == canon(v_val):
        return []
    p_steps = ([kw] if kw in p else []) if p_steps is None else p_steps
    v_steps = ([kw] if kw in v else []) if v_steps is None else v_steps
    if not all(x is None or is_number(x) for x in (p_val, v_val)):
        return [Issue("invalid", p_steps, v_steps, p_val, v_val, Text.of("{kw} is not a number", kw=kw))]
    if v_val is None:
        p_looser = False
    elif p_val is None:
        p_looser = True
    else:
        p_looser = p_val > v_val if upper else p_val < v_val
    kind: IssueKind = "looser-p" if p_looser else "looser-v"
    w = ctx.pick(p, v, cands, reject_kw or kw) if p_looser else NO_WITNESS
    what = "none" if p_val is None else short(p_val)
    return [
        Issue(
            kind,
            p_steps,
            v_steps,
            p_val,
            v_val,
            Text.of(
                "{kw} {what} in the {P} schema, {value} in the {V} schema",
                kw=kw,
                what=what,
                value="none" if v_val is None else short(v_val),
            ),
            w,
            delta=_bound_delta(kw, p_val, v_val),
        )
    ]


# -- numbers -------------------------------------------------------------------------------------------------
def numbers(ctx: WalkContext, p: Node, v: Node, depth: int) -> list[Issue]:
    """The family of numbers: lower and upper bounds (inclusive or exclusive), then ``multipleOf``. Candidates
    are integers when the types both sides allow are integers only."""
    common = common_types(type_set(p), type_set(v))
    integer = common is not None and "number" not in common
    out: list[Issue] = []
    cands = number_candidates(p, integer=integer) + number_candidates(v, integer=integer)
    for which, upper in (("min", False), ("max", True)):
        out += _number_bound(ctx, p, v, which, upper, cands)
    pm, vm = p.get("multipleOf"), v.get("multipleOf")
    if canon(pm) != canon(vm):
        p_looser = vm is not None and (pm is None or not _is_multiple(pm, vm))
        extra = [
            x for x in (pm, vm / 2 if is_number(vm) else None, vm * 1.5 if is_number(vm) else None) if is_number(x)
        ]
        w = ctx.pick(p, v, cands + extra, "multipleOf") if p_looser else NO_WITNESS
        if not p_looser and vm is not None and (_float_step(pm) or _float_step(vm)):
            # P's step is a multiple of V's as written, but the validators divide in floating point: a value P
            # takes that V's division refuses is looser P all the same (0.35 under 0.01, not under 0.001)
            w = ctx.pick(p, v, decimal_multiples(pm, cands), "multipleOf")
            p_looser = w is not NO_WITNESS
        out.append(
            Issue(
                "looser-p" if p_looser else "looser-v",
                ["multipleOf"] if pm is not None else [],
                ["multipleOf"] if vm is not None else [],
                pm,
                vm,
                Text.of("multipleOf {pm} in the {P} schema, {vm} in the {V} schema", pm=pm, vm=vm),
                w,
                delta=_bound_delta("multipleOf", pm, vm),
            )
        )
    return out


def _number_bound(ctx: WalkContext, p: Node, v: Node, which: str, upper: bool, cands: list[Any]) -> list[Issue]:
    """The lower (``which="min"``) or upper bound compared: the same bound made exclusive or inclusive, or moved
    (``bound_issues``, on the keyword each side spells it with)."""
    pb, px = bound(p, which)
    vb, vx = bound(v, which)
    if (pb, px) == (vb, vx):
        return []
    kw = ("exclusiveM" if (px or vx) else "m") + ("aximum" if upper else "inimum")
    if pb is not None and vb is not None and pb == vb:
        p_looser = vx and not px
        kind: IssueKind = "looser-p" if p_looser else "looser-v"
        w = ctx.pick(p, v, cands, kw) if p_looser else NO_WITNESS
        return [
            Issue(
                kind,
                [kw] if kw in p else [],
                [kw] if kw in v else [],
                pb,
                vb,
                Text.of(
                    "bound {pb} is {value} in the {P} schema, {value_2} in the {V} schema",
                    pb=pb,
                    value="exclusive" if px else "inclusive",
                    value_2="exclusive" if vx else "inclusive",
                ),
                w,
                delta=_bound_delta(kw, pb, vb),
            )
        ]
    p_kw = next((k for k in ("exclusiveM" if px else "m", "m", "exclusiveM") if k + kw[-6:] in p), None)
    v_kw = next((k for k in ("exclusiveM" if vx else "m", "m", "exclusiveM") if k + kw[-6:] in v), None)
    return bound_issues(
        ctx,
        p,
        v,
        (v_kw or p_kw or "m") + kw[-6:],
        upper,
        cands,
        pb,
        vb,
        [p_kw + kw[-6:]] if p_kw else [],
        [v_kw + kw[-6:]] if v_kw else [],
    )


# -- strings -------------------------------------------------------------------------------------------------
def strings(ctx: WalkContext, p: Node, v: Node, depth: int) -> list[Issue]:
    """The family of strings: ``minLength``/``maxLength``, then V's ``pattern`` (a string P allows that it
    rejects, for some host's regex reading; else a warning that inclusion is not proven)."""
    out: list[Issue] = []
    min_length, max_length = p.get("minLength"), p.get("maxLength")
    lo: int = min_length if isinstance(min_length, int) else 0
    hi: int | None = max_length if isinstance(max_length, int) else None
    base = ctx.sample_p({**p, "type": "string"})
    base = base if isinstance(base, str) and base else "a"
    v_max, v_min = int_or(v.get("maxLength"), -1), int_or(v.get("minLength"), -1)
    lengths = [lo, v_max + 1 if v_max >= 0 else None, max(v_min - 1, 0) if v_min >= 0 else None, hi]
    cands = [(base * (n // len(base) + 1))[:n] for n in lengths if n is not None and 0 <= n <= MAX_WITNESS_LENGTH]
    cands += string_candidates(lo, hi, extra=(base,))
    cands = _formatted(p, v, lo, hi, [n for n in lengths if n is not None]) + cands
    for kw, upper in (("minLength", False), ("maxLength", True)):
        out += bound_issues(ctx, p, v, kw, upper, cands, p.get(kw), v.get(kw))
    pp, vp = p.get("pattern"), v.get("pattern")
    if pp != vp and vp is not None:
        out.append(_pattern(ctx, p, v, pp, vp, cands))
    return out


def _formatted(p: Node, v: Node, lo: int, hi: int | None, lengths: list[int]) -> list[Any]:
    """Strings that meet the formats of P's and V's nodes (those some host asserts), P's pattern first and V's
    pattern last (``formatted.formatted_strings``): witnesses of the keywords beside a format that the
    format-checking hosts accept on P's side. Strings of P's format alone when none meets both formats."""
    pf, vf = p.get("format"), v.get("format")
    want = tuple(x for x in (p.get("pattern"),) if isinstance(x, str))
    avoid = tuple(x for x in (v.get("pattern"),) if isinstance(x, str))
    for fmts in ((pf, vf), (pf,)):
        out = formatted_strings(tuple(f for f in fmts if isinstance(f, str)), lo, hi, lengths, want, avoid)
        if out:
            return list(out)
    return []


def _pattern(ctx: WalkContext, p: Node, v: Node, pp: Any, vp: Any, cands: list[Any]) -> Issue:
    """V's ``pattern`` ``vp`` beside P's ``pp`` (or none): a witness P allows and V's regex rejects, tried with
    python-sdk, then on strings where Python and ECMAScript regexes disagree for every host. Strings built from
    P's own pattern come first: its literal characters (``[a-z٣]``) are where the readings part."""
    own = regex_examples(pp) if isinstance(pp, str) else []
    w = ctx.pick(p, v, own + cands, "pattern")
    if w is NO_WITNESS:
        w = ctx.pick_any_profile(p, v, regex_dialect_candidates(own + cands + regex_examples(str(vp))), "pattern")
    if w is not NO_WITNESS:
        what = " has no pattern" if pp is None else f"'s pattern {short(pp)} admits strings"
        return Issue(
            "looser-p",
            ["pattern"] if pp else [],
            ["pattern"],
            pp,
            vp,
            Text.of("the {P} schema{what}, the {V} schema's pattern {vp} rejects some", what=what, vp=short(vp)),
            w,
            delta={"keyword": "pattern", "V": vp},
        )
    return Issue(
        "pattern",
        ["pattern"] if pp else [],
        ["pattern"],
        pp,
        vp,
        Text.of(
            ("pattern {vp} in the {V} schema, {value} in the {P} schema: inclusion not proven"),
            vp=short(vp),
            value="none" if pp is None else short(pp),
        ),
    )


# -- format --------------------------------------------------------------------------------------------------
def formats(ctx: WalkContext, p: Node, v: Node, depth: int) -> list[Issue]:
    """``format`` dropped or changed: breaks format-checking hosts (witness checked per TS profile). Formats no
    host asserts never get here: normalization drops them (``settle.finish``)."""
    pf, vf = p.get("format"), v.get("format")
    if pf == vf or vf is None:
        return []
    w = _format_witness(ctx, p, v, pf, vf)
    return [
        Issue(
            "format",
            ["format"] if pf else [],
            ["format"],
            pf,
            vf,
            Text.of(
                (
                    "format {vf} in the {V} schema, {value} in the {P} schema: "
                    "format-checking hosts reject values outside it"
                ),
                vf=short(vf),
                value=short(pf) if pf else "none",
            ),
            w,
        )
    ]


def _format_witness(ctx: WalkContext, p: Node, v: Node, pf: Any, vf: Any) -> Any:
    """A value P's node declares for the format-checking hosts (its own format, its pattern and bounds met) that
    V's ``format`` rejects for as many of them as possible; ``NO_WITNESS`` when none is found."""
    lo, hi = int_or(p.get("minLength"), 0), p.get("maxLength") if isinstance(p.get("maxLength"), int) else None
    pattern = p.get("pattern")
    want = (pattern,) if isinstance(pattern, str) else ()
    cands: list[Any] = []
    if isinstance(pf, str):
        # values of P's own format first (date-time where V says date): what P's side sends
        cands += formatted_strings((pf,), lo, hi, (lo,), want)[:96]
        own = FORMAT_SAMPLES.get(pf)
        cands += [own] if own else []
    cands += [x for pat in want for x in regex_examples(pat)]
    cands += ["not-a-" + str(vf).replace("-", ""), "not a valid value", "%%%", "x", ctx.sample_p(p)]
    cands += [3_000_000_000, 2**63, 0.5, -1]
    best: list[str] = []
    chosen = NO_WITNESS
    for cand in cands:
        if cand is NO_WITNESS:
            continue
        hosts = ctx.witness_hosts(p, v, cand, "format", _FORMAT_CHECKING)
        if len(hosts) > len(best):
            best, chosen = hosts, cand
            if len(hosts) == len(_FORMAT_CHECKING):
                break
    return chosen
