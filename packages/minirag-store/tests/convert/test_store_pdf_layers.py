"""PDFs markitdown reads no text from, though they have text layers: indexed from the
layers, page by page, with or without the OCR add-on; and the warnings of the PDF parsers
under markitdown stay off the user's terminal. Real files and conversion."""

from __future__ import annotations

import dataclasses
import logging
import sys
from pathlib import Path

import pytest
from minirag_store.config import load_config
from minirag_store.convert import ocr
from minirag_store.convert.converter import convert_file
from minirag_store.convert.engine import markitdown_convert
from minirag_testkit.answers import expand
from minirag_testkit.pdfs import AUDIT_PAGES, ON_PAGE, table_pdf

#: A BMC research article (7 pages) saved with an HTML error page before its ``%PDF``
#: header: pdfium reads every page, pdfminer (under markitdown) finds no page at all.
ARTICLE = "medium.pdf"
#: Words of page 3 (a table's caption) and of page 2, where pdfium's layer splits
#: "interferon" over two lines with a soft hyphen.
CAPTION = "Virological and clinical characteristics of patients"
SPLIT_WORD = "the interferon sensitivity determining region"


@pytest.fixture
def article(fixtures: Path) -> Path:
    path = fixtures / "kreuzberg" / ARTICLE
    text = markitdown_convert(None, path, ".pdf", str(path)).markdown or ""
    if text.strip():  # what these tests are about: a markitdown that reads it needs nothing
        pytest.skip(f"this markitdown reads {ARTICLE}")
    return path


@pytest.fixture(params=["addon", "addon-missing", "ocr-off"])
def config(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """The store's config with the OCR add-on installed, hidden (``import minirag_ocr``
    fails), or installed with OCR turned off."""
    if request.param == "addon-missing":
        for name in [m for m in sys.modules if m.split(".")[0] == "minirag_ocr"]:
            monkeypatch.delitem(sys.modules, name)
        monkeypatch.setitem(sys.modules, "minirag_ocr", None)
    ocr.load_backend.cache_clear()
    config = load_config({}, base_dirs=[tmp_path], db_path=tmp_path / "db", cache_dir=tmp_path)
    if request.param == "ocr-off":
        config = dataclasses.replace(config, ocr_min_chars_per_page=0)
    yield config
    ocr.load_backend.cache_clear()


def page_of(result, words: str) -> int | None:
    offset = result.markdown.index(words)
    return [place for at, place in result.marks if at <= offset][-1].get("page")


def test_a_pdf_markitdown_reads_nothing_of_comes_from_its_text_layers(article, config) -> None:
    result = convert_file(article, config)
    assert result.ocr_engine == ""  # every page has a text layer: nothing to recognise
    assert [place for _, place in result.marks] == [{"page": n} for n in range(1, 8)]
    assert page_of(result, "Core mutations, IL28B polymorphisms") == 1
    assert page_of(result, SPLIT_WORD) == 2
    assert page_of(result, CAPTION) == 3
    assert "\x02" not in result.markdown and "\ufffe" not in result.markdown
    assert "\r" not in result.markdown


def test_it_is_synced_and_found_on_its_page(
    article: Path, tmp_path: Path, model_env: dict[str, str]
) -> None:
    """Through the service, as a user meets it: the sync ingests it (it failed as "no
    text layer" before) and a search finds its words on the right page."""
    from minirag_store import Index

    root = tmp_path / "docs"
    root.mkdir()
    (root / ARTICLE).write_bytes(article.read_bytes())
    index = Index.open({**model_env, "BASE_DIR": str(root), "DB_PATH": str(tmp_path / "db")})
    try:
        job = index.sync()
        assert job["state"] == "succeeded" and job["counts"]["ingested"] == 1, job
        result = expand(index.query(CAPTION, top_k=3))
        hit = next(h for h in result["results"] if CAPTION in h["text"])
        # Its chunk opens with page 2's running footer (one reflowed paragraph, "Page 2
        # of 7"), packed with the caption that opens page 3: it covers both.
        locator = hit["locator"]
        assert locator["page"] <= 3 <= locator.get("pages", [0, locator["page"]])[1]
    finally:
        index.close()


def test_parser_warnings_stay_off_the_terminal(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """pdfminer warns once a page about a font descriptor without its FontBBox (real
    Google Docs exports have them), bs4 about bytes it cannot decode; none of it reaches
    a log handler, and the text is read."""
    path = tmp_path / "no-font-box.pdf"
    path.write_bytes(table_pdf(AUDIT_PAGES, font_box=False))
    config = load_config({}, base_dirs=[tmp_path], db_path=tmp_path / "db", cache_dir=tmp_path)
    with caplog.at_level(logging.WARNING):
        result = convert_file(path, config)
    assert ON_PAGE[2] in result.markdown
    # bs4 (markitdown's HTML route, also under .docx) on bytes it cannot decode
    with caplog.at_level(logging.WARNING):
        markitdown_convert(b"", None, ".html", "empty.html")
    parsers = {"pdfminer", "bs4"}
    assert [r.getMessage() for r in caplog.records if r.name.split(".")[0] in parsers] == []
