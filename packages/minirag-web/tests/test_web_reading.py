"""What a person reads on the page, in process (Starlette's test client): no marker meant
for the machine, a heading path's link as its text, the query's own words marked (not
words that only begin alike), each source's hit count, chunk numbers and scores behind a
toggle, and the icon a browser asks for."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from minirag_web.access import OneTimeSecret
from minirag_web.app import create_app
from starlette.testclient import TestClient

SECRET = "one-time-secret-for-the-reading-tests"
HOST = "http://127.0.0.1:8124"
LINK = "https://www.bing.com/ck/a?!&&p=5f1b2c3d4e5f60718293a4b5c6d7e8f9&ptn=3&u=a1aHR0cHM6Ly93"

DECK = """# Quarterly review

## Roadmap

<!-- Slide number: 6 -->

The flux capacitor program ships in May; progress is tracked weekly.

<!-- page 70: OCR (tesseract) -->

Progress on the capacitor housing is on schedule.
"""

HISTORY = f"""# Readings

## [A Short History of Microsoft - ThoughtCo]({LINK})

The zeppelin hangar notes describe early software licensing.
"""


@pytest.fixture(scope="module")
def page(tmp_path_factory, model_env) -> Iterator[dict[str, Any]]:
    """A signed-in client over a small index holding the two documents above."""
    from minirag_store import Index

    base = tmp_path_factory.mktemp("reading")
    root = base / "docs"
    root.mkdir()
    (root / "deck.md").write_text(DECK, encoding="utf-8")
    (root / "history.md").write_text(HISTORY, encoding="utf-8")
    env = {**model_env, "BASE_DIR": str(root), "DB_PATH": str(base / "index"), "RAG_WATCH": "off"}
    index = Index.open(env)
    assert index.sync()["state"] == "succeeded"
    app = create_app(index, OneTimeSecret(SECRET), allowed_hosts=["127.0.0.1"])
    c = TestClient(app, base_url=HOST, raise_server_exceptions=False)
    assert c.get(f"/login?secret={SECRET}", follow_redirects=False).status_code == 303
    try:
        yield {"client": c, "index": index}
    finally:
        index.close()


def test_no_machine_marker_is_shown_as_text(page):
    c = page["client"]
    found = c.get("/", params={"q": "flux capacitor progress"}).text
    assert "capacitor" in found
    read = c.get("/read", params={"source": "deck.md"}).text
    for shown in (found, read):
        assert "Slide number" not in shown and "tesseract" not in shown
        assert "&lt;!--" not in shown and "<!--" not in shown


def test_the_query_words_are_marked_not_words_that_begin_alike(page):
    found = page["client"].get("/", params={"q": "progress"}).text
    assert re.search(r"<mark>[Pp]rogress</mark>", found)
    assert "<mark>program</mark>" not in found and "program" in found


def test_a_heading_path_shows_a_link_as_its_text(page):
    found = page["client"].get("/", params={"q": "zeppelin hangar software licensing"}).text
    heading = re.search(r'<p class="heading">(.*?)</p>', found, re.S)
    assert heading, found
    assert "A Short History of Microsoft - ThoughtCo" in heading.group(1)
    assert "bing.com" not in heading.group(1) and "](" not in heading.group(1)


def test_each_source_counts_its_hits_and_numbers_sit_behind_a_toggle(page):
    found = page["client"].get("/", params={"q": "capacitor", "k": 5}).text
    sources = found[found.index('id="sources-h"') :]
    counts = re.findall(r'<span class="meta">\((\d+) hits?', sources)
    assert counts and all(int(n) >= 1 for n in counts), sources
    hits = found[: found.index('id="sources-h"')]
    assert sum(int(n) for n in counts) == hits.count('<li class="hit')
    # chunk numbers and the fused score only inside <details>, never on the hit's face
    for hit in re.findall(r'<li class="hit[^"]*">(.*?)</li>', hits, re.S):
        face, _, details = hit.partition('<details class="why">')
        assert "score" not in face and "#" not in re.sub(r"<[^>]+>|&#\d+;", "", face)
        assert "fused score" in details and "chunk" in details


def test_the_icon_a_browser_asks_for_is_served(page):
    got = page["client"].get("/favicon.ico")
    assert got.status_code == 200 and got.headers["content-type"].startswith("image/svg+xml")
    assert got.content.startswith(b"<svg")
    assert 'rel="icon"' in page["client"].get("/").text
