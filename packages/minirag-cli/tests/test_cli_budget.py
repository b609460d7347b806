"""RAG_MAX_RESPONSE_TOKENS in the CLI: the store's trimmed answers, a warning that says
what was left out, and a ``read`` a person can page through with ``--from-chunk``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from minirag_testkit.answers import chunks_held
from minirag_testkit.documents import coolant_area, field_manual

MANUAL = field_manual(40)


@pytest.fixture
def indexed(invoke, tmp_path: Path):
    """A root with a long manual and long-section documents, ingested through the CLI;
    returns ``(root, flags)`` with a 1,000-token budget in the env of each run."""
    root = tmp_path / "docs"
    root.mkdir()
    (root / "manual.md").write_text(MANUAL, encoding="utf-8")
    for n in range(6):
        (root / f"area{n}.md").write_text(coolant_area(n), encoding="utf-8")
    flags = ["--base-dir", str(root), "--db-path", str(tmp_path / "index")]
    ran = invoke("ingest", str(root), *flags)
    assert ran.code == 0, ran.stderr
    return root, flags


BUDGET = {"RAG_MAX_RESPONSE_TOKENS": "1000"}


def test_query_warns_what_was_trimmed(invoke, indexed):
    _, flags = indexed
    query = ("query", "coolant inspection pump valve pressure", *flags)
    ran = invoke(*query, env=BUDGET)
    assert ran.code == 0, ran.stderr
    assert ran.stdout.startswith("1. area")
    assert "warn: Over RAG_MAX_RESPONSE_TOKENS (1000): left out" in ran.stderr
    data = invoke(*query, "--json", env=BUDGET).json()
    assert data["trimmed"]["maxTokens"] == 1000 and data["trimmed"]["parentsLeftOut"]
    roomy = invoke(*query, "--json").json()  # the default budget holds it all
    assert "trimmed" not in roomy and len(roomy["parents"]) > len(data["parents"])


def test_read_pages_with_from_chunk(invoke, indexed):
    root, flags = indexed
    args = ["read", str(root / "manual.md"), *flags]
    texts: list[str] = []
    ran = invoke(*args, env=BUDGET)
    while True:
        assert ran.code == 0, ran.stderr
        texts.append(ran.stdout)
        found = re.search(r"--from-chunk (\d+)$", ran.stderr.strip())
        if found is None:
            break
        assert f"fromChunk={found.group(1)}" in ran.stderr  # the store's notice, too
        ran = invoke(*args, "--from-chunk", found.group(1), env=BUDGET)
        assert len(texts) < 100
    assert len(texts) > 2 and ran.stderr == ""
    assert "".join("".join(texts).split()) == "".join(MANUAL.split())
    whole = invoke(*args)  # the default budget holds the whole manual
    assert whole.code == 0 and whole.stderr == ""
    assert "".join(whole.stdout.split()) == "".join(MANUAL.split())


def test_read_from_a_chunk_past_the_end_is_refused(invoke, indexed):
    root, flags = indexed
    ran = invoke("read", str(root / "manual.md"), "--from-chunk", "100000", *flags)
    assert ran.code == 1 and "fromChunk 100000 does not exist" in ran.stderr


def test_a_bad_budget_fails_commands_but_status_answers(run_cli, tmp_path: Path):
    env = {"RAG_MAX_RESPONSE_TOKENS": "-5", "BASE_DIR": str(tmp_path)}
    ran = run_cli("query", "anything", env=env)
    assert ran.code == 1
    assert ran.stderr.strip() == (
        "error: Configuration error: RAG_MAX_RESPONSE_TOKENS must be at least 1000, got -5"
    )
    status = run_cli("status", "--json", env=env)
    assert status.code == 0
    assert status.json()["configError"] == "RAG_MAX_RESPONSE_TOKENS must be at least 1000, got -5"


def test_query_serves_top_k_without_a_budget(invoke, indexed):
    """A terminal is not a model's context: every hit asked for comes back, untrimmed,
    unless a budget is asked for (--max-tokens, or the variable set)."""
    _, flags = indexed
    query = ("query", "coolant inspection pump valve pressure", "--top-k", "40", "--json", *flags)
    whole = invoke(*query)
    assert whole.code == 0, whole.stderr
    data = whole.json()
    assert "trimmed" not in data and len(chunks_held(data)) == 40
    fitted = invoke(*query, "--max-tokens", "1000").json()
    assert fitted["trimmed"]["maxTokens"] == 1000
    assert len(json.dumps(fitted)) < len(json.dumps(data))
    assert invoke(*query, env={"RAG_MAX_RESPONSE_TOKENS": "1000"}).json() == fitted


def test_a_max_tokens_too_small_is_refused(invoke, indexed):
    _, flags = indexed
    ran = invoke("query", "coolant", "--max-tokens", "500", *flags)
    assert ran.code == 1
    assert ran.stderr == "error: maxTokens must be 0 (no limit) or at least 1000, got 500\n"


def test_read_prints_a_long_document_whole_in_a_terminal(invoke, tmp_path: Path):
    # A terminal is not a model's context: `read`, like `query`, takes no budget unless
    # asked (the 6,000-token default once cut a thesis into ~20 calls of --from-chunk).
    root = tmp_path / "docs"
    root.mkdir()
    long_manual = field_manual(400)
    (root / "long.md").write_text(long_manual, encoding="utf-8")
    flags = ["--base-dir", str(root), "--db-path", str(tmp_path / "index")]
    assert invoke("ingest", str(root), *flags).code == 0
    whole = invoke("read", str(root / "long.md"), *flags)
    assert whole.code == 0 and whole.stderr == "", whole.stderr
    assert "".join(whole.stdout.split()) == "".join(long_manual.split())
    asked = invoke("read", str(root / "long.md"), "--max-tokens", "1000", *flags)
    assert asked.code == 0 and "--from-chunk" in asked.stderr
    assert len(asked.stdout) < len(whole.stdout) / 4
    data = invoke("read", str(root / "long.md"), "--json", *flags).json()
    assert "nextChunk" not in data and "notice" not in data
