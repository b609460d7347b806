"""The argument rules both shells show: defaults, bounds, and the checks that enforce them.

The MCP tool schemas and the CLI's options and help texts read these constants, and the
checks below raise :class:`~minirag_store.errors.InvalidArgumentError` with the one message
both shells print, so a rule changes here and shows in both. Argument names in messages are
the wire names (``topK``, ``chunkIndex``), which the CLI's ``--json`` output shares.
Importing this module is cheap: the shells read it at start-up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from minirag_store.errors import InvalidArgumentError
from minirag_store.locators import Place

__all__ = [
    "FIRST_CHUNK_INDEX",
    "FIRST_PAGE",
    "NEIGHBORS",
    "OFFSET",
    "PAGE_SCALE",
    "PAGE_WIDTH",
    "TOP_K",
    "Bound",
    "Span",
    "check_chunk_index",
    "check_from_chunk",
    "check_max_tokens",
    "check_neighbors",
    "check_offset",
    "check_page_size",
    "check_place",
    "check_top_k",
    "one_document",
]


@dataclass(frozen=True)
class Bound:
    """A whole-number argument: its default, the smallest value allowed, the largest served."""

    default: int
    minimum: int
    maximum: int


#: Hits a query returns. Below the minimum is refused; above the maximum is served as the
#: maximum (asking for too much is a guess, not an error): each search side fetches a
#: multiple of topK candidates, so the cap bounds the scan.
TOP_K = Bound(default=8, minimum=1, maximum=100)

#: Hits a query skips before its topK (``offset``): where an answer trimmed to fit
#: RAG_MAX_RESPONSE_TOKENS says the rest begins (``trimmed.nextOffset``). Refused past the
#: maximum: the candidates each side fetches grow with offset + topK.
OFFSET = Bound(default=0, minimum=0, maximum=400)

#: Chunks read on each side of a hit (``before`` / ``after``). One each side by default:
#: the reference's "the chunks immediately before and after a search result". Above the
#: maximum is refused, pointing at read_file, which returns the whole document.
NEIGHBORS = Bound(default=1, minimum=0, maximum=50)

#: The first chunk of every source; a chunkIndex below it is refused.
FIRST_CHUNK_INDEX = 0


def _whole(name: str, value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgumentError(f"{name} must be a whole number, got {value!r}")
    if value < minimum:
        raise InvalidArgumentError(f"{name} must be at least {minimum}, got {value}")
    return value


def check_top_k(top_k: object) -> int:
    """``topK`` as searched: refused below :data:`TOP_K` ``.minimum``, capped at its maximum."""
    return min(_whole("topK", top_k, TOP_K.minimum), TOP_K.maximum)


def check_max_tokens(max_tokens: object) -> int:
    """A query's own token budget (the CLI's ``--max-tokens``): 0 for none, else at least
    the smallest RAG_MAX_RESPONSE_TOKENS allows (an answer must hold one hit)."""
    from minirag_store.config import MIN_MAX_RESPONSE_TOKENS

    tokens = _whole("maxTokens", max_tokens, 0)
    if 0 < tokens < MIN_MAX_RESPONSE_TOKENS:
        raise InvalidArgumentError(
            f"maxTokens must be 0 (no limit) or at least {MIN_MAX_RESPONSE_TOKENS}, got {tokens}"
        )
    return tokens


def check_offset(offset: object) -> int:
    """``offset``, refused outside :data:`OFFSET`'s bounds."""
    skipped = _whole("offset", offset, OFFSET.minimum)
    if skipped > OFFSET.maximum:
        raise InvalidArgumentError(
            f"offset must be at most {OFFSET.maximum}, got {skipped}; a scope narrows a "
            "query to fewer, closer hits"
        )
    return skipped


