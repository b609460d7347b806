"""The wire scenario both shells' snapshot tests run, written once.

One story on a small folder: sync it (one file fails to convert, so the job ends
``failed``; one is of a type not read, so it is counted and listed ``unsupported``), then
query, read, list, ingest, delete and ask the status. Each step names the store operation it runs
(the MCP tool of that name; the CLI test maps it to its command) with its arguments,
and the shape its JSON answer must have (:func:`minirag_testkit.wire.shape`). Both shells
answer with the same result types, so each shape is written once, here: a field renamed,
added or dropped in either shell fails that shell's test, and changing a result on
purpose means changing it here, reviewed like any other diff.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "FILES",
    "MATCH_NOTES",
    "NOTES",
    "NO_MATCH_QUERIES",
    "STEPS",
    "Context",
    "Step",
    "expected",
    "steps_for",
    "write_files",
]

#: Three short documents, each saying one thing no other says (the shells' tests share them).
NOTES: dict[str, str] = {
    "specs/cooling.md": (
        "# Cooling system\n\n## Pump maintenance\n\nThe coolant pump P-7 must be flushed "
        "every 400 operating hours with distilled water. A clogged pump raises the core "
        "temperature quickly.\n\n## Fans\n\nThe radiator fans run at 1200 rpm in normal "
        "mode and 2400 rpm when the coolant exceeds 85 degrees.\n"
    ),
    "notes/lunch.txt": (
        "Team lunch is on Fridays at the noodle bar on Elm Street. Marta books the table "
        "every Thursday afternoon.\n"
    ),
    "policies/travel.md": (
        "# Travel policy\n\nEconomy class is required for flights shorter than six hours. "
        "Hotel costs are reimbursed up to 180 euros per night in capital cities.\n"
    ),
}
#: The notes plus two documents that hold the identifier ``DATAKB9A8B`` and a table of
#: look-alike keys that holds no query's words: what "nothing really matches" is tried on
#: (an absent identifier, nonsense, a stop word; an identifier exactly two documents hold).
MATCH_NOTES: dict[str, str] = {
    **NOTES,
    "ids/batch-a.md": "# Batch A\n\nThe lot DATAKB9A8B passed inspection on Monday.\n",
    "ids/batch-b.md": "# Batch B\n\nA re-test of DATAKB9A8B is scheduled after the recall.\n",
    "ids/keys.md": (
        "# Keys\n\n| id | key |\n|---|---|\n| 1 | 3f2a9c1e-77b0-4d3e-9a8f-0c1d2e3f4a5b |\n"
        "| 2 | 9b8c7d6e-5f4a-4b3c-8d2e-1f0a9b8c7d6e |\n| 3 | ZEBRA-2210-ALPHA |\n"
    ),
}
#: Queries nothing in :data:`MATCH_NOTES` answers: each answer must say so.
NO_MATCH_QUERIES = ("ZEBRA-4471", "zxqv flurbogast quantum sandwich", "the", '"')
#: The folder the story runs on: the notes, one ``.pdf`` that is not a PDF, so the sync
#: job and the listing carry an error entry, and one ``.rtf`` (a type not read), so they
#: carry an unsupported file with its reason.
FILES: dict[str, str] = {**NOTES, "broken.pdf": "this is not a PDF", "memo.rtf": "{\\rtf1 memo}"}


def write_files(root: Path, files: dict[str, str] = FILES) -> Path:
    """Write ``files`` (``{relative path: text}``, :data:`FILES` by default) under
    ``root``; returns ``root``."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@dataclass(frozen=True)
class Context:
    """What a step's arguments are made from: the folder, and a page served on loopback
    (:func:`minirag_testkit.wire.serve_page`)."""

    root: Path
    url: str


@dataclass(frozen=True)
class Step:
    """One call of the story and the shape of its answer."""

    tool: str  # the store operation, named as its MCP tool
    args: Callable[[Context], dict[str, Any]]
    shape: dict[str, Any]
    maps: frozenset[str] = frozenset()  # objects keyed by data, not by field (shape())
    prepare: Callable[[Context], None] | None = None  # done before the call
    shells: tuple[str, ...] = ("mcp", "cli")
    #: Fields a shell fills differently (the CLI has no MCP instructions to truncate).
    differs: dict[str, dict[str, Any]] = field(default_factory=dict)


def _new_note(ctx: Context) -> None:
    (ctx.root / "notes" / "new.md").write_text("# New\n\nA note written after the sync.\n")


def _file(rel: str) -> Callable[[Context], dict[str, Any]]:
    return lambda ctx: {"filePath": str(ctx.root / rel)}


