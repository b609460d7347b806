"""Reading pages and image files with the engine chosen for a language selection."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from minirag_ocr import render
from minirag_ocr.engines import select_engine
from minirag_ocr.errors import EngineUnavailableError

if TYPE_CHECKING:
    from PIL.Image import Image

__all__ = ["Reader"]

#: Guarded mode (Cyrillic requested, no Tesseract pack): a page RapidOCR reads with less
#: confidence than this is refused. Measured on rendered text: English lines 0.98-0.99,
#: Russian lines 0.72-0.86, the scanned test invoices 0.95-1.0.
GUARD_CONFIDENCE = 0.9
#: Below this many recognised characters the confidence says too little to refuse a page.
GUARD_MIN_CHARS = 20


class Reader:
    """Reads upright-corrected pages with one engine (``engine`` is its name).

    Raises :class:`EngineUnavailableError` when built for languages no installed engine
    reads, and from :meth:`read_image` in guarded mode for a page that is not Latin text.
    """

    def __init__(self, languages: Sequence[str]) -> None:
        """Choose the engine for ``languages`` (codes such as ``("en", "ru")``)."""
        self.choice = select_engine(languages)
        self.engine = self.choice.engine

    def read_image(self, image: Image, what: str, dpi: int | None = None) -> str:
        """Recognise one grayscale image; ``what`` names it in errors ("x.pdf page 3")."""
        if self.engine == "tesseract":
            from minirag_ocr import tess

            upright = _rotated(image, tess.orientation(image, dpi))
            return tess.recognize(upright, self.choice.packs, dpi)
        from minirag_ocr import rapid

        result = rapid.read(image)
        guarded = self.choice.guard_hint and result.chars >= GUARD_MIN_CHARS
        if guarded and result.confidence < GUARD_CONFIDENCE:
            raise EngineUnavailableError(
                f"{what} does not read as Latin text (rapidocr confidence "
                f"{result.confidence:.2f}); it is probably Cyrillic. {self.choice.guard_hint}. "
                "To index rapidocr's reading anyway, set RAG_OCR_LANG=en."
            )
        return result.text

    def read_pdf_pages(self, path: Path, pages: Sequence[int]) -> Iterator[tuple[int, str]]:
        """Render and read the zero-based ``pages`` of a PDF one at a time, in order."""
        for index, image in render.pdf_pages(path, pages):
            yield index, self.read_image(image, f"{path.name} page {index + 1}", render.DPI)

    def read_image_file(self, path: Path) -> list[str]:
        """Read every frame of an image file (all pages of a multi-page TIFF)."""
        texts: list[str] = []
        for number, frame in enumerate(render.image_frames(path), start=1):
            dpi = frame.info.get("dpi")
            resolution = round(dpi[0]) if isinstance(dpi, tuple) and dpi[0] else None
            texts.append(self.read_image(frame, f"{path.name} frame {number}", resolution))
        return texts


def _rotated(image: Image, angle: int) -> Image:
    return image.rotate(angle, expand=True, fillcolor=255) if angle else image
