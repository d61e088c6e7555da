"""Capture a live MCP server's ``tools/list`` as a :class:`~mcp_schema_audit.snapshot.Snapshot`.

This is the only module that uses the ``mcp`` SDK, and it imports it (and ``anyio``/``httpx2``)
inside functions only: importing the SDK costs ~0.7 s, which commands that never talk to a server
must not pay.

Tools are kept exactly as the server sent them. The SDK's models drop unknown fields (``x-…`` vendor
keys) and reject a whole ``tools/list`` page when a single tool does not fit the negotiated
revision's wire model, so the capture taps the transport streams and records the raw JSON-RPC
``result`` of every ``tools/list`` page; a page the SDK refuses to parse is still kept, and paging
continues from its raw ``nextCursor``.

Never stored or printed: header values, environment values, URL credentials, the command line.
"""

from __future__ import annotations

import contextlib
import copy
import importlib.metadata
import os
import re
import select
import signal
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit, urlunsplit

from mcp_schema_audit import __version__
from mcp_schema_audit.errors import CaptureError, InputError, UsageError
from mcp_schema_audit.snapshot import Snapshot, check_tools

TRANSPORTS = ("stdio", "http", "sse")
PROTOCOLS = ("auto", "legacy", "2026-07-28")
SERVER_INFO_META_KEY = "io.modelcontextprotocol/serverInfo"

_STDERR_TAIL_LINES = 5
_STDERR_LINE_CHARS = 160
_STDERR_READ_BYTES = 16 * 1024
_MESSAGE_CHARS = 300  #: longest piece of server-provided text (JSON-RPC error message) quoted in an error
_MIN_SECRET_LEN = 4
_ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


@dataclass
class CaptureTarget:
    """Where the server is and how to reach it.

    ``transport`` is ``"stdio"`` (spawn ``command``: program then arguments, with ``env`` merged onto
    the SDK's small inherited allow-list ``HOME, LOGNAME, PATH, SHELL, TERM, USER``, in ``cwd``),
    ``"http"`` (Streamable HTTP at ``url``) or ``"sse"`` (the legacy HTTP+SSE transport at ``url``).
    ``headers`` are sent on every HTTP request. ``env`` and ``headers`` values are secrets: they are
    never stored in a snapshot nor shown in an error message.
    """

    transport: str
    command: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)

    def __repr__(self) -> str:  # keep secrets out of tracebacks and logs
        where = redact_url(self.url) if self.url else (self.command[:1] or ["?"])[0]
        return f"CaptureTarget(transport={self.transport!r}, target={where!r})"


def redact_url(url: str) -> str:
    """Return ``url`` safe to store or print: no ``user:password@`` part, query values masked.

    ``https://u:p@host/mcp?token=abc`` becomes ``https://host/mcp?token=REDACTED``; the fragment is
    dropped. A URL that cannot be parsed becomes ``"<invalid URL>"``.
    """
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return "<invalid URL>"
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    netloc = f"{host}:{port}" if port is not None else host
    query = "&".join(f"{key}=REDACTED" for key, _ in parse_qsl(parts.query, keep_blank_values=True))
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))


def connect_url_and_headers(url: str, headers: dict[str, str]) -> tuple[str, dict[str, str]]:
    """The URL to connect to (no ``user:password@``) and the headers to send.

    Credentials embedded in the URL become an HTTP Basic ``Authorization`` header, unless
    ``headers`` already has an ``Authorization`` header (an explicit ``--header`` always wins; HTTP
    clients would otherwise let the URL's credentials silently replace it). The credential-free URL
    is all the MCP SDK ever sees, so its messages and logs cannot carry the password.
    """
    import base64

    try:
        parts = urlsplit(url)
        user, password = parts.username, parts.password
    except ValueError:
        return url, dict(headers)
    out = dict(headers)
    if user is None and password is None:
        return url, out
    netloc = parts.netloc.rpartition("@")[2]
    clean = urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    if not any(k.lower() == "authorization" for k in out):
        token = base64.b64encode(f"{unquote(user or '')}:{unquote(password or '')}".encode()).decode("ascii")
        out["Authorization"] = f"Basic {token}"
    return clean, out


