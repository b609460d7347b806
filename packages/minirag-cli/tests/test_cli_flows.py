"""Every subcommand through typer's runner against a real index (real LanceDB, real
markitdown, the offline model): its ``--json`` equals what the store's Index returns for
the same index, its human output reads right, relative paths resolve against the cwd (or,
from outside the roots, against the root they are shown relative to)."""

from __future__ import annotations

import http.server
import json
import threading
from pathlib import Path

import pytest
from minirag_store import Index
from minirag_store.results import JobStatus
from minirag_testkit.answers import hit_sources


def _index(env: dict[str, str], root: Path, db: Path) -> Index:
    return Index.open(env, base_dirs=[str(root)], db_path=str(db))


@pytest.fixture
def same_index(built, cli_env):
    """The store's own view of the CLI-built index, for side-by-side comparison."""
    index = _index(cli_env, built["root"], built["db"])
    yield index
    index.close()


# ---------------------------------------------------------------- read-only, shared index
def test_query_json_is_the_index_result(invoke, built, same_index):
    ran = invoke("query", "connection timeout error", "--top-k", "5", "--json", *built["flags"])
    assert ran.code == 0, ran.stderr
    assert ran.json() == same_index.query("connection timeout error", top_k=5)
    assert hit_sources(ran.json())[0] == str(built["files"]["timeouts"])


def test_query_human_output_ranks_and_lists_sources(invoke, built):
    ran = invoke("query", "connection timeout error", *built["flags"])
    assert ran.code == 0, ran.stderr
    lines = ran.stdout.splitlines()
    assert lines[0].startswith("1. notes/timeouts.md")
    assert "Connection timeouts" in lines[0] and "score" in lines[0]
    assert "raises a connection timeout error" in ran.stdout
    sources = lines[lines.index("Sources:") + 1 :]
    assert sources[0].split()[0] == "notes/timeouts.md"
    assert "\x1b" not in ran.stdout


def test_query_scope_relative_to_cwd(invoke, built, same_index, monkeypatch):
    monkeypatch.chdir(built["root"])
    ran = invoke("query", "eggs and flour", "--scope", "recipes", "--json", *built["flags"])
    assert ran.code == 0, ran.stderr
    result = ran.json()
    assert set(hit_sources(result)) == {str(built["files"]["pancakes"])}
    assert result == same_index.query("eggs and flour", scope=[str(built["root"] / "recipes")])


def test_query_top_k_zero_is_refused(invoke, built):
    ran = invoke("query", "eggs", "--top-k", "0", *built["flags"])
    assert ran.code == 1 and ran.stderr.startswith("error: ") and "top" in ran.stderr.lower()


def test_read_neighbors_by_relative_file_path(invoke, built, same_index, monkeypatch):
    monkeypatch.chdir(built["root"])
    args = ["read-neighbors", "--file-path", "guide.md", "--chunk-index", "2"]
    ran = invoke(*args, "--before", "1", "--after", "1", "--json", *built["flags"])
    assert ran.code == 0, ran.stderr
    result = ran.json()
    assert result == same_index.read_chunk_neighbors(str(built["files"]["guide"]), 2, 1, 1)
    assert [c["chunkIndex"] for c in result["chunks"]] == [1, 2, 3]
    human = invoke(*args, *built["flags"])
    assert [line for line in human.stdout.splitlines() if line.startswith("── chunk")] == [
        f"── chunk {c['chunkIndex']} · {c['title']}"
        for c in same_index.read_chunk_neighbors(str(built["files"]["guide"]), 2, 1, 1)["chunks"]
    ]


def test_read_relative_path_prints_the_markdown(invoke, built, same_index, monkeypatch):
    monkeypatch.chdir(built["root"] / "notes")
    ran = invoke("read", "timeouts.md", *built["flags"])
    assert ran.code == 0, ran.stderr
    expected = same_index.read_file(str(built["files"]["timeouts"]))
    assert ran.stdout == expected["text"] + "\n"
    assert "raises a connection timeout error" in ran.stdout
    assert invoke("read", "timeouts.md", "--json", *built["flags"]).json() == expected


