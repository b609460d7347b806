"""PDF conversion with per-page OCR routing.

markitdown converts the whole file once (its text and table handling stays). When the OCR
add-on is installed, the text layer of every page is measured (pypdfium2, one pass); a page
with fewer than ``RAG_OCR_MIN_CHARS_PER_PAGE`` non-space characters is rendered and OCRed,
one page at a time, and its text replaces that page *at its position*. Positions come from
markitdown itself: for prose PDFs it emits pdfminer's text, one form feed after each page.
When markitdown took its table route (no page breaks in its output), each run of OCRed
pages is inserted before the line where the next text page's first words occur; only if
such an anchor is missing do the text pages fall back to their plain text layer.

Without OCR (no page needs it, the add-on is missing, or OCR is off) a table-route PDF
still gets its pages: each page's text layer (pypdfium2, text only, no rendering) is found
in markitdown's output (:mod:`minirag_store.convert.pagealign`); a single-page PDF is
page 1 without looking.

Without the add-on a PDF with no text on any page is refused with the install command; a
PDF whose text layer is merely short is kept as it is.

When markitdown reads no text at all from a PDF that has text layers (pdfminer, under
markitdown, finds no page in some files pdfium reads, e.g. a download with bytes before
its ``%PDF`` header), the text layers stand in for its output, page by page.

A PDF markitdown wrote as tables of words (its form test takes the evenly spaced words of
justified columns for a form) while pdfium's lines show no table on any page is read from
its text layers the same way.

Every page is then reflowed into paragraphs (:mod:`minirag_store.convert.reflow`): a page
of markitdown's pdfminer route whose characters are the ones pdfium reads on that page
(95% of its letters and digits) is rebuilt from pdfium's printed lines and their boxes
(:mod:`minirag_store.convert.textlines`), which also keeps the reading order of a
justified line that pdfminer cut into one box a word; any other page (markitdown's tables,
OCR text, a page the two read differently) is reflowed from its text alone.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from minirag_store.convert.engine import printable, strip_data_images
from minirag_store.convert.hyphens import Spelling
from minirag_store.convert.marks import Mark, find_words, join_pages
from minirag_store.convert.ocr import (
    INSTALL_HINT,
    METER,
    OcrBackend,
    backend_errors,
    load_backend,
    reader_for,
)
from minirag_store.convert.pagealign import Pages, align_pages
from minirag_store.convert.reflow import Line, heading_levels, reflow_lines, reflow_text, tabular
from minirag_store.errors import ConversionError, EmptyDocumentError, OcrUnavailableError

if TYPE_CHECKING:
    from pypdfium2 import PdfTextPage

    from minirag_store.config import Config
    from minirag_store.convert.engine import Converted

__all__ = [
    "PDFIUM_LOCK",
    "anchor_pages",
    "convert_pdf",
    "layers_as_pages",
    "page_layouts",
    "reflow_pages",
    "split_pages",
    "text_layers",
]

log = logging.getLogger("minirag_store.convert.pdf")
# pdfium is not thread-safe (pypdfium2's docs): one document at a time per process (an
# ingest_data call in a server thread may meet another, or a page image: pagerender.py).
PDFIUM_LOCK = threading.Lock()


def _chars(text: str) -> int:
    return sum(1 for c in text if not c.isspace())


def split_pages(text: str, page_count: int) -> list[str] | None:
    """markitdown's output cut at its form feeds, when they match the page count."""
    parts = text.split("\f")
    if len(parts) == page_count + 1 and not parts[-1].strip():
        return parts[:page_count]
    if len(parts) == page_count:
        return parts
    return None


def convert_pdf(path: Path, config: Config) -> Converted:
    """Convert a PDF, OCRing the pages without a real text layer (see the module doc).

    ``ocr_engine`` of the result names the engine when at least one page was OCRed; its
    marks say where each page starts (when the pages can be told apart: markitdown's form
    feeds, or the text layers found in its output). Raises :class:`OcrUnavailableError`
    for a scanned PDF the install cannot read and :class:`ConversionError` for a damaged
    PDF or one that yields no text.
    """
    from minirag_store.convert.engine import Converted, markitdown_convert

    result = markitdown_convert(None, path, ".pdf", str(path))
    text = (result.markdown or "").replace("\r\n", "\n")
    layouts = page_layouts(path)
    if not text.strip() or _prose_as_tables(text, layouts):
        text = layers_as_pages(path, layouts)
    pages, engine = _route(path, text, config, layouts)
    # Pictures go page by page, so the page marks hold in the final text.
    pages = [(i, strip_data_images(printable(page))) for i, page in pages]
    markdown, marks = join_pages(reflow_pages(pages, layouts))
    if not markdown.strip():
        why = (
            "OCR is off (RAG_OCR_MIN_CHARS_PER_PAGE=0)"
            if config.ocr_min_chars_per_page <= 0
            else "OCR found no text either"
        )
        raise EmptyDocumentError(f"{path.name} has no text layer and {why}")
    return Converted(markdown, _title(result.title, markdown, marks, path.stem), engine, marks)


