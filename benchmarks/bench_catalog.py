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

Two more shapes (``--shapes``, default ``project:100,1000,5000;wide:1000;deep:3000``): ``wide``, issue 23's
(``make_wide_tool``: 15 typed output properties with descriptions, a status enum, ``$ref`` items of closed
objects with a nullable ``anyOf``, 8 string arguments with ``maxLength``; ``release_wide``), and ``deep``
(``make_deep_tool``: many small tools reaching their data through ``$defs`` chains, in families that share a
model graph; ``release_deep``). Each shape also gets a small diff (10 tools, 2 changed) through the CLI.

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


# -- the issue's shape: wide typed tools -----------------------------------------------------------------
def make_wide_tool(i: int, rng: random.Random) -> dict[str, Any]:
    """One tool of the issue-23 shape (about 5 KB): an inputSchema of 8 string arguments with ``maxLength``, a
    status enum and an integer; an outputSchema of 15 typed properties with descriptions, a status enum and an
    array of ``$ref`` items whose objects are closed and carry a nullable ``anyOf`` field."""
    statuses = ["active", "pending", "archived", "deleted"][: rng.randint(2, 4)]
    args: dict[str, Any] = {
        f"arg_{j}": {"type": "string", "maxLength": rng.choice([64, 128, 256, 1024]), "description": f"Argument {j}."}
        for j in range(8)
    }
    args["status"] = {"type": "string", "enum": list(statuses), "description": "Only items in this status."}
    args["page"] = {"type": "integer", "minimum": 1, "description": "Page number."}
    kinds = ("string", "integer", "number", "boolean")
    props: dict[str, Any] = {}
    for j in range(15):
        kind = kinds[(i + j) % len(kinds)]
        prop: dict[str, Any] = {"type": kind, "description": f"Field {j} of the record, as stored."}
        if kind == "string":
            prop["maxLength"] = rng.choice([100, 200, 500])
        elif kind in ("integer", "number"):
            prop["minimum"] = 0
        props[f"field_{j:02d}"] = prop
    props["status"] = {"type": "string", "enum": list(statuses), "description": "The record's status."}
    props["items"] = {"type": "array", "items": {"$ref": "#/$defs/Entry"}, "description": "The record's entries."}
    entry = {
        "type": "object",
        "properties": {
            "id": {"type": "string", "description": "Entry id."},
            "label": {"type": "string", "maxLength": rng.choice([80, 120]), "description": "Entry label."},
            "parent": {"anyOf": [{"type": "string"}, {"type": "null"}], "description": "Parent entry id."},
            "weight": {"type": "number", "minimum": 0, "description": "Entry weight."},
        },
        "required": ["id", "label", "parent"],
        "additionalProperties": False,
    }
    return {
        "name": f"wide_{i:05d}",
        "description": f"Reads record set {i} with its entries; filters by status and paginates.",
        "inputSchema": {
            "type": "object",
            "properties": args,
            "required": ["arg_0", "arg_1"],
            "additionalProperties": False,
            "$schema": "https://json-schema.org/draft/2020-12/schema",
        },
        "outputSchema": {
            "type": "object",
            "properties": props,
            "required": ["field_00", "status", "items"],
            "additionalProperties": False,
            "$defs": {"Entry": entry},
            "$schema": "https://json-schema.org/draft/2020-12/schema",
        },
        "annotations": {"readOnlyHint": True},
    }


def release_wide(tool: dict[str, Any]) -> dict[str, Any]:
    """The issue's release of a wide tool: an output enum value added, an optional property added to the closed
    entry model, an argument's ``maxLength`` tightened."""
    t = copy.deepcopy(tool)
    out, inp = t["outputSchema"], t["inputSchema"]
    out["properties"]["status"]["enum"].append("locked")
    out["$defs"]["Entry"]["properties"]["note"] = {"type": "string", "description": "A note."}
    inp["properties"]["arg_3"]["maxLength"] = 32
    return t


