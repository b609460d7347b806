"""The shapes every service call returns: TypedDicts with the exact wire field names.

The job and sync shapes live in :mod:`minirag_store.job_results` and are re-exported
here. Both shells emit these unchanged (the MCP tools as structured output, the CLI with
``--json``), so a field is named once, here. Keys are camelCase because that is the
MCP interface minirag promises.

No ``from __future__ import annotations`` here: with string annotations a TypedDict
cannot see ``NotRequired``, and every optional field would count as required.
"""

from typing import Literal, NotRequired

# typing_extensions, not typing: pydantic (the MCP shell derives output schemas from these)
# rejects typing.TypedDict on Python < 3.12.
from typing_extensions import TypedDict

from minirag_store.job_results import (
    SYNC_ORIGINS,
    JobCounts,
    JobError,
    JobFiles,
    JobState,
    JobStatus,
    KnownIndexRow,
    LastSync,
    Progress,
    ProgressCallback,
    SlowFile,
    SyncOrigin,
    SyncStarted,
    WatchBatch,
)

__all__ = [
    "SYNC_ORIGINS",
    "ChunkDict",
    "DeleteResult",
    "FileRow",
    "HitMatch",
    "IngestResult",
    "JobCounts",
    "JobError",
    "JobFiles",
    "JobState",
    "JobStatus",
    "KnownIndexRow",
    "LastSync",
    "ListResult",
    "Locator",
    "NeighborsResult",
    "PageImage",
    "Progress",
    "ProgressCallback",
    "QueryResult",
    "QueryTrimmed",
    "ReadResult",
    "SearchHit",
    "SlowFile",
    "SourceSummary",
    "StatusResult",
    "SyncOrigin",
    "SyncStarted",
    "WatchBatch",
]

FileState = Literal[
    "ingested",
    "stale",
    "stale_scheme",
    "not_ingested",
    "failed",  # not indexed: the last sync that tried could not read it (``reason``: why)
    "unreadable",
    "empty",  # read by a sync, no text in it (``reason``): skipped until the file changes
    "unsupported",  # a type minirag does not read (``reason`` names it)
    "too_large",  # over MAX_FILE_SIZE (``reason`` gives the size and the limit)
    "ignored",  # skipped by a rule (``reason`` names it); listed only when asked (``all``)
]
SourceType = Literal["file", "data", "url"]


class Locator(TypedDict, total=False):
    """Where a chunk is in its source, as far as its format tells (each field only when
    known; ``{}`` for a chunk indexed before locators: a sync adds them)."""

    page: int  # PDF: the (first) page, 1-based; read_file(page=) reads it
    pages: list[int]  # [first, last] when the chunk runs across pages
    slide: int  # deck: the (first) slide number; read_file(slide=) reads it
    slides: list[int]  # [first, last] when the chunk runs across slides
    sheet: str  # spreadsheet: the sheet's name
    rows: list[int]  # [first, last] table rows of the sheet (its header row is 1)
    chapter: int  # EPUB: the (first) chapter, 1-based in reading order
    chapters: list[int]  # [first, last] when the chunk runs across chapters
    headingPath: str  # the heading breadcrumb of its section ("Results > Q3")


class HitMatch(TypedDict):
    """How a hit matched (minirag_store.index.search.evidence): ``level`` from both sides'
    evidence, and the query's distinctive words (identifiers, numbers, words few chunks
    hold) it holds and lacks, as typed (each list absent when empty)."""

    level: Literal["strong", "partial", "weak"]
    found: NotRequired[list[str]]
    missing: NotRequired[list[str]]
    # with explain only: the weighted share of distinctive words held, and the hit's cosine
    # as a z-score against the query's cosine over the index (4 significant digits)
    coverage: NotRequired[float]
    z: NotRequired[float]


