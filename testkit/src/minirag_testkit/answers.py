"""A query answer read back the way a test asserts on it: each hit with its source's fields.

The wire answer says a path once (``QueryResult``: a hit points at ``sources[src]`` and
``parents[parent]``). Most tests ask "which document is this hit from, and what section
holds it"; :func:`expand` answers that without each test re-walking the indices. It adds,
never hides: the hit keeps every wire field, so a test can still assert on those.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePath
from typing import Any

__all__ = ["chunks_held", "expand", "hit_sources", "shown"]


def chunks_held(answer: Mapping[str, Any]) -> list[tuple[int, int]]:
    """The ranked chunks an answer holds, as ``(src, chunkIndex)`` in hit order: a passage
    of neighbouring chunks (``chunkIndex`` to ``lastChunk``) holds several."""
    return [
        (hit["src"], chunk)
        for hit in answer["results"]
        for chunk in range(hit["chunkIndex"], hit.get("lastChunk", hit["chunkIndex"]) + 1)
    ]


def expand(answer: Mapping[str, Any]) -> dict[str, Any]:
    """``answer`` with each source given its ``source`` (the absolute path of a file) and
    each hit its source's ``source``, ``title`` (the file's name when the wire leaves it
    out), ``displayPath`` and ``stale`` (when true), its ``locator`` (``{}`` when the wire
    leaves it out), and ``parentId`` (the key of its section in ``parents``,
    here a dict, or None); the rest as returned."""
    sources = [_with_source(answer, s) for s in answer["sources"]]
    hits = []
    for hit in answer["results"]:
        summary = sources[hit["src"]]
        full = {
            "locator": {},  # absent on the wire when empty
            **hit,
            "source": summary["source"],
            "title": _title(summary),
            "displayPath": summary["displayPath"],
            "parentId": str(hit["parent"]) if "parent" in hit else None,
        }
        if summary.get("stale"):
            full["stale"] = True
        hits.append(full)
    parents = {str(i): text for i, text in enumerate(answer["parents"])}
    return {**answer, "results": hits, "sources": sources, "parents": parents}


def _title(summary: Mapping[str, Any]) -> str:
    """A source's title; absent on the wire when it is only the file's name, which is then
    the title as the store makes one from a file name."""
    from minirag_store.convert.titles import stem_title

    if "title" in summary:
        return summary["title"]
    return stem_title(PurePath(summary["displayPath"]).stem)


def _with_source(answer: Mapping[str, Any], summary: Mapping[str, Any]) -> dict[str, Any]:
    """A source entry with its ``source`` key: a file's root joined with its displayPath
    (the absolute path), a data or URL source's id."""
    path = summary["displayPath"]
    if "root" in summary:
        path = str(PurePath(answer["roots"][summary["root"]]) / path)
    return {**summary, "source": path}


def hit_sources(answer: Mapping[str, Any]) -> list[str]:
    """The source of each hit, in rank order."""
    sources = [_with_source(answer, s)["source"] for s in answer["sources"]]
    return [sources[hit["src"]] for hit in answer["results"]]


def shown(hit: Mapping[str, Any]) -> str:
    """What a reader is shown of an :func:`expand`-ed hit: its heading breadcrumb (the
    document's title when the locator has none: the wire leaves out a heading path that is
    only the title) above its passage."""
    return f"{hit['locator'].get('headingPath') or hit['title']}\n\n{hit['text']}"
