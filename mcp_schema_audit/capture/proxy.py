"""``record`` over stdio: a transparent proxy between a host and the MCP server it launches.

The host starts ``schema-audit record --out FILE -- SERVER_CMD…`` in place of the server. The proxy starts the
server with the same environment, working folder and stderr (inherited: the server's stderr is the host's),
and copies bytes both ways as they arrive: host stdin → server stdin, server stdout → host stdout, each chunk
written on at once (it is only queued for the recorder first, so that a request is seen before its reply), so
every message (requests, notifications, server-to-client
requests, errors, cancellation) reaches the other side byte for byte, as soon as it was sent. A separate
thread splits the copies into lines and gives them to the ``TrafficRecorder``, which writes the recording
every ``flush_s`` seconds (when something changed) and once more at the end.

End of a run: the host closing stdin closes the server's stdin; the server's stdout ending (it exited or
crashed, mid-call or not) closes the host's stdout, so the host sees the EOF it would see without the proxy.
SIGTERM, SIGINT and SIGHUP are passed on to the server. The proxy exits with the server's status (128 + N
for a server killed by signal N).
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import subprocess
import threading
from collections.abc import Callable
from typing import Any

from mcp_schema_audit.capture.recorder import TrafficRecorder
from mcp_schema_audit.errors import CaptureError

#: Bytes read at a time from either side.
CHUNK = 65536
_FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def run_stdio_proxy(
    command: list[str],
    recorder: TrafficRecorder,
    *,
    flush_s: float = 2.0,
    on_write_error: Callable[[OSError], None] | None = None,
) -> int:
    """Run ``command`` behind the proxy until the server's stdout ends and the server has exited; return its
    exit status (128 + N when killed by signal N). The recording is flushed every ``flush_s`` seconds and at
    the end (``on_write_error`` hears of a write that failed; the traffic is forwarded regardless).

    Raises ``CaptureError`` (exit 3) when the command cannot be started."""
    try:
        child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    except OSError as exc:
        raise CaptureError(f"cannot start the server {command[0]!r}: {exc.strerror or exc}") from None
    assert child.stdin is not None and child.stdout is not None
    copies: queue.Queue[tuple[str, bytes | None]] = queue.Queue()
    previous = {s: signal.signal(s, _passer(child)) for s in _FORWARDED}
    host_in, host_out = 0, 1
    try:
        pumps = [
            threading.Thread(target=_pump, args=(host_in, child.stdin.fileno(), "client", copies), daemon=True),
            threading.Thread(target=_pump, args=(child.stdout.fileno(), host_out, "server", copies), daemon=True),
        ]
        for pump in pumps:
            pump.start()
        _record(copies, recorder, flush_s, on_write_error)
        status = child.wait()
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    _write(recorder, on_write_error)
    return status if status >= 0 else 128 - status


def _passer(child: subprocess.Popen[bytes]) -> Any:
    def pass_on(signum: int, frame: Any) -> None:
        with contextlib.suppress(OSError):
            child.send_signal(signum)

    return pass_on


def _pump(src: int, dst: int, side: str, copies: queue.Queue[tuple[str, bytes | None]]) -> None:
    """Copy ``src`` to ``dst`` chunk by chunk until ``src`` ends, then close ``dst`` (the other side's EOF). A
    ``dst`` that stops taking data (the host went away) stops the writes, never the reads: the recording
    still sees everything."""
    alive = True
    while True:
        try:
            chunk = os.read(src, CHUNK)
        except OSError:
            chunk = b""
        if not chunk:
            break
        # queued first (an append: the reading is another thread's), so that the recorder sees a request before
        # the reply the server may send as soon as it has the request
        copies.put((side, chunk))
        if alive:
            try:
                view = memoryview(chunk)
                while view:
                    view = view[os.write(dst, view) :]
            except OSError:
                alive = False
    with contextlib.suppress(OSError):
        os.close(dst)
    copies.put((side, None))


def _record(
    copies: queue.Queue[tuple[str, bytes | None]],
    recorder: TrafficRecorder,
    flush_s: float,
    on_write_error: Callable[[OSError], None] | None,
) -> None:
    """Split both copies into lines for ``recorder`` until the server's side ended; flush every ``flush_s``."""
    import time

    buffers = {"client": bytearray(), "server": bytearray()}
    feed = {"client": recorder.from_client, "server": recorder.from_server}
    due = time.monotonic() + flush_s
    while True:
        try:
            side, chunk = copies.get(timeout=max(0.05, due - time.monotonic()))
        except queue.Empty:
            side, chunk = "", b""
        if side and chunk is None:
            if buffers[side]:
                feed[side](bytes(buffers[side]))
                buffers[side].clear()
            if side == "server":
                return
            # the host closed stdin: it has every reply it waits for, and may kill the server (and this proxy,
            # in its process group) soon (the SDKs send SIGTERM after 2 s, SIGKILL after 4): write now
            _write(recorder, on_write_error, force=False)
        elif side and chunk:
            buf = buffers[side]
            start = len(buf)
            buf += chunk
            at = buf.find(b"\n", start)
            if at >= 0:
                lines = bytes(buf).split(b"\n")
                buf[:] = lines.pop()
                for line in lines:
                    feed[side](line)
            elif len(buf) > 2 * 64 * 1024 * 1024:
                buf.clear()  # an endless line: not read (forwarded as it came)
        if time.monotonic() >= due:
            _write(recorder, on_write_error, force=False)
            due = time.monotonic() + recorder.next_flush(flush_s)


def _write(recorder: TrafficRecorder, on_write_error: Callable[[OSError], None] | None, *, force: bool = True) -> None:
    try:
        recorder.flush(force=force)
    except OSError as exc:
        if on_write_error is not None:
            on_write_error(exc)
