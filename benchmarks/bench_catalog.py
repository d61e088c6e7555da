"""Catalog-scale benchmark: schema-audit's ``diff`` of two large ``tools/list`` catalogs, beside the JSON parse
floor and jsoncompat (the Rust anchor) on the same files, in one run.

Run: ``.venv/bin/python benchmarks/bench_catalog.py [--runs N] [--sizes 100,1000,5000]`` (prints figures; not
a test). jsoncompat comes with the ``bench`` extra (``pip install -e ".[bench]"``).

Catalogs
--------
Realistic generated tools (``make_tool``): an ``inputSchema`` (closed object: bounded strings, an enum, a
bounded integer, a nullable ``anyOf``, an array) and an ``outputSchema`` (closed object with ``$defs``
models reached by ``$ref``, nullable ``anyOf``, enums, numbers), about 2.3 KB of JSON per tool. For each size
two new versions: ``typical`` (about 5% of the tools changed) and ``rewrite`` (every tool changed). A change
is one of: an optional property added to a closed output model, an output enum widened, a required argument
added, a ``maxLength`` tightened, a description changed, zod 4's interoperability bounds added to every
integer, an output ``anyOf`` reordered (equivalent).

What is measured (medians of ``--runs`` interleaved runs, each in a fresh process)
------------------------------------------------------------------------------------
- ``floor``: read both files and ``json.loads`` them: what any tool must do.
- ``schema-audit``: ``load_snapshot`` both files, ``audit.diff_report`` (every finding, witnesses confirmed, the
  sampling oracle on), the JSON report rendered: the ``diff`` command without interpreter start-up.
- ``jsoncompat``: read and parse both files, pair tools by name, skip identical ones (canonical JSON), and
  ``check_compat`` each changed tool's inputSchema (deserializer) and outputSchema (serializer).
- peak RSS of each process (``ru_maxrss``), and the ``schema-audit diff`` CLI wall time (interpreter and
  imports included) once per size and scenario.

Then, per tool pair (medians of at least 101 interleaved runs: a pair takes a millisecond or less): one output
schema of 10 / 100 / 1,000 properties with one property's enum widened;
schema-audit's ``diff_snapshots`` of one-tool snapshots (the engine plus the per-tool work ``diff`` adds:
metadata, listing-time checks, the oracle) against jsoncompat's ``check_compat`` on the same pair.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SEED = 20261130
MUTATIONS = (
    "output-prop-added",
    "output-enum-widened",
    "input-required-added",
    "input-maxlength-tightened",
    "description-changed",
    "zod4-int-bounds",
    "anyof-reordered",
)


# -- generated catalogs ---------------------------------------------------------------------------------
def make_tool(i: int, rng: random.Random) -> dict[str, Any]:
    """One tool of about 2.3 KB: a closed inputSchema and an outputSchema with $defs models."""
    modes = [f"mode_{j}" for j in range(rng.randint(3, 6))]
    kinds = [f"kind_{j}" for j in range(rng.randint(2, 5))]
    statuses = ["ok", "partial", "error"][: rng.randint(2, 3)]
    input_schema = {
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "minLength": 1,
                "maxLength": rng.choice([256, 512, 1024]),
                "description": "Search text.",
            },
            "limit": {"type": "integer", "minimum": 1, "maximum": rng.choice([50, 100, 500]), "default": 20},
            "mode": {"type": "string", "enum": modes, "description": "How to search."},
            "cursor": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
            "tags": {"type": "array", "items": {"type": "string", "maxLength": 64}, "maxItems": 20},
        },
        "required": ["query"],
        "additionalProperties": False,
        "$schema": "https://json-schema.org/draft/2020-12/schema",
    }
    output_schema = {
        "type": "object",
        "properties": {
            "results": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
            "total": {"type": "integer", "minimum": 0},
            "next_cursor": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "status": {"type": "string", "enum": statuses},
        },
        "required": ["results", "total", "status"],
        "additionalProperties": False,
        "$defs": {
            "Item": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "name": {"type": "string", "maxLength": 200},
                    "score": {"type": "number", "minimum": 0, "maximum": 1},
                    "kind": {"type": "string", "enum": kinds},
                    "meta": {"anyOf": [{"$ref": "#/$defs/Meta"}, {"type": "null"}]},
                },
                "required": ["id", "name", "kind"],
                "additionalProperties": False,
            },
            "Meta": {
                "type": "object",
                "properties": {
                    "created": {"type": "string", "format": "date-time"},
                    "size": {"type": "integer", "minimum": 0},
                    "owner": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                },
                "required": ["created"],
                "additionalProperties": False,
            },
        },
        "$schema": "https://json-schema.org/draft/2020-12/schema",
    }
    return {
        "name": f"tool_{i:05d}",
        "title": f"Tool {i}",
        "description": f"Searches the {rng.choice(['catalog', 'archive', 'index'])} for items of tool {i}; "
        "returns a page of results with a cursor for the next page. " * 2,
        "inputSchema": input_schema,
        "outputSchema": output_schema,
        "annotations": {"readOnlyHint": True, "openWorldHint": False},
    }


def mutate(tool: dict[str, Any], how: str) -> dict[str, Any]:
    """A changed copy of ``tool`` (see ``MUTATIONS``)."""
    t = copy.deepcopy(tool)
    out, inp = t["outputSchema"], t["inputSchema"]
    if how == "output-prop-added":
        out["$defs"]["Item"]["properties"]["source"] = {"type": "string"}
    elif how == "output-enum-widened":
        out["properties"]["status"]["enum"].append("throttled")
    elif how == "input-required-added":
        inp["properties"]["tenant"] = {"type": "string"}
        inp["required"].append("tenant")
    elif how == "input-maxlength-tightened":
        inp["properties"]["query"]["maxLength"] = 128
    elif how == "description-changed":
        t["description"] += " Now faster."
    elif how == "zod4-int-bounds":
        for schema in (
            inp["properties"]["limit"],
            out["properties"]["total"],
            out["$defs"]["Meta"]["properties"]["size"],
        ):
            schema.setdefault("minimum", -9007199254740991)
            schema["maximum"] = min(schema.get("maximum", 9007199254740991), 9007199254740991)
    elif how == "anyof-reordered":
        out["properties"]["next_cursor"]["anyOf"].reverse()
    return t


def catalogs(size: int) -> dict[str, list[dict[str, Any]]]:
    """``{"old", "typical", "rewrite"}`` tool lists of ``size`` tools."""
    rng = random.Random(SEED + size)
    old = [make_tool(i, rng) for i in range(size)]
    typical, rewrite = [], []
    for i, tool in enumerate(old):
        how = MUTATIONS[i % len(MUTATIONS)]
        rewrite.append(mutate(tool, how))
        typical.append(mutate(tool, how) if i % 20 == 7 else tool)
    return {"old": old, "typical": typical, "rewrite": rewrite}


# -- the measured programs (run in child processes) ---------------------------------------------------
def _peak_mib(who: int = resource.RUSAGE_SELF) -> float:
    return resource.getrusage(who).ru_maxrss / 1024


def child_floor(a: str, b: str) -> dict[str, float]:
    t0 = time.perf_counter()
    for path in (a, b):
        json.loads(Path(path).read_text(encoding="utf-8"))
    return {"s": time.perf_counter() - t0, "rss": _peak_mib()}


def child_audit(a: str, b: str) -> dict[str, float]:
    from mcp_schema_audit.audit import diff_report
    from mcp_schema_audit.report import render
    from mcp_schema_audit.settings import RunLimits, Settings
    from mcp_schema_audit.snapshot import load_snapshot

    t0 = time.perf_counter()
    old, new = load_snapshot(a), load_snapshot(b)
    report = diff_report(old, new, Settings(), RunLimits(time_budget=0))
    text = render(report, "json")
    return {
        "s": time.perf_counter() - t0,
        "rss": _peak_mib(),
        "worker_rss": _peak_mib(resource.RUSAGE_CHILDREN),
        "findings": len(report.findings),
        "bytes": len(text),
    }


def child_jsoncompat(a: str, b: str) -> dict[str, float]:
    import jsoncompat  # type: ignore[import-not-found]

    t0 = time.perf_counter()
    old = {t["name"]: t for t in json.loads(Path(a).read_text(encoding="utf-8"))["tools"]}
    new = {t["name"]: t for t in json.loads(Path(b).read_text(encoding="utf-8"))["tools"]}
    incompatible = 0
    for name in old.keys() & new.keys():
        o, n = old[name], new[name]
        if json.dumps(o, sort_keys=True) == json.dumps(n, sort_keys=True):
            continue
        for key, role in (("inputSchema", "deserializer"), ("outputSchema", "serializer")):
            if not jsoncompat.check_compat(json.dumps(o[key]), json.dumps(n[key]), role):
                incompatible += 1
    return {"s": time.perf_counter() - t0, "rss": _peak_mib(), "incompatible": incompatible}


CHILDREN = {"floor": child_floor, "audit": child_audit, "jsoncompat": child_jsoncompat}


def run_child(kind: str, a: str, b: str) -> dict[str, float]:
    out = subprocess.run([sys.executable, __file__, "--child", kind, a, b], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


# -- per pair ----------------------------------------------------------------------------------------------
def wide_output(n: int) -> dict[str, Any]:
    rng = random.Random(SEED + n)
    props: dict[str, Any] = {}
    for i in range(n):
        k = i % 5
        props[f"f{i:04d}"] = (
            {"type": "string", "maxLength": rng.choice([50, 100])}
            if k == 0
            else {"type": "integer", "minimum": 0}
            if k == 1
            else {"type": "string", "enum": ["a", "b", "c"]}
            if k == 2
            else {"anyOf": [{"type": "string"}, {"type": "null"}]}
            if k == 3
            else {"type": "boolean"}
        )
    return {"type": "object", "properties": props, "required": list(props)[: n // 2], "additionalProperties": False}


def per_pair(sizes: tuple[int, ...], runs: int, jsoncompat: Any) -> list[dict[str, Any]]:
    from mcp_schema_audit.diff import diff_snapshots
    from mcp_schema_audit.fastpaths import clear_caches
    from mcp_schema_audit.snapshot import snapshot_from_data

    rows = []
    for n in sizes:
        old = wide_output(n)
        new = copy.deepcopy(old)
        new["properties"]["f0002"]["enum"].append("d")
        tool = {"name": "t", "inputSchema": {"type": "object"}}
        a = json.dumps({"tools": [{**tool, "outputSchema": old}]})
        b = json.dumps({"tools": [{**tool, "outputSchema": new}]})

        def audit(a: str = a, b: str = b) -> Any:
            return diff_snapshots(
                snapshot_from_data(json.loads(a), source="a"), snapshot_from_data(json.loads(b), source="b")
            )

        def anchor(old: Any = old, new: Any = new) -> Any:
            return jsoncompat.check_compat(json.dumps(old), json.dumps(new), "serializer")

        times: dict[str, list[float]] = {"audit": [], "jsoncompat": []}
        verdicts = {
            "audit": {f.rule for f in audit() if f.severity == "breaking"},
            "jsoncompat": None if jsoncompat is None else anchor(),
        }
        for _ in range(runs):
            for name, fn in (("audit", audit), ("jsoncompat", anchor)):
                if name == "jsoncompat" and jsoncompat is None:
                    continue
                clear_caches()  # cold: no result of the previous run's checks is reused
                t0 = time.perf_counter()
                fn()
                times[name].append((time.perf_counter() - t0) * 1000)
        rows.append(
            {
                "n": n,
                "audit": statistics.median(times["audit"]),
                "jsoncompat": statistics.median(times["jsoncompat"]) if times["jsoncompat"] else float("nan"),
                "verdicts": verdicts,
            }
        )
    return rows


# -- start-up -----------------------------------------------------------------------------------------------
def startup(runs: int = 11) -> list[tuple[str, float]]:
    """Median wall time of ``schema-audit --help`` and of a diff of the two small seed snapshots (text report),
    each a fresh process. ``PYTHONDONTWRITEBYTECODE`` is dropped and one warm-up run writes the bytecode, as a
    user's machine has it after the first run."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    seed = ROOT / "fixtures" / "seed"
    commands = [
        ("schema-audit --help", ["--help"]),
        ("schema-audit diff (seed 0.2.5 → 0.2.6, text)", ["diff", str(seed / "0.2.5.json"), str(seed / "0.2.6.json")]),
    ]
    out = []
    for what, args in commands:
        cmd = [sys.executable, "-m", "mcp_schema_audit", *args]
        subprocess.run(cmd, capture_output=True, env=env, check=False)
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            subprocess.run(cmd, capture_output=True, env=env, check=False)
            times.append(time.perf_counter() - t0)
        out.append((what, statistics.median(times)))
    return out


