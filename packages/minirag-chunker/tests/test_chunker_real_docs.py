"""Real files from ../shared/data converted by markitdown, chunked with the real tokenizer."""

from __future__ import annotations

from pathlib import Path

import pytest

CASES = [
    ("markitdown_test_files/test_files/test.pptx", "slides", "AutoGen"),
    ("markitdown_test_files/test_files/test.xlsx", "headings", "6ff4173b-42a5-4784-9b19"),
    ("markitdown_test_files/test_files/test.docx", "headings", "AutoGen"),
    ("russian_docs/master_thesis/Автореферат.docx", "headings", "социальных сетей"),
    ("russian_docs/master_thesis/Презентация.pptx", "slides", "социальных"),
]


@pytest.fixture(scope="module")
def converter():
    from markitdown import MarkItDown

    return MarkItDown()


@pytest.mark.parametrize("case", CASES, ids=[c[0].rsplit("/", 1)[-1] for c in CASES])
def test_converted_file_chunks_cleanly(
    shared_data: Path, converter, chunk_and_check, token_counter, case
) -> None:
    """Category from the content, every unit within budget, the document rebuilt exactly."""
    relative, category, phrase = case
    path = shared_data / relative
    if not path.is_file():
        pytest.skip(f"{relative} is not in this copy of the shared data")
    markdown = converter.convert(str(path)).text_content
    result = chunk_and_check(markdown, token_counter, title=path.stem)
    assert result.category == category
    assert any(phrase in u.body for u in result.units)
    assert all(len(s.text) <= 4000 or "\n\n" not in s.text for s in result.sections)
