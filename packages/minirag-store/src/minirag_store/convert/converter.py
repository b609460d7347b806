"""Turning files and caller-held content into markdown plus a title.

Office formats, PDF, HTML, CSV, EPUB and notebooks go through ``markitdown``. Plain text
and markdown are only decoded, which is all markitdown would do with them. Text formats
are decoded here first (:mod:`minirag_store.convert.encoding`) because a cp1251 or cp932 CSV read
as UTF-8 would index mojibake. PDFs go through :mod:`minirag_store.convert.pdf` and images
through :mod:`minirag_store.convert.ocr`; markitdown itself runs in
:mod:`minirag_store.convert.engine`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from minirag_store.convert.encoding import decode_text
from minirag_store.convert.engine import Converted, finish, markitdown_convert
from minirag_store.convert.formats import (
    DATA_FORMATS,
    DECODED_EXTENSIONS,
    DOCUMENT_EXTENSIONS,
    IMAGE_EXTENSIONS,
    PLAIN_EXTENSIONS,
    ZIP_EXTENSIONS,
)
from minirag_store.convert.marks import Mark, slide_marks, table_marks
from minirag_store.convert.titles import choose_title
from minirag_store.errors import ConversionError, EmptyDocumentError, InvalidArgumentError

if TYPE_CHECKING:
    from minirag_store.config import Config

__all__ = ["convert_data", "convert_file"]


def _check_size(path: Path, config: Config) -> None:
    try:
        size = path.stat().st_size
    except FileNotFoundError as e:
        raise ConversionError(f"{path} does not exist (deleted or moved?)") from e
    except OSError as e:
        raise ConversionError(f"Cannot read {path}: {e.strerror or e}") from e
    if size > config.max_file_size:
        raise ConversionError(
            f"{path} is {size:,} bytes, over MAX_FILE_SIZE ({config.max_file_size:,} bytes); "
            "raise MAX_FILE_SIZE to index it"
        )


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as e:
        raise ConversionError(f"Cannot read {path}: {e.strerror or e}") from e


def _check_notebook(path: Path) -> None:
    import json

    try:
        cells = json.loads(path.read_bytes()).get("cells")
    except (ValueError, AttributeError) as e:
        raise ConversionError(f"{path} is not a valid Jupyter notebook: {e}") from e
    if not isinstance(cells, list):
        raise ConversionError(f"{path} is not a valid Jupyter notebook: it has no cells")


def _check_container(path: Path, ext: str) -> None:
    """Refuse a file whose bytes are not the container its extension promises.

    Without this, markitdown falls back to its plain-text converter when magika sees text,
    and a damaged ``.docx`` would be indexed as its own raw bytes.
    """
    import zipfile

    try:
        if ext in ZIP_EXTENSIONS and not zipfile.is_zipfile(path):
            raise ConversionError(f"{path} is not a valid {ext} file (not a zip container)")
        if ext == ".pdf":
            with path.open("rb") as fh:
                head = fh.read(1024)
            if b"%PDF-" not in head:
                raise ConversionError(f"{path} is not a valid PDF file (no %PDF header)")
        if ext == ".ipynb":
            _check_notebook(path)
    except OSError as e:
        raise ConversionError(f"Cannot read {path}: {e.strerror or e}") from e


def convert_file(path: Path, config: Config) -> Converted:
    """Convert one file to markdown and choose its title.

    The size limit is checked before anything is parsed. Raises :class:`ConversionError`
    (with the reason) when the file is unsupported, too large, unreadable, damaged or
    yields no text, and :class:`OcrUnavailableError` for an image without the OCR add-on.
    """
    ext = path.suffix.lower()
    if ext not in DOCUMENT_EXTENSIONS and ext not in IMAGE_EXTENSIONS:
        supported = " ".join(sorted(DOCUMENT_EXTENSIONS))
        raise ConversionError(f"{path.name}: unsupported file type {ext or '(none)'}; "
                              f"supported: {supported}")  # fmt: skip
    _check_size(path, config)
    if ext in IMAGE_EXTENSIONS:
        from minirag_store.convert.ocr import convert_image

        return convert_image(path, config)
    _check_container(path, ext)
    if ext == ".pdf":
        from minirag_store.convert.pdf import convert_pdf

        return convert_pdf(path, config)
    what = path.name  # the job entry or the caller already holds the full path
    if ext in PLAIN_EXTENSIONS:
        text = decode_text(_read(path))
        if not text.strip():  # say what is wrong: nothing in the file, not a failed parse
            raise EmptyDocumentError(f"{path.name} is empty: there is no text to index")
        markdown = finish(text, what)
        return Converted(markdown, choose_title(None, markdown, path.stem))
    if ext in DECODED_EXTENSIONS:
        text = decode_text(_read(path), html=ext != ".csv")
        result = markitdown_convert(text.encode("utf-8"), None, ext, what)
    elif ext == ".docx":  # embedded (altChunk) parts too, and a check on the unpacked size
        from minirag_store.convert.altchunk import convert_docx

        result = convert_docx(path, config.max_file_size, what)
    else:
        result = markitdown_convert(None, path, ext, what)
    markdown = finish(result.markdown or "", what)
    marks = _marks(path, markdown, ext)
    return Converted(markdown, choose_title(result.title, markdown, path.stem), "", marks)


def _marks(path: Path, markdown: str, ext: str) -> tuple[Mark, ...]:
    """Where the slides, sheet rows or chapters of a converted file start (see marks.py)."""
    if ext == ".pptx":
        return slide_marks(markdown)
    if ext in (".xlsx", ".xls", ".csv"):
        return table_marks(markdown, workbook=ext != ".csv")
    if ext == ".epub":
        from minirag_store.convert.epub import chapter_marks

        return chapter_marks(path, markdown)
    return ()


def convert_data(data: str, format: str, title: str | None = None) -> Converted:
    """Convert content a caller holds (``format``: text | markdown | html).

    The title is the explicit ``title``, else the HTML ``<title>`` or the first H1, else
    None: a source id identifies a document without describing it.
    """
    fmt = (format or "").strip().lower()
    if fmt not in DATA_FORMATS:
        raise InvalidArgumentError(
            f"Unknown format {format!r}; use one of: {', '.join(DATA_FORMATS)}"
        )
    if not isinstance(data, str) or not data.strip():
        raise InvalidArgumentError("data is empty; pass the text, markdown or html to index")
    meta: str | None = None
    if fmt == "html":
        result = markitdown_convert(data.encode("utf-8"), None, ".html", "the html data")
        markdown, meta = result.markdown or "", result.title
    else:
        markdown = data
    markdown = finish(markdown, f"The {fmt} data")
    explicit = " ".join(title.split()) if title else ""
    return Converted(markdown, explicit or choose_title(meta, markdown, None))
