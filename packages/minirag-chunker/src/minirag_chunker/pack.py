"""Packing one section's blocks into retrieval units under a token budget.

Counting is linear: every piece of text is counted once when it is placed (a short block
whole; a longer one sentence by sentence, line by line or row by row, summed), and unit
sizes are sums of those counts. Pieces are only ever joined at whitespace, where WordPiece
and whitespace counts add up exactly; ``verify.Verifier`` decides when a finished unit is
re-counted as a whole anyway, and a unit found over its limit is re-cut with exact counts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from minirag_chunker.blocks import Block
from minirag_chunker.context import pick
from minirag_chunker.detect import FENCE_CLOSE, FENCE_OPEN
from minirag_chunker.sections import RawSection
from minirag_chunker.tables import header_size
from minirag_chunker.tokens import take_prefix
from minirag_chunker.verify import Verifier

Part = tuple[str, int]
NONE: Part = ("", 0)
CODE_SPLIT_MARKER = "[code block split to fit the token budget]"
# A closed fence stays whole up to this many budgets; past that the encoder has long stopped
# reading, so keeping it whole only inflates every response that returns it.
ATOMIC_FENCE_BUDGETS = 4
# A block no longer than this many characters per budget token is counted whole first: it
# nearly always fits, and one count is cheaper than counting each sentence.
SHORT_BLOCK_CHARS_PER_TOKEN = 1
# A line break, or whitespace after sentence-ending punctuation: where a block may be cut.
# Converted web pages put citation links between the full stop and the space
# (``ends.[[4]](#cite_note-4) Next``, ``[[9]](#cite_note-9): 232``); those stay with the
# sentence they close, or a Wikipedia paragraph would be one sentence, cut anywhere.
_CITATION = r"\[\[[^\[\]\n]{1,40}\]\]\([^()\s]*\)(?::[ \t]?[\d–-]+)?"
_ATOM_END = re.compile(rf"\n|(?<=[.!?…])(?:{_CITATION})*[ \t]+")
_LINE_END = re.compile(r"\n")


@dataclass(frozen=True)
class Budget:
    """The counter, budget and re-count policy shared by every section of one document."""

    count: Callable[[str], int]
    budget: int
    verifier: Verifier
    # breadcrumbs recur section after section (a parent's chain is its child's lead)
    memo: dict[str, int] = field(default_factory=dict)

    def count_context(self, text: str) -> int:
        """Count a breadcrumb or label once per document."""
        tokens = self.memo.get(text)
        if tokens is None:
            tokens = self.memo[text] = self.count(text)
        return tokens

    @property
    def share(self) -> int:
        """The most tokens one kind of prefix (title, breadcrumb, table header) may take."""
        return self.budget // 3


class SectionPacker:
    """Packs the blocks of one section into ``(prefix, body)`` pairs, in order."""

    def __init__(self, budget: Budget, section: RawSection, seed: Part = NONE) -> None:
        """Prepare to pack ``section``; ``seed`` is the title prefix for its first unit."""
        self.b = budget
        self.seed = seed
        self.lead = _context(section.lead, budget)
        self.rest = _context(section.rest, budget)
        self.local = NONE  # the repeated table header or the code-split marker
        self.units: list[tuple[str, str]] = []
        self.pieces: list[str] = []
        self.used = 0
        self.parts = 0  # separate counts summed into ``used``: one means it is exact
        self.exact = True
        self.sticky_only = True
        self.limit = budget.budget
        self.prefix: tuple[str, int, int] | None = None  # text, tokens, seed length

    def pack(self, blocks: tuple[Block, ...]) -> list[tuple[str, str]]:
        """Place every block and return the units' ``(prefix, body)`` pairs."""
        last = len(blocks) - 1
        for i, block in enumerate(blocks):
            sep = "\n\n" if i < last else ""
            if block.kind == "table":
                self._table(block.text, sep)
            elif block.kind == "fence":
                self._fence(block.text, sep)
            elif block.kind in ("heading", "marker"):
                self._atom(block.text + sep, sticky=True)
            else:
                self._lines(block.text, sep, _ATOM_END)
        self._flush()
        return self.units

    # -- unit state -------------------------------------------------------------------
    def _next_prefix(self) -> tuple[str, int, int]:
        """The prefix a unit opened now would carry, shrunk so a third stays for the body."""
        first = not self.units
        parts = [self.seed if first else NONE, self.lead if first else self.rest, self.local]
        ceiling = self.b.budget - max(1, self.b.share)
        for drop in (2, 1, 0):  # give up the table header/marker first, the title last
            if sum(tokens for _, tokens in parts) <= ceiling:
                break
            parts[drop] = NONE
        return "".join(t for t, _ in parts), sum(n for _, n in parts), len(parts[0][0])

    def _room(self) -> int:
        prefix = self.prefix if self.prefix is not None else self._next_prefix()
        return self.limit - prefix[1] - self.used

    def _fresh_room(self) -> int:
        """Body tokens a unit opened now could hold."""
        return self.b.budget - self._next_prefix()[1]

    def _light(self) -> bool:
        """Whether the open unit holds too little to be worth closing before a big block."""
        return self.sticky_only or self.used * 4 < self.b.budget

    def _append(
        self, text: str, tokens: int, *, sticky: bool = False, exact: bool = True, parts: int = 1
    ) -> None:
        """Add a piece to the open unit; ``parts`` is how many separate counts ``tokens`` sums."""
        if not self.pieces and self.units and not text.strip():
            self._glue(text)
            return
        if not self.pieces:
            self.prefix = self._next_prefix()
        self.pieces.append(text)
        self.used += tokens
        self.parts += parts
        self.sticky_only = self.sticky_only and sticky
        self.exact = self.exact and exact

    def _glue(self, space: str) -> None:
        """Whitespace left over after a cut joins the unit before (no unit is whitespace alone).

        It is counted with that unit, because some counters charge for whitespace (a newline
        token); when it would push the unit over the budget, the unit's tail moves into a
        new unit together with the whitespace (WordPiece never gets here: whitespace is free).
        """
        prefix, body = self.units[-1]
        count, limit = self.b.count, self.b.budget
        if count(prefix + body + space) <= limit:
            self.units[-1] = (prefix, body + space)
            return
        follow = self._next_prefix()[0]
        for cut in _tail_cuts(body):
            head, tail = body[:cut], body[cut:] + space
            if count(prefix + head) <= limit and count(follow + tail) <= limit:
                self.units[-1] = (prefix, head)
                self.units.append((follow, tail))
                return
        # no cut fits: a single character and the whitespace already cost more than the budget
        self.units[-1] = (prefix, body + space)

    def _flush(self) -> None:
        if not self.pieces or self.prefix is None:
            return
        prefix, prefix_tokens, seed_len = self.prefix
        body = "".join(self.pieces)
        summed = prefix_tokens + self.used
        single = self.parts == 1 and not prefix and self.exact
        if single or not self.b.verifier.needs_check(exact=self.exact):
            fits = summed <= self.limit
        else:
            actual = self.b.count(prefix + body)
            self.b.verifier.learn(summed, actual, exact=self.exact)
            fits = actual <= self.limit
        if fits:
            self.units.append((prefix, body))
        else:
            # A raised limit was for one whole fence; once it has to be cut after all, the
            # pieces get the plain budget, like any other cut block.
            pieces, budget = self.pieces, self.b.budget
            self.units.extend(_refit(self.b.count, prefix, seed_len, pieces, budget))
        self.pieces, self.used, self.parts, self.exact, self.sticky_only = [], 0, 0, True, True
        self.limit, self.prefix = self.b.budget, None

    # -- placing text ---------------------------------------------------------------
    def _whole(self, text: str, tokens: int, parts: int = 1) -> bool:
        """Place a whole block here or in a fresh unit; False when it must be cut."""
        if tokens <= self._room():
            self._append(text, tokens, parts=parts)
            return True
        if self.pieces and not self._light():
            self._flush()
            if tokens <= self._room():
                self._append(text, tokens, parts=parts)
                return True
        return False

    def _counted(self, whole: str, atoms: list[str]) -> list[tuple[str, int | None]] | None:
        """Place ``whole`` if it fits, else return its atoms (counted where already known)."""
        if len(whole) <= self.b.budget * SHORT_BLOCK_CHARS_PER_TOKEN:
            if self._whole(whole, self.b.count(whole)):
                return None
            return [(atom, None) for atom in atoms]
        counted = [(atom, self.b.count(atom)) for atom in atoms]
        if self._whole(whole, sum(n for _, n in counted), parts=len(counted)):
            return None
        return list(counted)

    def _atom(
        self, text: str, tokens: int | None = None, *, sticky: bool = False, parts: int = 1
    ) -> None:
        """Place a sentence, line or row: whole in this unit or the next, cut only if too big."""
        tokens = self.b.count(text) if tokens is None else tokens
        if tokens > self._room() and self.pieces:
            self._flush()
        exact = True
        while tokens > self._room():
            piece, used = take_prefix(text, self._room(), self.b.count, total=tokens)
            self._append(piece, used, sticky=sticky)
            self._flush()
            text = text[len(piece) :]
            # additive at a whitespace cut; estimated (and so re-counted) after a cut in a word
            exact = exact and piece[-1:].isspace()
            # the rest's count is a difference of two counts, not a count of the rest: it
            # is exact only for a counter that adds up, so the policy decides on a re-count
            tokens, parts = max(tokens - used, 0), 2
            if not text:
                return
        self._append(text, tokens, sticky=sticky, exact=exact, parts=parts)

    def _lines(self, text: str, sep: str, cuts: re.Pattern[str]) -> None:
        """A text block: whole if it fits, else at sentences/lines (``cuts``), packed."""
        atoms = self._counted(text + sep, list(_atoms(text, sep, cuts)))
        for atom, tokens in atoms or ():
            self._atom(atom, tokens)

    def _table(self, text: str, sep: str) -> None:
        """Tables break between rows; later units of the table repeat its header."""
        rows = text.split("\n")
        if not header_size(rows):
            self._lines(text, sep, _LINE_END)
            return
        header = rows[0] + "\n" + rows[1] + "\n"
        body = [row + "\n" for row in rows[2:-1]] + [rows[-1] + sep]
        atoms = self._counted(text + sep, [header, *body])
        if atoms is None:
            return
        (_, header_tokens), (first, first_tokens), *rest = atoms
        header_tokens = self.b.count(header) if header_tokens is None else header_tokens
        first_tokens = self.b.count(first) if first_tokens is None else first_tokens
        # the header travels with the first row, so no unit ends on a bare header
        if header_tokens + first_tokens <= max(self._room(), self._fresh_room()):
            self._atom(header + first, header_tokens + first_tokens, parts=2)
        else:
            self._atom(header, header_tokens)
            self._atom(first, first_tokens)
        self.local = (header, header_tokens) if header_tokens <= self.b.share else NONE
        for row, tokens in rest:
            self._atom(row, tokens)
        self.local = NONE

    def _fence(self, text: str, sep: str) -> None:
        """A closed fence is atomic up to four budgets, else cut at lines with a marker."""
        whole = text + sep
        tokens = self.b.count(whole)
        if self._whole(whole, tokens):
            return
        # Only a whole fence may run over the budget; a piece of one cut at the section cap
        # is cut at lines like any long code.
        whole_fence = FENCE_CLOSE.match(text.rsplit("\n", 1)[-1]) and FENCE_OPEN.match(text)
        ceiling = (ATOMIC_FENCE_BUDGETS if whole_fence else 1) * self.b.budget
        # only a light unit (say, the heading above) may ride along over the budget
        if self.pieces and (not self._light() or self._room() - self.limit + ceiling < tokens):
            self._flush()
        if self._room() - self.limit + ceiling >= tokens:
            self.limit = ceiling
            self._append(whole, tokens)
            self._flush()
            return
        marker = CODE_SPLIT_MARKER + "\n"
        marker_tokens = self.b.count(marker)
        self.local = (marker, marker_tokens) if marker_tokens <= self.b.share else NONE
        for atom in _atoms(text, sep, _LINE_END):
            self._atom(atom)
        self._flush()
        self.local = NONE


