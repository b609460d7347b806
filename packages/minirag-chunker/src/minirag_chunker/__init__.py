"""minirag_chunker: structure-first markdown chunking to a token budget.

Markdown text and a token counter in; parent sections (what a reader gets back) and
retrieval units (what gets embedded) out. Pure: no files, no environment, no model.
"""

from minirag_chunker.chunk import (
    DEFAULT_BUDGET,
    chunk_markdown,
    normalize_markdown,
    reconstruct_document,
    reconstruct_section,
)
from minirag_chunker.errors import (
    ChunkBudgetError,
    ChunkerError,
    ChunkInputError,
    ReconstructionError,
    TokenizerLoadError,
)
from minirag_chunker.model import SCHEME_VERSION, Category, Chunked, Section, Unit
from minirag_chunker.tokens import counter_from_tokenizer_file, load_tokenizer
from minirag_chunker.verify import DEFAULT_RECOUNT, RECOUNT_EVERY_UNIT, RecountPolicy

__all__ = [
    "DEFAULT_BUDGET",
    "DEFAULT_RECOUNT",
    "RECOUNT_EVERY_UNIT",
    "SCHEME_VERSION",
    "Category",
    "ChunkBudgetError",
    "ChunkInputError",
    "Chunked",
    "ChunkerError",
    "ReconstructionError",
    "RecountPolicy",
    "Section",
    "TokenizerLoadError",
    "Unit",
    "chunk_markdown",
    "counter_from_tokenizer_file",
    "load_tokenizer",
    "normalize_markdown",
    "reconstruct_document",
    "reconstruct_section",
]
