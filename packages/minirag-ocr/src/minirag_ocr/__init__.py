"""minirag-ocr: the optional OCR add-on for minirag (scanned PDF pages and image files).

The store imports this package only to probe for it; nothing heavy (ONNX runtime, numpy,
pypdfium2, Pillow) is imported until a page is actually read. Entry point for the store:
:func:`addon`, an object with ``engines()``, ``advice(languages)``, ``page_texts(path)`` and
``reader(languages)``.

Engines: RapidOCR (pip-only, Latin and Chinese) and Tesseract through its CLI (Cyrillic,
with ``tesseract-ocr-rus`` / ``-ukr`` / ``-bel``); see :mod:`minirag_ocr.engines`.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from minirag_ocr import render
from minirag_ocr.engines import available_engines, select_engine, tesseract_languages
from minirag_ocr.errors import EngineUnavailableError, OcrError, UnreadableImageError
from minirag_ocr.reader import Reader

__all__ = [
    "Addon",
    "EngineUnavailableError",
    "OcrError",
    "Reader",
    "UnreadableImageError",
    "addon",
    "available_engines",
    "select_engine",
    "tesseract_languages",
]

#: Import names the add-on needs at run time (checked without importing them).
_REQUIRED = ("rapidocr_onnxruntime", "pypdfium2", "PIL", "numpy")


class Addon:
    """What the store calls: engine names, PDF text layers, and readers."""

    #: Root of the errors a reader raises; the store turns them into conversion errors.
    error = OcrError
    #: Raised when no installed engine reads a language; the message names the install.
    unavailable_error = EngineUnavailableError

    def engines(self) -> tuple[str, ...]:
        """Engine names this install can run (``("rapidocr", "tesseract")`` at most)."""
        return available_engines()

    def page_texts(self, path: Path) -> list[str]:
        """The text layer of every page of a PDF, in order."""
        return render.page_texts(path)

    def advice(self, languages: tuple[str, ...]) -> str:
        """What to install for ``languages`` to be read as asked; "" when nothing."""
        try:
            return select_engine(languages).advice
        except EngineUnavailableError as e:
            return str(e)

    def reader(self, languages: tuple[str, ...]) -> Reader:
        """A reader for ``languages``; raises EngineUnavailableError naming the install."""
        return Reader(languages)


def addon() -> Addon:
    """The add-on, after checking its dependencies are importable (ImportError if not)."""
    missing = [name for name in _REQUIRED if importlib.util.find_spec(name) is None]
    if missing:
        raise ImportError(f"minirag-ocr is installed without {', '.join(missing)}")
    return Addon()