def capture(
    target: CaptureTarget,
    *,
    label: str,
    protocol: str = "auto",
    timeout_s: float = 60.0,
    max_pages: int = 1000,
) -> Snapshot:
    """Connect to the server, list every tool (all pages), disconnect, and return the snapshot.

    ``protocol``: ``"auto"`` (probe ``server/discover``, fall back to the ``initialize`` handshake;
    a silent legacy server costs the SDK's fixed 10 s probe timeout), ``"legacy"`` (``initialize``
    handshake only, 2024-11-05 … 2025-11-25) or ``"2026-07-28"`` (pinned, no handshake).
    ``timeout_s`` (seconds) bounds the whole capture: spawn or connect, handshake and every page.
    ``max_pages`` caps the number of ``tools/list`` pages. Stopping a stdio server that ignores the
    end of its stdin adds up to ~4 s after a failure (the SDK's close, SIGTERM, SIGKILL grace periods).
    On Linux, descendants of a stdio server that are still running once the server has stopped (also
    those that left its process group with ``setsid()``) are then stopped too: SIGTERM, up to 1 s,
    SIGKILL; processes that are not descendants of the server are never signalled.

    The snapshot holds ``label``; ``tools``: the raw tool objects of all pages, sorted by name;
    ``server``: ``name``/``title``/``version`` as the server reported them (keys present only when
    sent); ``protocol_version`` (negotiated); ``capabilities`` (raw, from the handshake result);
    ``transport``; ``meta``: ``captured_at`` (ISO-8601 UTC), ``duration_s`` (seconds, 3 decimals),
    ``sdk_version``, ``schema_audit_version``, ``pages``, ``instructions_present``.

    Raises ``UsageError`` for an unusable ``target``/``protocol``/limits, and ``CaptureError``
    (one line, secrets removed) when the server cannot be started or reached, exits, times out,
    answers with an error, or sends a listing that cannot be paired (no tool name, duplicates,
    a repeating cursor, more than ``max_pages`` pages).
    """
    _check_arguments(target, protocol, timeout_s, max_pages)
    import anyio

    return anyio.run(_capture_async, target, label, protocol, timeout_s, max_pages)


# ---- argument checks --------------------------------------------------------------------------


def _check_arguments(target: CaptureTarget, protocol: str, timeout_s: float, max_pages: int) -> None:
    if target.transport not in TRANSPORTS:
        raise UsageError(f"unknown transport {target.transport!r}: use one of {', '.join(TRANSPORTS)}")
    if protocol not in PROTOCOLS:
        raise UsageError(f"unknown protocol {protocol!r}: use one of {', '.join(PROTOCOLS)}")
    if not timeout_s > 0:
        raise UsageError(f"timeout must be a positive number of seconds, got {timeout_s!r}")
    if max_pages < 1:
        raise UsageError(f"max pages must be at least 1, got {max_pages!r}")
    if target.transport == "stdio":
        if not target.command or not target.command[0]:
            raise UsageError("no server command given (stdio transport)")
    else:
        if not target.url:
            raise UsageError(f"no server URL given ({target.transport} transport)")
        try:
            parts = urlsplit(target.url)
            parts.port  # noqa: B018 - raises ValueError for a bad port
        except ValueError:
            raise UsageError(f"invalid server URL {redact_url(target.url)!r}") from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise UsageError(f"server URL must be http:// or https://, got {redact_url(target.url)!r}")


# ---- the raw tap ------------------------------------------------------------------------------


class _WireLog:
    """JSON-RPC traffic seen on the transport: request methods by id, raw results and errors."""

    def __init__(self) -> None:
        self.methods: dict[Any, str] = {}
        self.replies: list[tuple[str | None, dict[str, Any] | None, dict[str, Any] | None]] = []
        self.unparsable = 0  #: messages the transport could not parse (e.g. log lines on a stdio server's stdout)

    def results(self, method: str, start: int = 0) -> list[dict[str, Any]]:
        """Raw ``result`` dicts of ``method`` replies received since reply number ``start``."""
        return [res for m, res, _ in self.replies[start:] if m == method and res is not None]


