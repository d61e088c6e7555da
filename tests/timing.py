"""Durations that mean the same on an idle and on a busy machine, for the tests that promise a bound on time.

A bound on wall-clock time (``--timeout`` honoured, a hung server stopped, a budget that stops work) fails on
a loaded machine for no fault of the code: at a load average of 8 on 2 cores a runnable thread gets a quarter
of a core, so a command that needs 0.5 s of CPU after its deadline takes 2 s to get it. The kernel counts
that wait: the second field of ``/proc/<pid>/task/<tid>/schedstat`` is the time a thread spent runnable but
waiting for a CPU. ``Timing.unloaded()`` is the wall-clock time less that wait (for each interval between
two samples, the longest wait of any of the command's threads in it: threads that wait at the same time
delay the run once). On an idle machine it is the wall-clock time itself; on a busy one, what the run would
have taken with a CPU free whenever it asked for one. A bound on it keeps its meaning under load (a run that
sleeps 4 s too long, or burns 4 s of CPU, still fails it) where a bound on the wall clock would have to be
loosened until it proves little.

- ``run(args, timeout=…)``: a command run as ``subprocess.run(…, capture_output=True)``, and its ``Timing``
  (its threads and those of the processes it forks without executing another program, such as a worker
  pool; not the servers it starts: a server that computes waits for a CPU whether the command waits for it
  or not, and leaving servers out errs on the strict side);
- ``measure()``: the ``Timing`` of in-process work (this process's threads);
- ``until_reached(attempt, reached, first)``: for a scenario that must have reached its server when a
  deadline fires (a hung server must be running to be stopped): attempts with ``--timeout`` ``first``,
  twice, four and eight times that, until one got there (the command's own start-up counts in its
  ``--timeout``, and on a busy machine it can take longer than a short one).

``unloaded(since=T)`` counts only the waits from ``T`` seconds after the start: a run whose end is set by a
deadline ``T`` was not delayed by the waits before it. The threads are sampled every ``SAMPLE_S`` seconds,
so the waits of a thread that lives shorter than that may be missed: the count errs on the strict side.
Where ``/proc/<pid>/task/<tid>/schedstat`` is missing (not Linux, a kernel without schedstats) nothing is
counted and ``unloaded()`` is the wall-clock time. Work that only computes in-process is better measured in
CPU time (``time.process_time()``), which a busy machine does not stretch.
"""

from __future__ import annotations

import bisect
import contextlib
import os
import select
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

SAMPLE_S = 0.02  #: seconds between two samples of the threads' waits
_PROC = "/proc"
T = TypeVar("T")


@dataclass
class Timing:
    """``seconds`` of wall clock; ``samples``: (seconds since the start, seconds waited for a CPU so far)."""

    seconds: float = 0.0
    samples: list[tuple[float, float]] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"Timing({self.describe()})"

    def waited(self, since: float = 0.0) -> float:
        """Seconds the run waited for a CPU from ``since`` seconds after its start on (from the first sample
        taken then: a wait just after ``since`` may be missed)."""
        if not self.samples:
            return 0.0
        i = bisect.bisect_left([t for t, _ in self.samples], since)
        return 0.0 if i == len(self.samples) else self.samples[-1][1] - self.samples[i][1]

    def unloaded(self, since: float = 0.0) -> float:
        """The wall-clock time less the waits for a CPU from ``since`` on: the run on a machine with a CPU free."""
        return max(0.0, self.seconds - self.waited(since))

    def describe(self, since: float = 0.0) -> str:
        """``"3.41 s (6.90 s of wall clock, 3.49 s waiting for a CPU)"``, for assertion messages."""
        waited = self.waited(since)
        return f"{self.unloaded(since):.2f} s ({self.seconds:.2f} s of wall clock, {waited:.2f} s waiting for a CPU)"


def _read(path: str) -> str:
    with open(path, encoding="ascii", errors="replace") as fh:
        return fh.read()


def _wait_ns(pid: int, tid: int) -> int | None:
    try:
        return int(_read(f"{_PROC}/{pid}/task/{tid}/schedstat").split()[1])
    except (OSError, ValueError, IndexError):
        return None


def available() -> bool:
    """Does this kernel report the waits of threads (``/proc/<pid>/task/<tid>/schedstat``)?"""
    return _wait_ns(os.getpid(), threading.get_native_id()) is not None


