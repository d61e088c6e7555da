"""Benchmark schema-audit's compatibility engine against ``jsoncompat`` (PyPI) on the same schema pairs.

Run: ``/work/venv/bin/python benchmarks/bench_engine.py [--runs N]`` (prints figures; not a test; < 2 min).

Pairs
-----
1. Every real-world case in ``tests/cases/*.json`` with its ``expected`` verdict.
2. Synthetic MCP tool output schemas of 10, 40 and 100 properties (pydantic-like: closed root object,
   ``$defs`` models that nest through ``anyOf[$ref, null]``, nullable unions, enums, bounded strings and
   numbers, arrays of ``$ref``), generated deterministically from a seed, each with five old→new pairs:
   ``unchanged`` (expected safe), ``prop-added-closed`` (an optional property added to the closed root),
   ``enum-widened``, ``nullable-added`` and ``required-removed`` (all four output-breaking).

Verdicts
--------
- schema-audit: ``compare_schemas(old, new, direction)`` (a ``null`` inputSchema means the tool is absent,
  as in tests/test_cases.py); the verdict is the highest finding severity: ``breaking``, ``warning``, or
  ``safe`` (only info findings or none).
- jsoncompat: ``check_compat(old_json, new_json, role)`` with role ``serializer`` for output (the NEW
  schema produces values that the OLD, cached schema must accept) and ``deserializer`` for input (values
  built from OLD must be accepted by NEW). ``True`` → ``safe``, ``False`` → ``breaking``, ``ValueError``
  → ``error``. An absent side (``null``: tool removed) is passed as the ``false`` schema (accepts nothing).

Scoring
-------
Only cases whose expected verdict is ``breaking`` or ``safe`` are scored: ``breaking`` is correct only
when the tool says ``breaking``; ``safe`` is correct only when the tool says ``safe`` (for schema-audit a
``warning`` on an expected-safe case counts as wrong, as the cases README requires). Cases expected
``warning`` ("may break; the schemas alone cannot decide") are not scored: they are listed and counted
separately (``warning`` from schema-audit = exact match; jsoncompat, being binary, cannot express it, so
either answer is acceptable there).

Timing: per pair, the median of ``--runs`` timed calls after one warm-up call (schema-audit gets Python
dicts; jsoncompat gets JSON strings serialized once outside the timing). Peak memory for the 100-property
pairs is measured with ``tracemalloc`` around one schema-audit call (after warm-up); tracemalloc cannot see
jsoncompat's native (Rust) heap, so jsoncompat's memory is not reported.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from mcp_schema_audit.engine import compare_schemas  # noqa: E402

try:
    import jsoncompat  # type: ignore[import-not-found]

    JSONCOMPAT_VERSION: str | None = None
    try:
        from importlib.metadata import version

        JSONCOMPAT_VERSION = version("jsoncompat")
    except Exception:  # pragma: no cover
        JSONCOMPAT_VERSION = "?"
except ImportError:  # pragma: no cover - printed below
    jsoncompat = None
    JSONCOMPAT_VERSION = None

CASES_DIR = ROOT / "tests" / "cases"
TOOL = "t"
SIZES = (10, 40, 100)
RANK = {"info": 0, "warning": 1, "breaking": 2}


# -- synthetic schemas --------------------------------------------------------------------------------
def make_tool_schema(n_props: int, seed: int = 20260728) -> dict[str, Any]:
    """A deterministic pydantic-style output schema with ``n_props`` top-level properties."""
    rng = random.Random(seed + n_props)
    n_defs = max(2, n_props // 5)
    defs: dict[str, Any] = {}
    for d in range(n_defs):
        props: dict[str, Any] = {
            "id": {"type": "integer", "minimum": 0},
            "name": {"type": "string", "maxLength": rng.choice([32, 64, 128])},
            "status": {"type": "string", "enum": ["active", "archived", "deleted"][: rng.randint(2, 3)]},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 20},
        }
        if d + 1 < n_defs and d % 2 == 0:  # nested chain Model0 -> Model1 -> ... through nullable refs
            props["child"] = {"anyOf": [{"$ref": f"#/$defs/Model{d + 1}"}, {"type": "null"}], "default": None}
        defs[f"Model{d}"] = {
            "type": "object",
            "title": f"Model{d}",
            "properties": props,
            "required": ["id", "name"],
            "additionalProperties": False,
        }
    properties: dict[str, Any] = {}
    required: list[str] = []
    for i in range(n_props):
        kind = i % 8
        key = f"field_{i:03d}"
        if kind == 0:
            s: dict[str, Any] = {"type": "string", "minLength": 1, "maxLength": rng.choice([50, 100, 500])}
        elif kind == 1:
            s = {"type": "integer", "minimum": 0, "maximum": rng.choice([10, 100, 1000])}
        elif kind == 2:
            s = {"type": "string", "enum": [f"v{j}" for j in range(rng.randint(3, 6))]}
        elif kind == 3:
            s = {"anyOf": [{"$ref": f"#/$defs/Model{rng.randrange(n_defs)}"}, {"type": "null"}], "default": None}
        elif kind == 4:
            s = {"type": "array", "items": {"$ref": f"#/$defs/Model{rng.randrange(n_defs)}"}}
        elif kind == 5:
            s = {"type": "number", "exclusiveMinimum": 0}
        elif kind == 6:
            s = {"type": "boolean"}
        else:
            s = {"type": ["string", "null"]}
        s["title"] = key.replace("_", " ").title()
        properties[key] = s
        if kind in (0, 1, 2, 4, 6) or rng.random() < 0.3:
            required.append(key)
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
        "$defs": defs,
        "title": f"Result{n_props}",
    }


def synthetic_pairs(n_props: int) -> list[dict[str, Any]]:
    """Five output pairs (one unchanged, four breaking mutations) over the same base schema."""
    old = make_tool_schema(n_props)
    props = old["properties"]

    def mutate(fn: Any) -> dict[str, Any]:
        new = copy.deepcopy(old)
        fn(new)
        return new

    enum_key = next(k for k, s in props.items() if "enum" in s)
    str_key = next(
        k for k, s in props.items() if s.get("type") == "string" and "enum" not in s and k in old["required"]
    )
    req_key = old["required"][0]

    def add_prop(s: dict[str, Any]) -> None:
        s["properties"]["extra_field"] = {"type": "string"}

    def widen_enum(s: dict[str, Any]) -> None:
        s["properties"][enum_key]["enum"].append("v_new")

    def add_null(s: dict[str, Any]) -> None:
        orig = s["properties"][str_key]
        s["properties"][str_key] = {
            "anyOf": [{k: v for k, v in orig.items() if k != "title"}, {"type": "null"}],
            "title": orig["title"],
        }

    def drop_required(s: dict[str, Any]) -> None:
        s["required"] = [k for k in s["required"] if k != req_key]

    out = [{"name": f"synthetic-{n_props}p unchanged", "expected": "safe", "new": copy.deepcopy(old)}]
    for label, fn in (
        ("prop-added-closed", add_prop),
        ("enum-widened", widen_enum),
        ("nullable-added", add_null),
        ("required-removed", drop_required),
    ):
        out.append({"name": f"synthetic-{n_props}p {label}", "expected": "breaking", "new": mutate(fn)})
    for pair in out:
        pair.update(old=old, direction="output", size=n_props)
    return out


def case_pairs() -> list[dict[str, Any]]:
    pairs = []
    for path in sorted(CASES_DIR.glob("*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        pairs.append(
            {
                "name": path.stem[:44],
                "expected": case["expected"],
                "old": case["old"],
                "new": case["new"],
                "direction": case["direction"],
                "size": None,
            }
        )
    return pairs


# -- the two tools ------------------------------------------------------------------------------------
def audit(pair: dict[str, Any]) -> Any:
    return compare_schemas(pair["old"], pair["new"], pair["direction"], tool=TOOL)


def audit_verdict(findings: list[Any]) -> str:
    top = max((RANK[f.severity] for f in findings), default=0)
    return {0: "safe", 1: "warning", 2: "breaking"}[top]


def jsc_args(pair: dict[str, Any]) -> tuple[str, str, str]:
    role = "serializer" if pair["direction"] == "output" else "deserializer"
    as_json = lambda s: json.dumps(False if s is None else s)  # noqa: E731
    return as_json(pair["old"]), as_json(pair["new"]), role


def jsc_verdict(args: tuple[str, str, str]) -> str:
    try:
        return "safe" if jsoncompat.check_compat(*args) else "breaking"
    except ValueError:
        return "error"


def median_ms(fn: Any, runs: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def correct(expected: str, verdict: str) -> bool | None:
    """True/False for scored cases (expected breaking or safe); None for expected warning (not scored)."""
    if expected == "warning":
        return None
    return verdict == expected


# -- main ---------------------------------------------------------------------------------------------
def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=9, help="timed runs per pair (median reported); default 9")
    args = ap.parse_args()
    started = time.perf_counter()

    if jsoncompat is None:
        print("jsoncompat is not installed (pip install jsoncompat); benchmarking schema-audit only.\n")
    print(
        f"python {sys.version.split()[0]}; jsoncompat {JSONCOMPAT_VERSION or 'n/a'}; "
        f"median of {args.runs} runs after 1 warm-up; times in ms per pair\n"
    )

    pairs = case_pairs() + [p for n in SIZES for p in synthetic_pairs(n)]
    rows = []
    for pair in pairs:
        findings = audit(pair)
        sa_v = audit_verdict(findings)
        sa_t = median_ms(lambda pair=pair: audit(pair), args.runs)
        if jsoncompat is not None:
            jargs = jsc_args(pair)
            jc_v = jsc_verdict(jargs)
            jc_t = median_ms(lambda jargs=jargs: jsc_verdict(jargs), args.runs)
        else:
            jc_v, jc_t = "n/a", float("nan")
        rows.append({**pair, "sa_v": sa_v, "sa_t": sa_t, "jc_v": jc_v, "jc_t": jc_t})

    w = max(len(r["name"]) for r in rows)
    head = f"{'pair':<{w}}  {'dir':<6} {'expected':<8} | {'schema-audit':<12} {'ms':>8} | {'jsoncompat':<10} {'ms':>8}"
    print(head)
    print("-" * len(head))

    def mark(expected: str, verdict: str) -> str:
        ok = correct(expected, verdict)
        return " " if ok is None else ("✓" if ok else "✗")

    for r in rows:
        print(
            f"{r['name']:<{w}}  {r['direction']:<6} {r['expected']:<8} | "
            f"{r['sa_v']:<10}{mark(r['expected'], r['sa_v'])} "
            f"{r['sa_t']:>8.2f} | {r['jc_v']:<9}{mark(r['expected'], r['jc_v'])} {r['jc_t']:>8.3f}"
        )
    print()

    def totals(subset: list[dict[str, Any]], label: str) -> None:
        scored = [r for r in subset if r["expected"] != "warning"]
        sa_ok = sum(correct(r["expected"], r["sa_v"]) for r in scored)
        jc_ok = sum(correct(r["expected"], r["jc_v"]) for r in scored)
        warn = [r for r in subset if r["expected"] == "warning"]
        line = f"{label}: scored {len(scored)} | schema-audit {sa_ok}/{len(scored)} correct"
        line += f" | jsoncompat {jc_ok}/{len(scored)} correct" if jsoncompat is not None else ""
        if warn:
            line += (
                f" | expected-warning (not scored): {len(warn)}, schema-audit said warning on "
                f"{sum(r['sa_v'] == 'warning' for r in warn)}, jsoncompat said " + ", ".join(r["jc_v"] for r in warn)
            )
        print(line)

    real = [r for r in rows if r["size"] is None]
    synth = [r for r in rows if r["size"] is not None]
    totals(real, "real-world cases")
    totals(synth, "synthetic pairs ")
    totals(rows, "all pairs       ")
    print()

    print("per-size time (median ms per pair, mean over the 5 pairs of that size):")
    for n in SIZES:
        sub = [r for r in synth if r["size"] == n]
        sa = statistics.mean(r["sa_t"] for r in sub)
        jc = statistics.mean(r["jc_t"] for r in sub)
        ratio = f"  ratio schema-audit/jsoncompat = {sa / jc:,.1f}x" if jsoncompat is not None else ""
        print(f"  {n:>3} properties: schema-audit {sa:8.2f} ms | jsoncompat {jc:8.3f} ms{ratio}")
    big = [r for r in synth if r["size"] == max(SIZES)]
    if jsoncompat is not None:
        print(f"\nratio of per-pair time at {max(SIZES)} properties (schema-audit / jsoncompat):")
        for r in big:
            print(f"  {r['name']:<{w}}  {r['sa_t'] / r['jc_t']:>8.1f}x")

    print(f"\npeak Python memory (tracemalloc) of one schema-audit call at {max(SIZES)} properties:")
    for r in big:
        tracemalloc.start()
        audit(r)
        _, sa_peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(f"  {r['name']:<{w}}  schema-audit {sa_peak / 1024:8.1f} KiB")
    if jsoncompat is not None:
        print("  (jsoncompat allocates in its Rust core, which tracemalloc cannot see: not measured)")
    size = len(json.dumps(big[0]["old"]))
    print(f"  (old schema at {max(SIZES)} properties: {size / 1024:.1f} KiB of JSON)")
    print(f"\ntotal wall time {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
