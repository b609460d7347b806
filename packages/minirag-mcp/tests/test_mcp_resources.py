"""Indexed documents as MCP resources, in memory (fastmcp's Client(server)) on real files,
a real index and the offline model: listing, reading (whole, a page, read on past the
budget), path completion, and every URI that names nothing (-32002)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fastmcp import Client
from mcp.shared.exceptions import MCPError
from mcp_testlib import CORPUS
from minirag_mcp.server import create_server
from minirag_store import Index
from minirag_testkit.documents import field_manual
from minirag_testkit.pdfs import AUDIT_PAGES, ON_PAGE, table_pdf

pytestmark = pytest.mark.anyio

NOT_FOUND = -32002
#: The smallest budget a read may have: the manual below needs several reads.
BUDGET = 1000


@pytest.fixture
async def env(corpus_env, tmp_path):
    root = Path(corpus_env["BASE_DIR"])
    (root / "audit.pdf").write_bytes(table_pdf(AUDIT_PAGES))
    (root / "manual.md").write_text(field_manual(40), encoding="utf-8")
    (tmp_path / "outside.md").write_text("# Outside\n\nThe vault code is 7719.\n", "utf-8")
    index = Index.open(corpus_env)
    assert index.sync()["state"] == "succeeded"
    index.ingest_data("Standup: the release moves to May.", "notes/standup", "text")
    index.close()
    return {**corpus_env, "RAG_MAX_RESPONSE_TOKENS": str(BUDGET)}


@pytest.fixture
async def client(env):
    index = Index.open(env)
    async with Client(create_server(index)) as connected:
        yield connected
    index.close()


async def _not_found(client: Client, uri: str) -> str:
    with pytest.raises(MCPError) as caught:
        await client.read_resource(uri)
    assert caught.value.error.code == NOT_FOUND, caught.value.error
    assert "Traceback" not in caught.value.error.message
    return caught.value.error.message


async def test_every_document_is_listed_with_its_name_and_title_and_no_file_size(client, env):
    listed = {str(r.uri): r for r in await client.list_resources()}
    files = [*CORPUS, "audit.pdf", "manual.md"]
    assert set(listed) == {f"minirag://file/{p}" for p in files} | {"minirag://data/notes/standup"}
    cooling = listed["minirag://file/specs/cooling.md"]
    assert cooling.name == "specs/cooling.md" and cooling.title == "Cooling system"
    assert cooling.mime_type == "text/markdown"
    # A size is the size of what a read returns; the original file's bytes (a PDF's
    # 282,554 under text/markdown) are not, and the markdown's depends on the budget.
    assert all(r.size is None for r in listed.values())
    templates = {t.uri_template for t in await client.list_resource_templates()}
    assert "minirag://file/{path*}{?page}" in templates


async def test_a_document_reads_whole_and_a_page_reads_alone(client):
    (whole,) = await client.read_resource("minirag://file/specs/cooling.md")
    assert whole.mime_type == "text/markdown"
    assert "Pump maintenance" in whole.text and "2400 rpm" in whole.text
    (page,) = await client.read_resource("minirag://file/audit.pdf?page=3")
    assert ON_PAGE[3] in page.text and ON_PAGE[1] not in page.text  # page 3 and no further
    (data,) = await client.read_resource("minirag://data/notes/standup")
    assert "release moves to May" in data.text


async def test_a_long_document_says_where_it_stopped_and_reads_on(client, token_counter):
    uri, texts, seen = "minirag://file/manual.md", [], set()
    while uri:
        assert uri not in seen
        seen.add(uri)
        (content,) = await client.read_resource(uri)
        assert token_counter(content.text) <= BUDGET
        texts.append(content.text)
        meta = (content.meta or {})["minirag"]
        uri = meta.get("next")
        if uri:
            assert f"?fromChunk={meta['nextChunk']}" in uri and uri in content.text
            assert "RAG_MAX_RESPONSE_TOKENS" in content.text
    assert len(texts) > 2
    last = texts[-1]
    assert "Read on" not in last and "fromChunk" not in last


async def test_a_path_completes_from_the_index(client):
    ref = {"type": "ref/resource", "uri": "minirag://file/{path*}{?page}"}
    done = await client.complete(ref, {"name": "path", "value": "sp"})
    assert done.values == ["specs/cooling.md"]
    everything = await client.complete(ref, {"name": "path", "value": ""})
    assert "audit.pdf" in everything.values and "notes/standup" not in everything.values


async def test_what_names_nothing_is_resource_not_found(client, env, tmp_path):
    root = Path(env["BASE_DIR"])
    assert "no such file" in await _not_found(client, "minirag://file/specs/nothing.md")
    await _not_found(client, "minirag://file/specs")  # a folder is no document
    await _not_found(client, "minirag://elsewhere/specs/cooling.md")
    await _not_found(client, "https://example.com/specs/cooling.md")
    await _not_found(client, "minirag://data/specs/cooling.md")  # a file is no data source
    await _not_found(client, "minirag://file/specs/cooling.md?chunk=2")
    assert "does not exist" in await _not_found(client, "minirag://file/audit.pdf?page=9")

    # Outside the root: an absolute path, a link out of it, a file not indexed there.
    await _not_found(client, f"minirag://file/{tmp_path}/outside.md")
    (root / "link.md").symlink_to(tmp_path / "outside.md")
    assert "outside the document roots" in await _not_found(client, "minirag://file/link.md")

    # Deleted on disk but still in the index (no watcher here): gone for a reader.
    (root / "notes" / "lunch.txt").unlink()
    await _not_found(client, "minirag://file/notes/lunch.txt")


async def test_a_page_number_the_store_refuses_is_invalid_params(client):
    with pytest.raises(MCPError) as caught:
        await client.read_resource("minirag://file/audit.pdf?page=1&slide=1")
    assert caught.value.error.code == -32602


async def test_deleted_files_and_links_out_of_the_roots_are_not_listed(env, tmp_path):
    root = Path(env["BASE_DIR"])
    (root / "notes" / "lunch.txt").unlink()
    travel = root / "policies" / "travel.md"
    os.replace(travel, tmp_path / "travel.md")
    travel.symlink_to(tmp_path / "travel.md")  # indexed as a file, now a link out
    index = Index.open(env)
    async with Client(create_server(index)) as client:
        listed = {str(r.uri) for r in await client.list_resources()}
        await _not_found(client, "minirag://file/policies/travel.md")
    index.close()
    assert "minirag://file/specs/cooling.md" in listed
    assert "minirag://file/notes/lunch.txt" not in listed
    assert "minirag://file/policies/travel.md" not in listed


async def test_a_path_indexed_under_two_roots_names_its_root(tmp_path, model_env):
    roots = [tmp_path / "a", tmp_path / "b"]
    for n, root in enumerate(roots):
        (root / "plans").mkdir(parents=True)
        (root / "plans" / "q3.md").write_text(f"# Plan\n\nRoot {n} ships in week {n + 7}.\n")
    env = {**model_env, "BASE_DIRS": f'["{roots[0]}", "{roots[1]}"]'}
    env["DB_PATH"] = str(tmp_path / "index")
    index = Index.open(env)
    assert index.sync()["state"] == "succeeded"
    async with Client(create_server(index)) as client:
        listed = sorted(str(r.uri) for r in await client.list_resources())
        assert listed == [f"minirag://file/plans/q3.md?root=%2F{str(r)[1:].replace('/', '%2F')}"
                          for r in roots]  # fmt: skip
        for n, uri in enumerate(listed):
            (content,) = await client.read_resource(uri)
            assert f"week {n + 7}" in content.text
        with pytest.raises(MCPError) as caught:
            await client.read_resource("minirag://file/plans/q3.md")
    index.close()
    assert caught.value.error.code == -32602
    assert all(uri in caught.value.error.message for uri in listed)
