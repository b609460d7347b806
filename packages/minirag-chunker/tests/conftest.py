"""Shared checks for the chunker tests: the invariants every chunking result must satisfy."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from minirag_chunker import (
    Chunked,
    chunk_markdown,
    normalize_markdown,
    reconstruct_document,
    reconstruct_section,
)
from minirag_chunker.verify import DEFAULT_RECOUNT, RecountPolicy

FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.MULTILINE)


def words_in_order(source: str, rebuilt: str) -> bool:
    """Whether every whitespace-separated word of ``source`` appears in ``rebuilt``, in order."""
    it = iter(rebuilt.split())
    return all(any(word == got for got in it) for word in source.split())


def check_chunked(markdown: str, result: Chunked, count: Callable[[str], int], budget: int) -> None:
    """Assert the storage and budget invariants of one chunking result."""
    assert [s.index for s in result.sections] == list(range(len(result.sections)))
    assert [u.index for u in result.units] == list(range(len(result.units)))
    owners = [u.section for u in result.units]
    assert owners == sorted(owners), "units must come in document order"
    assert set(owners) == set(range(len(result.sections))), "every section has a unit"
    for section in result.sections:
        pieces = [(u.text, u.body_start) for u in result.units if u.section == section.index]
        assert reconstruct_section(pieces) == section.text
    document = reconstruct_document(s.text for s in result.sections)
    assert document == normalize_markdown(markdown)
    assert words_in_order(markdown, document)
    for unit in result.units:
        assert unit.body.strip(), f"unit {unit.index} has an empty body"
        tokens = count(unit.text)
        if tokens > budget:
            # the one exception: a closed code fence kept whole, up to four budgets
            assert tokens <= 4 * budget, (tokens, unit.text)
            assert len(FENCE_LINE.findall(unit.body)) >= 2, unit.text


@pytest.fixture(scope="session")
def chunk_and_check() -> Callable[..., Chunked]:
    """``chunk_and_check(md, count, budget=110, title=None, recount=DEFAULT_RECOUNT)``: chunk,
    assert invariants, return."""

    def run(
        markdown: str,
        count: Callable[[str], int],
        budget: int = 110,
        title: str | None = None,
        recount: RecountPolicy = DEFAULT_RECOUNT,
    ) -> Chunked:
        result = chunk_markdown(
            markdown, count_tokens=count, budget=budget, title=title, recount=recount
        )
        check_chunked(markdown, result, count, budget)
        return result

    return run