class _TapStream:
    """Proxy for a transport read or write stream that records JSON-RPC traffic in a ``_WireLog``."""

    def __init__(self, inner: Any, log: _WireLog) -> None:
        self._inner = inner
        self._log = log

    @property
    def last_context(self) -> Any:  # the dispatcher reads it to carry OpenTelemetry context
        return getattr(self._inner, "last_context", None)

    async def send(self, item: Any) -> None:
        message = getattr(item, "message", None)
        method = getattr(message, "method", None)
        if method is not None and hasattr(message, "id"):
            self._log.methods[message.id] = method
        await self._inner.send(item)

    async def receive(self) -> Any:
        item = await self._inner.receive()
        if isinstance(item, Exception):
            self._log.unparsable += 1
        message = getattr(item, "message", None)
        if message is not None and hasattr(message, "id") and not hasattr(message, "method"):
            method = self._log.methods.get(message.id)
            result = getattr(message, "result", None)
            error = getattr(message, "error", None)
            if isinstance(result, dict):
                self._log.replies.append((method, copy.deepcopy(result), None))
            elif error is not None:
                dumped = error.model_dump(mode="json") if hasattr(error, "model_dump") else {"message": str(error)}
                self._log.replies.append((method, None, dumped))
        return item

    def __aiter__(self) -> _TapStream:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _TapStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


@contextlib.asynccontextmanager
async def _tapped(transport: Any, log: _WireLog) -> AsyncIterator[tuple[_TapStream, _TapStream]]:
    async with transport as (read_stream, write_stream):
        yield _TapStream(read_stream, log), _TapStream(write_stream, log)


# ---- the server's stderr -----------------------------------------------------------------------


class _StderrTail:
    """The stdio server's stderr: a pipe drained by a thread that keeps only the last bytes.

    A temporary file would let a server that floods stderr fill the disk (GB/s until the timeout);
    this keeps at most ``2 * _STDERR_READ_BYTES`` in memory. ``writer`` is the write end handed to
    the server process; ``tail()`` returns what was written last; ``close()`` stops the thread.
    """

    def __init__(self) -> None:
        read_fd, write_fd = os.pipe()
        self._read_fd = read_fd
        self.writer = os.fdopen(write_fd, "wb", buffering=0)
        self._buf = bytearray()
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
                    self._buf += chunk
                    if len(self._buf) > 2 * _STDERR_READ_BYTES:
                        del self._buf[: len(self._buf) - _STDERR_READ_BYTES]
        except (OSError, ValueError):
            pass
        finally:
            self._idle.set()
            os.close(self._read_fd)

    def tail(self) -> bytes:
        """The last ``_STDERR_READ_BYTES`` written; waits up to 0.3 s for the pipe to be drained first."""
        if self._thread.is_alive():
            self._idle.clear()
            self._idle.wait(0.3)
        with self._lock:
            return bytes(self._buf[-_STDERR_READ_BYTES:])

    def close(self) -> None:
        """Close our copy of the write end and stop the reader thread (it exits within ~0.05 s)."""
        try:
            self.writer.close()
        except OSError:
            pass
        self._stop.set()
        self._thread.join(timeout=1.0)


# ---- the server's descendants ------------------------------------------------------------------


class _ProcessTree:
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

    # -- /proc

    @staticmethod
    def _stat(pid: int) -> tuple[str, int, int] | None:
        """``(state, ppid, start time)`` of ``pid`` from ``/proc/<pid>/stat``; ``None`` if it is gone."""
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                data = fh.read()
            fields = data[data.rindex(b")") + 2:].split()
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
        with self._lock:
            try:
                self._scan_locked()
            except Exception:  # noqa: BLE001 - a vanished /proc entry or a parse error: skip this round
                pass

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

    def close(self) -> None:
        """Stop following, then stop every recorded process still alive (see the class docstring).

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
            deadline = time.monotonic() + self.TERM_GRACE_S
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


@contextlib.asynccontextmanager
async def _tracked(transport: Any, tree: _ProcessTree) -> AsyncIterator[Any]:
    """Enter the SDK's stdio transport with ``tree`` following the server it spawns."""
    tree.before_spawn()
    async with transport as streams:
        tree.attach()
        try:
            yield streams
        finally:
            tree.scan()  # a last look before the SDK closes stdin and signals the process group


