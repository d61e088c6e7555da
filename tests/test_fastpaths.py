"""The fast paths change no verdict: reports with them on (the worker pool forced on, caches warm, identical
tools and subtrees skipped, one validation where host profiles agree) and off (``fastpaths.disabled()``, one
process) are byte-identical, on the fixtures' corpus, the shared and rule cases, and generated catalogs.
Also: the pool keeps index order, really uses several processes, and brings a worker's exception back."""

from __future__ import annotations

import itertools
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import timing
from runs import render, run_diff

from mcp_schema_audit import fastpaths, parallel
from mcp_schema_audit.audit import history_report
from mcp_schema_audit.errors import RunTimeExceeded, WallClockGuard
from mcp_schema_audit.settings import RunLimits, Settings
from mcp_schema_audit.snapshot import Snapshot, load_snapshot, snapshot_from_data

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "fixtures" / "corpus"
CASES = ROOT / "tests" / "cases"
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_catalog import catalogs  # noqa: E402  (the benchmark's generator: the same catalogs it measures)


def _versions(server: Path) -> list[Path]:
    return sorted(server.glob("*.json"), key=lambda p: tuple(int(x) for x in p.stem.split(".")))


CORPUS_PAIRS = [(a, b) for d in sorted(CORPUS.iterdir()) if d.is_dir() for a, b in itertools.pairwise(_versions(d))]


