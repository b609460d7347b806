"""Markdown pipe tables: the header rows, and cutting an oversized table at row boundaries."""

from __future__ import annotations

from minirag_chunker.detect import TABLE_DELIMITER


def header_size(rows: list[str]) -> int:
    """How many leading rows are the header: 2 (names + ``|---|`` line) or 0 when there is none.

    A header with no data rows under it is the table's content, not a header with nothing to
    head, so it reports 0 and the rows are kept and packed as ordinary rows.
    """
    if len(rows) > 2 and TABLE_DELIMITER.match(rows[1]):
        return 2
    return 0


def split_table(text: str, cap: int) -> list[str]:
    """Cut a table longer than ``cap`` characters into tables of whole rows, header repeated.

    Each piece is a complete table (header included), so a reader handed one piece still
    knows what its columns mean. A single row longer than ``cap`` is kept whole (soft cap).
    """
    rows = text.split("\n")
    head = header_size(rows)
    header = rows[:head]
    header_len = sum(len(row) + 1 for row in header)
    pieces: list[str] = []
    current: list[str] = []
    size = header_len
    for row in rows[head:]:
        if current and size + len(row) > cap:
            pieces.append("\n".join([*header, *current]))
            current, size = [], header_len
        current.append(row)
        size += len(row) + 1
    if current:
        pieces.append("\n".join([*header, *current]))
    return pieces