# ---- one capture ------------------------------------------------------------------------------


@dataclass
class _State:
    """What the failure messages need: the stage reached, HTTP statuses seen, stderr, secrets."""

    target: CaptureTarget
    protocol: str
    stage: str = "starting the server"
    http_error: str | None = None
    errlog: _StderrTail | None = None
    tree: _ProcessTree | None = None
    secrets: list[str] = field(default_factory=list)

    def where(self) -> str:
        if self.target.transport == "stdio":
            return self.target.command[0]
        return redact_url(self.target.url or "")


async def _capture_async(target: CaptureTarget, label: str, protocol: str, timeout_s: float, max_pages: int) -> Snapshot:
    import anyio

    started = time.monotonic()
    captured_at = datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
    state = _State(target=target, protocol=protocol, secrets=_secrets_of(target))
    log = _WireLog()
    with contextlib.ExitStack() as files:
        if target.transport == "stdio":
            state.errlog = _StderrTail()
            files.callback(state.errlog.close)
            state.tree = _ProcessTree(state.errlog.writer.fileno())
            files.callback(state.tree.close)  # runs first: after the SDK stopped the server
        # A bare deadline scope (not anyio.fail_after) so that a timeout is recognised even when the
        # cancellation surfaces as some other exception from the SDK's task groups.
        scope = anyio.CancelScope(deadline=anyio.current_time() + timeout_s)
        outcome = None
        error: CaptureError | None = None
        try:
            with scope:
                outcome = await _session(target, protocol, timeout_s, max_pages, state, log)
        except BaseException as exc:  # noqa: BLE001 - every failure becomes one CaptureError
            if scope.cancel_called:
                error = _timeout_error(timeout_s, state, log)
            elif not isinstance(exc, Exception) and not _is_group(exc):
                raise  # KeyboardInterrupt, SystemExit, an outer cancellation
            else:
                error = _explain(exc, state)
        if error is None and outcome is None:
            error = _timeout_error(timeout_s, state, log)
        if error is not None:
            raise CaptureError(_scrub(str(error), state.secrets), hint=error.hint)

    assert outcome is not None
    pages, handshake, protocol_version, first_page = outcome
    try:
        tools = check_tools([tool for page in pages for tool in page["tools"]], "tools/list")
    except InputError as exc:
        raise CaptureError(_scrub(str(exc), state.secrets)) from None
    return Snapshot(
        label=label,
        tools=tools,
        server=_server_info(handshake, first_page),
        protocol_version=protocol_version,
        capabilities=dict(handshake.get("capabilities") or {}) if isinstance(handshake.get("capabilities"), dict) else {},
        transport=target.transport,
        meta={
            "captured_at": captured_at,
            "duration_s": round(time.monotonic() - started, 3),
            "sdk_version": _sdk_version(),
            "schema_audit_version": __version__,
            "pages": len(pages),
            "instructions_present": isinstance(handshake.get("instructions"), str) and bool(handshake["instructions"]),
        },
    )


async def _session(
    target: CaptureTarget, protocol: str, timeout_s: float, max_pages: int, state: _State, log: _WireLog
) -> tuple[list[dict[str, Any]], dict[str, Any], str | None, dict[str, Any]]:
    """Open the transport and the SDK client, walk every page; return (pages, handshake, version, page 1)."""
    from mcp import Client
    from mcp.types import Implementation

    async with contextlib.AsyncExitStack() as stack:
        transport = await _open_transport(target, timeout_s, state, stack)
        state.stage = "the handshake"
        client = Client(
            _tapped(transport, log),
            mode=protocol,
            cache=None,
            read_timeout_seconds=timeout_s,
            client_info=Implementation(name="schema-audit", version=__version__),
        )
        async with client:
            session = client.session
            handshake: dict[str, Any] = {}
            if session.initialize_result is not None:
                handshake = _last(log.results("initialize"))
            elif protocol == "auto":
                handshake = _last(log.results("server/discover"))
            else:
                handshake = await _discover_pinned(session, log)
            version = client.protocol_version
            pages = await _walk_pages(session, log, version, max_pages, state)
    return pages, handshake, version, pages[0] if pages else {}


