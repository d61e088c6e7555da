"""Record every report the CLI prints on the project's own inputs, to check that a refactor changes none.

Run ``python scripts/report_goldens.py record DIR`` before a change and ``python scripts/report_goldens.py
compare DIR`` after it: the second run prints each report whose bytes (or exit code) differ and exits 1 when
any does. The inputs are the fixtures' corpus and seed (every consecutive pair), the shared and rule cases
(``tests/cases``, one tool each), generated catalogs (the benchmark's ``typical`` and ``rewrite`` of 140 tools)
and the recorded probe; the commands are ``diff`` (every format, every mode, ``--host``, ``--samples``, a
config with ``[severity]``/``[[ignore]]``), ``history``, ``lint``, ``probe --replay``, ``rules`` and
``explain``. Each report is run as a real ``schema-audit`` process (so nothing depends on the package's
internal names), two at a time. ``DIR/inputs`` holds the generated inputs; reports name them by relative
path, so two recordings compare byte for byte.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FORMATS = ("text", "json", "markdown", "sarif", "github", "junit", "html", "changelog", "ignore")
MODES = ("backward", "forward", "full")
CONFIG = """\
[severity]
"output-enum-value-added" = "info"
[[ignore]]
rule = "output-property-added-to-closed-object"
reason = "accepted for the golden run"
[[ignore]]
rule = "input-*"
tool = "send*"
reason = "accepted #12 for the golden run"
"""


def _versions(folder: Path) -> list[Path]:
    def key(p: Path) -> tuple[Any, ...]:
        return tuple(int(x) if x.isdigit() else x for x in p.stem.split("."))

    return sorted((p for p in folder.glob("*.json") if p.stem[0].isdigit()), key=key)


def _case_catalogs() -> tuple[dict[str, Any], dict[str, Any]]:
    """Every shared case and rule case as one tool each, in two tools/list documents (old, new)."""
    cases_dir = ROOT / "tests" / "cases"
    cases = [(p.stem, json.loads(p.read_text(encoding="utf-8"))) for p in sorted(cases_dir.glob("*.json"))]
    for path in sorted((cases_dir / "rules").glob("*.json")):
        cases += [(c["id"], c) for c in json.loads(path.read_text(encoding="utf-8"))["cases"]]
    sides: tuple[list[dict[str, Any]], list[dict[str, Any]]] = ([], [])
    for ident, case in cases:
        for side, schema in zip(sides, (case["old"], case["new"]), strict=False):
            if case["direction"] == "input":
                if schema is not None:
                    side.append({"name": ident, "inputSchema": schema})
            else:
                tool = {"name": ident, "inputSchema": {"type": "object"}}
                side.append(tool if schema is None else {**tool, "outputSchema": schema})
    return {"tools": sides[0]}, {"tools": sides[1]}


def _inputs(where: Path) -> dict[str, Any]:
    """Write the generated inputs into ``where``; return the pairs, histories and lint targets (relative paths)."""
    where.mkdir(parents=True, exist_ok=True)
    pairs: list[tuple[str, str, str]] = []
    for folder in sorted((ROOT / "fixtures" / "corpus").iterdir()):
        if folder.is_dir():
            vs = _versions(folder)
            pairs += [(f"{folder.name}-{a.stem}-{b.stem}", str(a), str(b)) for a, b in zip(vs, vs[1:], strict=False)]
    seed = _versions(ROOT / "fixtures" / "seed")
    pairs += [(f"seed-{a.stem}-{b.stem}", str(a), str(b)) for a, b in zip(seed, seed[1:], strict=False)]
    old, new = _case_catalogs()
    (where / "cases-old.json").write_text(json.dumps(old), encoding="utf-8")
    (where / "cases-new.json").write_text(json.dumps(new), encoding="utf-8")
    pairs.append(("cases", "cases-old.json", "cases-new.json"))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_catalog import catalogs  # the benchmark's generator

    cats = catalogs(140)
    for k in ("old", "typical", "rewrite"):
        (where / f"catalog-{k}.json").write_text(json.dumps({"tools": cats[k]}), encoding="utf-8")
    pairs += [
        ("catalog-typical", "catalog-old.json", "catalog-typical.json"),
        ("catalog-rewrite", "catalog-old.json", "catalog-rewrite.json"),
    ]
    (where / "config.toml").write_text(CONFIG, encoding="utf-8")
    if not (where / "demo-v2.json").is_file():  # the demo server's release 2, for diff --samples
        subprocess.run(
            [
                sys.executable,
                "-m",
                "mcp_schema_audit",
                "snapshot",
                "--out",
                "demo-v2.json",
                "--label",
                "v2",
                "--",
                sys.executable,
                "-m",
                "mcp_schema_audit.demo_server.mail_server",
                "--version",
                "2",
            ],
            cwd=where,
            check=True,
            capture_output=True,
            timeout=120,
        )
    memory = _versions(ROOT / "fixtures" / "corpus" / "server-memory")
    histories = [
        ("seed", str(seed[-1]), [str(s) for s in seed[:-1]]),
        ("server-memory", str(memory[-1]), [str(s) for s in memory[:-1]]),
        ("catalog", "catalog-rewrite.json", ["catalog-old.json", "catalog-typical.json"]),
    ]
    lints = [(f"seed-{s.stem}", str(s)) for s in seed] + [
        (f"{f.parent.name}-{f.stem}", str(f)) for f in sorted((ROOT / "fixtures" / "corpus").glob("*/*.json"))
    ]
    return {"pairs": pairs, "histories": histories, "lints": lints}


def _jobs(where: Path) -> list[tuple[str, list[str]]]:
    """``(name, argv after schema-audit)`` of every report."""
    plan = _inputs(where)
    jobs: list[tuple[str, list[str]]] = []
    for name, a, b in plan["pairs"]:
        for mode in MODES:
            for fmt in FORMATS:
                jobs.append((f"diff/{name}.{mode}.{fmt}", ["diff", a, b, "--mode", mode, "--format", fmt]))
        jobs.append((f"diff/{name}.host-ts.text", ["diff", a, b, "--host", "ts-sdk-v1", "--host", "ts-sdk-v2"]))
        jobs.append((f"diff/{name}.host-py.json", ["diff", a, b, "--host", "python-sdk", "--format", "json"]))
        for fmt in ("text", "json", "markdown"):
            jobs.append(
                (
                    f"diff/{name}.config.{fmt}",
                    ["diff", a, b, "--config", "config.toml", "--format", fmt, "--mode", "full"],
                )
            )
    for name, new, against in plan["histories"]:
        args = ["history", new, *[x for a in against for x in ("--against", a)]]
        for fmt in FORMATS:
            jobs.append((f"history/{name}.{fmt}", [*args, "--format", fmt]))
        jobs.append((f"history/{name}.config.json", [*args, "--format", "json", "--config", "config.toml"]))
    for name, snap in plan["lints"]:
        for fmt in FORMATS:
            jobs.append((f"lint/{name}.{fmt}", ["lint", snap, "--format", fmt]))
    probe = ROOT / "fixtures" / "probe"
    for fmt in FORMATS[:-1]:
        jobs.append(
            (
                f"probe/replay.{fmt}",
                [
                    "probe",
                    "--replay",
                    str(probe / "demo-v2.recording.json"),
                    "--against",
                    str(probe / "demo-v1.json"),
                    "--format",
                    fmt,
                ],
            )
        )
        jobs.append(
            (
                f"diff/demo-samples.{fmt}",
                [
                    "diff",
                    str(probe / "demo-v1.json"),
                    "demo-v2.json",
                    "--format",
                    fmt,
                    "--samples",
                    str(probe / "demo-v2.recording.json"),
                ],
            )
        )
    jobs += [("catalog/rules.text", ["rules"]), ("catalog/rules.json", ["rules", "--format", "json"])]
    sys.path.insert(0, str(ROOT))
    from mcp_schema_audit.rules import RULES

    jobs += [(f"catalog/explain-{rule}.text", ["explain", rule]) for rule in sorted(RULES)]
    return jobs


def _run(job: tuple[str, list[str]], where: Path) -> tuple[str, bytes]:
    name, argv = job
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "120", "SCHEMA_AUDIT_DEBUG": ""}
    proc = subprocess.run(
        [sys.executable, "-m", "mcp_schema_audit", *argv], cwd=where, capture_output=True, env=env, timeout=600
    )
    return name, proc.stdout + f"\n--- exit {proc.returncode}\n".encode() + proc.stderr


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("action", choices=("record", "compare"))
    ap.add_argument("dir", type=Path)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    target = args.dir.resolve()
    where = target / "inputs"  # compare reuses the recorded inputs (the live capture's times stay the same)
    shutil.rmtree(target / "differ", ignore_errors=True)
    jobs = _jobs(where)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = dict(pool.map(lambda j: _run(j, where), jobs))
    if args.action == "record":
        for name, out in results.items():
            path = target / "reports" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(out)
        manifest = {n: hashlib.sha256(o).hexdigest() for n, o in sorted(results.items())}
        (target / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
        print(f"recorded {len(results)} reports in {target}")
        return 0
    differ = []
    for name, out in sorted(results.items()):
        path = target / "reports" / name
        if not path.is_file() or path.read_bytes() != out:
            differ.append(name)
            now = target / "differ" / name
            now.parent.mkdir(parents=True, exist_ok=True)
            now.write_bytes(out)
    missing = sorted(
        {p.relative_to(target / "reports").as_posix() for p in (target / "reports").rglob("*") if p.is_file()}
        - set(results)
    )
    for name in differ:
        print(f"differs: {name}")
    for name in missing:
        print(f"not run now: {name}")
    print(
        f"{len(results) - len(differ)} of {len(results)} reports identical"
        + (f"; the differing ones are in {target / 'differ'}" if differ else "")
    )
    return 1 if differ or missing else 0


if __name__ == "__main__":
    raise SystemExit(main())
