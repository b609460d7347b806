"""The installed ``minirag-cli`` console script as a real subprocess on a real folder:
exit codes, ``--json`` against the store, relative paths, TTY vs piped output, colours,
shell completion."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from minirag_store import Index
from minirag_testkit.answers import hit_sources

CLI = Path(sys.executable).parent / "minirag-cli"
COLOUR = re.compile(r"\x1b\[[0-9;]*(?:3[0-7]|9[0-7]|38;[0-9;]+)m")


def test_piped_sync_prints_counts_and_no_escape_codes(run_cli, built):
    ran = run_cli("sync", *built["flags"])
    assert ran.code == 0, ran.stderr
    assert ran.stdout == (
        "sync done: scanned 3, ingested 0, skipped 3, deleted 0, unreadable 0, failed 0, "
        "unsupported 0\n"
    )
    assert "\x1b" not in ran.stdout + ran.stderr


def test_query_json_equals_the_index(run_cli, built, cli_env):
    ran = run_cli("query", "nightly backups snapshots", "--json", *built["flags"])
    assert ran.code == 0, ran.stderr
    index = Index.open(cli_env, base_dirs=[str(built["root"])], db_path=str(built["db"]))
    try:
        assert ran.json() == index.query("nightly backups snapshots")
    finally:
        index.close()
    assert hit_sources(ran.json())[0] == str(built["files"]["guide"])


def test_cwd_is_the_default_root_and_paths_are_relative(run_cli, tmp_path, corpus):
    root = tmp_path / "docs"
    files = corpus(root)
    db = ["--db-path", str(tmp_path / "index")]
    ingest = run_cli("ingest", ".", "--json", *db, cwd=root)
    assert ingest.code == 0, ingest.stderr
    assert ingest.json()["counts"]["ingested"] == 3
    read = run_cli("read", "timeouts.md", *db, cwd=root / "notes")
    assert read.code == 0 and "connection timeout error" in read.stdout
    deleted = run_cli("delete", "notes/timeouts.md", "--json", *db, cwd=root)
    assert deleted.code == 0 and deleted.json()["source"] == str(files["timeouts"])
    outside = run_cli("read", "../../index", *db, cwd=root / "notes")
    assert outside.code == 1
    assert outside.stderr.startswith("error: Path outside configured document roots")


def test_per_file_failure_exit_1_with_warn_lines(run_cli, tmp_path, corpus):
    root = tmp_path / "docs"
    corpus(root)
    (root / "broken.docx").write_bytes(b"PK\x03\x04 not a real office file")
    ran = run_cli("ingest", str(root), "--base-dir", str(root), "--db-path", str(tmp_path / "i"))
    assert ran.code == 1
    assert "ingested 3" in ran.stdout and "failed 1" in ran.stdout
    lines = [line for line in ran.stderr.splitlines() if not line.startswith("ingest: ")]
    assert lines[0].startswith(f"warn: {root / 'broken.docx'}: ")
    assert lines[-1].startswith("error: 1 file could not be ingested")
    assert "Traceback" not in ran.stderr


def test_broken_base_dirs_status_answers_others_fail(run_cli, tmp_path):
    env = {"BASE_DIRS": '["/no/such/root"]'}
    status = run_cli("status", "--json", env=env, cwd=tmp_path)
    assert status.code == 0, status.stderr
    given = {k for k, v in status.json().items() if v is not None}
    assert given == {"version", "configError", "knownIndexes"}
    human = run_cli("status", env=env, cwd=tmp_path)
    assert human.code == 0 and "/no/such/root" in human.stdout
    for args in (("query", "x"), ("list",), ("sync",)):
        ran = run_cli(*args, env=env, cwd=tmp_path)
        assert ran.code == 1 and ran.stdout == ""
        assert ran.stderr.startswith("error: Configuration error: Document root /no/such/root")
        assert "Traceback" not in ran.stderr


def test_model_that_cannot_load_is_an_error_line(run_cli, tmp_path, corpus):
    root = tmp_path / "docs"
    corpus(root)
    empty = tmp_path / "empty-model"
    empty.mkdir()
    # an index to search (a query on none answers that it is empty, loading no model)
    assert run_cli("ingest", str(root), "--base-dir", str(root)).code == 0
    ran = run_cli("query", "x", "--base-dir", str(root), "--model-path", str(empty))
    assert ran.code == 1
    assert ran.stderr.startswith("error: ") and len(ran.stderr.strip().splitlines()) == 1
    assert "Traceback" not in ran.stderr and "unexpected" not in ran.stderr


def test_syncs_past_the_ann_threshold_print_no_engine_logs(run_cli, tmp_path):
    """Lance 14 logged a WARN line about vector index statistics on every sync once the
    table had a vector index: the user's terminal shows only minirag's own lines."""
    import lancedb

    root, db = tmp_path / "docs", tmp_path / "index"
    root.mkdir()
    for n in range(270):  # past the threshold's floor (256 chunks): one chunk a file
        (root / f"note-{n:03d}.md").write_text(f"# Note {n}\n\nShelf {n} holds crate {n * 7}.\n")
    flags = ["--base-dir", str(root), "--db-path", str(db), "--progress-every", "0"]
    env = {"RAG_ANN_MIN_CHUNKS": "256"}
    first = run_cli("sync", *flags, env=env)
    assert first.code == 0 and first.stderr == "", first.stderr
    indexed = lancedb.connect(db).open_table("chunks").list_indices()
    assert any(index.columns == ["vector"] for index in indexed)  # the ANN index exists
    (root / "note-new.md").write_text("# New note\n\nShelf 999 holds crate 42.\n")
    second = run_cli("sync", *flags, env=env)  # its maintenance reads the vector index's stats
    assert second.code == 0, second.stderr
    assert "ingested 1," in second.stdout
    assert second.stderr == ""


def _run_with_tty_stderr(args: list[str], env: dict[str, str]) -> tuple[int, str]:
    """Run the CLI with stderr on a pseudo-terminal; return (exit code, what it drew)."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [str(CLI), *args], env=env, stdout=subprocess.PIPE, stderr=follower, stdin=follower
    )
    os.close(follower)
    drawn = bytearray()

    def drain() -> None:
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # EIO: the child closed its end
                return
            if not chunk:
                return
            drawn.extend(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    proc.communicate(timeout=240)
    reader.join(timeout=10)
    os.close(leader)
    return proc.returncode, drawn.decode("utf-8", "replace")


@pytest.mark.parametrize("as_json", [False, True], ids=["human", "json"])
def test_progress_bar_only_on_a_terminal_and_not_with_json(tmp_path, corpus, cli_env, as_json):
    root = tmp_path / "docs"
    corpus(root)
    args = ["ingest", str(root), "--base-dir", str(root), "--db-path", str(tmp_path / "i")]
    code, drawn = _run_with_tty_stderr(args + (["--json"] if as_json else []), cli_env)
    assert code == 0, drawn
    if as_json:
        assert drawn == ""
    else:
        assert "\x1b[" in drawn and "ingest" in drawn and "/3" in drawn


@pytest.mark.parametrize(("no_color", "coloured"), [(None, True), ("1", False)])
def test_query_colours_respect_no_color(run_cli, built, no_color, coloured):
    env = {"FORCE_COLOR": "1", **({"NO_COLOR": no_color} if no_color else {})}
    ran = run_cli("query", "pancakes batter", *built["flags"], env=env)
    assert ran.code == 0, ran.stderr
    assert bool(COLOUR.search(ran.stdout)) is coloured
    assert "\x1b[1" in ran.stdout  # the query's words stay bold either way


def test_shell_completion(run_cli, cli_env, tmp_path):
    # Typer names the shell it finds among the process's parents (an argument after
    # ``--show-completion`` is not read), so run it from bash as a user's terminal does: run
    # from a process with no shell above it (a detached CI job), it says "Shell  not supported".
    script = subprocess.run(
        ["bash", "-c", f"'{CLI}' --show-completion; exit $?"],
        cwd=tmp_path,
        env=cli_env,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert script.returncode == 0 and "_MINIRAG_CLI_COMPLETE" in script.stdout, script.stderr
    env = {
        "_MINIRAG_CLI_COMPLETE": "complete_bash",
        "COMP_WORDS": "minirag-cli read",
        "COMP_CWORD": "1",
    }
    words = run_cli(env=env, cwd=tmp_path).stdout.split()
    assert words == ["read-neighbors", "read"]
    env = {**env, "COMP_WORDS": "minirag-cli query --to", "COMP_CWORD": "2"}
    assert run_cli(env=env, cwd=tmp_path).stdout.split() == ["--top-k"]


def test_startup_imports_no_heavy_library():
    heavy = ("rich", "numpy", "lancedb", "fastembed", "markitdown", "onnxruntime", "pyarrow")
    code = (
        "import sys, minirag_cli.__main__\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules if m.startswith({heavy!r})}}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_piped_list_never_folds_long_paths(run_cli, tmp_path):
    root = tmp_path / "docs"
    deep = root / "a-rather-long-folder-name-for-quarterly-reports" / "2026"
    deep.mkdir(parents=True)
    name = "quarterly-report-of-the-northern-region-warehouse-stock-levels-final.md"
    (deep / name).write_text("# Stock\n\nLevels are fine.\n", encoding="utf-8")
    ran = run_cli("list", "--db-path", str(tmp_path / "i"), cwd=root, env={"COLUMNS": ""})
    assert ran.code == 0, ran.stderr
    row = ran.stdout.splitlines()[2].split()
    assert row == [
        "not_ingested",
        "0",
        f"a-rather-long-folder-name-for-quarterly-reports/2026/{name}",
    ]


def _run_on_a_terminal(args: list[str], env: dict[str, str]) -> int:
    """Run the CLI with stdin, stdout and stderr on one pseudo-terminal; its exit code."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [str(CLI), *args], env=env, stdin=follower, stdout=follower, stderr=follower
    )
    os.close(follower)

    def drain() -> None:  # a terminal that nobody reads would block the child
        while True:
            try:
                if not os.read(leader, 4096):
                    return
            except OSError:  # EIO: the child closed its end
                return

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    code = proc.wait(timeout=240)
    reader.join(timeout=10)
    os.close(leader)
    return code


def test_query_pages_on_a_terminal_and_never_when_piped(run_cli, built, cli_env, tmp_path):
    """Like git log: a terminal gets the answer through $PAGER; a pipe gets it directly."""
    paged = tmp_path / "paged.txt"
    env = {**cli_env, "PAGER": f"cat > {paged}"}
    args = ["query", "connection timeout", *built["flags"]]
    assert _run_on_a_terminal(args, env) == 0
    shown = paged.read_text(encoding="utf-8")
    assert "timeouts.md" in shown and "Sources:" in shown
    paged.unlink()
    piped = run_cli(*args, env={"PAGER": f"cat > {paged}"})
    assert piped.code == 0 and "timeouts.md" in piped.stdout
    assert not paged.exists()
