"""The page over HTTP, in process (Starlette's test client): sign-in, the cookie, the
headers, CSRF and Origin checks, read-only refusals, error pages, and inert documents.

What a browser does with all this (scripts that do not run, requests that do not leave)
is tests/test_ui_browser.py's part.
"""

from __future__ import annotations

import re

import pytest
from minirag_web.access import OneTimeSecret, OpenGate, TokenGate
from minirag_web.app import CSP, create_app
from starlette.testclient import TestClient
from web_testlib import BROKEN, CORPUS, UNSUPPORTED

CORPUS_LUNCH = CORPUS["notes/lunch.txt"]

SECRET = "one-time-secret-for-the-tests"
FULL = "full-token-0123456789abcdef"
READ = "read-token-0123456789abcdef"
HOST = "http://127.0.0.1:8123"
SAME = {"Origin": HOST}


def client(app) -> TestClient:
    return TestClient(app, base_url=HOST, raise_server_exceptions=False)


@pytest.fixture(scope="module")
def local(indexed):
    """The page as ``minirag-cli ui`` serves it (one-time secret, loopback Host check)."""
    app = create_app(
        indexed["index"],
        OneTimeSecret(SECRET),
        allowed_hosts=["127.0.0.1", "localhost"],
    )
    return app


@pytest.fixture(scope="module")
def signed_in(local) -> TestClient:
    c = client(local)
    assert c.get(f"/login?secret={SECRET}", follow_redirects=False).status_code == 303
    return c


async def _verify(token: str):
    return {FULL: "full", READ: "read"}.get(token)


@pytest.fixture(scope="module")
def team(indexed):
    """The page as the team server mounts it: sign in with a token."""
    return create_app(indexed["index"], TokenGate(_verify))


def sign_in(app, token: str) -> TestClient:
    c = client(app)
    got = c.post("/signin", data={"token": token, "next": "/files"}, headers=SAME,
                 follow_redirects=False)  # fmt: skip
    assert got.status_code == 303, got.text
    assert got.headers["location"] == "/files"
    return c


