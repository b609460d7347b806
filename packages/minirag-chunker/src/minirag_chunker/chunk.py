"""The entry points: chunk a markdown document, and rebuild sections and documents from units."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from minirag_chunker.blocks import Block, build_blocks
from minirag_chunker.context import fit_title
from minirag_chunker.detect import detect_category, scan
from minirag_chunker.errors import ChunkBudgetError, ChunkInputError, ReconstructionError
from minirag_chunker.model import Chunked, Section, Unit
from minirag_chunker.pack import NONE, Budget, Part, SectionPacker
from minirag_chunker.sections import build_sections
from minirag_chunker.verify import DEFAULT_RECOUNT, RecountPolicy, Verifier

DEFAULT_BUDGET = 110


def chunk_markdown(
    markdown: str,
    *,
    count_tokens: Callable[[str], int],
    budget: int = DEFAULT_BUDGET,
    title: str | None = None,
    recount: RecountPolicy = DEFAULT_RECOUNT,
) -> Chunked:
    """Split ``markdown`` into parent sections and retrieval units of at most ``budget`` tokens.

    ``count_tokens`` is the embedding model's own counter (see
    ``counter_from_tokenizer_file``); give it the model's limit minus a margin as ``budget``.
    ``title`` is put in front of the first unit once, unless the document already opens
    with it. Units come in document order; the bodies of a section's units concatenate to
    the section's text, and the sections joined by blank lines are the normalised document.

    ``recount`` says when a unit is re-counted whole instead of trusting the sum of its
    pieces' counts. With :data:`~minirag_chunker.verify.RECOUNT_EVERY_UNIT` every unit fits
    ``budget`` (a whole code fence: four budgets) under any counter. The default trusts a
    counter once its sums have matched 32 units exactly; that keeps the guarantee for a
    counter whose counts add up at whitespace joins (WordPiece, whitespace), and for any
    other counter guarantees only the units it re-counts.
    """
    _check(markdown, count_tokens, budget)
    if not isinstance(recount, RecountPolicy):
        raise ChunkInputError(
            f"recount must be a RecountPolicy, got {type(recount).__name__}; "
            "e.g. RECOUNT_EVERY_UNIT or DEFAULT_RECOUNT"
        )
    doc = scan(markdown)
    category = detect_category(doc)
    blocks = build_blocks(doc, category)
    raw = build_sections(blocks, category, " ".join((title or "").split()))
    shared = Budget(count_tokens, budget, Verifier(count_tokens, recount))
    seed = _seed(title, blocks, shared)
    sections: list[Section] = []
    units: list[Unit] = []
    for number, section in enumerate(raw):
        sections.append(Section(number, section.label, section.text))
        packer = SectionPacker(shared, section, seed if number == 0 else NONE)
        for prefix, body in packer.pack(section.blocks):
            units.append(Unit(len(units), number, prefix + body, len(prefix)))
    return Chunked(category, tuple(sections), tuple(units))


def normalize_markdown(markdown: str) -> str:
    """The document as ``chunk_markdown`` sees it: what its sections joined by blank lines give."""
    if not isinstance(markdown, str):
        raise ChunkInputError(f"markdown must be a str, got {type(markdown).__name__}")
    doc = scan(markdown)
    return "\n\n".join(block.text for block in build_blocks(doc, detect_category(doc)))


def reconstruct_section(pieces: Iterable[tuple[str, int]]) -> str:
    """A section's text from its units' ``(text, body_start)`` pairs, in unit order.

    Prefixes (title seed, breadcrumb, repeated table header, code-split marker) are dropped.
    """
    out: list[str] = []
    for text, body_start in pieces:
        if not 0 <= body_start <= len(text):
            raise ReconstructionError(
                f"body_start {body_start} is outside a unit text of {len(text)} characters; "
                "the stored unit is corrupt, re-index the document"
            )
        out.append(text[body_start:])
    return "".join(out)


def reconstruct_document(sections: Iterable[str]) -> str:
    """A document's normalised markdown from its section texts, in section order."""
    return "\n\n".join(sections)


def _check(markdown: object, count_tokens: object, budget: object) -> None:
    if not isinstance(markdown, str):
        raise ChunkInputError(f"markdown must be a str, got {type(markdown).__name__}")
    if not callable(count_tokens):
        raise ChunkInputError(
            "count_tokens must be a callable str -> int, e.g. "
            "counter_from_tokenizer_file('tokenizer.json')"
        )
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise ChunkBudgetError(
            f"budget must be a whole number of tokens >= 1, got {budget!r}; "
            "use the model's maximum sequence length minus a margin (e.g. 110 for 128)"
        )


def _seed(title: str | None, blocks: list[Block], budget: Budget) -> Part:
    """The title prefix for the document's first unit, unless the document opens with it."""
    wanted = " ".join((title or "").split())
    if not wanted or not blocks:
        return NONE
    first = blocks[0]
    opening = first.name if first.kind == "heading" else first.text.split("\n", 1)[0].strip()
    if opening.casefold() == wanted.casefold():
        return NONE
    text, tokens = fit_title(wanted, budget.share, budget.count)
    return (text + "\n\n", tokens) if text else NONE
