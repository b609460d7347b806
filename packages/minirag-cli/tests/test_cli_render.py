"""Human output from hand-built result dicts: what a person sees for each result shape."""

from __future__ import annotations

import re

import pytest
from minirag_cli.progress import RateClock, rate_and_eta
from minirag_cli.render import show_job, show_query
from minirag_cli.tables import show_list, show_status

#: An SGR sequence that sets a colour (foreground 30-37/90-97, or 38;...), not just bold.
COLOUR = re.compile(r"\x1b\[[0-9;]*(?:3[0-7]|9[0-7]|38;[0-9;]+)m")


def _hit(src: int, index: int, text: str, score: float, distance: float | None = 0.4):
    return {
        "src": src,
        "chunkIndex": index,
        "score": score,
        "distance": distance,
        "locator": {},
        "text": text,
    }


QUERY_RESULT = {
    "results": [
        _hit(0, 3, "The client raises a connection timeout error.", 0.0325),
        _hit(1, 0, "Timeouts are retried twice.", 0.0161, None),
    ],
    "sources": [
        {
            "source": "/docs/net/timeouts.md",
            "title": "Timeouts",
            "displayPath": "net/timeouts.md",
        },
        {"source": "/docs/ops.md", "title": "Ops", "displayPath": "ops.md"},
    ],
    "parents": [],
}


def test_query_prints_ranked_hits_then_sources(capsys):
    show_query(QUERY_RESULT, "connection timeouts")
    out = capsys.readouterr().out
    assert "\x1b" not in out  # not a terminal: plain text
    lines = out.splitlines()
    assert lines[0].startswith("1. net/timeouts.md")
    assert "#3" in lines[0] and "Timeouts" in lines[0] and "0.0325" in lines[0]
    assert lines[1].strip() == "The client raises a connection timeout error."
    second = next(line for line in lines if line.startswith("2. "))
    assert "ops.md" in second and "distance" not in second  # keyword-only hit
    sources = lines[lines.index("Sources:") + 1 :]
    assert sources[0].split() == ["net/timeouts.md", "Timeouts", "(1", "hit)"]
    assert sources[1].split()[0] == "ops.md"


def test_a_passage_shows_its_chunks_and_sources_count_their_hits(capsys):
    passage = {"src": 0, "chunkIndex": 4, "lastChunk": 6, "text": "Three chunks, one passage."}
    single = {"src": 0, "chunkIndex": 9, "text": "Another hit of the same file."}
    show_query({**QUERY_RESULT, "results": [passage, single]}, "passage")
    lines = capsys.readouterr().out.splitlines()
    assert "#4-6" in lines[0] and "score" not in lines[0]  # no scores asked for: none shown
    sources = lines[lines.index("Sources:") + 1 :]
    assert sources[0].split() == ["net/timeouts.md", "Timeouts", "(2", "hits)"]


def test_query_without_hits_says_why(capsys):
    show_query({"results": [], "sources": [], "parents": {}, "notice": "the index is empty"}, "x")
    assert capsys.readouterr().out.strip() == "no results: the index is empty"


