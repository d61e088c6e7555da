"""The stdio server's process tree and stderr tail: every descendant stopped at the end, the last lines kept for
errors."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import threading
import time
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.client import Transport
    from mcp.client._transport import TransportStreams  # the SDK's (read, write) pair (no public module)

#: Lines of a stdio server's stderr quoted in a failure message (its last ones).
STDERR_TAIL_LINES = 5


#: Characters of one such line quoted (longer ones are cut).
STDERR_LINE_CHARS = 160


_STDERR_READ_BYTES = 16 * 1024


class StderrTail:
    """The stdio server's stderr: a pipe drained by a thread that keeps the first and the last bytes.

    A temporary file would let a server that floods stderr fill the disk (GB/s until the timeout);
    this keeps at most ``3 * _STDERR_READ_BYTES`` in memory: the first ``_STDERR_READ_BYTES`` (a crash's
    error line comes early, before its stack) and the last. ``writer`` is the write end handed to the
    server process; ``tail()`` returns what was kept (head, then tail); ``close()`` stops the thread.
    """

    def __init__(self) -> None:
        read_fd, write_fd = os.pipe()
        self._read_fd = read_fd
        self.writer = os.fdopen(write_fd, "wb", buffering=0)
        self._buf = bytearray()
        self._head = bytearray()
        self._cut = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._idle = threading.Event()
        self._thread = threading.Thread(target=self._pump, name="schema-audit-stderr", daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        try:
            while not self._stop.is_set():
                ready, _, _ = select.select([self._read_fd], [], [], 0.05)
                if not ready:
                    self._idle.set()
                    continue
                chunk = os.read(self._read_fd, 65536)
                if not chunk:
                    self._idle.set()
                    break
                with self._lock:
                    room = _STDERR_READ_BYTES - len(self._head)
                    if room > 0:
                        self._head += chunk[:room]
                        chunk = chunk[room:]
                    self._buf += chunk
                    if len(self._buf) > 2 * _STDERR_READ_BYTES:
                        del self._buf[: len(self._buf) - _STDERR_READ_BYTES]
                        self._cut = True
        except (OSError, ValueError):
            pass
        finally:
            self._idle.set()
            os.close(self._read_fd)

    def tail(self) -> bytes:
        """The first ``_STDERR_READ_BYTES`` written and the last ones (a line ``…`` between them when some were
        dropped); waits up to 0.3 s for the pipe to be drained first."""
        if self._thread.is_alive():
            self._idle.clear()
            self._idle.wait(0.3)
        with self._lock:
            rest = bytes(self._buf[-_STDERR_READ_BYTES:])
            cut = self._cut or len(self._buf) > _STDERR_READ_BYTES
            return bytes(self._head) + (b"\n\xe2\x80\xa6\n" + rest.partition(b"\n")[2] if cut else rest)

    def close(self) -> None:
        """Close our copy of the write end and stop the reader thread (it exits within ~0.05 s)."""
        with contextlib.suppress(OSError):
            self.writer.close()
        self._stop.set()
        self._thread.join(timeout=1.0)


class ProcessTree:
    """The stdio server and its descendants, followed through ``/proc`` while the server runs (Linux).

    The SDK starts the server in a new session and, at shutdown, signals that process group only, and
    only when the server outlives its closed stdin. A descendant that called ``setsid()`` (or
    ``setpgid()``) has left the group and would keep running; so would one in the group when the
    server itself exits cleanly. This object records every descendant while the server runs (a poll
    thread reads the parent links of ``/proc/<pid>/stat`` every ``POLL_S`` seconds or so, and once more
    just before the SDK stops the server), and :meth:`close` then stops the recorded processes that
    are still alive, with their own descendants: SIGTERM, ``TERM_GRACE_S`` seconds, then SIGSTOP of
    the whole remaining tree (so that nothing forks while it is collected) and SIGKILL.

    A process is identified by its pid *and* its start time (``/proc/<pid>/stat`` field 22), checked
    again through a pidfd right before each signal, so a pid reused by an unrelated process is never
    signalled; nothing but the server we started (the child of this process whose stderr is our pipe)
    and processes found below it through parent links is ever recorded. Limits: a descendant that
    detaches within one poll interval (a double fork whose intermediate parent exits at once) is
    reparented to init before it is seen, and processes of another user cannot be signalled. Without
    ``/proc`` (macOS, Windows) this is a no-op and only the SDK's process-group kill applies.
    """

    POLL_S = 0.05  #: seconds between two scans (longer when a scan is slow: at most ~10% of a core)
    TERM_GRACE_S = 1.0  #: seconds between SIGTERM and SIGKILL for descendants still alive after the server
    KILL_WAIT_S = 2.0  #: seconds to wait for killed processes to disappear

    def __init__(self, stderr_fd: int | None) -> None:
        self.enabled = sys.platform.startswith("linux") and os.path.exists("/proc/self/stat")
        self._stderr_link: str | None = None
        if self.enabled and stderr_fd is not None:
            with contextlib.suppress(OSError):
                self._stderr_link = f"pipe:[{os.fstat(stderr_fd).st_ino}]"
        self.server: tuple[int, int] | None = None  #: (pid, start time) of the server, once found
        self.known: dict[int, int] = {}  #: descendants ever seen: pid -> start time
        self._seen: set[int] = set()  #: pids already looked at (descendant or not)
        self._before: set[tuple[int, int]] = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        #: how the server ended, in words (``exit status 1``, ``killed by SIGKILL``), when a failed capture saw it end
        self.ended: str | None = None
        #: a failed capture found the server still running (it closed its stdout, or stopped answering)
        self.running: bool = False

    # -- /proc

    @staticmethod
    def _stat(pid: int) -> tuple[str, int, int] | None:
        """``(state, ppid, start time)`` of ``pid`` from ``/proc/<pid>/stat``; ``None`` if it is gone."""
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                data = fh.read()
            fields = data[data.rindex(b")") + 2 :].split()
            return fields[0].decode("ascii", "replace"), int(fields[1]), int(fields[19])
        except (OSError, ValueError, IndexError):
            return None

    @staticmethod
    def _pids() -> list[int]:
        try:
            return [int(name) for name in os.listdir("/proc") if name.isdigit()]
        except OSError:
            return []

    def _children_of_self(self) -> set[tuple[int, int]]:
        me = os.getpid()
        out = set()
        for pid in self._pids():
            info = self._stat(pid)
            if info is not None and info[1] == me:
                out.add((pid, info[2]))
        return out

    def _alive(self, pid: int, start: int) -> bool:
        info = self._stat(pid)
        return info is not None and info[2] == start and info[0] not in ("Z", "X")

    # -- life cycle

    def before_spawn(self) -> None:
        """Note this process's children before the server is spawned."""
        if self.enabled:
            with contextlib.suppress(Exception):
                self._before = self._children_of_self()

    def attach(self) -> None:
        """Find the server just spawned (our new child whose stderr is our pipe) and start following it."""
        if not self.enabled:
            return
        try:
            new = sorted(self._children_of_self() - self._before)
            ours = []
            readable = 0
            for pid, start in new:
                try:
                    link = os.readlink(f"/proc/{pid}/fd/2")
                except OSError:
                    continue
                readable += 1
                if link == self._stderr_link:
                    ours.append((pid, start))
            if len(ours) != 1 and len(new) == 1 and readable == 0:
                ours = new  # the server's fds are not readable (not dumpable), but it is our only new child
            if len(ours) != 1:
                return  # cannot tell which process is the server: follow nothing (the group kill still applies)
            self.server = ours[0]
            self.scan()
        except Exception:  # noqa: BLE001 - following the tree is best effort; the capture goes on
            return
        self._thread = threading.Thread(target=self._poll, name="schema-audit-proctree", daemon=True)
        self._thread.start()

    def _poll(self) -> None:
        interval = self.POLL_S
        while not self._stop.wait(interval):
            started = time.monotonic()
            self.scan()
            interval = max(self.POLL_S, 10 * (time.monotonic() - started))

    def scan(self) -> None:
        """Record the descendants of the server and of every recorded descendant still alive."""
        if self.server is None:
            return
        with self._lock, contextlib.suppress(Exception):  # a vanished /proc entry or a parse error: skip this round
            self._scan_locked()

    def _scan_locked(self) -> None:
        assert self.server is not None
        parents = {pid for pid, start in [self.server, *self.known.items()] if self._alive(pid, start)}
        pids = self._pids()
        fresh: dict[int, tuple[int, int]] = {}
        for pid in pids:
            if pid in self._seen:
                continue  # looked at before: a descendant is recorded, a non-descendant never becomes one
            info = self._stat(pid)
            if info is not None:
                fresh[pid] = (info[1], info[2])
        changed = True
        while changed:  # children of children found in the same round
            changed = False
            for pid, (ppid, start) in fresh.items():
                if pid not in self.known and pid != self.server[0] and ppid in parents:
                    self.known[pid] = start
                    parents.add(pid)
                    changed = True
        self._seen = (self._seen & set(pids)) | set(fresh)

    def _living(self) -> list[tuple[int, int]]:
        """The server and recorded descendants that are still running (zombies are dead)."""
        candidates = [self.server, *self.known.items()] if self.server else []
        return [(pid, start) for pid, start in candidates if self._alive(pid, start)]

    def _signal(self, pid: int, start: int, sig: int) -> None:
        """Send ``sig`` to ``pid`` if it is still the process that started at ``start`` (pidfd: no race)."""
        pidfd = None
        try:
            opener = getattr(os, "pidfd_open", None)
            if opener is not None:
                try:
                    pidfd = opener(pid)
                except ProcessLookupError:
                    return
                except OSError:
                    pidfd = None  # an old kernel: check, then kill by pid
            if not self._alive(pid, start):
                return
            if pidfd is not None:
                signal.pidfd_send_signal(pidfd, sig)
            else:
                os.kill(pid, sig)
        except OSError:
            pass  # gone meanwhile, or another user's process
        finally:
            if pidfd is not None:
                os.close(pidfd)

    def close(self, term_grace_s: float | None = None) -> None:
        """Stop following, then stop every recorded process still alive (see the class docstring).

        ``term_grace_s`` replaces ``TERM_GRACE_S`` (after a timeout, when the run's deadline is spent).
        Blocks for at most ``TERM_GRACE_S + KILL_WAIT_S`` seconds and ~0 when nothing is left. Never raises.
        """
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
        if self.server is None:
            return
        try:
            self.scan()
            living = self._living()
            if not living:
                return
            for pid, start in living:
                self._signal(pid, start, signal.SIGTERM)
            deadline = time.monotonic() + (self.TERM_GRACE_S if term_grace_s is None else term_grace_s)
            while living and time.monotonic() < deadline:
                time.sleep(0.02)
                self.scan()
                living = self._living()
            for _ in range(20):  # freeze the rest, collecting what it forked, until nothing new appears
                if not living:
                    return
                for pid, start in living:
                    self._signal(pid, start, signal.SIGSTOP)
                self.scan()
                more = self._living()
                if set(more) <= set(living):
                    break
                living = more
            for pid, start in living:
                self._signal(pid, start, signal.SIGKILL)
            deadline = time.monotonic() + self.KILL_WAIT_S
            while self._living() and time.monotonic() < deadline:
                time.sleep(0.02)
        except Exception:  # noqa: BLE001 - never let the clean-up hide the capture's own outcome
            pass


