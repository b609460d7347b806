"""11 of the 12 MCP tools (read_page_image: pages.py): thin wrappers that parse
arguments and return what the Index returns.

Argument names are camelCase because that is minirag's MCP interface; results are the
store's TypedDicts unchanged, so fastmcp derives each tool's output schema from them and
clients get structured content. Descriptions live in :mod:`minirag_mcp.descriptions`.

Defaults and bounds come from :mod:`minirag_store.arguments`. The schemas declare the
bounds for clients to read, but do not enforce them: the store checks every value and
refuses with the same message the CLI prints (pydantic would word it differently).
"""

# ruff: noqa: N803 - camelCase names are the published MCP interface

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from fastmcp import FastMCP
from fastmcp.tools import Tool
from mcp.types import ToolAnnotations
from minirag_store import Index
from minirag_store.arguments import FIRST_CHUNK_INDEX, FIRST_PAGE, NEIGHBORS, OFFSET, TOP_K
from minirag_store.results import (
    DeleteResult,
    IngestResult,
    JobStatus,
    ListResult,
    NeighborsResult,
    QueryResult,
    ReadResult,
    StatusResult,
    SyncStarted,
)
from pydantic import Field

from minirag_mcp.auth import Serving
from minirag_mcp.bridge import call_store
from minirag_mcp.descriptions import DESCRIPTIONS, TITLES
from minirag_mcp.schemas import listed

__all__ = ["register_tools"]


FilePath = Annotated[
    str | None,
    Field(
        description="A file in a document root: its absolute path or displayPath (or give source)."
    ),
]
Source = Annotated[
    str | None,
    Field(
        description="The document as a search or list_files names it: its displayPath "
        "(or absolute path), a data id, a URL.",
    ),
]
Scope = Annotated[
    str | list[str] | None,
    Field(
        description="Only documents under these folders or files (absolute, or displayPaths "
        "such as 'notes' or 'pdfs/report.pdf') or with these id prefixes; one string or a list.",
    ),
]
Title = Annotated[str | None, Field(description="Title to show; derived if omitted.")]
TopK = Annotated[
    int,
    Field(
        description=f"How many hits to return (at least {TOP_K.minimum}; more than "
        f"{TOP_K.maximum} gives {TOP_K.maximum}).",
        json_schema_extra={"minimum": TOP_K.minimum},
    ),
]
Offset = Annotated[
    int,
    Field(
        description="Skip this many of the best hits (a trimmed answer's trimmed.nextOffset).",
        json_schema_extra={"minimum": OFFSET.minimum, "maximum": OFFSET.maximum},
    ),
]
ChunkIndex = Annotated[
    int,
    Field(description="The hit's chunkIndex.", json_schema_extra={"minimum": FIRST_CHUNK_INDEX}),
]
FromChunk = Annotated[
    int,
    Field(
        description="Start here: an earlier read_file's nextChunk.",
        json_schema_extra={"minimum": FIRST_CHUNK_INDEX},
    ),
]

Page = Annotated[
    int | None,
    Field(
        description="Only this page of a PDF (a hit's locator.page).",
        json_schema_extra={"minimum": FIRST_PAGE},
    ),
]
Slide = Annotated[
    int | None,
    Field(
        description="Only this slide of a deck (a hit's locator.slide).",
        json_schema_extra={"minimum": FIRST_PAGE},
    ),
]

_SPAN = {"minimum": NEIGHBORS.minimum, "maximum": NEIGHBORS.maximum}
Before = Annotated[
    int,
    Field(
        description=f"Chunks before it ({NEIGHBORS.minimum}-{NEIGHBORS.maximum}).",
        json_schema_extra=_SPAN,
    ),
]
After = Annotated[
    int,
    Field(
        description=f"Chunks after it ({NEIGHBORS.minimum}-{NEIGHBORS.maximum}).",
        json_schema_extra=_SPAN,
    ),
]


def _hints(*, read_only: bool = False, destructive: bool = False, open_world: bool = False):
    """Tool annotations; every hint explicit, since the spec's defaults assume the worst."""
    if read_only:
        return ToolAnnotations(read_only_hint=True, open_world_hint=open_world)
    return ToolAnnotations(
        read_only_hint=False,
        destructive_hint=destructive,
        idempotent_hint=True,  # each write replaces or removes one source: repeating is safe
        open_world_hint=open_world,
    )


def _tool(mcp: FastMCP, name: str, **hints: bool) -> Callable[[Any], Any]:
    """Register a tool under ``name`` with its title, description and annotations (its
    arguments compact, no output schema: see :mod:`minirag_mcp.schemas`)."""

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        tool = Tool.from_function(
            fn,
            name=name,
            title=TITLES[name],
            description=DESCRIPTIONS[name],
            annotations=_hints(**hints),
        )
        mcp.add_tool(listed(tool))
        return fn

    return register