def test_query_terms_highlighted_in_colour_on_a_terminal(capsys, monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    show_query(QUERY_RESULT, "connection timeouts")
    out = capsys.readouterr().out
    passage = out.splitlines()[1]
    assert re.search(r"\x1b\[[0-9;]*m(connection)\x1b\[0m", passage)
    assert re.search(r"\x1b\[[0-9;]*m(timeout)\x1b\[0m", passage)
    assert COLOUR.search(passage)
    assert "\x1b[1;33mclient" not in passage  # a word not in the query is left alone


def test_no_color_keeps_emphasis_but_drops_colour(capsys, monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("NO_COLOR", "1")
    show_query(QUERY_RESULT, "connection timeouts")
    out = capsys.readouterr().out
    assert not COLOUR.search(out)
    assert "\x1b[1mconnection\x1b[0m" in out  # still bold, as NO_COLOR allows


def _row(display: str, state: str, chunks: int, title: str = "", *, ocr: str = "", kind="file"):
    return {
        "source": "/docs/" + display if kind == "file" else display,
        "displayPath": display,
        "sourceType": kind,
        "title": title,
        "state": state,
        "chunkCount": chunks,
        "ocrEngine": ocr,
    }


def test_list_is_a_table_with_ocr_marker_and_summary(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "160")
    result = {
        "files": [
            _row("a.md", "ingested", 3, "Alpha"),
            _row("scans/b.pdf", "ingested", 2, "Scan", ocr="rapidocr"),
            _row("c.txt", "not_ingested", 0),
            _row("release-notes", "ingested", 1, "Notes", kind="url"),
        ],
        "warnings": ["could not read /docs/private: permission denied"],
    }
    show_list(result)
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert lines[0].split() == ["state", "chunks", "path", "title", "/", "reason"]
    scan = next(line for line in lines if "scans/b.pdf" in line)
    assert "scans/b.pdf [ocr:rapidocr]" in scan and scan.split()[:2] == ["ingested", "2"]
    assert "[ocr:" not in next(line for line in lines if "a.md" in line)
    assert "release-notes (url)" in captured.out
    assert lines[-1] == "4 entries: 3 ingested, 1 not_ingested"
    assert captured.err == ""  # scan warnings are the command's to print, in every mode


def test_status_with_broken_config_shows_the_error(capsys):
    show_status({"version": "0.1.0", "configError": "BASE_DIRS must be a JSON array"})
    out = capsys.readouterr().out
    assert "version" in out and "0.1.0" in out
    assert "configuration error" in out and "BASE_DIRS must be a JSON array" in out


def test_status_lists_settings_in_reading_order(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "160")
    show_status(
        {
            "chunkCount": 12,
            "version": "0.1.0",
            "roots": ["/a", "/b"],
            "grouping": None,
            "model": "m",
            "sourceCount": 3,
        }
    )
    lines = [line.split(None, 1) for line in capsys.readouterr().out.splitlines()]
    labels = [parts[0] for parts in lines if parts]
    assert labels[:2] == ["version", "document"]
    assert ["/b"] in lines  # the second root on its own line
    assert any(parts == ["grouping", "unset"] for parts in lines)


def test_job_line_carries_every_counter(capsys):
    counts = {"scanned": 7, "ingested": 3, "skipped": 1, "deleted": 0, "unreadable": 0,
              "failed": 1, "unsupported": 2}  # fmt: skip
    files = {"ingested": [], "skipped": [], "deleted": [], "unreadable": [], "failed": [],
             "unsupported": ["/d/a.rtf", "/d/b.RTF"]}  # fmt: skip
    slow = {"source": "/d/scan.pdf", "seconds": 9.25, "convertSeconds": 8.0, "ocrPages": 3,
            "ocrSeconds": 7.5, "chunkSeconds": 0.05, "embedSeconds": 1.2, "chunks": 12}  # fmt: skip
    show_job(
        {
            "jobId": "j",
            "state": "failed",
            "startedAt": None,
            "finishedAt": None,
            "counts": counts,  # type: ignore[typeddict-item]
            "errors": [],
            "error": "1 file could not be ingested (see errors)",
            "files": files,  # type: ignore[typeddict-item]
            "slowest": [slow],  # type: ignore[list-item]
        },
        "sync",
    )
    assert capsys.readouterr().out == (
        "sync failed: scanned 7, ingested 3, skipped 1, deleted 0, unreadable 0, failed 1, "
        "unsupported 2 (.rtf 2)\n"
        "slowest files:\n"
        "  9.2 s  /d/scan.pdf: convert 8.0 s (OCR 3 pages 7.5 s), chunk 0.1 s, embed 1.2 s "
        "(12 chunks)\n"
    )


@pytest.mark.parametrize(
    ("finished", "left", "elapsed", "expected"),
    [
        (0, 10, 1.0, ""),  # nothing finished since the clock started: no rate yet
        (5, None, 2.0, "2.5 files/s"),  # total not known yet: no time left
        (30, 3600, 3.0, "10.0 files/s, 0:06:00 left"),
        (10, 0, 4.0, "2.5 files/s"),  # done: nothing left to estimate
    ],
)
def test_progress_rate_is_the_average_and_eta_follows_it(finished, left, elapsed, expected):
    assert rate_and_eta(finished, left, elapsed) == expected


def test_rate_clock_ignores_the_first_burst_and_averages_the_run():
    times = iter([0.0, 0.01, 2.0, 4.0])
    clock = RateClock(now=lambda: next(times))
    assert clock.rate(0, None) == ""  # the scan's first report starts the clock
    assert clock.rate(40, 80) == ""  # a burst 10 ms in: no honest rate yet
    assert clock.rate(40, 80) == "20.0 files/s, 0:00:02 left"
    assert clock.rate(80, 80) == "20.0 files/s"


def test_a_passage_shows_no_machine_marker_and_a_heading_no_link_target(capsys):
    result = {
        "results": [
            {
                "src": 0,
                "chunkIndex": 3,
                "locator": {"headingPath": "Notes > [History](https://example.org/h?x=1)"},
                "text": "<!-- Slide number: 6 -->\n\nThe program reports progress.\n",
            }
        ],
        "sources": [{"displayPath": "deck.pptx", "root": 0}],
        "roots": ["/docs"],
        "parents": [],
    }
    show_query(result, "progress")
    out = capsys.readouterr().out
    assert "Slide number" not in out and "<!--" not in out
    assert "§ Notes > History" in out and "example.org" not in out
    assert "The program reports progress." in out
