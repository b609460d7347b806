"""Where each hit is, as the CLI shows it: ``avtoreferat.pdf p. 4``, ``test.pptx slide 5``,
the sheet and rows of a workbook; ``read --page`` / ``--slide`` print one page or slide."""

from __future__ import annotations

import re
import shutil

import pytest

ON_PAGE_4 = "Диссертация состоит из пяти глав"


@pytest.fixture(scope="module")
def paged(tmp_path_factory, run_cli, fixtures) -> dict:
    """A PDF and a deck, synced once through the real console script."""
    base = tmp_path_factory.mktemp("paged")
    root = base / "docs"
    root.mkdir()
    shutil.copy(fixtures / "thesis" / "avtoreferat.pdf", root / "avtoreferat.pdf")
    shutil.copy(fixtures / "markitdown" / "test.pptx", root / "test.pptx")
    flags = ["--base-dir", str(root), "--db-path", str(base / "index")]
    env = {"RAG_OCR_MIN_CHARS_PER_PAGE": "0"}  # text pages: no OCR
    ran = run_cli("sync", *flags, env=env)
    assert ran.code == 0, ran.stderr
    return {"root": root, "flags": flags, "env": env}


def test_query_prints_the_page_and_slide_of_each_hit(invoke, paged):
    ran = invoke("query", ON_PAGE_4, "--top-k", "3", *paged["flags"], env=paged["env"])
    assert ran.code == 0, ran.stderr
    first = ran.stdout.splitlines()[0]
    # p. 4, or pp. 3-4 when its chunk opens with page 3's last paragraph
    assert re.match(r"1\. avtoreferat\.pdf (p\. 4|pp\. [1-4]-[4-9])  #", first), first
    sources = ran.stdout.split("Sources:")[1]
    pages = sources.split("avtoreferat.pdf")[1]
    assert re.search(r"\bpp?\. (\d+, )*4\b", pages), sources
    deck = invoke("query", "a nested shape with content in 2 shapes", *paged["flags"])
    assert "test.pptx slide 5  #" in deck.stdout


def test_query_json_carries_the_locator(invoke, paged):
    ran = invoke("query", ON_PAGE_4, "--top-k", "1", "--json", *paged["flags"])
    hit = ran.json()["results"][0]
    assert (
        hit["locator"]["page"] <= 4 <= hit["locator"].get("pages", [0, hit["locator"]["page"]])[1]
    )
    assert 4 in ran.json()["sources"][0]["pages"]


def test_read_page_prints_that_page_only(invoke, paged):
    pdf = str(paged["root"] / "avtoreferat.pdf")
    ran = invoke("read", pdf, "--page", "5", *paged["flags"])
    assert ran.code == 0, ran.stderr
    assert "ЗАКЛЮЧЕНИЕ" in ran.stdout and "СОДЕРЖАНИЕ РАБОТЫ" not in ran.stdout
    slide = invoke("read", str(paged["root"] / "test.pptx"), "--slide", "3", *paged["flags"])
    assert "A table to test parsing" in slide.stdout and "A chart" not in slide.stdout


def test_read_page_refusals_say_what_to_do(invoke, paged, run_cli):
    pdf = str(paged["root"] / "avtoreferat.pdf")
    past = invoke("read", pdf, "--page", "9", *paged["flags"])
    assert past.code == 1 and "pages 1..6" in past.stderr and "page 9 does not exist" in past.stderr
    deck = run_cli("read", str(paged["root"] / "test.pptx"), "--page", "2", *paged["flags"])
    assert deck.code == 1 and "has no pages" in deck.stderr and "without page" in deck.stderr


def test_query_json_says_the_page_of_a_table_pdf_without_ocr(invoke, tmp_path):
    """A PDF markitdown converts through its table route (no page breaks in its output):
    the pages come from each page's text layer, OCR off, and `query --json` carries them."""
    from minirag_store.convert.engine import markitdown_convert
    from minirag_testkit.pdfs import AUDIT_PAGES, ON_PAGE, table_pdf

    root = tmp_path / "docs"
    root.mkdir()
    pdf = root / "audit.pdf"
    pdf.write_bytes(table_pdf(AUDIT_PAGES))
    if "\f" in (markitdown_convert(None, pdf, ".pdf", str(pdf)).markdown or ""):
        # markitdown before its table route (the floor the lowest resolution installs)
        # keeps the page breaks: nothing to recover, the form-feed tests cover it
        pytest.skip("this markitdown keeps the PDF's page breaks")
    flags = ["--base-dir", str(root), "--db-path", str(tmp_path / "index")]
    env = {"RAG_OCR_MIN_CHARS_PER_PAGE": "0", "CHUNK_TOKEN_BUDGET": "48"}
    assert invoke("sync", *flags, env=env).code == 0
    for page in (2, 3):
        ran = invoke("query", ON_PAGE[page], "--top-k", "3", "--json", *flags, env=env)
        assert ran.code == 0, ran.stderr
        hit = next(h for h in ran.json()["results"] if ON_PAGE[page] in h["text"])
        assert hit["locator"]["page"] == page