async def _open_transport(target: CaptureTarget, timeout_s: float, state: _State, stack: contextlib.AsyncExitStack) -> Any:
    """The SDK transport context manager for ``target`` (not entered); HTTP clients go on ``stack``."""
    if target.transport == "stdio":
        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client

        if target.cwd is not None and not os.path.isdir(target.cwd):
            raise CaptureError(f"working directory not found: {target.cwd}")
        params = StdioServerParameters(
            command=target.command[0], args=list(target.command[1:]), env=dict(target.env) or None, cwd=target.cwd
        )
        transport = stdio_client(params, errlog=state.errlog.writer if state.errlog else None)  # type: ignore[arg-type]
        return _tracked(transport, state.tree) if state.tree is not None else transport

    import httpx2

    async def on_response(response: Any) -> None:
        if target.transport == "http" and response.request.method != "POST":
            return  # the optional GET stream and the closing DELETE may be refused (405): not a failure
        if response.status_code >= 400:
            state.http_error = f"HTTP {response.status_code} {response.reason_phrase}".strip()
        else:
            state.http_error = None

    http_timeout = httpx2.Timeout(min(30.0, timeout_s), read=timeout_s)
    url, headers = connect_url_and_headers(target.url or "", target.headers)
    if target.transport == "http":
        from mcp.client.streamable_http import streamable_http_client

        http = await stack.enter_async_context(
            httpx2.AsyncClient(headers=headers, timeout=http_timeout, event_hooks={"response": [on_response]})
        )
        return streamable_http_client(url, http_client=http)

    from mcp.client.sse import sse_client

    def client_factory(headers: dict[str, str] | None = None, timeout: Any = None, auth: Any = None) -> Any:
        return httpx2.AsyncClient(
            headers=headers, timeout=timeout or http_timeout, auth=auth, event_hooks={"response": [on_response]}
        )

    return sse_client(
        url,
        headers=headers,
        timeout=min(30.0, timeout_s),
        sse_read_timeout=timeout_s,
        httpx_client_factory=client_factory,
    )


async def _discover_pinned(session: Any, log: _WireLog) -> dict[str, Any]:
    """With a pinned version the SDK sends no handshake; ask ``server/discover`` once for identity.

    The answer is optional: an error leaves capabilities and server info empty.
    """
    from mcp.shared.exceptions import MCPError

    mark = len(log.replies)
    try:
        await session.send_discover(session.protocol_version)
    except MCPError:
        return {}
    return _last(log.results("server/discover", mark))


async def _walk_pages(session: Any, log: _WireLog, version: str | None, max_pages: int, state: _State) -> list[dict[str, Any]]:
    """Send ``tools/list`` until the raw result has no ``nextCursor``; return the raw results in order."""
    from mcp.types import ListToolsRequest, ListToolsResult, PaginatedRequestParams
    from mcp.types.version import MODERN_PROTOCOL_VERSIONS
    from pydantic import ValidationError

    modern = version in MODERN_PROTOCOL_VERSIONS  # no-handshake era: an empty cursor is a cursor
    pages: list[dict[str, Any]] = []
    seen: set[str] = set()
    cursor: str | None = None
    while True:
        if len(pages) >= max_pages:
            raise CaptureError(f"server has more than {max_pages} pages of tools/list (the page limit)")
        number = len(pages) + 1
        state.stage = f"tools/list (page {number})"
        mark = len(log.replies)
        request = ListToolsRequest(params=PaginatedRequestParams(cursor=cursor) if cursor is not None else None)
        try:
            await session.send_request(request, ListToolsResult)
        except ValidationError:
            # The SDK's wire model rejected the page (e.g. one tool's inputSchema has no "type").
            # The raw result was recorded by the tap before parsing: keep it as sent.
            if not log.results("tools/list", mark):
                raise
        raw = _last(log.results("tools/list", mark))
        if not isinstance(raw.get("tools"), list):
            raise CaptureError(f"tools/list page {number} has no 'tools' list")
        pages.append(raw)
        next_cursor = raw.get("nextCursor")
        if next_cursor is None or (next_cursor == "" and not modern):
            # Before 2026-07-28 an empty cursor is read as the end (as most clients do); from
            # 2026-07-28 on it is a valid cursor.
            return pages
        if not isinstance(next_cursor, str):
            raise CaptureError(f"tools/list page {number} has a nextCursor that is not a string")
        if next_cursor in seen or next_cursor == cursor:
            raise CaptureError(f"server repeated cursor {_short(next_cursor)} on tools/list page {number}: paging would never end")
        seen.add(next_cursor)
        cursor = next_cursor


