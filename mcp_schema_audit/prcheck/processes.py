"""Processes the schema-audit Action starts for a capture, tracked and stopped whatever their leader did.

A ``start-command`` is a shell command (``/bin/sh -c``), often written the CI way: ``server & wait-for-port
8931``, ``server & sleep 2``, a daemon that forks twice and calls ``setsid``. Its shell leader may exit while
the server keeps running, so the server is tracked as a set of processes, not as the leader: everything in
the leader's process group or session, every process that was reparented to this one (it is made a child
subreaper on Linux, so a double-forked daemon comes back to it rather than to init) and every descendant of
those. Stopping sends SIGTERM to that whole set, waits, then SIGKILL. Linux only in full (``/proc``); elsewhere
the process group alone.

Also here: who owns a listening TCP port (``/proc/net/tcp``, ``tcp6`` and each process's descriptors), used to
check that a capture talks to the server its start-command started. Standard library only.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path

_PROC = Path("/proc")
#: ``prctl`` option that makes orphaned descendants come back to this process instead of init.
_PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> bool:
    """Make this process a child subreaper (Linux ``prctl``), so a daemonizing start-command's server stays a
    descendant that can be found and stopped. ``False`` where that is not available."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _stat(pid: int) -> tuple[str, int, int, int, int] | None:
    """``(state, ppid, pgid, sid, start time)`` of ``pid`` from ``/proc/PID/stat``, or ``None`` when it is gone."""
    try:
        text = (_PROC / str(pid) / "stat").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    fields = text.rsplit(")", 1)[-1].split()
    try:
        return fields[0], int(fields[1]), int(fields[2]), int(fields[3]), int(fields[19])
    except (IndexError, ValueError):
        return None


def _pids() -> list[int]:
    try:
        return [int(p.name) for p in _PROC.iterdir() if p.name.isdigit()]
    except OSError:
        return []


def children_of_self() -> set[int]:
    """The live children of this process (from ``/proc``; empty where there is none)."""
    me = os.getpid()
    return {pid for pid in _pids() if (st := _stat(pid)) is not None and st[1] == me and st[0] != "Z"}


def alive(pid: int) -> bool:
    """True when ``pid`` exists and is not a zombie (a zombie child of ours is reaped here)."""
    st = _stat(pid)
    if st is None:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return not _PROC.is_dir()  # no /proc: the signal test is all there is
    if st[0] == "Z":
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(pid, os.WNOHANG)
        return False
    return True


class Tracked:
    """The processes of one start-command: its leader's group and session, orphans that came back to this
    process since ``before`` (the children it had before the start), and all their descendants."""

    def __init__(self, leader: subprocess.Popen[bytes], before: set[int]) -> None:
        self.leader = leader
        self.before = before | {leader.pid}
        st = _stat(leader.pid)
        self.seen: dict[int, int] = {leader.pid: st[4]} if st else {}  #: pid → start time (a reused pid is not ours)

    def members(self) -> set[int]:
        """Every live process of the start-command now (also remembered, so that a process seen once is stopped
        even after its parent changed)."""
        me, lead = os.getpid(), self.leader.pid
        table = {pid: st for pid in _pids() if (st := _stat(pid)) is not None and st[0] != "Z"}
        found = {pid for pid, st in table.items() if st[2] == lead or st[3] == lead}
        found |= {pid for pid, st in table.items() if st[1] == me and pid not in self.before}
        found |= {pid for pid, start in self.seen.items() if pid in table and table[pid][4] == start}
        grew = True
        while grew:  # descendants of any member
            more = {pid for pid, st in table.items() if st[1] in found and pid not in found}
            grew = bool(more)
            found |= more
        found.discard(me)
        self.seen.update({pid: table[pid][4] for pid in found})
        return found

    def any_alive(self) -> bool:
        """True while the leader or any other process of the start-command runs."""
        if self.leader.poll() is None:
            return True
        if not _PROC.is_dir():
            return _group_alive(self.leader.pid)
        return any(alive(pid) for pid in self.members())

    def stop(self, term_wait_s: float = 5.0) -> list[int]:
        """SIGTERM to every process of the start-command (and its process group), then SIGKILL to those still
        running after ``term_wait_s`` seconds; returns the pids that outlived SIGKILL too (normally none)."""
        for sig, wait in ((signal.SIGTERM, term_wait_s), (signal.SIGKILL, 5.0)):
            targets = self.members() if _PROC.is_dir() else set()
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.leader.pid, sig)
            _signal_all(targets, sig)
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline:
                self.leader.poll()
                left = [pid for pid in self.members() | targets if alive(pid)] if _PROC.is_dir() else []
                if not left and (self.leader.returncode is not None) and not _group_alive(self.leader.pid):
                    return []
                time.sleep(0.05)
        self.leader.poll()
        return sorted(pid for pid in self.members() if alive(pid)) if _PROC.is_dir() else []


def stop_adopted(before: set[int], term_wait_s: float = 5.0) -> list[int]:
    """Stop what came back to this process (a child subreaper) since ``before`` (its children then) and is still
    running: a daemon a setup command or a server double-forked, with its descendants. SIGTERM, up to
    ``term_wait_s`` seconds, SIGKILL; returns the pids that outlived SIGKILL (normally none). Linux only."""
    if not _PROC.is_dir():
        return []
    me = os.getpid()

    def adopted() -> set[int]:
        table = {pid: st for pid in _pids() if (st := _stat(pid)) is not None and st[0] != "Z"}
        found = {pid for pid, st in table.items() if st[1] == me and pid not in before}
        grew = True
        while grew:
            more = {pid for pid, st in table.items() if st[1] in found and pid not in found}
            grew = bool(more)
            found |= more
        return found

    for sig, wait in ((signal.SIGTERM, term_wait_s), (signal.SIGKILL, 5.0)):
        targets = adopted()
        if not targets:
            return []
        _signal_all(targets, sig)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and any(alive(pid) for pid in targets):
            time.sleep(0.05)
    return sorted(pid for pid in adopted() if alive(pid))


def _signal_all(pids: Iterable[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def listening(host: str, port: int) -> bool:
    """True when something accepts TCP connections on ``host:port`` now."""
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def port_owners(port: int) -> set[int] | None:
    """The pids holding a listening TCP socket on ``port`` (any address, IPv4 or IPv6), from ``/proc``.

    ``None`` when that cannot be told: no ``/proc``, no listening socket visible in this network namespace
    (a container's published port), or the owner's descriptors are not readable (another user's process)."""
    inodes: set[str] = set()
    for table in ("tcp", "tcp6"):
        try:
            lines = (_PROC / "net" / table).read_text(encoding="ascii", errors="replace").splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            if len(parts) > 9 and parts[3] == "0A" and int(parts[1].rsplit(":", 1)[-1], 16) == port:
                inodes.add(f"socket:[{parts[9]}]")
    if not inodes:
        return None
    owners: set[int] = set()
    for pid in _pids():
        try:
            fds = list((_PROC / str(pid) / "fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            with contextlib.suppress(OSError):
                if os.readlink(fd) in inodes:
                    owners.add(pid)
                    break
    return owners or None


def command_name(pid: int) -> str:
    """The short name of process ``pid`` (``/proc/PID/comm``), or ``?``."""
    try:
        return (_PROC / str(pid) / "comm").read_text(encoding="utf-8", errors="replace").strip() or "?"
    except OSError:
        return "?"
