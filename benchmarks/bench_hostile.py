#!/usr/bin/env python3
"""Worst-case figures for the hostile inputs of docs/security.md: time and peak memory of ``schema-audit diff`` on
each, one subprocess per case under an address-space limit and a timeout (so the benchmark itself stays within
about a minute, whatever the code under test does).

Cases: a 15-byte counted ``pattern`` (``^a{1000000}$``, ``^a{100000000}$``, in an inputSchema and an
outputSchema), a 640-entry ``dependentRequired`` chain, a ``required`` list of 50,000 names, 30,000 required
output keys, a 220-entry ``dependentSchemas`` chain (20 KB: 220 witnesses, each a long whole-schema validation),
300 tightened arguments re-declared by 20 ``allOf`` copies (170 KB: confirmation and the server's judgement of
each witness charged to the tool's budget), 1,000 tightened arguments beside an unchanged 400-entry chain that
every witness triggers, and a 50 KB and a 10 MB description with one word changed (Markdown,
the format the Action always renders).

    python benchmarks/bench_hostile.py [--source DIR] [--memory-mb 2048] [--timeout 60] [--only NAME ...]

``--source DIR`` runs the package found in DIR (another checkout, for a before/after comparison). Prints one line
per case: exit code, seconds, peak resident memory, the findings' rules.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _props(n: int) -> dict[str, Any]:
    return {f"p{i}": {"type": "string"} for i in range(n)}


def _tool(schema: dict[str, Any], where: str = "inputSchema", description: str = "d") -> dict[str, Any]:
    tool: dict[str, Any] = {"name": "t", "description": description, "inputSchema": {"type": "object"}}
    tool[where] = schema
    return {"tools": [tool]}


def _pattern(count: int, where: str) -> tuple[dict[str, Any], dict[str, Any]]:
    plain = {"type": "object", "properties": {"a": {"type": "string"}}}
    counted = {"type": "object", "properties": {"a": {"type": "string", "pattern": f"^a{{{count}}}$"}}}
    return _tool(plain, where), _tool(counted, where)


def _dependent_required(n: int) -> tuple[dict[str, Any], dict[str, Any]]:
    chain = {f"p{i}": [f"p{i + 1}"] for i in range(n - 1)}
    return _tool({"type": "object", "properties": _props(n)}), _tool(
        {"type": "object", "properties": _props(n), "dependentRequired": chain}
    )


def _required(n: int) -> tuple[dict[str, Any], dict[str, Any]]:
    names = [f"p{i}" for i in range(n)]
    return _tool({"type": "object", "properties": _props(n), "required": names}), _tool(
        {"type": "object", "properties": _props(n), "required": [*names[1:], "zz"]}
    )


def _required_output(n: int) -> tuple[dict[str, Any], dict[str, Any]]:
    return _tool({"type": "object", "properties": _props(n)}, "outputSchema"), _tool(
        {"type": "object", "properties": _props(n), "required": list(_props(n))}, "outputSchema"
    )


def _dependent_schemas(n: int) -> tuple[dict[str, Any], dict[str, Any]]:
    def chain(max_length: int) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": _props(n),
            "dependentSchemas": {
                f"p{i}": {"required": [f"p{i + 1}"], "properties": {f"p{i + 1}": {"maxLength": max_length}}}
                for i in range(n)
            },
        }

    return _tool(chain(10)), _tool(chain(5))


def _allof_copies(n: int, copies: int) -> tuple[dict[str, Any], dict[str, Any]]:
    def schema(max_length: int) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {f"p{i}": {"type": "string", "maxLength": max_length} for i in range(n)},
            "allOf": [{"title": f"c{j}", "properties": _props(n)} for j in range(copies)],
        }

    return _tool(schema(10)), _tool(schema(5))


def _chain_kept(n: int, m: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """An unchanged ``dependentSchemas`` chain of ``n`` (required from its first key, so every witness triggers it
    all) beside ``m`` tightened arguments: the walk skips the chain, each witness's validations walk it."""

    def schema(max_length: int) -> dict[str, Any]:
        props: dict[str, Any] = _props(n + 1)
        props.update({f"a{i}": {"type": "string", "maxLength": max_length} for i in range(m)})
        chain = {f"p{i}": {"required": [f"p{i + 1}"], "properties": {f"p{i + 1}": {"maxLength": 10}}} for i in range(n)}
        return {"type": "object", "properties": props, "required": ["p0"], "dependentSchemas": chain}

    return _tool(schema(10)), _tool(schema(5))


