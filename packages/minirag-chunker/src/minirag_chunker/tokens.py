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


def load_tokenizer(path: str | PathLike[str]) -> Any:
    """The ``tokenizers.Tokenizer`` in ``path`` with truncation and padding both off.

    The tokenizer an embedding library hands out usually truncates at the model's maximum;
    a counter built on it cannot tell 128 tokens from 900 and would call every text
    "within budget". Raises :class:`TokenizerLoadError` for a missing or invalid file.
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
    return tokenizer


def counter_from_tokenizer_file(path: str | PathLike[str]) -> Counter:
    """A token counter for the tokenizer in ``path`` (:func:`load_tokenizer`). Special
    tokens are not counted: the budget leaves room for them. A long text is encoded in
    pieces cut at whitespace (:func:`split_at_whitespace`) on all cores."""
    tokenizer = load_tokenizer(path)
    encode = tokenizer.encode
    # Offsets are never read here: ``encode_batch_fast`` (newer tokenizers; older ones lack
    # it) skips them and gives the same tokens.
    encode_batch = getattr(tokenizer, "encode_batch_fast", tokenizer.encode_batch)

    def count_tokens(text: str) -> int:
        """Number of tokens in ``text`` (no special tokens, no truncation)."""
        if len(text) < 2 * SPLIT_CHARS:
            return len(encode(text, add_special_tokens=False))
        pieces = split_at_whitespace(text, SPLIT_CHARS)
        return sum(len(e) for e in encode_batch(pieces, add_special_tokens=False))

    return count_tokens


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
