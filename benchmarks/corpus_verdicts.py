"""Verdict figures on the fixtures' corpus (real ``tools/list`` captures of published servers, consecutive
versions): how many findings of each severity, how many breaking claims were downgraded to a warning for
want of a witness, what the sampling oracle added, and the dialect and interoperability-bound findings.

Run: ``.venv/bin/python benchmarks/corpus_verdicts.py [--root DIR]`` (prints figures; not a test). ``--root``
points at another checkout of schema-audit (e.g. a ``git worktree`` of an older commit) to measure its engine
on this corpus: the script imports ``mcp_schema_audit`` from there.
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=HERE, help="the schema-audit checkout to measure (default: this one)")
    args = ap.parse_args()
    sys.path.insert(0, str(args.root.resolve()))
    from mcp_schema_audit.snapshot import load_snapshot

    try:
        from mcp_schema_audit.diff import diff_with_mode as _with_mode
        from mcp_schema_audit.settings import RunLimits

        def diff_with_mode(old: Any, new: Any, mode: str, time_budget: float) -> Any:
            return _with_mode(old, new, mode, RunLimits(time_budget=time_budget))
    except ImportError:  # a checkout from before the audit core (--root)
        from mcp_schema_audit.policy import diff_with_mode  # type: ignore[no-redef]

    corpus = HERE / "fixtures" / "corpus"
    counts: collections.Counter[str] = collections.Counter()
    pairs = 0
    for server in sorted(p for p in corpus.iterdir() if p.is_dir()):
        versions = sorted(server.glob("*.json"), key=lambda p: tuple(int(x) for x in p.stem.split(".")))
        for a, b in zip(versions, versions[1:], strict=False):
            pairs += 1
            for f in diff_with_mode(load_snapshot(str(a)), load_snapshot(str(b)), "full", time_budget=0):
                counts[f.severity] += 1
                reason = getattr(f, "reason", None) or ""
                if "no witness" in reason or "not confirmed" in reason:
                    counts["breaking claim downgraded (no witness / not confirmed)"] += 1
                if f.rule in (
                    "sampled-counterexample",
                    "schema-rewritten",
                    "dialect-changed",
                    "dialect-changed-no-effect",
                    "interop-bound-changed",
                ):
                    counts[f"rule {f.rule}"] += 1
                if f.severity == "breaking" and "9007199254740991" in str(f.old) + str(f.new):
                    counts["breaking at a ±(2^53−1) bound"] += 1
    import mcp_schema_audit

    print(f"schema-audit from {Path(mcp_schema_audit.__file__).parent}: {pairs} consecutive version pairs, --mode full")
    for key in (
        "breaking",
        "warning",
        "info",
        "breaking claim downgraded (no witness / not confirmed)",
        "breaking at a ±(2^53−1) bound",
        "rule sampled-counterexample",
        "rule schema-rewritten",
        "rule dialect-changed",
        "rule dialect-changed-no-effect",
        "rule interop-bound-changed",
    ):
        print(f"  {key:<58} {counts.get(key, 0):>5}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