def _both_ways(old: Snapshot, new: Snapshot, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """The JSON report of ``diff --mode full`` with every fast path on (pool forced) and with all of them off."""
    monkeypatch.setattr(parallel, "POOL_MIN_ITEMS", 2)
    fast = render(run_diff(old, new, mode="full", time_budget=0, jobs=2), "json")
    with fastpaths.disabled():
        slow = render(run_diff(old, new, mode="full", time_budget=0, jobs=1), "json")
    return fast, slow


@pytest.mark.parametrize("pair", CORPUS_PAIRS, ids=[f"{a.parent.name}:{a.stem}-{b.stem}" for a, b in CORPUS_PAIRS])
def test_corpus_reports_identical(pair: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    fast, slow = _both_ways(load_snapshot(str(pair[0])), load_snapshot(str(pair[1])), monkeypatch)
    assert json.loads(fast)["findings"], "every corpus pair has findings: the comparison is not vacuous"
    assert fast == slow


def _case_catalogs() -> tuple[dict[str, Any], dict[str, Any]]:
    """Every shared case and rule case as one tool each, in two tools/list documents (old, new)."""
    cases = [(p.stem, json.loads(p.read_text(encoding="utf-8"))) for p in sorted(CASES.glob("*.json"))]
    for path in sorted((CASES / "rules").glob("*.json")):
        cases += [(c["id"], c) for c in json.loads(path.read_text(encoding="utf-8"))["cases"]]
    sides: tuple[list[dict[str, Any]], list[dict[str, Any]]] = ([], [])
    for ident, case in cases:
        for side, schema in zip(sides, (case["old"], case["new"]), strict=False):
            if case["direction"] == "input":
                if isinstance(schema, dict):  # a listing's inputSchema is an object (a `true` one: engine cases only)
                    side.append({"name": ident, "inputSchema": schema})
            else:
                tool = {"name": ident, "inputSchema": {"type": "object"}}
                side.append(tool if schema is None else {**tool, "outputSchema": schema})
    return {"tools": sides[0]}, {"tools": sides[1]}


def test_case_reports_identical(monkeypatch: pytest.MonkeyPatch) -> None:
    old, new = _case_catalogs()
    assert len(old["tools"]) > 60
    fast, slow = _both_ways(
        snapshot_from_data(old, source="old.json"), snapshot_from_data(new, source="new.json"), monkeypatch
    )
    assert {f["severity"] for f in json.loads(fast)["findings"]} >= {"breaking", "warning", "info"}
    assert fast == slow


@pytest.mark.parametrize("scenario", ["typical", "rewrite"])
def test_generated_catalog_reports_identical(scenario: str, monkeypatch: pytest.MonkeyPatch) -> None:
    cats = catalogs(140)
    old = snapshot_from_data({"tools": cats["old"]}, source="old.json")
    new = snapshot_from_data({"tools": cats[scenario]}, source="new.json")
    fast, slow = _both_ways(old, new, monkeypatch)
    assert len(json.loads(fast)["findings"]) >= (10 if scenario == "typical" else 140)
    assert fast == slow


def test_history_identical(monkeypatch: pytest.MonkeyPatch) -> None:
    cats = catalogs(60)
    snaps = [snapshot_from_data({"tools": cats[k]}, source=f"{k}.json") for k in ("old", "typical", "rewrite")]
    monkeypatch.setattr(parallel, "POOL_MIN_ITEMS", 2)
    fast = render(history_report(snaps[2], snaps[:2], Settings(), RunLimits(time_budget=0, jobs=2)), "json")
    with fastpaths.disabled():
        slow = render(history_report(snaps[2], snaps[:2], Settings(), RunLimits(time_budget=0, jobs=1)), "json")
    assert fast == slow


# -- the pool itself -----------------------------------------------------------------------------------------
def _pid_of(i: int) -> tuple[int, int]:
    return i, os.getpid()


_RENDEZVOUS: dict[str, Any] = {}  #: the test's process and a folder, set before the workers are forked


def _pid_of_both_workers(i: int) -> tuple[int, int]:
    """In a worker: check in, then wait (up to 60 s) until a second worker has checked in too, so that both get
    chunks however the machine schedules them (a fixed sleep per item raced the second worker's start-up)."""
    if os.getpid() != _RENDEZVOUS["caller"]:
        folder: Path = _RENDEZVOUS["folder"]
        (folder / str(os.getpid())).touch()
        for _ in range(12_000):
            if len(list(folder.iterdir())) >= 2:
                break
            time.sleep(0.005)
    return i, os.getpid()


def test_pool_keeps_order_and_uses_processes(tmp_path: Path) -> None:
    _RENDEZVOUS.update(caller=os.getpid(), folder=tmp_path)
    out = parallel.ordered_map(_pid_of_both_workers, 400, jobs=2)
    assert [i for i, _ in out] == list(range(400))
    here = parallel.WARM_UP_ITEMS  # the first items warm up the caller before it forks
    assert {pid for _, pid in out[:here]} == {os.getpid()}
    assert len({pid for _, pid in out[here:]}) == 2 and os.getpid() not in {pid for _, pid in out[here:]}


def test_pool_small_or_single_job_runs_here() -> None:
    assert {pid for _, pid in parallel.ordered_map(_pid_of, 400, jobs=1)} == {os.getpid()}
    assert {pid for _, pid in parallel.ordered_map(_pid_of, parallel.POOL_MIN_ITEMS - 1, jobs=2)} == {os.getpid()}
    with fastpaths.disabled():
        assert {pid for _, pid in parallel.ordered_map(_pid_of, 400, jobs=2)} == {os.getpid()}
    with pytest.raises(ValueError):
        parallel.ordered_map(_pid_of, 10, jobs=0)


def test_pool_progress_counts_up_to_total() -> None:
    seen: list[int] = []
    parallel.ordered_map(_pid_of, 300, jobs=2, progress=seen.append)
    assert seen == sorted(seen) and seen[-1] == 300 and len(seen) > 2


def _guard_at_250(i: int) -> int:
    if i == 250:
        raise WallClockGuard("a pattern search ran longer than 10 s")
    return i


def _budget_at_260(i: int) -> int:
    if i == 260:
        raise RunTimeExceeded("too long", hint="rerun")
    return i


def test_pool_brings_worker_exceptions_back() -> None:
    with pytest.raises(WallClockGuard, match="pattern search"):
        parallel.ordered_map(_guard_at_250, 400, jobs=2)  # a BaseException: a dying worker would hang the pool
    with pytest.raises(RunTimeExceeded) as info:
        parallel.ordered_map(_budget_at_260, 400, jobs=2)
    assert info.value.hint == "rerun"


def test_content_cache_bypassed_when_disabled() -> None:
    cache: fastpaths.ContentCache[int] = fastpaths.ContentCache(2)
    calls: list[str] = []

    def compute(key: str) -> int:
        calls.append(key)
        return len(calls)

    assert cache.get("a", lambda: compute("a")) == cache.get("a", lambda: compute("a")) == 1
    cache.get("b", lambda: compute("b"))
    cache.get("c", lambda: compute("c"))  # over size 2: "a" is dropped
    assert cache.get("a", lambda: compute("a")) == 4
    with fastpaths.disabled():
        cache.get("a", lambda: compute("a"))
    assert calls == ["a", "b", "c", "a", "a"]


# -- shapes an attack on the fast paths found (each once gave different findings with the fast paths off) ------
_D7 = "http://json-schema.org/draft-07/schema#"
_ATTACKS = {
    # a list under $defs: the metaschema fast check must not vouch for what Ajv compiles through the $ref
    "draft07-defs-list": (
        {"$schema": _D7, "type": "object", "properties": {"a": {"type": "string"}}},
        {
            "$schema": _D7,
            "type": "object",
            "$defs": [{"type": "integer", "minItems": "x"}],
            "properties": {"a": {"$ref": "#/$defs/0"}},
        },
    ),
    # draft-07: $ref overrides the properties beside it (the narrowed error search must not look at them)
    "draft07-ref-beside-properties": (
        {"$schema": _D7, "type": "object", "properties": {"a": {"type": "string"}}},
        {
            "$schema": _D7,
            "$ref": "#/definitions/A",
            "definitions": {"A": {"type": "object"}},
            "properties": {"a": {"type": "integer"}},
        },
    ),
    # ts-sdk-v1's rewritten copy moves allOf members: a pointer through them reads another place there
    "pointer-through-shifted-allof": (
        {"type": "object", "properties": {"a": {"type": "string"}}},
        {
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A/allOf/0"}},
            "$defs": {"A": {"$ref": "#/$defs/B", "type": "string", "allOf": [{"type": "integer"}]}, "B": {}},
        },
    ),
    # anchors and dynamic references: ts-sdk-v1's draft-07 class reads neither
    "anchor": (
        {"type": "object", "properties": {"a": {"type": "string"}}},
        {"type": "object", "properties": {"a": {"$ref": "#s"}}, "$defs": {"s": {"$anchor": "s", "type": "integer"}}},
    ),
    "dynamic-ref": (
        {"type": "object", "properties": {"a": {"type": "string"}}},
        {
            "type": "object",
            "properties": {"a": {"$dynamicRef": "#s"}},
            "$defs": {"s": {"$dynamicAnchor": "s", "type": "integer"}},
        },
    ),
    # identical subtrees have no finding, fast paths or not (a oneOf that accepts nothing, an in-place cycle)
    "identical-oneof-overlap": (
        {"type": "object", "properties": {"b": {"oneOf": [{}, {}]}}},
        {"type": "object", "properties": {"b": {"oneOf": [{}, {}]}, "c": {}}},
    ),
    "identical-cycle": (
        {
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A"}},
            "$defs": {"A": {"oneOf": [{"maximum": 0}, {"$ref": "#/properties/a"}], "$ref": "#/$defs/A"}},
        },
        {
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"$ref": "#/$defs/A/anyOf/0"}},
            "$defs": {"A": {"oneOf": [{"maximum": 0}, {"$ref": "#/properties/a"}], "$ref": "#/$defs/A"}},
        },
    ),
    # a boolean property schema: jsonschema reports false without the property's path
    "false-property": ({"type": "object", "properties": {"a": {}}}, {"type": "object", "properties": {"a": False}}),
}


@pytest.mark.parametrize("case", sorted(_ATTACKS))
@pytest.mark.parametrize("direction", ["input", "output"])
def test_attacked_shapes_identical(case: str, direction: str) -> None:
    from mcp_schema_audit.engine.compare import compare_schemas

    old, new = _ATTACKS[case]

    def findings() -> list[dict[str, Any]]:
        fastpaths.clear_caches()
        return [f.to_json() for f in compare_schemas(old, new, direction, "t")]

    fast = findings()
    with fastpaths.disabled():
        slow = findings()
    assert fast == slow


_PARENT = os.getpid()


def _dies_in_a_worker(i: int) -> int:
    if os.getpid() != _PARENT and i == 50:
        os.kill(os.getpid(), 9)  # a worker killed from outside (the OOM killer, a stray kill): gone without a word
    return i


@pytest.mark.timing
def test_pool_worker_that_dies_is_an_error_not_a_hang() -> None:
    with timing.measure() as took, pytest.raises(RuntimeError, match="worker process of the comparison died"):
        parallel.ordered_map(_dies_in_a_worker, 400, jobs=2)
    # it ends (multiprocessing.Pool waited for the lost chunk forever): time less the waits for a CPU
    assert took.unloaded() < 120, took.describe()
