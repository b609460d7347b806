"""``read_page_image`` and the page-image resource through real clients: in memory, over
stdio (the console script) and over HTTP with a read-only token.

The PNGs are decoded with Pillow; the cache is observed on disk (one file, its mtime
unchanged by the second read), never through timings.
"""

from __future__ import annotations

import base64
import io
import re
import secrets
from pathlib import Path

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from mcp import MCPError
from mcp_testlib import HttpServer, child_env, console_script, wait_for_job, write_corpus
from minirag_mcp.bridge import RESOURCE_NOT_FOUND
from minirag_mcp.server import create_server
from minirag_store import Index
from minirag_store.config import load_config
from minirag_store.pages import cache_folder
from minirag_testkit.pdfs import AUDIT_PAGES, drawn_pdf, table_pdf
from PIL import Image

pytestmark = pytest.mark.anyio

CAPTION = re.compile(
    r"^audit\.pdf p\. (\d+) of 3 \((\d+) x (\d+) px PNG, \d+ KB, (drawn now|from the cache); "
    r"resource minirag-page://audit\.pdf/\d+\.png\)$"
)


@pytest.fixture
def pdf_env(corpus_env: dict[str, str]) -> dict[str, str]:
    """The corpus plus a three-page letter-size PDF, ``audit.pdf``, at the root."""
    (Path(corpus_env["BASE_DIR"]) / "audit.pdf").write_bytes(table_pdf(AUDIT_PAGES))
    return corpus_env


async def _synced(client: Client) -> None:
    started = (await client.call_tool("sync_start", {})).structured_content
    assert started is not None
    job = await wait_for_job(client, started["jobId"])
    assert job["state"] == "succeeded" and job["counts"]["failed"] == 0, job


def _image(result) -> tuple[str, Image.Image]:
    """(the caption, the decoded PNG) of a read_page_image result."""
    text, picture = result.content
    assert (text.type, picture.type, picture.mime_type) == ("text", "image", "image/png")
    image = Image.open(io.BytesIO(base64.b64decode(picture.data)))
    image.load()
    return text.text, image


async def test_the_tool_returns_the_page_and_then_serves_it_from_the_cache(pdf_env):
    index = Index.open(pdf_env)
    async with Client(create_server(index)) as client:
        await _synced(client)
        caption, image = _image(
            await client.call_tool("read_page_image", {"source": "audit.pdf", "page": 2})
        )
        page, width, height, origin = CAPTION.match(caption).groups()  # type: ignore[union-attr]
        assert (page, origin) == ("2", "drawn now")
        assert image.format == "PNG" and image.size == (int(width), int(height)) == (1224, 1584)
        [cached] = cache_folder(load_config(pdf_env)).iterdir()
        written = cached.stat().st_mtime_ns
        again = await client.call_tool(
            "read_page_image", {"filePath": f"{pdf_env['BASE_DIR']}/audit.pdf", "page": 2}
        )
        caption, same = _image(again)
        assert CAPTION.match(caption).group(4) == "from the cache"  # type: ignore[union-attr]
        assert same.tobytes() == image.tobytes()
        assert cached.stat().st_mtime_ns == written and len(list(cached.parent.iterdir())) == 1
        small = await client.call_tool(
            "read_page_image", {"source": "audit.pdf", "page": 1, "maxWidth": 300}
        )
        assert _image(small)[1].size[0] <= 300
    index.close()


async def test_bad_input_is_a_tool_error_with_the_store_message(pdf_env, tmp_path: Path):
    outside = tmp_path / "outside.pdf"
    outside.write_bytes(drawn_pdf(1))
    index = Index.open(pdf_env)
    async with Client(create_server(index)) as client:
        await _synced(client)
        cases = {
            "audit.pdf has 3 pages (1..3); page 9 does not exist": {
                "source": "audit.pdf",
                "page": 9,
            },
            "cooling.md is not a PDF": {"source": "specs/cooling.md", "page": 1},
            "Path outside configured document roots": {"filePath": str(outside), "page": 1},
            "/missing.pdf'; list_files shows what is indexed": {"source": "missing.pdf", "page": 1},
            "page must be at least 1, got 0": {"source": "audit.pdf", "page": 0},
            "scale must be at least 0.1": {"source": "audit.pdf", "page": 1, "scale": 0.01},
        }
        for expected, args in cases.items():
            refused = await client.call_tool("read_page_image", args, raise_on_error=False)
            assert refused.is_error, args
            assert expected in refused.content[0].text, refused.content[0].text  # type: ignore[union-attr]
    index.close()


