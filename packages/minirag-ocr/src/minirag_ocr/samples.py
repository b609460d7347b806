"""Synthetic pages for tests and benchmarks: rendered text images and small PDFs.

Tests of an OCR add-on should read text nobody typed into a fixture file: these helpers
draw lines with a system TrueType font, save them as images or image-only PDF pages, and
write text-layer PDF pages by hand (a few objects of plain PDF, Helvetica, ASCII), so that
mixed documents (text page, scanned page, text page) can be assembled with pypdfium2.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL.Image import Image

__all__ = ["find_font", "image_pdf", "join_pdfs", "text_image", "text_pdf"]

_FONT_CANDIDATES = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/Library/Fonts/Arial Unicode.ttf",
    "C:/Windows/Fonts/arial.ttf",
)


def find_font() -> Path | None:
    """A TrueType font with Latin and Cyrillic glyphs (DejaVu Sans), or None."""
    for candidate in _FONT_CANDIDATES:
        if Path(candidate).is_file():
            return Path(candidate)
    return None


def text_image(lines: Sequence[str], *, size: int = 40, width: int = 2000) -> Image:
    """Black text on white, one line per entry, about 300 dpi for 10-pt text at ``size=40``."""
    from PIL import Image as PILImage
    from PIL import ImageDraw, ImageFont

    font_path = find_font()
    if font_path is None:
        raise FileNotFoundError("no TrueType font found (install fonts-dejavu-core)")
    font = ImageFont.truetype(str(font_path), size)
    margin, step = 120, int(size * 1.8)
    image = PILImage.new("L", (width, 2 * margin + step * len(lines)), 255)
    draw = ImageDraw.Draw(image)
    for number, line in enumerate(lines):
        draw.text((margin, margin + number * step), line, font=font, fill=0)
    return image


def image_pdf(image: Image, dpi: int = 200) -> bytes:
    """A one-page PDF holding only ``image`` (a scan: no text layer)."""
    buffer = io.BytesIO()
    image.convert("L").save(buffer, format="PDF", resolution=float(dpi))
    return buffer.getvalue()


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def text_pdf(pages: Sequence[Sequence[str]]) -> bytes:
    """A letter-size PDF with a real text layer: one page per entry, ASCII lines in Helvetica."""
    count = len(pages)
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(count))
    bodies = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {count} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    for number, lines in enumerate(pages):
        shown = " ".join(f"({_escape(line)}) '" for line in lines)
        stream = f"BT /F1 14 Tf 72 740 Td 20 TL {shown} ET".encode("latin-1")
        bodies.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            f"/Resources << /Font << /F1 3 0 R >> >> /Contents {5 + 2 * number} 0 R >>".encode()
        )
        bodies.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(bodies, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(bodies) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(bodies) + 1,
        xref,
    )
    return bytes(out)


def join_pdfs(parts: Sequence[bytes], target: Path) -> Path:
    """Concatenate PDFs (bytes) page by page into ``target``."""
    import pypdfium2 as pdfium

    joined = pdfium.PdfDocument.new()
    for part in parts:
        source = pdfium.PdfDocument(part)
        joined.import_pages(source)
        source.close()
    joined.save(str(target))
    joined.close()
    return target
