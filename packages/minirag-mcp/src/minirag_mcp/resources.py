"""Every indexed document as an MCP resource: listed in pages, read as ``read_file`` reads.

- ``resources/list``: one resource per document :meth:`Index.documents` returns (a file
  only while it is on disk inside a root, symlinks followed; data and web pages), named
  by its ``minirag://`` URI (:mod:`minirag_mcp.uris`), ``text/markdown``, with the title
  the index holds and no size: the original file's bytes (a PDF's 282,554) are not what
  a read returns, and the markdown's length depends on the response budget. fastmcp 4.2
  paginates every list with an offset cursor over the whole list
  (``FastMCP(list_page_size=)``, :data:`PAGE_SIZE` here) and hands list hooks no cursor,
  so each page is cut from the full list: the list (and each entry's wire form) is kept
  for :data:`CATALOG_SECONDS` and rebuilt after a watched change
  (:meth:`Documents.forget`), so paging through 10,000 documents builds it once.
- ``resources/read``: the document's markdown as :meth:`Index.read_file` returns it
  within ``RAG_MAX_RESPONSE_TOKENS``; when it stops early, a last line says where and
  gives the URI that reads on (``fromChunk``), and the content's ``_meta`` carries
  ``nextChunk``. ``?page=N`` / ``?slide=N`` read one page or slide. Templates describe
  the forms, and ``completion/complete`` completes their ``path`` from the index.
- Errors: a URI that names no readable document (unknown, deleted, a link out of the
  roots, a page the document lacks) is the MCP error ``-32002`` (resource not found)
  with the reason, an argument the store refuses is ``-32602``; never a traceback.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from fastmcp.exceptions import NotFoundError as FastMCPNotFound
from fastmcp.exceptions import ResourceError
from fastmcp.resources import Resource, ResourceContent, ResourceResult, ResourceTemplate
from fastmcp.server.middleware import Middleware
from fastmcp.server.providers import Provider
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, Completion, PromptReference
from mcp_types import Resource as WireResource
from minirag_store.errors import (
    InvalidArgumentError,
    MiniragError,
    NotFoundError,
    PathOutsideRootsError,
)
from minirag_store.results import DocumentRow, ReadResult
from pydantic import PrivateAttr

from minirag_mcp.uris import PREFIX, Address, document_uri, parse_uri

if TYPE_CHECKING:
    from fastmcp import FastMCP
    from fastmcp.server.middleware import CallNext, MiddlewareContext
    from fastmcp.utilities.versions import VersionSpec
    from minirag_store import Index

__all__ = [
    "CATALOG_SECONDS",
    "PAGE_SIZE",
    "RESOURCE_NOT_FOUND",
    "Documents",
    "register_resources",
]

logger = logging.getLogger(__name__)

#: Resources per ``resources/list`` page (fastmcp's ``list_page_size``; tools and prompts,
#: far fewer, still come in one page). A page of 500 is ~60 KB of JSON.
PAGE_SIZE = 500
#: How long a built list serves further pages and completions before it is built again
#: (a watched change rebuilds it at once): a client paging through sees one list.
CATALOG_SECONDS = 10.0
#: The MCP error code for a resource that does not exist (the spec's, up to 2025-11-25).
RESOURCE_NOT_FOUND = -32002
MIME = "text/markdown"
#: The templates clients are shown; ``{path*}`` is fastmcp's form of a path with ``/``s.
TEMPLATES = {
    "document": (f"{PREFIX}file/{{path*}}", "A document by its displayPath"),
    "page": (f"{PREFIX}file/{{path*}}{{?page}}", "One page of a PDF (page from 1)"),
    "slide": (f"{PREFIX}file/{{path*}}{{?slide}}", "One slide of a deck (slide from 1)"),
}
#: Completions returned at most (the MCP limit).
MAX_COMPLETIONS = 100


class ResourceReadError(ResourceError, MCPError):
    """A read refused with an MCP error code of its own (not found, bad argument).

    Both bases on purpose: fastmcp passes an ``MCPError`` to the client unchanged (its
    code and message kept), and logs a ``ResourceError`` at its ``log_level``: DEBUG,
    since a client naming a missing document is no server fault (no traceback logged).
    """

    def __init__(self, message: str, *, code: int = RESOURCE_NOT_FOUND, uri: str = "") -> None:
        MCPError.__init__(self, code, message, {"uri": uri} if uri else None)
        self.log_level = logging.DEBUG


class Documents:
    """The documents of one index, as resources: the list (kept a while) and the reads."""

    def __init__(self, index: Index, *, keep_seconds: float = CATALOG_SECONDS) -> None:
        self.index = index
        self._keep = keep_seconds
        self._built: tuple[float, list[DocumentResource]] | None = None

    def forget(self) -> None:
        """Drop the kept list: the next listing or completion reads the index again."""
        self._built = None

    async def listed(self) -> list[DocumentResource]:
        """Every document as a resource, sorted by source (kept :data:`CATALOG_SECONDS`)."""
        built = self._built
        if built is not None and time.monotonic() - built[0] < self._keep:
            return built[1]
        if self.index.config_error is not None:
            return []  # degraded mode: the status tool says why
        rows = await anyio.to_thread.run_sync(self.index.documents)
        resources = self._resources(rows)
        self._built = (time.monotonic(), resources)
        return resources

    def _resources(self, rows: list[DocumentRow]) -> list[DocumentResource]:
        seen: dict[str, int] = {}
        for row in rows:
            if row["sourceType"] == "file":
                seen[row["displayPath"]] = seen.get(row["displayPath"], 0) + 1
        out: list[DocumentResource] = []
        for row in rows:
            twice = row["sourceType"] == "file" and seen[row["displayPath"]] > 1
            uri = document_uri(row, ambiguous=twice)
            out.append(
                DocumentResource(
                    uri=uri,
                    name=row["displayPath"],
                    title=row["title"] or None,
                    mime_type=MIME,
                ).bound(self)
            )
        return out

    async def complete(self, prefix: str) -> Completion:
        """The files' displayPaths starting with ``prefix`` (the first hundred, sorted)."""
        paths = sorted(
            {
                str(r.name)
                for r in await self.listed()
                if str(r.uri).startswith(f"{PREFIX}file/") and str(r.name).startswith(prefix)
            }
        )
        return Completion(
            values=paths[:MAX_COMPLETIONS],
            total=len(paths),
            has_more=len(paths) > MAX_COMPLETIONS,
        )

    async def read(self, uri: str) -> ResourceResult:
        """The document ``uri`` names, as markdown within the response budget."""
        address = parse_uri(uri)
        if address is None:
            raise ResourceReadError(f"Resource not found: {uri!r} names no document", uri=uri)
        try:
            result = await anyio.to_thread.run_sync(
                lambda: self._read(address), abandon_on_cancel=True
            )
        except ResourceReadError as e:
            raise ResourceReadError(f"Resource not found: {uri!r}: {e.message}", uri=uri) from e
        except NotFoundError as e:
            raise ResourceReadError(f"Resource not found: {uri!r}: {e}", uri=uri) from e
        except PathOutsideRootsError as e:  # a link under a root that leads out of them
            raise ResourceReadError(
                f"Resource not found: {uri!r} leads outside the document roots", uri=uri
            ) from e
        except InvalidArgumentError as e:
            raise ResourceReadError(str(e), code=INVALID_PARAMS, uri=uri) from e
        except MiniragError as e:  # a broken configuration, an index that cannot open
            raise ResourceError(str(e)) from e
        return _content(address, result)

    def _read(self, address: Address) -> ReadResult:
        place: dict[str, Any] = {"page": address.page, "slide": address.slide}
        if address.from_chunk is not None:
            place["from_chunk"] = address.from_chunk
        if address.kind == "file":
            return self.index.read_file(file_path=self._file(address), **place)
        result = self.index.read_file(address.name, **place)
        if result["sourceType"] != address.kind or result["source"] != address.name:
            raise ResourceReadError(f"no {address.kind} source {address.name!r} is indexed")
        return result

    def _file(self, address: Address) -> str:
        """The one indexed file on disk that a file URI names (its path under a root)."""
        roots = [str(root) for root in self.index.config.roots]
        if address.root is not None:
            roots = [root for root in roots if root == address.root]
        found = [
            path
            for path in (os.path.join(root, address.name) for root in roots)
            if os.path.isfile(path)  # a deleted file is gone, whatever the index holds
        ]
        if len(found) > 1:
            indexed = {row["source"] for row in self.index.documents()}
            found = [path for path in found if path in indexed]
        if not found:
            raise ResourceReadError("no such file under the document roots")
        if len(found) > 1:
            raise InvalidArgumentError(
                f"{address.name!r} is indexed under several roots; name one: "
                + ", ".join(
                    Address("file", address.name, root=path[: -len(address.name) - 1]).uri()
                    for path in found
                )
            )
        return found[0]


