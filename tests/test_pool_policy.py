"""The worker pool's decision without --jobs (``parallel.pool_jobs``): used only where it is estimated to pay on the
machine at hand, from the measured facts handed to it (no clock read here)."""

from __future__ import annotations

import pytest

from mcp_schema_audit import parallel
from mcp_schema_audit.parallel import POOL_EFFICIENCY, POOL_START_S, cpu_sample, idle_cores, others_load, pool_jobs


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
    monkeypatch.setattr(parallel, "others_load", lambda before, after: 9.0)  # busy: one process
    assert {pid for _, pid in parallel.ordered_map(_pid_of, 400)} == {os.getpid()}
    monkeypatch.setattr(parallel, "others_load", lambda before, after: None)  # unreadable: the load average
    monkeypatch.setattr(parallel, "machine_load", lambda: 9.0)
    assert {pid for _, pid in parallel.ordered_map(_pid_of, 400)} == {os.getpid()}
    monkeypatch.setattr(parallel, "machine_load", lambda: 0.0)
    monkeypatch.setattr(parallel, "POOL_START_S", 0.0)  # idle, and a pool costs nothing: every item pays
    out = parallel.ordered_map(_slow_pid_of, 200)
    assert [i for i, _ in out] == list(range(200))
    assert len({pid for _, pid in out}) > 1


def test_others_load_reads_the_cores_idle_time():
    """Two samples 1 s apart on two cores (100 ticks each): the cores' idle share and this process's own CPU time
    say how much of them other processes used."""
    before = (10.0, 5.0, {0: (1000, 500), 1: (1000, 500)})
    # both cores fully idle but for this process's 1 s of CPU: nobody else
    assert others_load(before, (11.0, 6.0, {0: (1100, 500), 1: (1100, 600)})) == pytest.approx(0.0)
    # this process on one core, another process on the other: one core taken by others
    assert others_load(before, (11.0, 6.0, {0: (1100, 500), 1: (1100, 500)})) == pytest.approx(1.0)
    # half of the second core idle
    assert others_load(before, (11.0, 6.0, {0: (1100, 500), 1: (1100, 550)})) == pytest.approx(0.5)
    # a core present in one sample only is left out; too short a window or a missing sample: unknown
    assert others_load(before, (11.0, 5.5, {0: (1100, 550)})) == pytest.approx(0.0)
    assert others_load(before, (10.01, 5.0, {0: (1001, 500), 1: (1001, 501)})) is None
    assert others_load(None, before) is None and others_load(before, None) is None


def test_cpu_sample_reads_this_machine():
    """On Linux the sample names exactly the cores this process may use, with idle ticks never above the total."""
    import os

    sample = cpu_sample()
    if sample is None:
        pytest.skip("no /proc/stat here")
    assert set(sample[2]) == set(os.sched_getaffinity(0))
    assert all(0 <= idle <= total for total, idle in sample[2].values())


@pytest.mark.timing
def test_the_warm_up_lasts_long_enough_to_read_the_cores(monkeypatch: pytest.MonkeyPatch):
    """Without --jobs the caller keeps the first items for at least ``WARM_UP_S`` (the window ``others_load``
    reads), and the samples it hands over span that window."""
    import time

    if cpu_sample() is None:
        pytest.skip("no /proc/stat here")
    seen: list[float] = []
    monkeypatch.setattr(parallel, "available_jobs", lambda: 2)

    def spy(before: object, after: object) -> float:
        assert before is not None and after is not None
        seen.append(after[0] - before[0])  # type: ignore[index]
        return 9.0  # busy: the rest stays here too

    monkeypatch.setattr(parallel, "others_load", spy)
    t0 = time.perf_counter()
    out = parallel.ordered_map(_slow_pid_of, 400)
    assert [i for i, _ in out] == list(range(400)) and len(seen) == 1
    assert seen[0] >= parallel.WARM_UP_S and time.perf_counter() - t0 >= seen[0]


def _pid_of(i: int) -> tuple[int, int]:
    import os

    return i, os.getpid()


def _slow_pid_of(i: int) -> tuple[int, int]:
    import os
    import time

    time.sleep(0.001)  # a measurable per-item time for the warm-up's estimate
    return i, os.getpid()
