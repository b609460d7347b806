"""Without the OCR add-on: images are not read, scans fail loudly, status hints."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest
from minirag_store.config import load_config
from minirag_store.convert import ocr
from minirag_store.convert.converter import convert_file
from minirag_store.convert.ocr import ocr_available
from minirag_store.errors import ConversionError, OcrUnavailableError
from minirag_store.ingest.scan import scan

samples = pytest.importorskip("minirag_ocr.samples")  # builds the fixtures; hidden afterwards


@pytest.fixture
def config(tmp_path: Path):
    return load_config({}, base_dirs=[tmp_path], db_path=tmp_path / ".db", cache_dir=tmp_path)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    png = tmp_path / "photo.png"
    scanned = tmp_path / "scan.pdf"
    short = tmp_path / "certificate.pdf"
    if samples.find_font() is not None:
        samples.text_image(["Some scanned words"]).save(png)
        scanned.write_bytes(samples.image_pdf(samples.text_image(["Some scanned words"])))
    else:  # no font: blank scans still have no text layer, which is all these tests need
        from PIL import Image

        Image.new("L", (400, 200), 255).save(png)
        scanned.write_bytes(samples.image_pdf(Image.new("L", (400, 200), 255)))
    short.write_bytes(samples.text_pdf([["Certificate"]]))
    return {"png": png, "scan": scanned, "short": short}


@pytest.fixture
def hidden(monkeypatch: pytest.MonkeyPatch):
    """Make ``import minirag_ocr`` fail, as on an install without the extra."""
    for name in [m for m in sys.modules if m == "minirag_ocr" or m.startswith("minirag_ocr.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "minirag_ocr", None)
    ocr.load_backend.cache_clear()
    yield
    ocr.load_backend.cache_clear()


def test_status_reports_unavailable_with_the_install_command(files, hidden, config) -> None:
    status = ocr.ocr_status(config)
    assert status == {"ocr": "unavailable", "ocrHint": ocr.INSTALL_HINT}
    assert "minirag-mcp[ocr]" in status["ocrHint"]
    assert not ocr_available()


def test_images_are_not_scanned(files, hidden, config, tmp_path: Path) -> None:
    found = {entry.path.name for entry in scan(config).files}
    assert "photo.png" not in found and "scan.pdf" in found


def test_an_image_asks_for_the_addon(files, hidden, config) -> None:
    with pytest.raises(OcrUnavailableError, match=r"minirag-mcp\[ocr\]"):
        convert_file(files["png"], config)


def test_a_scanned_pdf_fails_loudly_naming_the_install(files, hidden, config) -> None:
    with pytest.raises(OcrUnavailableError, match=r"scanned PDF.*minirag-mcp\[ocr\]"):
        convert_file(files["scan"], config)


def test_a_short_text_layer_is_kept(files, hidden, config) -> None:
    result = convert_file(files["short"], config)
    assert result.markdown.strip() == "Certificate" and result.ocr_engine == ""


def test_ocr_off_and_no_text_is_a_clear_error(files, config) -> None:
    off = dataclasses.replace(config, ocr_min_chars_per_page=0)
    with pytest.raises(ConversionError, match="RAG_OCR_MIN_CHARS_PER_PAGE=0"):
        convert_file(files["scan"], off)


def test_the_probe_imports_nothing_heavy() -> None:
    code = (
        "import sys; from minirag_store.convert import ocr; assert ocr.load_backend() is not None; "
        "print(sorted({'onnxruntime', 'numpy', 'rapidocr_onnxruntime', 'pypdfium2'} "
        "& set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
