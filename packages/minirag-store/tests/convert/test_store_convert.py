"""Conversion with real markitdown: markitdown's own test files, encodings, data images, errors."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from minirag_store.config import Config, load_config
from minirag_store.convert.converter import convert_data, convert_file
from minirag_store.convert.engine import strip_data_images
from minirag_store.convert.formats import DOCUMENT_EXTENSIONS
from minirag_store.errors import ConversionError, InvalidArgumentError, OcrUnavailableError

#: Expected strings we do not check, and why.
#: - url=: markitdown's Wikipedia/Bing converters only run for a fetched URL, not a file,
#:   so of those entries only ``must_include`` is checked, and not at all for the Bing
#:   results page, whose expected links exist only once Bing's converter decodes them.
_SITE_CONVERTER_ONLY = frozenset({"test_serp.html"})
#: - OCR/exiftool/audio: not body text a converter of ours produces without the add-on.
_SKIP_REQUIRES = ("exiftool", "audio", "OCR")
#: markitdown's own placeholder for an inlined picture; we remove those pictures on purpose.
_STRIPPED_PLACEHOLDER = "data:image/png;base64..."
#: The root conftest's ``fixtures`` (tests/fixtures); read here only to parametrize.
_MARKITDOWN = Path(__file__).resolve().parents[4] / "tests" / "fixtures" / "markitdown"


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Config:
    return load_config({"BASE_DIR": str(tmp_path_factory.mktemp("root"))})


def _expected_cases() -> list[tuple[str, dict]]:
    """(file name, expectations) for every supported-extension entry with strings."""
    path = _MARKITDOWN / "expected_strings.json"
    files = json.loads(path.read_text(encoding="utf-8"))["files"]
    return [
        (name, spec)
        for name, spec in sorted(files.items())
        if Path(name).suffix.lower() in DOCUMENT_EXTENSIONS
        and (spec.get("must_include") or spec.get("must_not_include"))
    ]


@pytest.mark.parametrize(("name", "spec"), _expected_cases(), ids=lambda v: str(v)[:40])
def test_markitdown_test_files(fixtures: Path, config: Config, name: str, spec: dict) -> None:
    requires = spec.get("requires") or ""
    site_specific = "url=" in requires
    if name in _SITE_CONVERTER_ONLY or any(word in requires for word in _SKIP_REQUIRES):
        pytest.skip(f"{name}: needs {requires[:80]}")
    converted = convert_file(fixtures / "markitdown" / name, config)
    # markitdown's own tests compare with backslash escapes removed; so do we.
    text = converted.markdown.replace("\\", "")
    for expected in spec.get("must_include", []):
        if expected == _STRIPPED_PLACEHOLDER:
            assert "](data:" not in text
            continue
        assert expected in text, f"{name}: missing {expected!r}"
    # What markitdown's site converters strip (navigation) a generic HTML pass keeps.
    for unwanted in [] if site_specific else spec.get("must_not_include", []):
        assert unwanted not in text, f"{name}: should not contain {unwanted!r}"


def test_docx_data_pictures_are_reduced_to_their_alt_text(fixtures: Path, config: Config) -> None:
    path = fixtures / "markitdown" / "test.docx"
    converted = convert_file(path, config)
    assert "data:image" not in converted.markdown
    assert "AI 生成的内容可能不正确" in converted.markdown  # the picture's alt text stays


def test_cp932_csv_reads_as_japanese(fixtures: Path, config: Config) -> None:
    path = fixtures / "markitdown" / "test_mskanji.csv"
    md = convert_file(path, config).markdown
    assert "| 佐藤太郎 | 30 | 東京 |" in md


def test_cp1251_csv_reads_as_russian(tmp_path: Path, config: Config) -> None:
    rows = (
        "Имя;Город;Должность\nИван Петров;Москва;инженер\nПётр Сидоров;Санкт-Петербург;бухгалтер\n"
    )
    path = tmp_path / "сотрудники.csv"
    path.write_bytes(rows.replace(";", ",").encode("cp1251"))
    md = convert_file(path, config).markdown
    assert "| Пётр Сидоров | Санкт-Петербург | бухгалтер |" in md
    assert "Ð" not in md and "\ufffd" not in md


def test_cp1251_text_file_reads_as_russian(tmp_path: Path, config: Config) -> None:
    """A plain .txt saved by an old Windows editor: no BOM, no charset, only cp1251 bytes."""
    text = (
        "Статья 1\r\nВсе люди рождаются свободными и равными в своем достоинстве и правах. "
        "Они наделены разумом и совестью и должны поступать в отношении друг друга "
        "в духе братства.\r\n"
    )
    path = tmp_path / "декларация.txt"
    path.write_bytes(text.encode("cp1251"))
    md = convert_file(path, config).markdown
    assert md.startswith("Статья 1\nВсе люди рождаются свободными")
    assert "в духе братства." in md and "\ufffd" not in md


def test_control_characters_are_not_read_back(tmp_path: Path, config: Config) -> None:
    """A footnote star or dash a font maps to a control code reaches no reader; tabs,
    line ends and the words around them stay."""
    path = tmp_path / "notes.txt"
    path.write_bytes(b"Economics\x03 of trade\x00\n\ncol\tumn \x14 and \x7fmore\xc2\x85.\n")
    text = convert_file(path, config).markdown
    assert text == "Economics of trade\n\ncol\tumn  and more.\n"


def test_utf8_bom_is_removed_from_text_and_csv(tmp_path: Path, config: Config) -> None:
    txt = tmp_path / "заметка.txt"
    txt.write_bytes("\ufeffПривет, мир: заметка в UTF-8 с BOM.\r\nВторая строка.\r\n".encode())
    converted = convert_file(txt, config)
    assert converted.markdown.startswith("Привет, мир")
    assert "\r" not in converted.markdown
    csv = tmp_path / "bom.csv"
    csv.write_bytes("\ufeffname,city\nZoë,Köln\n".encode())
    assert convert_file(csv, config).markdown.startswith("| name | city |")


def test_cp1251_html_with_meta_charset(tmp_path: Path, config: Config) -> None:
    html = (
        '<html><head><meta charset="windows-1251"><title>Отчёт о складе</title></head>'
        "<body><p>Остатки на складе проверены.</p></body></html>"
    )
    path = tmp_path / "page.html"
    path.write_bytes(html.encode("cp1251"))
    converted = convert_file(path, config)
    assert "Остатки на складе проверены." in converted.markdown
    assert converted.title == "Отчёт о складе"


def test_strip_data_images_keeps_links_and_fenced_code() -> None:
    md = (
        "Intro ![Chart of sales](data:image/png;base64,iVBORw0KGgo=) after.\n"
        "![logo](images/logo.png) and ![remote](https://example.com/a.png)\n"
        "```markdown\n![kept](data:image/png;base64,AAAA)\n```\n"
        "![](data:image/jpeg;base64,/9j/4AAQ) end"
    )
    out = strip_data_images(md)
    assert "Intro Chart of sales after." in out
    assert "![logo](images/logo.png)" in out
    assert "![remote](https://example.com/a.png)" in out
    assert "![kept](data:image/png;base64,AAAA)" in out  # inside the fence
    assert out.endswith("\n end")
    assert out.count("data:") == 1


def test_markdown_file_title_and_data_images(tmp_path: Path, config: Config) -> None:
    path = tmp_path / "SPEC-112_Warehouse stock.md"
    path.write_text("# 1. General provisions\n\n![scan](data:image/png;base64,AAAA)\nText.\n")
    converted = convert_file(path, config)
    assert converted.title == "SPEC-112 Warehouse stock"
    assert "data:" not in converted.markdown and "scan" in converted.markdown
    assert converted.ocr_engine == ""


def test_epub_title_comes_from_metadata(fixtures: Path, config: Config) -> None:
    path = fixtures / "markitdown" / "test.epub"
    assert convert_file(path, config).title == "Test EPUB Document"


def test_oversized_file_is_refused_before_parsing(tmp_path: Path, config: Config) -> None:
    path = tmp_path / "big.docx"
    path.write_bytes(b"not a docx at all" * 100)  # would fail to parse, were it parsed
    small = dataclasses.replace(config, max_file_size=1000)
    with pytest.raises(ConversionError, match="over MAX_FILE_SIZE"):
        convert_file(path, small)


def test_corrupt_file_is_a_conversion_error_with_reason(tmp_path: Path, config: Config) -> None:
    path = tmp_path / "broken.docx"
    path.write_bytes(b"PK\x03\x04 this is not really a zip")
    with pytest.raises(ConversionError, match=r"broken\.docx is not a valid \.docx"):
        convert_file(path, config)


def test_empty_file_is_a_conversion_error(tmp_path: Path, config: Config) -> None:
    path = tmp_path / "empty.md"
    path.write_text("  \n\n")
    with pytest.raises(ConversionError, match=r"empty\.md is empty: there is no text to index"):
        convert_file(path, config)
    path.write_bytes(b"")
    with pytest.raises(ConversionError, match="is empty"):
        convert_file(path, config)


def test_missing_and_unsupported_files(tmp_path: Path, config: Config) -> None:
    with pytest.raises(ConversionError, match="does not exist"):
        convert_file(tmp_path / "gone.md", config)
    with pytest.raises(ConversionError, match=r"unsupported file type \.rtf"):
        convert_file(tmp_path / "letter.rtf", config)


def test_image_without_ocr_names_the_install(
    tmp_path: Path, config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    from minirag_store.convert import ocr

    monkeypatch.setattr(ocr, "load_backend", lambda: None)
    path = tmp_path / "photo.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n")
    with pytest.raises(OcrUnavailableError, match=r"\[ocr\]"):
        convert_file(path, config)


def test_broken_notebook_is_refused_not_indexed_as_raw_json(tmp_path: Path, config: Config) -> None:
    path = tmp_path / "analysis.ipynb"
    path.write_text('{"cells": [ broken')
    with pytest.raises(ConversionError, match="not a valid Jupyter notebook"):
        convert_file(path, config)


def test_not_a_pdf_is_refused(tmp_path: Path, config: Config) -> None:
    path = tmp_path / "fake.pdf"
    path.write_text("just text pretending")
    with pytest.raises(ConversionError, match="not a valid PDF"):
        convert_file(path, config)


def test_convert_data_formats_and_titles() -> None:
    text = convert_data("plain words here", "text")
    assert text.markdown == "plain words here" and text.title is None
    md = convert_data("# Release notes\n\nFixed ![x](data:image/png;base64,AA) bugs.", "markdown")
    assert md.title == "Release notes" and "data:" not in md.markdown
    html = convert_data(
        "<html><head><title>Team page</title></head><body><h2>Members</h2><p>Ann</p></body>",
        "HTML",
    )
    assert html.title == "Team page" and "## Members" in html.markdown
    explicit = convert_data("# Heading\n\nbody", "markdown", title="  My   title ")
    assert explicit.title == "My title"


def test_convert_data_rejects_bad_input() -> None:
    with pytest.raises(InvalidArgumentError, match="text, markdown, html"):
        convert_data("x", "pdf")
    with pytest.raises(InvalidArgumentError, match="empty"):
        convert_data("   ", "text")
    with pytest.raises(ConversionError, match="no text"):
        convert_data("<html><body><script>1</script></body></html>", "html")


_KANJI = "名前,年齢\n佐藤太郎,30\n三木英子,25\n"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Доклад о складе\r\n".encode("utf-16"), "Доклад о складе\n"),  # BOM + UTF-16
        ("Остатки товаров на складе проверены полностью.".encode("cp1251"),
         "Остатки товаров на складе проверены полностью."),
        (_KANJI.encode("cp932"), _KANJI),
        (b"plain ascii\rold mac line ends\r", "plain ascii\nold mac line ends\n"),
        # a few bytes only: too short for statistics, settled by plausibility
        ("Привет".encode("cp1251"), "Привет"),
        ("«Ещё» — №5".encode("cp1251"), "«Ещё» — №5"),
        ("Zoë".encode("cp1252"), "Zoë"),
        ("Grüße aus Köln – 5 €".encode("cp1252"), "Grüße aus Köln – 5 €"),
        ("テスト".encode("cp932"), "テスト"),
        ("Слава Україні".encode("cp1251"), "Слава Україні"),
    ],
)  # fmt: skip
def test_decode_text(raw: bytes, expected: str) -> None:
    from minirag_store.convert.encoding import decode_text

    assert decode_text(raw) == expected
