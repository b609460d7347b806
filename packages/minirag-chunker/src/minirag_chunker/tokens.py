"""Token counting: a counter built from ``tokenizer.json``, and cutting text to a token limit."""

from __future__ import annotations

import re
from collections.abc import Callable
from os import PathLike
from pathlib import Path
from typing import Any

from minirag_chunker.errors import TokenizerLoadError

Counter = Callable[[str], int]
# Share of the average-density guess a cut aims at; 0.9 made the first guess fit for ~all
# pieces of the bench documents while keeping pieces close to full.
GUESS_SHARE = 0.9


def counter_from_tokenizer_file(path: str | PathLike[str], *, quotes: bool = True) -> Counter:
    """A token counter for the tokenizer in ``path`` with truncation and padding both off.

    The tokenizer an embedding library hands out usually truncates at the model's maximum;
    a counter built on it cannot tell 128 tokens from 900 and would call every text
    "within budget". Special tokens are not counted: the budget leaves room for them.
    ``quotes`` False: a long text is cut at whitespace only, even where the tokenizer
    would allow cutting it at quotes (``bench/budget.py`` times both).
    """
    from tokenizers import Tokenizer  # a declared dependency, imported on first use

    file = Path(path)
    try:
        tokenizer = Tokenizer.from_file(str(file))
    except Exception as exc:  # tokenizers raises a bare Exception for unreadable/invalid files
        raise TokenizerLoadError(
            f"cannot load tokenizer from {file}: {exc}. Pass the path of a Hugging Face "
            "tokenizer.json file."
        ) from exc
    tokenizer.no_truncation()
    tokenizer.no_padding()
    encode = tokenizer.encode
    # Offsets are never read here: ``encode_batch_fast`` (newer tokenizers; older ones lack
    # it) skips them and gives the same tokens: a 16 KB answer counted 2.75 -> 2.17 ms.
    encode_batch = getattr(tokenizer, "encode_batch_fast", tokenizer.encode_batch)
    # Counts of recent pieces of long texts. The response budget counts an answer, then
    # trimmed versions of it: pieces they share are not encoded again. Cut at whitespace,
    # a trimmed answer shares the pieces before its first change (an over-budget answer
    # at a million chunks: ~3 whole counts -> ~1.5); cut at quotes, each hit's text and
    # section is a piece of its own wherever it stands, so a trimmed answer (and a later
    # answer showing the same sections) re-encodes only the short JSON around them.
    known: dict[str, int] = {}
    at_quotes = quotes and quotes_stand_alone(tokenizer)
    split = split_at_quotes if at_quotes else split_at_whitespace
    # Cut at quotes, an answer is worth cutting from a few of its hits on: the response
    # budget counts each trimmed version it tries (~10 of an answer over the budget).
    whole_below = 4 * LONG_STRETCH if at_quotes else 2 * SPLIT_CHARS

    def count_tokens(text: str) -> int:
        """Number of tokens in ``text`` (no special tokens, no truncation)."""
        if len(text) < whole_below:
            return len(encode(text, add_special_tokens=False))
        # A long text (a whole answer the response budget checks) is counted in pieces
        # that the tokenizer encodes on all cores (``encode_batch``).
        pieces = split(text, SPLIT_CHARS)
        counts = {piece: n for piece in pieces if (n := known.get(piece)) is not None}
        new = [piece for piece in dict.fromkeys(pieces) if piece not in counts]
        if new:
            encoded = encode_batch(new, add_special_tokens=False)
            fresh = {piece: len(e) for piece, e in zip(new, encoded, strict=True)}
            if len(known) + len(fresh) > MEMO_PIECES:
                known.clear()  # a bound, not an LRU: what matters is the last few answers
            known.update(fresh)  # (threads may share the counter: each sums its own counts)
            counts.update(fresh)
        return sum(counts[piece] for piece in pieces)

    return count_tokens


#: Pieces whose counts a counter remembers (~4 MB of text at most: a piece is at most
#: twice :data:`SPLIT_CHARS`).
MEMO_PIECES = 512


#: Characters per piece when a long text is counted in parallel.
SPLIT_CHARS = 4096


