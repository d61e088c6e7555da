"""The HTML report (``--format html``) in a real headless browser: Debian's ``chromium`` driven by playwright.

Each page is written by the command line (``diff`` of the seed, ``history`` with its cohort matrix, ``lint`` and
``diff`` with ``--host`` for the portability matrix) and opened from its file (``file://``). It must render (its
headings and a finding's witness visible), give a non-empty screenshot, log nothing on the console (no error,
no warning), raise no page error and make no request but the file itself: every request is routed through the
test, recorded, and any other than the file aborted. A last test adds remote markup to a page and checks that
the page's Content-Security-Policy stops the browser before any request.

Without chromium (or playwright) the module is skipped, saying why; with ``SCHEMA_AUDIT_REQUIRE_BROWSER=1`` (CI's
``.ci/run`` sets it and installs chromium) it fails instead. ``SCHEMA_AUDIT_CHROMIUM`` names another binary.
One browser serves the whole module.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "fixtures" / "seed"
#: Flags for a quiet, offline headless chromium: nothing of its own (updates, sync, safe browsing lists, QUIC
#: probes) may show up as a request or a console message of the page.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
REQUIRE = os.environ.get("SCHEMA_AUDIT_REQUIRE_BROWSER", "") not in ("", "0")


def _chromium() -> str | None:
    named = os.environ.get("SCHEMA_AUDIT_CHROMIUM")
    if named:
        return named
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _unavailable(why: str) -> None:
    if REQUIRE:
        pytest.fail(f"{why} (SCHEMA_AUDIT_REQUIRE_BROWSER=1: the browser test must run)", pytrace=False)
    pytest.skip(why)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed (pip install -e '.[test]')")
    executable = _chromium()
    if executable is None or not Path(executable).is_file():
        _unavailable("no chromium binary (Debian: apt-get install chromium; or set SCHEMA_AUDIT_CHROMIUM)")
    assert executable is not None
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


def _cli(tmp_path: Path, name: str, *args: str) -> Path:
    """``schema-audit ARGS --format html`` run as a process, its page written to ``tmp_path/name``."""
    proc = subprocess.run(
        [sys.executable, "-m", "mcp_schema_audit", *args, "--format", "html"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )
    assert proc.returncode in (0, 1), proc.stderr
    path = tmp_path / name
    path.write_text(proc.stdout, encoding="utf-8")
    return path


@dataclass
class Visit:
    """What the browser did with one page: every request but the file (``requests``: routed; ``seen``: any the
    page made; ``failed``: url → why it failed), the console messages (``console``: type and text), the page
    errors, the screenshot's file."""

    page: Any
    requests: list[str] = field(default_factory=list)
    seen: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    console: list[tuple[str, str]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    screenshot: Path | None = None


@contextlib.contextmanager
def _open(browser: Any, path: Path, tmp_path: Path) -> Iterator[Visit]:
    """The page of ``path`` opened from its file, every request routed (the file continues, any other is
    recorded and aborted) and every request the page makes recorded besides, loaded and screenshot whole."""
    context = browser.new_context(viewport={"width": 1200, "height": 900}, java_script_enabled=True)
    page = context.new_page()
    page.set_default_timeout(30_000)
    visit = Visit(page)
    url = path.as_uri()

    def route(r: Any) -> None:
        if r.request.url == url:
            r.continue_()
        else:
            visit.requests.append(r.request.url)
            r.abort()

    context.route("**/*", route)
    page.on("request", lambda req: None if req.url == url else visit.seen.append(req.url))
    page.on("requestfailed", lambda req: visit.failed.__setitem__(req.url, req.failure or ""))
    page.on("console", lambda m: visit.console.append((m.type, m.text)))
    page.on("pageerror", lambda e: visit.errors.append(str(e)))
    try:
        page.goto(url, wait_until="load")
        page.wait_for_load_state("networkidle")
        shot = tmp_path / f"{path.stem}.png"
        page.screenshot(path=str(shot), full_page=True)
        visit.screenshot = shot
        yield visit
    finally:
        context.close()


def _clean(visit: Visit) -> None:
    """No request left the file, nothing on the console, no page error, a real screenshot."""
    assert visit.requests == [] and visit.seen == [] and visit.failed == {}, (visit.requests, visit.seen)
    assert [m for m in visit.console if m[0] in ("error", "warning")] == [], visit.console
    assert visit.console == [], visit.console  # the page runs no script: the browser has nothing to say either
    assert visit.errors == [], visit.errors
    assert visit.screenshot is not None
    png = visit.screenshot.read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 20_000, len(png)  # a blank page is a few KB
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert width == 1200 and height > 900, (width, height)  # the whole page, longer than one screen


def test_the_seed_diff_renders_offline_with_its_witnesses(browser: Any, tmp_path: Path):
    path = _cli(tmp_path, "seed.html", "diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"))
    assert path.stat().st_size < 60_000
    with _open(browser, path, tmp_path) as visit:
        page = visit.page
        assert page.title() == "schema-audit diff: 0.2.5 → 0.2.6"
        for heading in ("Summary", "Findings by tool (14)"):
            assert page.get_by_role("heading", name=heading).is_visible(), heading
        assert page.locator(".verdict.failed").inner_text() == "Gate failed (fail-on: breaking)"
        counts = page.locator("table.counts td").all_inner_texts()
        assert counts == ["13", "0", "1", "0"]
        # findings by tool: one section per tool, headed by its name, each finding with severity and rule
        assert page.locator("section.subject").count() == 7
        assert page.locator("section.subject h3 code").first.inner_text() == "add_recipients"
        assert page.locator("article.finding.breaking").count() == 13
        first = page.locator("article.finding").first
        assert "output-property-added-to-closed-object" in first.inner_text()
        # a breaking finding's witness is open and shown: the instance, who rejects it, the host's error, the fix
        witness = first.locator("details.witness")
        assert witness.locator("pre").is_visible()
        assert '"recipients": []' in witness.locator("pre").inner_text()
        assert "rejected by hosts that cached 0.2.5" in witness.locator("summary").inner_text()
        assert "Additional properties are not allowed" in witness.inner_text()
        assert first.locator(".fix").is_visible() and first.locator(".fix").inner_text().startswith("Fix: ")
        # the contents link to each tool's section within the page
        page.get_by_role("link", name="whoami").click()
        assert page.url.endswith("#s7") and visit.requests == []
        _clean(visit)


