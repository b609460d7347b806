"""Pages recovered for PDFs markitdown converts through its table route (no form feeds).

For every multi-page PDF of the data sets whose conversion has no form feed, the truth is
rebuilt from markitdown's own per-page steps (pdfplumber, page by page, as its converter
runs them: a bench may use its private helpers, the product does not) and compared line by
line with what ``minirag_store.convert.pagealign.align_pages`` gives from each page's text
layer: lines on the right page, on no page, on a WRONG page (target: 0). Cost: the text
layers read by pypdfium2 (what the store uses) and, for the choice, by pdfminer.six page by
page, against markitdown's conversion of the same file. Scale: a generated 300-page table
PDF (``minirag_testkit.pdfs``), the same three costs.

    uv run python bench/pdf_pages.py [--limit 400]
"""

from __future__ import annotations

import argparse
import io
import time
from pathlib import Path

from minirag_store.convert.pagealign import align_pages
from minirag_store.convert.pdf import text_layers
from results_io import RESULTS as RESULTS_DIR
from results_io import provenance, write_json

RESULTS = RESULTS_DIR / "pdf_pages.json"
DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
SETS = ["markitdown_test_files", "kreuzberg_test_documents", "nfcorpus_pdf", "russian_docs"]


def _truth(path: Path) -> list[tuple[int, str]] | None:
    """markitdown's table-route chunks with their 0-based pages (None: its pdfminer route)."""
    import pdfplumber
    from markitdown.converters import _pdf_converter as conv

    chunks: list[tuple[int, str]] = []
    forms = 0
    with pdfplumber.open(io.BytesIO(path.read_bytes())) as pdf:
        for index, page in enumerate(pdf.pages):
            content = conv._extract_form_content_from_words(page)
            if content is not None:
                forms += 1
                text = content
            else:
                text = (page.extract_text() or "").strip()
            if text.strip():
                chunks.append((index, text))
            page.close()
    return chunks if forms else None


def _pdfminer_pages(path: Path) -> list[str]:
    from pdfminer.high_level import extract_pages

    out = []
    for layout in extract_pages(str(path)):
        out.append("".join(getattr(el, "get_text", lambda: "")() for el in layout))
    return out


def _score(markdown: str, truth: list[tuple[int, str]], layers: list[str]) -> dict | None:
    expected: list[int] = []
    for index, text in truth:
        expected += [index] * (text.count("\n") + 1)
        expected.append(-1)  # the blank line of the join
    expected = expected[:-1]
    lines = markdown.split("\n")
    if len(lines) != len(expected):  # markitdown's post-processing merged lines: skip
        return None
    got: list[int | None] = []
    for page, text in align_pages(markdown, layers):
        got += [page] * (text.count("\n") + 1)
    counts = {"right": 0, "none": 0, "wrong": 0}
    for line, want, have in zip(lines, expected, got, strict=True):
        if want < 0 or not line.strip():
            continue
        counts["right" if have == want else "none" if have is None else "wrong"] += 1
    return counts


def _scale(pages: int = 300) -> dict:
    """A generated ``pages``-page table PDF: the costs of finding its pages."""
    import tempfile

    from markitdown import MarkItDown
    from minirag_testkit.pdfs import HEADER, table_pdf

    rows = [
        [
            HEADER,
            f"Section {n} of the ledger for vessel number {n * 7 + 3}.",
            ("Item", "Location", "Count", "Status"),
            *[(f"part {n}-{k}", f"dock {k % 4 + 1}", str(n * 10 + k), "done") for k in range(30)],
            f"Inspector {n} signed the page after checking row {n * 3}.",
        ]
        for n in range(pages)
    ]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "ledger.pdf"
        path.write_bytes(table_pdf(rows))
        start = time.perf_counter()
        markdown = MarkItDown().convert(str(path)).markdown or ""
        convert_s = time.perf_counter() - start
        start = time.perf_counter()
        layers = text_layers(path) or []
        pdfium_s = time.perf_counter() - start
        start = time.perf_counter()
        found = align_pages(markdown, layers)
        align_s = time.perf_counter() - start
    placed = [page for page, _ in found if page is not None]
    return {
        "scale_pages": pages,
        "scale_words": len(markdown.split()),
        "scale_pages_found": len(set(placed)),
        "scale_in_order": placed == sorted(placed),
        "scale_markitdown_s": round(convert_s, 3),
        "scale_pypdfium2_s": round(pdfium_s, 3),
        "scale_align_s": round(align_s, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=400, help="PDFs looked at, at most")
    args = parser.parse_args()
    meta = provenance()
    from markitdown import MarkItDown

    md = MarkItDown()
    files = sorted(p for s in SETS for p in (DATA / s).rglob("*.pdf"))[: args.limit]
    totals = {"right": 0, "none": 0, "wrong": 0}
    timing = {"markitdown_s": 0.0, "pypdfium2_s": 0.0, "pdfminer_s": 0.0, "align_s": 0.0}
    docs = pages_total = 0
    wrong_files: list[str] = []
    for path in files:
        try:
            start = time.perf_counter()
            markdown = md.convert(str(path)).markdown or ""
            convert_s = time.perf_counter() - start
        except Exception:  # a file markitdown refuses is not ours to measure
            continue
        start = time.perf_counter()
        layers = text_layers(path)
        pdfium_s = time.perf_counter() - start
        if "\f" in markdown or layers is None or len(layers) < 2:
            continue
        truth = _truth(path)
        if truth is None:
            continue
        start = time.perf_counter()
        counts = _score(markdown, truth, layers)
        align_s = time.perf_counter() - start
        if counts is None:
            continue
        start = time.perf_counter()
        _pdfminer_pages(path)
        timing["pdfminer_s"] += time.perf_counter() - start
        timing["markitdown_s"] += convert_s
        timing["pypdfium2_s"] += pdfium_s
        timing["align_s"] += align_s
        docs += 1
        pages_total += len(layers)
        for key in totals:
            totals[key] += counts[key]
        if counts["wrong"]:
            wrong_files.append(f"{path.name}: {counts['wrong']} lines")
        print(f"{path.name[:60]:60} {len(layers):3} pages {counts}")
    lines = sum(totals.values()) or 1
    figures = {
        "pdfs_looked_at": len(files),
        "table_route_multipage_pdfs": docs,
        "pages": pages_total,
        "lines": lines,
        "lines_right_page": totals["right"],
        "lines_no_page": totals["none"],
        "lines_wrong_page": totals["wrong"],
        "right_share": round(totals["right"] / lines, 4),
        "wrong_files": wrong_files,
        **{k: round(v, 3) for k, v in timing.items()},
        **_scale(),
    }
    print()
    for key, value in figures.items():
        print(f"{key:28} {value}")
    write_json(RESULTS, figures, meta)


if __name__ == "__main__":
    main()