def csrf_of(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found, "no CSRF token in the page"
    return found.group(1)


def test_no_page_without_signing_in(local):
    c = client(local)
    for path in ("/", "/?q=pump", "/files", "/health", "/read?source=specs/cooling.md",
                 "/page.png?source=invoices/repair.pdf&page=1"):  # fmt: skip
        got = c.get(path, follow_redirects=False)
        assert got.status_code == 303, path
        assert got.headers["location"].startswith("/signin?next=")
    assert "pump" not in c.get("/signin").text.lower()


def test_the_secret_signs_in_once_into_a_clean_url_with_a_strict_cookie(local):
    c = client(local)
    got = c.get(f"/login?secret={SECRET}x", follow_redirects=False)
    assert got.status_code == 401
    got = c.get(f"/login?secret={SECRET}-other", follow_redirects=False)
    assert got.status_code == 401
    # the module's `signed_in` may have used it: a fresh gate for this test
    app = create_app(local.state.site.index, OneTimeSecret("another-secret-of-enough-length"))
    c = client(app)
    got = c.get("/login?secret=another-secret-of-enough-length", follow_redirects=False)
    assert got.status_code == 303
    assert got.headers["location"] == "/"  # the secret is gone from the address
    cookie = got.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "path=/" in cookie
    assert c.get("/").status_code == 200
    again = client(app).get("/login?secret=another-secret-of-enough-length")
    assert again.status_code == 401
    assert "used already" in again.text


def test_every_response_carries_the_csp_and_no_inline_script(signed_in):
    for path in ("/", "/?q=pump", "/files", "/health", "/signin", "/nowhere",
                 "/static/app.css", "/read?source=notes/hostile.md"):  # fmt: skip
        got = signed_in.get(path)
        assert got.headers["content-security-policy"] == CSP, path
        assert got.headers["x-content-type-options"] == "nosniff"
        assert got.headers["x-frame-options"] == "DENY"
        if got.headers["content-type"].startswith("text/html"):
            assert got.headers["cache-control"] == "no-store"
            # scripts only by src, from this server; no handler attributes
            assert re.findall(r"<script(?![^>]*\bsrc=\"/static/app\.js\")", got.text) == []
            assert not re.search(r"<[a-z][^>]*\son[a-z]+=", got.text)  # in a real tag
    assert "script-src 'self'" in CSP and "unsafe-inline" not in CSP


def test_a_search_shows_hits_as_the_cli_does(signed_in):
    page = signed_in.get("/?q=coolant+pump+flushing").text
    assert "specs/cooling.md" in page
    assert "§ Cooling system &gt; Pump maintenance" in page or "Pump maintenance" in page
    assert "<mark>pump</mark>" in page
    assert "Sources" in page
    pdf = signed_in.get("/?q=Batmobile+insured+name").text
    assert "invoices/repair.pdf" in pdf
    assert re.search(r'class="place">pp?\. \d', pdf)


def test_a_hit_opens_at_its_chunk_with_the_page_image(signed_in):
    page = signed_in.get("/?q=Batmobile+insured+name").text
    link = re.search(r'href="(/read\?source=invoices%2Frepair\.pdf[^"]*)"', page)
    assert link
    read = signed_in.get(link.group(1).replace("&amp;", "&"))
    assert read.status_code == 200
    assert 'id="hit"' in read.text
    assert "<mark>Batmobile</mark>" in read.text
    image = re.search(r'<img src="([^"]+)"', read.text)
    assert image
    png = signed_in.get(image.group(1).replace("&amp;", "&"))
    assert png.status_code == 200
    assert png.headers["content-type"] == "image/png"
    assert png.content.startswith(b"\x89PNG")


def test_the_hostile_document_is_text(signed_in):
    page = signed_in.get("/read?source=notes/hostile.md&q=zebra").text
    body = page.split('<main id="main"', 1)[1]
    assert "<script>" not in body and "&lt;script&gt;" in body
    assert "<img" not in body  # neither its raw tag nor its markdown image
    assert "onerror" not in body.replace("onerror=&#34;", "")
    assert 'href="javascript:' not in body and 'href="file:' not in body
    assert "[password file](file:///etc/passwd)" in body  # a dead link: its text
    assert 'href="https://example.org/" rel="noopener noreferrer nofollow"' in body


def test_paths_and_pages_are_checked_as_the_tools_check_them(signed_in, indexed):
    outside = signed_in.get("/read?source=../../../etc/passwd")
    assert outside.status_code == 404
    assert "root:" not in outside.text
    absolute = signed_in.get("/read?source=/etc/passwd")
    assert absolute.status_code in (403, 404)
    assert "root:" not in absolute.text
    page = signed_in.get("/read?source=invoices/repair.pdf&page=99")
    assert page.status_code == 404 and "page 99 does not exist" in page.text
    bad = signed_in.get("/page.png?source=invoices/repair.pdf&page=two")
    assert bad.status_code == 400 and "whole number" in bad.text
    for got in (outside, absolute, page, bad):
        assert "Traceback" not in got.text and 'File "' not in got.text


def test_an_unexpected_failure_shows_a_message_not_a_trace(indexed):
    class Broken:
        config_error = None

        def list_files(self):
            raise RuntimeError("secret internals /var/lib/thing line 42")

    app = create_app(Broken(), OpenGate())  # type: ignore[arg-type]
    got = client(app).get("/files")
    assert got.status_code == 500
    assert "Something went wrong" in got.text
    assert "secret internals" not in got.text and "Traceback" not in got.text


def test_a_foreign_host_is_refused(local):
    got = TestClient(local, base_url="http://attacker.example:8123").get("/signin")
    assert got.status_code == 421


def test_the_files_view_counts_filters_and_says_why_a_file_failed(signed_in):
    page = signed_in.get("/files").text
    assert re.search(r"\d+ ingested", page) and "1 failed" in page
    failed = signed_in.get("/files?state=failed").text
    assert BROKEN in failed and "cannot open the PDF" in failed
    assert "specs/cooling.md" not in failed
    by_path = signed_in.get("/files?path=COOLING").text
    assert "specs/cooling.md" in by_path and BROKEN not in by_path
    assert signed_in.get("/files?state=bogus").status_code == 400


def test_health_shows_the_last_sync_whoever_ran_it(indexed):
    # A page that started no sync itself (a fresh app: `ui`'s start-up sync is the
    # watcher's, a client's or the CLI's) still shows the index's last sync.
    app = create_app(indexed["index"], OneTimeSecret("a-fresh-secret-for-health"))
    c = client(app)
    assert c.get("/login?secret=a-fresh-secret-for-health").status_code == 200
    page = c.get("/health").text
    assert "No sync started from this page" not in page
    last = page[page.index('id="last-sync"') :]
    assert "Last sync, by minirag-cli" in last and "failed" in last
    assert BROKEN in last and "UTC" in last


def test_counts_agree_across_removals_and_processes(indexed):
    # One account of the files: a removal does not turn the failed file into "not
    # ingested", and a page that watched no sync counts what the one that did counts.
    fresh = client(create_app(indexed["index"], OneTimeSecret("another-fresh-secret-xyz")))
    fresh.get("/login?secret=another-fresh-secret-xyz")
    first = fresh.get("/files").text
    assert "1 failed" in first
    index, root = indexed["index"], indexed["root"]
    try:
        index.delete_file("notes/lunch.txt")
        after = fresh.get("/files").text
        assert "1 failed" in after and "1 not ingested" in after
    finally:
        index.ingest_file(str(root / "notes/lunch.txt"))


def test_the_files_view_lists_unsupported_files_with_the_reason(signed_in):
    page = signed_in.get("/files").text
    assert "1 unsupported" in page
    shown = signed_in.get("/files?state=unsupported").text
    assert UNSUPPORTED in shown and "unsupported file type .rtf" in shown
    assert BROKEN not in shown


def test_posts_need_the_same_origin_and_the_csrf_token(indexed):
    app = create_app(indexed["index"], OpenGate())
    c = client(app)
    token = csrf_of(c.get("/health").text)
    foreign = c.post("/sync", data={"csrf": token, "action": "bogus"},
                     headers={"Origin": "https://evil.example"})  # fmt: skip
    assert foreign.status_code == 403 and "another site" in foreign.text
    no_origin = c.post("/sync", data={"csrf": token, "action": "bogus"})
    assert no_origin.status_code == 403
    wrong = c.post("/sync", data={"csrf": token + "x", "action": "bogus"}, headers=SAME)
    assert wrong.status_code == 403 and "expired" in wrong.text
    right = c.post("/sync", data={"csrf": token, "action": "bogus"}, headers=SAME)
    assert right.status_code == 400  # through both checks, to the action's own check


def test_a_read_token_reads_but_is_refused_a_sync(team):
    assert client(team).post("/signin", data={"token": "nope-nope-nope-nope"},
                             headers=SAME).status_code == 401  # fmt: skip
    reader = sign_in(team, READ)
    assert "read only" in reader.get("/").text
    health = reader.get("/health").text
    assert "Start a sync" not in health and "read-only" in health
    refused = reader.post("/sync", data={"csrf": csrf_of(health), "action": "start"},
                          headers=SAME, follow_redirects=False)  # fmt: skip
    assert refused.status_code == 403
    assert "read-only token" in refused.text
    assert READ not in refused.text


def test_a_full_token_starts_a_sync_and_its_events_end_with_done(team):
    writer = sign_in(team, FULL)
    health = writer.get("/health").text
    started = writer.post("/sync", data={"csrf": csrf_of(health), "action": "start"},
                          headers=SAME, follow_redirects=False)  # fmt: skip
    assert started.status_code == 303
    job = re.search(r"job=([\w-]+)", started.headers["location"])
    assert job
    with writer.stream("GET", f"/sync/{job.group(1)}/events") as events:
        assert events.headers["content-type"].startswith("text/event-stream")
        text = "".join(events.iter_text())
    assert "event: progress" in text and '"scanned"' in text
    assert text.rstrip().endswith("event: done\ndata: {}")
    page = writer.get(started.headers["location"]).text
    # The corpus holds a broken PDF: a sync with a failed file ends "failed", saying so.
    assert re.search(r'data-field="state"[^>]*>failed<', page)


def test_signing_out_ends_the_session(team):
    writer = sign_in(team, FULL)
    token = csrf_of(writer.get("/health").text)
    out = writer.post("/signout", data={"csrf": token}, headers=SAME, follow_redirects=False)
    assert out.status_code == 303
    assert writer.get("/health", follow_redirects=False).status_code == 303


def test_only_a_full_token_removes_a_document_from_the_index(team, indexed):
    lunch = "notes/lunch.txt"
    reader = sign_in(team, READ)
    read_page = reader.get("/read", params={"source": lunch}).text
    assert "Remove from the index" not in read_page
    refused = reader.post("/remove", data={"csrf": csrf_of(read_page), "source": lunch},
                          headers=SAME, follow_redirects=False)  # fmt: skip
    assert refused.status_code == 403 and "removes or re-indexes a document" in refused.text
    writer = sign_in(team, FULL)
    page = writer.get("/read", params={"source": lunch}).text
    assert "Remove from the index" in page
    try:
        gone = writer.post("/remove", data={"csrf": csrf_of(page), "source": lunch},
                           headers=SAME, follow_redirects=False)  # fmt: skip
        assert gone.status_code == 303
        files = writer.get(gone.headers["location"]).text
        assert f"Removed {lunch} from the index" in files and "file on disk is untouched" in files
        assert (indexed["root"] / lunch).is_file()
        state = next(f["state"] for f in indexed["index"].list_files()["files"]
                     if f["displayPath"] == lunch)  # fmt: skip
        assert state == "not_ingested"
        again = writer.post("/remove", data={"csrf": csrf_of(page), "source": lunch},
                            headers=SAME)  # fmt: skip
        assert again.status_code == 404 and "Traceback" not in again.text
    finally:
        indexed["index"].ingest_file(str(indexed["root"] / lunch))


def test_removing_asks_first_and_offers_to_exclude_or_re_index(team, indexed):
    root, index = indexed["root"], indexed["index"]
    lunch = "notes/lunch.txt"
    writer = sign_in(team, FULL)
    page = writer.get("/read", params={"source": lunch}).text
    # one click opens the choices, with what each does; none removes by itself
    panel = page[page.index('<details class="remove">') : page.index("</details>")]
    assert "Remove from the index…" in panel and "indexes it again" in panel
    for action in ("remove", "exclude", "reindex"):
        assert f'name="action" value="{action}"' in panel
    ignore = root / ".miniragignore"
    try:
        (root / lunch).write_text("Team lunch moved to Tuesdays.\n", encoding="utf-8")
        again = writer.post("/remove", headers=SAME, follow_redirects=False, data={
            "csrf": csrf_of(page), "source": lunch, "key": str(root / lunch),
            "action": "reindex"})  # fmt: skip
        assert again.status_code == 303
        assert "Tuesdays" in writer.get(again.headers["location"]).text
        form = {"csrf": csrf_of(page), "source": lunch, "action": "exclude"}
        out = writer.post("/remove", headers=SAME, follow_redirects=False, data=form)
        assert out.status_code == 303
        files = writer.get(out.headers["location"]).text
        assert f"Excluded {lunch}" in files and "/notes/lunch.txt" in files
        assert ignore.read_text(encoding="utf-8").splitlines() == ["/notes/lunch.txt"]
        index.sync()  # the next sync leaves it out
        assert not [h for h in index.query("team lunch Tuesdays", top_k=8)["sources"]
                    if h["displayPath"] == lunch]  # fmt: skip
    finally:
        ignore.unlink(missing_ok=True)
        (root / lunch).write_text(CORPUS_LUNCH, encoding="utf-8")
        index.sync()


def test_a_passage_of_chunks_opens_with_all_of_them_marked(signed_in, indexed):
    index = indexed["index"]
    listed = index.read_file("invoices/repair.pdf")
    assert listed["chunkCount"] >= 3
    page = signed_in.get("/read", params={"source": "invoices/repair.pdf", "chunk": 1, "last": 2})
    assert page.status_code == 200
    assert page.text.count("hit-chunk") == 2 and page.text.count('id="hit"') == 1
    more = re.search(r'href="([^"]*span=[^"]*)"', page.text)
    assert more and "last=2" in more.group(1)  # reading wider keeps the passage marked