def _title(metadata: str | None, markdown: str, marks: tuple[Mark, ...], stem: str) -> str | None:
    """The title: the PDF's own metadata, else the first page's first heading at whatever
    level (a paper's title, a deck's opening slide; not the largest type further on, a
    slide's slogan), else the file's name (:func:`~.titles.choose_title`)."""
    from minirag_store.convert.titles import choose_title, first_heading

    heading = first_heading(markdown[: marks[1][0]] if len(marks) > 1 else markdown)
    return choose_title(metadata, f"# {heading}" if heading else "", stem)


def text_layers(path: Path) -> list[str] | None:
    """The text layer of every page ("" for a page without one), or None when pdfium
    cannot read the file (markitdown could: its pages then stay unknown)."""
    # bounded, not range: full Unicode (range is UCS-2 in pypdfium2 5), and
    # pypdfium2 4 warns on a default range call (a CLI user would see it)
    return _each_text_page(path, lambda textpage: textpage.get_text_bounded())


Layout = tuple[str, list[Line]]
T = TypeVar("T")


def page_layouts(path: Path) -> list[Layout] | None:
    """Every page's text layer and its printed lines with their boxes
    (:func:`minirag_store.convert.textlines.page_lines`), or None when pdfium cannot read
    the file."""
    from minirag_store.convert.textlines import page_lines

    return _each_text_page(path, page_lines)


def _each_text_page(path: Path, read: Callable[[PdfTextPage], T]) -> list[T] | None:
    """``read`` of each page's text page, in order, or None when pdfium cannot read the
    file (logged: markitdown could, so its text stands without pdfium's help)."""
    import pypdfium2 as pdfium

    with PDFIUM_LOCK:
        pdf = None
        try:
            pdf = pdfium.PdfDocument(str(path))
            out: list[T] = []
            for index in range(len(pdf)):
                page = pdf[index]
                textpage = page.get_textpage()
                out.append(read(textpage))
                textpage.close()
                page.close()
            return out
        except pdfium.PdfiumError as e:  # a page markitdown read but pdfium cannot
            log.info("%s: no text layers for the pages (%s)", path, e)
            return None
        finally:
            if pdf is not None:
                pdf.close()


def layers_as_pages(path: Path, layouts: list[Layout] | None) -> str:
    """The text layers of a PDF in the shape of markitdown's pdfminer route (each page
    followed by a form feed), for a PDF markitdown read nothing from; "" when they hold
    no text either (a scan) or pdfium cannot read the file. Each page is then reflowed
    from its lines like any page pdfium reads as markitdown did."""
    layers = [text for text, _ in layouts or []]
    if not any(_chars(layer) for layer in layers):
        return ""
    log.info("%s: markitdown read no text; indexing the PDF's text layers", path)
    return "".join(layer + "\f" for layer in layers)


def _letters(text: str) -> Counter[str]:
    return Counter(c for c in text.lower() if c.isalnum())


def _same_text(page: str, layer: str) -> bool:
    """Whether a page of markitdown's text and pdfium's layer of it hold the same letters
    and digits (95%: the two differ on ligatures, a header, a stray glyph)."""
    a, b = _letters(page), _letters(layer)
    total = max(a.total(), b.total())
    return total > 0 and (a & b).total() >= 0.95 * total


def _prose_as_tables(text: str, layouts: list[Layout] | None) -> bool:
    """Whether markitdown took its table route (no form feeds) for a PDF whose pages
    pdfium reads as prose: the evenly spaced words of justified columns look like a form
    to it, and it writes every printed line as a table row of words. Its tables are kept
    when any page has three lines whose gaps are a table's (:func:`.reflow.tabular`), or
    when the two read different text."""
    if "\f" in text or not layouts:
        return False
    if any(sum(map(tabular, lines)) >= 3 for _, lines in layouts):
        return False
    return _same_text(text, "".join(layer for layer, _ in layouts))


def reflow_pages(pages: Pages, layouts: list[Layout] | None) -> Pages:
    """Each page as paragraphs (module doc): from pdfium's lines where they hold the
    page's text, else from the text. A split word is asked about against the whole
    document's words, and a heading's size is told from the whole document's type."""
    texts = [page for _, page in pages] + [text for text, _ in layouts or ()]
    spelling = Spelling("\n".join(texts))
    levels = heading_levels(line for _, lines in layouts or () for line in lines)
    out: Pages = []
    for index, page in pages:
        layout = layouts[index] if layouts and index is not None and index < len(layouts) else None
        lined = (
            layout is not None
            and not page.lstrip().startswith("<!-- page ")  # an OCRed page
            and "|" not in page  # markitdown's tables
            and _same_text(page, layout[0])
        )
        if lined and layout is not None:
            out.append((index, reflow_lines(layout[1], spelling, levels)))
        else:
            out.append((index, reflow_text(page, spelling)))
    return out


