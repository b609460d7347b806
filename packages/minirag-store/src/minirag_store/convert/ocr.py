"""The OCR add-on as the store sees it: a probe, a small protocol, status fields, images.

The add-on is the separate distribution ``minirag-ocr`` (what ``minirag-mcp[ocr]`` and
``minirag-cli[ocr]`` install). The store finds it with an import probe rather than an entry
point: there is exactly one add-on, and an import of ``minirag_ocr`` is both the cheapest
check and the one that fails for the same reasons the real use would. The probe runs once
per process; importing ``minirag_ocr`` is light (no numpy, ONNX runtime or renderer until
a page is actually read).
"""

from __future__ import annotations

import functools
import importlib
import logging
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from minirag_store.convert.formats import IMAGE_EXTENSIONS
from minirag_store.convert.formats import OCR_INSTALL_HINT as INSTALL_HINT
from minirag_store.errors import ConversionError, EmptyDocumentError, OcrUnavailableError

if TYPE_CHECKING:
    from minirag_store.config import Config
    from minirag_store.convert.engine import Converted

__all__ = [
    "IMAGE_EXTENSIONS",
    "INSTALL_HINT",
    "METER",
    "OcrBackend",
    "OcrMeter",
    "OcrReader",
    "backend_errors",
    "convert_image",
    "load_backend",
    "ocr_status",
    "reader_for",
]

log = logging.getLogger("minirag_store.convert.ocr")


class OcrMeter(threading.local):
    """The OCR work this thread has done: pages (or image frames) read, seconds spent.

    A sync reads it before and after each file's conversion, so its report can say how
    much of a slow file's time went to OCR (:mod:`minirag_store.ingest.workers`).
    """

    pages: int = 0
    seconds: float = 0.0

    @contextmanager
    def timing(self, pages: int) -> Iterator[None]:
        """Count ``pages`` and the time the block takes (also when it raises)."""
        started = time.perf_counter()
        try:
            yield
        finally:
            self.pages += pages
            self.seconds += time.perf_counter() - started


#: The process's meter (one count per thread).
METER = OcrMeter()


class OcrReader(Protocol):
    """Reads pages and images with one engine, chosen for a language selection."""

    engine: str

    def read_pdf_pages(self, path: Path, pages: Sequence[int]) -> Iterator[tuple[int, str]]:
        """Render and recognise the zero-based ``pages`` of a PDF, one at a time, in order."""
        ...

    def read_image_file(self, path: Path) -> list[str]:
        """Recognise every frame of an image file (all pages of a multi-page TIFF)."""
        ...


class OcrBackend(Protocol):
    """What ``minirag_ocr.addon()`` returns."""

    error: type[Exception]
    unavailable_error: type[Exception]

    def engines(self) -> tuple[str, ...]:
        """Engine names this install can run."""
        ...

    def advice(self, languages: tuple[str, ...]) -> str:
        """What to install for ``languages`` to be read as asked; "" when nothing."""
        ...

    def page_texts(self, path: Path) -> list[str]:
        """The text layer of every page of a PDF, in order."""
        ...

    def reader(self, languages: tuple[str, ...]) -> OcrReader:
        """A reader for ``languages``; raises ``unavailable_error`` naming what to install."""
        ...


@functools.cache
def load_backend() -> OcrBackend | None:
    """The installed OCR add-on, or None when ``minirag_ocr`` cannot be imported (cached)."""
    try:
        module = importlib.import_module("minirag_ocr")
        return module.addon()
    except ImportError as e:
        log.debug("OCR add-on not available: %s", e)
        return None


def ocr_status(config: Config) -> dict[str, str]:
    """``{"ocr": "rapidocr, tesseract"}``, plus ``ocrHint`` when something needs installing:
    the add-on itself, or a language pack ``RAG_OCR_LANG`` asks for (said here once,
    rather than by every parse worker on every sync)."""
    backend = load_backend()
    if backend is None:
        return {"ocr": "unavailable", "ocrHint": INSTALL_HINT}
    info = {"ocr": ", ".join(backend.engines())}
    if advice := backend.advice(config.ocr_languages):
        info["ocrHint"] = advice
    return info


@contextmanager
def backend_errors(backend: OcrBackend) -> Iterator[None]:
    """Map the add-on's errors to the store's (unavailable engine vs unreadable input)."""
    try:
        yield
    except backend.unavailable_error as e:
        raise OcrUnavailableError(str(e)) from e
    except backend.error as e:
        raise ConversionError(str(e)) from e


def reader_for(backend: OcrBackend, config: Config) -> OcrReader:
    """A reader for ``RAG_OCR_LANG``; OcrUnavailableError names what to install."""
    with backend_errors(backend):
        return backend.reader(config.ocr_languages)


def convert_image(path: Path, config: Config) -> Converted:
    """OCR an image file (every frame of a TIFF) into a document titled from its name.

    Raises :class:`OcrUnavailableError` with the install command when the add-on is
    missing, and :class:`ConversionError` when the image is unreadable or holds no text.
    """
    from minirag_store.convert.engine import Converted, strip_data_images
    from minirag_store.convert.titles import choose_title

    backend = load_backend()
    if backend is None:
        raise OcrUnavailableError(
            f"{path.name} is an image: reading it needs the OCR add-on. Install: {INSTALL_HINT}"
        )
    reader = reader_for(backend, config)
    with backend_errors(backend), METER.timing(1):
        frames = reader.read_image_file(path)
    from minirag_store.convert.reflow import reflow_text

    # OCR gives a line per printed line: reflowed like a PDF's text (convert/reflow.py)
    text = "\n\n".join(reflow_text(t.strip()) for t in frames if t.strip())
    markdown = strip_data_images(text)
    if not markdown:
        raise EmptyDocumentError(f"{path.name}: OCR ({reader.engine}) found no text in the image")
    return Converted(markdown, choose_title(None, markdown, path.stem), reader.engine)


def ocr_available() -> bool:
    """Whether the OCR add-on is installed and usable (images and scans can be read)."""
    return load_backend() is not None