# -- a shape of our own: deep $defs chains, many small tools ---------------------------------------------
DEEP_LEVELS = 7
#: Model graphs of the deep shape: the tools come in families (one resource type each: list, get, search …), and
#: the tools of a family return their type's model graph, as generated servers repeat one response model.
DEEP_FAMILIES = 50


def make_deep_tool(i: int, rng: random.Random) -> dict[str, Any]:
    """One small tool (about 1.6 KB) whose outputSchema reaches its data through a chain of ``DEEP_LEVELS``
    ``$defs`` models, each a closed object with one scalar and a ``$ref`` to the next (every other one nullable
    through ``anyOf``), the model graph of its family (``DEEP_FAMILIES``); an inputSchema of two arguments, one of
    them a ``$ref`` to a ``$defs`` model."""
    family = i % DEEP_FAMILIES
    defs: dict[str, Any] = {}
    for level in range(DEEP_LEVELS):
        props: dict[str, Any] = {"v": {"type": ["string", "integer", "number"][(level + family) % 3]}}
        if level + 1 < DEEP_LEVELS:
            nxt = {"$ref": f"#/$defs/L{level + 1}"}
            props["next"] = nxt if level % 2 else {"anyOf": [nxt, {"type": "null"}]}
        else:
            props["code"] = {"type": "string", "enum": [f"f{family}_c{j}" for j in range(2 + family % 3)]}
        defs[f"L{level}"] = {"type": "object", "properties": props, "required": ["v"], "additionalProperties": False}
    return {
        "name": f"deep_{i:05d}",
        "description": f"Walks chain {i}.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "id": {"type": "string", "maxLength": rng.choice([32, 64])},
                "filter": {"$ref": "#/$defs/Filter"},
            },
            "required": ["id"],
            "additionalProperties": False,
            "$defs": {
                "Filter": {
                    "type": "object",
                    "properties": {"depth": {"type": "integer", "minimum": 0, "maximum": DEEP_LEVELS}},
                    "additionalProperties": False,
                }
            },
        },
        "outputSchema": {"$ref": "#/$defs/L0", "$defs": defs},
    }


def release_deep(tool: dict[str, Any]) -> dict[str, Any]:
    """A release of a deep tool: the deepest model's enum widened, a property added to a closed middle model, the
    filter's maximum lowered."""
    t = copy.deepcopy(tool)
    defs = t["outputSchema"]["$defs"]
    defs[f"L{DEEP_LEVELS - 1}"]["properties"]["code"]["enum"].append("c9")
    defs[f"L{DEEP_LEVELS // 2}"]["properties"]["extra"] = {"type": "boolean"}
    t["inputSchema"]["$defs"]["Filter"]["properties"]["depth"]["maximum"] = DEEP_LEVELS - 2
    return t


def shaped_catalogs(shape: str, size: int) -> dict[str, list[dict[str, Any]]]:
    """``{"old", "typical", "rewrite", "small-old", "small-new"}`` of ``shape`` (``project``: ``catalogs``; ``wide``:
    the issue's shape; ``deep``: deep ``$defs`` chains): ``typical`` changes every 20th tool, ``rewrite`` every tool,
    and the small pair is 10 tools with 2 changed."""
    if shape == "project":
        cats = catalogs(size)
        small = catalogs(10)
        return {**cats, "small-old": small["old"], "small-new": small["rewrite"][:2] + small["old"][2:]}
    make, release = {"wide": (make_wide_tool, release_wide), "deep": (make_deep_tool, release_deep)}[shape]
    rng = random.Random(SEED + size + len(shape))
    old = [make(i, rng) for i in range(size)]
    typical = [release(t) if i % 20 == 7 else t for i, t in enumerate(old)]
    rewrite = [release(t) for t in old]
    return {
        "old": old,
        "typical": typical,
        "rewrite": rewrite,
        "small-old": old[:10],
        "small-new": rewrite[:2] + old[2:10],
    }


