"""Real recognition of rendered text: PNG, rotated page, two-frame TIFF, Russian."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from minirag_ocr import Reader, engines, samples
from minirag_ocr.errors import EngineUnavailableError, UnreadableImageError

pytestmark = pytest.mark.skipif(samples.find_font() is None, reason="no TrueType font")

ENGLISH = ["Quarterly sales report for the northern region", "Invoice total due on delivery"]
RUSSIAN = ["Белорусский государственный университет", "Информационная система анализа"]


def squash(text: str) -> str:
    """Case and spacing folded: RapidOCR drops some spaces between Latin words."""
    return re.sub(r"\s+", "", text).casefold()


def has_tesseract(pack: str) -> bool:
    return pack in engines.tesseract_languages()


@pytest.fixture(scope="module")
def english_png(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("img") / "english.png"
    samples.text_image(ENGLISH).save(path)
    return path


def test_rapidocr_reads_a_rendered_english_png(english_png: Path) -> None:
    reader = Reader(("en",))
    [text] = reader.read_image_file(english_png)
    assert reader.engine == "rapidocr"
    for line in ENGLISH:
        assert squash(line) in squash(text)
    assert text.index("Quarterly") < text.index("Invoice")  # reading order


@pytest.mark.slow
@pytest.mark.parametrize("angle", [90, 180])
def test_a_rotated_page_is_turned_upright(tmp_path: Path, angle: int) -> None:
    path = tmp_path / f"rotated{angle}.png"
    samples.text_image(ENGLISH).rotate(angle, expand=True, fillcolor=255).save(path)
    [text] = Reader(("en",)).read_image_file(path)
    assert squash(ENGLISH[0]) in squash(text)
    assert text.index("Quarterly") < text.index("Invoice")


@pytest.mark.slow
def test_every_frame_of_a_tiff_is_read(tmp_path: Path) -> None:
    first = samples.text_image(["First frame mentions glaciers"])
    second = samples.text_image(["Second frame mentions volcanoes"])
    path = tmp_path / "fax.tiff"
    first.save(path, save_all=True, append_images=[second])
    texts = Reader(("en",)).read_image_file(path)
    assert len(texts) == 2
    assert "glaciers" in texts[0].casefold() and "volcanoes" in texts[1].casefold()


@pytest.mark.skipif(not has_tesseract("rus"), reason="tesseract-ocr-rus not installed")
def test_russian_goes_through_tesseract(tmp_path: Path) -> None:
    path = tmp_path / "russian.png"
    samples.text_image(RUSSIAN).save(path)
    reader = Reader(("en", "ru", "uk", "be"))
    [text] = reader.read_image_file(path)
    assert reader.engine == "tesseract"
    for line in RUSSIAN:
        assert line in text


@pytest.mark.slow
def test_russian_without_tesseract_is_refused_not_garbage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engines, "tesseract_languages", frozenset)
    path = tmp_path / "russian.png"
    samples.text_image(RUSSIAN).save(path)
    with pytest.raises(EngineUnavailableError, match="tesseract-ocr-rus") as caught:
        Reader(("en", "ru", "uk", "be")).read_image_file(path)
    assert "russian.png frame 1" in str(caught.value)


def test_a_broken_image_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    with pytest.raises(UnreadableImageError, match=r"broken\.png"):
        Reader(("en",)).read_image_file(path)
