"""Semantic mutations of a schema model (``schema_models``), for the property cross-check.

``mutate`` applies 1–3 semantic changes to a model (add/remove properties, toggle closure,
widen/narrow enums, unions and bounds, add/remove required entries, nullable on/off, retype a field;
and, as one extra operation ``kw`` per node, the newer keywords: add/remove/change ``if``/``then``/
``else``, ``dependentSchemas`` entries, ``patternProperties`` (add/remove/rename; the pattern's schema
is a node and mutates like any other), ``contains``/``minContains``/``maxContains``, ``not``, OpenAPI
``nullable``; tuples gain/lose a slot, open/close their tail, change ``minItems``). A model whose
``if``/``dependentSchemas``/``contains`` names a property that a mutation removed is tidied by
``_normalize`` (the keyword loses that name, or is dropped).
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import strategies as st
from schema_models import (
    _EXCLUDE,
    _STR_ENUM,
    DISABLED,
    INT_VALUES,
    LEAF_KINDS,
    MAX_DEPTH,
    NAMES,
    NUMBER_BOUNDS,
    PATTERNS,
    SCALARS,
    STR_VALUES,
    _draw_cond,
    _draw_contains,
    _draw_dep,
    _index,
    _pick,
    _rare,
    _value_for,
    leaf_model,
    node_model,
)


# -- mutations ---------------------------------------------------------------------------------------
def _nodes(
    m: dict[str, Any], depth: int = 0, out: list[tuple[dict[str, Any], int]] | None = None
) -> list[tuple[dict[str, Any], int]]:
    out = [] if out is None else out
    out.append((m, depth))
    if m["k"] == "object":
        for child in m["props"].values():
            _nodes(child, depth + 1, out)
        for child in m.get("patterns", {}).values():
            _nodes(child, depth + 1, out)
    elif m["k"] == "array":
        _nodes(m["items"], depth + 1, out)
    elif m["k"] == "tuple":
        for child in m["slots"]:
            _nodes(child, depth + 1, out)
    elif m["k"] == "map":
        _nodes(m["values"], depth + 1, out)
    elif m["k"] == "variants":
        for child in (*m["base"].values(), *m["extra"].values()):
            _nodes(child, depth + 1, out)
    return out


def _ops(m: dict[str, Any], depth: int) -> list[str]:
    ops = [] if depth == 0 else ["toggle_nullable", "retype"]
    k = m["k"]
    if k == "object":
        ops += ["add_prop", "toggle_closed", "add_required", "remove_required"]
        if len(m["props"]) > 1:
            ops.append("remove_prop")
    elif k == "string":
        ops += ["minLength", "maxLength", "to_enum", "both_bounds", "to_const"]
    elif k in ("integer", "number"):
        ops += ["minimum", "maximum", "int_number", "both_bounds", "int_number_bounds"]
    elif k == "enum":
        ops += ["enum_add", "enum_drop"] + (["enum_remove"] if len(m["values"]) > 1 else [])
        ops += ["enum_close"] if m.get("open") else []
    elif k == "array":
        ops += ["minItems", "maxItems", "both_bounds"]
    elif k == "variants":
        ops += ["variant_add", "variant_retype", "variant_merge"]
    elif k == "tuple":  # (Hypothesis favours the first and last index: slots change most often)
        ops = ["add_slot"] + ops + ["toggle_rest", "tuple_minItems"] + (["remove_slot"] if len(m["slots"]) > 1 else [])
    elif k == "union":
        ops += ["union_add"] if len(m["types"]) < len(SCALARS) else []
        ops += ["union_remove"]
    if k == "any":
        ops = [o for o in ops if o != "toggle_nullable"] + ["to_const"]
    if _kw_ops(m, depth):
        ops.append("kw")  # one slot for every newer-keyword operation: the old mix stays as it was
    return ops


def _kw_ops(m: dict[str, Any], depth: int) -> list[str]:
    """Mutations of the newer keywords that apply to ``m`` (chosen among by the ``kw`` operation)."""
    k, ops = m["k"], []
    if "oas" not in DISABLED and (k in SCALARS or k in ("array", "tuple") or (k == "object" and depth > 0)):
        ops.append("toggle_oas")
    if k in ("string", "integer") and "not" not in DISABLED:
        ops += ["change_not", "remove_not"] if m.get("exclude") else ["add_not"]
    if k == "any" and "not_null" not in DISABLED:
        ops.append("toggle_not_null")
    if k == "object":
        if len(m["props"]) >= 2 and "cond" not in DISABLED:
            ops += (
                ["cond_then", "cond_else", "cond_value", "cond_if_required", "remove_cond"]
                if m.get("cond")
                else ["add_cond"]
            )
        if len(m["props"]) >= 2 and "deps" not in DISABLED:
            ops += ["dep_change", "remove_dep"] if m.get("deps") else []
            ops += ["add_dep"] if set(m["props"]) - set(m.get("deps", {})) else []
        if "patterns" not in DISABLED:
            ops += ["add_pattern"] if len(m.get("patterns", {})) < len(PATTERNS) else []
            ops += ["remove_pattern", "rename_pattern"] if m.get("patterns") else []
    if k == "array" and "contains" not in DISABLED:
        ops += (
            ["remove_contains", "contains_value", "minContains", "maxContains"]
            if m.get("contains")
            else ["add_contains"]
        )
    return ops


def _set_bound(draw: Any, m: dict[str, Any], kw: str, lo: int, hi: int, values: Any = None) -> None:
    """Widen, narrow, add or drop one bound (keeping min <= max when both exist)."""
    other = {
        "minLength": "maxLength",
        "maxLength": "minLength",
        "minimum": "maximum",
        "maximum": "minimum",
        "minItems": "maxItems",
        "maxItems": "minItems",
        "minContains": "maxContains",
        "maxContains": "minContains",
    }[kw]
    cur = m.get(kw)
    choices = [None] + list(values if values is not None else range(lo, hi + 1))
    new = _pick(draw, [c for c in choices if c != cur] or [None])
    if new is not None and m.get(other) is not None:
        if kw.startswith("min") and new > m[other]:
            new = m[other]
        if kw.startswith("max") and new < m[other]:
            new = m[other]
    m[kw] = new


def _toggle(draw: Any, names: list[str], pool: list[str]) -> list[str]:
    """``names`` with one element of ``pool`` added or removed."""
    if not pool:
        return names
    name = _pick(draw, pool)
    return [n for n in names if n != name] if name in names else names + [name]


def _kw_mutation(draw: Any, m: dict[str, Any], op: str) -> None:
    names = list(m.get("props", {}))
    if op == "toggle_oas":
        if m.pop("oas", False) is False:
            m["oas"] = True
    elif op in ("add_not", "change_not"):
        kind = m["k"]
        new = draw(_EXCLUDE[kind])
        if new == m.get("exclude"):
            new = [v for v in (STR_VALUES if kind == "string" else INT_VALUES) if v not in new][:1]
        m["exclude"] = new
    elif op == "remove_not":
        del m["exclude"]
    elif op == "toggle_not_null":
        if m.pop("not_null", False) is False:
            m["not_null"] = True
    elif op == "add_cond":
        m["cond"] = _draw_cond(draw, m["props"])
    elif op in ("cond_then", "cond_else"):
        c, kw = m["cond"], op[5:]
        c[kw] = _toggle(draw, c[kw], [n for n in names if n != c["key"]])
    elif op == "cond_value":
        c = m["cond"]
        old = c["value"]
        for _ in range(3):
            c["value"] = _value_for(draw, m["props"][c["key"]])
            if c["value"] != old:
                break
    elif op == "cond_if_required":
        m["cond"]["if_required"] = not m["cond"]["if_required"]
    elif op == "remove_cond":
        del m["cond"]
    elif op == "add_dep":
        key = _pick(draw, [n for n in names if n not in m.get("deps", {})])
        m.setdefault("deps", {})[key] = _draw_dep(draw, key, names)
    elif op == "dep_change":
        key = _pick(draw, sorted(m["deps"]))
        e = m["deps"][key]
        which = "forbid" if e.get("forbid") and (not e.get("require") or draw(st.booleans())) else "require"
        e[which] = _toggle(draw, e.get(which, []), [n for n in names if n != key])
    elif op == "remove_dep":
        del m["deps"][_pick(draw, sorted(m["deps"]))]
    elif op == "add_pattern":
        pat = _pick(draw, [p for p in PATTERNS if p not in m.get("patterns", {})])
        m.setdefault("patterns", {})[pat] = draw(leaf_model())
    elif op == "remove_pattern":
        del m["patterns"][_pick(draw, sorted(m["patterns"]))]
    elif op == "rename_pattern":
        free = [p for p in PATTERNS if p not in m["patterns"]]
        if free:
            m["patterns"][_pick(draw, free)] = m["patterns"].pop(_pick(draw, sorted(m["patterns"])))
    elif op == "add_contains":
        _draw_contains(draw, m)
    elif op == "remove_contains":
        for kw in ("contains", "minContains", "maxContains"):
            m.pop(kw, None)
    elif op == "contains_value":
        c = m["contains"]
        props = m["items"].get("props") if m["items"].get("k") == "object" else None
        if c["key"] is not None and (props is None or c["key"] not in props):
            c["key"] = None  # an earlier mutation retyped the items or dropped the key: contains a whole item
        target = props[c["key"]] if c["key"] is not None else m["items"]
        c["value"] = _value_for(draw, target)
    elif op in ("minContains", "maxContains"):
        _set_bound(draw, m, op, 0 if op == "minContains" else 1, 3)


def _normalize(model: dict[str, Any]) -> None:
    """Tidy keywords that name properties a mutation removed (or retyped away), in place."""
    for m, _ in _nodes(model):
        if m["k"] == "object":
            props = m["props"]
            c = m.get("cond")
            if c is not None:
                for kw in ("then", "else"):
                    c[kw] = [n for n in c[kw] if n in props and n != c["key"]]
                if c["key"] not in props or not (c["then"] or c["else"]):
                    del m["cond"]
            deps = m.get("deps")
            if deps is not None:
                for key in list(deps):
                    e = deps[key]
                    for kw in ("require", "forbid"):
                        if kw in e:
                            e[kw] = [n for n in e[kw] if n in props and n != key]
                            if not e[kw]:
                                del e[kw]
                    if key not in props or not e:
                        del deps[key]
                if not deps:
                    del m["deps"]
            if m.get("patterns") == {}:
                del m["patterns"]
        elif m["k"] == "array" and m.get("contains"):
            c, items = m["contains"], m["items"]
            ok = (items["k"] == "object" and c["key"] in items["props"]) or (
                items["k"] != "object" and c["key"] is None
            )
            if not ok:
                for kw in ("contains", "minContains", "maxContains"):
                    m.pop(kw, None)
        elif m["k"] == "tuple" and m["minItems"] is not None:
            m["minItems"] = min(m["minItems"], len(m["slots"]))


@st.composite
def mutate(draw: Any, model: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """(mutated deep copy of ``model``, list of applied mutation labels)."""
    new = copy.deepcopy(model)
    labels: list[str] = []
    for _ in range(draw(_index(3)) + 1):
        nodes = _nodes(new)
        idx = draw(_index(len(nodes)))
        m, depth = nodes[idx]
        ops = _ops(m, depth)
        if not ops:
            continue
        op = _pick(draw, ops)
        if op == "kw":
            op = _pick(draw, _kw_ops(m, depth))
            labels.append(f"{op}@{idx}")
            _kw_mutation(draw, m, op)
            continue
        labels.append(f"{op}@{idx}")
        if op == "toggle_nullable":
            m["nullable"] = not m.get("nullable", False)
        elif op == "retype":
            fresh = draw(leaf_model(_pick(draw, [k for k in LEAF_KINDS if k != m["k"]])))
            m.clear()
            m.update(fresh)
        elif op == "add_prop":
            free = [n for n in NAMES if n not in m["props"]]
            if not free:
                continue
            name = _pick(draw, free)
            m["props"][name] = draw(node_model(depth + 1) if depth + 1 < MAX_DEPTH else leaf_model())
            if draw(st.booleans()):
                m["required"].append(name)
        elif op == "remove_prop":
            name = _pick(draw, sorted(m["props"]))
            del m["props"][name]
            m["required"] = [r for r in m["required"] if r != name]
        elif op == "toggle_closed":
            m["closed"] = not m["closed"]
        elif op == "add_required":
            free = [n for n in m["props"] if n not in m["required"]]
            if free:
                m["required"].append(_pick(draw, free))
        elif op == "remove_required":
            if m["required"]:
                m["required"].remove(_pick(draw, m["required"]))
        elif op in ("minLength", "maxLength"):
            _set_bound(draw, m, op, 0, 12)
        elif op in ("minimum", "maximum"):
            _set_bound(draw, m, op, -5, 100, NUMBER_BOUNDS if m["k"] == "number" else None)
        elif op in ("minItems", "maxItems"):
            _set_bound(draw, m, op, 0, 5)
        elif op == "int_number":
            m["k"] = "number" if m["k"] == "integer" else "integer"
        elif op == "to_enum":
            m.clear()
            m.update({"k": "enum", "values": draw(_STR_ENUM), "typed": draw(st.booleans()), "nullable": draw(_rare())})
        elif op == "union_add":
            m["types"].append(_pick(draw, [t for t in SCALARS if t not in m["types"]]))
        elif op == "union_remove":
            m["types"].remove(_pick(draw, m["types"]))
            if len(m["types"]) == 1:
                m.update({"k": m["types"][0], "minLength": None, "maxLength": None, "minimum": None, "maximum": None})
                del m["types"]
        elif op == "both_bounds":
            pair = {"string": ("minLength", "maxLength", 0, 12), "array": ("minItems", "maxItems", 0, 5)}.get(
                m["k"], ("minimum", "maximum", -5, 100)
            )
            lo, hi = sorted((_pick(draw, range(pair[2], pair[3] + 1)), _pick(draw, range(pair[2], pair[3] + 1))))
            m[pair[0]], m[pair[1]] = lo, hi
        elif op == "int_number_bounds":
            m["k"] = "number" if m["k"] == "integer" else "integer"
            lo, hi = sorted((_pick(draw, range(-5, 11)), _pick(draw, range(-5, 101))))
            m["minimum"], m["maximum"] = lo, hi
        elif op == "to_const":
            value = _pick(draw, STR_VALUES)
            m.clear()
            m.update({"k": "enum", "values": [value], "typed": False, "nullable": False})
        elif op == "enum_close":
            del m["open"]
        elif op == "variant_add":
            free = [n for n in NAMES if n not in m["base"] and n not in m["extra"]]
            if free:
                m["extra"][_pick(draw, free)] = draw(leaf_model())
        elif op == "variant_retype":
            pool = sorted(m["base"]) + sorted(m["extra"])
            name = _pick(draw, pool)
            where = m["base"] if name in m["base"] else m["extra"]
            where[name] = draw(leaf_model(_pick(draw, [k for k in LEAF_KINDS if k != where[name]["k"]])))
        elif op == "variant_merge":
            m["extra"] = {}
        elif op == "enum_add":
            pool = STR_VALUES if isinstance(m["values"][0], str) else INT_VALUES
            free = [v for v in pool if v not in m["values"]]
            if free:
                m["values"].append(_pick(draw, free))
        elif op == "enum_remove":
            m["values"].remove(_pick(draw, m["values"]))
        elif op == "enum_drop":
            kind = "string" if isinstance(m["values"][0], str) else "integer"
            nullable = m.get("nullable", False)
            m.clear()
            m.update(draw(leaf_model(kind)))
            m["nullable"] = nullable
        elif op == "add_slot":
            m["slots"].append(draw(leaf_model()))
        elif op == "remove_slot":
            m["slots"].pop()
        elif op == "toggle_rest":
            m["rest"] = "open" if m["rest"] == "closed" else "closed"
        elif op == "tuple_minItems":
            _set_bound(draw, m, "minItems", 0, len(m["slots"]))
    _normalize(new)
    return new, labels
