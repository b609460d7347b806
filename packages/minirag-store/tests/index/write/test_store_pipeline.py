"""DocumentWriter: real chunker + model + table; buffered commits, per-source atomicity."""

from __future__ import annotations

from minirag_store.index.write.writer import Document
from minirag_store.ingest.operations import writer_for
from minirag_testkit.answers import expand
from store_rows import lance_table


def doc(root, name: str, text: str) -> Document:
    return Document(str(root / name), "file", name, text, file_hash=name, size=len(text))


def test_many_documents_share_one_commit(make_index, docs_root):
    index = make_index()
    table = index.table()
    raw = lance_table(index.config.db_path)
    before = raw.version
    writer = writer_for(index)
    docs = [doc(docs_root, f"d{i}.md", f"# Doc {i}\n\nplain text number {i}") for i in range(5)]
    written = list(writer.write(docs))
    assert [d.source for d, _ in written] == [d.source for d in docs]
    assert all(n == 1 for _, n in written)
    assert raw.version == before + 1  # one commit for all five
    writer.finish()
    assert table.counts() == (5, 5)
    hit = expand(index.query("plain text number 3", top_k=1))["results"][0]
    assert hit["source"] == str(docs_root / "d3.md")


def test_rewrite_replaces_and_same_source_twice_keeps_last(make_index, docs_root):
    index = make_index(CHUNK_TOKEN_BUDGET="16")
    writer = writer_for(index)
    long = "# Long\n\n" + " ".join(f"sentence {i} about storage." for i in range(30))
    first = list(writer.write([doc(docs_root, "a.md", long)]))
    assert first[0][1] > 3
    again = [
        doc(docs_root, "a.md", "# Short\n\nshort now"),
        doc(docs_root, "a.md", "# Final\n\nfinal"),
    ]
    counts = [n for _, n in writer.write(again)]
    writer.finish()
    assert counts == [1, 1]
    chunks = index.table().source_chunks(str(docs_root / "a.md"))
    assert [c["title"] for c in chunks] == ["a.md"]
    assert "final" in chunks[0]["text"]


def test_title_seeded_only_when_asked(make_index, docs_root):
    index = make_index()
    writer = writer_for(index)
    seeded = Document("note-1", "data", "Quarterly plan", "body text", seed_title=True)
    bare = Document("note-2", "data", "note-2", "other body", seed_title=False)
    list(writer.write([seeded, bare]))
    table = index.table()
    assert "Quarterly plan" in table.source_chunks("note-1")[0]["text"]
    assert "note-2" not in table.source_chunks("note-2")[0]["text"]
