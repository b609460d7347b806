"""One PDF page drawn as a PNG a vision model can read, within fixed caps.

pypdfium2 draws the page (its public ``PdfPage.render``) and Pillow writes the PNG. The
bitmap's size is decided before anything is drawn: the scale asked for is lowered until
the long side fits :data:`MAX_SIDE` and the width the caller's cap, so a 20,000 x 20,000
pt page costs what a 1,600 x 1,600 px one does (pdfium allocates the bitmap
``ceil(side * scale)`` pixels wide, nothing larger). A page whose PNG still passes
:data:`MAX_PNG_BYTES` (a photograph, noise: PNG compresses text, not pictures) is drawn
again smaller, at the scale that the overshoot says should fit, until it does.
"""

from __future__ import annotations

import io
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from minirag_store.errors import EncryptedDocumentError, NotFoundError, RenderError

if TYPE_CHECKING:
    from pypdfium2 import PdfPage

__all__ = [
    "MAX_PNG_BYTES",
    "MAX_SIDE",
    "META_KEY",
    "MIN_SIDE",
    "RENDER_VERSION",
    "Rendered",
    "fitted_scale",
    "read_meta",
    "render_page",
]

#: The long side of every page image, in pixels (the MCP tool's maxWidth cannot pass it).
MAX_SIDE = 1600
#: The largest PNG handed out, in bytes (1.5 MB): what an MCP client takes in one message
#: without trouble, and ~2,000 tokens of image at most for a model that reads it.
MAX_PNG_BYTES = 1_500_000
#: Smaller than this on the long side, a page is no use to look at: refused instead.
MIN_SIDE = 64
#: Bumped whenever the same page, scale and width would draw a different image (a cached
#: image of an older version is then never served).
RENDER_VERSION = 1
#: Rounding guard: ``ceil(side * cap / side)`` can land one pixel over the cap in floats.
_EPSILON = 1e-6
#: Drawing again after an oversized PNG: the area is cut by the overshoot and 10% more, so
#: one more round almost always fits (PNG size grows about with the pixel count).
_SHRINK_MARGIN = 0.9
_MAX_ROUNDS = 8
#: The PNG text chunk that keeps what a cached image cannot tell by itself.
META_KEY = "minirag"


@dataclass(frozen=True)
class Rendered:
    """A drawn page: the PNG bytes, their size in pixels, the scale drawn at (pixels per
    PDF point) and the document's page count."""

    png: bytes
    width: int
    height: int
    scale: float
    page_count: int


def fitted_scale(width_pt: float, height_pt: float, scale: float, max_width: int) -> float:
    """The largest scale up to ``scale`` that keeps the bitmap within ``max_width`` pixels
    wide and :data:`MAX_SIDE` on its long side (decided from the page size alone)."""
    caps = [scale, (min(max_width, MAX_SIDE) - _EPSILON) / width_pt]
    caps.append((MAX_SIDE - _EPSILON) / max(width_pt, height_pt))
    return min(caps)


def render_page(path: Path, page: int, scale: float, max_width: int) -> Rendered:
    """Page ``page`` (1-based) of the PDF at ``path`` as a PNG within the caps.

    Raises :class:`EncryptedDocumentError` for a password-protected PDF,
    :class:`RenderError` for one pdfium cannot read, :class:`NotFoundError` for a page the
    document does not have (saying how many it has).
    """
    import pypdfium2 as pdfium

    from minirag_store.convert.pdf import PDFIUM_LOCK

    with PDFIUM_LOCK:  # pdfium is not thread-safe: one document at a time per process
        try:
            pdf = pdfium.PdfDocument(str(path))
        except pdfium.PdfiumError as e:
            raise _unreadable(path, e) from e
        try:
            count = len(pdf)
            if page > count:
                raise NotFoundError(
                    f"{path.name} has {count} page{'s' if count != 1 else ''} (1..{count}); "
                    f"page {page} does not exist"
                )
            return _draw(pdf[page - 1], path, page, scale=scale, max_width=max_width, count=count)
        finally:
            pdf.close()


def _unreadable(path: Path, error: Exception) -> RenderError:
    import pypdfium2 as pdfium

    code = getattr(error, "err_code", None)
    # pypdfium2 before 5 gives no err_code, only its message for FPDF_ERR_PASSWORD
    if code == pdfium.raw.FPDF_ERR_PASSWORD or (code is None and "password" in str(error)):
        return EncryptedDocumentError(
            f"{path.name} is encrypted with a password, so its pages cannot be drawn; save "
            "a copy without the password into a document root to look at its pages"
        )
    return RenderError(
        f"{path.name} cannot be opened as a PDF ({error}); it may be damaged: read its "
        "text with read_file instead"
    )


def _draw(
    pdf_page: PdfPage, path: Path, page: int, *, scale: float, max_width: int, count: int
) -> Rendered:
    """Draw the open page within the caps, smaller each round until its PNG fits."""
    try:
        width_pt, height_pt = pdf_page.get_size()  # PDF points, the page's rotation applied
        if not (width_pt > 0 and height_pt > 0):
            raise RenderError(f"Page {page} of {path.name} has no area to draw")
        scale = fitted_scale(width_pt, height_pt, scale, max_width)
        for _ in range(_MAX_ROUNDS):
            if max(width_pt, height_pt) * scale < MIN_SIDE:
                break
            png, size = _png(pdf_page, scale, count)
            if len(png) <= MAX_PNG_BYTES:
                return Rendered(png, size[0], size[1], scale, count)
            scale *= math.sqrt(MAX_PNG_BYTES / len(png)) * _SHRINK_MARGIN
        raise RenderError(
            f"Page {page} of {path.name} does not fit a {MAX_PNG_BYTES:,}-byte PNG even "
            f"below {MIN_SIDE} px: read its text with read_file(page={page}) instead"
        )
    finally:
        pdf_page.close()


def _png(pdf_page: PdfPage, scale: float, count: int) -> tuple[bytes, tuple[int, int]]:
    """The page drawn at ``scale`` (white background, annotations drawn) as PNG bytes,
    with the page count and scale in a text chunk (what a cached file is read back with)."""
    from PIL.PngImagePlugin import PngInfo

    # pypdfium2 annotates scale as int, but it is a float factor (pdfium takes floats).
    bitmap = pdf_page.render(scale=scale)  # pyright: ignore[reportArgumentType]
    try:
        image = bitmap.to_pil()
    finally:
        bitmap.close()
    info = PngInfo()
    info.add_text(META_KEY, json.dumps({"pageCount": count, "scale": scale}))
    out = io.BytesIO()
    image.save(out, format="PNG", pnginfo=info)
    return out.getvalue(), image.size


def read_meta(png: bytes) -> Rendered | None:
    """A PNG this module wrote, read back (its size, scale and page count from its
    header), or None when the bytes are not one (then the page is drawn again)."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(png)) as image:
            meta = json.loads(image.text[META_KEY])  # pyright: ignore[reportAttributeAccessIssue]
            return Rendered(
                png, image.width, image.height, float(meta["scale"]), int(meta["pageCount"])
            )
    except (UnidentifiedImageError, OSError, KeyError, TypeError, ValueError, AttributeError):
        return None
