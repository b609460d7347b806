"""Answers that fit the client: ``query`` and ``read_file`` within RAG_MAX_RESPONSE_TOKENS.

MCP clients cap what a tool may return (Claude Code warns past 10,000 tokens and cuts at
25,000), and a cut answer loses its end without saying so. So an answer is measured as
the client gets it: the JSON the MCP tool returns (compact, non-ASCII kept as is, which is
how fastmcp serialises it), counted with the embedding model's tokenizer. When it is over:

* a query answer loses parent sections first (those of the lowest-ranked hits first),
  then its lowest-ranked hits (ranked chunks, as topK and offset count them; the chunks
  kept are then joined into passages, :mod:`minirag_store.passages`), never the top
  one; when even the top hit alone does not fit, its text is cut. ``trimmed`` counts
  what was left out (a count, not a list: naming each left-out hit by its path cost ~40
  tokens a hit) and ``nextOffset`` is where the left-out hits begin; ``notice`` says it
  in one short line;
* ``read_file`` returns the document's first chunks that fit, and ``nextChunk`` (with the
  ``notice``) says where to continue: ``read_file`` with ``fromChunk=nextChunk``.

Counting a whole answer costs ~0.3 ms per KB of JSON (3.4 ms for an 11 KB answer of 8
hits with their sections: test model, 2-core build machine; every query pays one count),
so a query's fit is estimated from each part's share of the answer's characters (a read's
from each chunk's own count), then checked on the whole answer (which is what is
promised) and narrowed by bisection: a few whole counts, not one per candidate. Pure: no
LanceDB, no model; the caller passes the counter.
"""

from __future__ import annotations

import json
from collections import Counter as Tally
from collections.abc import Callable, Mapping, Sequence, Set
from typing import Any

from minirag_store.locators import add_places
from minirag_store.passages import in_wire_order, join_adjacent, without_scores
from minirag_store.results import (
    QueryResult,
    QueryTrimmed,
    ReadResult,
    SearchHit,
    SourceSummary,
)

__all__ = [
    "Counter",
    "fit_query",
    "fit_read",
    "response_json",
    "response_tokens",
    "shape_query",
    "utf8_bytes",
]

Counter = Callable[[str], int]


def utf8_bytes(text: str) -> int:
    """A stand-in count: the text's UTF-8 size (at least its token count in the
    tokenizers of the models minirag knows: a token covers at least one byte)."""
    return len(text.encode("utf-8"))


def response_json(result: Mapping[str, Any]) -> str:
    """``result`` as the MCP tool's text content carries it: compact JSON, non-ASCII kept."""
    return json.dumps(result, ensure_ascii=False, separators=(",", ":"))


def response_tokens(result: Mapping[str, Any], count: Counter) -> int:
    """What ``result`` costs a client, in the model's tokens."""
    return count(response_json(result))


def _string_tokens(text: str, count: Counter) -> int:
    """What ``text`` costs inside a JSON string (escapes included)."""
    return count(json.dumps(text, ensure_ascii=False)[1:-1])


# ------------------------------------------------------------------------------ query
def _plan(result: QueryResult) -> list[tuple[str, int]]:
    """The order things are left out in: parent sections, those whose best hit ranks
    lowest first; then hits from the lowest up, never the top one."""
    hits = result["results"]
    best: dict[int, int] = {}
    for rank, hit in enumerate(hits):
        if "parent" in hit:
            best.setdefault(hit["parent"], rank)
    parents = sorted(best, key=lambda p: best[p], reverse=True)
    return [("parent", p) for p in parents] + [("hit", i) for i in range(len(hits) - 1, 0, -1)]


def _query_notice(trimmed: QueryTrimmed) -> str:
    """A short line: what was left out and the one call that gets each back."""
    left: list[str] = []
    if n := trimmed["hitsLeftOut"]:
        left.append(f"{_many(n, 'lower hit')} (offset={trimmed.get('nextOffset')})")
    if n := trimmed["parentsLeftOut"]:
        left.append(f"{_many(n, 'section')} (read_chunk_neighbors)")
    if trimmed["hitTextCut"]:
        left.append("the top hit's end (read_chunk_neighbors)")
    return f"Over RAG_MAX_RESPONSE_TOKENS ({trimmed['maxTokens']}): left out {', '.join(left)}."