def _last(results: list[dict[str, Any]]) -> dict[str, Any]:
    return results[-1] if results else {}


def _server_info(handshake: dict[str, Any], first_page: dict[str, Any]) -> dict[str, Any]:
    """``{name, title, version}`` from ``serverInfo`` (handshake) or the 2026 ``_meta`` stamp."""
    candidates = [handshake.get("serverInfo")]
    for holder in (handshake, first_page):
        meta = holder.get("_meta")
        if isinstance(meta, dict):
            candidates.append(meta.get(SERVER_INFO_META_KEY))
    for info in candidates:
        if isinstance(info, dict):
            return {k: info[k] for k in ("name", "title", "version") if isinstance(info.get(k), str)}
    return {}


def _sdk_version() -> str | None:
    try:
        return importlib.metadata.version("mcp")
    except importlib.metadata.PackageNotFoundError:
        return None


# ---- errors -----------------------------------------------------------------------------------


def _is_group(exc: BaseException) -> bool:
    return isinstance(getattr(exc, "exceptions", None), (list, tuple)) and isinstance(exc, BaseException) and type(exc).__name__.endswith("ExceptionGroup")


def _leaves(exc: BaseException) -> Iterator[BaseException]:
    """The non-group exceptions inside ``exc`` (nested ``ExceptionGroup``s flattened), in order."""
    if _is_group(exc):
        for inner in exc.exceptions:  # type: ignore[attr-defined]
            yield from _leaves(inner)
    else:
        yield exc


def _explain(exc: BaseException, state: _State) -> CaptureError:
    """Turn whatever the SDK raised into one readable ``CaptureError``."""
    import httpx2
    from mcp.shared.exceptions import MCPError
    from pydantic import ValidationError

    leaves = [leaf for leaf in _leaves(exc) if isinstance(leaf, Exception)]
    if not leaves:
        raise exc
    for leaf in leaves:
        if isinstance(leaf, CaptureError):
            return leaf
    for leaf in leaves:
        if isinstance(leaf, FileNotFoundError) and state.target.transport == "stdio":
            return CaptureError(f"command not found: {state.target.command[0]}")
        if isinstance(leaf, PermissionError) and state.target.transport == "stdio":
            return CaptureError(f"command not executable: {state.target.command[0]}")
    url = state.where()
    for leaf in leaves:
        if isinstance(leaf, httpx2.HTTPStatusError):
            response = leaf.response
            return CaptureError(f"HTTP {response.status_code} {response.reason_phrase} from {url}".replace("  ", " "))
    if state.http_error is not None and state.target.transport != "stdio":
        return CaptureError(f"{state.http_error} from {url} during {state.stage}", hint=_http_hint(state.http_error))
    for leaf in leaves:
        if isinstance(leaf, httpx2.ConnectError):
            return CaptureError(f"cannot connect to {url}: {_first_line(leaf) or 'connection failed'}")
        if isinstance(leaf, httpx2.TimeoutException):
            return CaptureError(f"HTTP timeout talking to {url} during {state.stage}")
        if isinstance(leaf, httpx2.HTTPError):
            return CaptureError(f"HTTP error talking to {url} during {state.stage}: {_first_line(leaf) or type(leaf).__name__}")
    tail = _stderr_tail(state)
    for leaf in leaves:
        if isinstance(leaf, MCPError):
            if leaf.code == -32000:  # the SDK's CONNECTION_CLOSED: the server went away
                if state.target.transport == "stdio":
                    what = "server exited during the handshake" if state.stage == "the handshake" else f"server exited during {state.stage}"
                    return CaptureError(f"{what}: {tail or '(no stderr output)'}")
                return CaptureError(f"server closed the connection during {state.stage} ({url})")
            if leaf.code == -32001:  # the SDK's REQUEST_TIMEOUT
                return CaptureError(f"no answer during {state.stage}: {leaf.message}" + (f" | stderr: {tail}" if tail else ""))
            hint = "the server may not speak 2026-07-28; try --protocol auto" if state.protocol == "2026-07-28" else None
            return CaptureError(f"{state.stage} failed: JSON-RPC error {leaf.code}: {_clip(_oneline(leaf.message))}",
                                hint=hint)
    for leaf in leaves:
        if isinstance(leaf, ValidationError):
            return CaptureError(
                f"the server's answer during {state.stage} is not valid MCP ({leaf.error_count()} validation errors)"
            )
    for leaf in leaves:
        if isinstance(leaf, RuntimeError) and "protocol version" in str(leaf).lower():
            return CaptureError(f"protocol negotiation failed: {_first_line(leaf)}")
    leaf = leaves[0]
    detail = _first_line(leaf) or type(leaf).__name__
    suffix = f" | stderr: {tail}" if tail else ""
    return CaptureError(f"capture failed during {state.stage}: {type(leaf).__name__}: {detail}{suffix}")


