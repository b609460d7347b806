"""Locators as stored, read and shown: where a chunk is in its source (``SearchHit.locator``).

The table keeps each chunk's locator as compact JSON (:func:`encode`; NULL for a chunk
written before locators, read as ``{}``). :func:`numbers` says which pages or slides one
covers (what ``sources[].pages`` and ``read_file(page=)`` go by) and :func:`describe`
is how a person reads it (``p. 12``, ``slide 4``, ``sheet "Q3" rows 2-40``), which the
CLI prints and the answers' notices quote. Pure; imports nothing of ours but the types.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any, Literal

from minirag_store.results import Locator, SearchHit, SourceSummary

__all__ = [
    "PLURAL",
    "Place",
    "add_places",
    "decode",
    "describe",
    "encode",
    "merge",
    "numbers",
]

Place = Literal["page", "slide"]
#: The field holding ``[first, last]`` when a chunk runs across several.
PLURAL: dict[Place, str] = {"page": "pages", "slide": "slides"}


def encode(locator: dict[str, Any]) -> str:
    """A locator as the table stores it (compact JSON)."""
    return json.dumps(locator, ensure_ascii=False, separators=(",", ":"))


def decode(stored: str | None) -> Locator:
    """A stored locator (``{}`` for a row written before locators, or one unreadable)."""
    if not stored:
        return {}
    try:
        value = json.loads(stored)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}  # type: ignore[return-value]


def numbers(locator: Locator, place: Place) -> set[int]:
    """The pages (or slides) ``locator`` covers; empty when it has none."""
    span = locator.get(PLURAL[place])
    if isinstance(span, list) and len(span) == 2:
        return set(range(int(span[0]), int(span[1]) + 1))
    single = locator.get(place)
    return {single} if isinstance(single, int) else set()


def merge(first: Locator, then: Locator) -> Locator:
    """Where two consecutive chunks of one section are, ``first`` then ``then``: the first
    page (slide, chapter, row) of ``first`` to the last of ``then``; the rest (sheet,
    heading path: one section has one) as ``first`` says it."""
    out: Locator = {**then, **first}  # type: ignore[typeddict-item]
    for single, plural in (("page", "pages"), ("slide", "slides"), ("chapter", "chapters")):
        starts = [loc[single] for loc in (first, then) if single in loc]  # type: ignore[literal-required]
        ends = [_last(loc, single, plural) for loc in (first, then) if single in loc]
        if not starts:
            continue
        out[single] = starts[0]  # type: ignore[literal-required]
        if max(ends) != starts[0]:
            out[plural] = [starts[0], max(ends)]  # type: ignore[literal-required]
    if "rows" in first and "rows" in then:
        out["rows"] = [first["rows"][0], max(first["rows"][1], then["rows"][1])]
    return out


def _last(locator: Locator, single: str, plural: str) -> int:
    span = locator.get(plural)
    return int(span[1]) if isinstance(span, list) and len(span) == 2 else int(locator[single])  # type: ignore[literal-required]


def _span(prefix: str, first: int, span: Any) -> str:
    if isinstance(span, list) and len(span) == 2 and span[1] != span[0]:
        return f"{prefix}{span[0]}-{span[1]}"
    return f"{prefix}{first}"


def describe(locator: Locator) -> str:
    """Where the chunk is, as a person reads it: ``p. 12`` (``pp. 12-13``), ``slide 4``,
    ``sheet "Q3" rows 2-40``, ``chapter 3``; "" when its format has none of these."""
    parts: list[str] = []
    if "page" in locator:
        many = isinstance(locator.get("pages"), list)
        parts.append(_span("pp. " if many else "p. ", locator["page"], locator.get("pages")))
    if "slide" in locator:
        many = isinstance(locator.get("slides"), list)
        parts.append(
            _span("slides " if many else "slide ", locator["slide"], locator.get("slides"))
        )
    if "sheet" in locator:
        parts.append(f'sheet "{locator["sheet"]}"')
    if "rows" in locator:
        first, last = locator["rows"]
        parts.append(f"row {first}" if first == last else f"rows {first}-{last}")
    if "chapter" in locator:
        parts.append(_span("chapter ", locator["chapter"], locator.get("chapters")))
    return " ".join(parts)


def add_places(sources: Sequence[SourceSummary], hits: Iterable[SearchHit]) -> None:
    """Give each source summary the pages and slides its ``hits`` are on (ascending);
    a hit's source is ``sources[hit["src"]]``."""
    for hit in hits:
        entry = sources[hit["src"]]
        for place, plural in PLURAL.items():
            found = numbers(hit.get("locator", {}), place)
            if found:
                held: list[int] = entry.get(plural, [])  # type: ignore[assignment]
                entry[plural] = sorted(set(held) | found)  # type: ignore[literal-required]
