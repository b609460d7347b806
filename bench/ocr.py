"""OCR throughput: pages per second for each engine on this machine.

Pages are real scans rendered at 300 dpi (the add-on's setting): the four image-only
PDFs of markitdown's OCR test data (English, one page each) and the two-page Russian
scan in ../shared/data/russian_docs. Each engine reads the pages it is meant for;
orientation detection runs on every page, so it is shown: RapidOCR with it (``read``: a
small detection pass, then an upright read without the line classifier) against reading the
page as it lies; Tesseract's OSD (half resolution) is its own row.

    uv run python bench/ocr.py [--repeat 1]
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from minirag_ocr import engines, rapid, render, tess
from results_io import RESULTS as RESULTS_DIR
from results_io import provenance, write_json

RESULTS = RESULTS_DIR / "ocr.json"

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
ENGLISH = [
    DATA / f"markitdown_test_files/ocr_test_data/pdf_scanned_{name}.pdf"
    for name in ("invoice", "meeting_minutes", "minimal", "sales_report")
]
RUSSIAN = [DATA / "russian_docs/avtoreferat_scan_p1-2.pdf"]


def _pages(paths: list[Path]) -> list:
    images = []
    for path in paths:
        if path.is_file():
            count = len(render.page_texts(path))
            images += [image for _i, image in render.pdf_pages(path, range(count))]
    return images


def _rate(images: list, work: Callable[[Any], object], repeat: int) -> tuple[float, float]:
    """(pages per second, seconds per page), best of ``repeat``."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for image in images:
            work(image)
        best = min(best, time.perf_counter() - start)
    return len(images) / best, best / len(images)


def main() -> None:
    """Print one table row per engine and step."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    meta = provenance()  # load average before: other work on the machine skews every figure
    start = time.perf_counter()
    english, russian = _pages(ENGLISH), _pages(RUSSIAN)
    render_s = (time.perf_counter() - start) / max(1, len(english) + len(russian))
    rapid.recognize(english[0])  # load the ONNX models outside the timing
    steps: list[tuple[str, str, list, Callable[[Any], object]]] = [
        ("rapidocr as lying (no orient.)", "en", english, rapid.recognize),
        ("rapidocr read (with orient.)", "en", english, rapid.read),
    ]
    installed = engines.tesseract_languages()
    if "eng" in installed:
        steps.append(("tesseract OSD", "en", english, lambda i: tess.orientation(i, 300)))
        steps.append(("tesseract eng", "en", english, lambda i: tess.recognize(i, ["eng"], 300)))
    if "rus" in installed and russian:
        steps.append(
            ("tesseract eng+rus", "ru", russian, lambda i: tess.recognize(i, ["eng", "rus"], 300))
        )
    rows = [("render 300 dpi (pypdfium2)", "all", 1 / render_s, render_s)]
    rows += [(name, lang, *_rate(pages, fn, args.repeat)) for name, lang, pages, fn in steps]
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    print(f"pages: {len(english)} English, {len(russian)} Russian (300 dpi); "
          f"{os.cpu_count()} CPUs, load average {load}\n")  # fmt: skip
    print(f"| {'step':<30} | lang | pages/s | s/page |")
    print(f"|{'-' * 32}|------|---------|--------|")
    for step, lang, rate, seconds in rows:
        print(f"| {step:<30} | {lang:<4} | {rate:7.2f} | {seconds:6.2f} |")
    figures = [
        {"step": step, "lang": lang, "pages_per_s": round(rate, 3), "s_per_page": round(sec, 3)}
        for step, lang, rate, sec in rows
    ]
    write_json(RESULTS, {"pages": {"en": len(english), "ru": len(russian)}, "rows": figures}, meta)
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
