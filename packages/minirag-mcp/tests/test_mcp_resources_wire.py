"""Resources over the real transports, the installed console script on 2,500 indexed
documents: ``resources/list`` in pages with cursors over stdio and HTTP, a read-only HTTP
token reading documents, completion and prompts over the wire, and a raw URI that steps
out of the root (sent as written, which the SDK client would normalise first)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from mcp_testlib import HttpServer, RawServer, child_env, console_script
from minirag_mcp.resources import PAGE_SIZE
from minirag_store import Index

DOCUMENTS = 2500
READ = "read-" + secrets.token_urlsafe(24)
FULL = "full-" + secrets.token_urlsafe(24)


@pytest.fixture(scope="module")
def env(tmp_path_factory, model_env) -> dict[str, str]:
    """An index of 2,500 small notes (synced once for the module, ~30 s) and a secret
    file beside the root."""
    base = tmp_path_factory.mktemp("many")
    root = base / "docs"
    for n in range(DOCUMENTS):
        path = root / f"shelf {n // 100:02d}" / f"note {n:04d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# Note {n}\n\nParcel {n} waits in bay {n % 37}.\n", "utf-8")
    (base / "secret.md").write_text("# Secret\n\nThe vault code is 7719.\n", "utf-8")
    env = {**model_env, "BASE_DIR": str(root), "DB_PATH": str(base / "index")}
    index = Index.open(env)
    assert index.sync()["counts"]["ingested"] == DOCUMENTS
    index.close()
    return env


async def _list_in_pages(client: Client) -> tuple[list[str], list[int]]:
    """Every URI, following nextCursor page by page; and each page's length."""
    uris: list[str] = []
    sizes: list[int] = []
    cursor = None
    while True:
        page = await client.list_resources_mcp(cursor=cursor)
        uris += [str(r.uri) for r in page.resources]
        sizes.append(len(page.resources))
        cursor = page.next_cursor
        if cursor is None:
            return uris, sizes


def _check_pages(uris: list[str], sizes: list[int]) -> None:
    assert len(uris) == DOCUMENTS == len(set(uris))
    assert sizes == [PAGE_SIZE] * (DOCUMENTS // PAGE_SIZE)
    assert "minirag://file/shelf%2024/note%202499.md" in uris


@pytest.mark.anyio
async def test_stdio_lists_2500_documents_in_pages_and_reads_one(env):
    transport = StdioTransport(console_script(), [], env=child_env(env))
    async with Client(transport) as client:
        uris, sizes = await _list_in_pages(client)
        _check_pages(uris, sizes)
        (content,) = await client.read_resource("minirag://file/shelf%2012/note%201234.md")
        assert "Parcel 1234 waits in bay 13." in content.text
        ref = {"type": "ref/resource", "uri": "minirag://file/{path*}"}
        done = await client.complete(ref, {"name": "path", "value": "shelf 07/note 071"})
        assert done.values == [f"shelf 07/note 071{n}.md" for n in range(10)]


def test_a_raw_uri_stepping_out_of_the_root_is_not_found(env):
    server = RawServer(env)
    try:
        server.initialize()
        for n, uri in enumerate(
            ["minirag://file/shelf%2000/../../secret.md", "minirag://file/%2E%2E/secret.md"], 1
        ):
            response, _ = server.request(n, "resources/read", {"uri": uri})
            assert response["error"]["code"] == -32002, response
            assert "7719" not in str(response) and "Traceback" not in str(response)
    finally:
        stderr = server.close()
    assert "Traceback" not in stderr


@pytest.fixture(scope="module")
def http_server(env, tmp_path_factory) -> Iterator[HttpServer]:
    log = Path(tmp_path_factory.mktemp("http")) / "server.log"
    with HttpServer({**env, "RAG_HTTP_TOKENS": FULL, "RAG_HTTP_READ_TOKENS": READ}, log) as server:
        yield server


@pytest.mark.anyio
async def test_a_read_only_http_token_lists_reads_and_prompts(http_server):
    async with Client(http_server.url, auth=READ) as client:
        uris, sizes = await _list_in_pages(client)
        _check_pages(uris, sizes)
        (content,) = await client.read_resource("minirag://file/shelf%2000/note%200042.md")
        assert "Parcel 42 waits in bay 5." in content.text
        prompt = await client.get_prompt("answer", {"question": "Where is parcel 42?"})
        assert "Where is parcel 42?" in prompt.messages[0].content.text
