"""PDF routing with the OCR add-on installed: per-page OCR at the page's position."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
from minirag_store.config import Config, load_config
from minirag_store.convert import ocr
from minirag_store.convert.converter import convert_file
from minirag_store.convert.pdf import anchor_pages, convert_pdf, split_pages
from minirag_store.errors import OcrUnavailableError

samples = pytest.importorskip("minirag_ocr.samples")
engines = pytest.importorskip("minirag_ocr.engines")
pytestmark = pytest.mark.skipif(samples.find_font() is None, reason="no TrueType font")

ALPHA = "Alpha text page about glaciers and fjords of the north."
CHARLIE = "Charlie closing page with the summary of all findings."
SCANNED = ["Quarterly sales report for the northern region", "Bravo scanned page totals"]


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text).casefold()


def make_config(tmp_path: Path, **changes: object) -> Config:
    base = load_config({}, base_dirs=[tmp_path], db_path=tmp_path / "db", cache_dir=tmp_path)
    return dataclasses.replace(base, **changes)


@pytest.fixture(autouse=True)
def fresh_probe():
    ocr.load_backend.cache_clear()
    yield
    ocr.load_backend.cache_clear()


@pytest.fixture(scope="module")
def mixed_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    scan = samples.image_pdf(samples.text_image(SCANNED))
    parts = [samples.text_pdf([[ALPHA]]), scan, samples.text_pdf([[CHARLIE]])]
    return samples.join_pdfs(parts, tmp_path_factory.mktemp("pdf") / "mixed.pdf")


def test_scanned_page_text_lands_in_page_order_and_only_it_is_ocred(
    mixed_pdf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend = ocr.load_backend()
    assert backend is not None
    asked: list[list[int]] = []
    real_reader = backend.reader

    def spying_reader(languages):
        reader = real_reader(languages)
        real_read = reader.read_pdf_pages

        def read_pdf_pages(path, pages):
            asked.append(list(pages))
            return real_read(path, pages)

        reader.read_pdf_pages = read_pdf_pages
        return reader

    monkeypatch.setattr(backend, "reader", spying_reader)
    result = convert_file(mixed_pdf, make_config(tmp_path, ocr_lang="en"))
    assert asked == [[1]]  # the two text pages kept their text layer
    assert result.ocr_engine == "rapidocr"
    text = result.markdown
    assert ALPHA in text and CHARLIE in text
    found = squash(text).index(squash(SCANNED[0]))
    assert squash(text).index(squash(ALPHA)) < found < squash(text).index(squash(CHARLIE))
    # only the scanned page is marked as OCR, right where its text begins
    assert text.count("OCR (") == 1 and "<!-- page 2: OCR (rapidocr) -->" in text


def test_threshold_zero_disables_ocr(mixed_pdf: Path, tmp_path: Path) -> None:
    result = convert_pdf(mixed_pdf, make_config(tmp_path, ocr_min_chars_per_page=0))
    assert result.ocr_engine == ""
    assert "Quarterly" not in result.markdown and CHARLIE in result.markdown


def test_text_pdf_is_not_ocred(tmp_path: Path) -> None:
    path = tmp_path / "text.pdf"
    path.write_bytes(samples.text_pdf([[ALPHA], [CHARLIE]]))
    result = convert_pdf(path, make_config(tmp_path))
    assert result.ocr_engine == ""
    assert result.markdown.index(ALPHA) < result.markdown.index(CHARLIE)
    assert "\f" not in result.markdown


def test_form_feeds_split_into_pages() -> None:
    assert split_pages("a\n\fb\f\fc", 4) == ["a\n", "b", "", "c"]
    assert split_pages("a\fb\f", 2) == ["a", "b"]
    assert split_pages("one block of tables", 3) is None


def test_ocr_pages_are_anchored_in_output_without_page_breaks() -> None:
    """markitdown's table route: no form feeds, pipes between words, page number last."""
    markdown = (
        "| Region | Sales |\n|---|---|\n| North | 10 |\n\n| Summary of | the year | 2024 |\n3"
    )
    layers = ["Region Sales North 10", "", "3 Summary of the year 2024", ""]
    recognised = {1: "SCANNED PAGE TWO", 3: "SCANNED PAGE FOUR"}
    pages = anchor_pages(markdown, layers, recognised)
    assert pages is not None
    merged = "".join(text for _, text in pages)
    order = ["| North | 10 |", "SCANNED PAGE TWO", "| Summary of |", "SCANNED PAGE FOUR"]
    positions = [merged.index(part) for part in order]
    assert positions == sorted(positions)
    # each piece keeps its page: the text pages found by their first words, OCR in place
    numbered = [(page, text.strip()) for page, text in pages if text.strip()]
    assert [page for page, _ in numbered] == [0, 1, 2, 3]
    assert numbered[2][1].startswith("| Summary of |")
    assert anchor_pages(markdown, ["x", "", "words that are not there"], {1: "T"}) is None


