"""Hostile HTTP endpoints and secrets through the real CLI: exit 3 with one line for each broken endpoint;
headers, URL credentials and ``--env`` values never reach a snapshot file, a report or an error line.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import DEMO_MAIL_SERVER, PYTHON
from hostile_cli import (
    CANARY,
    CANARY_2,
    SHUTDOWN_GRACE_S,
    HostileHTTPServer,
    Run,
    assert_clean_failure,
    cli,
    stdio_server,
)
from timing import until_reached

pytestmark = pytest.mark.timing  # bounds on time (``hostile_cli``): run by scripts/under_load.py

HTTP_CASES = {
    "/status/401": r"HTTP 401 Unauthorized",
    "/status/404": r"HTTP 404 Not Found",
    "/status/500": r"HTTP 500 Internal Server Error",
    "/html": r"text/html|not valid MCP|content type",
    "/json-garbage": r"JSON|content type|not valid MCP",
    "/stream": r"timed out after {t} s",
    "/silent": r"timed out after {t} s",
    "/huge": r"not valid MCP|content type|timed out|too large",
}
#: The endpoints that never answer: the run ends at its deadline.
HANGING = {"/stream", "/silent"}


@pytest.fixture(scope="module")
def hostile_http() -> Iterator[HostileHTTPServer]:
    with HostileHTTPServer() as srv:
        yield srv


@pytest.mark.live
@pytest.mark.parametrize("transport", ["--url", "--sse"])
@pytest.mark.parametrize("path", list(HTTP_CASES))
def test_hostile_http_endpoint(path: str, transport: str, hostile_http: HostileHTTPServer, tmp_path: Path) -> None:
    url = hostile_http.url(path).replace("http://", f"http://user:{CANARY}@") + f"?token={CANARY}"

    def attempt(t: float) -> tuple[Run, list[dict[str, Any]]]:
        before = len(hostile_http.requests)
        run = cli(
            "snapshot",
            "--protocol",
            "legacy",
            "--timeout",
            f"{t:g}",
            "--out",
            str(tmp_path / "s.json"),
            transport,
            url,
            "-H",
            f"Authorization: Bearer {CANARY}",
            "--header-env",
            "X-Api-Key=SA_TEST_KEY",
            cwd=tmp_path,
            env={"SA_TEST_KEY": CANARY_2},
        )
        return run, [r for r in hostile_http.requests[before:] if r["path"].split("?")[0] == path]

    def reached(outcome: tuple[Run, list[dict[str, Any]]]) -> bool:
        run, sent = outcome  # an endpoint that answers must have answered before the deadline
        return bool(sent) and (path in HANGING or path == "/huge" or "timed out after" not in run.stderr)

    (run, sent), timeout = until_reached(attempt, reached, 4)
    line = assert_clean_failure(run, 3, HTTP_CASES[path].replace("{t}", f"{timeout:g}"))
    assert len(line) < 1000
    since = timeout if path in HANGING else 0.0  # a hanging endpoint: the end is the deadline
    assert run.timing.unloaded(since) < timeout + SHUTDOWN_GRACE_S, run.timing.describe(since)
    for secret in (CANARY, CANARY_2):
        assert secret not in run.stdout + run.stderr
    # the explicit --header wins over the URL's user:password
    assert all(r["headers"].get("Authorization") == f"Bearer {CANARY}" for r in sent), sent[0]["headers"]
    assert all(r["headers"].get("X-Api-Key") == CANARY_2 for r in sent)


@pytest.mark.live
def test_url_credentials_become_basic_auth_and_never_show(hostile_http: HostileHTTPServer, tmp_path: Path) -> None:
    import base64

    url = hostile_http.url("/status/401").replace("http://", f"http://{CANARY_2}:{CANARY}@")
    run = cli(
        "snapshot",
        "--protocol",
        "legacy",
        "--timeout",
        "30",  # ends at the answer: the deadline only has to outlast the CLI's start-up on a busy machine
        "--out",
        str(tmp_path / "s.json"),
        "--url",
        url,
        cwd=tmp_path,
    )
    assert_clean_failure(run, 3, r"HTTP 401 Unauthorized from http://127\.0\.0\.1:\d+/status/401 ")
    basic = "Basic " + base64.b64encode(f"{CANARY_2}:{CANARY}".encode()).decode()
    assert [r["headers"].get("Authorization") for r in hostile_http.requests if r["path"] == "/status/401"][-1] == basic
    for secret in (CANARY, CANARY_2, basic.split()[1]):
        assert secret not in run.stdout + run.stderr


# ---- secrets never leave: snapshot files, reports, errors ----------------------------------------


@pytest.mark.live
def test_stdio_env_values_never_stored_or_printed(tmp_path: Path) -> None:
    store = tmp_path / "store"
    run = cli(
        "snapshot",
        "--label",
        "env",
        "--store",
        str(store),
        "--protocol",
        "legacy",
        "--timeout",
        "20",
        "-e",
        f"SECRET_TOKEN={CANARY}",
        *stdio_server("echo-env"),
        cwd=tmp_path,
    )
    assert run.code == 0, run.stderr
    snap_text = (store / "snapshots" / "env.json").read_text()
    assert CANARY not in snap_text and "SECRET_TOKEN" not in snap_text
    assert CANARY not in run.stdout + run.stderr
    diff = cli("diff", "env", "env", "--store", str(store), "--format", "json", cwd=tmp_path)
    assert diff.code == 0 and CANARY not in diff.stdout + diff.stderr
    # a crashing server that prints the token: the error quotes its stderr, not the token
    run = cli(
        "snapshot",
        "--label",
        "crash",
        "--store",
        str(store),
        "--protocol",
        "legacy",
        "--timeout",
        "20",
        "-e",
        f"SECRET_TOKEN={CANARY}",
        *stdio_server("exit-handshake"),
        cwd=tmp_path,
    )
    line = assert_clean_failure(run, 3, r"\(token \*\*\*\)")
    assert CANARY not in line + run.stdout + run.stderr


@pytest.mark.live
def test_http_headers_and_url_credentials_never_stored_or_printed(http_server_factory: Any, tmp_path: Path) -> None:
    server = http_server_factory(lambda port: [PYTHON, str(DEMO_MAIL_SERVER), "--version", "2", "--http", str(port)])
    url = server.url("/mcp").replace("http://", f"http://{CANARY_2}:{CANARY}@") + f"?key={CANARY}"
    store = tmp_path / "store"
    run = cli(
        "snapshot",
        "--label",
        "h",
        "--store",
        str(store),
        "--url",
        url,
        "--timeout",
        "30",
        "-H",
        f"Authorization: Bearer {CANARY}",
        "--header-env",
        "X-Api-Key=SA_TEST_KEY",
        cwd=tmp_path,
        env={"SA_TEST_KEY": CANARY_2},
    )
    assert run.code == 0, run.stderr
    snap_text = (store / "snapshots" / "h.json").read_text()
    for secret in (CANARY, CANARY_2, str(server.port)):
        assert secret not in snap_text
    for secret in (CANARY, CANARY_2):
        assert secret not in run.stdout + run.stderr
    report = cli("diff", "h", "h", "--store", str(store), "--format", "json", cwd=tmp_path)
    assert report.code == 0 and CANARY not in report.stdout + report.stderr