def _content(address: Address, result: ReadResult) -> ResourceResult:
    """The read's text; where the budget stopped it, a last line with the URI reading on."""
    text = result["text"]
    meta: dict[str, Any] = {"source": result["source"], "chunkCount": result["chunkCount"]}
    if "nextChunk" in result:
        follow = address.uri(fromChunk=result["nextChunk"])
        meta.update(nextChunk=result["nextChunk"], next=follow)
        text += f"\n\n[minirag: {result.get('notice', '')} As a resource, read on at {follow}]"
    return ResourceResult([ResourceContent(text, mime_type=MIME, meta={"minirag": meta})])


class DocumentResource(Resource):
    """One indexed document; read through its :class:`Documents`."""

    _documents: Documents | None = PrivateAttr(default=None)
    _wire: WireResource | None = PrivateAttr(default=None)

    def bound(self, documents: Documents) -> DocumentResource:
        """This resource, read through ``documents``."""
        self._documents = documents
        return self

    async def read(self) -> ResourceResult:
        """The document's markdown (see :meth:`Documents.read`)."""
        if self._documents is None:  # never: every DocumentResource is bound when made
            raise ResourceError(f"{self.uri} is not served by an index")
        return await self._documents.read(str(self.uri))

    def to_mcp_resource(self, **overrides: Any) -> WireResource:
        """The wire form, built once: a paged listing converts every listed resource
        for each page."""
        if self._wire is None or overrides.get("uri", str(self.uri)) != self._wire.uri:
            self._wire = WireResource(
                name=self.name,
                uri=str(self.uri),
                title=self.title,
                mime_type=self.mime_type,
            )
        return self._wire


