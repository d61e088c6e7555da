"""Scalars: ``type``, ``enum``/``const``, numeric and string bounds, ``pattern``, ``format``, ``nullable``."""

from __future__ import annotations

from typing import Any

from mcp_schema_audit.engine.issue import Issue, NO_WITNESS, canon, short, value_key
from mcp_schema_audit.engine.sampler import FORMAT_SAMPLES, MAX_SAMPLE_SIZE, bound, number_candidates, regex_examples, string_candidates
from mcp_schema_audit.schema import json_type, type_set

#: Enum values (both sides together) compared value by value; more → a ``schema-undecidable`` warning.
MAX_ENUM = 20_000


def _regex_dialect_candidates(strings: list[Any]) -> list[str]:
    """Variants of ``strings`` on which Python and ECMAScript regexes disagree: a trailing newline (``$``),
    Unicode digits and letters (``\\d``, ``\\w``), line separators (``.``) and Unicode spaces (``\\s``)."""
    out: list[str] = []
    for s in [x for x in strings if isinstance(x, str)][:8]:
        out += [s + "\n", s.translate(_UNICODE_LOOKALIKES), s + "\u2028", s.replace(" ", "\u0085")]
    return list(dict.fromkeys(x for x in out if x not in strings))


_UNICODE_LOOKALIKES = str.maketrans({**{str(d): chr(0x0660 + d) for d in range(10)}, "a": "é", "e": "é", "x": "ж"})


