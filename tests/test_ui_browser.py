"""The web page in a real browser: Debian's Chromium, headless, driven through chromedriver.

One team server (``minirag-mcp --transport http`` with a full and a read token) over a
fresh copy of the web tests' corpus, unsynced: the browser's own sync indexes it, so its
progress has something to show. Then search, read with the page image, the files view's
failed file, the hostile document, the read token's refusal, and ``minirag-cli ui``'s
one-time link. Chrome's performance log records every request the pages made: none may
leave 127.0.0.1.

``MINIRAG_UI_SHOTS=/some/folder`` also saves a screenshot of each view at 1,280 and
390 px wide (what the README's picture is taken from).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(_HERE.parent / "packages" / "minirag-mcp" / "tests"))
sys.path.insert(0, str(_HERE.parent / "packages" / "minirag-web" / "tests"))

from mcp_testlib import HttpServer, child_env  # noqa: E402
from web_testlib import BROKEN, write_corpus  # noqa: E402

pytestmark = pytest.mark.browser

FULL = "full-" + secrets.token_urlsafe(24)
READ = "read-" + secrets.token_urlsafe(24)
SHOTS = os.environ.get("MINIRAG_UI_SHOTS")
WIDTHS = (1280, 390)


@pytest.fixture(scope="module")
def server(tmp_path_factory, model_env) -> Iterator[HttpServer]:
    base = tmp_path_factory.mktemp("ui-server")
    env = {
        **model_env,
        "BASE_DIR": str(_with_readings(write_corpus(base / "docs"))),
        "DB_PATH": str(base / "index"),
        "RAG_HTTP_TOKENS": FULL,
        "RAG_HTTP_READ_TOKENS": READ,
    }
    with HttpServer(env, base / "server.log") as running:
        running.root = f"http://127.0.0.1:{running.port}/ui"  # type: ignore[attr-defined]
        running.env = env
        yield running


#: A heading that is one long markdown link (as a saved web page gives), and a marker.
READINGS = (
    "# Readings\n\n## [A Short History of Microsoft - ThoughtCo](https://www.bing.com/ck/a?!&&p="
    + "5f1b2c3d4e5f" * 12
    + "&ptn=3)\n\n<!-- Slide number: 6 -->\n\nThe zeppelin hangar notes describe early "
    "software licensing and its progress.\n"
)


def _with_readings(root: Path) -> Path:
    (root / "readings").mkdir(exist_ok=True)
    (root / "readings" / "history.md").write_text(READINGS, encoding="utf-8")
    return root


class Browser:
    """A headless Chromium session and every URL its pages requested."""

    def __init__(self, chromium: Path, chromedriver: Path) -> None:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        options = webdriver.ChromeOptions()
        options.binary_location = str(chromium)
        for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                     "--disable-gpu", "--window-size=1280,900", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update"):  # fmt: skip
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
        self.driver = webdriver.Chrome(options=options, service=Service(str(chromedriver)))
        self.driver.set_page_load_timeout(60)
        self.requested: list[str] = []

    def get(self, url: str) -> None:
        self.driver.get(url)

    def requests(self) -> list[str]:
        """Every URL requested so far (the performance log drained into ``requested``)."""
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message["method"] == "Network.requestWillBeSent":
                self.requested.append(message["params"]["request"]["url"])
        return self.requested

    def text(self) -> str:
        return self.driver.find_element("tag name", "body").text

    def wait_for(self, css: str, seconds: float = 60) -> Any:
        from selenium.webdriver.support import expected_conditions as ec
        from selenium.webdriver.support.ui import WebDriverWait

        return WebDriverWait(self.driver, seconds).until(
            ec.presence_of_element_located(("css selector", css))
        )

    def sign_in(self, root: str, token: str) -> None:
        self.driver.delete_all_cookies()
        self.get(f"{root}/health")
        assert "/signin" in self.driver.current_url
        field = self.driver.find_element("id", "token")
        field.send_keys(token)
        field.submit()
        self.wait_for("nav[aria-label=Views]")

    def shot(self, name: str) -> None:
        """Save this view at each width (only with MINIRAG_UI_SHOTS set)."""
        if not SHOTS:
            return
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        self.driver.execute_script("window.scrollTo(0, 0)")
        for width in WIDTHS:
            self.driver.set_window_size(width, 900)
            height = self.driver.execute_script("return document.documentElement.scrollHeight")
            self.driver.set_window_size(width, min(max(int(height) + 120, 700), 2400))
            self.driver.save_screenshot(str(Path(SHOTS) / f"{name}-{width}.png"))
        self.driver.set_window_size(1280, 900)

    def close(self) -> None:
        self.driver.quit()


@pytest.fixture(scope="module")
def browser(chromium) -> Iterator[Browser]:
    opened = Browser(*chromium)
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture(scope="module")
def synced(server, browser) -> dict[str, Any]:
    """The full token signs in and starts the first sync; what the page showed meanwhile."""
    browser.sign_in(server.root, FULL)
    browser.get(f"{server.root}/health")
    browser.driver.find_element("id", "start-sync").click()
    seen: list[tuple[str, str]] = []
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            state = browser.driver.find_element("css selector", '[data-field="state"]').text
            ingested = browser.driver.find_element("css selector", '[data-count="ingested"]').text
        except Exception:  # the page reloads itself when the sync ends
            continue
        if not seen or seen[-1] != (state, ingested):
            seen.append((state, ingested))
        if state in ("succeeded", "failed", "cancelled"):
            break
        time.sleep(0.05)
    return {"seen": seen}


def test_a_sync_started_in_the_page_shows_its_progress_move(synced, browser):
    seen = synced["seen"]
    assert seen[-1][0] == "failed", seen  # the broken file: a sync with one says so
    assert int(seen[-1][1]) == 5, seen  # five files indexed; the broken one failed
    # Progress moved on the page itself, without a reload: a running state was shown,
    # then counts that changed.
    assert any(state in ("pending", "running") for state, _ in seen), seen
    assert len({count for _, count in seen}) > 1, seen
    browser.shot("health")


def test_search_shows_the_known_hit_with_its_page(synced, server, browser):
    browser.get(f"{server.root}/")
    box = browser.driver.find_element("id", "q")
    assert browser.driver.find_element("css selector", "label[for=q]").text
    box.send_keys("Batmobile insured name\n")
    browser.wait_for("ol.hits")
    assert "q=Batmobile+insured+name" in browser.driver.current_url  # bookmarkable
    first = browser.driver.find_element("css selector", ".hit h2 a")
    assert "invoices/repair.pdf" in first.text and re.search(r"pp?\. \d", first.text)
    assert browser.driver.find_elements("css selector", ".passage mark")
    browser.shot("search")


def test_a_hit_opens_highlighted_beside_its_page_image(synced, server, browser):
    browser.get(f"{server.root}/?q=Batmobile+insured+name")
    browser.driver.find_element("css selector", ".hit h2 a").click()
    hit = browser.wait_for("#hit")
    assert hit.find_elements("css selector", "mark")
    in_view = browser.driver.execute_script(
        "const r = arguments[0].getBoundingClientRect();"
        "return r.top < window.innerHeight && r.bottom > 0;",
        hit,
    )
    assert in_view
    image = browser.driver.find_element("css selector", "figure.page img")
    loaded = browser.driver.execute_script(
        "return arguments[0].complete && arguments[0].naturalWidth;", image
    )
    assert loaded and loaded > 100
    browser.shot("read")
    browser.driver.find_element("css selector", "a[rel=next]").click()
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser.driver, 60).until(ec.staleness_of(image))  # the next page came
    browser.wait_for("figure.page img")
    assert "p. 3 of 3" in browser.text()


def test_keyboard_alone_searches_and_opens_a_hit(synced, server, browser):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    def press(*keys: str) -> Any:
        ActionChains(browser.driver).send_keys(*keys).perform()
        return browser.driver.switch_to.active_element

    browser.get(f"{server.root}/files")
    assert press(Keys.TAB).text == "Skip to content"  # the first stop on a page
    browser.get(f"{server.root}/")
    # The search box has the focus as the page opens (the browser gives it once the page is
    # laid out, which can be a moment after get() returns): type and press Enter.
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser.driver, 10).until(
        lambda driver: driver.switch_to.active_element.get_attribute("id") == "q"
    )
    press("coolant pump", Keys.ENTER)
    browser.wait_for("ol.hits")
    # Tab through the page to the first hit's link, then open it with Enter.
    active = None
    for _ in range(15):
        active = press(Keys.TAB)
        if "specs/cooling.md" in active.text:
            break
    assert active is not None and "specs/cooling.md" in active.text
    press(Keys.ENTER)
    browser.wait_for("#hit")
    assert "/read?" in browser.driver.current_url


def test_the_files_view_filters_to_the_failed_file_and_its_error(synced, server, browser):
    browser.get(f"{server.root}/files")
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import Select, WebDriverWait

    before = browser.wait_for("li.file")  # a row of the unfiltered page
    Select(browser.driver.find_element("id", "state")).select_by_value("failed")
    browser.driver.find_element("id", "path").send_keys("broken\n")
    # The form's GET replaces the page: wait until the old rows are gone, then read.
    WebDriverWait(browser.driver, 60).until(ec.staleness_of(before))
    browser.wait_for("li.file")
    rows = browser.driver.find_elements("css selector", "li.file")
    assert len(rows) == 1
    assert BROKEN in rows[0].text and "cannot open the PDF" in rows[0].text
    browser.get(f"{server.root}/files")
    browser.shot("files")


def test_the_hostile_document_runs_nothing(synced, server, browser):
    from selenium.common.exceptions import NoAlertPresentException

    browser.get(f"{server.root}/read?source=notes/hostile.md")
    browser.wait_for("article.read")
    time.sleep(0.5)  # an onerror would fire as the (absent) image fails
    with pytest.raises(NoAlertPresentException):
        browser.driver.switch_to.alert.text  # noqa: B018
    assert browser.driver.execute_script("return window.__pwned === undefined")
    body = browser.text()
    assert "<script>" in body and "onerror" in body  # shown as text
    hrefs = [a.get_attribute("href") for a in browser.driver.find_elements("tag name", "a")]
    assert all(h.startswith(("http://127.0.0.1", "https://example.org")) for h in hrefs), hrefs
    assert not browser.driver.find_elements("css selector", "article img")


def test_a_read_token_reads_but_is_refused_a_sync(synced, server, browser):
    browser.sign_in(server.root, READ)
    assert "read only" in browser.text()
    browser.get(f"{server.root}/health")
    assert not browser.driver.find_elements("id", "start-sync")
    # A hand-made form with the session's own CSRF token: the server still refuses.
    browser.driver.execute_script(
        "const f = document.createElement('form'); f.method = 'post';"
        "f.action = arguments[0];"
        "for (const [k, v] of [['action', 'start'], ['csrf', arguments[1]]]) {"
        "  const i = document.createElement('input'); i.type = 'hidden'; i.name = k;"
        "  i.value = v; f.appendChild(i); }"
        "document.body.appendChild(f); f.submit();",
        f"{server.root}/sync",
        browser.driver.find_element("css selector", "form input[name=csrf]").get_attribute("value"),
    )
    browser.wait_for(".problem")
    assert "read-only token" in browser.text()


def test_the_cli_link_signs_in_once_to_a_clean_url(synced, server, browser):
    proc = subprocess.Popen(
        [str(Path(sys.executable).with_name("minirag-cli")), "ui", "--no-browser"],
        env=child_env({k: v for k, v in server.env.items() if not k.startswith("RAG_HTTP")}),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        link = re.search(r"(http://127\.0\.0\.1:\d+/login\?secret=\S+)", line)
        assert link, line
        browser.driver.delete_all_cookies()
        browser.get(link.group(1))
        browser.wait_for("#q")
        assert browser.driver.current_url == link.group(1).split("login?")[0]
        browser.driver.find_element("id", "q").send_keys("coolant pump\n")
        browser.wait_for("ol.hits")
        assert "specs/cooling.md" in browser.text()
        browser.driver.delete_all_cookies()
        browser.get(link.group(1))  # the same link again: refused
        assert "used already" in browser.text()
    finally:
        proc.terminate()
        proc.wait(30)


@pytest.mark.parametrize("width", [1400, 390])
def test_a_hit_reads_cleanly_at_desktop_and_phone_width(synced, server, browser, width):
    driver = browser.driver
    browser.sign_in(server.root, FULL)  # the tests before may have left a read session
    driver.set_window_size(width, 900)
    try:
        browser.get(f"{server.root}/?q=zeppelin+hangar+licensing")
        browser.wait_for("ol.hits")
        # nothing runs off the right edge: not even a heading that is one long link
        overflow = driver.execute_script(
            "return document.documentElement.scrollWidth - window.innerWidth"
        )
        assert overflow <= 1, overflow
        heading = driver.find_element("css selector", ".hit .heading").text
        assert "A Short History of Microsoft" in heading and "bing.com" not in heading
        hit = driver.find_element("css selector", ".hit")
        assert "Slide number" not in hit.text and "<!--" not in hit.text
        # the fused score is behind the Details toggle, shown on a click
        score = hit.find_element("css selector", ".score")
        assert not score.is_displayed()
        hit.find_element("css selector", "details.why summary").click()
        assert score.is_displayed() and "fused score" in score.text
        # removing asks first: the choices appear only after opening the panel
        hit.find_element("css selector", "h2 a").click()
        panel = browser.wait_for("details.remove")
        exclude = panel.find_element("css selector", 'button[value="exclude"]')
        assert not exclude.is_displayed()
        panel.find_element("css selector", "summary").click()
        assert exclude.is_displayed() and "indexes it again" in panel.text
    finally:
        driver.set_window_size(1280, 900)


def test_no_request_left_loopback(synced, browser):
    # Runs last (file order): every page above was loaded by now.
    requested = browser.requests()
    assert len(requested) > 20
    foreign = [u for u in requested if not u.startswith("http://127.0.0.1:")]
    assert foreign == []
