"""Objects: ``properties``, ``required``, ``additionalProperties``, ``patternProperties``, ``propertyNames``, sizes."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from mcp_schema_audit.engine.applicators import UNSAFE_KINDS, pattern_keys
from mcp_schema_audit.engine.issue import Issue, NO_WITNESS, canon
from mcp_schema_audit.engine.normalize import _tolerant
from mcp_schema_audit.engine.sampler import string_candidates
from mcp_schema_audit.engine.scalars import _int, _regex_dialect_candidates

def _regex_included(small: str, big: str) -> bool:
    """Proven: every string ``small`` matches, ``big`` matches too (both searched, as JSON Schema does).

    Only the sure cases: the same pattern, or ``big`` is ``^`` plus literal characters and ``small``
    starts with ``^`` and that same literal prefix (``^x_`` ⊇ ``^x_[a-z]*$``). Anything else: False.
    """
    if small == big:
        return True
    try:
        from re import _constants as c, _parser as parser  # type: ignore[attr-defined]
        b_items, s_items = list(parser.parse(big)), list(parser.parse(small))
    except (re.error, RecursionError, OverflowError, ValueError, ImportError):
        return False
    if not b_items or b_items[0] != (c.AT, c.AT_BEGINNING) or any(op != c.LITERAL for op, _ in b_items[1:]):
        return False
    return s_items[:len(b_items)] == b_items


def _search(pattern: str, text: str) -> bool:
    """Does ``pattern`` match ``text`` for some host (Python ``re`` or ECMAScript)? Undecidable → False."""
    return any(_matches(pattern, text))


def _matches(pattern: str, text: str) -> tuple[bool, bool]:
    """``(python-sdk matches, TS hosts match)``: ``re.search`` and ``new RegExp(pattern, "u").test``.

    A search that is refused (ReDoS guard) or a pattern one engine cannot compile counts as no match.
    """
    from mcp_schema_audit.schema import ecma_search, safe_search

    out = []
    for search in (lambda: safe_search(pattern, text) is not None, lambda: ecma_search(pattern, text)):
        try:
            out.append(bool(search()))
        except (re.error, RecursionError, OverflowError, ValueError):
            out.append(False)
    return out[0], out[1]


def _kw_steps(node: dict[str, Any], kw: str) -> list[str]:
    """``[kw]`` when ``node`` has that keyword, else ``[]`` (the node itself): pointers must resolve."""
    return [kw] if kw in node else []


class ObjectsMixin:
    """Objects: ``properties``, ``required``, ``additionalProperties``, ``patternProperties``, ``propertyNames``, sizes."""

    @staticmethod
    def _closed(node: dict[str, Any]) -> str | None:
        if node.get("additionalProperties") is False:
            return "additionalProperties"
        if node.get("unevaluatedProperties") is False and "additionalProperties" not in node:
            return "unevaluatedProperties"
        return None

    def _objects(self, p: dict[str, Any], v: dict[str, Any], depth: int) -> list[Issue]:
        out: list[Issue] = []
        pprops = p.get("properties") if isinstance(p.get("properties"), dict) else {}
        vprops = v.get("properties") if isinstance(v.get("properties"), dict) else {}
        ppat = p.get("patternProperties") if isinstance(p.get("patternProperties"), dict) else {}
        vpat = v.get("patternProperties") if isinstance(v.get("patternProperties"), dict) else {}
        p_closed, v_closed = self._closed(p), self._closed(v)
        p_addl = _tolerant(p.get("additionalProperties", p.get("unevaluatedProperties", True)))
        v_addl = _tolerant(v.get("additionalProperties", v.get("unevaluatedProperties", True)))
        preq = [k for k in p.get("required", []) if isinstance(k, str)] if isinstance(p.get("required"), list) else []
        vreq = [k for k in v.get("required", []) if isinstance(k, str)] if isinstance(v.get("required"), list) else []
        for key, ps in pprops.items():
            out += self._declared_key(p, v, ["properties", key], ps, key, depth)
        for pat, ps in ppat.items():
            keys = self._pattern_keys(pat, pprops, v)
            for key in keys:
                got = self._declared_key(p, v, ["patternProperties", pat], ps, key, depth, _matches(pat, key))
                out += got
                if any(i.kind in UNSAFE_KINDS for i in got):
                    break  # one name proves it
            if keys and not any(_regex_included(pat, vp) for vp in vpat) and (
                    v_closed or vpat or isinstance(v_addl, dict)) and not any(
                    i.p_path[:2] == ["patternProperties", pat] and i.kind in UNSAFE_KINDS for i in out):
                # every name tried is covered, but that does not prove the regex languages are included
                out.append(Issue("pattern", ["patternProperties", pat], [], pat, sorted(vpat) or None,
                                 f"property names matching {pat!r} in the {{P}} schema: no name the {{V}} schema "
                                 f"rejects was found ({', '.join(map(repr, keys))} are covered), and the regex "
                                 "inclusion is not proven"))
            if not keys and pat in vpat:
                out += self._prefix(self.compare(ps, vpat[pat], depth + 1), ["patternProperties", pat],
                                    ["patternProperties", pat])
            elif not keys and (v_closed or vpat or isinstance(v_addl, dict)):
                out.append(Issue("undecidable", ["patternProperties", pat], [], ps, None,
                                 f"no property name matching patternProperties {pat!r} of the {{P}} schema could be "
                                 "built, so it is not compared with the {V} schema"))
        if (isinstance(p_addl, dict) or p_addl is True) and not p_closed:
            # V's patternProperties constrain keys P leaves to its additionalProperties (open: any value)
            for pat in vpat:
                for key in pattern_keys(pat, taken=pprops)[:1]:
                    if not any(_search(pp, key) for pp in ppat):
                        out += self._declared_key(p, v, ["additionalProperties"] if "additionalProperties" in p
                                                  else [], p_addl if p_addl is not True else {}, key, depth)
        for key, vs in vprops.items():
            if key in pprops:
                continue
            if isinstance(p_addl, dict):
                out += self._prefix(self.compare(p_addl, vs, depth + 1), ["additionalProperties"],
                                    ["properties", key], key, self._obj_wrap(p, v, key))
            elif not (key in vreq and key not in preq):
                out.append(Issue("prop-extra-v", [], ["properties", key], None, vs,
                                  f"property {key!r} is listed only by the {{V}} schema", inst=[key]))
        for key in [k for k in vreq if k not in preq]:
            base = self._common({**p, "type": "object"}, v)
            w = NO_WITNESS
            if isinstance(base, dict):
                base = dict(base)
                base.pop(key, None)
                w = base
            out.append(Issue("required-extra-v", ["properties", key] if key in pprops else _kw_steps(p, "required"),
                              ["properties", key] if key in vprops else ["required"], False, True,
                              f"property {key!r} is required by the {{V}} schema, not by the {{P}} schema", w, [key]))
        for key in [k for k in preq if k not in vreq]:
            out.append(Issue("required-extra-p", ["properties", key] if key in pprops else ["required"],
                              ["properties", key] if key in vprops else _kw_steps(v, "required"), True, False,
                              f"property {key!r} is required by the {{P}} schema, not by the {{V}} schema", inst=[key]))
        if v_closed and not p_closed:
            if isinstance(p_addl, dict) and p_addl != {}:
                extra = next(k for k in ("extra_key", "extra_key_2", "zz_extra") if k not in vprops)
                child = self._sample_p(p_addl)
                w = self._obj_wrap(p, v, extra)(child) if child is not NO_WITNESS else NO_WITNESS
                out.append(Issue("prop-extra-p-closed", ["additionalProperties"], [v_closed], p_addl, False,
                                  "the {P} schema declares additional properties, the {V} object is closed", w, [extra]))
            else:
                out.append(Issue("opened-p", ["additionalProperties"] if "additionalProperties" in p else [],
                                  [v_closed], p.get("additionalProperties"), False,
                                  f"the object is open in the {{P}} schema, closed in the {{V}} schema ({v_closed}: false)"))
        elif p_closed and not v_closed:
            out.append(Issue("closed-p", [p_closed], ["additionalProperties"] if "additionalProperties" in v else [],
                              False, v.get("additionalProperties"), f"the object is closed in the {{P}} schema ({p_closed}: false), open in the {{V}} schema"))
        elif p_addl is True and isinstance(v_addl, dict) and not p_closed and not self._inside(True, v_addl, depth):
            out.append(Issue("opened-p", ["additionalProperties"] if "additionalProperties" in p else [],
                             ["additionalProperties"], p.get("additionalProperties"), v_addl,
                             "values of undeclared keys are constrained by the {V} schema's additionalProperties, "
                             "not by the {P} schema's"))
        elif isinstance(p_addl, dict) and isinstance(v_addl, dict) and not p_closed:
            extra = next(k for k in ("extra_key", "extra_key_2", "zz_extra") if k not in vprops and k not in pprops)
            out += self._prefix(self.compare(p_addl, v_addl, depth + 1), ["additionalProperties"],
                                ["additionalProperties"], extra, self._obj_wrap(p, v, extra))
        if any(canon(p.get(kw)) != canon(v.get(kw)) for kw in ("minProperties", "maxProperties")):
            sized = self._sized_objects(p, v, pprops, p_addl)
            for kw, upper in (("minProperties", False), ("maxProperties", True)):
                out += self._bounds(p, v, kw, upper, sized, p.get(kw), v.get(kw))
        out += self._property_names(p, v, pprops)
        return [self._located(i, pprops, vprops) for i in out]

    def _sized_objects(self, p: dict[str, Any], v: dict[str, Any], pprops: dict[str, Any], p_addl: Any) -> list[Any]:
        """Objects P declares with as many properties as V's/P's ``minProperties``/``maxProperties`` make
        interesting (each bound, one less, one more): P's required properties first, then its other
        declared ones, then keys of its ``additionalProperties`` schema (declared values only)."""
        base = self._common({**p, "type": "object"}, v)
        base = dict(base) if isinstance(base, dict) else {}
        pool = [(k, self._sample_p(s)) for k, s in pprops.items() if k not in base]
        if isinstance(p_addl, dict):
            child = self._sample_p(p_addl)
            pool += [(f"extra_key_{i}", child) for i in range(8) if f"extra_key_{i}" not in pprops]
        pool = [(k, x) for k, x in pool if x is not NO_WITNESS]
        sizes = {0, 1}
        for node in (p, v):
            for kw in ("minProperties", "maxProperties"):
                n = _int(node.get(kw), -1)
                sizes |= {n - 1, n, n + 1}
        out = []
        for n in sorted(x for x in sizes if 0 <= x <= len(base) + len(pool) and x <= 64):
            if n <= len(base):
                out.append(dict(list(base.items())[:n]))
            else:
                out.append({**base, **dict(pool[: n - len(base)])})
        return out

    def _located(self, issue: Issue, pprops: dict[str, Any], vprops: dict[str, Any]) -> Issue:
        """Point ``/properties/KEY`` of a property merged from an ``allOf`` member behind ``$ref`` (see
        ``_merge_all_of``) at its real location, e.g. ``/$defs/Base/properties/KEY``."""
        for side, props in (("p", pprops), ("v", vprops)):
            path = getattr(issue, side + "_path")
            if getattr(issue, side + "_abs") or len(path) < 2 or path[0] != "properties":
                continue
            where = self._origin.get(id(props.get(path[1])))
            if where is not None:
                issue = replace(issue, **{side + "_path": [*where[1], *path[2:]], side + "_abs": True})
        return issue

    def _pattern_keys(self, pat: str, taken: dict[str, Any], v: dict[str, Any]) -> list[str]:
        """Property names matching ``pat`` (not in ``taken``), those V does not list for every host first: up to 3."""
        vprops = v.get("properties") if isinstance(v.get("properties"), dict) else {}
        vpat = v.get("patternProperties") if isinstance(v.get("patternProperties"), dict) else {}
        built = pattern_keys(pat, taken, count=8)
        cands = built + _regex_dialect_candidates(built) + [
            x for x in string_candidates() if x not in taken and all(_matches(pat, x))]
        keys = [k for k in dict.fromkeys(cands) if k not in taken and any(_matches(pat, k))]

        def covered(k: str) -> int:
            # how many regex readings (Python, ECMAScript) list the key in V where P declares it: a key V
            # misses under both breaks every host, one it misses under one reading only some hosts
            if k in vprops:
                return 2
            mine = _matches(pat, k)
            return sum(1 for d in (0, 1) if not mine[d] or any(_matches(pt, k)[d] for pt in vpat))
        return sorted(keys, key=lambda k: (covered(k), not (k.isascii() and k.isprintable())))[:3]

    def _declared_key(self, p: dict[str, Any], v: dict[str, Any], p_steps: list[Any], ps: Any, key: str,
                      depth: int, dialects: tuple[bool, bool] = (True, True)) -> list[Issue]:
        """P declares property ``key`` with schema ``ps`` (at ``p_steps``): compare it with every schema V
        applies to that key (``properties``, each matching ``patternProperties``, else ``additionalProperties``)."""
        vprops = v.get("properties") if isinstance(v.get("properties"), dict) else {}
        vpat = v.get("patternProperties") if isinstance(v.get("patternProperties"), dict) else {}
        wrap = self._obj_wrap(p, v, key)
        targets: list[tuple[list[Any], Any]] = [(["properties", key], vprops[key])] if key in vprops else []
        matches = {pt: _matches(pt, key) for pt in vpat}
        targets += [(["patternProperties", pt], vpat[pt]) for pt in vpat if any(matches[pt])]
        out: list[Issue] = []
        for v_steps, vs in targets:
            out += self._prefix(self.compare(ps, vs, depth + 1), p_steps, v_steps, key, wrap)
        if key in vprops or all(any(m[d] for m in matches.values()) for d in (0, 1) if dialects[d]):
            return out  # V lists the key wherever P declares it (Python and ECMAScript regex readings)
        v_closed = self._closed(v)
        v_addl = _tolerant(v.get("additionalProperties", v.get("unevaluatedProperties", True)))
        if v_closed:
            child = self._sample_p(ps)
            w = wrap(child) if child is not NO_WITNESS else NO_WITNESS
            what = f"property {key!r}" if p_steps[:1] == ["properties"] else f"a property such as {key!r}"
            if targets:
                what += " (matched by a patternProperties regex on some hosts only: Python and ECMAScript differ)"
            return out + [Issue("prop-extra-p-closed", p_steps, [v_closed], ps, False,
                          f"{what} of the {{P}} schema is not listed by the {{V}} schema's closed object "
                          f"({v_closed}: false)", w, [key])]
        if isinstance(v_addl, dict):
            return out + self._prefix(self.compare(ps, v_addl, depth + 1), p_steps, ["additionalProperties"], key, wrap)
        if targets:
            return out
        if p_steps[0] == "properties":
            return [Issue("prop-extra-p-open", p_steps, [], ps, None,
                          f"property {key!r} is listed only by the {{P}} schema (the {{V}} object is open)", inst=[key])]
        return []

    def _property_names(self, p: dict[str, Any], v: dict[str, Any], pprops: dict[str, Any]) -> list[Issue]:
        """``propertyNames``: a property the P side declares whose name V's ``propertyNames`` rejects."""
        pn, vn = p.get("propertyNames"), v.get("propertyNames")
        if canon(pn) == canon(vn):
            return []
        out: list[Issue] = []
        if vn is not None:
            for key, ps in pprops.items():
                if self._valid(self.v_doc, vn, key) is False and (pn is None or self._valid(self.p_doc, pn, key)):
                    child = self._sample_p(ps)
                    w = self._obj_wrap(p, v, key)(child) if child is not NO_WITNESS else NO_WITNESS
                    out.append(Issue("looser-p", ["properties", key], ["propertyNames"], key, vn,
                                      f"property name {key!r} of the {{P}} schema is rejected by the {{V}} schema's "
                                      "propertyNames", w, [key]))
        if not out:
            out.append(Issue("looser-v" if pn is not None and vn is None else "undecidable",
                              ["propertyNames"] if pn is not None else [], ["propertyNames"] if vn is not None else [],
                              pn, vn, "propertyNames changed; every declared property name is accepted by both"))
        return out
