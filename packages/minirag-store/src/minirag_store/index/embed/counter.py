"""The response budget's token counter: memoising, and cut at JSON quotes where exact.

The budget (:mod:`minirag_store.budget`) counts an answer, then trimmed versions of it,
and the next answer often shows the same sections again. So a long text is counted in
pieces, encoded together on all cores, and the counts of recent pieces are remembered:
what two answers share is encoded once. Cut at whitespace, a trimmed answer shares the
pieces before its first change; cut before quotes, each hit's text and section is a piece
of its own wherever it stands, so a trimmed answer re-encodes only the short JSON around
them (an over-budget answer at a million chunks: ~3 whole counts -> ~1.5; ``bench/budget.py``
times both ways). Cutting at quotes is exact only for tokenizers that make every ``"`` a
token of its own (:func:`quotes_stand_alone`); others are cut at whitespace.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from os import PathLike
from typing import Any

from minirag_chunker import load_tokenizer
from minirag_chunker.tokens import SPLIT_CHARS, split_at_whitespace

__all__ = ["LONG_STRETCH", "MEMO_PIECES", "budget_counter", "quotes_stand_alone", "split_at_quotes"]

#: Pieces whose counts a counter remembers (~4 MB of text at most: a piece is at most
#: twice :data:`SPLIT_CHARS`).
MEMO_PIECES = 512
#: A stretch between two quotes at least this long is a piece of its own (see
#: :func:`split_at_quotes`): an answer's hit texts and sections, not its keys and numbers.
LONG_STRETCH = 256
_LONG_STRETCH = re.compile(f'"[^"]{{{LONG_STRETCH},}}')


def budget_counter(path: str | PathLike[str], *, quotes: bool = True) -> Callable[[str], int]:
    """A memoising token counter for the tokenizer in ``path`` (truncation and padding
    off, special tokens not counted). ``quotes`` False: cut at whitespace only, even
    where the tokenizer would allow quotes. Raises ``TokenizerLoadError``. Thread-safe
    enough: threads may share it, each sums its own counts."""
    tokenizer = load_tokenizer(path)
    encode = tokenizer.encode
    # Offsets are never read: ``encode_batch_fast`` (newer tokenizers) skips them and
    # gives the same tokens: a 16 KB answer counted 2.75 -> 2.17 ms.
    encode_batch = getattr(tokenizer, "encode_batch_fast", tokenizer.encode_batch)
    known: dict[str, int] = {}
    at_quotes = quotes and quotes_stand_alone(tokenizer)
    split = split_at_quotes if at_quotes else split_at_whitespace
    # Cut at quotes, an answer is worth cutting from a few of its hits on: the budget
    # counts each trimmed version it tries (~10 of an answer over the budget).
    whole_below = 4 * LONG_STRETCH if at_quotes else 2 * SPLIT_CHARS

    def count_tokens(text: str) -> int:
        """Number of tokens in ``text`` (no special tokens, no truncation)."""
        if len(text) < whole_below:
            return len(encode(text, add_special_tokens=False))
        pieces = split(text, SPLIT_CHARS)
        counts = {piece: n for piece in pieces if (n := known.get(piece)) is not None}
        new = [piece for piece in dict.fromkeys(pieces) if piece not in counts]
        if new:
            encoded = encode_batch(new, add_special_tokens=False)
            fresh = {piece: len(e) for piece, e in zip(new, encoded, strict=True)}
            if len(known) + len(fresh) > MEMO_PIECES:
                known.clear()  # a bound, not an LRU: what matters is the last few answers
            known.update(fresh)
            counts.update(fresh)
        return sum(counts[piece] for piece in pieces)

    return count_tokens


def quotes_stand_alone(tokenizer: Any) -> bool:
    """Whether ``tokenizer`` makes every ``"`` a token of its own, whatever stands beside
    it, and normalises character by character: BERT's pre-tokenizer (every punctuation
    character is a word of its own) and normaliser, as in all-MiniLM-L6-v2 and the BGE
    models. Then a text's count is the sum of its pieces' when it is cut before any quote
    (:func:`split_at_quotes`). SentencePiece and byte-level BPE tokenizers keep a quote
    with the word beside it: their texts are cut at whitespace only."""
    from tokenizers import normalizers, pre_tokenizers

    normalizer = tokenizer.normalizer
    return isinstance(tokenizer.pre_tokenizer, pre_tokenizers.BertPreTokenizer) and (
        normalizer is None or isinstance(normalizer, normalizers.BertNormalizer)
    )


def split_at_quotes(text: str, size: int) -> list[str]:
    """``text`` in consecutive pieces, each long stretch between two quotes (a JSON
    string's value: a hit's text, a section) a piece of its own from its opening quote,
    so the same value is the same piece in every answer that holds it; the text between
    such stretches is joined. A piece over twice ``size`` characters is cut further at
    whitespace (``split_at_whitespace``). Exact only where :func:`quotes_stand_alone`."""
    pieces: list[str] = []
    start = 0
    for found in _LONG_STRETCH.finditer(text):
        if found.start() > start:
            pieces.extend(_at_most(text[start : found.start()], size))
        pieces.extend(_at_most(found.group(), size))
        start = found.end()
    if start < len(text) or not pieces:
        pieces.extend(_at_most(text[start:], size))
    return pieces


def _at_most(piece: str, size: int) -> list[str]:
    return [piece] if len(piece) <= 2 * size else split_at_whitespace(piece, size)