def _many(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def shape_query(
    result: QueryResult,
    *,
    explain: bool = False,
    dropped_hits: Set[int] = frozenset(),
    dropped_parents: Set[int] = frozenset(),
) -> QueryResult:
    """``result`` (one chunk a hit, every section, as :func:`minirag_store.search.run_query`
    makes it) as the client gets it: without the hits and sections named, adjacent chunks
    of a section joined (:mod:`minirag_store.passages`), a section a passage holds whole
    not repeated beside it, scores only with ``explain``, indices renumbered and each
    source's places recounted."""
    return _shape(result, explain, dropped_hits, dropped_parents)[0]


def _shape(
    result: QueryResult, explain: bool, dropped_hits: Set[int], dropped_parents: Set[int]
) -> tuple[QueryResult, int]:
    """:func:`shape_query`'s answer, and how many sections of the hits it holds were left
    out because ``dropped_parents`` named them (not those a passage holds whole)."""
    hits = join_adjacent([h for i, h in enumerate(result["results"]) if i not in dropped_hits])
    sources: list[SourceSummary] = []
    source_at: dict[int, int] = {}
    parents: list[str] = []
    parent_at: dict[int, int] = {}
    left_out: set[int] = set()
    kept: list[SearchHit] = []
    for hit in hits:
        if hit["src"] not in source_at:
            source_at[hit["src"]] = len(sources)
            entry: SourceSummary = {**result["sources"][hit["src"]]}
            entry.pop("pages", None)
            entry.pop("slides", None)
            sources.append(entry)
        out: SearchHit = {**hit, "src": source_at[hit["src"]]}
        if not explain:
            out = without_scores(out)
        parent = out.pop("parent", None)
        # A passage that is its whole section: the section is not sent beside it (the
        # same text twice; 2 of 4 hits for a SciFact query were).
        if parent is not None and out["text"] != result["parents"][parent]:
            if parent in dropped_parents:
                left_out.add(parent)
            else:
                if parent not in parent_at:
                    parent_at[parent] = len(parents)
                    parents.append(result["parents"][parent])
                out = in_wire_order({**out, "parent": parent_at[parent]})
        kept.append(out)
    add_places(sources, kept)
    shaped: QueryResult = {
        "results": kept,
        "sources": sources,
        "roots": result["roots"],
        "parents": parents,
    }
    if "bestMatch" in result:
        shaped["bestMatch"] = result["bestMatch"]
    if "notice" in result:
        shaped["notice"] = result["notice"]
    return shaped, len(left_out)


def _trimmed_query(
    result: QueryResult,
    plan: list[tuple[str, int]],
    steps: int,
    budget: int,
    offset: int,
    *,
    explain: bool,
) -> QueryResult:
    """``result`` with the first ``steps`` of ``plan`` left out, saying so."""
    taken = plan[:steps]
    dropped_parents = {key for kind, key in taken if kind == "parent"}
    dropped_hits = {key for kind, key in taken if kind == "hit"}
    out, parents_left_out = _shape(result, explain, dropped_hits, dropped_parents)
    hits = result["results"]
    trimmed: QueryTrimmed = {
        "maxTokens": budget,
        "hitsLeftOut": len(dropped_hits),
        "parentsLeftOut": parents_left_out,
        "hitTextCut": False,
    }
    if dropped_hits:  # always the lowest-ranked chunks: the rest starts after those kept
        trimmed["nextOffset"] = offset + len(hits) - len(dropped_hits)
    said = result.get("notice")  # what the answer says of its match comes first
    out["notice"] = f"{said} {_query_notice(trimmed)}" if said else _query_notice(trimmed)
    out["trimmed"] = trimmed
    return out


def _step_costs(
    result: QueryResult, plan: list[tuple[str, int]], tokens_per_char: float
) -> list[float]:
    """Roughly what leaving out each step saves: its JSON's length at the whole answer's
    tokens per character, and for a hit its source's summary too when it is the source's
    only hit (the entry goes with it). Estimated, not counted: a count per step made the
    budget cost more than the search itself at a million chunks (~30 tokenizer calls over
    ~65 KB per trimmed answer); the whole answer is counted after each estimate anyway."""
    sources = result["sources"]
    held = Tally(hit["src"] for hit in result["results"])
    costs = []
    for kind, key in plan:
        if kind == "parent":
            costs.append(
                (len(json.dumps(result["parents"][key], ensure_ascii=False)) + 1) * tokens_per_char
            )
            continue
        hit = result["results"][key]
        size = len(response_json(hit)) + 1
        if held[hit["src"]] == 1:
            size += len(response_json(sources[hit["src"]])) + 1
        costs.append(size * tokens_per_char)
    return costs


def fit_query(
    result: QueryResult, budget: int, count: Counter, offset: int = 0, *, explain: bool = False
) -> QueryResult:
    """``result`` shaped for the client (:func:`shape_query`) and, when over ``budget``
    tokens (0: no limit), trimmed to fit (see the module docstring), with ``trimmed`` and
    ``notice`` saying what is missing. ``offset``: the hits the query skipped, so
    ``trimmed.nextOffset`` counts from there.

    The fewest steps of the plan that fit: estimated from each step's share of the
    answer's characters, checked on the whole answer, then narrowed by bisection between
    the largest number of steps found too few and the smallest found enough.
    """
    shaped = shape_query(result, explain=explain)
    if not budget or not result["results"]:
        return shaped
    whole = response_json(shaped)
    total = count(whole)
    excess: float = total - budget
    if excess <= 0:
        return shaped
    plan = _plan(result)
    costs = _step_costs(result, plan, total / max(1, len(whole)))
    too_few, steps, saved = 0, 0, 0.0
    while True:
        while steps < len(plan) and saved < excess:
            saved += costs[steps]
            steps += 1
        candidate = _trimmed_query(result, plan, steps, budget, offset, explain=explain)
        over = response_tokens(candidate, count) - budget
        if over <= 0:
            break
        if steps == len(plan):
            return _cut_top_hit(candidate, budget, count, result.get("notice"))
        too_few = steps
        excess = saved + over  # the estimate fell short by ``over``: save that much more
    while steps - too_few > 1:
        middle = (too_few + steps) // 2
        trial = _trimmed_query(result, plan, middle, budget, offset, explain=explain)
        if response_tokens(trial, count) <= budget:
            steps, candidate = middle, trial
        else:
            too_few = middle
    return candidate


def _cut_top_hit(result: QueryResult, budget: int, count: Counter, said: str | None) -> QueryResult:
    """The top hit alone, its text cut to fit (or emptied, when even its fields do not);
    ``said``: the answer's own notice (of its match), kept before the budget's."""
    top = result["results"][0]
    trimmed: QueryTrimmed = {**result["trimmed"], "hitTextCut": True}  # type: ignore[typeddict-item]

    def build(text: str) -> QueryResult:
        return {
            **result,
            "results": [{**top, "text": text}],
            "notice": f"{said} {_query_notice(trimmed)}" if said else _query_notice(trimmed),
            "trimmed": trimmed,
        }

    text = _longest_prefix(top["text"], lambda t: response_tokens(build(t), count) <= budget)
    return build(text)


def _longest_prefix(text: str, fits: Callable[[str], bool]) -> str:
    """The longest prefix of ``text`` that ``fits``, cut after whitespace when it can be
    (bisection over characters: a dozen counts of a short answer)."""
    lo, hi = 0, len(text)  # text[:lo] fits (or lo == 0); nothing longer than hi does
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(text[:mid]):
            lo = mid
        else:
            hi = mid - 1
    space = text.rfind(" ", 0, lo)  # a shorter prefix of one that fits: it fits too
    return text[: space + 1] if space > lo // 2 else text[:lo]


# ------------------------------------------------------------------------------- read
def _read_notice(
    result: ReadResult, first: int, stop: int, *, budget: int, cut: bool, end: int, place: str
) -> str:
    shown = f"chunk {first}" if stop - first == 1 else f"chunks {first}-{stop - 1}"
    text = (
        f"Trimmed to fit RAG_MAX_RESPONSE_TOKENS ({budget}): the text holds {shown} of "
        f"chunks 0-{result['chunkCount'] - 1}."
    )
    if stop < end:
        text += f" Read on with read_file{place} and fromChunk={stop} (nextChunk)."
    if cut:
        text += (
            f" Chunk {first} alone did not fit and its text was cut: read_chunk_neighbors "
            f"with chunkIndex={first}, before=0, after=0 returns it whole."
        )
    return text


def fit_read(
    base: ReadResult,
    text_of: Callable[[int], str],
    bodies: Sequence[str],
    *,
    first: int,
    budget: int,
    count: Counter,
    place: str = "",
) -> ReadResult:
    """The read answer holding as many chunks from ``first`` on as fit ``budget``.

    ``bodies[i]`` is chunk ``first + i``'s own text; ``text_of(stop)`` is the markdown of
    chunks ``first .. stop - 1``. When not all fit, ``nextChunk`` and ``notice`` say
    where the rest starts; at least one chunk is returned, cut if need be. ``place``
    (``", page=3"``): the page or slide being read, which reading on names too.
    """
    end = first + len(bodies)

    def page(stop: int, text: str | None = None, cut: bool = False) -> ReadResult:
        out: ReadResult = {**base, "text": text_of(stop) if text is None else text}
        if stop < end:
            out["nextChunk"] = stop
        if stop < end or cut:
            out["notice"] = _read_notice(
                base, first, stop, budget=budget, cut=cut, end=end, place=place
            )
        return out

    whole = page(end)
    if response_tokens(whole, count) <= budget:
        return whole
    room = budget - response_tokens(page(first + 1, ""), count)
    stop, used = first, 0
    while stop < end:
        used += _string_tokens(bodies[stop - first], count)
        if used > room:
            break
        stop += 1
    while stop > first:
        candidate = page(stop)
        if response_tokens(candidate, count) <= budget:
            return candidate
        stop -= 1
    stop = first + 1
    text = _longest_prefix(
        text_of(stop), lambda t: response_tokens(page(stop, t, cut=True), count) <= budget
    )
    return page(stop, text, cut=True)
