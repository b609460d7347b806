"""Pages and frames as grayscale bitmaps, one at a time.

PDF pages are rendered with pypdfium2 at 300 dpi, with the longest side capped so that an
A0 drawing does not become a 140-megapixel bitmap; the page's own ``/Rotate`` is applied
by the renderer. Image files are decoded with Pillow, every frame of a multi-page TIFF,
with EXIF orientation applied. Everything is a generator so that memory stays at one page.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from minirag_ocr.errors import UnreadableImageError

if TYPE_CHECKING:
    import pypdfium2 as pdfium
    from PIL.Image import Image

__all__ = ["DPI", "MAX_SIDE", "image_frames", "page_texts", "pdf_pages"]

#: Render resolution: what both engines are tuned for (Tesseract documents 300 dpi).
DPI = 300
#: Longest side in pixels after rendering/decoding: A4 at 300 dpi is 3508, so A4 keeps 300 dpi.
MAX_SIDE = 4200


def _open_pdf(path: Path) -> pdfium.PdfDocument:
    import pypdfium2 as pdfium

    try:
        return pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as e:
        raise UnreadableImageError(f"{path.name}: cannot open the PDF: {e}") from e


def page_texts(path: Path) -> list[str]:
    """The text layer of every page of a PDF, in order ("" for a page without one)."""
    pdf = _open_pdf(path)
    try:
        texts: list[str] = []
        for index in range(len(pdf)):
            page = pdf[index]
            textpage = page.get_textpage()
            # bounded, not range: full Unicode (range is UCS-2 in pypdfium2 5), and
            # pypdfium2 4 warns on a default range call (a CLI user would see it)
            texts.append(textpage.get_text_bounded().replace("\r\n", "\n"))
            textpage.close()
            page.close()
        return texts
    finally:
        pdf.close()


def pdf_pages(path: Path, indices: Sequence[int]) -> Iterator[tuple[int, Image]]:
    """Render the zero-based ``indices`` of a PDF, yielding ``(index, grayscale image)``."""
    pdf = _open_pdf(path)
    try:
        for index in indices:
            page = pdf[index]
            width, height = page.get_size()  # PDF points, 1/72 inch
            scale = min(DPI / 72, MAX_SIDE / max(width, height, 1.0))
            # pypdfium2 annotates scale as int, but it is a float factor (pdfium takes floats).
            bitmap = page.render(scale=scale, grayscale=True)  # pyright: ignore[reportArgumentType]
            image = bitmap.to_pil().convert("L")
            bitmap.close()
            page.close()
            yield index, image
    finally:
        pdf.close()


def image_frames(path: Path) -> Iterator[Image]:
    """Every frame of an image file as a grayscale image (one for PNG/JPEG, all for TIFF)."""
    from PIL import Image as PILImage
    from PIL import ImageOps, ImageSequence, UnidentifiedImageError

    try:
        with PILImage.open(path) as image:
            for frame in ImageSequence.Iterator(image):
                upright = ImageOps.exif_transpose(frame.copy())
                gray = upright.convert("L")
                if max(gray.size) > MAX_SIDE:
                    gray.thumbnail((MAX_SIDE, MAX_SIDE))
                yield gray
    except (UnidentifiedImageError, PILImage.DecompressionBombError, OSError, SyntaxError) as e:
        # Pillow raises OSError for truncated files and SyntaxError from some broken headers.
        raise UnreadableImageError(f"{path.name}: cannot decode the image: {e}") from e
