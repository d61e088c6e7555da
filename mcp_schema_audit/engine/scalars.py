"""Scalars: ``type``, ``enum``/``const``, numeric and string bounds, ``pattern``, ``format``, ``nullable``.

Every change is one issue with its own witness: a type narrowed and two bounds added are three
findings, each proven by a value that the other side rejects for that keyword alone (``_pick`` with
the keyword), so accepting one finding never hides another.
"""

from __future__ import annotations

from typing import Any

from mcp_schema_audit.engine.issue import NO_WITNESS, Issue, canon, short, value_key
from mcp_schema_audit.engine.normalize import is_number
from mcp_schema_audit.engine.sampler import (
    FORMAT_SAMPLES,
    MAX_WITNESS_LENGTH,
    bound,
    number_candidates,
    regex_examples,
    string_candidates,
)
from mcp_schema_audit.schema import json_type, type_set

#: Enum values (both sides together) compared value by value; more → a ``schema-undecidable`` warning.
MAX_ENUM = 20_000
_TYPE_ORDER = ("string", "integer", "boolean", "object", "array", "null", "number")


def _regex_dialect_candidates(strings: list[Any]) -> list[str]:
    """Variants of ``strings`` on which Python and ECMAScript regexes disagree: a trailing newline (``$``),
    Unicode digits and letters (``\\d``, ``\\w``), line separators (``.``) and Unicode spaces (``\\s``)."""
    out: list[str] = []
    for s in [x for x in strings if isinstance(x, str)][:8]:
        out += [s + "\n", s.translate(_UNICODE_LOOKALIKES), s + "\u2028", s.replace(" ", "\u0085")]
    return list(dict.fromkeys(x for x in out if x not in strings))


_UNICODE_LOOKALIKES = str.maketrans({**{str(d): chr(0x0660 + d) for d in range(10)}, "a": "é", "e": "é", "x": "ж"})


def _is_multiple(a: Any, b: Any) -> bool:
    try:
        q = a / b
        return abs(q - round(q)) < 1e-9
    except (TypeError, ZeroDivisionError, OverflowError):
        return False


def _int(x: Any, default: int) -> int:
    return x if isinstance(x, int) and not isinstance(x, bool) else default


def _allowed(ts: set[str], t: str) -> bool:
    return t in ts or (t == "integer" and "number" in ts)


def _bound_delta(kw: str, p_val: Any, v_val: Any) -> dict[str, Any]:
    return {"keyword": kw, "P": p_val, "V": v_val}


