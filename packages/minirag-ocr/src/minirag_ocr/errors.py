"""The add-on's exceptions: one root, each subclass also a matching builtin.

The store maps :class:`EngineUnavailableError` to its ``OcrUnavailableError`` and every
other :class:`OcrError` to a conversion error, so each message names the file or page and
what to do about it.
"""

from __future__ import annotations

__all__ = ["EngineUnavailableError", "OcrError", "UnreadableImageError"]


class OcrError(Exception):
    """Root of every error minirag_ocr raises on purpose."""


class EngineUnavailableError(OcrError, LookupError):
    """No installed engine can read the requested language; the message names the install."""


class UnreadableImageError(OcrError, ValueError):
    """An image or PDF page could not be decoded or rendered."""
