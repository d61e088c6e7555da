"""Shared test helpers: repository paths, free ports, and real server subprocesses on 127.0.0.1."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Property tests draw the same examples on every run (a CI run never fails on a draw no one can replay);
# SCHEMA_AUDIT_PBT_RANDOM=1 draws fresh ones, to explore (as tests/test_property_crosscheck.py does).
# No wall-clock limit on an example or on generating one (hypothesis' default deadline of 200 ms and its too_slow
# health check): on a busy machine they fail for the load, not for the code (tests/timing.py).
_NO_WALL_CLOCK = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("deterministic", derandomize=True, database=None, **_NO_WALL_CLOCK)
settings.register_profile("random", derandomize=False, **_NO_WALL_CLOCK)
settings.load_profile("random" if os.environ.get("SCHEMA_AUDIT_PBT_RANDOM", "") not in ("", "0") else "deterministic")

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # the package is importable from a checkout without installing it
    sys.path.insert(0, str(ROOT))

SERVERS = ROOT / "tests" / "servers"
DEMO_MAIL_SERVER = ROOT / "fixtures" / "demo_server" / "mail_server.py"
PYTHON = sys.executable


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class ServerProcess:
    """A server subprocess listening on ``127.0.0.1:port``; ``log`` holds its stdout+stderr."""

    process: subprocess.Popen[bytes]
    port: int
    log: Path

    def url(self, path: str = "/mcp") -> str:
        """``http://127.0.0.1:<port><path>``."""
        return f"http://127.0.0.1:{self.port}{path}"

    def output(self) -> str:
        """Everything the server wrote so far."""
        return self.log.read_text(encoding="utf-8", errors="replace")

    def stop(self) -> None:
        """Terminate (then kill after 5 s) this process only."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)


def start_http_server(
    args: list[str], port: int, *, env: dict[str, str] | None = None, ready_timeout_s: float = 60.0
) -> ServerProcess:
    """Start ``args`` (which must make the server listen on 127.0.0.1:``port``) and wait until it
    accepts TCP connections. Raises ``RuntimeError`` (with the server's output) if it exits first or
    is not ready within ``ready_timeout_s`` seconds."""
    fd, name = tempfile.mkstemp(prefix="schema-audit-server-", suffix=".log")
    log = Path(name)
    with os.fdopen(fd, "wb") as out:
        process = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})}
        )
    server = ServerProcess(process, port, log)
    deadline = time.monotonic() + ready_timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode} before listening: {server.output()[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return server
        except OSError:
            time.sleep(0.05)
    server.stop()
    raise RuntimeError(f"server not listening on 127.0.0.1:{port} after {ready_timeout_s} s: {server.output()[-2000:]}")


@pytest.fixture()
def at_repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """The repository root as the working directory: sources are repository-relative paths, as in a CI
    checkout (and stable in golden files)."""
    monkeypatch.chdir(ROOT)


@pytest.fixture(scope="session")
def http_server_factory() -> Iterator[Callable[..., ServerProcess]]:
    """``factory(args_without_port_fn)``: start servers for the session, stop them all at the end.

    Call as ``factory(lambda port: [PYTHON, script, "--http", str(port)])``.
    """
    started: list[ServerProcess] = []

    def factory(make_args: Callable[[int], list[str]], *, env: dict[str, str] | None = None) -> ServerProcess:
        port = free_port()
        server = start_http_server(make_args(port), port, env=env)
        started.append(server)
        return server

    yield factory
    for server in started:
        server.stop()
        server.log.unlink(missing_ok=True)