def _num(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _is_multiple(a: Any, b: Any) -> bool:
    try:
        q = a / b
        return abs(q - round(q)) < 1e-9
    except (TypeError, ZeroDivisionError, OverflowError):
        return False


def _int(x: Any, default: int) -> int:
    return x if isinstance(x, int) and not isinstance(x, bool) else default


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
            if v_types is None or "null" in v_types:
                return []
            return [Issue("type-extra-p", ["nullable"], ["type"], True, v.get("type"),
                          "nullable: true in the {P} schema: hosts on Ajv (the TS SDKs) take null there, the {V} "
                          "schema does not", None)]
        p_types = type_set(p)
        if p_types is not None and "null" in p_types:
            return []  # P's type lists null itself: the type comparison reports it for jsonschema hosts
        return [Issue("type-extra-v", [], ["nullable"], None, True,
                      "nullable: true in the {V} schema only: hosts on Ajv (the TS SDKs) also take null there")]

    @staticmethod
    def _types_of(node: dict[str, Any]) -> set[str] | None:
        ts = type_set(node)
        if ts is None:
            vals = node.get("enum") if isinstance(node.get("enum"), list) else (
                [node["const"]] if "const" in node else None)
            if vals is not None:
                return {json_type(x) for x in vals}
        return ts

    @staticmethod
    def _allowed(ts: set[str], t: str) -> bool:
        return t in ts or (t == "integer" and "number" in ts)

    def _sample_typed(self, p: dict[str, Any], t: str) -> Any:
        node = {k: val for k, val in p.items() if k not in ("enum", "const")}
        node["type"] = t
        got = self._sample_p(node)
        if got is NO_WITNESS:
            return {"string": "x", "integer": 0, "number": 0.5, "boolean": True, "null": None,
                    "object": {}, "array": []}[t]
        return got

    def _value_issues(self, p: dict[str, Any], v: dict[str, Any]) -> list[Issue] | None:
        """enum/const comparison; returns None when neither side constrains values (keep comparing)."""
        pv = self._values(p)
        vv = self._values(v)
        if pv is None and vv is None:
            return None
        out: list[Issue] = []
        # a null/boolean-only type is a closed value set too: its findings point at "type", and the type
        # comparison (already made) covers "restricts values to [true, false]"
        kw_p = "const" if "const" in p else "enum" if "enum" in p else "type"
        kw_v = "const" if "const" in v else "enum" if "enum" in v else "type"
        if len(pv or []) + len(vv or []) > MAX_ENUM:
            return [Issue("undecidable", [], [], None, None,
                           f"enum with more than {MAX_ENUM} values is not compared value by value")]
        v_keys = {value_key(y) for y in vv} if vv is not None else set()
        if pv is not None:
            # few values, and keywords host profiles read differently: also ask the other profiles
            per_host = len(pv) <= 64 and (self._host_sensitive(v, self.v_doc) or self._host_sensitive(p, self.p_doc))
            for x in pv:
                if (vv is None or value_key(x) in v_keys) and self._valid(self.v_doc, v, x) is not False and not (
                        per_host and self._pick_any_profile(p, v, [x]) is not NO_WITNESS):
                    continue
                if self._valid(self.p_doc, p, x) is False:
                    continue  # P lists it but its other keywords reject it: never produced
                if vv is None or value_key(x) in v_keys:
                    # V lists the value (or lists none) but its other keywords reject it: a tightened constraint
                    out.append(Issue("looser-p", [kw_p], [], p.get(kw_p), None,
                                     f"value {short(x)} of the {{P}} schema is rejected by the {{V}} schema", x))
                    continue
                kind = "const-changed" if kw_p == "const" and kw_v == "const" else "enum-extra-p"
                detail = (f"the {{V}} schema accepts no value here (its {kw_v} contradicts its type), the {{P}} schema "
                          f"allows {short(x)}" if not vv
                          else f"const {short(x)} in the {{P}} schema, {short(vv[0])} in the {{V}} schema" if kind == "const-changed"
                          else f"value {short(x)} of the {{P}} schema is not in the {{V}} schema's {kw_v} {short(vv)}")
                out.append(Issue(kind, [kw_p], [kw_v], p.get(kw_p), v.get(kw_v), detail, x))
            if vv is not None:
                p_keys = {value_key(x) for x in pv}
                extra_v = [y for y in vv if value_key(y) not in p_keys]
                if extra_v and not any(i.kind == "const-changed" for i in out):
                    out.append(Issue("enum-extra-v", [kw_p], [kw_v], p.get(kw_p), v.get(kw_v),
                                      f"values {short(extra_v)} are listed only by the {{V}} schema"))
            elif kw_p != "type":
                out.append(Issue("enum-only-p", [kw_p], [], p.get(kw_p), None,
                                  f"the {{P}} schema restricts values to {short(pv)}, the {{V}} schema does not"))
            return out
        assert vv is not None
        if kw_v == "type":
            return out
        cands: list[Any] = [self._sample_p(p)]
        cands += string_candidates(extra=("other-value", "zzz-not-listed"))
        cands += number_candidates(p, integer=False) + [True, False, None, {}, []]
        cands += [max([x for x in vv if isinstance(x, (int, float)) and not isinstance(x, bool)], default=0) + 1]
        w = self._pick(p, v, [c for c in cands if c is not NO_WITNESS])
        out.append(Issue("enum-only-v", [], [kw_v], None, v.get(kw_v),
                          f"the {{P}} schema allows any value, the {{V}} schema only {short(vv)}", w))
        return out

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

    def _bounds(self, p: dict[str, Any], v: dict[str, Any], kw: str, upper: bool, cands: list[Any],
                p_val: Any, v_val: Any) -> list[Issue]:
        """Compare one bound keyword; P looser than V is breaking (with a witness from ``cands``)."""
        if canon(p_val) == canon(v_val):
            return []
        if not all(x is None or _num(x) for x in (p_val, v_val)):
            return [Issue("invalid", [kw] if kw in p else [], [kw] if kw in v else [], p_val, v_val,
                           f"{kw} is not a number")]
        if v_val is None:
            p_looser = False
        elif p_val is None:
            p_looser = True
        else:
            p_looser = p_val > v_val if upper else p_val < v_val
        kind = "looser-p" if p_looser else "looser-v"
        w = self._pick(p, v, cands) if p_looser else NO_WITNESS
        what = "no" if p_val is None else short(p_val)
        return [Issue(kind, [kw] if kw in p else [], [kw] if kw in v else [], p_val, v_val,
                       f"{kw} {what} in the {{P}} schema, {'none' if v_val is None else short(v_val)} in the {{V}} schema", w)]

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
                w = self._pick(p, v, cands) if p_looser else NO_WITNESS
                out.append(Issue(kind, [kw], [kw], pb, vb, f"bound {pb} is {'exclusive' if px else 'inclusive'} in the {{P}} schema, {'exclusive' if vx else 'inclusive'} in the {{V}} schema", w))
                continue
            out += self._bounds(p, v, kw, upper, cands, pb, vb)
        pm, vm = p.get("multipleOf"), v.get("multipleOf")
        if canon(pm) != canon(vm):
            p_looser = vm is not None and (pm is None or not _is_multiple(pm, vm))
            extra = [x for x in (pm, vm / 2 if _num(vm) else None, vm * 1.5 if _num(vm) else None) if _num(x)]
            w = self._pick(p, v, cands + extra) if p_looser else NO_WITNESS
            out.append(Issue("looser-p" if p_looser else "looser-v", ["multipleOf"] if pm is not None else [],
                              ["multipleOf"] if vm is not None else [], pm, vm,
                              f"multipleOf {pm} in the {{P}} schema, {vm} in the {{V}} schema", w))
        return out

    def _strings(self, p: dict[str, Any], v: dict[str, Any]) -> list[Issue]:
        out: list[Issue] = []
        lo = p.get("minLength") if isinstance(p.get("minLength"), int) else 0
        hi = p.get("maxLength") if isinstance(p.get("maxLength"), int) else None
        base = self._sample_p({**p, "type": "string"})
        base = base if isinstance(base, str) else "a"
        lengths = [lo, (v.get("maxLength") or 0) + 1 if isinstance(v.get("maxLength"), int) else None,
                   max((v.get("minLength") or 1) - 1, 0) if isinstance(v.get("minLength"), int) else None, hi]
        cands = [(base * (n // max(len(base), 1) + 1))[:n] if base else "a" * n for n in lengths
                 if n is not None and 0 <= n <= MAX_SAMPLE_SIZE]
        cands += string_candidates(lo, hi, extra=(base,))
        for kw, upper in (("minLength", False), ("maxLength", True)):
            out += self._bounds(p, v, kw, upper, cands, p.get(kw), v.get(kw))
        pp, vp = p.get("pattern"), v.get("pattern")
        if pp != vp and vp is not None:
            w = self._pick(p, v, cands)
            if w is NO_WITNESS:
                w = self._pick_any_profile(p, v, _regex_dialect_candidates(cands + regex_examples(str(vp))))
            if w is not NO_WITNESS:
                out.append(Issue("looser-p", ["pattern"] if pp else [], ["pattern"], pp, vp,
                                  f"the {{P}} schema's pattern {short(pp)} admits strings the {{V}} schema's {short(vp)} rejects", w))
            else:
                out.append(Issue("pattern", ["pattern"] if pp else [], ["pattern"], pp, vp,
                                  f"pattern {short(vp)} in the {{V}} schema, {short(pp)} in the {{P}} schema: inclusion not proven"))
        return out

    def _format(self, p: dict[str, Any], v: dict[str, Any]) -> list[Issue]:
        """``format`` dropped or changed: breaks format-checking hosts (witness checked per TS profile)."""
        out: list[Issue] = []
        base = self._sample_p(p)
        pf, vf = p.get("format"), v.get("format")
        if pf != vf and vf is not None:
            w = NO_WITNESS
            # a value of P's own format (date-time where V says date) comes first: it is what P's side sends
            own = FORMAT_SAMPLES.get(pf) if isinstance(pf, str) else None
            for cand in [*([own] if own else []), "not-a-" + str(vf).replace("-", ""), "not a valid value", "%%%", "x",
                         base, 3_000_000_000, 2**63, 0.5, -1]:
                if cand is not NO_WITNESS and self._valid(self.p_doc, p, cand) and any(
                        self._valid(self.v_doc, v, cand, prof) is False for prof in ("ts-sdk-v2", "ts-sdk-v1")):
                    w = cand
                    break
            out.append(Issue("format", ["format"] if pf else [], ["format"], pf, vf,
                              f"format {short(vf)} in the {{V}} schema, {short(pf) if pf else 'none'} in the {{P}} schema: "
                              "format-checking hosts reject values outside it", w))
        return out