def test_explicit_language_without_its_pack_names_the_install(
    mixed_pdf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engines, "tesseract_languages", lambda: frozenset({"eng", "rus"}))
    with pytest.raises(OcrUnavailableError, match=r"apt-get install .*tesseract-ocr-ukr"):
        convert_pdf(mixed_pdf, make_config(tmp_path, ocr_lang="uk"))


def test_status_names_the_engines(tmp_path: Path) -> None:
    status = ocr.ocr_status(make_config(tmp_path, ocr_lang="en"))
    assert "ocrHint" not in status  # Latin needs nothing beyond the add-on
    assert status["ocr"].split(", ")[0] == "rapidocr"
    assert ("tesseract" in status["ocr"]) == bool(engines.tesseract_languages() - {"osd"})


@pytest.mark.parametrize(
    ("packs", "hint"),
    [
        ({"eng", "rus", "ukr", "bel"}, None),
        ({"eng", "rus"}, "OCR languages uk, be have no Tesseract pack"),
        (set(), "Cyrillic OCR (ru, uk, be) needs Tesseract"),
    ],
)
def test_status_says_once_which_language_packs_are_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, packs: set[str], hint: str | None
) -> None:
    """The default eslav selection reads with what is installed; what is missing is
    reported by status (not warned by every parse worker on every sync)."""
    monkeypatch.setattr(engines, "tesseract_languages", lambda: frozenset(packs))
    status = ocr.ocr_status(make_config(tmp_path))
    if hint is None:
        assert "ocrHint" not in status
    else:
        assert status["ocrHint"].startswith(hint) and "apt-get install" in status["ocrHint"]


def test_status_names_the_pack_an_explicit_language_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engines, "tesseract_languages", lambda: frozenset({"eng"}))
    status = ocr.ocr_status(make_config(tmp_path, ocr_lang="uk"))
    assert "tesseract-ocr-ukr" in status["ocrHint"]


def _needs_tesseract_rus() -> None:
    if "rus" not in engines.tesseract_languages():
        pytest.skip("tesseract with the Russian pack (the default eslav engine) not installed")


def _ocr_expected(expected_json: Path) -> dict[str, list[str]]:
    return json.loads(expected_json.read_text(encoding="utf-8"))["ocr_expected"]["files"]


#: A real scanned page (page 1 of markitdown's medical report scan; no text layer).
MEDICAL_SCAN = "MEDRPT-2024-PAT-3847_medical_report_scan_p1.pdf"


def test_a_real_scanned_page_with_tesseract(fixtures: Path, tmp_path: Path) -> None:
    _needs_tesseract_rus()
    result = convert_file(fixtures / "markitdown" / MEDICAL_SCAN, make_config(tmp_path))
    assert result.ocr_engine == "tesseract"
    text = " ".join(result.markdown.split())
    for expected in _ocr_expected(fixtures / "markitdown" / "expected_strings.json")[MEDICAL_SCAN]:
        assert " ".join(expected.split()) in text


def test_a_real_scanned_page_with_rapidocr_alone(fixtures: Path, tmp_path: Path) -> None:
    config = make_config(tmp_path, ocr_lang="en")
    result = convert_file(fixtures / "markitdown" / MEDICAL_SCAN, config)
    assert result.ocr_engine == "rapidocr"
    for expected in _ocr_expected(fixtures / "markitdown" / "expected_strings.json")[MEDICAL_SCAN]:
        assert squash(expected) in squash(result.markdown)  # rapidocr drops some spaces


