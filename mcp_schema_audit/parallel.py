"""Both cores for large catalogs: an ordered map over forked worker processes, used when the work pays for it.

``ordered_map(func, count, jobs=…)`` returns ``[func(0), …, func(count - 1)]`` in index order, whatever the
scheduling, so every report is the same with one process or many. ``func`` reads its inputs from the
caller's memory: the workers are forked after it is set up, so nothing is copied to them but the indices,
and only the results travel back (pickled). ``gc.freeze()`` before the fork keeps the collector from
touching (and so copying) the parent's objects in the children.

One process does the work when ``jobs`` is 1, when there are fewer than ``POOL_MIN_ITEMS`` items (starting workers
costs more than it saves), when the platform cannot fork, or when fast paths are off (``fastpaths``). Without
``jobs`` (the default), the pool is used only where it pays on the machine at hand, decided once per run from
measured facts (``pool_jobs``): the first items are done in the caller and timed (``WARM_UP_ITEMS``, and for at
least ``WARM_UP_S``), which estimates the rest of the work; the cores this process may use (``sched_getaffinity``)
less the ones other processes kept busy meanwhile (``others_load``: the idle time of those cores in ``/proc/stat``
over the warm-up; the 1-minute load average where that cannot be read) give the workers that would really run; the
pool starts when its estimated time (``POOL_START_S`` plus the work shared at ``POOL_EFFICIENCY``) beats one
process. An explicit ``jobs`` is obeyed. An exception in a worker (``RunTimeExceeded``, ``WallClockGuard``, a bug)
is raised in the caller as it would have been in one process; a worker that dies (killed, out of memory) is a
``RuntimeError`` in the caller, never a wait without end (``concurrent.futures`` notices a dead worker,
``multiprocessing.Pool`` does not); the workers ignore Ctrl-C, which the caller handles.
"""

from __future__ import annotations

import gc
import os
import pickle
import signal
import time
from collections.abc import Callable
from typing import Any, Literal, TypeVar

from mcp_schema_audit import fastpaths

T = TypeVar("T")

#: Items below which one process is faster than forking workers (a changed tool costs about a millisecond;
#: starting two workers and shipping their findings back costs tens).
POOL_MIN_ITEMS = 96
#: Items done in the calling process before the workers are forked (and, without ``jobs``, timed: the estimate of
#: the rest of the work).
WARM_UP_ITEMS = 8
#: Seconds the warm-up lasts at least without ``jobs``: the window over which the cores' idle time is measured
#: (``others_load``; ``/proc/stat`` counts in hundredths of a second, so 0.1 s gives ten ticks a core).
WARM_UP_S = 0.1
#: Seconds a pool adds to a run whatever its size: forking, the workers' start, shipping the findings back and the
#: caches each worker fills again (measured on the 2-core machine of docs/performance.md: 0.1-0.3 s).
POOL_START_S = 0.3
#: The share of a core a worker turns into progress (the rest: pickling, copy-on-write faults, cold caches).
POOL_EFFICIENCY = 0.8
#: Chunks handed to each worker (more: better balance and progress; fewer: less shipping).
_CHUNKS_PER_JOB = 8

_WORK: Callable[[int], Any] | None = None  # the function the forked workers run (set before the fork)


def available_jobs() -> int:
    """The cores this process may run on (``sched_getaffinity``; ``os.cpu_count()`` where that is missing), ≥ 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def idle_cores(cores: int, load: float | None) -> float:
    """Cores of ``cores`` that other processes leave free, from the 1-minute ``load`` average (``None``: unknown,
    every core counted free)."""
    return float(cores) if load is None else max(0.0, cores - load)


def pool_jobs(left: int, per_item: float, cores: int, load: float | None) -> int:
    """The processes to share ``left`` items on, each estimated to take ``per_item`` seconds, without ``--jobs``:
    1 (no pool) unless a pool is estimated to finish first.

    ``cores``: the cores this process may run on; ``load``: the 1-minute load average (``None``: unknown). The
    workers that would really run are the idle cores (``idle_cores``), a core counted when at least half of it is
    free, at most ``cores`` and ``left``; with two or more, the pool's estimate (``POOL_START_S`` + work / (jobs ×
    ``POOL_EFFICIENCY``)) must beat one process's (the work: ``left`` × ``per_item``). Deterministic: a function of
    its arguments only.
    """
    if left < 2 or cores < 2:
        return 1
    jobs = min(cores, int(idle_cores(cores, load) + 0.5), left)
    if jobs < 2:
        return 1
    work = per_item * left
    return jobs if POOL_START_S + work / (jobs * POOL_EFFICIENCY) < work else 1


def machine_load() -> float | None:
    """The 1-minute load average, or ``None`` where the platform has none."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


#: A reading of the cores' counters: (wall seconds, this process's CPU seconds, {core: (total ticks, idle ticks)}).
CpuSample = tuple[float, float, dict[int, tuple[int, int]]]


