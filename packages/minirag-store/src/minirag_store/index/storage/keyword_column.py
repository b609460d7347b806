"""The chunk table's ``keywords`` column: built from whole sources, rebuilt in place when
an index was written by an older keyword scheme.

The column is derived data (title, text and section of each chunk, see
:func:`minirag_store.index.text.keywords.section_keywords`), so a change to how it is built does not
need the documents re-read or re-embedded: :func:`refresh_stale` recomputes it from the
stored rows. Each row records the :data:`KEYWORDS_VERSION` that wrote it; an index from
before this column existed gets it with 0.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from minirag_store.index.storage.schema import ALL_ROWS
from minirag_store.index.text.keywords import section_keywords
from minirag_store.index.text.readable import readable_pieces

__all__ = [
    "KEYWORDS_VERSION",
    "LANGUAGE_COLUMN",
    "VERSION_COLUMN",
    "is_stale",
    "keyword_column",
    "refresh_stale",
]

#: 1: title + the chunk's own text; 2: + its neighbours' bodies (:data:`keywords.WINDOW`);
#: 3: readable text only (link text, no targets: :mod:`minirag_store.index.text.readable`).
#: 4: + word pairs (:func:`keywords.pairs`).
#: 5: each chunk stemmed as its own language (:mod:`minirag_store.index.text.language`),
#: spaceless scripts as bigrams, words as written beside their stems.
#: 6: the words as written left out again (a query re-ranks its hits by them instead:
#: :func:`written.rerank_as_written`).
#: 7: + the bigram of a spaceless run that a chunk cut splits (:func:`keywords.section_keywords`).
KEYWORDS_VERSION = 7
VERSION_COLUMN = "keywords_version"
#: Each row's stemmer ('' none, NULL: written before scheme 5); a query is analysed
#: under every one the index holds.
LANGUAGE_COLUMN = "keywords_language"
_SOURCES_PER_WRITE = 256  # one merge per batch of sources: bounded memory, few commits
_ROW_COLUMNS = ["id", "source", "title", "chunk_index", "text", "body_start", "parent_id"]


def keyword_column(rows: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[str]]:
    """The keyword entry and the stemmer of each row, in row order.

    Rows are grouped by section, so ``rows`` must hold every chunk of each of their
    sources (a replaced source always comes whole).
    """
    sections: dict[tuple[str, str], list[int]] = {}
    for i, r in enumerate(rows):
        # A chunk without a section has no neighbours: its own row index keys it alone.
        key = (r["source"], r["parent_id"] or f"#{i}")
        sections.setdefault(key, []).append(i)
    out = [""] * len(rows)
    languages = [""] * len(rows)
    for members in sections.values():
        members.sort(key=lambda i: rows[i]["chunk_index"])
        title = rows[members[0]]["title"]
        pieces = readable_pieces([(rows[i]["text"], rows[i]["body_start"]) for i in members])
        entries, langs = section_keywords(title, pieces)
        for i, entry, lang in zip(members, entries, langs, strict=True):
            out[i], languages[i] = entry, lang
    return out, languages


def is_stale(table: Any) -> bool:
    """Whether any row of the LanceDB ``table`` was written by an older keyword scheme."""
    if VERSION_COLUMN not in table.schema.names:
        return table.count_rows() > 0
    return table.count_rows(f"{VERSION_COLUMN} < {KEYWORDS_VERSION}") > 0


def refresh_stale(table: Any, in_sources: Callable[[Sequence[str]], str]) -> int:
    """Recompute the keyword entries of every source that has a stale row (all of its
    chunks: an entry holds its neighbours' words); returns how many rows were rewritten.

    ``in_sources`` turns source keys into a SQL filter. The caller holds the write lock
    and folds the rewritten rows into the full-text index afterwards (``optimize``).
    """
    import pyarrow as pa

    if VERSION_COLUMN not in table.schema.names:
        table.add_columns({VERSION_COLUMN: "CAST(0 AS INT)"})
    if LANGUAGE_COLUMN not in table.schema.names:
        table.add_columns({LANGUAGE_COLUMN: "CAST(NULL AS STRING)"})
    stale = (
        table.search()
        .where(f"{VERSION_COLUMN} < {KEYWORDS_VERSION}")
        .select(["source"])
        .limit(ALL_ROWS)
        .to_arrow()
    )
    sources = list(dict.fromkeys(stale.column("source").to_pylist()))
    done = 0
    for start in range(0, len(sources), _SOURCES_PER_WRITE):
        where = in_sources(sources[start : start + _SOURCES_PER_WRITE])
        rows = table.search().where(where).select(_ROW_COLUMNS).limit(ALL_ROWS).to_arrow()
        rows = rows.to_pylist()
        entries, languages = keyword_column(rows)
        columns = {
            "id": [r["id"] for r in rows],
            "keywords": entries,
            LANGUAGE_COLUMN: languages,
            VERSION_COLUMN: [KEYWORDS_VERSION] * len(rows),
        }
        # the table's own fields: its id may be a non-nullable primary key (schema.py)
        fields = pa.schema([table.schema.field(name) for name in columns])
        data = pa.table(columns, schema=fields)
        table.merge_insert("id").when_matched_update_all().execute(data)
        done += len(rows)
    return done
