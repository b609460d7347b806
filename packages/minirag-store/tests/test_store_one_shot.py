"""A process that asks one question (the CLI's ``query``) holds no search snapshot.

``Index.open(env, resident=False)``: LanceDB reads the vectors for the question (flat,
below the ANN threshold) instead of this process loading every vector into memory first.
Its answers are the ones a server's snapshot gives, to the last bit of every distance and
score, scope filters and max-distance included.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from minirag_store import Index
from minirag_testkit.answers import expand
from store_corpus import CORPUS, fillers, write_corpus

QUERIES = [
    "how long to bake bread",
    "ERR_CONN_RESET proxy",
    "warehouse stock audit SPEC-113",
    "инвентаризация склада",
    "heavy rain over the coast",
]


@pytest.fixture(scope="module")
def pair(tmp_path_factory, model_env):
    """``(resident, one_shot, root)`` over one small index (~140 chunks)."""
    base = tmp_path_factory.mktemp("oneshot")
    root = base / "docs"
    root.mkdir()
    env = {**model_env, "BASE_DIR": str(root), "DB_PATH": str(base / "db")}
    resident = Index.open(env)
    write_corpus(resident, root, {**CORPUS, **fillers(110)})
    one_shot = Index.open(env, resident=False)
    yield resident, one_shot, root
    one_shot.close()
    resident.close()


def _hits(result: dict) -> list[tuple[str, int]]:
    return [(h["source"], h["chunkIndex"]) for h in result["results"]]


def _close(a: dict, b: dict) -> bool:
    """The same answer, scores and distances too (each queried with ``explain``): both paths
    score a chunk with the same arithmetic (vectors.py)."""
    return _hits(a) == _hits(b) and a["results"] == b["results"]


def test_one_question_reads_no_snapshot_and_answers_the_same(pair):
    resident, one_shot, _ = pair
    for query in QUERIES:
        a = expand(resident.query(query, top_k=8, explain=True))  # scores compared too
        b = expand(one_shot.query(query, top_k=8, explain=True))
        assert a["results"], query
        assert _close(a, b), query
        assert a["sources"] == b["sources"] and a["parents"] == b["parents"]
    assert one_shot.table().uses_ann()  # LanceDB answered: nothing per chunk in memory
    assert not resident.table().uses_ann()


def test_scopes_and_max_distance_hold_without_a_snapshot(pair):
    resident, one_shot, root = pair
    for scope in ["proj", "meteo", "ru"]:
        a = expand(resident.query("zebra migration notes", 10, str(root / scope), explain=True))
        b = expand(one_shot.query("zebra migration notes", 10, str(root / scope), explain=True))
        assert _close(a, b), scope
        assert all(h["source"].startswith(str(root / scope) + "/") for h in b["results"])
    near = Index(replace(one_shot.config, max_distance=0.6), resident=False)
    try:
        found = expand(near.query("heavy rain over the coast", explain=True))["results"]
        assert found and all(h["distance"] is not None and h["distance"] <= 0.6 for h in found)
    finally:
        near.close()


def test_a_question_prints_nothing_on_stderr(pair, capfd):
    """LanceDB's vector search logs from native code straight to fd 2 (a deprecation warning
    when a search names its columns without ``_distance``): a CLI user would see it."""
    _, one_shot, _ = pair
    capfd.readouterr()
    for query in QUERIES:
        assert expand(one_shot.query(query, top_k=8))["results"]
    assert capfd.readouterr().err == ""