def test_a_history_shows_its_cohort_matrix(browser: Any, tmp_path: Path):
    against = [x for v in ("0.2.4", "0.2.5", "0.2.6") for x in ("--against", str(SEED / f"{v}.json"))]
    path = _cli(tmp_path, "history.html", "history", str(SEED / "0.2.7.json"), *against)
    with _open(browser, path, tmp_path) as visit:
        page = visit.page
        assert page.get_by_role("heading", name="Cohort matrix").is_visible()
        table = page.locator("table.cohorts")
        assert table.is_visible()
        assert table.locator("tr").first.locator("th").all_inner_texts() == ["tool", "0.2.4", "0.2.5", "0.2.6"]
        rows = table.locator("tr")
        assert rows.count() == 1 + 16  # one row per tool of the seed
        assert rows.nth(1).locator("td").all_inner_texts() == ["add_recipients", "breaking", "breaking", "warning"]
        assert page.locator("td.breaking").first.evaluate("e => getComputedStyle(e).fontWeight") == "600"
        assert page.locator("article.finding.breaking").count() == 10
        assert "affects" in page.locator("article.finding").first.inner_text()
        assert page.locator("details.witness[open] pre").first.is_visible()
        _clean(visit)


@pytest.mark.parametrize("command", ["lint", "diff"])
def test_the_portability_matrix_with_hosts(browser: Any, tmp_path: Path, command: str):
    sides = [str(SEED / "0.2.6.json")] if command == "lint" else [str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json")]
    path = _cli(tmp_path, f"{command}-hosts.html", command, *sides, "--host", "openai-strict", "--host", "gemini")
    with _open(browser, path, tmp_path) as visit:
        page = visit.page
        assert page.get_by_role("heading", name="Portability").is_visible()
        table = page.locator("table.portability")
        assert table.locator("tr").first.locator("th").all_inner_texts() == ["tool", "openai-strict", "gemini"]
        assert table.locator("tr").count() == 1 + 16
        assert table.locator("td.unusable").count() == 16  # gemini refuses every tool of the listing
        assert page.locator("article.finding").count() > 0
        _clean(visit)


def test_the_policy_stops_remote_markup_before_any_request(browser: Any, tmp_path: Path):
    """Defence in depth: were some markup to reach the page, its Content-Security-Policy fetches nothing."""
    path = _cli(tmp_path, "seed.html", "diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"))
    remote = (
        '<img src="https://example.invalid/i.png"><link rel="stylesheet" href="https://example.invalid/s.css">'
        '<script src="https://example.invalid/x.js"></script><script>document.title = "ran"</script>'
        '<iframe src="https://example.invalid/f"></iframe>'
    )
    hostile = tmp_path / "hostile.html"
    hostile.write_text(path.read_text(encoding="utf-8").replace("<body>", "<body>" + remote, 1), encoding="utf-8")
    with _open(browser, hostile, tmp_path) as visit:
        # the browser stops each one itself (failure ``csp``): none reaches the network layer (the route)
        assert visit.requests == [], visit.requests
        assert sorted(visit.seen) == sorted(u for u in visit.failed) and set(visit.failed.values()) == {"csp"}
        remote_urls = {f"https://example.invalid/{x}" for x in ("i.png", "s.css", "x.js", "f")}
        assert "https://example.invalid/i.png" in visit.seen and set(visit.seen) <= remote_urls, visit.seen
        assert visit.page.title() == "schema-audit diff: 0.2.5 → 0.2.6"  # the inline script did not run
        refused = [text for kind, text in visit.console if kind == "error"]
        assert refused and all("Content Security Policy" in text for text in refused), visit.console
