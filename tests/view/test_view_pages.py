"""`graphiti-sessions view` as a person uses it: real transcripts ingested into a real FalkorDB
Lite file, the real command serving them in its own process, a real headless Chromium (Debian's,
through Playwright) reading every page. Screenshots go to tests/view/screenshots/ to look at."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import FIXTURES, TRANSCRIPTS, cli

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = Path(__file__).parent / "screenshots"
CODEX_ERRORS = (
    FIXTURES / "codex" / "agentcmd__rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl"
)
LATER = "01997e76-d124-7592-9cac-2ec05abbca08"  # its errors were hit before, in EARLIER
EARLIER = "01997e76-0000-7592-9cac-2ec05abbca08"
RUST_PORT = "c7d3d95c-57f0-4359-8f4b-926a9bef5a3f"  # a decision, a setting changed, a commit

needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="no /usr/bin/chromium (scripts/ensure-chromium installs it; make test runs it)",
)


@dataclass
class Served:
    url: str  # the first line the command printed: the page with its token
    base: str
    db: Path
    process: subprocess.Popen[str]


@pytest.fixture(scope="module")
def graph_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Claude Code fixtures, and one Codex session whose errors an earlier copy of it (ten days
    before, another session id) already hit: the graph links them with SEEN_BEFORE."""
    folder = tmp_path_factory.mktemp("view")
    earlier = folder / "transcripts" / "agentcmd__rollout-earlier.jsonl"
    earlier.parent.mkdir()
    text = CODEX_ERRORS.read_text(encoding="utf-8").replace(LATER, EARLIER)
    earlier.write_text(re.sub(r"2025-09-2([45])T", r"2025-09-1\1T", text), encoding="utf-8")
    db = folder / "graph" / "sessions.falkordb"
    done = cli("ingest", str(TRANSCRIPTS), str(CODEX_ERRORS), str(earlier), "--json", "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["ingested"] == 9
    return db


@pytest.fixture(scope="module")
def served(graph_db: Path) -> Iterator[Served]:
    """`graphiti-sessions view --no-open` in its own process, on a free port."""
    process = subprocess.Popen(
        [sys.executable, "-m", "graphiti_session_tracking", "view", "--no-open", "--db", str(graph_db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "GRAPHITI_SESSIONS_SERVER_IDLE_S": "0"},
    )
    first: list[str] = []
    reader = threading.Thread(
        target=lambda: first.append(process.stdout.readline() if process.stdout else "")
    )
    reader.start()
    reader.join(60)
    try:
        assert first and first[0].startswith("http://127.0.0.1:"), (first, process.poll())
        url = first[0].strip()
        base = url.split("/?token=")[0]
        _wait_until_serving(base)
        yield Served(url, base, graph_db, process)
    finally:
        process.terminate()
        process.wait(30)


def _wait_until_serving(base: str) -> None:
    for _ in range(120):
        try:
            httpx.get(base + "/", timeout=5)
            return
        except httpx.TransportError:
            threading.Event().wait(0.5)
    raise AssertionError(f"{base} never answered")


def test_the_first_line_is_the_url_with_a_fresh_token(served: Served) -> None:
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/\?token=[A-Za-z0-9_-]{40,}", served.url)


def test_a_request_without_the_token_is_refused(served: Served) -> None:
    for path in ("/", "/search?q=gitignore", f"/session/x/{LATER}", "/static/view.css"):
        assert httpx.get(served.base + path).status_code == 403
    assert httpx.get(served.base + "/?token=wrong").status_code == 403
    assert httpx.get(served.base + "/", cookies={"graphiti_view_1": "wrong"}).status_code == 403
    # The token once: a cookie for the rest, and the page again without the token in its URL.
    with httpx.Client() as browser:
        answer = browser.get(served.url)
        assert answer.status_code == 303 and answer.headers["location"] == "/"
        assert (
            "HttpOnly" in answer.headers["set-cookie"] and "SameSite=strict" in answer.headers["set-cookie"]
        )
        assert browser.get(served.base + "/").status_code == 200
    # A name that is not this machine's (DNS rebinding) is refused, token or not.
    assert httpx.get(served.url, headers={"Host": "attacker.example"}).status_code == 400


def test_what_is_not_there_is_a_page_that_says_so(served: Served) -> None:
    with httpx.Client(base_url=served.base) as browser:
        browser.get(served.url)
        for path, said in (
            ("/session/nosuchproject_1a2b3c4d/ffffffff", "no session ffffffff"),
            ("/project/nosuchproject_1a2b3c4d", "no project nosuchproject_1a2b3c4d"),
            ("/project/not a group!", "not a group"),
            ("/file/nosuchproject_1a2b3c4d?path=x.py", "no project"),
        ):
            answer = browser.get(path)
            assert answer.status_code == 404 and said in answer.text, (path, answer.text)


@needs_chromium
def test_every_page_in_a_real_browser(served: Served) -> None:
    from playwright.sync_api import sync_playwright

    before = _records(served.db)
    SCREENSHOTS.mkdir(exist_ok=True)
    print(f"\nscreenshots of the web view: {SCREENSHOTS}")
    problems: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on(
            "console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None
        )
        page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
        try:
            _walk(page, served)
        finally:
            browser.close()
    assert problems == []
    assert _records(served.db) == before  # nothing written


def _walk(page: Any, served: Served) -> None:
    def shot(name: str) -> None:
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)

    # Projects, from the printed URL (its token becomes a cookie, and leaves the address bar).
    page.goto(served.url)
    assert page.url == served.base + "/"
    assert page.locator("table tbody tr").count() == 8  # 7 Claude Code projects and the Codex one
    shot("projects")

    # A project's timeline, newest first.
    page.get_by_role("link", name=re.compile("spectora-labs-monorepo-v2")).click()
    rows = page.locator("table.timeline tbody tr")
    assert rows.count() == 2
    assert "codex" in rows.nth(0).inner_text() and "48 min" in rows.nth(0).inner_text()
    assert rows.nth(0).locator("td").first.inner_text() > rows.nth(1).locator("td").first.inner_text()
    shot("project-timeline")

    # A session whose errors were hit before: the link leads to the earlier session.
    rows.nth(0).locator("td.objective a").click()
    assert "Updating a team" in page.locator(".objective-big").inner_text()
    _chart_drawn(page)
    errors = page.locator("#errors li.error")
    assert errors.count() == 3  # the TypeScript errors; a quoting slip is no error
    # Graph text is escaped: a TypeScript generic is shown as text, never parsed as a tag.
    assert "NonNullable<NoInfer<TQueryFnData>>" in page.locator("#errors").inner_text()
    seen = page.locator(f'#errors .seen a[href$="/{EARLIER}"]')
    assert seen.count() == 3
    assert page.locator("#files li").count() == 8
    assert "Recap of the last session" in page.locator("pre.recap").inner_text()
    shot("session-errors-seen-before")
    seen.first.click()
    assert page.url.endswith(EARLIER)

    # A file: its errors over time, from both sessions.
    page.locator("#files a", has_text="dashboard/page.tsx").click()
    assert page.locator("h1").inner_text().endswith("dashboard/page.tsx")
    assert page.locator("#errors li.error").count() == 6
    assert "hit 2 times" in page.locator("#errors").inner_text()
    shot("file")

    # A session with a decision, a setting changed (old -> new) and a commit.
    group = _group_of(page, served, RUST_PORT)
    page.goto(f"{served.base}/session/{group}/{RUST_PORT}")
    assert "Used Result<T, E> instead of raising exceptions" in page.locator("#decisions").inner_text()
    settings = page.locator("#settings").inner_text()
    assert "lints.rust.missing_docs" in settings and "(unset) → warn" in settings
    assert "Port Python utility library to Rust" in page.locator("#commits").inner_text()
    _chart_drawn(page)
    shot("session-decisions-settings")
    page.locator("#settings a", has_text="Cargo.toml").click()
    assert "lints.rust.missing_docs" in page.locator("#settings").inner_text()
    shot("file-settings-history")

    # Search from the box on any page: here within the project first (nothing), then everywhere.
    page.fill("input[name=q]", "gitignore")
    page.press("input[name=q]", "Enter")
    assert "Nothing found for" in page.locator("main").inner_text()
    page.uncheck("input[name=group]")
    page.fill("input[name=q]", "gitignore")
    page.press("input[name=q]", "Enter")
    assert page.url.startswith(served.base + "/search?q=gitignore")
    hits = page.locator("table.hits tbody tr")
    assert hits.count() >= 1
    assert ".gitignore" in page.locator("table.hits").inner_text()
    shot("search")
    page.locator("table.hits a", has_text=".gitignore").first.click()
    assert page.locator("h1").inner_text() == ".gitignore"


def _chart_drawn(page: Any) -> None:
    """The activity chart decoded and drawn (an SVG image the browser could read)."""
    chart = page.locator("section.chart img")
    assert chart.evaluate("img => img.complete && img.naturalWidth > 0")


def _group_of(page: Any, served: Served, session_id: str) -> str:
    """The project of a session, found the way a person would: by searching its objective."""
    page.goto(f"{served.base}/search?q=Port+this+Python+project+to+Rust")
    link = page.locator(f'a[href*="/session/"][href*="{session_id[:8]}"]').first
    href: str = link.get_attribute("href")
    return href.split("/")[2]


def _records(db: Path) -> str:
    """Every session and file of the graph, to compare before and after browsing."""
    sessions = cli("query", "sessions", "--json", "--db", str(db))
    files = cli("query", "files", "--json", "--db", str(db))
    assert sessions.returncode == files.returncode == 0
    return sessions.stdout + files.stdout
