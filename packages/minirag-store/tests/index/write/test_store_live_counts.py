"""Documents are reported (and counted ``ingested``) as their rows are committed, not once
per writer window: a window is committed in parts as time passes while it is embedded."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from minirag_store.index.embed.embedding import EMBED_BATCH
from minirag_store.index.write import writer as pipeline
from minirag_store.index.write.writer import Document, DocumentWriter


def _doc(root: Path, i: int) -> Document:
    text = f"# Note {i}\n\nShelf {i} holds {i * 3} jars of plum jam."
    return Document(str(root / f"n{i:03d}.md"), "file", f"Note {i}", text, file_hash=str(i))


class CountingEmbedder:
    """Counts embedding calls; ``after_call`` runs after each one (the real vectors stay)."""

    def __init__(self, index, after_call=lambda calls: None) -> None:
        self.calls = 0
        embedder = index.embedder()
        real = embedder.embed_passages

        def counted(texts):
            vectors = real(texts)
            self.calls += 1
            after_call(self.calls)
            return vectors

        embedder.embed_passages = counted  # instance attribute: only this Index


def test_a_window_is_committed_in_parts_as_time_passes(make_index, docs_root):
    index = make_index()
    now = [0.0]
    embedder = CountingEmbedder(index, after_call=lambda _calls: now.__setitem__(0, now[0] + 1))
    writer = DocumentWriter(
        index.embedder(), index.table(), index.config.chunk_token_budget, clock=lambda: now[0]
    )
    docs = [_doc(docs_root, i) for i in range(2 * EMBED_BATCH)]  # one window, one chunk each
    calls_at_yield = [embedder.calls for _doc, _n in writer.write(docs)]
    writer.finish()
    assert len(calls_at_yield) == len(docs)
    # Each embedding batch took a (fake) second, longer than COMMIT_SECONDS: the first
    # batch's documents were committed and reported before the second batch was embedded.
    assert calls_at_yield == [1] * EMBED_BATCH + [2] * EMBED_BATCH
    assert index.table().counts()[1] == len(docs)


def test_without_time_passing_a_window_is_one_commit(make_index, docs_root):
    index = make_index()
    writer = DocumentWriter(
        index.embedder(), index.table(), index.config.chunk_token_budget, clock=lambda: 0.0
    )
    docs = [_doc(docs_root, i) for i in range(2 * EMBED_BATCH)]
    embedder = CountingEmbedder(index)
    calls_at_yield = [embedder.calls for _doc, _n in writer.write(docs)]
    assert calls_at_yield == [2] * len(docs)  # both batches embedded, then one commit


def test_a_slow_parse_does_not_hold_back_documents_in_hand(make_index, docs_root):
    """A ``None`` from the parse stream (nothing new yet) lets a waiting window go."""
    index = make_index()
    now = [0.0]
    writer = DocumentWriter(
        index.embedder(), index.table(), index.config.chunk_token_budget, clock=lambda: now[0]
    )
    committed: list[str] = []

    def stream():
        yield _doc(docs_root, 1)
        now[0] += pipeline.COMMIT_SECONDS  # the next file takes long to parse
        yield None
        assert committed == [str(docs_root / "n001.md")]  # written while we wait
        yield _doc(docs_root, 2)

    committed.extend(doc.source for doc, _n in writer.write(stream()))
    assert len(committed) == 2


#: How long the first embedding batch is made to take: longer than COMMIT_SECONDS.
SLOW_BATCH_SECONDS = 0.6


def hold_after_first_batch(index) -> threading.Event:
    """Let the first embedding batch take longer than COMMIT_SECONDS (so its documents
    are due a commit), then hold every later batch until the event is set."""
    gate = threading.Event()

    def after(calls: int) -> None:
        if calls == 1:
            time.sleep(SLOW_BATCH_SECONDS)
        else:
            assert gate.wait(120), "the test never opened the gate"

    CountingEmbedder(index, after_call=after)
    return gate


def test_sync_status_moves_within_a_window(make_index, docs_root):
    for i in range(200):
        (docs_root / f"n{i:03d}.md").write_text(f"# Note {i}\n\nCrate {i} holds {i} bolts.\n")
    index = make_index()
    gate = hold_after_first_batch(index)
    job_id = index.sync_start()["jobId"]
    try:
        deadline = time.monotonic() + 120
        while (status := index.sync_status(job_id))["counts"]["ingested"] == 0:
            assert time.monotonic() < deadline and status["state"] == "running", status
            time.sleep(0.05)
        time.sleep(0.3)  # the second batch stays held: nothing more may be counted
        held = index.sync_status(job_id)["counts"]["ingested"]
        # The first batch's documents were reported as soon as they were committed,
        # while the rest of their window (64 documents) was still being embedded.
        assert 0 < held <= EMBED_BATCH
    finally:
        gate.set()
    end = index.syncs().wait(job_id, 120)
    assert end["state"] == "succeeded" and end["counts"]["ingested"] == 200
    assert pipeline.COMMIT_SECONDS < SLOW_BATCH_SECONDS  # what made the first batch due