def test_paths_as_shown_work_from_another_folder(invoke, built, same_index, tmp_path, monkeypatch):
    """``query`` and ``list`` show a file's path relative to its root; typed back from a
    folder outside the roots, that path reads, scopes and finds neighbours the same."""
    monkeypatch.chdir(tmp_path)
    shown = invoke("list", *built["flags"]).stdout
    assert " notes/timeouts.md " in shown
    read = invoke("read", "notes/timeouts.md", "--json", *built["flags"])
    assert read.code == 0, read.stderr
    assert read.json() == same_index.read_file(str(built["files"]["timeouts"]))
    args = ["--file-path", "guide.md", "--chunk-index", "2", "--before", "1", "--after", "1"]
    near = invoke("read-neighbors", *args, "--json", *built["flags"])
    assert near.code == 0, near.stderr
    assert near.json() == same_index.read_chunk_neighbors(str(built["files"]["guide"]), 2, 1, 1)
    scoped = invoke("query", "eggs and flour", "--scope", "recipes", "--json", *built["flags"])
    assert set(hit_sources(scoped.json())) == {str(built["files"]["pancakes"])}
    listed = invoke("list", "--scope", "notes", "--json", *built["flags"])
    assert [row["displayPath"] for row in listed.json()["files"]] == ["notes/timeouts.md"]
    # a path under no root from here nor there is still refused, naming the roots' file
    missing = invoke("read", "notes/nothing-here.md", *built["flags"])
    assert missing.code == 1 and "nothing-here.md" in missing.stderr


def test_read_unknown_source_fails(invoke, built):
    ran = invoke("read", "--source", "never-ingested", *built["flags"])
    assert ran.code == 1 and ran.stderr.startswith("error: ") and "never-ingested" in ran.stderr


def test_list_json_and_table(invoke, built, same_index):
    ran = invoke("list", "--json", *built["flags"])
    assert ran.code == 0, ran.stderr
    assert ran.json() == same_index.list_files()
    table = invoke("list", *built["flags"])
    rows = {line.split()[2]: line.split()[:2] for line in table.stdout.splitlines()[2:-1]}
    assert rows["notes/timeouts.md"][0] == "ingested"
    assert set(rows) == {"guide.md", "notes/timeouts.md", "recipes/pancakes.md"}
    assert table.stdout.splitlines()[-1] == "3 entries: 3 ingested"


def test_list_scope(invoke, built, monkeypatch):
    monkeypatch.chdir(built["root"])
    ran = invoke("list", "--scope", "notes", "--json", *built["flags"])
    assert [row["displayPath"] for row in ran.json()["files"]] == ["notes/timeouts.md"]


def test_status_json_and_table(invoke, built, same_index):
    ran = invoke("status", "--json", *built["flags"])
    assert ran.code == 0, ran.stderr
    assert ran.json() == same_index.status()
    assert ran.json()["sourceCount"] == 3
    table = invoke("status", *built["flags"]).stdout
    assert f"index folder           {built['db']}" in table
    assert any(line.split() == ["sources", "3"] for line in table.splitlines())