#: seconds a failed capture waits for the server to end (its stdout closes a moment before it exits)
EXIT_WAIT_S = 0.3


def _server_process(transport: Transport) -> Any:
    """The SDK's process object of the stdio server, or ``None``. The stdio client keeps it in its generator's
    frame and nothing public exposes its exit status (the client reaps the server itself), so it is read there;
    an SDK that keeps it elsewhere gives ``None``, and messages go without the exit status."""
    frame = getattr(getattr(transport, "gen", None), "ag_frame", None)
    process = frame.f_locals.get("process") if frame is not None else None
    return process if hasattr(process, "returncode") else None


async def _note_exit(transport: Transport, tree: ProcessTree) -> None:
    """Record in ``tree.ended`` how the server ended, waiting up to ``EXIT_WAIT_S`` for it (shielded: a failure is
    being explained); a server still running then leaves it unset."""
    import anyio

    process = _server_process(transport)
    if process is None:
        return
    with anyio.move_on_after(EXIT_WAIT_S, shield=True):
        while process.returncode is None:
            await anyio.sleep(0.01)
    if process.returncode is None:
        tree.running = True
    else:
        tree.ended = _ending(process.returncode)


def _ending(returncode: int) -> str:
    """A subprocess's return code in words: ``exit status N``, or ``killed by SIGNAME`` for ``-N``."""
    if returncode >= 0:
        return f"exit status {returncode}"
    try:
        return f"killed by {signal.Signals(-returncode).name}"
    except ValueError:
        return f"killed by signal {-returncode}"


#: seconds a stdio server gets between SIGTERM and SIGKILL once the run's deadline has passed
TIMEOUT_TERM_GRACE_S = 0.1


@contextlib.asynccontextmanager
async def tracked(transport: Transport, tree: ProcessTree) -> AsyncIterator[TransportStreams]:
    """Enter the SDK's stdio transport with ``tree`` following the server it spawns.

    When the run's deadline has passed (a timeout), the server and its descendants are stopped at once
    (SIGTERM, ``TIMEOUT_TERM_GRACE_S``, SIGKILL) instead of the SDK's graceful shutdown: closing stdin,
    2 s, SIGTERM, 2 s, SIGKILL would let a server that ignores both overrun ``--timeout`` by 4 s.
    """
    import anyio

    tree.before_spawn()
    async with transport as streams:
        tree.attach()
        try:
            yield streams
        except Exception:
            if anyio.current_time() < anyio.current_effective_deadline():
                await _note_exit(transport, tree)  # a failure: how the server ended
            raise
        finally:
            tree.scan()  # a last look before the SDK closes stdin and signals the process group
            if anyio.current_time() >= anyio.current_effective_deadline():
                tree.close(term_grace_s=TIMEOUT_TERM_GRACE_S)
