"""A new keyword scheme reaches an existing index without re-embedding: the next sync
rebuilds the keyword entries in place from the stored rows (real model, real LanceDB)."""

from __future__ import annotations

import pytest
from minirag_store.index.storage import keyword_column, summary
from minirag_store.index.text.keywords import tokens

PHRASE = "системы учёта складских запасов"
FILES = {
    "a.md": (
        "# Склад\n\nСклад ведёт учёт, запасы сверяет система. Учёт запасов: складские "
        "документы, система отчётов. Склад, учёт, система, запасы, складские помещения."
    ),
    "b.md": f"# Внедрение\n\nОтдел внедрил модуль {PHRASE}, и сверка занимает час.",
}


def _downgrade(table, version: int = keyword_column.KEYWORDS_VERSION - 1) -> None:
    """Rewrite every keyword entry as an older scheme did (single words only, no word
    pairs), marked ``version``: the state of an index built before the upgrade."""
    import pyarrow as pa

    raw = table._tbl
    rows = raw.search().select(["id", "title", "text"]).limit(1000).to_arrow().to_pylist()
    old = pa.table(
        {
            "id": [r["id"] for r in rows],
            "keywords": [" ".join(tokens(f"{r['title']}\n{r['text']}")) for r in rows],
            keyword_column.VERSION_COLUMN: pa.array([version] * len(rows), pa.int32()),
        },
        schema=pa.schema(
            [raw.schema.field(n) for n in ("id", "keywords", keyword_column.VERSION_COLUMN)]
        ),
    )
    raw.merge_insert("id").when_matched_update_all().execute(old)


def _vectors(table) -> dict[str, list[float]]:
    rows = table._tbl.search().select(["id", "vector"]).limit(1000).to_arrow().to_pylist()
    return {r["id"]: r["vector"] for r in rows}


def test_sync_rebuilds_keywords_of_an_older_scheme_without_embedding(
    make_index, docs_root, monkeypatch
):
    for name, text in FILES.items():
        (docs_root / name).write_text(text, encoding="utf-8")
    index = make_index()
    index.sync()
    table = index.table()
    _downgrade(table)
    before = _vectors(table)
    assert table.keywords_stale()

    def no_embedding(*args, **kwargs):
        raise AssertionError("a keyword scheme change must not re-embed")

    monkeypatch.setattr(type(index.embedder()), "embed_passages", no_embedding)
    result = index.sync()
    assert result["counts"]["ingested"] == 0  # nothing re-read or re-embedded
    assert not table.keywords_stale()
    assert _vectors(table) == before
    # The word pairs are there now: the passage stating the phrase comes first.
    hits = table.keyword_search("система учёта складских запасов", 2)
    assert hits[0]["source"] == str(docs_root / "b.md")


@pytest.mark.parametrize("version", [0, keyword_column.KEYWORDS_VERSION - 1])
def test_rows_of_an_older_version_are_stale(tmp_path, version):
    from minirag_store.index.table import ChunkTable
    from store_rows import DIM, chunk_rows

    table = ChunkTable.open(tmp_path / "db", "test-model", DIM)
    rows, vectors = chunk_rows("/d/a.md", ["one", "two"])
    table.replace_sources(["/d/a.md"], rows, vectors)
    assert not table.keywords_stale()
    table._tbl.update(values={keyword_column.VERSION_COLUMN: version})
    assert table.keywords_stale()
    table.maintain()
    assert not table.keywords_stale()


GERMAN = {
    "de.md": (
        "# Logistik\n\nDie Lieferketten der Autoindustrie sind im letzten Jahr oft gerissen. "
        "Viele Hersteller suchen deshalb neue Zulieferer in der Nähe ihrer Werke."
    ),
    "en.md": "# Notes\n\nThe supply of parts to the plant was steady all year long.",
}


def test_an_index_from_before_languages_answers_then_is_upgraded_by_a_sync(
    make_index, docs_root, monkeypatch
):
    """Scheme 4 had no language column and stemmed every Latin word as English: such an
    index answers as it did, status says its keyword entries are old, and the next sync
    rebuilds them in place (the German stem then matches another form of the word)."""
    for name, text in GERMAN.items():
        (docs_root / name).write_text(text, encoding="utf-8")
    index = make_index()
    index.sync()
    table = index.table()
    _downgrade(table, 4)
    table._tbl.drop_columns([keyword_column.LANGUAGE_COLUMN])
    summary.path_for(index.config.db_path).unlink()  # as the old writer left it: read anew
    assert table.keyword_search("supply parts", 1)[0]["source"] == str(docs_root / "en.md")
    assert not table.keyword_search("Lieferkette", 1)  # English stems: no match
    warning = index.status()["schemeWarning"]
    assert f"older keyword scheme (4; current: {keyword_column.KEYWORDS_VERSION})" in warning

    def no_embedding(*args, **kwargs):
        raise AssertionError("a keyword scheme change must not re-embed")

    monkeypatch.setattr(type(index.embedder()), "embed_passages", no_embedding)
    assert index.sync()["counts"]["ingested"] == 0
    assert index.status()["schemeWarning"] is None
    assert keyword_column.LANGUAGE_COLUMN in table._tbl.schema.names
    assert table.keyword_search("Lieferkette", 1)[0]["source"] == str(docs_root / "de.md")
