"""A query's hits as a client reads them: ranked chunks that lie next to each other in one
section come back as one passage, and the scores only when asked for.

Why: a good ranking often finds neighbouring chunks of one section (on a SciFact subset
61 % of the hits at topK 50 had their preceding chunk in the same answer, on article PDFs
40 %). Sent apart they cost a client each hit's fields again and a passage cut in two;
joined they read as the author wrote them, and the response budget buys document text
(``bench/answers.py``: the share of an answer that is document text at topK 50 rose from
0.68 / 0.63 to 0.81 / 0.71 with the scores left out too).

A passage is placed where its best chunk ranked and keeps that chunk's score and
distance; ``chunkIndex`` is its first chunk and ``lastChunk`` its last (absent for one
chunk). Chunks join only within a section (the same ``parent``), where each chunk's text
is the section's next stretch, so the passage is the section's own text. ``topK``,
``offset`` and the budget's ``hitsLeftOut`` still count ranked chunks.

``score`` (the fused score) and ``distance`` (the vector distance) tell a person tuning
``RAG_FUSION`` or ``RAG_MAX_DISTANCE`` why a hit ranked; a client reading evidence has
the order already, and the two cost ~40 characters a hit. They come with ``explain``.
Pure: no LanceDB, no model.
"""

from __future__ import annotations

from collections.abc import Sequence

from minirag_store.locators import merge
from minirag_store.results import SearchHit

__all__ = ["in_wire_order", "join_adjacent", "without_scores"]


def join_adjacent(hits: Sequence[SearchHit]) -> list[SearchHit]:
    """``hits`` (best first, each one chunk) with each run of consecutive chunks of one
    section joined into one passage, placed at its best chunk's rank."""
    runs: dict[tuple[int, int, int], list[int]] = {}  # (src, parent, first chunk) -> hits
    ends: dict[tuple[int, int, int], tuple[int, int, int]] = {}  # (.., last chunk) -> run
    for i in sorted(
        (i for i, h in enumerate(hits) if "parent" in h), key=lambda i: _place(hits[i])
    ):
        src, parent, chunk = _place(hits[i])
        run = ends.pop((src, parent, chunk - 1), None)
        if run is None:
            run = (src, parent, chunk)
            runs[run] = []
        runs[run].append(i)
        ends[(src, parent, chunk)] = run
    run_of = {i: members for members in runs.values() for i in members}
    out: list[SearchHit] = []
    done: set[int] = set()
    for i, hit in enumerate(hits):  # best first: a passage's first chunk met is its best
        if i in done:
            continue
        members = run_of.get(i, [i])
        done.update(members)
        out.append(_passage([hits[m] for m in members], hit))
    return out


def _place(hit: SearchHit) -> tuple[int, int, int]:
    return hit["src"], hit["parent"], hit["chunkIndex"]


def _passage(chunks: list[SearchHit], best: SearchHit) -> SearchHit:
    """One hit for consecutive ``chunks`` (in document order) of a section, ranked and
    scored as ``best``, its text the section's text from the first to the last."""
    if len(chunks) == 1:
        return dict(chunks[0])  # type: ignore[return-value]
    first, last = chunks[0], chunks[-1]
    out: SearchHit = {**best, "chunkIndex": first["chunkIndex"]}  # type: ignore[typeddict-item]
    out["lastChunk"] = last["chunkIndex"]
    locator = first.get("locator", {})
    for chunk in chunks[1:]:
        locator = merge(locator, chunk.get("locator", {}))
    if locator:
        out["locator"] = locator
    else:
        out.pop("locator", None)
    out["text"] = "".join(c["text"] for c in chunks)
    return in_wire_order(out)


def in_wire_order(hit: SearchHit) -> SearchHit:
    """The hit's fields in the wire's order (text last: a client cut short still has the
    rest), whatever order they were set in."""
    keys = ("src", "chunkIndex", "lastChunk", "score", "distance", "locator", "match", "parent")
    keys += ("text",)
    return {k: hit[k] for k in keys if k in hit}  # type: ignore[return-value,literal-required]


def without_scores(hit: SearchHit) -> SearchHit:
    """``hit`` without ``score``, ``distance`` and its match's ``coverage`` and ``z`` (what
    ``explain`` adds)."""
    out = {k: v for k, v in hit.items() if k not in ("score", "distance")}
    if "match" in hit:
        out["match"] = {k: v for k, v in hit["match"].items() if k not in ("coverage", "z")}
    return out  # type: ignore[return-value]