def _context(candidates: tuple[str, ...], budget: Budget) -> Part:
    text, tokens = pick(candidates, budget.share, budget.count_context)
    return (text + "\n\n", tokens) if text else NONE


def _atoms(text: str, sep: str, cuts: re.Pattern[str]) -> Iterator[str]:
    """Cut ``text`` after each match of ``cuts``, keeping all whitespace; ``sep`` ends the last.

    Whitespace-only stretches (blank lines in code, trailing spaces) stay glued to the atom
    before them, so no unit is ever made of whitespace alone.
    """
    start = 0
    pending = ""
    for match in cuts.finditer(text):
        atom = text[start : match.end()]
        start = match.end()
        if pending and not atom.strip():
            pending += atom
            continue
        if pending:
            yield pending
        pending = atom
    tail = text[start:] + sep
    if pending and not tail.strip():
        yield pending + tail
        return
    if pending:
        yield pending
    yield tail


def _tail_cuts(body: str) -> list[int]:
    """Where ``body`` may be cut to move its tail on, last first: after whitespace, then
    between any two characters; each cut leaves text (not only whitespace) on both sides."""
    inner = [i for i in range(len(body) - 1, 0, -1) if body[:i].strip() and body[i:].strip()]
    return [i for i in inner if body[i - 1].isspace()] + [
        i for i in inner if not body[i - 1].isspace()
    ]


