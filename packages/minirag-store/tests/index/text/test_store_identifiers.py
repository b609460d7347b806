"""A query that is one identifier finds the chunk holding that identifier whole first,
above look-alike identifiers and above short notes that merely repeat its parts (real
chunker, model and LanceDB).

Two mechanisms: the keyword query weighs the whole identifier as much as all its parts
together (:func:`minirag_store.index.text.keywords.normalize_query`), so keyword order alone is
right for every fusion; and the default ``mixture`` fusion lets a clear keyword winner through
the vector side, which sees an identifier only as its parts and so ranks a note that
repeats them first. Below the default w = 0.6 that vector preference still wins for the notes that
are the query's parts verbatim (``req 2041 req 2041 …``): any weighted fusion that keeps
SciFact's quality does (see ``bench/fusion.py``), so these weights are not asserted.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from minirag_store.config import FUSIONS
from minirag_testkit.answers import expand

GUID = "7c9e6679-7425-40de-944b-e07fc1f90ae7"

# Each identifier: the document that holds it, look-alikes, and a short note repeating
# its parts many times (the parts a keyword index also files it under).
CORPUS = {
    "ops/socket.md": (
        "# Client connection errors\n\nWhen the peer hangs up in the middle of a request "
        "the client library raises ERR_SOCKET_CLOSED and hands the request back to the "
        "retry queue, which waits with exponential backoff before it connects again."
    ),
    "ops/closing.md": (
        "# Shutdown sequence\n\nWhile the pool drains, each connection logs "
        "ERR_SOCKET_CLOSING once; the socket is closed after the last response is sent."
    ),
    "ops/timeout.md": (
        "# Idle connections\n\nA socket that stays silent for two minutes is closed with "
        "ERR_SOCKET_TIMEOUT, and the error counter for closed sockets goes up by one."
    ),
    "notes/socket-noise.md": (
        "# Notes\n\nsocket closed err, socket closed err, socket closed err, socket closed "
        "err, socket closed err, socket closed err. Err: socket closed. Socket closed err."
    ),
    "reqs/2041.md": (
        "# Export requirements\n\nREQ-2041: the monthly report can be exported as a "
        "spreadsheet with one sheet per department and totals on the first sheet."
    ),
    "reqs/2042.md": (
        "# Import requirements\n\nREQ-2042: a spreadsheet of department budgets can be "
        "imported; rows with unknown department codes are listed, not dropped."
    ),
    "reqs/noise.md": (
        "# Requirement index\n\nreq 2041 req 2041 req 2041 req 2041 req 2041 req 2041 "
        "req 2041 req 2041 req 2041 req 2041."
    ),
    "ru/п17.md": (
        "# Пожарная безопасность\n\nФорма П-17 заполняется ответственным за пожарную "
        "безопасность после каждой проверки огнетушителей на этаже."
    ),
    "ru/п18.md": (
        "# Охрана труда\n\nФорма П-18 описывает инструктаж новых сотрудников по охране "
        "труда в первый рабочий день."
    ),
    "ru/noise.md": "# Заметки\n\nп 17, п 17, п 17, п 17, п 17, п 17, п 17, п 17, п 17.",
    "assets/laptop.md": (
        f"# Asset register\n\nThe laptop with asset tag {GUID} is assigned to the "
        "accounting team and returns to the IT desk every spring for an audit."
    ),
    "assets/other.md": (
        "# Asset register, monitors\n\nMonitor 7c9e6679-7425-40de-944b-e07fc1f90ae8 and "
        "monitor 9b2e6679-7425-40de-944b-e07fc1f90ae7 sit in the accounting office."
    ),
    "assets/noise.md": (
        "# Audit scratch\n\n7c9e6679 7425 40de 944b e07fc1f90ae7 7c9e6679 7425 40de 944b "
        "e07fc1f90ae7 7c9e6679 7425 40de 944b e07fc1f90ae7."
    ),
    "code/config.md": (
        "# Settings loader\n\nThe loader reads fooBar_baz2 from the environment and falls "
        "back to the value in the settings file when it is missing."
    ),
    "code/other.md": (
        "# Settings loader, legacy\n\nThe old loader read fooBar_baz3 and fooBar_qux2 "
        "from the settings file only."
    ),
    "code/noise.md": (
        "# Scratch\n\nfoobar baz2 foobar baz2 foobar baz2 foobar baz2 foobar baz2 "
        "foobar baz2 foobar baz2."
    ),
}

CASES = [
    ("ERR_SOCKET_CLOSED", "ops/socket.md"),
    ("REQ-2041", "reqs/2041.md"),
    ("П-17", "ru/п17.md"),
    ("п-17", "ru/п17.md"),
    (GUID, "assets/laptop.md"),
    (GUID.upper(), "assets/laptop.md"),
    ("fooBar_baz2", "code/config.md"),
]
# Fusion -> the hybrid weights at which the exact identifier must come first.
WEIGHTS = {"mixture": [0.6, 0.8, 1.0], "rrf": [1.0], "score": [1.0]}
# Unrelated notes, so that no word is in most documents (as in any real folder).
_TOPICS = ["garden", "kitchen", "travel", "music", "cycling", "birds", "chess", "pottery"]
FILLERS = {
    f"misc/{topic}{n}.md": f"# {topic.title()} notes {n}\n\nThoughts about {topic} number {n}: "
    f"the {topic} club meets on day {n + 3} and brings {n + 2} guests along."
    for topic in _TOPICS
    for n in range(4)
}


@pytest.fixture(scope="module")
def id_index(tmp_path_factory, model_env, write_docs):
    """``(index, root)``: the identifier corpus + weather fillers, indexed once."""
    from minirag_store import Index

    base = tmp_path_factory.mktemp("ids")
    root = base / "docs"
    root.mkdir()
    index = Index.open({**model_env, "BASE_DIR": str(root), "DB_PATH": str(base / "db")})
    write_docs(index, root, {**CORPUS, **FILLERS})
    yield index, root
    index.close()


def _variant(index, **changes):
    from minirag_store import Index

    return Index(replace(index.config, **changes), embedder=index.embedder(), table=index.table())


@pytest.mark.parametrize(("fusion", "weight"), [(f, w) for f in FUSIONS for w in WEIGHTS[f]])
def test_identifier_beats_lookalikes_and_repeated_parts(id_index, fusion, weight):
    index, root = id_index
    searcher = _variant(index, fusion=fusion, hybrid_weight=weight)
    firsts = {}
    for query, expected in CASES:
        hits = expand(searcher.query(query, top_k=5))["results"]
        firsts[query] = (hits[0]["source"], str(root / expected))
    wrong = {q: got for q, (got, want) in firsts.items() if got != want}
    assert not wrong, f"{fusion} at weight {weight}: first hit wrong for {wrong}"


def test_default_settings_rank_the_identifier_first(id_index):
    index, root = id_index
    for query, expected in CASES:
        assert expand(index.query(query, top_k=3))["results"][0]["source"] == str(root / expected)


def test_parts_still_find_the_identifier_when_nothing_holds_the_whole(id_index):
    """Without the exact identifier in the index, its parts still find related text."""
    index, root = id_index
    keyword_only = _variant(index, hybrid_weight=1.0)
    hits = expand(keyword_only.query("ERR_SOCKET_RESET", top_k=5))["results"]
    related = {str(root / "ops/socket.md"), str(root / "notes/socket-noise.md")}
    assert {h["source"] for h in hits} & related
