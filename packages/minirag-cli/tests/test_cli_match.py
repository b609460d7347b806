"""The CLI prints how good its hits are: "No good match" and what no document holds for
an absent identifier, nonsense and stop words; an identifier two documents hold comes back
with those two only (typer's runner, and the installed script as a subprocess)."""

from __future__ import annotations

import pytest
from minirag_testkit.scenarios import MATCH_NOTES, NO_MATCH_QUERIES, write_files


@pytest.fixture(scope="module")
def indexed(tmp_path_factory, run_cli) -> list[str]:
    base = tmp_path_factory.mktemp("match")
    root = write_files(base / "docs", MATCH_NOTES)
    flags = ["--base-dir", str(root), "--db-path", str(base / "index")]
    ran = run_cli("ingest", str(root), *flags)
    assert ran.code == 0, ran.stderr
    return flags


def test_an_absent_identifier_is_named_and_flagged(run_cli, indexed):
    ran = run_cli("query", "ZEBRA-4471", *indexed)
    assert ran.code == 0, ran.stderr
    assert ran.stdout.startswith("No good match: the documents do not seem to cover this")
    assert 'No document contains "ZEBRA-4471".' in ran.stdout
    assert "[weak match; lacks ZEBRA-4471]" in ran.stdout


@pytest.mark.parametrize("query", NO_MATCH_QUERIES[1:])
def test_nonsense_and_stop_words_are_flagged(invoke, indexed, query):
    ran = invoke("query", query, *indexed)
    assert ran.code == 0, ran.stderr
    assert ran.stdout.startswith("No good match")
    answer = invoke("query", query, "--json", *indexed).json()
    assert answer["bestMatch"] == "weak" and "Nothing really matches" in answer["notice"]


def test_an_identifier_two_documents_hold_comes_back_alone(invoke, indexed):
    answer = invoke("query", "DATAKB9A8B", "--json", *indexed).json()
    assert [s["displayPath"] for s in answer["sources"]] == ["ids/batch-a.md", "ids/batch-b.md"]
    assert [h["match"]["level"] for h in answer["results"]] == ["strong", "strong"]
    shown = invoke("query", "DATAKB9A8B", *indexed).stdout
    assert "No good match" not in shown and "[strong match]" in shown
    assert "specs/cooling.md" not in shown
