"""Engine choice: which engine reads which RAG_OCR_LANG selection on which install."""

from __future__ import annotations

import subprocess
import sys

import pytest
from minirag_ocr import engines
from minirag_ocr.errors import EngineUnavailableError


@pytest.fixture
def installed(monkeypatch: pytest.MonkeyPatch):
    """Pretend Tesseract lists exactly the given traineddata packs."""

    def set_packs(*packs: str) -> None:
        monkeypatch.setattr(engines, "tesseract_languages", lambda: frozenset(packs))

    return set_packs


def test_latin_only_uses_rapidocr_even_without_tesseract(installed) -> None:
    installed()
    assert engines.select_engine(("en",)) == engines.EngineChoice("rapidocr")
    assert engines.available_engines() == ("rapidocr",)


def test_cyrillic_goes_to_tesseract_with_every_installed_pack(installed) -> None:
    installed("eng", "osd", "rus")
    choice = engines.select_engine(("en", "ru", "uk", "be"))
    assert (choice.engine, choice.packs) == ("tesseract", ("eng", "rus"))
    assert engines.available_engines() == ("rapidocr", "tesseract")


def test_explicit_language_without_its_pack_names_the_apt_package(installed) -> None:
    installed("eng", "rus")
    with pytest.raises(EngineUnavailableError, match="tesseract-ocr-ukr"):
        engines.select_engine(("en", "uk"))


def test_explicit_russian_without_tesseract_is_an_error(installed) -> None:
    installed()
    hint = "apt-get install tesseract-ocr tesseract-ocr-rus"
    with pytest.raises(EngineUnavailableError, match=hint):
        engines.select_engine(("en", "ru"))


def test_default_without_tesseract_is_guarded_rapidocr(installed) -> None:
    installed()
    choice = engines.select_engine(("en", "ru", "uk", "be"))
    assert choice.engine == "rapidocr"
    assert "apt-get install tesseract-ocr tesseract-ocr-rus" in choice.guard_hint


def test_unknown_language_code_is_refused(installed) -> None:
    installed("eng")
    with pytest.raises(EngineUnavailableError, match="known: en, ru"):
        engines.select_engine(("xx",))


def test_real_tesseract_listing_matches_the_cli() -> None:
    listed = engines.tesseract_languages()
    if not listed:
        pytest.skip("tesseract is not installed")
    out = subprocess.run(["tesseract", "--list-langs"], capture_output=True, text=True, check=True)
    assert "eng" in listed and "eng" in out.stdout.split()


def test_importing_the_addon_loads_no_heavy_library() -> None:
    code = (
        "import sys, minirag_ocr; a = minirag_ocr.addon(); a.engines(); "
        "heavy = {'onnxruntime', 'numpy', 'pypdfium2', 'PIL', 'rapidocr_onnxruntime'}; "
        "print(sorted(heavy & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