class ScalarsMixin:
    """Scalars: ``type``, ``enum``/``const``, numeric and string bounds, ``pattern``, ``format``, ``nullable``."""

    @staticmethod
    def _nullable(p: dict[str, Any], v: dict[str, Any]) -> list[Issue]:
        """OpenAPI ``nullable: true`` beside ``type``, which Ajv (both TS SDKs) honours and jsonschema ignores.

        Breaks TS hosts when only P has it: before ``{"type": "string"}``, after ``{"type": "string",
        "nullable": true}`` as an outputSchema: a server built from it may return ``null``, and a
        cached TS host rejects it (``must be string``). Source: Ajv ``lib/compile/validate/dataType.ts``
        (``getSchemaTypes`` adds "null"). The witness is ``null``; ``_confirm`` finds which profiles break.
        """

        def ajv_only(node: dict[str, Any]) -> bool:
            ts = type_set(node)
            return node.get("nullable") is True and ts is not None and "null" not in ts

        pn, vn = ajv_only(p), ajv_only(v)
        if pn == vn:
            return []
        if pn:
            v_types = type_set(v)
            if v_types is None or "null" in v_types or "enum" in v or "const" in v:
                return []
            return [
                Issue(
                    "type-extra-p",
                    ["nullable"],
                    ["type"],
                    True,
                    v.get("type"),
                    "nullable: true in the {P} schema: hosts on Ajv (the TS SDKs) take null there, the {V} "
                    "schema does not",
                    None,
                    delta={"type": "null"},
                )
            ]
        p_types = type_set(p)
        if p_types is not None and "null" in p_types:
            return []  # P's type lists null itself: the type comparison reports it for jsonschema hosts
        return [
            Issue(
                "type-extra-v",
                [],
                ["nullable"],
                None,
                True,
                "nullable: true in the {V} schema only: hosts on Ajv (the TS SDKs) also take null there",
                delta={"type": "null"},
            )
        ]

    @staticmethod
    def _types_of(node: dict[str, Any]) -> set[str] | None:
        ts = type_set(node)
        if ts is None:
            vals = (
                node.get("enum")
                if isinstance(node.get("enum"), list)
                else ([node["const"]] if "const" in node else None)
            )
            if vals is not None:
                return {json_type(x) for x in vals}
        return ts

    _allowed = staticmethod(_allowed)

    def _sample_typed(self, p: dict[str, Any], t: str) -> Any:
        node = {k: val for k, val in p.items() if k not in ("enum", "const")}
        node["type"] = t
        got = self._sample_p(node)  # type: ignore[attr-defined]
        if got is NO_WITNESS:
            return {
                "string": "x",
                "integer": 0,
                "number": 0.5,
                "boolean": True,
                "null": None,
                "object": {},
                "array": [],
            }[t]
        return got

    def _type_candidates(self, p: dict[str, Any], t: str) -> list[Any]:
        """Values of JSON type ``t`` that P's node may declare: its own values of that type, then samples
        (for ``number``: non-integers, which an ``integer`` type rejects)."""
        cands = [x for x in (self._values(p) or []) if json_type(x) == t]
        if t == "number":
            cands += [c for c in number_candidates(p, integer=False) if isinstance(c, float) and not c.is_integer()]
            cands += [0.5, 1.5]
            lo, _ = bound(p, "min")
            if lo is not None:
                cands.append(lo + 0.5)
        cands.append(self._sample_typed(p, t))
        return cands

    def _type_issues(self, p: dict[str, Any], v: dict[str, Any]) -> tuple[list[Issue], set[str] | None]:
        """``type`` compared: ``(issues, the types both sides allow)`` (``None`` = every type)."""
        issues: list[Issue] = []
        tp, tv = type_set(p), type_set(v)
        if tv is None:
            if tp is not None:
                issues.append(
                    Issue(
                        "type-extra-v",
                        ["type"],
                        [],
                        p.get("type"),
                        None,
                        f"the {{P}} schema has type {short(p.get('type'))}, the {{V}} schema has none",
                    )
                )
            return issues, tp
        if tp is None:
            others = [t for t in _TYPE_ORDER if not _allowed(tv, t)]
            cands = [c for t in others for c in self._type_candidates(p, t)]
            w = self._pick(p, v, cands, "type")  # type: ignore[attr-defined]
            issues.append(
                Issue(
                    "type-only-v",
                    [],
                    ["type"],
                    None,
                    v.get("type"),
                    f"the {{P}} schema has no type, the {{V}} schema requires {short(v.get('type'))}",
                    w,
                )
            )
            return issues, tv
        for t in sorted(t for t in tp if not _allowed(tv, t)):
            w = self._pick(p, v, self._type_candidates(p, t), "type")  # type: ignore[attr-defined]
            issues.append(
                Issue(
                    "type-extra-p",
                    ["type"],
                    ["type"],
                    p.get("type"),
                    v.get("type"),
                    f"type {t!r} of the {{P}} schema is not accepted by the {{V}} schema's type {short(v.get('type'))}",
                    w,
                    delta={"type": t},
                )
            )
        missing = [t for t in sorted(tv) if not _allowed(tp, t) and not (t == "number" and "integer" in tp)]
        if missing:
            issues.append(
                Issue(
                    "type-extra-v",
                    ["type"],
                    ["type"],
                    p.get("type"),
                    v.get("type"),
                    f"type {short(v.get('type'))} in the {{V}} schema, {short(p.get('type'))} in the {{P}} schema",
                )
            )
        common = {t for t in tp if _allowed(tv, t)} | {"integer" for t in tp if t == "number" and "integer" in tv}
        return issues, common

    def _value_issues(self, p: dict[str, Any], v: dict[str, Any]) -> list[Issue] | None:
        """``enum``/``const`` compared (normalized nodes: a value set stands for its whole node); None when
        neither side lists values (the caller compares types and the other keywords)."""
        if not any(k in node for node in (p, v) for k in ("enum", "const")):
            return None
        pv, vv = self._values(p), self._values(v)
        if pv is None and vv is None:
            return None  # a malformed enum (not an array): the type and other keywords decide
        out: list[Issue] = []
        kw_p = "const" if "const" in p else "enum" if "enum" in p else "type"
        kw_v = "const" if "const" in v else "enum" if "enum" in v else "type"
        if len(pv or []) + len(vv or []) > MAX_ENUM:
            return [
                Issue(
                    "undecidable",
                    [],
                    [],
                    None,
                    None,
                    f"enum with more than {MAX_ENUM} values is not compared value by value",
                )
            ]
        if pv is None:
            assert vv is not None
            return out + self._enum_only_v(p, v, vv, kw_v)
        v_keys = {value_key(y) for y in vv} if vv is not None else set()
        per_host = len(pv) <= 64 and (
            self._host_sensitive(v, self.v_doc)  # type: ignore[attr-defined]
            or self._host_sensitive(p, self.p_doc)
        )  # type: ignore[attr-defined]
        tv = type_set(v) if vv is None else None
        by_type: dict[str, list[Any]] = {}
        for x in pv:
            listed = vv is None or value_key(x) in v_keys
            if (
                listed
                and self._valid(self.v_doc, v, x) is not False
                and not (  # type: ignore[attr-defined]
                    per_host and self._pick_any_profile(p, v, [x]) is not NO_WITNESS
                )
            ):  # type: ignore[attr-defined]
                continue
            if self._valid(self.p_doc, p, x) is False:  # type: ignore[attr-defined]
                continue  # P lists it but its other keywords reject it: never produced
            if vv is None and tv is not None and not _allowed(tv, json_type(x)):
                by_type.setdefault(json_type(x), []).append(x)  # a value of a type V does not take
                continue
            if listed:
                # V lists the value (or lists none) but its other keywords reject it: a tightened constraint
                why = self._rejecting_keyword(v, x)
                out.append(
                    Issue(
                        "looser-p",
                        [kw_p],
                        [why] if why else [],
                        p.get(kw_p),
                        v.get(why) if why else None,
                        f"value {short(x)} of the {{P}} schema is rejected by the {{V}} schema"
                        + (f"'s {why}" if why else ""),
                        x,
                        delta={"value": x},
                    )
                )
                continue
            kind = "const-changed" if kw_p == "const" and kw_v == "const" else "enum-extra-p"
            detail = (
                f"the {{V}} schema accepts no value here, the {{P}} schema allows {short(x)}"
                if not vv
                else f"const {short(x)} in the {{P}} schema, {short(vv[0])} in the {{V}} schema"
                if kind == "const-changed"
                else f"value {short(x)} of the {{P}} schema is not in the {{V}} schema's {kw_v} {short(vv)}"
            )
            out.append(Issue(kind, [kw_p], [kw_v], p.get(kw_p), v.get(kw_v), detail, x, delta={"value": x}))
        for t, xs in by_type.items():
            out.append(
                Issue(
                    "type-extra-p",
                    [kw_p],
                    ["type"],
                    p.get(kw_p),
                    v.get("type"),
                    f"value {short(xs[0])} of the {{P}} schema has type {t!r}, which the {{V}} schema's type "
                    f"{short(v.get('type'))} does not accept",
                    xs[0],
                    delta={"type": t},
                )
            )
        if vv is not None:
            p_keys = {value_key(x) for x in pv}
            extra_v = [y for y in vv if value_key(y) not in p_keys]
            if extra_v and not any(i.kind == "const-changed" for i in out):
                out.append(
                    Issue(
                        "enum-extra-v",
                        [kw_p],
                        [kw_v],
                        p.get(kw_p),
                        v.get(kw_v),
                        f"values {short(extra_v)} are listed only by the {{V}} schema",
                    )
                )
        elif kw_p != "type":
            out.append(
                Issue(
                    "enum-only-p",
                    [kw_p],
                    [],
                    p.get(kw_p),
                    None,
                    f"the {{P}} schema restricts values to {short(pv)}, the {{V}} schema does not",
                )
            )
        return out

    def _rejecting_keyword(self, v: dict[str, Any], value: Any) -> str | None:
        """The keyword of V's node (python-sdk reading) that rejects ``value``, when it is one of the node's own."""
        try:
            errors = list(self._validator(self.v_doc, v, "python-sdk").iter_errors(value))  # type: ignore[attr-defined]
        except Exception:
            return None
        kws = [str(e.validator) for e in errors if not list(e.relative_path) and str(e.validator) in v]
        return kws[0] if kws else None

    def _enum_only_v(self, p: dict[str, Any], v: dict[str, Any], vv: list[Any], kw_v: str) -> list[Issue]:
        """V lists values, P does not: P's values outside V's list are rejected (one finding, one witness)."""
        cands: list[Any] = [self._sample_p(p)]  # type: ignore[attr-defined]
        tp = type_set(p)
        for t in [t for t in _TYPE_ORDER if tp is None or _allowed(tp, t)]:
            cands += self._type_candidates(p, t)
        cands += string_candidates(extra=("other-value", "zzz-not-listed"))
        cands += number_candidates(p, integer=False) + [True, False, None, {}, []]
        cands += [max([x for x in vv if is_number(x)], default=0) + 1]
        w = self._pick(p, v, cands, kw_v)  # type: ignore[attr-defined]
        return [
            Issue(
                "enum-only-v",
                [],
                [kw_v],
                None,
                v.get(kw_v),
                f"the {{P}} schema allows {'any value' if tp is None else 'any ' + '/'.join(sorted(tp))}, "
                f"the {{V}} schema only {short(vv)}",
                w,
            )
        ]

    @staticmethod
    def _values(node: dict[str, Any]) -> list[Any] | None:
        """The closed value set of ``node`` (const, enum, or a null/boolean-only type), filtered by its
        own ``type``; None when values are not enumerable."""
        ts = type_set(node)
        if "const" in node:
            vals = [node["const"]]
        elif isinstance(node.get("enum"), list):
            vals = list(node["enum"])
        elif ts is not None and ts and ts <= {"null", "boolean"}:
            vals = ([None] if "null" in ts else []) + ([True, False] if "boolean" in ts else [])
        else:
            return None
        if ts is not None:
            vals = [x for x in vals if json_type(x) in ts or (json_type(x) == "integer" and "number" in ts)]
        return vals

    def _bounds(
        self,
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
            return [Issue("invalid", p_steps, v_steps, p_val, v_val, f"{kw} is not a number")]
        if v_val is None:
            p_looser = False
        elif p_val is None:
            p_looser = True
        else:
            p_looser = p_val > v_val if upper else p_val < v_val
        kind = "looser-p" if p_looser else "looser-v"
        w = self._pick(p, v, cands, reject_kw or kw) if p_looser else NO_WITNESS  # type: ignore[attr-defined]
        what = "none" if p_val is None else short(p_val)
        return [
            Issue(
                kind,
                p_steps,
                v_steps,
                p_val,
                v_val,
                f"{kw} {what} in the {{P}} schema, {'none' if v_val is None else short(v_val)} in the {{V}} schema",
                w,
                delta=_bound_delta(kw, p_val, v_val),
            )
        ]

    def _numbers(self, p: dict[str, Any], v: dict[str, Any], integer: bool) -> list[Issue]:
        out: list[Issue] = []
        cands = number_candidates(p, integer=integer) + number_candidates(v, integer=integer)
        for which, upper in (("min", False), ("max", True)):
            pb, px = bound(p, which)
            vb, vx = bound(v, which)
            if (pb, px) == (vb, vx):
                continue
            kw = ("exclusiveM" if (px or vx) else "m") + ("aximum" if upper else "inimum")
            if pb is not None and vb is not None and pb == vb:
                p_looser = vx and not px
                kind = "looser-p" if p_looser else "looser-v"
                w = self._pick(p, v, cands, kw) if p_looser else NO_WITNESS  # type: ignore[attr-defined]
                out.append(
                    Issue(
                        kind,
                        [kw] if kw in p else [],
                        [kw] if kw in v else [],
                        pb,
                        vb,
                        f"bound {pb} is {'exclusive' if px else 'inclusive'} in the {{P}} schema, "
                        f"{'exclusive' if vx else 'inclusive'} in the {{V}} schema",
                        w,
                        delta=_bound_delta(kw, pb, vb),
                    )
                )
                continue
            p_kw = next((k for k in ("exclusiveM" if px else "m", "m", "exclusiveM") if k + kw[-6:] in p), None)
            v_kw = next((k for k in ("exclusiveM" if vx else "m", "m", "exclusiveM") if k + kw[-6:] in v), None)
            out += self._bounds(
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
        pm, vm = p.get("multipleOf"), v.get("multipleOf")
        if canon(pm) != canon(vm):
            p_looser = vm is not None and (pm is None or not _is_multiple(pm, vm))
            extra = [
                x for x in (pm, vm / 2 if is_number(vm) else None, vm * 1.5 if is_number(vm) else None) if is_number(x)
            ]
            w = self._pick(p, v, cands + extra, "multipleOf") if p_looser else NO_WITNESS  # type: ignore[attr-defined]
            out.append(
                Issue(
                    "looser-p" if p_looser else "looser-v",
                    ["multipleOf"] if pm is not None else [],
                    ["multipleOf"] if vm is not None else [],
                    pm,
                    vm,
                    f"multipleOf {pm} in the {{P}} schema, {vm} in the {{V}} schema",
                    w,
                    delta=_bound_delta("multipleOf", pm, vm),
                )
            )
        return out

    def _strings(self, p: dict[str, Any], v: dict[str, Any]) -> list[Issue]:
        out: list[Issue] = []
        lo = p.get("minLength") if isinstance(p.get("minLength"), int) else 0
        hi = p.get("maxLength") if isinstance(p.get("maxLength"), int) else None
        base = self._sample_p({**p, "type": "string"})  # type: ignore[attr-defined]
        base = base if isinstance(base, str) and base else "a"
        v_max, v_min = _int(v.get("maxLength"), -1), _int(v.get("minLength"), -1)
        lengths = [lo, v_max + 1 if v_max >= 0 else None, max(v_min - 1, 0) if v_min >= 0 else None, hi]
        cands = [(base * (n // len(base) + 1))[:n] for n in lengths if n is not None and 0 <= n <= MAX_WITNESS_LENGTH]
        cands += string_candidates(lo, hi, extra=(base,))
        for kw, upper in (("minLength", False), ("maxLength", True)):
            out += self._bounds(p, v, kw, upper, cands, p.get(kw), v.get(kw))
        pp, vp = p.get("pattern"), v.get("pattern")
        if pp != vp and vp is not None:
            w = self._pick(p, v, cands, "pattern")  # type: ignore[attr-defined]
            if w is NO_WITNESS:
                w = self._pick_any_profile(
                    p,
                    v,
                    _regex_dialect_candidates(  # type: ignore[attr-defined]
                        cands + regex_examples(str(vp))
                    ),
                    "pattern",
                )
            if w is not NO_WITNESS:
                what = " has no pattern" if pp is None else f"'s pattern {short(pp)} admits strings"
                out.append(
                    Issue(
                        "looser-p",
                        ["pattern"] if pp else [],
                        ["pattern"],
                        pp,
                        vp,
                        f"the {{P}} schema{what}, the {{V}} schema's pattern {short(vp)} rejects some",
                        w,
                        delta={"keyword": "pattern", "V": vp},
                    )
                )
            else:
                out.append(
                    Issue(
                        "pattern",
                        ["pattern"] if pp else [],
                        ["pattern"],
                        pp,
                        vp,
                        f"pattern {short(vp)} in the {{V}} schema, {'none' if pp is None else short(pp)} in "
                        "the {P} schema: "
                        "inclusion not proven",
                    )
                )
        return out

    def _format(self, p: dict[str, Any], v: dict[str, Any]) -> list[Issue]:
        """``format`` dropped or changed: breaks format-checking hosts (witness checked per TS profile)."""
        out: list[Issue] = []
        base = self._sample_p(p)  # type: ignore[attr-defined]
        pf, vf = p.get("format"), v.get("format")
        if pf != vf and vf is not None:
            w = NO_WITNESS
            # a value of P's own format (date-time where V says date) comes first: it is what P's side sends
            own = FORMAT_SAMPLES.get(pf) if isinstance(pf, str) else None
            for cand in [
                *([own] if own else []),
                "not-a-" + str(vf).replace("-", ""),
                "not a valid value",
                "%%%",
                "x",
                base,
                3_000_000_000,
                2**63,
                0.5,
                -1,
            ]:
                if (
                    cand is not NO_WITNESS
                    and self._valid(self.p_doc, p, cand)
                    and any(  # type: ignore[attr-defined]
                        self._valid(self.v_doc, v, cand, prof) is False  # type: ignore[attr-defined]
                        and self._rejected_for(v, cand, "format", prof)  # type: ignore[attr-defined]
                        for prof in ("ts-sdk-v2", "ts-sdk-v1")
                    )
                ):
                    w = cand
                    break
            out.append(
                Issue(
                    "format",
                    ["format"] if pf else [],
                    ["format"],
                    pf,
                    vf,
                    f"format {short(vf)} in the {{V}} schema, {short(pf) if pf else 'none'} in the {{P}} "
                    "schema: format-checking hosts reject values outside it",
                    w,
                )
            )
        return out
