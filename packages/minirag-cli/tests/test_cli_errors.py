"""The one error surface: ``error: <message>`` on stderr, exit 1, never a traceback."""

from __future__ import annotations

import pytest
from minirag_store import Index
from minirag_store.errors import ModelLoadError

BROKEN = {"BASE_DIRS": "not json"}

COMMANDS = [
    ("ingest", "."),
    ("ingest-url", "https://example.com/"),
    ("sync",),
    ("query", "anything"),
    ("read-neighbors", "--source", "x", "--chunk-index", "0"),
    ("read", "--source", "x"),
    ("list",),
    ("delete", "--source", "x"),
]


@pytest.mark.parametrize("args", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_broken_config_fails_every_command_but_status(invoke, args):
    ran = invoke(*args, env=BROKEN)
    assert ran.code == 1
    assert ran.stdout == ""
    assert ran.stderr.startswith("error: Configuration error: BASE_DIRS must be a JSON array")
    assert len(ran.stderr.splitlines()) == 1


def test_broken_config_status_answers_with_exit_0(invoke):
    ran = invoke("status", "--json", env=BROKEN)
    assert ran.code == 0, ran.stderr
    result = ran.json()
    given = {k for k, v in result.items() if v is not None}
    assert given == {"version", "configError", "knownIndexes"}
    assert "BASE_DIRS" in result["configError"]
    human = invoke("status", env=BROKEN)
    assert human.code == 0
    assert "configuration error" in human.stdout and "BASE_DIRS" in human.stdout


def test_missing_root_named_in_the_error(invoke, tmp_path):
    ran = invoke("query", "x", "--base-dir", str(tmp_path / "nowhere"))
    assert ran.code == 1
    assert "nowhere" in ran.stderr and "does not exist" in ran.stderr


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("read-neighbors", "--source", "x"), "--chunk-index"),
        (("query", "x", "--top-k", "many"), "--top-k"),
        (("ingest",), "'paths'"),
        (("frobnicate",), "frobnicate"),
        (("--bogus", "status"), "--bogus"),
    ],
)
def test_usage_mistakes_are_one_error_line(invoke, args, needle):
    ran = invoke(*args)
    assert ran.code == 1
    assert ran.stderr.startswith("error: ") and needle in ran.stderr
    assert "--help" in ran.stderr and "Traceback" not in ran.stderr


@pytest.mark.parametrize("command", ["read", "delete"])
def test_path_and_source_are_exclusive(invoke, command, tmp_path):
    both = invoke(command, "a.md", "--source", "x", "--base-dir", str(tmp_path))
    neither = invoke(command, "--base-dir", str(tmp_path))
    assert both.code == neither.code == 1
    assert both.stderr == (
        "error: Give a file path or a source, not both: one of them names the document\n"
    )
    assert neither.stderr.startswith("error: Name the document: give a file path")
    assert len(neither.stderr.splitlines()) == 1


def test_path_outside_the_roots_is_refused(invoke, tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "secret.md").write_text("no", encoding="utf-8")
    ran = invoke("read", str(tmp_path / "secret.md"), "--base-dir", str(root))
    assert ran.code == 1
    assert ran.stderr.startswith("error: Path outside configured document roots")


def test_store_errors_print_their_message(invoke, monkeypatch, tmp_path):
    def fail(*_a, **_k):
        raise ModelLoadError("Could not download model 'x': network unreachable; set MODEL_PATH")

    monkeypatch.setattr(Index, "query", fail)
    ran = invoke("query", "x", "--base-dir", str(tmp_path))
    assert ran.code == 1
    assert ran.stderr == (
        "error: Could not download model 'x': network unreachable; set MODEL_PATH\n"
    )


def test_unexpected_exception_is_one_line_unless_debugging(invoke, monkeypatch, tmp_path):
    def crash(*_a, **_k):
        raise RuntimeError("boom")

    monkeypatch.setattr(Index, "list_files", crash)
    ran = invoke("list", "--base-dir", str(tmp_path))
    assert ran.code == 1
    assert ran.stderr.startswith("error: unexpected RuntimeError: boom")
    assert "MINIRAG_DEBUG=1" in ran.stderr and len(ran.stderr.splitlines()) == 1
    with pytest.raises(RuntimeError, match="boom"):
        invoke("list", "--base-dir", str(tmp_path), env={"MINIRAG_DEBUG": "1"})


def test_version_names_both_packages(invoke):
    from importlib.metadata import version

    ran = invoke("--version")
    assert ran.code == 0
    assert ran.stdout == (
        f"minirag-cli {version('minirag-cli')} (minirag-store {version('minirag-store')})\n"
    )


def test_ctrl_c_is_one_line_and_status_130(invoke, monkeypatch, tmp_path):
    def interrupted(*_a, **_k):
        raise KeyboardInterrupt

    monkeypatch.setattr(Index, "sync", interrupted)
    ran = invoke("sync", "--base-dir", str(tmp_path))
    assert ran.code == 130
    assert ran.stderr == "error: interrupted\n"


def test_help_lists_each_command_in_flowing_sentences(invoke):
    """``minirag-cli --help`` on a wide terminal (200 columns): a command whose summary
    spans lines of its docstring reads as one sentence, not broken where the source wraps."""
    ran = invoke("--help")
    assert ran.code == 0
    rows = [line.strip("│ ") for line in ran.stdout.splitlines()]
    (watch,) = [row for row in rows if row.startswith("watch ")]
    assert "until Ctrl-C: a full sync first, then each change ~2 s after it settles" in watch