def test_json_equals_the_mcp_tools_on_the_same_index(invoke, built, same_index):
    pytest.importorskip("minirag_mcp")
    import anyio
    from fastmcp import Client
    from minirag_mcp.server import create_server

    guide = str(built["files"]["guide"])
    pairs = {
        "query_documents": (
            {"query": "connection timeout error", "topK": 5},
            ["query", "connection timeout error", "--top-k", "5"],
        ),
        "read_chunk_neighbors": (
            {"filePath": guide, "chunkIndex": 2},
            ["read-neighbors", "--file-path", guide, "--chunk-index", "2"],
        ),
        "read_file": ({"filePath": guide}, ["read", guide]),
        "list_files": ({}, ["list"]),
        "status": ({}, ["status"]),
    }

    async def call_tools() -> dict[str, dict]:
        out = {}
        async with Client(create_server(same_index)) as client:
            for tool, (args, _) in pairs.items():
                result = await client.call_tool(tool, args)
                out[tool] = json.loads(json.dumps(result.structured_content))
        return out

    from_mcp = anyio.run(call_tools)
    for tool, (_, cli_args) in pairs.items():
        ran = invoke(*cli_args, "--json", *built["flags"])
        assert ran.code == 0, ran.stderr
        got, want = ran.json(), from_mcp[tool]
        if tool == "status":  # the server's own fields: the CLI serves nothing, so null
            for key in ("transport", "bindAddress", "authMode", "instructionsTruncated"):
                assert got.pop(key) is None, key
                want.pop(key)
        assert got == want, tool


# ------------------------------------------------------------- mutating, one index per test
@pytest.fixture
def fresh(tmp_path, monkeypatch, corpus):
    """A corpus in its own folder, made the cwd (so it is the default root)."""
    root = tmp_path / "docs"
    files = corpus(root)
    monkeypatch.chdir(root)
    return {"root": root, "files": files, "db": ["--db-path", str(tmp_path / "index")]}


def test_ingest_relative_path_with_cwd_as_root(invoke, fresh, cli_env):
    ran = invoke("ingest", "notes", "--json", "--progress-every", "0", *fresh["db"])
    assert ran.code == 0, ran.stderr
    job = ran.json()
    # errorsOmitted only when errors overflow; files and slowest once the job finished
    assert set(job) == JobStatus.__required_keys__ | {"files", "slowest"}
    assert job["state"] == "succeeded" and job["errors"] == []
    assert job["counts"]["ingested"] == 1 and job["counts"]["failed"] == 0
    assert ran.stderr == ""  # not a terminal: no bar, and progress lines turned off
    index = Index.open(cli_env, db_path=fresh["db"][1], cwd=fresh["root"])
    states = {row["displayPath"]: row["state"] for row in index.list_files()["files"]}
    index.close()
    assert states == {
        "notes/timeouts.md": "ingested",
        "recipes/pancakes.md": "not_ingested",
        "guide.md": "not_ingested",
    }


def test_list_scan_warnings_are_warn_lines_in_both_modes(invoke, fresh):
    (fresh["root"] / "gone.md").symlink_to(fresh["root"] / "nowhere.md")
    human = invoke("list", *fresh["db"])
    as_json = invoke("list", "--json", *fresh["db"])
    assert human.code == 0 and as_json.code == 0
    for ran in (human, as_json):
        assert ran.stderr.startswith("warn: Dangling symlink") and "gone.md" in ran.stderr
    assert as_json.json()["warnings"] == [human.stderr.removeprefix("warn: ").rstrip("\n")]


def test_sync_reconciles_and_reports_counts(invoke, fresh):
    assert invoke("ingest", "notes", *fresh["db"]).code == 0
    first = invoke("sync", *fresh["db"])
    assert first.code == 0, first.stderr
    assert first.stdout.startswith("sync done: scanned 3, ingested 2, skipped 1, deleted 0")
    fresh["files"]["pancakes"].unlink()
    second = invoke("sync", "recipes", "--json", *fresh["db"])  # a relative sub-path
    assert second.code == 0, second.stderr
    assert second.json()["counts"]["deleted"] == 1
    assert second.json()["counts"]["ingested"] == 0


