"""Turning files and caller-held content into markdown plus a title.

Office formats, PDF, HTML, CSV, EPUB and notebooks go through ``markitdown`` (one instance,
created on first use: it loads magika's model and takes seconds to import). Plain text
and markdown are only decoded, which is all markitdown would do with them. Text formats
are decoded here first (:mod:`minirag_store.encoding`) because a cp1251 or cp932 CSV read
as UTF-8 would index mojibake. PDFs go through :mod:`minirag_store.pdf` and images
through :mod:`minirag_store.ocr`.

Every result has its inlined ``![alt](data:…)`` pictures replaced by their alt text:
markitdown writes one per embedded picture, and on a real office corpus they made 8.5% of
all chunks while carrying no searchable words.
"""

from __future__ import annotations

import io
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from minirag_store.encoding import decode_text
from minirag_store.errors import ConversionError, InvalidArgumentError
from minirag_store.titles import choose_title, mark_code_lines

if TYPE_CHECKING:
    from markitdown import MarkItDown

    from minirag_store.config import Config

__all__ = [
    "DATA_FORMATS",
    "DOCUMENT_EXTENSIONS",
    "IMAGE_EXTENSIONS",
    "OCR_INSTALL_HINT",
    "Converted",
    "convert_data",
    "convert_file",
    "markitdown_convert",
    "ocr_available",
    "strip_data_images",
]

#: The 12 document extensions every install reads.
DOCUMENT_EXTENSIONS: frozenset[str] = frozenset(
    {".md", ".markdown", ".txt", ".pdf", ".docx", ".pptx", ".xlsx", ".html", ".htm", ".csv",
     ".epub", ".ipynb"}
)  # fmt: skip
#: Image extensions, read only when the OCR add-on is installed.
IMAGE_EXTENSIONS: frozenset[str] = frozenset(
    {".png", ".jpg", ".jpeg", ".tiff", ".tif", ".bmp", ".webp"}
)
#: ``ingest_data`` formats.
DATA_FORMATS: tuple[str, ...] = ("text", "markdown", "html")
OCR_INSTALL_HINT = "uv tool install 'minirag-mcp[ocr]'  (or: pip install 'minirag-cli[ocr]')"

_PLAIN_EXTENSIONS = frozenset({".md", ".markdown", ".txt"})
_DECODED_EXTENSIONS = frozenset({".csv", ".html", ".htm"})
_ZIP_EXTENSIONS = frozenset({".docx", ".pptx", ".xlsx", ".epub"})
_DATA_IMAGE = re.compile(r"!\[([^\]]*)\]\(\s*<?data:[^)]*\)")

_markitdown: MarkItDown | None = None
_markitdown_lock = threading.Lock()


@dataclass(frozen=True)
class Converted:
    """A converted document: its markdown, its chosen title, and the OCR engine used ("")."""

    markdown: str
    title: str | None
    ocr_engine: str = ""


def _engine() -> MarkItDown:
    """The process-wide MarkItDown instance, created once on first use."""
    global _markitdown  # noqa: PLW0603 - a lazily built process singleton
    with _markitdown_lock:
        if _markitdown is None:
            from markitdown import MarkItDown

            _markitdown = MarkItDown(enable_plugins=False)
        return _markitdown


def strip_data_images(markdown: str) -> str:
    """Replace each inlined ``![alt](data:…)`` picture by its alt text.

    Image links to a path or an http URL are references and stay; so does anything inside
    a fenced code block, where a ``data:`` URI is content someone wrote on purpose.
    """
    if "data:" not in markdown:
        return markdown
    out = [
        line if code else _DATA_IMAGE.sub(lambda m: m.group(1).strip(), line)
        for line, code in mark_code_lines(markdown.split("\n"))
    ]
    return "\n".join(out)


def _finish(markdown: str, what: str) -> str:
    text = strip_data_images(markdown.replace("\r\n", "\n"))
    if not text.strip():
        raise ConversionError(f"{what} holds no text to index (the converter produced nothing)")
    return text


def markitdown_convert(data: bytes | None, path: Path | None, ext: str, what: str) -> Any:
    """Run markitdown on UTF-8 ``data`` or on the file at ``path``; returns its result.

    ``ext`` tells markitdown which converter to use; ``what`` names the input in errors.
    Its failures (and the builtins damaged files make parsers raise) become
    :class:`ConversionError` with the reason on one line.
    """
    from markitdown import MarkItDownException, StreamInfo

    kwargs: dict[str, Any] = {}
    if ext == ".docx":
        kwargs["style_map"] = "comment-reference => "  # render reviewers' comments as text
    try:
        if data is not None:
            info = StreamInfo(extension=ext, charset="utf-8")
            return _engine().convert_stream(io.BytesIO(data), stream_info=info, **kwargs)
        assert path is not None
        with path.open("rb") as fh:
            info = StreamInfo(extension=ext, filename=path.name, local_path=str(path))
            return _engine().convert_stream(fh, stream_info=info, **kwargs)
    except MarkItDownException as e:
        reason = " ".join(line.strip() for line in str(e).splitlines() if line.strip())
        reason = reason[:400] or type(e).__name__
        raise ConversionError(f"Could not convert {what}: {reason}") from e
    except (ValueError, KeyError, IndexError, TypeError, RuntimeError, OSError) as e:
        # Parsers of damaged files raise all sorts of builtins (zipfile.BadZipFile is an OSError).
        raise ConversionError(f"Could not convert {what}: {type(e).__name__}: {e}") from e


def ocr_available() -> bool:
    """Whether the OCR add-on is installed and usable (images and scans can be read)."""
    from minirag_store.ocr import load_backend

    return load_backend() is not None


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
        if ext in _ZIP_EXTENSIONS and not zipfile.is_zipfile(path):
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
        from minirag_store.ocr import convert_image

        return convert_image(path, config)
    _check_container(path, ext)
    if ext == ".pdf":
        from minirag_store.pdf import convert_pdf

        return convert_pdf(path, config)
    what = path.name  # the job entry or the caller already holds the full path
    if ext in _PLAIN_EXTENSIONS:
        text = decode_text(_read(path))
        if not text.strip():  # say what is wrong: nothing in the file, not a failed parse
            raise ConversionError(f"{path.name} is empty: there is no text to index")
        markdown = _finish(text, what)
        return Converted(markdown, choose_title(None, markdown, path.stem))
    if ext in _DECODED_EXTENSIONS:
        text = decode_text(_read(path), html=ext != ".csv")
        result = markitdown_convert(text.encode("utf-8"), None, ext, what)
    elif ext == ".docx":  # embedded (altChunk) parts too, and a check on the unpacked size
        from minirag_store.altchunk import convert_docx

        result = convert_docx(path, config.max_file_size, what)
    else:
        result = markitdown_convert(None, path, ext, what)
    markdown = _finish(result.markdown or "", what)
    return Converted(markdown, choose_title(result.title, markdown, path.stem))


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
    markdown = _finish(markdown, f"The {fmt} data")
    explicit = " ".join(title.split()) if title else ""
    return Converted(markdown, explicit or choose_title(meta, markdown, None))