def _defs_tree(n: int, levels: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """``n`` arguments each naming a ``$defs`` tree whose every level names the next twice (2**``levels``
    evaluations under each argument, below the refusal budget), its leaf's ``maxLength`` tightened."""

    def schema(max_length: int) -> dict[str, Any]:
        defs: dict[str, Any] = {f"d{i}": {"allOf": [{"$ref": f"#/$defs/d{i + 1}"}] * 2} for i in range(levels)}
        defs[f"d{levels}"] = {"type": "string", "maxLength": max_length}
        props = {f"p{i}": {"$ref": "#/$defs/d0"} for i in range(n)}
        return {"type": "object", "properties": props, "$defs": defs}

    return _tool(schema(50)), _tool(schema(40))


def _description(size: int) -> tuple[dict[str, Any], dict[str, Any]]:
    words = " ".join(f"word{i % 50}" for i in range(size // 6))
    changed = words.replace("word7 ", "EXFILTRATE ", 1)
    return _tool({"type": "object"}, description=words), _tool({"type": "object"}, description=changed)


CASES: dict[str, tuple[Callable[[], tuple[dict[str, Any], dict[str, Any]]], str]] = {
    "pattern ^a{1000000}$ (input)": (lambda: _pattern(1_000_000, "inputSchema"), "json"),
    "pattern ^a{100000000}$ (input)": (lambda: _pattern(100_000_000, "inputSchema"), "json"),
    "pattern ^a{100000000}$ (output)": (lambda: _pattern(100_000_000, "outputSchema"), "json"),
    "dependentRequired chain of 640": (lambda: _dependent_required(640), "json"),
    "required list of 50,000 names": (lambda: _required(50_000), "json"),
    "30,000 required output keys": (lambda: _required_output(30_000), "json"),
    "dependentSchemas chain of 220": (lambda: _dependent_schemas(220), "json"),
    "300 arguments under 20 allOf copies": (lambda: _allof_copies(300, 20), "json"),
    "1,000 arguments beside a kept chain of 400": (lambda: _chain_kept(400, 1000), "json"),
    "300 arguments on a $defs tree of 2^12": (lambda: _defs_tree(300, 12), "json"),
    "50 KB description, one word changed": (lambda: _description(50_000), "markdown"),
    "10 MB description, one word changed": (lambda: _description(10_000_000), "markdown"),
}


def run_case(name: str, folder: Path, source: str | None, memory_mb: int, timeout: float) -> str:
    """One case: its two snapshots written, ``diff`` run under the limits; one line of figures."""
    make, fmt = CASES[name]
    old, new = make()
    paths = []
    for side, data in (("old", old), ("new", new)):
        path = folder / f"{side}.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        paths.append(str(path))
    env = dict(os.environ)
    if source:
        env["PYTHONPATH"] = source + os.pathsep + env.get("PYTHONPATH", "")
    limit = memory_mb * 1024 * 1024

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    args = [sys.executable, "-m", "mcp_schema_audit", "diff", "--format", fmt, "--time-budget", "0", *paths]
    started = time.monotonic()
    proc = subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, preexec_fn=limits, text=True, cwd=folder
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return f"{name:<40} timeout   >{timeout:.0f} s"
    elapsed = time.monotonic() - started
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    what = ""
    if fmt == "json" and out.strip():
        found = json.loads(out)["findings"]
        what = ", ".join(
            f"{rule} {severity} ×{sum(1 for f in found if (f['rule'], f['severity']) == (rule, severity))}"
            for rule, severity in sorted({(f["rule"], f["severity"]) for f in found})
        )
    elif out:
        what = f"{len(out)} characters of Markdown"
    else:
        what = (err.strip().splitlines() or ["no output"])[-1][:90]
    # ru_maxrss of the children is the largest so far: the cases run largest-last within a fresh process each
    return f"{name:<40} exit {proc.returncode}  {elapsed:6.2f} s  {peak_kb / 1024:7.0f} MB peak  {what}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", help="run the package found in this folder (a before/after comparison)")
    parser.add_argument("--memory-mb", type=int, default=2048, help="address-space limit of each case (MB)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds each case may take")
    parser.add_argument("--only", nargs="*", help="run only the cases whose name contains one of these words")
    args = parser.parse_args(argv)
    names = [n for n in CASES if not args.only or any(w in n for w in args.only)]
    for name in names:
        with tempfile.TemporaryDirectory() as tmp:
            # each case in its own child process: ru_maxrss of RUSAGE_CHILDREN is then this case's peak
            line = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--case",
                    name,
                    tmp,
                    args.source or "",
                    str(args.memory_mb),
                    str(args.timeout),
                ],
                capture_output=True,
                text=True,
            ).stdout.strip()
            print(line or f"{name:<40} (no figures)", flush=True)
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--case":
        _, _, case, tmp, source, memory, timeout = sys.argv
        print(run_case(case, Path(tmp), source or None, int(memory), float(timeout)))
        sys.exit(0)
    sys.exit(main())
