"""Title rules: metadata → H1 unless boilerplate/wordless → informative stem → H1 → stem."""

from __future__ import annotations

import pytest
from minirag_store.convert.titles import (
    choose_title,
    first_h1,
    is_boilerplate_heading,
    is_informative_stem,
    stem_title,
)


def test_metadata_title_wins_over_everything() -> None:
    assert choose_title("Annual Report 2024", "# Introduction\n", "SPEC-1 Plan") == (
        "Annual Report 2024"
    )


def test_blank_or_wordless_metadata_is_ignored() -> None:
    assert choose_title("   ", "# Warehouse audit\n", "scan_001") == "Warehouse audit"
    assert choose_title("—", "# Warehouse audit\n", "scan_001") == "Warehouse audit"


def test_a_real_h1_beats_an_informative_filename() -> None:
    md = "Some preface text.\n\n# Quarterly stock count procedure\n\nBody."
    assert choose_title(None, md, "SPEC-112_Warehouse stock") == "Quarterly stock count procedure"


@pytest.mark.parametrize(
    "heading",
    [
        "Introduction",
        "1. Introduction",
        "Table of contents",
        "Change log",
        "Changelog",
        "Revision history",
        "1. General provisions",
        "1.1 General Provisions:",
        "Appendix A",
        "Общие положения",
        "1. Общие положения",
        "Введение",
        "Лист изменений",
        "Лист регистрации изменений",
        "Содержание",
        "Оглавление",
        "Термины и определения",
        "Раздел 1. Общие положения",
        "ПРИЛОЖЕНИЕ А",
    ],
)
def test_boilerplate_headings_are_recognised(heading: str) -> None:
    assert is_boilerplate_heading(heading)


@pytest.mark.parametrize(
    "heading",
    [
        "Introduction to warehouse robotics",
        "Общие положения о складском учёте",
        "Quarterly stock count",
        "Civic duty",  # letters of a Roman numeral, but a word
        "Регламент инвентаризации",
    ],
)
def test_real_headings_are_not_boilerplate(heading: str) -> None:
    assert not is_boilerplate_heading(heading)


def test_boilerplate_h1_yields_to_an_informative_stem() -> None:
    md = "# 1. General provisions\n\nThis regulation sets out ..."
    assert choose_title(None, md, "SPEC-112_Warehouse stock") == "SPEC-112 Warehouse stock"


def test_russian_boilerplate_h1_yields_to_the_stem() -> None:
    md = "# Лист изменений\n\n| Версия | Дата |\n"
    assert choose_title(None, md, "Регламент_инвентаризации") == "Регламент инвентаризации"


def test_boilerplate_h1_is_kept_when_the_stem_says_nothing() -> None:
    assert choose_title(None, "# Введение\n\nТекст.", "Новый документ (3)") == "Введение"
    assert choose_title(None, "# Introduction\n\nText.", "IMG_20260807_123456") == "Introduction"


def test_wordless_h1_yields_to_the_stem() -> None:
    md = "# ![](media/logo.png)\n\nBody text here."
    assert choose_title(None, md, "Supplier_contract_2024") == "Supplier contract 2024"


def test_wordless_h1_and_machine_stem_fall_back_to_the_stem() -> None:
    assert choose_title(None, "# ***\n\nBody.", "Untitled-1") == "Untitled-1"


def test_no_h1_uses_the_stem_even_when_uninformative() -> None:
    assert choose_title(None, "Just some text.", "IMG_20260807_123456") == "IMG 20260807 123456"


def test_h2_is_not_a_title() -> None:
    assert choose_title(None, "## Section\n\ntext", "Budget plan") == "Budget plan"


def test_h1_inside_fenced_code_is_ignored() -> None:
    md = "```bash\n# install the tool\npip install x\n```\n\n# Deployment guide\n"
    assert first_h1(md) == "Deployment guide"


def test_h1_markup_is_cleaned() -> None:
    assert first_h1("# **Bold** [linked](http://x.y) title #\n") == "Bold linked title"


@pytest.mark.parametrize(
    "stem",
    [
        "IMG_20260807_123456",
        "Untitled-1",
        "Copy of document (2)",
        "DSC01234",
        "Screenshot 2024-01-02 at 10.11.12",
        "scan0001",
        "New Document",
        "Без названия 1",
        "Новый документ (3)",
        "Копия документа",
        "Скан_0001",
        "Unbenannt 3",
        "Sans titre 2",
        "abc",  # shorter than 4 characters
        "2024-05-01",  # digits only
        "PXL_20240101_123456789",
    ],
)
def test_machine_names_are_not_informative(stem: str) -> None:
    assert not is_informative_stem(stem)


@pytest.mark.parametrize(
    "stem",
    [
        "SPEC-112_Warehouse stock",
        "Copy of budget 2024",
        "scan of passport",
        "Договор поставки",
        "report_q3_sales",
        "IMG_warehouse_layout",
        "ГОСТ 2.105",
    ],
)
def test_real_names_are_informative(stem: str) -> None:
    assert is_informative_stem(stem)


def test_stem_title_turns_underscores_into_spaces_and_keeps_the_rest() -> None:
    assert stem_title("SPEC-112_Warehouse stock") == "SPEC-112 Warehouse stock"
    assert stem_title("a__b  c") == "a b c"


def test_without_a_stem_data_sources_get_h1_or_nothing() -> None:
    assert choose_title(None, "# Introduction\n\ntext", None) == "Introduction"
    assert choose_title(None, "plain text only", None) is None
    assert choose_title("Page title", "plain", None) == "Page title"
