"""The chunker's exceptions: one root, each subclass also the matching builtin."""

from __future__ import annotations


class ChunkerError(Exception):
    """Root of every error minirag_chunker raises on purpose."""


class ChunkBudgetError(ChunkerError, ValueError):
    """The token budget is not a positive whole number."""


class ChunkInputError(ChunkerError, TypeError):
    """An argument has the wrong type (markdown not a str, counter not callable...)."""


class TokenizerLoadError(ChunkerError, OSError):
    """A ``tokenizer.json`` could not be read or parsed."""


class ReconstructionError(ChunkerError, ValueError):
    """Stored pieces do not describe a valid unit (``body_start`` out of range)."""
