"""PDFs with tables, written by hand for the tests of every package (nothing to license).

markitdown 0.1.x converts a PDF with a table- or form-like page through pdfplumber and joins
the pages without the form feeds its pdfminer route keeps, so these files are what the
page-recovery tests (``minirag_store.convert.pagealign``) need: a few objects of plain PDF,
Helvetica, ASCII, each line placed where its page says.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["AUDIT_PAGES", "COLUMNS", "HEADER", "ON_PAGE", "drawn_pdf", "table_pdf"]

#: x positions (PDF points) of a row's cells: far enough apart for markitdown's column test.
COLUMNS = (72, 200, 330, 460)

Row = str | Sequence[str]  # a line of prose at the left margin, or a table row's cells


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _page_stream(rows: Sequence[Row]) -> bytes:
    shown: list[str] = []
    y = 740
    for row in rows:
        cells = [row] if isinstance(row, str) else list(row)
        for x, cell in zip(COLUMNS, cells, strict=False):
            if cell:
                shown.append(f"BT /F1 10 Tf 1 0 0 1 {x} {y} Tm ({_escape(cell)}) Tj ET")
        y -= 18
    return "\n".join(shown).encode("latin-1")


def table_pdf(pages: Sequence[Sequence[Row]], *, font_box: bool = True) -> bytes:
    """A letter-size PDF with a real text layer: one page per entry, each row a line.
    ``font_box`` False: the font's descriptor lacks its FontBBox, as in many real PDFs
    (Google Docs exports among them), which pdfminer warns about on every page."""
    count = len(pages)
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(count))
    bodies = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {count} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
        if font_box  # pdfminer knows Helvetica's metrics, so another name; its widths given, or
        # the pdfminer of the lowest resolution (.ci/run) puts each letter on a line of its own
        else b"<< /Type /Font /Subtype /Type1 /BaseFont /Arimo /Encoding /WinAnsiEncoding "
        b"/FirstChar 32 /LastChar 126 /Widths [%s] "
        b"/FontDescriptor << /Type /FontDescriptor /FontName /Arimo /Flags 32 >> >>"
        % b" ".join([b"556"] * 95),
    ]
    for number, rows in enumerate(pages):
        stream = _page_stream(rows)
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


def _stock(prefix: str, rows: int) -> list[Row]:
    return [
        (f"{prefix} crate {n}", f"dock {n % 4 + 1}", str(10 + n), "counted") for n in range(rows)
    ]


HEADER = "Harbor Logistics Quarterly Audit"
#: Three pages, each a running header, a table (the same header row on every page) and
#: prose; what each page alone holds is in ``ON_PAGE``.
AUDIT_PAGES: list[list[Row]] = [
    [
        HEADER,
        "North warehouse inventory, first shift.",
        ("Item", "Location", "Count", "Status"),
        *_stock("copper wire", 6),
        "The forklift batteries were replaced in the north warehouse.",
    ],
    [
        HEADER,
        "Survey equipment held for the research fleet.",
        ("Item", "Location", "Count", "Status"),
        ("glacier survey drone", "hangar 2", "3", "recalibrated"),
        *_stock("sonar buoy", 5),
        "The glacier survey drones were recalibrated after the storm in the fjord.",
    ],
    [
        HEADER,
        "Museum loans returned this quarter.",
        ("Item", "Location", "Count", "Status"),
        ("harpoon repair kit", "museum annex", "7", "returned"),
        *_stock("brass lantern", 5),
        "Harpoon repair kits for the whaling museum were counted twice by the night shift.",
    ],
]
ON_PAGE = {
    1: "forklift batteries were replaced in the north warehouse",
    2: "glacier survey drones were recalibrated after the storm in the fjord",
    3: "Harpoon repair kits for the whaling museum were counted twice",
}


def drawn_pdf(
    pages: int = 1,
    size: tuple[float, float] = (612, 792),
    *,
    password: str | None = None,
    noise: bool = False,
) -> bytes:
    """A PDF of ``pages`` pages of ``size`` points (letter by default), each saying its
    number in large type, through reportlab. ``password``: encrypted, openable only with
    it. ``noise``: each page covered by a picture of random pixels, which no PNG
    compresses (the page images' byte cap)."""
    import io
    import random

    from PIL import Image
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen.canvas import Canvas

    out = io.BytesIO()
    canvas = Canvas(out, pagesize=size, encrypt=password)
    rng = random.Random(7)  # the same bytes every run
    for number in range(1, pages + 1):
        if noise:
            picture = Image.frombytes("RGB", (900, 1200), rng.randbytes(900 * 1200 * 3))
            canvas.drawImage(ImageReader(picture), 0, 0, width=size[0], height=size[1])
        canvas.setFont("Helvetica", max(12.0, min(size) / 20))
        canvas.drawString(size[0] / 10, size[1] / 2, f"Page {number} of the drawn test PDF")
        canvas.showPage()
    canvas.save()
    return out.getvalue()