# -- the measured programs (run in child processes) ---------------------------------------------------
def _peak_mib(who: int = resource.RUSAGE_SELF) -> float:
    return resource.getrusage(who).ru_maxrss / 1024


def child_floor(a: str, b: str) -> dict[str, float]:
    t0 = time.perf_counter()
    for path in (a, b):
        json.loads(Path(path).read_text(encoding="utf-8"))
    return {"s": time.perf_counter() - t0, "rss": _peak_mib()}


def child_audit(a: str, b: str, jobs: int | None = None) -> dict[str, float]:
    from mcp_schema_audit.audit import diff_report
    from mcp_schema_audit.report import render
    from mcp_schema_audit.settings import RunLimits, Settings
    from mcp_schema_audit.snapshot import load_snapshot

    t0 = time.perf_counter()
    old, new = load_snapshot(a), load_snapshot(b)
    report = diff_report(old, new, Settings(), RunLimits(time_budget=0, jobs=jobs))
    text = render(report, "json")
    return {
        "s": time.perf_counter() - t0,
        "rss": _peak_mib(),
        "worker_rss": _peak_mib(resource.RUSAGE_CHILDREN),
        "findings": len(report.findings),
        "bytes": len(text),
    }


def child_audit_one(a: str, b: str) -> dict[str, float]:
    return child_audit(a, b, jobs=1)


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


CHILDREN = {"floor": child_floor, "audit": child_audit, "audit-j1": child_audit_one, "jsoncompat": child_jsoncompat}


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
#: Shapes and their default sizes (``--shapes``): the project's catalog, the issue's wide tools, deep ``$defs``.
DEFAULT_SHAPES = "project:100,1000,5000;wide:1000;deep:3000"


def loadavg() -> str:
    """The 1-minute load average (the machine is shared: every figure is printed beside it)."""
    try:
        return Path("/proc/loadavg").read_text(encoding="utf-8").split()[0]
    except OSError:
        return "?"