# -- main ----------------------------------------------------------------------------------------------------
def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="interleaved runs per measurement (median); default 5")
    ap.add_argument("--sizes", default="100,1000,5000", help="catalog sizes (tools); default 100,1000,5000")
    ap.add_argument("--pair-sizes", default="10,100,1000", help="properties per pair; default 10,100,1000")
    ap.add_argument("--child", nargs=3, metavar=("KIND", "OLD", "NEW"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        kind, a, b = args.child
        print(json.dumps(CHILDREN[kind](a, b)))
        return 0
    try:
        import jsoncompat  # type: ignore[import-not-found]
    except ImportError:
        jsoncompat = None
        print("jsoncompat is not installed (pip install -e '.[bench]'): anchor columns are empty\n")
    sizes = tuple(int(x) for x in args.sizes.split(","))
    started = time.perf_counter()
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cores; medians of {args.runs} interleaved runs, "
        "each in a fresh process; seconds and MiB\n"
    )
    head = (
        f"{'catalog':<16} {'floor s':>8} {'audit s':>8} {'jsc s':>8} {'audit/floor':>11} {'audit/jsc':>9} "
        f"{'floor MiB':>9} {'audit MiB':>9} {'RSS x':>6} {'worker MiB':>10} {'cli s':>6} {'findings':>8}"
    )
    print(head)
    print("-" * len(head))
    typical_s: dict[int, float] = {}
    with tempfile.TemporaryDirectory(prefix="sa-bench-") as tmp:
        for size in sizes:
            cats = catalogs(size)
            paths = {}
            for key, tools in cats.items():
                paths[key] = str(Path(tmp) / f"{size}-{key}.json")
                Path(paths[key]).write_text(json.dumps({"tools": tools}), encoding="utf-8")
            for scenario in ("typical", "rewrite"):
                a, b = paths["old"], paths[scenario]
                res: dict[str, list[dict[str, float]]] = {"floor": [], "audit": [], "jsoncompat": []}
                for _ in range(args.runs):
                    for kind in res:
                        if kind == "jsoncompat" and jsoncompat is None:
                            continue
                        res[kind].append(run_child(kind, a, b))
                med = {k: statistics.median(r["s"] for r in v) if v else float("nan") for k, v in res.items()}
                rss = {k: statistics.median(r["rss"] for r in v) if v else float("nan") for k, v in res.items()}
                workers = statistics.median(r["worker_rss"] for r in res["audit"])
                t0 = time.perf_counter()
                cli = subprocess.run(
                    [
                        sys.executable,
                        "-m",
                        "mcp_schema_audit",
                        "diff",
                        a,
                        b,
                        "--format",
                        "json",
                        "--fail-on",
                        "never",
                        "--time-budget",
                        "0",
                    ],
                    capture_output=True,
                    text=True,
                )
                cli_s = time.perf_counter() - t0
                if cli.returncode != 0:
                    print(f"  cli failed: {cli.stderr.strip()[:200]}")
                if scenario == "typical":
                    typical_s[size] = med["audit"]
                print(
                    f"{f'{size} {scenario}':<16} {med['floor']:>8.3f} {med['audit']:>8.3f} {med['jsoncompat']:>8.3f} "
                    f"{med['audit'] / med['floor']:>10.1f}x {med['audit'] / med['jsoncompat']:>8.2f}x "
                    f"{rss['floor']:>9.0f} {rss['audit']:>9.0f} {rss['audit'] / rss['floor']:>5.1f}x "
                    f"{workers if workers else '-':>10} {cli_s:>6.2f} "
                    f"{int(res['audit'][0]['findings']):>8}"
                )
    if 1000 in typical_s and 5000 in typical_s:
        print(f"\ngrowth 1,000 → 5,000 tools (typical): {typical_s[5000] / typical_s[1000]:.2f}x time for 5x tools")
    pair_sizes = tuple(int(x) for x in args.pair_sizes.split(","))
    # a pair takes a millisecond or less: a median of 5 is the machine's noise, one of 101 is the pair's cost
    pair_runs = max(args.runs, 101)
    print(
        f"\nper tool pair (diff of one-tool snapshots: engine, metadata, listing checks, oracle), median of "
        f"{pair_runs} interleaved runs, ms:"
    )
    for row in per_pair(pair_sizes, pair_runs, jsoncompat):
        ratio = row["audit"] / row["jsoncompat"] if row["jsoncompat"] == row["jsoncompat"] else float("nan")
        print(
            f"  {row['n']:>5} properties: schema-audit {row['audit']:8.2f} | jsoncompat {row['jsoncompat']:8.3f} | "
            f"{ratio:5.2f}x   (breaking: {sorted(row['verdicts']['audit'])}; jsoncompat compatible: "
            f"{row['verdicts']['jsoncompat']})"
        )
    print("\nstart-up (the installed CLI, median of 11 runs, bytecode cached as on a user's machine), s:")
    for what, seconds in startup():
        print(f"  {what:<44} {seconds:6.3f}")
    print(f"\ntotal wall time {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
