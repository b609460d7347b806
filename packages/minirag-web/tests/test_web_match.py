"""The page says when nothing really matches (Starlette's test client over a real index):
a "No good match" state naming what no document holds, weak hits marked as such, and an
identifier two documents hold shown alone with those two."""

from __future__ import annotations

import html

import pytest
from minirag_store import Index
from minirag_testkit.scenarios import MATCH_NOTES, NO_MATCH_QUERIES, write_files
from minirag_web.access import OneTimeSecret
from minirag_web.app import create_app
from starlette.testclient import TestClient

SECRET = "one-time-secret-for-the-match-tests"
HOST = "http://127.0.0.1:8123"


@pytest.fixture(scope="module")
def page(tmp_path_factory, model_env):
    base = tmp_path_factory.mktemp("match")
    root = write_files(base / "docs", MATCH_NOTES)
    env = {**model_env, "BASE_DIR": str(root), "DB_PATH": str(base / "db"), "RAG_WATCH": "off"}
    index = Index.open(env)
    assert index.sync()["state"] == "succeeded"
    app = create_app(index, OneTimeSecret(SECRET), allowed_hosts=["127.0.0.1", "localhost"])
    c = TestClient(app, base_url=HOST, raise_server_exceptions=False)
    assert c.get(f"/login?secret={SECRET}", follow_redirects=False).status_code == 303
    yield c
    index.close()


def search(page: TestClient, query: str) -> str:
    got = page.get("/", params={"q": query})
    assert got.status_code == 200
    return html.unescape(got.text)


def test_an_absent_identifier_shows_no_good_match_and_names_it(page):
    text = search(page, "ZEBRA-4471")
    assert "No good match." in text
    assert 'No document contains "ZEBRA-4471".' in text
    assert 'class="hit weak"' in text and "weak match; lacks ZEBRA-4471" in text


@pytest.mark.parametrize("query", NO_MATCH_QUERIES[1:])
def test_nonsense_and_stop_words_show_no_good_match(page, query):
    assert "No good match." in search(page, query)


def test_an_identifier_two_documents_hold_shows_just_those(page):
    text = search(page, "DATAKB9A8B")
    assert "No good match." not in text
    assert text.count('<li class="hit">') == 2 and "hit weak" not in text
    assert "ids/batch-a.md" in text and "ids/batch-b.md" in text
    assert "specs/cooling.md" not in text and "strong match" in text