def cli_seconds(args: list[str], runs: int) -> float:
    """Median wall time of ``schema-audit ARGS`` in a fresh process (interpreter and imports included)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    cmd = [sys.executable, "-m", "mcp_schema_audit", *args]
    subprocess.run(cmd, capture_output=True, env=env, check=False)  # bytecode written, as on a user's machine
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, capture_output=True, env=env, check=False)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def parse_shapes(text: str) -> list[tuple[str, tuple[int, ...]]]:
    out = []
    for part in text.split(";"):
        name, _, sizes = part.strip().partition(":")
        if name not in ("project", "wide", "deep"):
            raise SystemExit(f"unknown shape {name!r} (project, wide, deep)")
        out.append((name, tuple(int(x) for x in sizes.split(",")) if sizes else (1000,)))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="interleaved runs per measurement (median); default 5")
    ap.add_argument(
        "--shapes", default=DEFAULT_SHAPES, help=f"SHAPE:SIZE,…;… (project, wide, deep); default {DEFAULT_SHAPES}"
    )
    ap.add_argument("--sizes", help="sizes of the project shape (tools), kept for older command lines")
    ap.add_argument("--pair-sizes", default="10,100,1000", help="properties per pair; default 10,100,1000; 0: none")
    ap.add_argument("--no-j1", action="store_true", help="skip the -j 1 column (the pool against one process)")
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
    shapes = parse_shapes(args.shapes)
    if args.sizes:
        shapes = [(n, tuple(int(x) for x in args.sizes.split(",")) if n == "project" else s) for n, s in shapes]
    started = time.perf_counter()
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cores; medians of {args.runs} interleaved runs, "
        f"each in a fresh process; seconds and MiB; load average {loadavg()} at the start\n"
    )
    head = (
        f"{'catalog':<22} {'floor s':>8} {'audit s':>8} {'-j1 s':>7} {'jsc s':>8} {'audit/floor':>11} "
        f"{'audit/jsc':>9} {'floor MiB':>9} {'audit MiB':>9} {'RSS x':>6} {'worker MiB':>10} {'cli s':>6} "
        f"{'findings':>8} {'load':>5}"
    )
    print(head)
    print("-" * len(head))
    typical_s: dict[int, float] = {}
    small: list[tuple[str, float, str]] = []
    kinds = ["floor", "audit", *([] if args.no_j1 else ["audit-j1"]), "jsoncompat"]
    with tempfile.TemporaryDirectory(prefix="sa-bench-") as tmp:
        for shape, sizes in shapes:
            for size in sizes:
                cats = shaped_catalogs(shape, size)
                paths = {}
                for key, tools in cats.items():
                    paths[key] = str(Path(tmp) / f"{shape}-{size}-{key}.json")
                    Path(paths[key]).write_text(json.dumps({"tools": tools}), encoding="utf-8")
                for scenario in ("typical", "rewrite"):
                    a, b = paths["old"], paths[scenario]
                    res: dict[str, list[dict[str, float]]] = {k: [] for k in kinds}
                    for _ in range(args.runs):
                        for kind in res:
                            if kind == "jsoncompat" and jsoncompat is None:
                                continue
                            res[kind].append(run_child(kind, a, b))
                    med = {k: statistics.median(r["s"] for r in v) if v else float("nan") for k, v in res.items()}
                    rss = {k: statistics.median(r["rss"] for r in v) if v else float("nan") for k, v in res.items()}
                    workers = statistics.median(r["worker_rss"] for r in res["audit"])
                    cli_args = ["diff", a, b, "--format", "json", "--fail-on", "never", "--time-budget", "0"]
                    t0 = time.perf_counter()
                    cli = subprocess.run([sys.executable, "-m", "mcp_schema_audit", *cli_args], capture_output=True)
                    cli_s = time.perf_counter() - t0
                    if cli.returncode != 0:
                        print(f"  cli failed: {cli.stderr.decode(errors='replace').strip()[:200]}")
                    if scenario == "typical" and shape == "project":
                        typical_s[size] = med["audit"]
                    print(
                        f"{f'{shape} {size} {scenario}':<22} {med['floor']:>8.3f} {med['audit']:>8.3f} "
                        f"{med.get('audit-j1', float('nan')):>7.3f} {med['jsoncompat']:>8.3f} "
                        f"{med['audit'] / med['floor']:>10.1f}x {med['audit'] / med['jsoncompat']:>8.2f}x "
                        f"{rss['floor']:>9.0f} {rss['audit']:>9.0f} {rss['audit'] / rss['floor']:>5.1f}x "
                        f"{f'{workers:.0f}' if workers else '-':>10} {cli_s:>6.2f} "
                        f"{int(res['audit'][0]['findings']):>8} {loadavg():>5}",
                        flush=True,
                    )
            small_args = ["diff", paths["small-old"], paths["small-new"], "--fail-on", "never"]
            small.append((shape, cli_seconds(small_args, max(args.runs, 5)), loadavg()))
    if 1000 in typical_s and 5000 in typical_s:
        print(f"\ngrowth 1,000 → 5,000 tools (typical): {typical_s[5000] / typical_s[1000]:.2f}x time for 5x tools")
    pair_sizes = tuple(int(x) for x in args.pair_sizes.split(",") if int(x) > 0)
    # a pair takes a millisecond or less: a median of 5 is the machine's noise, one of 101 is the pair's cost
    pair_runs = max(args.runs, 101)
    if pair_sizes:
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
    print(
        f"\nsmall diff (the CLI, text report, 10 tools of the shape with 2 changed, median of {max(args.runs, 5)}), s:"
    )
    for shape, seconds, load in small:
        print(f"  {shape:<44} {seconds:6.3f}   (load {load})")
    print("\nstart-up (the installed CLI, median of 11 runs, bytecode cached as on a user's machine), s:")
    for what, seconds in startup():
        print(f"  {what:<44} {seconds:6.3f}   (load {loadavg()})")
    print(f"\ntotal wall time {time.perf_counter() - started:.0f} s; load average {loadavg()} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
