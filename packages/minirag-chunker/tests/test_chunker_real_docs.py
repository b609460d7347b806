"""Real files converted by markitdown, chunked with the real tokenizer.

The files are the repository's own (tests/fixtures); the Russian talk (4 MB of slides)
is read from the shared data sets, so that case is a ``corpus`` test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

CASES = [
    ("markitdown/test.pptx", "slides", "AutoGen"),
    ("markitdown/test.xlsx", "headings", "6ff4173b-42a5-4784-9b19"),
    ("markitdown/test.docx", "headings", "AutoGen"),
    ("thesis/avtoreferat.docx", "headings", "социальных сетей"),
]
CORPUS_CASES = [("russian_docs/master_thesis/Презентация.pptx", "slides", "социальных")]


@pytest.fixture(scope="module")
def converter():
    from markitdown import MarkItDown

    return MarkItDown()


def _check(path: Path, converter, chunk_and_check, token_counter, case) -> None:
    """Category from the content, every unit within budget, the document rebuilt exactly."""
    _relative, category, phrase = case
    markdown = converter.convert(str(path)).text_content
    result = chunk_and_check(markdown, token_counter, title=path.stem)
    assert result.category == category
    assert any(phrase in u.body for u in result.units)
    assert all(len(s.text) <= 4000 or "\n\n" not in s.text for s in result.sections)


@pytest.mark.parametrize("case", CASES, ids=[c[0].rsplit("/", 1)[-1] for c in CASES])
def test_converted_file_chunks_cleanly(
    fixtures: Path, converter, chunk_and_check, token_counter, case
) -> None:
    _check(fixtures / case[0], converter, chunk_and_check, token_counter, case)


@pytest.mark.corpus
@pytest.mark.parametrize("case", CORPUS_CASES, ids=[c[0].rsplit("/", 1)[-1] for c in CORPUS_CASES])
def test_converted_corpus_file_chunks_cleanly(
    shared_data: Path, converter, chunk_and_check, token_counter, case
) -> None:
    _check(shared_data / case[0], converter, chunk_and_check, token_counter, case)
