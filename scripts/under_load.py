"""Run the time-sensitive tests (``pytest -m timing``) with a busy loop beside them on every core.

    python scripts/under_load.py                  # pytest -m timing -n 2, one busy loop per core
    python scripts/under_load.py --all            # the whole suite (pytest -n auto) under the same load
    python scripts/under_load.py -- -k hostile    # extra pytest arguments after --

A test that bounds time (``--timeout`` honoured, a hung server stopped, a budget that stops work) must hold
on a contributor's busy laptop and on a shared CI runner, not only on an idle machine. This starts one
``while True: pass`` process per core the script may run on (``--hogs N`` to choose), runs pytest with the
interpreter running this script, and stops the busy loops whatever happens (pytest's end, an error, Ctrl-C,
SIGTERM; each loop also dies with this script: ``PR_SET_PDEATHSIG`` on Linux). It prints the wall time and
the load average (``/proc/loadavg``: at the start, every 30 s and at the end) on stderr, and exits with
pytest's exit code.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUSY_LOOP = "while True: pass"


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _die_with_parent() -> None:
    """In a busy loop before it starts: SIGKILL when this script dies, however it dies (Linux only)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _load() -> list[float]:
    """The 1-, 5- and 15-minute load averages (``/proc/loadavg``); ``[]`` where there is none."""
    try:
        return [float(x) for x in Path("/proc/loadavg").read_text(encoding="ascii").split()[:3]]
    except (OSError, ValueError):
        return []


def _show(load: list[float]) -> str:
    return " ".join(f"{x:.2f}" for x in load) if load else "(no /proc/loadavg)"


def _say(message: str) -> None:
    print(f"under_load: {message}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--hogs", type=int, default=_cores(), help="busy loops to start (default: one per core)")
    parser.add_argument("--all", action="store_true", help="run the whole suite (pytest -n auto), not -m timing")
    parser.add_argument("pytest_args", nargs="*", help="more pytest arguments (after --)")
    args = parser.parse_args(argv)
    command = [sys.executable, "-m", "pytest", *(["-n", "auto"] if args.all else ["-m", "timing", "-n", "2"])]
    command += args.pytest_args

    hogs: list[subprocess.Popen[bytes]] = []
    stop = threading.Event()
    loads: list[float] = []

    def watch() -> None:
        while not stop.wait(30):
            load = _load()
            loads.extend(load[:1])
            _say(f"load average {_show(load)}")

    def terminated(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, terminated)
    started = time.monotonic()
    try:
        for _ in range(max(0, args.hogs)):
            hogs.append(
                subprocess.Popen(
                    [sys.executable, "-c", BUSY_LOOP],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
                )
            )
        _say(f"{len(hogs)} busy loop(s) started; load average {_show(_load())}; running: {' '.join(command[1:])}")
        threading.Thread(target=watch, name="loadavg", daemon=True).start()
        code = subprocess.call(command, cwd=ROOT)
    except KeyboardInterrupt:
        code = 130
    finally:
        stop.set()
        for hog in hogs:
            hog.kill()
        for hog in hogs:
            hog.wait()
        signal.signal(signal.SIGTERM, previous)
    seconds = time.monotonic() - started
    sampled = (
        f" (1-minute load sampled every 30 s: mean {sum(loads) / len(loads):.2f}, max {max(loads):.2f})"
        if loads
        else ""
    )
    _say(f"pytest exited {code} after {seconds:.0f} s; load average at the end {_show(_load())}{sampled}")
    return code


if __name__ == "__main__":
    sys.exit(main())