class DocumentProvider(Provider):
    """The fastmcp provider of the documents, their URI templates, and nothing else."""

    def __init__(self, documents: Documents) -> None:
        super().__init__()
        self.documents = documents
        self._templates = [_template(documents, key) for key in TEMPLATES]

    async def _list_resources(self) -> Sequence[Resource]:
        return await self.documents.listed()

    async def get_tasks(self) -> Sequence[Any]:
        """None: a document is never a background task. Without this, fastmcp's start
        (it checks every provider for task components before serving) lists the documents,
        which loads LanceDB and opens the table before ``initialize`` is answered: 2.3 s of
        a stdio server's 3.6 s to ``tools/list`` (``bench/startup.py``)."""
        return []

    async def _get_resource(self, uri: str, version: VersionSpec | None = None) -> Resource | None:
        # Any well-formed document URI is ours to answer, listed or not: the read says
        # why it names nothing (deleted, outside the roots, not indexed).
        if parse_uri(uri) is None:
            return None
        return DocumentResource(uri=uri, name=uri, mime_type=MIME).bound(self.documents)

    async def _list_resource_templates(self) -> Sequence[ResourceTemplate]:
        return self._templates

    async def _get_resource_template(
        self, uri: str, version: VersionSpec | None = None
    ) -> ResourceTemplate | None:
        # Never matched for a read: _get_resource answers every well-formed document URI,
        # and fastmcp's matching would read a malformed one (an unknown query key
        # dropped) as the document; that must stay "not found".
        return None


def _template(documents: Documents, key: str) -> ResourceTemplate:
    uri_template, description = TEMPLATES[key]

    async def read(path: str, page: int | None = None, slide: int | None = None) -> Any:
        place = {"page": page} if key == "page" else {"slide": slide} if key == "slide" else {}
        return await documents.read(Address("file", path, **place).uri())

    return ResourceTemplate.from_function(
        read, uri_template=uri_template, name=key, description=description, mime_type=MIME
    )


class ResourceNotFound(Middleware):
    """A read of a URI no provider serves: the MCP error ``-32002`` (fastmcp says -32602)."""

    async def on_read_resource(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]
    ) -> Any:
        """Pass the read on; a URI that names nothing becomes ``-32002`` with the URI."""
        try:
            return await call_next(context)
        except FastMCPNotFound as e:
            uri = str(context.message.uri)
            raise ResourceReadError(f"Resource not found: {uri!r}", uri=uri) from e


def register_resources(mcp: FastMCP, documents: Documents) -> None:
    """Serve ``documents`` as resources on ``mcp``, with path completion."""
    mcp.add_provider(DocumentProvider(documents))
    mcp.add_middleware(ResourceNotFound())

    async def complete(ref: Any, argument: Any, context: Any) -> Completion | None:
        # Every argument called `path`: the templates' and the prompts' (summarize).
        if argument.name != "path":
            return None
        if not isinstance(ref, PromptReference) and not str(ref.uri).startswith(PREFIX):
            return None
        return await documents.complete(argument.value)

    mcp.add_completion_handler(complete)