def _pages(path: Path, text: str, layers: list[str] | None = None) -> Pages:
    """markitdown's text cut into pages: at its form feeds (its pdfminer route ends each
    page with one), else (its table route) where each page's text layer is found; one
    page of unknown number when neither can tell."""
    if "\f" in text:
        return list(enumerate(text.split("\f")))
    if not text.strip():
        return [(None, text)]
    if layers is None:
        layers = text_layers(path)
    if not layers:
        return [(None, text)]
    if len(layers) == 1:
        return [(0, text)]
    return align_pages(text, layers)


def _route(
    path: Path, text: str, config: Config, layouts: list[Layout] | None
) -> tuple[Pages, str]:
    """The document's pages and the OCR engine used ("" when no page was OCRed)."""
    threshold = config.ocr_min_chars_per_page
    known = [layer for layer, _ in layouts] if layouts is not None else None
    if threshold <= 0:
        return _pages(path, text, known), ""
    backend = load_backend()
    if backend is None:
        if not text.strip():
            raise OcrUnavailableError(
                f"{path.name} is a scanned PDF (no text layer on any page): reading it needs "
                f"the OCR add-on. Install: {INSTALL_HINT}"
            )
        return _pages(path, text, known), ""
    with backend_errors(backend):
        layers = backend.page_texts(path)
    needs = [i for i, layer in enumerate(layers) if _chars(layer) < threshold]
    if not needs:
        return _pages(path, text, layers), ""
    recognised, engines = _ocr_pages(backend, config, path, needs, layers)
    return _assemble(path, text, layers, recognised), ", ".join(sorted(engines))


def _assemble(path: Path, text: str, layers: list[str], recognised: dict[int, str]) -> Pages:
    """Put each OCRed page's text at its page's position in markitdown's output."""
    pages = split_pages(text, len(layers))
    if pages is not None:
        return [(i, recognised.get(i, page)) for i, page in enumerate(pages)]
    anchored = anchor_pages(text, layers, recognised)
    if anchored is not None:
        return anchored
    log.info("%s: could not place OCR pages in markitdown's output; using text layers", path)
    return [(i, recognised.get(i, layer)) for i, layer in enumerate(layers)]


def anchor_pages(markdown: str, layers: list[str], recognised: dict[int, str]) -> Pages | None:
    """Cut markdown without page breaks into pages, with the OCR page texts in place.

    markitdown's table route joins per-page chunks without a marker, so each text page
    starts at the line where its first words occur (punctuation and table pipes between
    them allowed), searched after the previous page's start; each run of OCRed pages goes
    before the next text page found. A text page not found stays part of the page before
    it (so does a running header the two extractors put in different places). None when
    a run of OCRed pages cannot be placed.
    """
    out: Pages = []
    cursor, current = 0, None
    pending: Pages = []
    for index, layer in enumerate(layers):
        if index in recognised:
            pending.append((index, recognised[index]))
            continue
        after = cursor + 1 if current is not None else cursor  # not the previous page again
        start = find_words(markdown, layer, after) if layer.strip() else None
        if start is None:
            if pending:
                return None
            continue
        if current is None and not pending:
            start = cursor  # what comes before the first page found is that page's too
        out += [(current, markdown[cursor:start]), *pending]
        cursor, current, pending = start, index, []
    return [*out, (current, markdown[cursor:]), *pending]


def ocr_page_mark(index: int, engine: str) -> str:
    """The comment line that marks page ``index`` (0-based) as recognised by ``engine``."""
    return f"<!-- page {index + 1}: OCR ({engine}) -->"


def _ocr_pages(
    backend: OcrBackend, config: Config, path: Path, needs: list[int], layers: list[str]
) -> tuple[dict[int, str], set[str]]:
    """OCR text per page index in ``needs`` (pages where it found text) and engines used.

    The PDF is opened once and its pages are rendered one at a time. A page the engine
    refuses (guarded mode, see minirag_ocr) fails the document only when that page had no
    text at all; a page with a short text layer keeps it, with a warning, and the pages
    after it are still read.
    """
    with METER.timing(len(needs)):
        return _read_pages(backend, config, path, needs, layers)


def _read_pages(
    backend: OcrBackend, config: Config, path: Path, needs: list[int], layers: list[str]
) -> tuple[dict[int, str], set[str]]:
    reader = reader_for(backend, config)
    recognised: dict[int, str] = {}
    remaining = list(needs)
    while remaining:
        done = 0
        try:
            with backend_errors(backend):
                for index, text in reader.read_pdf_pages(path, remaining):
                    done += 1
                    if text.strip():
                        # The mark tells a reader which pages are OCR, not the PDF's own text.
                        recognised[index] = f"{ocr_page_mark(index, reader.engine)}\n{text.strip()}"
        except ConversionError as e:
            failed = remaining[done]
            if not layers[failed].strip():
                raise
            log.warning("%s page %d: OCR failed, keeping its text layer: %s", path, failed + 1, e)
            remaining = remaining[done + 1 :]
            continue
        break
    return recognised, {reader.engine} if recognised else set()
