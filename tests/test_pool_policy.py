"""The worker pool's decision without --jobs (``parallel.pool_jobs``): used only where it is estimated to pay on the
machine at hand, from the measured facts handed to it (no clock read here)."""

from __future__ import annotations

import pytest

from mcp_schema_audit import parallel
from mcp_schema_audit.parallel import POOL_EFFICIENCY, POOL_START_S, idle_cores, pool_jobs


def test_an_idle_two_core_machine_pools_a_large_rewrite():
    # 1,000 changed tools at 3 ms each: 3 s of work, two idle cores
    assert pool_jobs(992, 0.003, 2, 0.1) == 2
    assert pool_jobs(992, 0.003, 2, None) == 2  # no load average (not Linux): every core counted free


def test_a_busy_machine_stays_in_one_process():
    # the case measured on the shared 2-core machine (load 4): a pool was slower than one process
    assert pool_jobs(992, 0.003, 2, 4.0) == 1
    assert pool_jobs(992, 0.003, 2, 1.0) == 1  # one core kept busy by another process: ours is the other
    assert pool_jobs(992, 0.003, 2, 0.6) == 1  # less than half of the second core is free
    assert pool_jobs(992, 0.003, 2, 0.4) == 2  # more than half of it is
    assert pool_jobs(992, 0.003, 8, 5.0) == 3  # three of eight cores free: three workers


def test_small_work_stays_in_one_process():
    # 100 cheap tools: the pool's start costs more than it saves
    assert pool_jobs(92, 0.001, 2, 0.0) == 1
    # the break-even point of the estimate: work W pays when POOL_START_S + W / (2 * POOL_EFFICIENCY) < W
    even = POOL_START_S / (1 - 1 / (2 * POOL_EFFICIENCY))
    assert pool_jobs(1000, even * 1.05 / 1000, 2, 0.0) == 2
    assert pool_jobs(1000, even * 0.95 / 1000, 2, 0.0) == 1


def test_one_core_or_nothing_left_is_one_process():
    assert pool_jobs(5000, 0.01, 1, 0.0) == 1
    assert pool_jobs(1, 10.0, 4, 0.0) == 1
    assert pool_jobs(3, 10.0, 8, 0.0) == 3  # never more workers than items left


def test_idle_cores():
    assert idle_cores(2, None) == 2.0
    assert idle_cores(2, 0.5) == 1.5
    assert idle_cores(2, 7.0) == 0.0


def test_ordered_map_without_jobs_follows_the_policy(monkeypatch: pytest.MonkeyPatch):
    """``ordered_map(jobs=None)`` forks only when ``pool_jobs`` says so (here: told what the machine is like)."""
    import os

    monkeypatch.setattr(parallel, "available_jobs", lambda: 2)
    monkeypatch.setattr(parallel, "machine_load", lambda: 9.0)  # busy: one process
    assert {pid for _, pid in parallel.ordered_map(_pid_of, 400)} == {os.getpid()}
    monkeypatch.setattr(parallel, "machine_load", lambda: 0.0)
    monkeypatch.setattr(parallel, "POOL_START_S", 0.0)  # idle, and a pool costs nothing: every item pays
    out = parallel.ordered_map(_slow_pid_of, 200)
    assert [i for i, _ in out] == list(range(200))
    assert len({pid for _, pid in out}) > 1


def _pid_of(i: int) -> tuple[int, int]:
    import os

    return i, os.getpid()


def _slow_pid_of(i: int) -> tuple[int, int]:
    import os
    import time

    time.sleep(0.001)  # a measurable per-item time for the warm-up's estimate
    return i, os.getpid()