def split_at_whitespace(text: str, size: int) -> list[str]:
    """``text`` in consecutive pieces of about ``size`` characters, each after the first
    starting where a whitespace run starts, so that the pieces' token counts add up to the
    whole text's.

    Pre-tokenizers split at whitespace and keep a run with the word after it (WordPiece
    drops it, SentencePiece's ``▁`` and byte-level BPE's ``Ġ`` mark that word), so no
    token spans such a cut. A text without whitespace for a while is cut at the next run.
    """
    pieces: list[str] = []
    start = 0
    while len(text) - start > size:
        cut = _run_start(text, start + size)
        if cut < 0:
            break
        pieces.append(text[start:cut])
        start = cut
    pieces.append(text[start:])
    return pieces


_RUN_START = re.compile(r"(?<=\S)\s")


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


#: A stretch between two quotes at least this long is a piece of its own (see
#: :func:`split_at_quotes`): an answer's hit texts and sections, not its keys and numbers.
LONG_STRETCH = 256
_LONG_STRETCH = re.compile(f'"[^"]{{{LONG_STRETCH},}}')


def split_at_quotes(text: str, size: int) -> list[str]:
    """``text`` in consecutive pieces, each long stretch between two quotes (a JSON
    string's value: a hit's text, a section) a piece of its own from its opening quote,
    so the same value is the same piece in every answer that holds it; the text between
    such stretches is joined. A piece over twice ``size`` characters is cut further at
    whitespace (:func:`split_at_whitespace`). Exact only for a tokenizer where
    :func:`quotes_stand_alone`."""
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


def _run_start(text: str, at: int) -> int:
    """The start of the first whitespace run that begins at or after ``at`` (-1: none)."""
    found = _RUN_START.search(text, at)
    return found.start() if found else -1


def split_to_fit(
    text: str, limit: int, count: Counter, *, total: int | None = None
) -> list[tuple[str, int]]:
    """Cut ``text`` into consecutive pieces of at most ``limit`` tokens each, with their counts.

    The last resort for one sentence, table row or code line longer than the budget. Cuts
    fall after whitespace; a run with no whitespace (a URL, a base64 blob) is cut between
    characters. The pieces concatenate to ``text`` exactly.
    """
    pieces: list[tuple[str, int]] = []
    rest = text
    while rest:
        piece, tokens = take_prefix(rest, limit, count, total=total)
        pieces.append((piece, tokens))
        rest = rest[len(piece) :]
        total = None
    return pieces


def take_prefix(
    text: str, limit: int, count: Counter, *, total: int | None = None
) -> tuple[str, int]:
    """The first piece of ``text`` that fits ``limit`` tokens (all of it when it fits).

    The cut is guessed from the text's average characters per token and checked with one
    count, so a long text costs a few counts per piece rather than one per word.
    ``total`` is the text's token count when the caller already knows it.
    """
    limit = max(limit, 1)
    total = count(text) if total is None else total
    if total <= limit:
        return text, total
    # aim a little under the average so the first count usually fits (one count per piece)
    guess = max(1, int(GUESS_SHARE * limit * len(text) / max(total, 1)))
    cut = min(guess, max(len(text) - 1, 1))
    while True:
        end = _snap(text, cut)
        piece = text[:end]
        tokens = count(piece)
        if tokens <= limit or end <= 1:
            return piece, tokens
        # shrink in proportion to the overshoot, and always by at least one character
        cut = max(1, min(end - 1, int(end * limit / tokens)))


def _snap(text: str, cut: int) -> int:
    """End of a prefix no longer than ``cut`` that stops just after whitespace, if it can."""
    cut = min(max(cut, 1), len(text))
    if cut == len(text):
        return cut
    space = max(text.rfind(" ", 0, cut), text.rfind("\n", 0, cut), text.rfind("\t", 0, cut))
    # whitespace far back (a URL or base64 run after one short word) would only produce a
    # tiny piece before the in-word cut anyway, so cut near ``cut`` instead
    if space >= cut // 2 and text[:space].strip():
        return space + 1
    return cut
