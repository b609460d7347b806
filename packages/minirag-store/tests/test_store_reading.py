"""Neighbours, whole-source reads and deletion over the real indexed corpus."""

from __future__ import annotations

import pytest
from minirag_chunker import normalize_markdown
from minirag_store.errors import InvalidArgumentError, NotFoundError


def test_neighbors_in_order_around_a_chunk(corpus_index):
    index, root = corpus_index
    source = str(root / "guide.md")
    total = index.table().chunk_count(source)
    assert total >= 4
    result = index.read_chunk_neighbors(source, 2, before=1, after=1)
    assert result["source"] == source
    assert [c["chunkIndex"] for c in result["chunks"]] == [1, 2, 3]
    assert all(c["title"] == "Operations guide" for c in result["chunks"])
    edge = index.read_chunk_neighbors(source, 0, before=5, after=0)
    assert [c["chunkIndex"] for c in edge["chunks"]] == [0]


def test_neighbors_errors(corpus_index):
    index, root = corpus_index
    with pytest.raises(NotFoundError, match="No indexed source"):
        index.read_chunk_neighbors(str(root / "nope.md"), 0)
    with pytest.raises(NotFoundError, match="chunkIndex 99"):
        index.read_chunk_neighbors(str(root / "guide.md"), 99)
    with pytest.raises(InvalidArgumentError, match="before"):
        index.read_chunk_neighbors(str(root / "guide.md"), 0, before=-1)


def test_read_reconstructs_without_repeated_breadcrumbs(corpus_index, corpus_files):
    index, root = corpus_index
    source = str(root / "guide.md")
    result = index.read_file(source)
    assert result["chunkCount"] == index.table().chunk_count(source)
    assert result["displayPath"] == "guide.md"
    assert result["sourceType"] == "file"
    assert result["title"] == "Operations guide"
    assert result["text"] == normalize_markdown(corpus_files["guide.md"])
    assert result["text"].count("Operations guide") == 1
    assert result["text"].count("## Backups") == 1


def test_read_russian_source(corpus_index, corpus_files):
    index, root = corpus_index
    result = index.read_file(str(root / "ru/склад.md"))
    assert result["text"] == normalize_markdown(corpus_files["ru/склад.md"])


def test_delete_then_gone_everywhere(make_index, docs_root, write_docs):
    index = make_index()
    write_docs(index, docs_root, {"a.md": "# A\n\nalpha zebra", "b.md": "# B\n\nbeta zebra"})
    source = str(docs_root / "a.md")
    assert index.delete_file(source) == {"source": source, "deletedChunks": 1}
    assert index.table().counts() == (1, 1)
    assert {h["source"] for h in index.query("zebra", top_k=5)["results"]} == {
        str(docs_root / "b.md")
    }
    with pytest.raises(NotFoundError):
        index.read_file(source)
    with pytest.raises(NotFoundError):
        index.delete_file(source)
