"""Pages without OCR for PDFs markitdown converts through its table route (no form feeds):
each page's text layer is found in its output, hits say their page, and text whose page
cannot be told gets none, never a wrong one. Real files and conversion; the OCR add-on
hidden or off, so the pages come from the store alone."""

from __future__ import annotations

import dataclasses
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from minirag_store.config import load_config
from minirag_store.convert import ocr
from minirag_store.convert.converter import convert_file
from minirag_store.convert.engine import markitdown_convert
from minirag_store.convert.pagealign import align_pages
from minirag_store.convert.pdf import text_layers
from minirag_testkit.pdfs import AUDIT_PAGES, HEADER, ON_PAGE, table_pdf

REPAIR = "REPAIR-2022-INV-001_multipage.pdf"  # 3 pages: two estimate forms, a disclaimer
DISCLAIMER = "reponsible for charges"  # ends page 1 and is all of page 3


@pytest.fixture
def audit_pdf(tmp_path: Path) -> Path:
    path = tmp_path / "audit.pdf"
    path.write_bytes(table_pdf(AUDIT_PAGES))
    return path


@pytest.fixture
def hidden(monkeypatch: pytest.MonkeyPatch):
    """``import minirag_ocr`` fails, as on an install without the add-on."""
    for name in [m for m in sys.modules if m == "minirag_ocr" or m.startswith("minirag_ocr.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "minirag_ocr", None)
    ocr.load_backend.cache_clear()
    yield
    ocr.load_backend.cache_clear()


def table_route(path: Path) -> str:
    """markitdown's own output for ``path``, checked to have lost its page breaks: what
    these tests are about (a markitdown that kept them would make them pass for nothing).
    markitdown before its table route (0.1.3, the floor ``.ci/run``'s lowest resolution
    installs) keeps them on every PDF: its pages come from the form feeds, and these skip."""
    text = markitdown_convert(None, path, ".pdf", str(path)).markdown or ""
    layers = text_layers(path)
    assert layers is not None and len(layers) > 1
    if "\f" in text:
        pytest.skip(f"markitdown {version('markitdown')} keeps {path.name}'s page breaks")
    return text


def page_at(marks, offset: int) -> int | None:
    """The page in force at ``offset`` of a converted document (None: no page)."""
    before = [place for at, place in marks if at <= offset]
    return before[-1].get("page") if before else None


@pytest.mark.parametrize("threshold", [25, 0], ids=["addon-missing", "ocr-off"])
def test_table_route_pages_come_back_without_ocr(
    audit_pdf: Path, tmp_path: Path, hidden, threshold: int
) -> None:
    table_route(audit_pdf)
    config = load_config({}, base_dirs=[tmp_path], db_path=tmp_path / "db", cache_dir=tmp_path)
    config = dataclasses.replace(config, ocr_min_chars_per_page=threshold)
    result = convert_file(audit_pdf, config)
    assert result.ocr_engine == ""
    assert [place for _, place in result.marks] == [{"page": 1}, {"page": 2}, {"page": 3}]
    for page, words in ON_PAGE.items():
        assert page_at(result.marks, result.markdown.index(words)) == page
    # the running header and the table header repeat on every page: each on its own page
    headers = [i for i in range(len(result.markdown)) if result.markdown.startswith(HEADER, i)]
    assert [page_at(result.marks, i) for i in headers] == [1, 2, 3]


def test_a_single_page_table_pdf_is_page_1(fixtures: Path, tmp_path: Path, hidden) -> None:
    path = fixtures / "markitdown" / "RECEIPT-2024-TXN-98765_retail_purchase.pdf"
    assert "\f" not in (markitdown_convert(None, path, ".pdf", str(path)).markdown or "")
    config = load_config({}, base_dirs=[tmp_path], db_path=tmp_path / "db", cache_dir=tmp_path)
    assert [place for _, place in convert_file(path, config).marks] == [{"page": 1}]


def test_a_real_form_with_repeated_boilerplate_gets_each_page(fixtures: Path) -> None:
    """markitdown's multi-page estimate: the same letterhead and table rows on pages 1 and
    2, page 3 the disclaimer that also ends page 1 (and the text layers put the letterhead
    last, where markitdown puts it first)."""
    path = fixtures / "markitdown" / REPAIR
    text = table_route(path)
    layers = text_layers(path)
    assert layers is not None
    pages = align_pages(text, layers)
    assert "".join(part for _, part in pages).replace("\n", "") == text.replace("\n", "")
    where = {
        "Gabriel Diaz": 0,
        "Bruce Wayne": 1,
        "211,522": 1,  # page 2's grand total, in a table row
    }
    for words, page in where.items():
        assert [p for p, part in pages if words in part] == [page], words
    disclaimers = [p for p, part in pages for _ in range(part.count(DISCLAIMER))]
    assert disclaimers == [0, 2]
    letterheads = [p for p, part in pages for _ in range(part.count("ZAVA AUTO REPAIR"))]
    assert letterheads == [0, 1]


def test_text_the_layers_do_not_hold_gets_no_page(audit_pdf: Path, fixtures: Path) -> None:
    """Layers that are another document's, or a page whose layer is something else: its
    text is on no page, and no line is put on a page it is not on."""
    text = table_route(audit_pdf)
    layers = text_layers(audit_pdf)
    assert layers is not None
    foreign = text_layers(fixtures / "thesis" / "avtoreferat.pdf")
    assert foreign is not None
    assert {page for page, _ in align_pages(text, foreign[:3])} == {None}
    swapped = [layers[0], foreign[1], layers[2]]
    pages = align_pages(text, swapped)
    assert [p for p, part in pages if ON_PAGE[2] in part] == [None]
    for page, part in pages:
        if page is not None:
            assert AUDIT_PAGES[page][1] in part  # the page's own second line is in its run
            others = [AUDIT_PAGES[k][1] for k in range(3) if k != page]
            assert not any(line in part for line in others)
    assert [p for p, part in pages if ON_PAGE[1] in part] == [0]
    assert [p for p, part in pages if ON_PAGE[3] in part] == [2]
    # the last page's layer empty (pdfium read nothing there): its text is on no page,
    # not on the page before it
    pages = align_pages(text, [layers[0], layers[1], ""])
    assert [p for p, part in pages if ON_PAGE[3] in part] == [None]
    assert [p for p, part in pages if "brass lantern crate 4" in part] == [None]
    assert [p for p, part in pages if ON_PAGE[2] in part] == [1]


def pages_held(text: str) -> set[int]:
    """The audit's pages whose own lines ``text`` holds: its prose and its table rows'
    first cells (not the running header nor the table's header row, on every page)."""
    held = set()
    for page, rows in enumerate(AUDIT_PAGES, start=1):
        lines = [row if isinstance(row, str) else row[0] for row in rows[1:]]  # [0]: header
        if any(line in text for line in lines if line != "Item"):
            held.add(page)
    return held


def test_hits_say_their_page_and_read_file_reads_one(
    audit_pdf: Path, tmp_path: Path, model_env: dict[str, str]
) -> None:
    """Through the service: a hit on page 2's or page 3's text says that page (a passage
    of neighbouring chunks that runs on to the next page spans just the pages whose lines
    it holds), sources list it, and read_file(page=2) gives page 2 without the body of
    pages 1 and 3 (a chunk running on from page 1 comes whole)."""
    from minirag_store import Index

    table_route(audit_pdf)
    root = tmp_path / "docs"
    root.mkdir()
    target = root / "audit.pdf"
    target.write_bytes(audit_pdf.read_bytes())
    env = {**model_env, "BASE_DIR": str(root), "DB_PATH": str(tmp_path / "db")}
    # OCR off: the pages come from the text layers alone; small chunks, one page each
    index = Index.open({**env, "RAG_OCR_MIN_CHARS_PER_PAGE": "0", "CHUNK_TOKEN_BUDGET": "48"})
    try:
        job = index.sync()
        assert job["state"] == "succeeded" and job["counts"]["ingested"] == 1, job
        for page in (2, 3):
            result = index.query(ON_PAGE[page], top_k=3)
            hit = next(h for h in result["results"] if ON_PAGE[page] in h["text"])
            held = pages_held(hit["text"])
            assert hit["locator"]["page"] == page == min(held)
            assert hit["locator"].get("pages") == ([page, max(held)] if max(held) > page else None)
            assert set(range(page, max(held) + 1)) <= set(result["sources"][0]["pages"])
        second = index.read_file(file_path=str(target), page=2)
        assert second["page"] == 2 and ON_PAGE[2] in second["text"]
        assert "copper wire crate 0" not in second["text"]  # early on page 1
        assert "brass lantern crate 4" not in second["text"]  # late on page 3
    finally:
        index.close()


def test_a_file_pdfium_cannot_read_has_no_layers_instead_of_failing(tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.pdf"
    damaged.write_bytes(table_pdf(AUDIT_PAGES)[:200])  # cut off: no page tree, no xref
    assert text_layers(damaged) is None