class SearchHit(TypedDict):
    """One ranked retrieval unit. Its document is ``QueryResult.sources[src]``: a path is
    said once per answer, not once per hit (at topK 50 repeating paths, titles and ids
    per hit left a third of an answer for document text)."""

    src: int  # index into QueryResult.sources: the document it is from
    chunkIndex: int  # its (first) chunk: read_chunk_neighbors reads around it
    # the last chunk when the hit is a passage of consecutive ranked chunks of one section
    # (minirag_store.passages); absent for one chunk
    lastChunk: NotRequired[int]
    # with explain only: the fused score of RAG_FUSION (mixture, rrf or score) and the
    # vector distance (None: keyword side only), 4 significant digits
    score: NotRequired[float]
    distance: NotRequired[float | None]
    # where it is: page, slide, sheet and rows, chapter, heading path (the heading path is
    # left out when it is only the document's title, which its source names); absent when
    # there is nothing to say (a short text file)
    locator: NotRequired[Locator]
    match: NotRequired[HitMatch]  # how it matched: always set by a query
    # index into QueryResult.parents: the whole section the hit sits in; absent when the
    # hit has no section or its section was left out to fit RAG_MAX_RESPONSE_TOKENS
    parent: NotRequired[int]
    # the passage that matched, as markdown (links keep their targets), without its
    # heading breadcrumb (that is ``locator.headingPath``); its readable text (link text
    # only, see minirag_store.index.text.readable) is what was embedded and keyword-indexed
    text: str


class SourceSummary(TypedDict):
    """One distinct source among the hits, in rank order of its best hit. A file's absolute
    path is ``QueryResult.roots[root]`` joined with ``displayPath``; every tool that takes a
    ``source`` takes the displayPath too."""

    displayPath: str  # path relative to its root (files) or the id itself (data/url)
    root: NotRequired[int]  # files: index into QueryResult.roots, the root it lies under
    # absent when it is only the file's name (displayPath's last part without extension,
    # underscores as spaces): the path says it
    title: NotRequired[str]
    # The file changed on disk (or is gone) since it was indexed: its hits' text may be
    # out of date until the next sync (or the watcher) re-indexes it. Only present when true.
    stale: NotRequired[bool]
    pages: NotRequired[list[int]]  # the pages its hits are on, ascending (PDFs)
    slides: NotRequired[list[int]]  # the slides its hits are on, ascending (decks)


class QueryTrimmed(TypedDict):
    """What a query answer left out to stay within RAG_MAX_RESPONSE_TOKENS (budget.py)."""

    maxTokens: int  # the budget it was fitted to
    hitsLeftOut: int  # the lowest-ranked hits left out
    parentsLeftOut: int  # sections of hits shown that were left out (read_chunk_neighbors)
    hitTextCut: bool  # the top hit's text was cut: even it alone did not fit
    # query again with this offset (and the same topK) for the hits left out
    nextOffset: NotRequired[int]


class QueryResult(TypedDict):
    """``query_documents`` / ``minirag-cli query``."""

    results: list[SearchHit]
    sources: list[SourceSummary]  # the sources of the hits in `results`, by best hit
    roots: list[str]  # the document roots the file sources lie under (SourceSummary.root)
    parents: list[str]  # the sections hits sit in (SearchHit.parent), reconstructed
    # the best hit's match level ("weak": nothing really matches); absent without hits
    bestMatch: NotRequired[Literal["strong", "partial", "weak"]]
    # why nothing came back, when nothing could (empty index/scope); the query's words no
    # document holds and that nothing really matches; what `trimmed` left out
    notice: NotRequired[str]
    trimmed: NotRequired[QueryTrimmed]  # only when the answer had to be trimmed


class ChunkDict(TypedDict):
    """A stored chunk as read back by neighbours."""

    text: str
    source: str
    title: str
    chunkIndex: int
    parentId: str | None


class NeighborsResult(TypedDict):
    """``read_chunk_neighbors``: the chunks around one, in order, the asked one included."""

    source: str
    chunks: list[ChunkDict]


class ReadResult(TypedDict):
    """``read_file``: a whole source reconstructed as markdown (no repeated breadcrumbs),
    from ``fromChunk`` on; as much of it as fits RAG_MAX_RESPONSE_TOKENS."""

    source: str
    sourceType: SourceType
    title: str
    chunkCount: int  # of the whole document
    text: str
    displayPath: str
    page: NotRequired[int]  # the page read (read_file with page): its chunks only
    slide: NotRequired[int]  # the slide read (read_file with slide): its chunks only
    # The text stops before this chunk (RAG_MAX_RESPONSE_TOKENS): read_file with
    # fromChunk=nextChunk (and the same page or slide) returns what follows. Absent when
    # the text reaches the end (of the page or slide, when one was read).
    nextChunk: NotRequired[int]
    notice: NotRequired[str]  # what was left out and how to read it


