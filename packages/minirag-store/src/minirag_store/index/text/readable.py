"""What a reader reads of markdown: link text without its target, alt text without its path.

Converted documents are full of markup a reader never sees: ``[Ada Lovelace](/wiki/Ada_Lovelace
"Ada Lovelace")``, ``![logo](img/logo.png)``, ``<br>``, ``<a href=…>``, ``&amp;``, reference
definitions. Embedded or keyword-indexed as written, the targets, paths and link titles
outweigh the words: a Wikipedia sentence with a link every few words no longer matches a
quote of itself. So the embedder and the keyword column get the **readable** text computed
here, while the stored chunk text (what ``read_file``, neighbours and ``parents`` give back,
and the ``text`` of a hit) stays the original markdown, so a caller can still follow a link.

Readable text is the markdown with these edits, outside code:

* inline links and images keep their text / alt text; ``](target "title")`` goes, as does
  the ``][label]`` of a reference link and a reference definition line ``[label]: target``
  (a target must look like a path, URL or anchor: ``[Ca(2+)](i)`` in an abstract is text);
  a ``](target)`` whose ``[`` lies in an earlier paragraph (converters emit such links
  around whole blocks) goes too;
* autolinks ``<https://…>`` / ``<name@host>`` keep the address (it is what a reader sees);
* HTML tags of known elements go (block-level ones leave a space so words do not fuse;
  ``<img alt=…>`` leaves its alt text); comments go; other ``<words>`` (``Vec<T>``) stay;
* character references (``&amp;``, ``&#8212;``) become their character;
* backslash escapes (``ERR\\_CODE``) lose the backslash.

Code spans and fenced code blocks are content and are left exactly as written, as are bare
URLs. Shortcut references (``[label]``) keep their brackets: without the definition at hand
they cannot be told from literal brackets, and brackets index as nothing anyway. Indented
code blocks are not recognised (converters write fences).

The edits are computed over a whole section and then cut at the chunk boundaries
(:func:`readable_pieces`), so a link the chunker split between two chunks is still removed
whole: each chunk's readable body is its share of the section's readable text.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence

__all__ = ["readable", "readable_pieces"]

# (start, end, replacement): text[start:end] is replaced; edits are sorted and disjoint.
_Edit = tuple[int, int, str]

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.M)
_TITLE = r"""(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\((?:[^()\\]|\\.)*\))"""
# A destination: <…>, or non-space text with balanced parentheses (two levels: /wiki/A_(b)).
_DEST = r"(?:<[^<>\n]*>|(?:[^\s()\\]|\\.|\((?:[^\s()\\]|\\.|\([^\s()]*\))*\))+)"
_REF_DEF = re.compile(
    rf"^ {{0,3}}\[(?!\^)(?:[^\]\\\n]|\\.)+\]:[ \t]*\n?[ \t]*(?P<dest>{_DEST})"
    rf"(?:[ \t]*\n?[ \t]*{_TITLE})?[ \t]*(?:\n|$)",
    re.M,
)
_TAIL = re.compile(rf"\]\([ \t]*\n?[ \t]*(?P<dest>{_DEST})?(?:[ \t]*\n?[ \t]*{_TITLE})?[ \t]*\)")
_REF_TAIL = re.compile(r"\]\[(?:[^\]\\\n]|\\.)*\]")
# CommonMark's attribute, with quoted values that stop at ``<``/``>``: a run of unclosed
# tags must not send every ``<`` scanning to the end of the text.
_ATTR = r"""(?:\s+[A-Za-z_:][\w.:-]*(?:\s*=\s*(?:"[^"<>]*"|'[^'<>]*'|[^\s"'=<>`]+))?)"""
# One pass finds the next thing that may need an edit (or that shields text from edits).
_SCAN = re.compile(
    r"(?P<code>`+)"
    r"|(?P<esc>\\[!-/:-@\[-`{-~])"
    r"|(?P<open>!?\[)"
    r"|(?P<close>\])"
    r"|(?P<comment><!--)"
    r"|<(?P<auto>[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*|[^\s<>@\\]+@[^\s<>@\\]+\.[A-Za-z]{2,})>"
    rf"|(?P<tag></?(?P<name>[A-Za-z][A-Za-z0-9-]*)(?P<attrs>{_ATTR}*)\s*/?>)"
    r"|(?P<entity>&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});)"
    r"|(?P<blank>\n[ \t]*\n)"
)
_BLANK = re.compile(r"\n[ \t]*\n")
_TICKS = re.compile(r"`+")
_ALT = re.compile(r"""\balt\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))""", re.I)


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


# HTML elements whose tags are markup. Anything else in angle brackets (``Vec<T>``,
# ``<placeholder>``) is left as written: it is more likely text than a tag.
_INLINE_TAGS = _names(
    "a abbr acronym b bdi bdo big cite code data del dfn em font i ins kbd mark nobr q rp rt "
    "ruby s samp small span strike strong sub sup time tt u var wbr"
)
_BLOCK_TAGS = _names(
    "address article aside audio blockquote body br button canvas caption center col colgroup "
    "dd details dialog div dl dt embed fieldset figcaption figure footer form h1 h2 h3 h4 h5 "
    "h6 head header hr html iframe img input label legend li link main map meta nav noscript "
    "object ol option p picture pre script section select source style summary svg table "
    "tbody td template textarea tfoot th thead title tr track ul video"
)


def readable(markdown: str) -> str:
    """``markdown`` as a reader reads it (see the module docstring for what changes)."""
    edits = _edits(markdown)
    return _apply(markdown, edits, [e[0] for e in edits], 0, len(markdown))


def readable_pieces(pieces: Sequence[tuple[str, int]]) -> list[tuple[str, int]]:
    """The readable form of one section's chunks, given in order as ``(text, body_start)``.

    Returns ``(text, body_start)`` again: the readable prefix, then the chunk's share of
    the section's readable text (bodies are read as one text, so markup split between two
    chunks is still recognised).
    """
    bodies = [text[start:] for text, start in pieces]
    section = "".join(bodies)
    edits = _edits(section)
    starts = [e[0] for e in edits]
    out: list[tuple[str, int]] = []
    begin = 0
    for (text, start), body in zip(pieces, bodies, strict=True):
        end = begin + len(body)
        prefix = readable(text[:start]) if start else ""
        out.append((prefix + _apply(section, edits, starts, begin, end), len(prefix)))
        begin = end
    return out


def _apply(text: str, edits: list[_Edit], starts: list[int], begin: int, end: int) -> str:
    """``text[begin:end]`` with the edits that start inside it (an edit that runs past
    ``end`` is cut there; the rest of it removes the start of the next range)."""
    i = bisect_left(starts, begin)
    pos = begin
    if i and edits[i - 1][1] > begin:  # an edit from the previous range reaches in
        pos = min(edits[i - 1][1], end)
    out: list[str] = []
    while i < len(edits) and edits[i][0] < end:
        first, last, replacement = edits[i]
        out += (text[pos:first], replacement)
        pos = min(last, end)
        i += 1
    out.append(text[pos:end])
    return "".join(out)


def _edits(text: str) -> list[_Edit]:
    """Every edit that turns ``text`` into its readable form, sorted."""
    if not any(ch in text for ch in "[]<&\\"):
        return []  # plain prose: nothing to scan
    edits: list[_Edit] = []
    skip = _fences(text)
    for match in _REF_DEF.finditer(text):
        if _is_definition(text, match, edits) and not _inside(match.start(), skip):
            edits.append((match.start(), match.end(), ""))
    skip = sorted(skip + [(s, e) for s, e, _ in edits])
    edits += _Scanner(text, skip).run()
    edits.sort()
    return edits


def _is_target(dest: str | None) -> bool:
    """Whether a link destination looks like one: empty, ``<…>``, or holding a character
    of a path, URL or anchor. Plain text in link syntax (``[Ca(2+)](i)``, a concentration
    in a scientific abstract) keeps its parentheses."""
    return not dest or dest.startswith("<") or any(ch in dest for ch in "/.#:?=%@")


def _is_definition(text: str, match: re.Match[str], before: list[_Edit]) -> bool:
    """Whether a ``[label]: target`` line really defines a link: it starts a paragraph (or
    follows another definition) and its target looks like one, so a line such as
    ``[Warning]: Danger`` stays text."""
    start = match.start()
    if not _is_target(match.group("dest")):
        return False
    if start == 0 or (before and before[-1][1] == start):
        return True
    line_start = text.rfind("\n", 0, start - 1) + 1
    return not text[line_start : start - 1].strip()


def _fences(text: str) -> list[tuple[int, int]]:
    """Spans of fenced code blocks (fence lines included); an unclosed fence runs to the end."""
    spans: list[tuple[int, int]] = []
    opened: tuple[int, str] | None = None
    for match in _FENCE.finditer(text):
        marker = match.group(1)
        if opened is None:
            opened = (match.start(), marker)
        elif marker[0] == opened[1][0] and len(marker) >= len(opened[1]):
            line_end = text.find("\n", match.end())
            spans.append((opened[0], len(text) if line_end < 0 else line_end))
            opened = None
    if opened is not None:
        spans.append((opened[0], len(text)))
    return spans


def _inside(pos: int, spans: list[tuple[int, int]]) -> bool:
    return any(start <= pos < end for start, end in spans)


class _Scanner:
    """One left-to-right pass over inline markup, outside the ``skip`` spans."""

    def __init__(self, text: str, skip: list[tuple[int, int]]) -> None:
        self.text = text
        self.skip = skip
        self.edits: list[_Edit] = []
        self.opened: list[tuple[int, int]] = []  # unclosed ``[`` / ``![``: (position, length)
        # Looked up once per text, so unclosed backticks or comments cost no rescans.
        self._runs: dict[int, list[int]] | None = None  # backtick runs: length -> starts
        self._blanks: list[int] = []  # where each blank line starts
        self._comment_end = -2  # the last "-->" found (-1: none further on; -2: not looked)

    def run(self) -> list[_Edit]:
        """Scan the whole text; returns the edits found (unsorted)."""
        text, pos, spans = self.text, 0, iter(self.skip)
        span = next(spans, None)
        while True:
            match = _SCAN.search(text, pos)
            if match is None:
                return self.edits
            while span is not None and span[1] <= match.start():
                span = next(spans, None)
            if span is not None and span[0] <= match.start():
                pos = span[1]  # code or a removed definition: nothing in it is markup
                self.opened.clear()
                continue
            pos = self._step(match)

    def _step(self, match: re.Match[str]) -> int:
        """Handle one scanned match; returns where scanning goes on."""
        # lastgroup names the outermost group that matched (``tag``, not its ``name``)
        kind, start, end = match.lastgroup, match.start(), match.end()
        if kind == "code":
            return self._code(start, end)
        if kind == "open":
            self.opened.append((start, end - start))
        elif kind == "close":
            return self._close(start)
        elif kind == "blank":
            self.opened.clear()  # brackets never pair across paragraphs
        elif kind == "esc":
            self.edits.append((start, start + 1, ""))
        elif kind == "comment":
            return self._comment(start, end)
        elif kind == "auto":
            self.edits += [(start, start + 1, ""), (end - 1, end, "")]
        elif kind == "tag":
            return self._tag(match)
        elif kind == "entity":
            self._entity(match)
        return end

    def _code(self, start: int, end: int) -> int:
        """A code span runs to the next backtick run of the same length in its paragraph;
        without one, the backticks are literal."""
        if self._runs is None:
            self._runs = {}
            for run in _TICKS.finditer(self.text):
                self._runs.setdefault(run.end() - run.start(), []).append(run.start())
            self._blanks = [blank.start() for blank in _BLANK.finditer(self.text)]
        ticks = end - start
        same = self._runs[ticks]
        after = bisect_right(same, start)
        blank = bisect_left(self._blanks, end)
        limit = self._blanks[blank] if blank < len(self._blanks) else len(self.text)
        if after < len(same) and same[after] < limit:
            return same[after] + ticks
        return end

    def _comment(self, start: int, end: int) -> int:
        """An HTML comment goes up to its ``-->``; without one, ``<!--`` is text."""
        if self._comment_end == -2 or 0 <= self._comment_end < end:
            self._comment_end = self.text.find("-->", end)
        if self._comment_end < 0:
            return end
        close = self._comment_end + 3
        self.edits.append((start, close, ""))
        return close

    def _close(self, start: int) -> int:
        tail = _TAIL.match(self.text, start)
        if tail is not None and _is_target(tail.group("dest")):
            self._pop_opener()
            self.edits.append((start, tail.end(), ""))  # a target without an opener goes too
            return tail.end()
        ref = _REF_TAIL.match(self.text, start)
        if ref is not None and self.opened:
            self._pop_opener()
            self.edits.append((start, ref.end(), ""))
            return ref.end()
        if self.opened:
            self.opened.pop()  # literal brackets: [1], [sic]
        return start + 1

    def _pop_opener(self) -> None:
        if self.opened:
            position, length = self.opened.pop()
            self.edits.append((position, position + length, ""))

    def _tag(self, match: re.Match[str]) -> int:
        start, end = match.start(), match.end()
        name = match.group("name").lower()
        if name == "img":
            alt = _ALT.search(match.group("attrs") or "")
            words = (
                html.unescape(next((g for g in alt.groups() if g is not None), "")) if alt else ""
            )
            self.edits.append((start, end, f" {words} " if words.strip() else " "))
        elif name in _BLOCK_TAGS:
            self.edits.append((start, end, " "))
        elif name in _INLINE_TAGS:
            self.edits.append((start, end, ""))
        else:
            return start + 1  # not a known element: text in angle brackets
        return end

    def _entity(self, match: re.Match[str]) -> None:
        raw = match.group()
        char = html.unescape(raw)
        if char != raw:
            self.edits.append((match.start(), match.end(), char.replace("\xa0", " ")))
