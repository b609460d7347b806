"""Re-reading a file embeds only the chunks whose embedding input changed; the rest keep
their stored vectors. Real model (wrapped to record what it is given), real LanceDB."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from minirag_store.index.embed.embedding import Embedder
from minirag_testkit.answers import expand

SECTIONS = {
    "Backups": (
        "Backups run every night at two and keep fourteen daily snapshots on the tape "
        "library. A weekly full copy goes to the vault across the river. Restores are "
        "tested on the first Monday of each month by the storage team."
    ),
    "Alerts": (
        "The on-call phone rings when a disk is ninety percent full. Alerts repeat every "
        "ten minutes until someone acknowledges them in the console. Quiet hours never "
        "apply to the database cluster."
    ),
    "Printers": (
        "The third floor printer jams on glossy paper. Use the plain paper tray for "
        "handouts and ask facilities for toner. Colour printing needs a cost centre code "
        "entered at the device."
    ),
}
NEW_ALERTS = (
    "A pager buzzes when the reactor coolant pump vibrates beyond tolerance. The shift "
    "engineer logs each page in the red binder before calling the plant manager."
)


class RecordingEmbedder(Embedder):
    """The real model, recording every passage it is asked to embed."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.passages: list[str] = []

    def embed_passages(self, texts):
        self.passages.extend(texts)
        return super().embed_passages(texts)


@pytest.fixture(scope="module")
def embedder(model_env) -> RecordingEmbedder:
    """One model load for the module; each test reads what it embedded since it began."""
    from minirag_store.config import load_config

    config = load_config({**model_env, "BASE_DIR": "/", "DB_PATH": "/nonexistent"})
    embedder = RecordingEmbedder.from_config(config)
    assert isinstance(embedder, RecordingEmbedder)
    return embedder


def guide(sections: dict[str, str]) -> str:
    return "# Guide\n\n" + "".join(f"## {h}\n\n{body}\n\n" for h, body in sections.items())


def open_index(tmp_path: Path, model_env, embedder):
    from minirag_store import Index
    from minirag_store.config import load_config

    env = {**model_env, "BASE_DIR": str(tmp_path / "docs"), "DB_PATH": str(tmp_path / "db")}
    env["CHUNK_TOKEN_BUDGET"] = "30"  # several chunks per section
    return Index(load_config(env), embedder=embedder)


def stored(db: Path) -> dict[str, tuple[str, np.ndarray]]:
    """Every chunk's id → (text, stored float16 vector), read beneath the index."""
    from store_rows import lance_table

    rows = lance_table(db).to_arrow().select(["id", "text", "vector"]).to_pylist()
    return {r["id"]: (r["text"], np.asarray(r["vector"], dtype=np.float16)) for r in rows}


def ranked(index, query: str) -> list[tuple[str, int, int | None, float]]:
    """The hits of topK 8 in order: each one's document, chunks (a passage of neighbours
    runs from ``chunkIndex`` to ``lastChunk``) and fused score (asked for: ``explain``)."""
    return [
        (h["source"], h["chunkIndex"], h.get("lastChunk"), round(h["score"], 6))
        for h in expand(index.query(query, top_k=8, explain=True))["results"]
    ]