def test_delete_relative_path_then_read_fails(invoke, fresh):
    assert invoke("ingest", ".", *fresh["db"]).code == 0
    ran = invoke("delete", "notes/timeouts.md", "--json", *fresh["db"])
    assert ran.code == 0, ran.stderr
    result = ran.json()
    assert result["source"] == str(fresh["files"]["timeouts"]) and result["deletedChunks"] >= 1
    assert fresh["files"]["timeouts"].exists()
    human = invoke("delete", "recipes/pancakes.md", *fresh["db"])
    assert human.stdout.startswith(f"deleted {fresh['files']['pancakes']} from the index (1 chunk")
    gone = invoke("read", "notes/timeouts.md", *fresh["db"])
    assert gone.code == 1 and gone.stderr.startswith("error: ")


def test_ingest_per_file_failure_fails_the_run(invoke, fresh):
    bad = fresh["root"] / "broken.pdf"
    bad.write_bytes(b"%PDF-1.7\nthis is not really a pdf\n")
    ran = invoke("ingest", ".", *fresh["db"])
    assert ran.code == 1
    assert ran.stdout.startswith("ingest failed: scanned 4, ingested 3")
    assert ran.stdout.splitlines()[0].endswith("failed 1, unsupported 0")
    warn, error = ran.stderr.splitlines()
    assert warn.startswith(f"warn: {bad}: ")
    assert error == "error: 1 file could not be ingested (see errors)"
    as_json = invoke("ingest", ".", "--json", *fresh["db"])
    assert as_json.code == 1
    assert as_json.json()["counts"]["failed"] == 1
    assert as_json.json()["errors"][0]["source"] == str(bad)


def test_ingest_lists_the_first_errors_and_counts_the_rest(invoke, fresh, monkeypatch):
    import minirag_store.ingest.jobs

    monkeypatch.setattr(minirag_store.ingest.jobs, "MAX_ERRORS", 1)
    for name in ("broken-1.pdf", "broken-2.pdf"):
        (fresh["root"] / name).write_bytes(b"%PDF-1.7\nthis is not really a pdf\n")
    ran = invoke("ingest", ".", *fresh["db"])
    assert ran.code == 1
    warns = [line for line in ran.stderr.splitlines() if line.startswith("warn: ")]
    assert len(warns) == 2 and "broken-" in warns[0]
    assert warns[1] == "warn: ... and 1 more (`minirag-cli list` shows every file's state)"
    assert ran.stderr.splitlines()[-1] == "error: 2 files could not be ingested (see errors)"


@pytest.mark.parametrize("path", ["missing.md", "/etc/hostname"])
def test_ingest_bad_path_fails_before_any_work(invoke, fresh, path):
    ran = invoke("ingest", "notes", path, *fresh["db"])
    assert ran.code == 1
    assert ran.stderr.startswith("error: ") and Path(path).name in ran.stderr
    assert ran.stdout == ""


class _Page(http.server.BaseHTTPRequestHandler):
    body = (
        b"<html><head><title>Release notes 2.0</title></head><body><h1>Release notes</h1>"
        b"<p>Version 2.0 adds resumable uploads and drops the legacy XML export.</p></body></html>"
    )

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args):
        pass


@pytest.fixture
def page_url():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/notes.html"
    server.shutdown()


def test_ingest_url_read_and_delete_by_source(invoke, fresh, page_url):
    refused = invoke("ingest-url", page_url, *fresh["db"])
    assert refused.code == 1 and refused.stderr.startswith("error: ")
    allow = {"ALLOW_PRIVATE_URLS": "1"}
    ran = invoke(
        "ingest-url", page_url, "--source", "release-notes", "--json", *fresh["db"], env=allow
    )
    assert ran.code == 0, ran.stderr
    result = ran.json()
    assert result["source"] == "release-notes" and result["sourceType"] == "url"
    assert result["chunkCount"] >= 1
    read = invoke("read", "--source", "release-notes", *fresh["db"])
    assert "resumable uploads" in read.stdout
    listed = invoke("list", *fresh["db"]).stdout
    assert "release-notes (url)" in listed
    gone = invoke("delete", "--source", "release-notes", "--json", *fresh["db"])
    assert gone.json() == {"source": "release-notes", "deletedChunks": result["chunkCount"]}