def register_tools(
    mcp: FastMCP, index: Index, *, instructions_truncated: bool, serving: Serving | None = None
) -> None:
    """Add the 11 minirag tools, all backed by ``index``, to ``mcp``; ``status`` adds
    ``serving`` (the transport fields) to what the store reports."""
    _register_sync(mcp, index)
    _register_ingest(mcp, index)
    _register_reads(mcp, index)
    _register_admin(mcp, index, instructions_truncated, serving or {})


def _register_sync(mcp: FastMCP, index: Index) -> None:
    @_tool(mcp, "sync_start")
    async def sync_start(
        path: Annotated[
            str | None,
            Field(
                description="Absolute path of one folder or file inside a root to sync; "
                "omit to sync every root."
            ),
        ] = None,
    ) -> SyncStarted:
        # Answers as soon as the job is registered, whether or not the client attached a
        # progressToken (fastmcp's client attaches one to every call): a client polls
        # sync_status from then on and sees the job running, counts growing.
        return await call_store(lambda: index.sync_start(path))

    @_tool(mcp, "sync_status", read_only=True)
    async def sync_status(
        jobId: Annotated[str, Field(description="The jobId sync_start gave back.")],
    ) -> JobStatus:
        return await call_store(lambda: index.sync_status(jobId))


def _register_ingest(mcp: FastMCP, index: Index) -> None:
    @_tool(mcp, "ingest_file")
    async def ingest_file(
        filePath: Annotated[
            str, Field(description="Absolute path of the file, inside a document root.")
        ],
    ) -> IngestResult:
        return await call_store(lambda: index.ingest_file(filePath))

    @_tool(mcp, "ingest_data")
    async def ingest_data(
        data: Annotated[str, Field(description="The content to index.")],
        source: Annotated[
            str,
            Field(
                description="Your id for it, e.g. 'notes/2024-05-02-standup'; ingesting "
                "the same id again replaces the earlier content."
            ),
        ],
        format: Annotated[
            Literal["text", "markdown", "html"], Field(description="How `data` is written.")
        ] = "text",
        title: Title = None,
    ) -> IngestResult:
        return await call_store(lambda: index.ingest_data(data, source, format, title))

    @_tool(mcp, "ingest_url", open_world=True)
    async def ingest_url(
        url: Annotated[str, Field(description="The http(s) URL to fetch.")],
        source: Annotated[
            str | None, Field(description="Id to index it under; defaults to the URL.")
        ] = None,
        title: Title = None,
    ) -> IngestResult:
        return await call_store(lambda: index.ingest_url(url, source, title))


def _register_reads(mcp: FastMCP, index: Index) -> None:
    @_tool(mcp, "query_documents", read_only=True)
    async def query_documents(
        query: Annotated[
            str,
            Field(description="What to look for: words, a question, exact names or codes."),
        ],
        topK: TopK = TOP_K.default,
        scope: Scope = None,
        offset: Offset = OFFSET.default,
        explain: Annotated[
            bool,
            Field(description="Add each hit's fused score and vector distance."),
        ] = False,
    ) -> QueryResult:
        return await call_store(
            lambda: index.query(query, topK, scope, offset=offset, explain=explain)
        )

    @_tool(mcp, "read_chunk_neighbors", read_only=True)
    async def read_chunk_neighbors(
        chunkIndex: ChunkIndex,
        filePath: FilePath = None,
        source: Source = None,
        before: Before = NEIGHBORS.default,
        after: After = NEIGHBORS.default,
    ) -> NeighborsResult:
        return await call_store(
            lambda: index.read_chunk_neighbors(
                source, chunkIndex, before, after, file_path=filePath
            )
        )

    @_tool(mcp, "read_file", read_only=True)
    async def read_file(
        filePath: FilePath = None,
        source: Source = None,
        fromChunk: FromChunk = FIRST_CHUNK_INDEX,
        page: Page = None,
        slide: Slide = None,
    ) -> ReadResult:
        return await call_store(
            lambda: index.read_file(
                source, file_path=filePath, from_chunk=fromChunk, page=page, slide=slide
            )
        )

    @_tool(mcp, "list_files", read_only=True)
    async def list_files(
        scope: Scope = None,
        includeIgnored: Annotated[
            bool,
            Field(
                description="Also list what a rule skips (hidden names, .gitignore or "
                ".miniragignore lines, node_modules), each with its rule in `reason`."
            ),
        ] = False,
    ) -> ListResult:
        return await call_store(lambda: index.list_files(scope, ignored=includeIgnored))


def _register_admin(
    mcp: FastMCP, index: Index, instructions_truncated: bool, serving: Serving
) -> None:
    @_tool(mcp, "delete_file", destructive=True)
    async def delete_file(filePath: FilePath = None, source: Source = None) -> DeleteResult:
        return await call_store(lambda: index.delete_file(source, file_path=filePath))

    @_tool(mcp, "status", read_only=True)
    async def status() -> StatusResult:
        # the store's report has every field; the server fills in what only it knows
        result: StatusResult = {**await call_store(index.status), **serving}
        result["instructionsTruncated"] = instructions_truncated
        return result
