"""Pages the model can look at: the ``read_page_image`` tool and the page-image resource.

Both return what ``Index.page_image`` drew (a PDF page as a PNG within the store's caps,
cached beside the index). The tool answers with image content plus one line naming the
file, page and size; it has no structured output, since a client that prefers structured
content would show the model a JSON object instead of the picture. The resource is the
same image at ``minirag-page://{displayPath}/{page}.png`` (a ``displayPath`` as a query
or list_files names the file: fastmcp refuses an absolute path in a template parameter).
"""

# ruff: noqa: N803 - camelCase names are the published MCP interface

from __future__ import annotations

from typing import Annotated

from fastmcp import FastMCP
from fastmcp.tools import Tool, ToolResult
from fastmcp.utilities.types import Image
from mcp.types import TextContent, ToolAnnotations
from minirag_store import Index
from minirag_store.arguments import FIRST_PAGE, PAGE_SCALE, PAGE_WIDTH
from minirag_store.errors import InvalidArgumentError
from minirag_store.results import PageImage
from pydantic import Field

from minirag_mcp.bridge import call_store, read_store
from minirag_mcp.descriptions import DESCRIPTIONS, TITLES
from minirag_mcp.schemas import listed
from minirag_mcp.tools import FilePath, Source

__all__ = ["PAGE_URI", "register_pages"]

#: The page-image resource template (RFC 6570; ``path*`` spans the displayPath's folders).
PAGE_URI = "minirag-page://{path*}/{page}.png"

PageNumber = Annotated[
    int,
    Field(
        description="The page to look at, 1-based: a hit's locator.page.",
        json_schema_extra={"minimum": FIRST_PAGE},
    ),
]
Scale = Annotated[
    float,
    Field(
        description=f"Pixels per PDF point ({PAGE_SCALE.default:g} = "
        f"{PAGE_SCALE.default * 72:g} dpi; {PAGE_SCALE.minimum:g}-{PAGE_SCALE.maximum:g}). "
        f"The image never passes {PAGE_WIDTH.maximum} px on its long side whatever the scale.",
        json_schema_extra={"minimum": PAGE_SCALE.minimum, "maximum": PAGE_SCALE.maximum},
    ),
]
MaxWidth = Annotated[
    int,
    Field(
        description=f"Widest image wanted, in pixels ({PAGE_WIDTH.minimum}-{PAGE_WIDTH.maximum}).",
        json_schema_extra={"minimum": PAGE_WIDTH.minimum, "maximum": PAGE_WIDTH.maximum},
    ),
]


def caption(got: PageImage) -> str:
    """The line sent beside the image: which page of which file, its size, where cached."""
    size = f"{got['width']} x {got['height']} px PNG, {len(got['png']) / 1024:.0f} KB"
    origin = "from the cache" if got["cached"] else "drawn now"
    return (
        f"{got['displayPath']} p. {got['page']} of {got['pageCount']} ({size}, {origin}; "
        f"resource {page_uri(got['displayPath'], got['page'])})"
    )


def page_uri(display_path: str, page: int | str) -> str:
    """The resource URI of a page (the displayPath percent-encoded where it must be)."""
    from urllib.parse import quote

    return f"minirag-page://{quote(display_path, safe='/')}/{page}.png"


def register_pages(mcp: FastMCP, index: Index) -> None:
    """Add the ``read_page_image`` tool and the page-image resource template to ``mcp``."""

    async def read_page_image(
        page: PageNumber,
        filePath: FilePath = None,
        source: Source = None,
        scale: Scale = PAGE_SCALE.default,
        maxWidth: MaxWidth = PAGE_WIDTH.default,
    ) -> ToolResult:
        got = await call_store(
            lambda: index.page_image(
                source, page, file_path=filePath, scale=scale, max_width=maxWidth
            )
        )
        image = Image(data=got["png"], format="png").to_image_content()
        return ToolResult(content=[TextContent(type="text", text=caption(got)), image])

    tool = Tool.from_function(
        read_page_image,
        name="read_page_image",
        title=TITLES["read_page_image"],
        description=DESCRIPTIONS["read_page_image"],
        annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False),
    )
    mcp.add_tool(listed(tool))

    @mcp.resource(
        PAGE_URI,
        name="pdf-page-image",
        title="A PDF page as an image",
        description="One page of an indexed PDF as a PNG (at most 1,600 px on its long side "
        "and 1.5 MB): path is the file's displayPath, page is 1-based.",
        mime_type="image/png",
    )
    async def page_image(path: str, page: str) -> bytes:
        uri = page_uri(path, page)

        def draw() -> bytes:
            if not page.isdigit():
                raise InvalidArgumentError(
                    f"page must be a whole number from {FIRST_PAGE}, got {page!r}"
                )
            return index.page_image(path, int(page))["png"]

        return await read_store(draw, uri)
