"""What a reader's eye is drawn to in a hit: the query's words and their stems, never a
word that only begins the same way (minirag_store.highlight; the CLI and the page)."""

from __future__ import annotations

import pytest
from minirag_store.highlight import query_terms, term_spans


@pytest.mark.parametrize(
    ("query", "text", "expected"),
    [
        ("timeouts", "A Timeout, two timeouts.", ["Timeout", "timeouts"]),
        ("how to restore the backup", "Restoring backups is slow", ["Restoring", "backups"]),
        ("индексация документов", "Индексации подлежат документы", ["Индексации", "документы"]),
        ("MAX_FILE_SIZE", "Set MAX_FILE_SIZE or MAX_FILES", ["MAX_FILE_SIZE"]),
        ("the of to", "the end of it", []),
        ("time", "timestamp and time", ["time"]),
        # a shared beginning is no match: the page marked `program` for `progress`
        ("progress", "The program reports progress.", ["progress"]),
        ("connection", "Connected, then the connections dropped", ["Connected", "connections"]),
        ("ERR_CONN_RESET", "ERR_CONN_RESET and ERR_CONN_REFUSED", ["ERR_CONN_RESET"]),
    ],
)
def test_term_spans_match_inflections_not_stopwords(query, text, expected):
    spans = term_spans(text, query_terms(query))
    assert [text[a:b] for a, b in spans] == expected