def _refit(
    count: Callable[[str], int], prefix: str, seed_len: int, pieces: list[str], limit: int
) -> list[tuple[str, str]]:
    """Re-cut a unit the re-count found over ``limit``, with exact counts (rare path)."""
    out: list[tuple[str, str]] = []
    start = 0
    while start < len(pieces):
        end = len(pieces)
        while end > start + 1 and count(prefix + "".join(pieces[start:end])) > limit:
            end -= 1
        for unit in _fit_exact(count, prefix, "".join(pieces[start:end]), limit):
            out.append(unit)
            prefix = prefix[seed_len:]  # the title seed goes on the first unit only
            seed_len = 0
        start = end
    return out


def _fit_exact(
    count: Callable[[str], int], prefix: str, text: str, limit: int
) -> Iterator[tuple[str, str]]:
    """Cut ``text`` so that ``prefix`` plus each piece, counted together, fits ``limit``."""
    rest = text
    while rest:
        room = limit - count(prefix)
        if room < 1:  # a prefix that leaves no room is dropped rather than overflow the unit
            prefix, room = "", limit
        piece, _ = take_prefix(rest, room, count)
        while count(prefix + piece) > limit and len(piece) > 1:
            room = max(1, room - 1)
            piece, _ = take_prefix(piece, room, count)
        yield prefix, piece
        rest = rest[len(piece) :]