def cpu_sample() -> CpuSample | None:
    """The counters ``others_load`` compares, for the cores this process may run on: ``time.perf_counter()``,
    ``time.process_time()`` and each core's total and idle (idle + iowait) ticks from ``/proc/stat``; ``None``
    where that file cannot be read or names none of those cores (not Linux, a sandbox)."""
    try:
        allowed = os.sched_getaffinity(0)
        with open("/proc/stat", "rb") as f:
            text = f.read(1 << 16).decode("ascii", "replace")
    except (AttributeError, OSError):
        return None
    cores: dict[int, tuple[int, int]] = {}
    for line in text.splitlines():
        name, _, rest = line.partition(" ")
        if not name.startswith("cpu") or not name[3:].isdigit() or int(name[3:]) not in allowed:
            continue
        try:
            ticks = [int(x) for x in rest.split()[:8]]
        except ValueError:
            continue
        if len(ticks) >= 5:
            cores[int(name[3:])] = (sum(ticks), ticks[3] + ticks[4])
    return (time.perf_counter(), time.process_time(), cores) if cores else None


def others_load(before: CpuSample | None, after: CpuSample | None) -> float | None:
    """How many of this process's cores other processes kept busy between two ``cpu_sample``s: the cores minus
    their idle share minus this process's own CPU time per wall second; ``None`` when either sample is missing or
    the window is shorter than 5 ticks a core (too coarse to read). A function of its arguments only.

    Unlike the 1-minute load average it sees the machine as it is now, and it never counts this process (nor the
    previous runs of a benchmark or a CI step just before) as another's work."""
    if before is None or after is None:
        return None
    common = before[2].keys() & after[2].keys()
    total = sum(after[2][c][0] - before[2][c][0] for c in common)
    idle = sum(after[2][c][1] - before[2][c][1] for c in common)
    wall = after[0] - before[0]
    if not common or total < 5 * len(common) or wall <= 0:
        return None
    idle_cores = len(common) * idle / total
    own = (after[1] - before[1]) / wall
    return max(0.0, len(common) - idle_cores - own)


def _can_fork() -> bool:
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def ordered_map(
    func: Callable[[int], T], count: int, *, jobs: int | None = None, progress: Callable[[int], None] | None = None
) -> list[T]:
    """``[func(i) for i in range(count)]``, on up to ``jobs`` processes (``None``: as many as pay, ``pool_jobs``).

    ``progress(done)`` is called in the caller's process with the number of items finished so far, in
    increasing order. Raises whatever ``func`` raises (the first failure in index order). Raises
    ``ValueError`` for ``jobs`` < 1.
    """
    if jobs is not None and jobs < 1:
        raise ValueError(f"jobs must be at least 1 (got {jobs})")
    chosen = jobs is not None
    if chosen:
        jobs = min(jobs or 1, count)
        pooled = jobs > 1 and count >= POOL_MIN_ITEMS and _can_fork() and fastpaths.enabled()
    else:  # decided after the warm-up, from its time (pool_jobs)
        pooled = count >= POOL_MIN_ITEMS and _can_fork() and fastpaths.enabled() and available_jobs() > 1
    # the first items run here, also before a fork: the workers inherit what they warmed up (validator classes,
    # compiled regexes, caches) instead of each building it again
    out: list[T] = []
    started = 0.0
    sample = cpu_sample() if pooled and not chosen else None
    for i in range(count):
        if pooled and i >= WARM_UP_ITEMS and (chosen or time.perf_counter() - started >= WARM_UP_S):
            break
        if i == 1:
            started = time.perf_counter()  # the first item pays one-time costs (imports, classes): not timed
        out.append(func(i))
        if progress is not None:
            progress(i + 1)
    if pooled and not chosen and len(out) < count:
        per_item = (time.perf_counter() - started) / max(1, len(out) - 1)
        load = others_load(sample, cpu_sample())
        jobs = pool_jobs(count - len(out), per_item, available_jobs(), machine_load() if load is None else load)
        if jobs < 2:
            for i in range(len(out), count):
                out.append(func(i))
                if progress is not None:
                    progress(i + 1)
            return out
    if not pooled or len(out) == count:
        return out
    assert jobs is not None
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    global _WORK
    first = len(out)
    size = max(1, -(-(count - first) // (jobs * _CHUNKS_PER_JOB)))
    chunks = [range(start, min(count, start + size)) for start in range(first, count, size)]
    results: list[T] = out
    _WORK = func
    gc.freeze()
    try:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(jobs, mp_context=context, initializer=_worker_init) as pool:
            for status, value in pool.map(_run_chunk, chunks):
                if status == "raise":
                    raise value
                results.extend(value)
                if progress is not None:
                    progress(len(results))
    except BrokenProcessPool as exc:  # a worker died (killed, out of memory): say so, never wait for it forever
        raise RuntimeError(f"a worker process of the comparison died ({exc}); rerun with --jobs 1") from None
    finally:
        _WORK = None
        gc.unfreeze()
    return results


def _worker_init() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole process group: the caller handles it
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the pool's own terminate(): end at once (not the CLI's handler)


def _run_chunk(indices: range) -> tuple[Literal["ok", "raise"], Any]:
    """In a worker: ``("ok", [results])``, or ``("raise", exception)`` for any exception, ``BaseException``s
    included (a pool worker that dies of one would leave the caller waiting forever)."""
    assert _WORK is not None
    try:
        return "ok", [_WORK(i) for i in indices]
    except BaseException as exc:  # noqa: BLE001 - every exception goes back to the caller
        try:
            pickle.dumps(exc)
        except Exception:
            exc = RuntimeError(f"{type(exc).__name__}: {exc}")
        return "raise", exc
