"""The markitdown engine and what every converter returns (:class:`Converted`).

markitdown is created once per process, on first use (it loads magika's model and takes
seconds to import). Every result has its inlined ``![alt](data:…)`` pictures replaced by
their alt text: markitdown writes one per embedded picture, and on a real office corpus
they made 8.5% of all chunks while carrying no searchable words. Control characters are
dropped (:func:`printable`).
"""

from __future__ import annotations

import io
import logging
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from minirag_store.convert.marks import Mark
from minirag_store.convert.titles import mark_code_lines
from minirag_store.errors import ConversionError, EmptyDocumentError

if TYPE_CHECKING:
    from markitdown import MarkItDown

__all__ = [
    "Converted",
    "finish",
    "load_engine",
    "markitdown_convert",
    "printable",
    "strip_data_images",
]

#: C0 and C1 control characters but tab, line feed, form feed (a PDF's page break) and
#: carriage return (line ends are normalised after), and DEL: what a PDF's font without a
#: usable Unicode map gives for a footnote star or a dash (``Economics\x03``, ``\x14``).
#: A reader saw them in ``read_file`` and hits as boxes or nothing.
_CONTROLS = dict.fromkeys(
    c for c in (*range(0x20), 0x7F, *range(0x80, 0xA0)) if chr(c) not in "\t\n\f\r"
)
_DATA_IMAGE = re.compile(r"!\[([^\]]*)\]\(\s*<?data:[^)]*\)")

#: The loggers of the parsers under markitdown whose warnings speak to their developers
#: (pdfminer's "Could not get FontBBox from font descriptor" on many real PDFs; bs4's
#: "Some characters could not be decoded" on a .docx with an empty body, naming no file):
#: nobody indexing a folder can act on them, and a sync printed them among its own lines.
#: Their errors still show; a level the user set on one of them stays.
QUIET_LOGGERS = ("pdfminer", "bs4")

_markitdown: MarkItDown | None = None
_markitdown_lock = threading.Lock()


@dataclass(frozen=True)
class Converted:
    """A converted document: its markdown, its chosen title, the OCR engine used (""),
    and where its pages, slides, sheet rows or chapters start (:mod:`.marks`)."""

    markdown: str
    title: str | None
    ocr_engine: str = ""
    marks: tuple[Mark, ...] = ()


def _engine() -> MarkItDown:
    """The process-wide MarkItDown instance, created once on first use."""
    global _markitdown  # noqa: PLW0603 - a lazily built process singleton
    with _markitdown_lock:
        if _markitdown is None:
            from markitdown import MarkItDown

            for name in QUIET_LOGGERS:
                if (logger := logging.getLogger(name)).level == logging.NOTSET:
                    logger.setLevel(logging.ERROR)

            _markitdown = MarkItDown(enable_plugins=False)
        return _markitdown


def load_engine() -> None:
    """Create the process's markitdown instance now, if not yet: a caller timing one
    file's conversion keeps this one-off cost (seconds, once per process) out of it."""
    _engine()


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


def printable(text: str) -> str:
    """``text`` without control characters (:data:`_CONTROLS`)."""
    return text.translate(_CONTROLS)


def finish(markdown: str, what: str) -> str:
    """Normalised line ends, no inlined pictures or control characters; raises when
    nothing readable is left."""
    text = strip_data_images(printable(markdown.replace("\r\n", "\n")))
    if not text.strip():
        raise EmptyDocumentError(f"{what} holds no text to index (the converter produced nothing)")
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