@pytest.fixture
def synced(tmp_path, model_env, embedder):
    """A guide and a second file synced once; ``(index, docs folder)``."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text(guide(SECTIONS), encoding="utf-8")
    (docs / "notes.md").write_text(
        "# Notes\n\nThe cafeteria serves lentil soup on Thursdays.\n", encoding="utf-8"
    )
    index = open_index(tmp_path, model_env, embedder)
    assert index.sync()["counts"]["ingested"] == 2
    yield index, docs
    index.close()


def test_an_index_from_before_locators_is_brought_up_to_date_without_embedding(
    synced, tmp_path, model_env, embedder
):
    from minirag_store.index.storage import summary
    from store_rows import lance_table

    index, _ = synced
    queries = ["disk full phone rings", "glossy paper jams", "lentil soup"]
    before = stored(tmp_path / "db")
    answers = [ranked(index, q) for q in queries]
    index.close()
    lance_table(tmp_path / "db").drop_columns(["locator"])  # what an older release wrote
    (tmp_path / "db" / summary.FILE_NAME).unlink(missing_ok=True)

    old = open_index(tmp_path, model_env, embedder)
    try:
        embedder.passages.clear()
        job = old.sync()
        assert job["counts"]["ingested"] == 2, job  # every file re-read for its locators
        assert embedder.passages == []  # and not one chunk run through the model
        after = stored(tmp_path / "db")
        assert after.keys() == before.keys()
        for chunk, (text, vector) in before.items():
            assert after[chunk][0] == text
            assert np.array_equal(after[chunk][1], vector), chunk
        assert [ranked(old, q) for q in queries] == answers
        hit = expand(old.query("disk full phone rings", top_k=1))["results"][0]
        assert hit["locator"] == {"headingPath": "Guide > Alerts"}  # the upgrade happened
    finally:
        old.close()


def test_rows_from_before_readable_text_was_embedded_are_embedded_again(
    synced, tmp_path, model_env, embedder
):
    """Rows cut by a scheme older than EMBED_INPUT_SCHEME embedded other text: never kept."""
    from minirag_store.index.embed.embed_inputs import EMBED_INPUT_SCHEME
    from minirag_store.index.storage import summary
    from store_rows import lance_table

    index, _ = synced
    chunks = len(stored(tmp_path / "db"))
    index.close()
    lance_table(tmp_path / "db").update(values={"scheme_version": EMBED_INPUT_SCHEME - 1})
    (tmp_path / "db" / summary.FILE_NAME).unlink(missing_ok=True)

    old = open_index(tmp_path, model_env, embedder)
    try:
        embedder.passages.clear()
        assert old.sync()["counts"]["ingested"] == 2
        assert len(embedder.passages) == chunks
    finally:
        old.close()


def section_chunks(db: Path, heading: str) -> list[str]:
    """The stored texts of the chunks of the guide's section ``heading``."""
    from store_rows import lance_table

    rows = lance_table(db).to_arrow().select(["text", "parent_id"]).to_pylist()
    (section,) = {r["parent_id"] for r in rows if f"## {heading}\n" in r["text"]}
    return [r["text"] for r in rows if r["parent_id"] == section]


def test_editing_one_section_embeds_only_that_sections_chunks(synced, tmp_path, embedder):
    index, docs = synced
    db = tmp_path / "db"
    total = len(stored(db))
    (docs / "guide.md").write_text(guide({**SECTIONS, "Alerts": NEW_ALERTS}), encoding="utf-8")
    embedder.passages.clear()
    job = index.sync()
    assert job["counts"]["ingested"] == 1 and job["counts"]["skipped"] == 1, job
    alerts = section_chunks(db, "Alerts")
    assert alerts and len(embedder.passages) == len(alerts) < total
    assert all("Alerts" in text for text in embedder.passages)
    hit = expand(index.query("reactor coolant pump vibration pager", top_k=1))["results"][0]
    assert "coolant pump" in hit["text"] and hit["locator"]["headingPath"] == "Guide > Alerts"
    assert "ninety percent" not in " ".join(t for t, _ in stored(db).values())


def test_a_renamed_heading_re_embeds_its_chunks_though_their_bodies_are_unchanged(
    synced, tmp_path, embedder
):
    """The heading breadcrumb is part of what the model receives, so it is part of the key."""
    index, docs = synced
    db = tmp_path / "db"
    before = dict(stored(db).values())
    renamed = {("Paging" if h == "Alerts" else h): body for h, body in SECTIONS.items()}
    (docs / "guide.md").write_text(guide(renamed), encoding="utf-8")
    embedder.passages.clear()
    assert index.sync()["counts"]["ingested"] == 1
    paging = section_chunks(db, "Paging")
    assert len(embedder.passages) == len(paging)
    assert all("Paging" in text for text in embedder.passages)
    # Past the section's first chunk only the breadcrumb ("Guide > Paging") changed.
    assert any("Paging" not in text.split("\n\n", 1)[1] for text in paging)
    for text, vector in stored(db).values():
        old = before[text.replace("Paging", "Alerts")]
        assert np.array_equal(old, vector) is (text not in paging), text


