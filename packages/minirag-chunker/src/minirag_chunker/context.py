"""Prefix context for retrieval units: heading breadcrumbs and the document title seed.

Context is offered as *candidates*, most informative first and always ending with ``""``;
the packer takes the first one that fits its share of the budget (a third), so a deep
breadcrumb degrades step by step instead of eating the unit it introduces.
"""

from __future__ import annotations

from collections.abc import Callable

from minirag_chunker.tokens import split_to_fit

BREADCRUMB_JOIN = " > "
# Stands for the heading levels an elided breadcrumb leaves out.
ELLIPSIS = "…"


def breadcrumb_candidates(chain: tuple[str, ...]) -> tuple[str, ...]:
    """Breadcrumbs for a heading chain, longest first, elided from the middle, then ``""``.

    The outermost heading says which part of the document this is and the innermost what
    the text is about; the levels between are the ones a reader can infer, so they go first:
    ``1 General > … > 3.4.2 Approval``.
    """
    if not chain:
        return ("",)
    candidates = [BREADCRUMB_JOIN.join(chain)]
    for keep in range(len(chain) - 2, 0, -1):
        candidates.append(BREADCRUMB_JOIN.join((chain[0], ELLIPSIS, *chain[-keep:])))
    candidates += [chain[-1], ""]
    return tuple(dict.fromkeys(candidates))


def pick(candidates: tuple[str, ...], limit: int, count: Callable[[str], int]) -> tuple[str, int]:
    """The first candidate whose token count is at most ``limit`` (``("", 0)`` at worst)."""
    for candidate in candidates:
        if not candidate:
            break
        tokens = count(candidate)
        if tokens <= limit:
            return candidate, tokens
    return "", 0


def fit_title(title: str, limit: int, count: Callable[[str], int]) -> tuple[str, int]:
    """The title, or its leading words plus ``…`` when it is longer than ``limit`` tokens."""
    title = " ".join(title.split())
    if not title or limit < 1:
        return "", 0
    tokens = count(title)
    if tokens <= limit:
        return title, tokens
    head = split_to_fit(title, max(limit - 1, 1), count, total=tokens)[0][0].rstrip()
    shortened = f"{head} {ELLIPSIS}"
    tokens = count(shortened)
    return (shortened, tokens) if tokens <= limit else ("", 0)
