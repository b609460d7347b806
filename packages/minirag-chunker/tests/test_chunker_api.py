"""The public surface: errors, the tokenizer-file counter, cutting text, reconstruction."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from minirag_chunker import (
    SCHEME_VERSION,
    ChunkBudgetError,
    ChunkerError,
    ChunkInputError,
    ReconstructionError,
    TokenizerLoadError,
    chunk_markdown,
    counter_from_tokenizer_file,
    normalize_markdown,
    reconstruct_document,
    reconstruct_section,
)
from minirag_chunker.tokens import SPLIT_CHARS, split_at_whitespace, split_to_fit
from minirag_testkit.texts import LONG_TEXTS


def words(text: str) -> int:
    return len(text.split())


@pytest.mark.parametrize("budget", [0, -5, True, 1.5, "110", None])
def test_bad_budget_is_refused_with_advice(budget) -> None:
    with pytest.raises(ChunkBudgetError, match="budget must be a whole number") as info:
        chunk_markdown("text", count_tokens=words, budget=budget)
    assert isinstance(info.value, ValueError) and isinstance(info.value, ChunkerError)


def test_bad_inputs_are_type_errors() -> None:
    with pytest.raises(ChunkInputError, match="markdown must be a str") as info:
        chunk_markdown(b"bytes", count_tokens=words)  # type: ignore[arg-type]
    assert isinstance(info.value, TypeError)
    with pytest.raises(ChunkInputError, match="count_tokens must be a callable"):
        chunk_markdown("text", count_tokens=110)  # type: ignore[arg-type]


def test_reconstruct_section_rejects_a_corrupt_offset() -> None:
    assert reconstruct_section([("Crumb\n\nbody ", 7), ("more", 0)]) == "body more"
    with pytest.raises(ReconstructionError, match="re-index"):
        reconstruct_section([("short", 9)])


def test_reconstruct_document_joins_sections_with_blank_lines() -> None:
    assert reconstruct_document(["# A", "text", "| t |"]) == "# A\n\ntext\n\n| t |"


def test_normalisation_only_touches_blank_lines_and_line_endings() -> None:
    md = "# Title\r\ntext line\r\n   \r\n\r\n\r\nmore\n| a |\n|---|\n| 1 |\nafter"
    assert normalize_markdown(md) == "# Title\n\ntext line\n\nmore\n\n| a |\n|---|\n| 1 |\n\nafter"


def test_scheme_version_is_a_positive_int() -> None:
    assert isinstance(SCHEME_VERSION, int) and SCHEME_VERSION >= 1


def test_counter_from_tokenizer_file_does_not_truncate(model_dir, token_counter) -> None:
    """Counts go past the model's 128/256/512 limits and match the shared fixture."""
    count = counter_from_tokenizer_file(model_dir / "tokenizer.json")
    text = "The retrieval unit is sized in tokens, not characters. " * 80
    assert count(text) > 512
    assert count(text) == token_counter(text)
    assert count("") == 0


@pytest.mark.parametrize("name", sorted(LONG_TEXTS))
def test_a_long_text_counted_in_pieces_counts_as_a_whole(model_dir, name) -> None:
    """Long texts are encoded in pieces on all cores; the count is the whole text's."""
    from tokenizers import Tokenizer

    text = LONG_TEXTS[name]
    assert len(text) > 2 * SPLIT_CHARS
    pieces = split_at_whitespace(text, SPLIT_CHARS)
    assert "".join(pieces) == text
    assert len(pieces) > 1 or name == "no whitespace for long stretches"
    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    whole = len(tokenizer.encode(text, add_special_tokens=False))
    assert counter_from_tokenizer_file(model_dir / "tokenizer.json")(text) == whole


def test_counter_from_a_missing_file_says_what_to_pass(tmp_path) -> None:
    missing = tmp_path / "nope" / "tokenizer.json"
    with pytest.raises(TokenizerLoadError, match=r"tokenizer\.json") as info:
        counter_from_tokenizer_file(missing)
    assert isinstance(info.value, OSError) and str(missing) in str(info.value)
    broken = tmp_path / "tokenizer.json"
    broken.write_text(json.dumps({"not": "a tokenizer"}))
    with pytest.raises(TokenizerLoadError):
        counter_from_tokenizer_file(broken)


@pytest.mark.parametrize(
    "text",
    [
        "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu",
        "x" * 500,  # no whitespace at all: cut between characters
        "short " + "y" * 300 + " tail words here",
    ],
)
def test_split_to_fit_pieces_fit_and_concatenate(text) -> None:
    def chars(t: str) -> int:
        return (len(t) + 9) // 10  # one token per started 10 characters

    for count in (words, chars):
        pieces = split_to_fit(text, 4, count)
        assert "".join(p for p, _ in pieces) == text
        assert all(count(p) <= 4 and n == count(p) for p, n in pieces)


def test_import_pulls_in_no_heavy_dependency() -> None:
    """Importing and using the chunker loads none of the store's heavy libraries."""
    code = (
        "import sys, minirag_chunker as m\n"
        "count = lambda t: len(t.split())\n"
        "m.chunk_markdown('# A\\n\\ntext\\n\\n## B\\n\\nmore', count_tokens=count)\n"
        "heavy = ('lancedb', 'fastembed', 'markitdown', 'onnxruntime', 'pyarrow', 'tokenizers')\n"
        "print(sorted(n for n in heavy if n in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


class MeteredCounter:
    """Wraps the real counter and records how many characters it was asked to count."""

    def __init__(self, count) -> None:
        self.inner = count
        self.chars = 0

    def count(self, text: str) -> int:
        self.chars += len(text)
        return self.inner(text)


def test_counting_is_linear_in_document_size(token_counter) -> None:
    """Each character is counted about once, however long a section grows (not quadratic)."""
    sentence = "Escalation goes to the next level when the deadline passes without a decision. "
    section = "\n\n".join(sentence * 6 for _ in range(8))
    md = "\n\n".join(f"## Part {n}\n\n{section}" for n in range(12))
    meter = MeteredCounter(token_counter)
    first = chunk_markdown(md, count_tokens=meter.count)  # a fresh bound method every time
    assert meter.chars < 3 * len(md)
    meter.chars = 0
    again = chunk_markdown(md, count_tokens=meter.count)
    assert again == first
    # once the counter has proven additive, finished units are no longer re-counted
    assert meter.chars < 1.4 * len(md)