async def test_the_page_is_also_a_resource(pdf_env):
    index = Index.open(pdf_env)
    async with Client(create_server(index)) as client:
        await _synced(client)
        templates = await client.list_resource_templates()
        [template] = [t for t in templates if t.uri_template.startswith("minirag-page:")]
        assert (template.uri_template, template.mime_type) == (
            "minirag-page://{path*}/{page}.png",
            "image/png",
        )
        [contents] = await client.read_resource("minirag-page://audit.pdf/3.png")
        assert contents.mime_type == "image/png"
        image = Image.open(io.BytesIO(base64.b64decode(contents.blob)))  # type: ignore[union-attr]
        assert image.format == "PNG" and image.size == (1224, 1584)
        for uri, code, said in [
            ("minirag-page://audit.pdf/4.png", RESOURCE_NOT_FOUND, "has 3 pages"),
            ("minirag-page://nothing/here.pdf/1.png", RESOURCE_NOT_FOUND, "No indexed source"),
            ("minirag-page://audit.pdf/first.png", -32602, "page must be a whole number"),
            ("minirag-page://specs/cooling.md/1.png", -32602, "is not a PDF"),
        ]:
            with pytest.raises(MCPError) as refused:
                await client.read_resource(uri)
            assert refused.value.error.code == code and said in refused.value.error.message, uri
    index.close()


async def test_over_stdio_through_the_console_script(pdf_env):
    transport = StdioTransport(console_script(), [], env=child_env(pdf_env))
    async with Client(transport) as client:
        await _synced(client)
        caption, image = _image(
            await client.call_tool("read_page_image", {"source": "audit.pdf", "page": 1})
        )
        assert CAPTION.match(caption) and image.size == (1224, 1584)
        [contents] = await client.read_resource("minirag-page://audit.pdf/1.png")
        assert base64.b64decode(contents.blob)[:8] == b"\x89PNG\r\n\x1a\n"  # type: ignore[union-attr]
        caption, _ = _image(
            await client.call_tool("read_page_image", {"source": "audit.pdf", "page": 1})
        )
        assert caption.endswith("from the cache; resource minirag-page://audit.pdf/1.png)")


async def test_a_read_only_token_can_look_at_pages_over_http(tmp_path: Path, model_env):
    full, read = "full-" + secrets.token_urlsafe(16), "read-" + secrets.token_urlsafe(16)
    root = write_corpus(tmp_path / "docs")
    (root / "audit.pdf").write_bytes(table_pdf(AUDIT_PAGES))
    env = {**model_env, "BASE_DIR": str(root), "DB_PATH": str(tmp_path / "index")}
    env |= {"RAG_HTTP_TOKENS": full, "RAG_HTTP_READ_TOKENS": read}
    with HttpServer(env, tmp_path / "server.log") as server:
        async with Client(server.url, auth=full) as client:
            await _synced(client)
        async with Client(server.url, auth=read) as client:
            caption, image = _image(
                await client.call_tool("read_page_image", {"source": "audit.pdf", "page": 3})
            )
            assert CAPTION.match(caption) and image.size == (1224, 1584)
            [contents] = await client.read_resource("minirag-page://audit.pdf/3.png")
            assert contents.mime_type == "image/png"
            refused = await client.call_tool("sync_start", {}, raise_on_error=False)
            assert refused.is_error and "read access only" in refused.content[0].text  # type: ignore[union-attr]
