"""Neighbours, whole-source reads and deletion over the real indexed corpus."""

from __future__ import annotations

import json

import pytest
from minirag_chunker import normalize_markdown
from minirag_store.arguments import FIRST_CHUNK_INDEX, NEIGHBORS
from minirag_store.errors import InvalidArgumentError, NotFoundError, PathOutsideRootsError
from minirag_testkit.answers import expand


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


def test_neighbors_default_is_one_chunk_each_side(corpus_index):
    index, root = corpus_index
    result = index.read_chunk_neighbors(str(root / "guide.md"), 2)
    assert NEIGHBORS.default == 1
    assert [c["chunkIndex"] for c in result["chunks"]] == [1, 2, 3]


def test_neighbor_span_minimum(corpus_index):
    index, root = corpus_index
    source = str(root / "guide.md")
    alone = index.read_chunk_neighbors(source, 2, NEIGHBORS.minimum, NEIGHBORS.minimum)
    assert [c["chunkIndex"] for c in alone["chunks"]] == [2]
    for side in ("before", "after"):
        with pytest.raises(InvalidArgumentError) as refused:
            index.read_chunk_neighbors(source, 2, **{side: NEIGHBORS.minimum - 1})
        assert str(refused.value) == (
            f"{side} must be at least {NEIGHBORS.minimum}, got {NEIGHBORS.minimum - 1}"
        )


def test_neighbor_span_maximum(corpus_index):
    index, root = corpus_index
    source = str(root / "guide.md")
    widest = index.read_chunk_neighbors(source, 0, NEIGHBORS.maximum, NEIGHBORS.maximum)
    assert len(widest["chunks"]) == index.table().chunk_count(source)
    for side in ("before", "after"):
        with pytest.raises(InvalidArgumentError) as refused:
            index.read_chunk_neighbors(source, 0, **{side: NEIGHBORS.maximum + 1})
        assert str(refused.value) == (
            f"{side} must be at most {NEIGHBORS.maximum}, got {NEIGHBORS.maximum + 1}; "
            "read_file returns the whole document"
        )


def test_chunk_index_minimum(corpus_index):
    index, root = corpus_index
    source = str(root / "guide.md")
    first = index.read_chunk_neighbors(source, FIRST_CHUNK_INDEX, 0, 0)
    assert [c["chunkIndex"] for c in first["chunks"]] == [FIRST_CHUNK_INDEX]
    with pytest.raises(InvalidArgumentError, match="chunkIndex must be at least 0, got -1"):
        index.read_chunk_neighbors(source, FIRST_CHUNK_INDEX - 1)
    with pytest.raises(InvalidArgumentError, match="chunkIndex must be a whole number"):
        index.read_chunk_neighbors(source, True)


def test_a_document_is_named_by_exactly_one_of_file_path_or_source(corpus_index):
    index, root = corpus_index
    path = str(root / "guide.md")
    by_source = index.read_file(path)
    assert index.read_file(file_path=path) == by_source
    assert index.read_chunk_neighbors(None, 1, file_path=path) == index.read_chunk_neighbors(
        path, 1
    )
    calls = {
        "read_file": index.read_file,
        "delete_file": index.delete_file,
        "read_chunk_neighbors": lambda **kw: index.read_chunk_neighbors(chunk_index=0, **kw),
    }
    for name, call in calls.items():
        with pytest.raises(InvalidArgumentError, match=r"^Name the document: give a file path"):
            call(source=None)
        with pytest.raises(InvalidArgumentError, match="not both"):
            call(source=path, file_path=path)
        with pytest.raises(InvalidArgumentError, match="non-empty"):
            call(source="  ")
        with pytest.raises(NotFoundError, match=r"No indexed source '/.+/no-such\.md'"):
            call(source=None, file_path="no-such.md")  # a displayPath naming nothing
        with pytest.raises(PathOutsideRootsError):
            call(source=None, file_path="/etc/hostname")
        assert index.read_file(path) == by_source, f"{name} changed the index"


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
    assert {h["source"] for h in expand(index.query("zebra", top_k=5))["results"]} == {
        str(docs_root / "b.md")
    }
    with pytest.raises(NotFoundError):
        index.read_file(source)
    with pytest.raises(NotFoundError):
        index.delete_file(source)


def test_a_query_answers_displaypath_names_the_document_for_every_tool(
    make_index, tmp_path, model_env
):
    """An answer says a file's path once, relative to its root: that displayPath is what
    the other tools take back; the same path under two roots asks for the absolute one."""
    first, second = tmp_path / "a", tmp_path / "b"
    for root, words in ((first, "Alpine huts close in October."), (second, "Huts reopen in May.")):
        (root / "notes").mkdir(parents=True)
        (root / "notes" / "huts.md").write_text(f"# Huts\n\n{words}\n", encoding="utf-8")
    (first / "only-here.md").write_text("# Passes\n\nThe pass opens in June.\n", encoding="utf-8")
    index = make_index(BASE_DIRS=json.dumps([str(first), str(second)]), BASE_DIR="")
    index.sync()
    answer = index.query("when does the pass open", top_k=1)
    (summary,) = answer["sources"]
    assert summary["displayPath"] == "only-here.md"
    assert answer["roots"][summary["root"]] == str(first)
    whole = index.read_file(summary["displayPath"])
    assert whole["source"] == str(first / "only-here.md") and "June" in whole["text"]
    near = index.read_chunk_neighbors(summary["displayPath"], 0)
    assert near["source"] == str(first / "only-here.md")
    with pytest.raises(InvalidArgumentError, match="under several document roots"):
        index.read_file("notes/huts.md")
    assert "October" in index.read_file(str(first / "notes" / "huts.md"))["text"]


def test_excluding_a_file_keeps_it_out_of_every_later_sync(make_index, docs_root, write_docs):
    index = make_index()
    odd = "old [draft] *v2*.md"
    write_docs(
        index,
        docs_root,
        {odd: "# Old\n\nThe retired zeppelin schedule.\n", "keep.md": "# Keep\n\nKept.\n"},
    )
    out = index.delete_file(odd, exclude=True)  # the displayPath, as a search names it
    assert out["rule"] == "/old \\[draft] \\*v2\\*.md" and out["deletedChunks"] > 0
    assert out["ignoreFile"] == str(docs_root / ".miniragignore")
    again = index.delete_file(
        file_path=str(docs_root / odd), exclude=True
    )  # a second time: one rule
    assert again["deletedChunks"] == 0
    assert (docs_root / ".miniragignore").read_text(encoding="utf-8") == out["rule"] + "\n"
    index.sync()
    shown = {s["displayPath"] for s in index.query("retired zeppelin schedule", top_k=5)["sources"]}
    assert odd not in shown and "keep.md" in shown
    index.ingest_data("# Note\n\nA note.", "notes/n1", "markdown")
    with pytest.raises(InvalidArgumentError, match="only files can be excluded"):
        index.delete_file("notes/n1", exclude=True)
