"""Every file under a root is accounted for over a real MCP session (fastmcp's
``Client(server)``): unsupported files counted by the sync and listed with their reason,
an empty document skipped (the job succeeds), ignored files only when asked."""

from __future__ import annotations

import pytest
from fastmcp import Client
from mcp_testlib import structured, wait_for_job
from minirag_mcp.server import create_server
from minirag_store import Index
from minirag_testkit.documents import empty_docx

pytestmark = pytest.mark.anyio


async def test_list_files_shows_unsupported_empty_and_ignored_files(corpus_env):
    from pathlib import Path

    root = Path(corpus_env["BASE_DIR"])
    (root / "minutes.rtf").write_text("{\\rtf1 minutes}")
    (root / "audio").mkdir()
    (root / "audio" / "call.m4a").write_bytes(b"\x00\x00\x00\x18ftypM4A ")
    (root / ".miniragignore").write_text("drafts/\n")
    (root / "drafts").mkdir()
    (root / "drafts" / "wip.md").write_text("# Work in progress\n")
    empty = empty_docx(root / "blank.docx")
    index = Index.open(corpus_env)
    try:
        async with Client(create_server(index)) as client:
            started = structured(await client.call_tool("sync_start", {}))
            job = await wait_for_job(client, started["jobId"])
            assert (job["state"], job["error"]) == ("succeeded", None), job
            assert job["counts"]["unsupported"] == 2 and job["counts"]["failed"] == 0
            assert str(empty) in job["files"]["skipped"]
            assert job["slowest"], job  # the files read, with where their time went
            listed = structured(await client.call_tool("list_files", {}))
            rows = {row["displayPath"]: row for row in listed["files"]}
            assert rows["minutes.rtf"]["state"] == "unsupported"
            assert ".rtf" in rows["minutes.rtf"]["reason"]
            assert rows["audio/call.m4a"]["state"] == "unsupported"
            assert rows["blank.docx"]["state"] == "empty"
            assert "drafts" not in rows
            every = structured(
                await client.call_tool("list_files", {"includeIgnored": True, "scope": str(root)})
            )
            rows = {row["displayPath"]: row for row in every["files"]}
            assert rows["drafts"]["state"] == "ignored"
            assert rows["drafts"]["reason"] == f"folder ignored by {root}/.miniragignore:1: drafts/"
    finally:
        index.close()