FIELD_NOTES = (
    "Glacier survey drones mapped the northern fjord twice during the storm season, and the "
    "resulting elevation models showed that the calving front had retreated by almost four "
    "hundred metres since the previous expedition measured it with ground stations."
)


def test_a_pdf_cut_before_reflow_is_read_again_in_one_sync_that_keeps_other_vectors(
    tmp_path, model_env, embedder
):
    """Chunk scheme 4 reflows PDF text. An index of scheme 3 holds a PDF as the previous
    release read it (a paragraph per printed line): one sync reads every file again, the
    PDF comes back as its paragraph (only its changed chunks embedded) and the markdown
    file keeps its stored vectors."""
    import textwrap

    import minirag_chunker
    from minirag_store.index.storage import summary
    from minirag_store.index.write.writer import Document
    from minirag_store.ingest.operations import writer_for
    from minirag_store.ingest.workers import file_digest
    from minirag_testkit.prose import Article, prose_pdf
    from store_rows import lance_table

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.md").write_text(
        "# Notes\n\nThe cafeteria serves lentil soup on Thursdays.\n", encoding="utf-8"
    )
    pdf = docs / "field.pdf"
    pdf.write_bytes(prose_pdf(Article("Arctic Field Notes", [FIELD_NOTES]), "justified"))
    index = open_index(tmp_path, model_env, embedder)
    assert index.sync()["counts"]["ingested"] == 2
    wrapped = "Arctic Field Notes\n\n" + "\n\n".join(textwrap.wrap(FIELD_NOTES, 70))
    digest, size, mtime = file_digest(pdf)
    writer = writer_for(index)
    old_pdf = Document(str(pdf), "file", "Arctic Field Notes", wrapped, digest, mtime, size)
    assert len(list(writer.write([old_pdf]))) == 1
    writer.finish()
    index.close()
    table = lance_table(tmp_path / "db")
    table.update(values={"scheme_version": minirag_chunker.SCHEME_VERSION - 1})
    (tmp_path / "db" / summary.FILE_NAME).unlink(missing_ok=True)

    def rows(source: Path) -> list[tuple[str, np.ndarray]]:
        found = table.to_arrow().select(["source", "chunk_index", "text", "vector"]).to_pylist()
        return [
            (r["text"], np.asarray(r["vector"], dtype=np.float16))
            for r in sorted(found, key=lambda r: r["chunk_index"])
            if r["source"] == str(source)
        ]

    notes_before = rows(docs / "notes.md")
    assert any("\n\n" in text.strip() for text, _ in rows(pdf))  # hard-wrapped, as stored
    upgraded = open_index(tmp_path, model_env, embedder)
    try:
        embedder.passages.clear()
        assert upgraded.sync()["counts"]["ingested"] == 2  # both files read again
        assert embedder.passages, "the PDF's reflowed chunks are new text"
        assert not any("lentil soup" in p for p in embedder.passages)
        table = lance_table(tmp_path / "db")
        notes_after = rows(docs / "notes.md")
        assert [t for t, _ in notes_after] == [t for t, _ in notes_before]
        for (_, a), (_, b) in zip(notes_after, notes_before, strict=True):
            assert np.array_equal(a, b)
        text = upgraded.read_file(str(pdf))["text"]
        assert " ".join(FIELD_NOTES.split()[:20]) in text  # one paragraph across lines
        assert upgraded.status()["staleChunkCount"] == 0
    finally:
        upgraded.close()