class PageImage(TypedDict):
    """``Index.page_image``: one PDF page drawn as a PNG (the MCP tool ``read_page_image``
    sends ``png`` as image content and the other fields as a line of text)."""

    source: str
    displayPath: str
    page: int  # 1-based, as a hit's locator.page counts
    pageCount: int  # pages of the file as it is on disk
    width: int  # pixels
    height: int
    scale: float  # pixels per PDF point drawn (lower than asked when a cap applied)
    png: bytes  # the image; at most 1,600 px on its long side and 1.5 MB
    path: str  # the cached file it was read from (another read of it costs no rendering)
    cached: bool  # True: served from the cache, nothing was rendered


class IngestResult(TypedDict):
    """``ingest_file`` / ``ingest_data`` / ``ingest_url``."""

    source: str
    title: str
    chunkCount: int
    sourceType: SourceType
    ocrEngine: str  # "" when text was extracted normally


class DeleteResult(TypedDict):
    """``delete_file``; with ``exclude`` (the web page's "Exclude from the index") also the
    rule that keeps the file out."""

    source: str
    deletedChunks: int  # 0 when excluding a file that was not indexed
    rule: NotRequired[str]  # the line in (or added to) the ignore file: `/docs/old.pdf`
    ignoreFile: NotRequired[str]  # the root's .miniragignore it is in


class FileRow(TypedDict):
    """One row of ``list_files``."""

    source: str
    displayPath: str
    sourceType: SourceType
    title: str  # "" for a file not ingested yet
    state: FileState
    chunkCount: int
    ocrEngine: str
    reason: NotRequired[str]  # why it is not indexed: empty, unsupported, too_large, ignored


class DocumentRow(TypedDict):
    """One indexed document a reader can open (``Index.documents``: the MCP resources)."""

    source: str
    displayPath: str
    sourceType: SourceType
    title: str
    size: int  # bytes of the file (or the data, the page) as indexed
    chunkCount: int


class ListResult(TypedDict):
    """``list_files``."""

    files: list[FileRow]
    warnings: NotRequired[list[str]]  # folders that could not be read, with what to do
    notice: NotRequired[str]  # a scope was given and nothing lies under it: says so


class StatusResult(TypedDict, total=False):
    """``status``: every field always present, ``None`` where it has no value or no meaning
    (:func:`minirag_store.status.build_status` fills them), so ``minirag-cli status --json``
    and the MCP ``status`` tool have one key set. With a broken configuration only
    ``version``, ``configError`` and ``knownIndexes`` have values."""

    version: str
    configError: str | None
    roots: list[str] | None
    rootsFrom: str | None  # how the roots were found: a flag, a variable, discovered, the record
    dbPath: str | None
    indexFrom: str | None  # where dbPath came from: --db-path, DB_PATH, the root, the record
    # the indexes this user synced, newest first (minirag_store.known); also with a broken
    # configuration, so a command typed outside every root can name them
    knownIndexes: list[KnownIndexRow] | None
    cacheDir: str | None
    model: str | None
    modelPath: str | None
    chunkTokenBudget: int | None
    hybridWeight: float | None
    fusion: str | None  # "mixture", "rrf" or "score" (RAG_FUSION)
    grouping: str | None
    maxDistance: float | None
    minScoreRatio: float | None  # RAG_MIN_SCORE_RATIO: hits below this x the top score dropped
    maxFiles: int | None
    maxFileSize: int | None
    maxResponseTokens: int | None  # RAG_MAX_RESPONSE_TOKENS
    chunkScheme: int | None
    chunkCount: int | None
    sourceCount: int | None
    staleChunkCount: int | None
    schemeWarning: str | None
    indexError: str | None
    ocr: str | None  # engine names joined by ", ", or "unavailable"
    ocrHint: str | None  # what to install: the OCR add-on, or a language pack RAG_OCR_LANG needs
    ocrLang: str | None
    watch: str | None  # RAG_WATCH: "on", "poll" or "off"
    # how this process follows the files: "notify" (OS notifications), "poll" (a cheap
    # full sync every RAG_WATCH_POLL_SECONDS), or "off" (no watcher runs in it)
    watchMode: str | None
    watchNote: str | None  # why it polls, when it does
    # What only the MCP server knows (null from the CLI, which serves nothing):
    transport: Literal["stdio", "http"] | None
    bindAddress: str | None  # http only: host:port
    authMode: str | None  # http only: how clients authenticate
    httpConfigError: str | None  # ``minirag-mcp status`` only: why an http server would not start
    instructionsTruncated: bool | None  # RAG_INSTRUCTIONS_APPEND was cut to fit 2,048 chars
    lastSync: LastSync | None  # the index's last sync, by whom (null: none recorded)