def test_a_real_cyrillic_scan_with_tesseract(fixtures: Path, tmp_path: Path) -> None:
    """The thesis summary's title page, rasterised: read by the default eslav engine."""
    _needs_tesseract_rus()
    thesis = fixtures / "thesis"
    expected = json.loads((thesis / "expected_strings.json").read_text(encoding="utf-8"))
    result = convert_file(thesis / "avtoreferat_scan_p1.pdf", make_config(tmp_path))
    assert result.ocr_engine == "tesseract"
    text = " ".join(result.markdown.split())
    for want in expected["files"]["avtoreferat_scan_p1.pdf"]["ocr_must_include"]:
        assert want in text


SCANS = [
    "ocr_test_data/pdf_scanned_invoice.pdf",
    "ocr_test_data/pdf_scanned_meeting_minutes.pdf",
    "ocr_test_data/pdf_scanned_minimal.pdf",
    "ocr_test_data/pdf_scanned_sales_report.pdf",
]


@pytest.mark.corpus
@pytest.mark.parametrize("relative", SCANS)
def test_image_only_pdfs_with_tesseract(shared_data: Path, tmp_path: Path, relative: str) -> None:
    """markitdown-ocr's four scanned pages (2.6 MB each, too big to vendor)."""
    _needs_tesseract_rus()
    data = shared_data / "markitdown_test_files"
    result = convert_file(data / relative, make_config(tmp_path))
    assert result.ocr_engine == "tesseract"
    text = " ".join(result.markdown.split())
    for expected in _ocr_expected(data / "expected_strings.json")[relative]:
        assert " ".join(expected.split()) in text


RUSSIAN = ["Белорусский государственный университет", "Информационная система анализа"]


def test_without_tesseract_a_cyrillic_scan_fails_but_a_short_layer_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Default eslav, no Tesseract: RapidOCR must not index its garbage for Cyrillic."""
    monkeypatch.setattr(engines, "tesseract_languages", frozenset)
    russian_scan = samples.image_pdf(samples.text_image(RUSSIAN))
    scanned = samples.join_pdfs([samples.text_pdf([[ALPHA]]), russian_scan], tmp_path / "a.pdf")
    with pytest.raises(OcrUnavailableError, match=r"a\.pdf page 2.*tesseract-ocr-rus"):
        convert_file(scanned, make_config(tmp_path))
    # The same page behind a short text layer ("Appendix") keeps that layer instead.
    short = samples.text_pdf([["Appendix"]])
    path = samples.join_pdfs([samples.text_pdf([[ALPHA]]), short], tmp_path / "b.pdf")
    overlay = samples.join_pdfs([russian_scan], tmp_path / "scan.pdf")
    _stamp(path, overlay, page=1)
    result = convert_file(path, make_config(tmp_path))
    assert "Appendix" in result.markdown and ALPHA in result.markdown
    assert result.ocr_engine == ""


def _stamp(target: Path, picture_pdf: Path, page: int) -> None:
    """Draw the first page of ``picture_pdf`` onto ``target``'s page, under its text."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(target.read_bytes())
    source = pdfium.PdfDocument(picture_pdf.read_bytes())
    stamped = pdf[page]
    stamped.insert_obj(source.page_as_xobject(0, pdf).as_pageobject())
    stamped.gen_content()
    pdf.save(str(target))


ROTATED = [
    "Rotated pages arrive from every office scanner",
    "The engine reads this report upright again",
    "Orientation detection turns the page before reading",
    "Warehouse inventory totals for the second quarter",
    "Seventeen pallets of copper wire were counted",
]


@pytest.mark.parametrize("angle", [90, 180, 270])
def test_a_rotated_scan_is_read_upright_by_tesseract(tmp_path: Path, angle: int) -> None:
    """A page scanned sideways or upside down: OSD finds the angle, the text reads upright."""
    _needs_tesseract_rus()
    page = samples.text_image(ROTATED).rotate(angle, expand=True, fillcolor=255)
    path = samples.join_pdfs([samples.image_pdf(page)], tmp_path / f"rotated_{angle}.pdf")
    result = convert_file(path, make_config(tmp_path))
    assert result.ocr_engine == "tesseract"
    text = " ".join(result.markdown.split())
    for line in ROTATED:
        assert line in text


