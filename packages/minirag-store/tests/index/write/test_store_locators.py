"""Every hit says where it is: the page of a PDF, the slide of a deck, the sheet and rows of
a workbook, the heading path; read_file reads one page or slide. Real files, real
conversion, real model and LanceDB."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from minirag_store.errors import InvalidArgumentError, NotFoundError
from minirag_testkit.answers import expand

PDF = "avtoreferat.pdf"  # 6 pages of text (a thesis abstract, Russian)
DECK = "test.pptx"  # 6 slides
BOOK = "budget.xlsx"  # sheets "Summary" and "Q3"
GUIDE = "guide.md"
BOOK_EPUB = "test.epub"  # a table of contents, then two chapters
LEDGER = "ledger.csv"  # a header line, then 30 rows; line 17 is the harpoon one
ON_PAGE_4 = "Диссертация состоит из пяти глав"


def write_workbook(path: Path) -> None:
    """A workbook of two sheets; row 7 of "Q3" (its header is row 1) holds the glacier line."""
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    summary = book.active
    summary.title = "Summary"
    summary.append(["Quarter", "Total"])
    for quarter, total in (("Q1", 120), ("Q2", 135), ("Q3", 150)):
        summary.append([quarter, total])
    q3 = book.create_sheet("Q3")
    q3.append(["Item", "Owner", "Note"])
    for n in range(2, 13):
        note = (
            "Glacier survey flights over Svalbard approved by the board"
            if n == 7
            else f"routine office supplies order number {n}"
        )
        q3.append([f"item-{n}", "finance", note])
    book.save(path)


@pytest.fixture(scope="module")
def located(tmp_path_factory, model_env, fixtures):
    """``(index, root)``: a PDF, a deck, a workbook and a markdown guide, synced once."""
    from minirag_store import Index

    base = tmp_path_factory.mktemp("locators")
    root = base / "docs"
    root.mkdir()
    shutil.copy(fixtures / "thesis" / PDF, root / PDF)
    shutil.copy(fixtures / "markitdown" / DECK, root / DECK)
    shutil.copy(fixtures / "markitdown" / BOOK_EPUB, root / BOOK_EPUB)
    write_workbook(root / BOOK)
    lines = ["id,item,note"] + [
        f"{n},item-{n},"
        + ("harpoon repair for the whaling museum" if n == 17 else f"paper clips box {n}")
        for n in range(2, 32)
    ]
    (root / LEDGER).write_text("\n".join(lines) + "\n", encoding="utf-8")
    (root / GUIDE).write_text(
        "# Guide\n\n## Backups\n\nBackups run every night and keep fourteen snapshots.\n\n"
        "## Alerts\n\nThe on-call phone rings when a disk is ninety percent full.\n",
        encoding="utf-8",
    )
    env = {**model_env, "BASE_DIR": str(root), "DB_PATH": str(base / "db")}
    env["RAG_OCR_MIN_CHARS_PER_PAGE"] = "0"  # text pages only: the form-feed path, no OCR
    index = Index.open(env)
    job = index.sync()
    assert job["state"] == "succeeded" and job["counts"]["failed"] == 0, job
    yield index, root
    index.close()


def top_hit(index, query: str, name: str, holding: str = "") -> dict:
    """The best hit of ``query`` in the file ``name`` whose text holds ``holding``."""
    result = expand(index.query(query, top_k=8))
    hits = [h for h in result["results"] if Path(h["source"]).name == name]
    hits = [h for h in hits if holding in h["text"]]
    assert hits, f"no hit in {name} for {query!r}"
    return hits[0]


def test_a_pdf_hit_says_its_page_and_sources_list_the_pages_hit(located):
    index, _ = located
    result = expand(index.query(ON_PAGE_4, top_k=3))
    hit = result["results"][0]
    assert Path(hit["source"]).name == PDF
    # the chunk may open with page 3's last paragraph (reflowed PDF text packs whole)
    assert (
        hit["locator"]["page"] <= 4 <= hit["locator"].get("pages", [0, hit["locator"]["page"]])[1]
    )
    source = next(s for s in result["sources"] if s["source"] == hit["source"])
    assert 4 in source["pages"] and source["pages"] == sorted(source["pages"])


def test_read_file_with_a_page_returns_that_page_only(located):
    index, root = located
    page = index.read_file(file_path=str(root / PDF), page=5)
    assert page["page"] == 5
    assert "ЗАКЛЮЧЕНИЕ" in page["text"]
    assert "СОДЕРЖАНИЕ РАБОТЫ" not in page["text"]  # page 4's heading
    # a chunk running on to page 6 comes whole, but page 6's own text stays out
    assert "[1–А]" not in page["text"]
    whole = index.read_file(file_path=str(root / PDF))
    assert "СОДЕРЖАНИЕ РАБОТЫ" in whole["text"] and page["chunkCount"] == whole["chunkCount"]


def test_page_and_slide_arguments_are_checked_with_what_to_do(located):
    index, root = located
    pdf, deck, guide = str(root / PDF), str(root / DECK), str(root / GUIDE)
    with pytest.raises(NotFoundError, match=r"pages 1\.\.6 .*page 7 does not exist"):
        index.read_file(file_path=pdf, page=7)
    with pytest.raises(InvalidArgumentError, match="page must be at least 1"):
        index.read_file(file_path=pdf, page=0)
    with pytest.raises(InvalidArgumentError, match="not both"):
        index.read_file(file_path=deck, page=1, slide=1)
    with pytest.raises(InvalidArgumentError, match=r"has no pages .*read it without page"):
        index.read_file(file_path=deck, page=2)
    with pytest.raises(InvalidArgumentError, match=r"has no slides .*read it without slide"):
        index.read_file(file_path=pdf, slide=2)
    with pytest.raises(InvalidArgumentError, match="has no pages"):
        index.read_file(file_path=guide, page=1)


def test_a_deck_hit_says_its_slide_and_read_file_reads_one_slide(located):
    index, root = located
    hit = top_hit(index, "a nested shape with content in 2 shapes", DECK)
    assert hit["locator"]["slide"] == 5
    assert "headingPath" not in hit["locator"]  # a slide is where it is
    slide = index.read_file(file_path=str(root / DECK), slide=3)
    assert slide["slide"] == 3
    assert "A table to test parsing" in slide["text"]
    assert "### Chart:" not in slide["text"]  # slide 4
    assert "Nested Shape" not in slide["text"]
    with pytest.raises(NotFoundError, match=r"slides 1\.\.6"):
        index.read_file(file_path=str(root / DECK), slide=9)


def test_a_workbook_hit_says_its_sheet_and_rows(located):
    index, _ = located
    hit = top_hit(index, "glacier survey flights over Svalbard", BOOK, "Glacier survey")
    assert hit["locator"]["sheet"] == "Q3"
    first, last = hit["locator"]["rows"]
    assert first <= 7 <= last
    assert hit["locator"]["headingPath"] == "Q3"
    summary = top_hit(index, "Quarter Total", BOOK, "| Q2 | 135 |")
    assert summary["locator"]["sheet"] == "Summary"


def test_a_csv_hit_says_its_rows_counting_the_header_as_row_1(located):
    index, _ = located
    hit = top_hit(index, "harpoon repair for the whaling museum", LEDGER, "harpoon")
    first, last = hit["locator"]["rows"]
    assert first <= 17 <= last and "sheet" not in hit["locator"]


def test_an_epub_hit_says_its_chapter(located):
    from minirag_store.locators import describe

    index, root = located
    hit = top_hit(index, "a second chapter with a different style", BOOK_EPUB, "second chapter")
    assert hit["locator"]["chapter"] == 2  # the table of contents is no chapter
    assert describe(hit["locator"]) == "chapter 2"
    first = top_hit(index, "a test paragraph with some formatting", BOOK_EPUB, "**test**")
    assert first["locator"]["chapter"] == 1
    with pytest.raises(InvalidArgumentError, match="has no pages"):
        index.read_file(file_path=str(root / BOOK_EPUB), page=1)


def test_a_markdown_hit_has_its_heading_path_only(located):
    index, _ = located
    hit = top_hit(index, "on-call phone rings when a disk is full", GUIDE)
    assert hit["locator"] == {"headingPath": "Guide > Alerts"}


def test_an_index_from_before_locators_is_searched_then_brought_up_to_date_by_sync(
    tmp_path, model_env, fixtures
):
    """An index written before the locator column: queries work (no locator yet),
    read_file with a page says to sync, and one plain sync re-reads its files once."""
    from minirag_store import Index
    from minirag_store.index.storage import summary
    from store_rows import lance_table

    root = tmp_path / "docs"
    root.mkdir()
    shutil.copy(fixtures / "thesis" / PDF, root / PDF)
    (root / GUIDE).write_text("# Guide\n\nBackups run every night.\n", encoding="utf-8")
    env = {**model_env, "BASE_DIR": str(root), "DB_PATH": str(tmp_path / "db")}
    env["RAG_OCR_MIN_CHARS_PER_PAGE"] = "0"
    first = Index.open(env)
    assert first.sync()["counts"]["ingested"] == 2
    first.close()
    lance_table(tmp_path / "db").drop_columns(["locator"])  # what an older release wrote
    (tmp_path / "db" / summary.FILE_NAME).unlink(missing_ok=True)

    old = Index.open(env)
    try:
        status = old.status()
        assert "2 files were indexed before hits said their page" in status["schemeWarning"]
        assert {f["state"] for f in old.list_files()["files"]} == {"stale_scheme"}
        hit = expand(old.query(ON_PAGE_4, top_k=1))["results"][0]
        assert Path(hit["source"]).name == PDF and hit["locator"] == {}
        with pytest.raises(InvalidArgumentError, match=r"indexed before pages .* run sync"):
            old.read_file(file_path=str(root / PDF), page=4)
        job = old.sync()
        assert job["counts"]["ingested"] == 2, job  # every file re-read, once
        locator = expand(old.query(ON_PAGE_4, top_k=1))["results"][0]["locator"]
        assert locator["page"] <= 4 <= locator.get("pages", [0, locator["page"]])[1]
        assert "ЗАКЛЮЧЕНИЕ" in old.read_file(file_path=str(root / PDF), page=5)["text"]
        assert old.sync()["counts"]["ingested"] == 0
        assert old.status()["schemeWarning"] is None
        assert {f["state"] for f in old.list_files()["files"]} == {"ingested"}
    finally:
        old.close()
    fresh = Index.open(env)  # as another process sees it: from the index summary
    try:
        assert fresh.sync()["counts"]["ingested"] == 0
    finally:
        fresh.close()


def test_rows_stay_right_where_a_long_table_repeats_its_header():
    """The chunker cuts a table longer than a section and repeats its header rows in the
    text it chunks; each chunk's rows still match the row numbers of the text it holds."""
    import re

    from minirag_chunker import chunk_markdown
    from minirag_store.convert.marks import table_marks
    from minirag_store.index.write.chunk_locators import locate

    rows = [f"| row-{n} | {'word ' * 6}|" for n in range(2, 400)]
    markdown = "## Ledger\n| Name | Words |\n| --- | --- |\n" + "\n".join(rows)
    chunked = chunk_markdown(markdown, count_tokens=lambda t: len(t.split()), budget=60)
    assert sum(u.body.count("| Name | Words |") for u in chunked.units) > 1  # repeated
    locators = locate(markdown, table_marks(markdown, workbook=True), chunked)
    for unit, locator in zip(chunked.units, locators, strict=True):
        held = [int(n) for n in re.findall(r"\| row-(\d+) \|", unit.body)]
        if held:
            first, last = locator["rows"]
            assert locator["sheet"] == "Ledger"
            assert first <= min(held) and max(held) <= last <= max(held) + 1