SYNC_STARTED = {"jobId": "string"}
COUNTS = {
    "scanned": "number",
    "ingested": "number",
    "skipped": "number",
    "deleted": "number",
    "unreadable": "number",
    "failed": "number",
    "unsupported": "number",
}
SYNC_JOB = {
    "jobId": "string",
    "state": "string",
    "startedAt": "string",
    "finishedAt": "string",
    "counts": COUNTS,
    "errors": [{"source": "string", "error": "string"}],
    "error": "string",  # the job ends "failed": one file could not be ingested
    "files": {
        "ingested": ["string"],
        "skipped": [],
        "deleted": [],
        "unreadable": [],
        "failed": ["string"],
        "unsupported": ["string"],
    },
    "slowest": [
        {
            "source": "string",
            "seconds": "number",
            "convertSeconds": "number",
            "ocrPages": "number",
            "ocrSeconds": "number",
            "chunkSeconds": "number",
            "embedSeconds": "number",
            "chunks": "number",
        }
    ],
}
#: A hit's locator is absent when empty, a source's title when it is the file's name;
#: score and distance come with explain only, lastChunk only for a passage of chunks.
#: ``match`` says how a hit matched: the distinctive words it holds (``found``) and lacks
#: (``missing``), each list absent when empty; the answer's ``bestMatch`` is the best level.
QUERY = {
    # each hit here is the whole of its short section: no `parent`, and `parents` is
    # empty (a section is sent only beside a part of it: test_store_passages.py)
    "results": [
        {
            "src": "number",
            "chunkIndex": "number",
            "locator": {"headingPath": "string"},
            "match": {"level": "string", "found": ["string"]},
            "text": "string",
        },
        {
            "src": "number",
            "chunkIndex": "number",
            "locator": {"headingPath": "string"},
            "match": {"level": "string", "found": ["string"], "missing": ["string"]},
            "text": "string",
        },
        {
            "src": "number",
            "chunkIndex": "number",
            "match": {"level": "string", "missing": ["string"]},
            "text": "string",
        },
    ],
    "sources": [
        {"displayPath": "string", "title": "string", "root": "number"},
        {"displayPath": "string", "root": "number"},
    ],
    "roots": ["string"],
    "parents": [],
    "bestMatch": "string",
}

NEIGHBORS = {
    "source": "string",
    "chunks": [
        {
            "text": "string",
            "source": "string",
            "title": "string",
            "chunkIndex": "number",
            "parentId": "string",
        }
    ],
}
READ = {
    "source": "string",
    "sourceType": "string",
    "title": "string",
    "chunkCount": "number",
    "text": "string",
    "displayPath": "string",
}
#: A file row of list_files; some carry a ``reason`` (failed: the sync's error; unsupported:
#: memo.rtf) and come first here, sorted by path.
_ROW = {
    "source": "string",
    "displayPath": "string",
    "sourceType": "string",
    "title": "string",
    "state": "string",
    "chunkCount": "number",
    "ocrEngine": "string",
}
LISTING = {"files": [{**_ROW, "reason": "string"}, _ROW]}
INGESTED = {
    "source": "string",
    "title": "string",
    "chunkCount": "number",
    "sourceType": "string",
    "ocrEngine": "string",
}
DELETED = {"source": "string", "deletedChunks": "number"}
STATUS = {
    "version": "string",
    "configError": "null",
    "roots": ["string"],
    "rootsFrom": "string",
    "dbPath": "string",
    "indexFrom": "string",
    "knownIndexes": [],  # the MCP story syncs with sync_start: a job, which records nothing
    "cacheDir": "string",
    "model": "string",
    "modelPath": "string",
    "chunkTokenBudget": "number",
    "hybridWeight": "number",
    "fusion": "string",
    "grouping": "null",
    "maxDistance": "null",
    "minScoreRatio": "number",
    "maxFiles": "null",
    "maxFileSize": "number",
    "maxResponseTokens": "number",
    "ocrLang": "string",
    "chunkScheme": "number",
    "watch": "string",
    "watchMode": "string",
    "schemeWarning": "null",
    "indexError": "null",
    "ocr": "string",
    "chunkCount": "number",
    "sourceCount": "number",
    "staleChunkCount": "number",
    "watchNote": "null",
    "transport": "null",
    "bindAddress": "null",
    "authMode": "null",
    "httpConfigError": "null",
    "instructionsTruncated": "boolean",
    "lastSync": {  # the index's record of its last sync, whoever ran it
        "origin": "string",
        "jobId": "string",
        "state": "string",
        "startedAt": "string",
        "finishedAt": "string",
        "counts": COUNTS,
        "error": "string",
        "errors": [{"source": "string", "error": "string"}],
    },
}

#: The story, in order (later steps see what earlier ones wrote).
STEPS: tuple[Step, ...] = (
    Step("sync", lambda ctx: {}, SYNC_JOB),
    Step("query_documents", lambda ctx: {"query": "coolant pump flushing"}, QUERY,
         maps=frozenset({"parents"})),
    Step("read_chunk_neighbors",
         lambda ctx: {**_file("specs/cooling.md")(ctx), "chunkIndex": 0, "after": 1}, NEIGHBORS),
    Step("read_file", _file("specs/cooling.md"), READ),
    Step("list_files", lambda ctx: {}, LISTING),
    Step("ingest_file", _file("notes/new.md"), INGESTED, prepare=_new_note, shells=("mcp",)),
    Step("ingest_data", lambda ctx: {"data": "# Standup\n\nVersion 7 ships in March.",
                                     "source": "notes/standup", "format": "markdown"},
         INGESTED, shells=("mcp",)),
    Step("ingest_url", lambda ctx: {"url": ctx.url, "source": "release-notes"}, INGESTED),
    Step("delete_file", _file("notes/lunch.txt"), DELETED),
    Step("status", lambda ctx: {}, STATUS, differs={"cli": {
        "instructionsTruncated": "null",
        # the CLI's `sync` is recorded in the user's record of synced indexes
        "knownIndexes": [{"roots": ["string"], "index": "string", "syncedAt": "string"}],
    }}),
)  # fmt: skip


def steps_for(shell: str) -> list[Step]:
    """The steps ``shell`` ("mcp" or "cli") runs, in order."""
    return [step for step in STEPS if shell in step.shells]


def expected(step: Step, shell: str) -> dict[str, Any]:
    """The shape ``shell`` must answer ``step`` with."""
    return {**step.shape, **step.differs.get(shell, {})}