@pytest.mark.corpus
@pytest.mark.parametrize("angle", [180, 270])
def test_rotated_scans_are_read_upright_by_tesseract(
    shared_data: Path, tmp_path: Path, angle: int
) -> None:
    """kreuzberg's image-only test PDFs, turned by their page content; OSD finds the angle."""
    _needs_tesseract_rus()
    path = shared_data / f"kreuzberg_test_documents/pdfs/ocr_test_rotated_{angle}.pdf"
    result = convert_file(path, make_config(tmp_path))
    assert result.ocr_engine == "tesseract"
    assert "Docling bundles PDF document conversion" in " ".join(result.markdown.split())


def test_a_scanned_page_keeps_its_page_through_ocr_to_the_hit(
    mixed_pdf: Path, tmp_path: Path, model_env: dict[str, str]
) -> None:
    """Text page 1, scanned page 2, text page 3: the OCR text is found on page 2 (a
    passage joining it to its neighbours spans exactly their pages), and read_file with
    page 2 gives it back (without the text pages around it)."""
    from minirag_store import Index

    root = tmp_path / "docs"
    root.mkdir()
    target = root / "mixed.pdf"
    target.write_bytes(mixed_pdf.read_bytes())
    env = {**model_env, "BASE_DIR": str(root), "DB_PATH": str(tmp_path / "db")}
    # small chunks, so no chunk holds more than one of these short pages
    index = Index.open({**env, "RAG_OCR_LANG": "en", "CHUNK_TOKEN_BUDGET": "16"})
    try:
        assert index.ingest_file(str(target))["ocrEngine"] == "rapidocr"
        query = "quarterly sales report northern region"
        (scanned,) = index.query(query, top_k=1)["results"]  # the best chunk alone
        assert "Quarterly" in scanned["text"]
        assert scanned["locator"]["page"] == 2 and "pages" not in scanned["locator"]
        (text_hit,) = index.query(CHARLIE, top_k=1)["results"]
        assert "Charlie" in text_hit["text"]
        assert text_hit["locator"]["page"] == 3 and "pages" not in text_hit["locator"]
        # neighbours of one section come as one passage: it spans the pages it holds
        hits = index.query(query, top_k=3)["results"]
        assert any("Quarterly" in h["text"] for h in hits)
        for hit in hits:
            held = [n for n, words in enumerate(["Alpha", "Quarterly", "Charlie"], 1)
                    if words in hit["text"]]  # fmt: skip
            assert hit["locator"]["page"] == min(held)
            span = [min(held), max(held)] if len(held) > 1 else None
            assert hit["locator"].get("pages") == span
        page = index.read_file(file_path=str(target), page=2)["text"]
        assert "Quarterly sales report" in page
        assert "Alpha text page" not in page and "Charlie closing" not in page
    finally:
        index.close()


def test_an_ocred_page_is_reflowed_into_its_paragraph(tmp_path: Path) -> None:
    """OCR gives a line per printed line; the page's text comes back as the paragraph
    (convert/reflow.py), after its page mark, the short closing line ending it."""
    lines = [
        "The glacier survey drones mapped the northern fjord",
        "twice during the storm season, and the elevation",
        "models showed it had retreated.",
        "Signed by the field office",
    ]
    scan = samples.image_pdf(samples.text_image(lines))
    path = samples.join_pdfs([samples.text_pdf([[ALPHA]]), scan], tmp_path / "scan.pdf")
    text = convert_file(path, make_config(tmp_path, ocr_lang="en")).markdown
    page = text[text.index("<!-- page 2: OCR") :]
    mark, body = page.split("\n", 1)
    assert mark.endswith("-->")
    first, last = body.split("\n\n")
    assert "northern fjord twice during the storm season, and the elevation" in first
    assert last == "Signed by the field office"