@dataclass
class _Sampler:
    """The threads of ``root`` and of its forks (processes below it with its command line), sampled."""

    root: int
    skip_tids: set[int] = field(default_factory=set)
    started: float = field(default_factory=time.monotonic)
    last: dict[tuple[int, str, int], int] = field(default_factory=dict)  #: cumulative wait of each thread (ns)
    waited_ns: int = 0
    samples: list[tuple[float, float]] = field(default_factory=list)

    @staticmethod
    def _cmdline(pid: int) -> bytes | None:
        try:
            with open(f"{_PROC}/{pid}/cmdline", "rb") as fh:
                return fh.read()
        except OSError:
            return None

    def sample(self) -> None:
        root_cmdline = self._cmdline(self.root)
        todo, seen, longest = [self.root], set(), 0
        while todo:
            pid = todo.pop()
            if pid in seen:
                continue
            seen.add(pid)
            try:
                start_time = _read(f"{_PROC}/{pid}/stat").rsplit(")", 1)[1].split()[19]
                tids = [int(t) for t in os.listdir(f"{_PROC}/{pid}/task")]
            except (OSError, ValueError, IndexError):
                continue
            counted = pid == self.root or self._cmdline(pid) == root_cmdline
            for tid in tids:
                wait = _wait_ns(pid, tid) if counted and tid not in self.skip_tids else None
                if wait is not None:
                    key = (pid, start_time, tid)
                    longest = max(longest, wait - self.last.get(key, wait))  # a thread seen first: from now on
                    self.last[key] = wait
                with contextlib.suppress(OSError, ValueError):
                    todo.extend(int(c) for c in _read(f"{_PROC}/{pid}/task/{tid}/children").split())
        self.waited_ns += longest
        self.samples.append((time.monotonic() - self.started, self.waited_ns / 1e9))


def run(
    args: list[str], *, timeout: float, text: bool = False, **popen: Any
) -> tuple[subprocess.CompletedProcess[Any], Timing]:
    """``subprocess.run(args, capture_output=True, timeout=timeout, text=text, **popen)`` and its ``Timing``.

    On a timeout the command is killed and ``subprocess.TimeoutExpired`` raised (with what it wrote), as
    ``subprocess.run`` does.
    """
    started = time.monotonic()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=text, **popen)
    sampler = _Sampler(proc.pid, started=started)
    out: list[Any] = []
    err: list[Any] = []
    readers = [
        threading.Thread(target=lambda s=stream, sink=sink: sink.append(s.read()), daemon=True)
        for stream, sink in ((proc.stdout, out), (proc.stderr, err))
    ]
    for reader in readers:
        reader.start()
    try:
        pidfd: int | None = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        pidfd = None
    try:
        while True:
            sampler.sample()
            # WNOWAIT: the command stays a zombie, so that the last sample still reads its main thread
            if os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                break
            if time.monotonic() > started + timeout:
                proc.kill()
                proc.wait()
                for reader in readers:
                    reader.join(timeout=5)
                raise subprocess.TimeoutExpired(args, timeout, out[0] if out else None, err[0] if err else None)
            if pidfd is not None:
                select.select([pidfd], [], [], SAMPLE_S)  # wakes at once when the command exits
            else:
                time.sleep(SAMPLE_S)
        ended = time.monotonic()
        sampler.sample()
    finally:
        if pidfd is not None:
            os.close(pidfd)
    code = proc.wait()
    for reader in readers:
        reader.join(timeout=max(5.0, started + timeout - time.monotonic()))
    empty: Any = "" if text else b""
    result = subprocess.CompletedProcess(args, code, out[0] if out else empty, err[0] if err else empty)
    return result, Timing(ended - started, sampler.samples)


@contextlib.contextmanager
def measure() -> Iterator[Timing]:
    """``with measure() as t: work()``: ``t`` is the ``Timing`` of the block (this process's threads)."""
    timing = Timing()
    stop = threading.Event()
    sampler = _Sampler(os.getpid())

    def loop() -> None:
        sampler.skip_tids.add(threading.get_native_id())
        while not stop.wait(SAMPLE_S):
            sampler.sample()

    thread = threading.Thread(target=loop, name="timing-sampler", daemon=True)
    sampler.started = time.monotonic()
    sampler.sample()
    thread.start()
    try:
        yield timing
    finally:
        timing.seconds = time.monotonic() - sampler.started
        stop.set()
        thread.join()
        sampler.sample()
        timing.samples = sampler.samples


def until_reached(
    attempt: Callable[[float], T], reached: Callable[[T], bool], first: float, tries: int = 4
) -> tuple[T, float]:
    """``attempt(timeout)`` with ``timeout`` = ``first``, then twice, four, eight times that (``tries`` in all),
    until ``reached(outcome)``: the scenario got to its server before the deadline. Returns the outcome and
    its timeout; fails the test when no attempt got there."""
    import pytest

    timeout = first
    for _ in range(tries):
        outcome = attempt(timeout)
        if reached(outcome):
            return outcome, timeout
        timeout *= 2
    pytest.fail(
        f"no attempt reached the server before its deadline (--timeout {first:g} to {timeout / 2:g} s); "
        f"the last: {outcome!r}"[:3000]
    )