def check_neighbors(name: str, value: object) -> int:
    """``before`` or ``after`` (``name``), refused outside :data:`NEIGHBORS`' bounds."""
    span = _whole(name, value, NEIGHBORS.minimum)
    if span > NEIGHBORS.maximum:
        raise InvalidArgumentError(
            f"{name} must be at most {NEIGHBORS.maximum}, got {span}; read_file returns "
            "the whole document"
        )
    return span


def check_chunk_index(chunk_index: object) -> int:
    """``chunkIndex``, refused below :data:`FIRST_CHUNK_INDEX`."""
    return _whole("chunkIndex", chunk_index, FIRST_CHUNK_INDEX)


def check_from_chunk(from_chunk: object) -> int:
    """``fromChunk`` (where read_file starts), refused below :data:`FIRST_CHUNK_INDEX`."""
    return _whole("fromChunk", from_chunk, FIRST_CHUNK_INDEX)


#: The first page of a PDF and the first slide of a deck, as read_file's ``page`` /
#: ``slide`` and a hit's ``locator`` count them.
FIRST_PAGE = 1


def check_place(page: object, slide: object) -> tuple[Place, int] | None:
    """read_file's ``page`` or ``slide``: at most one of them, a whole number from
    :data:`FIRST_PAGE`; None when neither is given (the whole document)."""
    if page is not None and slide is not None:
        raise InvalidArgumentError(
            "Give a page or a slide, not both: page reads a PDF's page, slide a deck's slide"
        )
    if page is not None:
        return "page", _whole("page", page, FIRST_PAGE)
    if slide is not None:
        return "slide", _whole("slide", slide, FIRST_PAGE)
    return None


@dataclass(frozen=True)
class Span:
    """A decimal argument: its default, the smallest value allowed, the largest served."""

    default: float
    minimum: float
    maximum: float


#: A page image's ``scale``: pixels per PDF point (1 = 72 dpi). 2 draws a letter page
#: 1,224 px wide, which a model reads small print from. Above the maximum is served as the
#: maximum; whatever the scale, the image stays within :data:`PAGE_WIDTH`'s maximum on its
#: long side (the renderer's cap), so a large scale never makes a large bitmap.
PAGE_SCALE = Span(default=2.0, minimum=0.1, maximum=8.0)

#: A page image's ``maxWidth`` in pixels; its maximum is also the cap on the long side of
#: every page image (vision models downscale anything larger: ~1,568 px for Claude).
PAGE_WIDTH = Bound(default=1600, minimum=64, maximum=1600)


def check_page_size(scale: object, max_width: object) -> tuple[float, int]:
    """A page image's ``scale`` (None: :data:`PAGE_SCALE`'s default) and ``maxWidth``
    (None: :data:`PAGE_WIDTH`'s default): refused below their minimum, served as their
    maximum above it."""
    if scale is None:
        scale = PAGE_SCALE.default
    if isinstance(scale, bool) or not isinstance(scale, int | float) or math.isnan(scale):
        raise InvalidArgumentError(f"scale must be a number, got {scale!r}")
    if scale < PAGE_SCALE.minimum:
        raise InvalidArgumentError(
            f"scale must be at least {PAGE_SCALE.minimum} (pixels per PDF point; "
            f"{PAGE_SCALE.default:g} is {PAGE_SCALE.default * 72:g} dpi), got {scale}"
        )
    width = PAGE_WIDTH.default if max_width is None else max_width
    width = _whole("maxWidth", width, PAGE_WIDTH.minimum)
    return min(float(scale), PAGE_SCALE.maximum), min(width, PAGE_WIDTH.maximum)


def one_document(file_path: str | None, source: str | None) -> None:
    """Refuse unless exactly one of ``file_path`` / ``source`` names the document."""
    if file_path is not None and source is not None:
        raise InvalidArgumentError(
            "Give a file path or a source, not both: one of them names the document"
        )
    if file_path is None and source is None:
        raise InvalidArgumentError(
            "Name the document: give a file path (of a file inside a document root) or a "
            "source (the `source` value a query or a file listing returned)"
        )
