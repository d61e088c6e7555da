"""Both cores for large catalogs: an ordered map over forked worker processes, used when the work pays for it.

``ordered_map(func, count, jobs=…)`` returns ``[func(0), …, func(count - 1)]`` in index order, whatever the
scheduling, so every report is the same with one process or many. ``func`` reads its inputs from the
caller's memory: the workers are forked after it is set up, so nothing is copied to them but the indices,
and only the results travel back (pickled). ``gc.freeze()`` before the fork keeps the collector from
touching (and so copying) the parent's objects in the children.

One process does the work when ``jobs`` is 1, when there are fewer than ``POOL_MIN_ITEMS`` items (starting
workers costs more than it saves), when the platform cannot fork, or when fast paths are off
(``fastpaths``). An exception in a worker (``RunTimeExceeded``, ``WallClockGuard``, a bug) is raised in the
caller as it would have been in one process; a worker that dies (killed, out of memory) is a ``RuntimeError`` in
the caller, never a wait without end (``concurrent.futures`` notices a dead worker, ``multiprocessing.Pool``
does not); the workers ignore Ctrl-C, which the caller handles.
"""

from __future__ import annotations

import gc
import os
import pickle
import signal
from collections.abc import Callable
from typing import Any, Literal, TypeVar

from mcp_schema_audit import fastpaths

T = TypeVar("T")

#: Items below which one process is faster than forking workers (a changed tool costs about a millisecond;
#: starting two workers and shipping their findings back costs tens).
POOL_MIN_ITEMS = 96
#: Items done in the calling process before the workers are forked.
WARM_UP_ITEMS = 8
#: Chunks handed to each worker (more: better balance and progress; fewer: less shipping).
_CHUNKS_PER_JOB = 8

_WORK: Callable[[int], Any] | None = None  # the function the forked workers run (set before the fork)


def available_jobs() -> int:
    """The cores this process may run on (``sched_getaffinity``; ``os.cpu_count()`` where that is missing), ≥ 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _can_fork() -> bool:
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def ordered_map(
    func: Callable[[int], T], count: int, *, jobs: int | None = None, progress: Callable[[int], None] | None = None
) -> list[T]:
    """``[func(i) for i in range(count)]``, on up to ``jobs`` processes (``None``: ``available_jobs()``).

    ``progress(done)`` is called in the caller's process with the number of items finished so far, in
    increasing order. Raises whatever ``func`` raises (the first failure in index order). Raises
    ``ValueError`` for ``jobs`` < 1.
    """
    if jobs is not None and jobs < 1:
        raise ValueError(f"jobs must be at least 1 (got {jobs})")
    jobs = min(jobs or (available_jobs() if count >= POOL_MIN_ITEMS else 1), count)
    pooled = jobs > 1 and count >= POOL_MIN_ITEMS and _can_fork() and fastpaths.enabled()
    # the first items run here, also before a fork: the workers inherit what they warmed up (validator classes,
    # compiled regexes, caches) instead of each building it again
    out = []
    for i in range(min(count, WARM_UP_ITEMS) if pooled else count):
        out.append(func(i))
        if progress is not None:
            progress(i + 1)
    if not pooled:
        return out
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
