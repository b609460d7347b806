"""A new user's first hour, through the installed ``minirag-cli`` as a real subprocess from
several working folders: the index is found (inside a root, in a subfolder, outside every
root through the record of synced indexes, outside with none), no read creates an index
or a folder, and one path form (absolute, displayPath, relative to the working folder)
works for documents and scopes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


@pytest.fixture
def home(tmp_path: Path, run_cli, corpus) -> dict:
    """``~/docs`` synced from ``~`` with --base-dir, as README's set-up line does it; the
    user's data folder (the record of synced indexes) is this test's own."""
    user = tmp_path / "home"
    root = user / "docs"
    files = corpus(root)
    data = tmp_path / "user-data"
    env = {"XDG_DATA_HOME": str(data)}
    ran = run_cli("sync", "--base-dir", "docs", cwd=user, env=env)
    assert ran.code == 0, ran.stderr
    return {"home": user, "root": root, "files": files, "env": env, "data": data}


def _entries(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


def test_a_query_from_home_answers_from_the_index_synced_there(run_cli, home):
    before = _entries(home["home"])
    ran = run_cli("query", "connection timeout", "--json", cwd=home["home"], env=home["env"])
    assert ran.code == 0, ran.stderr
    answer = ran.json()
    assert answer["sources"][0]["displayPath"] == "notes/timeouts.md"
    assert answer["roots"] == [str(home["root"])]
    # stderr says which index answered, and how to pick another
    assert str(home["root"] / ".minirag" / "lancedb") in ran.stderr
    assert "--base-dir" in ran.stderr and "minirag-cli status" in ran.stderr
    assert _entries(home["home"]) == before  # no .minirag left in the home folder


def test_status_lists_the_synced_indexes_and_says_where_things_came_from(run_cli, home):
    ran = run_cli("status", "--json", cwd=home["home"], env=home["env"])
    assert ran.code == 0, ran.stderr
    status = ran.json()
    index = str(home["root"] / ".minirag" / "lancedb")
    assert [(k["roots"], k["index"]) for k in status["knownIndexes"]] == [
        ([str(home["root"])], index)
    ]
    assert status["roots"] == [str(home["root"])] and status["dbPath"] == index
    assert "record" in status["rootsFrom"] and "record" in status["indexFrom"]
    inside = run_cli("status", "--json", cwd=home["root"] / "notes", env=home["env"]).json()
    assert inside["roots"] == [str(home["root"])]
    assert inside["rootsFrom"].startswith(f"discovered: {home['root']} holds .minirag/")
    assert inside["indexFrom"] == "the root's .minirag/lancedb"
    flagged = run_cli("status", "--json", "--base-dir", str(home["root"]), env=home["env"])
    assert flagged.json()["rootsFrom"] == "--base-dir"
    human = run_cli("status", cwd=home["home"], env=home["env"])
    # the table folds a long path at the terminal's width (the test's tmp paths are long)
    assert f"{home['root']}->{index}" in "".join(human.stdout.split())


def test_from_a_subfolder_every_path_form_reads_the_same_document(run_cli, home):
    notes = home["root"] / "notes"
    want = "connection timeout error"
    for typed in ("notes/timeouts.md", "timeouts.md", str(home["files"]["timeouts"])):
        ran = run_cli("read", typed, cwd=notes, env=home["env"])
        assert ran.code == 0, (typed, ran.stderr)
        assert want in ran.stdout
        assert ran.stderr == ""  # found by walking up: nothing to say
    scoped = run_cli(
        "query", "pancakes", "--scope", "recipes", "--json", cwd=notes, env=home["env"]
    )
    assert scoped.code == 0, scoped.stderr
    assert {s["displayPath"] for s in scoped.json()["sources"]} == {"recipes/pancakes.md"}
    listed = run_cli("list", "--scope", "notes", "--json", cwd=notes, env=home["env"])
    assert [f["displayPath"] for f in listed.json()["files"]] == ["notes/timeouts.md"]
    assert ".minirag" not in _entries(notes)


def test_outside_every_root_with_no_record_a_read_says_what_to_do(run_cli, tmp_path):
    empty = tmp_path / "elsewhere"
    empty.mkdir()
    env = {"XDG_DATA_HOME": str(tmp_path / "fresh-user-data")}
    for args in (["query", "connection timeout"], ["read", "notes/a.md"], ["list"]):
        ran = run_cli(*args, cwd=empty, env=env)
        assert ran.code == 1, (args, ran.stdout)
        assert f"No index found for {empty}" in ran.stderr
        assert "minirag-cli sync --base-dir" in ran.stderr
    status = run_cli("status", "--json", cwd=empty, env=env)
    assert status.code == 0
    assert "No index found" in status.json()["configError"]
    assert status.json()["knownIndexes"] == []
    assert list(empty.iterdir()) == [] and not (tmp_path / "fresh-user-data").exists()


def test_an_empty_index_names_its_path_and_roots_and_is_not_created(run_cli, tmp_path):
    root = tmp_path / "new-docs"
    root.mkdir()
    ran = run_cli("query", "anything", "--json", "--base-dir", str(root))
    assert ran.code == 0, ran.stderr
    notice = ran.json()["notice"]
    assert str(root / ".minirag" / "lancedb") in notice and f"roots: {root}" in notice
    read = run_cli("read", "a.md", "--base-dir", str(root))
    assert read.code == 1 and "is empty" in read.stderr
    run_cli("list", "--base-dir", str(root))
    run_cli("status", "--base-dir", str(root))
    assert list(root.iterdir()) == []  # no read made an index or a folder


def test_a_scope_matching_nothing_says_so(run_cli, home):
    ran = run_cli("list", "--scope", "no-such-folder", "--json", cwd=home["root"], env=home["env"])
    assert ran.code == 0
    assert ran.json()["files"] == []
    assert "no-such-folder" in ran.json()["notice"]
    human = run_cli("list", "--scope", "no-such-folder", cwd=home["root"], env=home["env"])
    assert "warn: Nothing on disk or indexed lies under scope no-such-folder" in human.stderr


def test_a_display_path_under_two_roots_is_an_error_naming_both(run_cli, tmp_path, corpus):
    first, second = tmp_path / "a", tmp_path / "b"
    corpus(first)
    corpus(second)
    flags = ["--base-dir", str(first), "--base-dir", str(second)]
    flags += ["--db-path", str(tmp_path / "index")]
    assert run_cli("sync", *flags).code == 0
    ran = run_cli("read", "notes/timeouts.md", *flags, cwd=tmp_path)
    assert ran.code == 1
    assert str(first / "notes" / "timeouts.md") in ran.stderr
    assert str(second / "notes" / "timeouts.md") in ran.stderr
    scoped = run_cli("query", "timeout", "--scope", "notes", *flags, cwd=tmp_path)
    assert scoped.code == 1 and "several document roots" in scoped.stderr
    # the absolute path picks one
    chosen = run_cli("read", str(second / "notes" / "timeouts.md"), *flags)
    assert chosen.code == 0, chosen.stderr


def test_the_record_is_written_by_a_sync_and_keeps_the_newest_first(run_cli, home, corpus):
    other = home["home"] / "work"
    corpus(other)
    assert run_cli("ingest", ".", cwd=other, env=home["env"]).code == 0
    record = json.loads((home["data"] / "minirag" / "indexes.json").read_text())
    assert [k["roots"] for k in record["indexes"]] == [[str(other)], [str(home["root"])]]
    # from home, the newest; from inside a recorded root, that root's index
    ran = run_cli("query", "pancakes", "--json", cwd=home["home"], env=home["env"])
    assert ran.json()["roots"] == [str(other)]
    ran = run_cli("query", "pancakes", "--json", cwd=home["root"] / "recipes", env=home["env"])
    assert ran.json()["roots"] == [str(home["root"])]