def _timeout_error(timeout_s: float, state: _State, log: _WireLog | None = None) -> CaptureError:
    message = f"timed out after {timeout_s:g} s during {state.stage}"
    if state.target.transport != "stdio":
        message += f" ({state.where()})"
    if log is not None and log.unparsable:
        message += f"; the server sent {log.unparsable} message(s) that are not JSON-RPC"
        if state.target.transport == "stdio":
            message += " (stdout must carry only JSON-RPC: does it log to stdout?)"
    tail = _stderr_tail(state)
    if tail:
        message += f"; server stderr: {tail}"
    hint = None
    if state.stage == "the handshake" and state.protocol == "auto":
        hint = "a legacy server that ignores server/discover costs a 10 s probe in auto mode; try --protocol legacy"
    return CaptureError(message, hint=hint)


def _http_hint(status_line: str) -> str | None:
    if status_line.startswith(("HTTP 401", "HTTP 403")):
        return "pass credentials with --header"
    if status_line.startswith("HTTP 404"):
        return "check the endpoint path (Streamable HTTP servers usually serve /mcp)"
    return None


def _stderr_tail(state: _State) -> str:
    """The server's last stderr lines (at most 5, each trimmed), joined with ``" | "``; ``""`` if none."""
    errlog = state.errlog
    if errlog is None:
        return ""
    text = errlog.tail().decode("utf-8", errors="replace")
    lines = []
    for line in text.splitlines():
        line = " ".join(_ANSI_RE.sub("", line).split())
        line = "".join(ch for ch in line if ch.isprintable())
        if line:
            lines.append(line if len(line) <= _STDERR_LINE_CHARS else line[: _STDERR_LINE_CHARS - 1] + "…")
    return " | ".join(lines[-_STDERR_TAIL_LINES:])


def _secrets_of(target: CaptureTarget) -> list[str]:
    """Values that must never appear in a message: env and header values (and their parts), URL secrets."""
    values: list[str] = []
    derived = connect_url_and_headers(target.url, target.headers)[1] if target.url else {}
    for value in [*target.env.values(), *target.headers.values(), *derived.values()]:
        values.append(value)
        values.extend(value.split()[1:])  # "Bearer <token>" → also the token alone
    if target.url:
        try:
            parts = urlsplit(target.url)
            values.extend(v for v in (parts.username, parts.password) if v)
            values.extend(v for _, v in parse_qsl(parts.query, keep_blank_values=True))
        except ValueError:
            pass
    unique = {v for v in values if len(v) >= _MIN_SECRET_LEN}
    return sorted(unique, key=len, reverse=True)


def _scrub(message: str, secrets: list[str]) -> str:
    for secret in secrets:
        message = message.replace(secret, "***")
    return _oneline(message)


def _oneline(text: str) -> str:
    return " ".join(str(text).split())


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return _clip(_oneline(text.splitlines()[0])) if text else ""


def _clip(text: str, limit: int = _MESSAGE_CHARS) -> str:
    """``text`` cut to ``limit`` characters (server-provided text in our one-line errors)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _short(value: str, limit: int = 60) -> str:
    return repr(value) if len(value) <= limit else repr(value[:limit]) + "…"
