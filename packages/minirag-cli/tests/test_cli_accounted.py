"""Every file under a root is accounted for, an empty document is no failure, and a long
sync can be followed: the installed ``minirag-cli`` as a real subprocess (and the runner),
on real folders with the real model."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from minirag_testkit.documents import empty_docx

#: Files of types minirag does not read, as a real documents folder holds them.
UNSUPPORTED = {
    "letter.rtf": "{\\rtf1 Dear board}",
    "budget.xls": "not really a workbook",
    "archive.zip": "PK",
    "voice/memo.mp3": "ID3",
    "export.json": '{"a": 1}',
}
PROGRESS_LINE = re.compile(r"^sync: \d+/\d+ files, \d+ chunks, \d+:\d\d:\d\d elapsed")


def _folder(root: Path, extra: dict[str, str] | None = None) -> Path:
    files = {
        "notes/pump.md": "# Pump\n\nThe coolant pump P-7 is flushed every 400 hours.\n",
        "notes/fans.txt": "The radiator fans run at 1200 rpm in normal mode.\n",
        **(extra or {}),
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _flags(tmp_path: Path, root: Path) -> list[str]:
    return ["--base-dir", str(root), "--db-path", str(tmp_path / "index")]


def test_unsupported_files_are_counted_named_and_listed(run_cli, tmp_path):
    root = _folder(tmp_path / "docs", {**UNSUPPORTED, ".gitignore": "*.log\n", "run.log": "x"})
    flags = _flags(tmp_path, root)
    synced = run_cli("sync", "--json", *flags)
    assert synced.code == 0, synced.stderr
    job = synced.json()
    assert job["state"] == "succeeded"
    assert job["counts"]["unsupported"] == 5
    assert job["counts"]["scanned"] == 7  # the two notes and the five unsupported files
    assert sorted(job["files"]["unsupported"]) == sorted(str(root / rel) for rel in UNSUPPORTED)
    human = run_cli("sync", *flags)
    assert human.code == 0, human.stderr
    assert human.stdout.splitlines()[0] == (
        "sync done: scanned 7, ingested 0, skipped 2, deleted 0, unreadable 0, failed 0, "
        "unsupported 5 (.json 1, .mp3 1, .rtf 1, .xls 1, .zip 1)"
    )
    listed = run_cli("list", "--json", *flags)
    assert listed.code == 0, listed.stderr
    rows = {row["displayPath"]: row for row in listed.json()["files"]}
    assert rows["letter.rtf"]["state"] == "unsupported"
    assert "unsupported file type .rtf" in rows["letter.rtf"]["reason"]
    assert rows["voice/memo.mp3"]["state"] == "unsupported"
    assert rows["notes/pump.md"]["state"] == "ingested" and "reason" not in rows["notes/pump.md"]
    assert "run.log" not in rows  # ignored files only when asked


def test_list_all_names_the_rule_that_ignores(invoke, tmp_path):
    root = _folder(tmp_path / "docs", {".gitignore": "# logs\n\n*.log\n", "run.log": "x"})
    (root / "node_modules" / "pkg").mkdir(parents=True)
    (root / "node_modules" / "pkg" / "README.md").write_text("# pkg\n")
    ran = invoke("list", "--all", "--json", *_flags(tmp_path, root))
    assert ran.code == 0, ran.stderr
    rows = {row["displayPath"]: row for row in ran.json()["files"]}
    assert rows["run.log"]["state"] == "ignored"
    assert rows["run.log"]["reason"] == f"ignored by {root}/.gitignore:3: *.log"
    assert rows["node_modules"]["state"] == "ignored"
    assert rows[".gitignore"]["reason"] == "hidden file (its name starts with a dot)"
    human = invoke("list", "--all", *_flags(tmp_path, root))
    assert human.code == 0 and "ignored by" in human.stdout and "ignored" in human.stdout


def test_too_large_listed_with_the_limit(run_cli, tmp_path):
    root = _folder(tmp_path / "docs", {"big.md": "# Big\n\n" + "word " * 400})
    ran = run_cli("list", "--json", *_flags(tmp_path, root), env={"MAX_FILE_SIZE": "1000"})
    assert ran.code == 0, ran.stderr
    rows = {row["displayPath"]: row for row in ran.json()["files"]}
    assert rows["big.md"]["state"] == "too_large"
    assert "over MAX_FILE_SIZE (1,000 bytes)" in rows["big.md"]["reason"]


def test_empty_docx_is_skipped_listed_and_not_read_again(run_cli, tmp_path):
    root = _folder(tmp_path / "docs")
    empty = empty_docx(root / "thesis" / "page numbers.docx")
    flags = _flags(tmp_path, root)
    first = run_cli("sync", "--json", *flags)
    assert first.code == 0, first.stderr
    job = first.json()
    assert (job["state"], job["error"]) == ("succeeded", None)
    assert job["counts"]["skipped"] == 1 and job["counts"]["failed"] == 0
    assert str(empty) in job["files"]["skipped"]
    reason = next(e["error"] for e in job["errors"] if e["source"] == str(empty))
    assert reason.startswith("skipped-empty: ") and "no text" in reason
    again = run_cli("sync", "--json", *flags)  # skipped from the record: nothing converted
    assert again.code == 0, again.stderr
    assert again.json()["counts"]["skipped"] == 3 and "slowest" not in again.json()
    human = run_cli("sync", *flags)
    assert human.code == 0 and "error:" not in human.stderr
    assert f"warn: {empty}: skipped-empty:" in human.stderr
    rows = {row["displayPath"]: row for row in run_cli("list", "--json", *flags).json()["files"]}
    assert rows["thesis/page numbers.docx"]["state"] == "empty"
    assert "no text" in rows["thesis/page numbers.docx"]["reason"]


@pytest.mark.parametrize(
    ("extra", "code", "state"),
    [
        ({}, 0, "succeeded"),
        ({"empty.docx": None}, 0, "succeeded"),
        ({"broken.pdf": "this is not a PDF"}, 1, "failed"),
    ],
    ids=["clean", "empty-document", "unreadable-file"],
)
def test_exit_code_and_state_agree(run_cli, tmp_path, extra, code, state):
    root = _folder(tmp_path / "docs", {k: v for k, v in extra.items() if v is not None})
    if "empty.docx" in extra:
        empty_docx(root / "empty.docx")
    ran = run_cli("sync", "--json", *_flags(tmp_path, root))
    job = ran.json()
    assert (ran.code, job["state"]) == (code, state), ran.stderr
    if state == "failed":
        assert job["error"] == "1 file could not be ingested (see errors)"
        assert ran.stderr.splitlines()[-1] == "error: 1 file could not be ingested (see errors)"
    else:
        assert job["error"] is None and "error:" not in ran.stderr


def test_progress_lines_off_a_terminal_and_slowest_files(run_cli, tmp_path):
    root = _folder(tmp_path / "docs", {f"more/note{i}.md": f"# Note {i}\n\nFact {i}.\n"
                                       for i in range(14)})  # fmt: skip
    ran = run_cli("sync", "--json", "--progress-every", "0.05", *_flags(tmp_path, root))
    assert ran.code == 0, ran.stderr
    lines = [line for line in ran.stderr.splitlines() if PROGRESS_LINE.match(line)]
    assert lines, ran.stderr  # stderr is a pipe here: lines, not a bar
    assert "\x1b" not in ran.stderr
    slowest = ran.json()["slowest"]
    assert 1 <= len(slowest) <= 5
    for slow in slowest:
        assert slow["source"].startswith(str(root))
        assert slow["chunks"] >= 1  # each was ingested: converted, chunked and embedded
        parts = slow["convertSeconds"] + slow["chunkSeconds"] + slow["embedSeconds"]
        assert slow["seconds"] == pytest.approx(parts, abs=0.002)
    assert [s["seconds"] for s in slowest] == sorted((s["seconds"] for s in slowest), reverse=True)
    silent = run_cli("sync", "--progress-every", "0", *_flags(tmp_path, root))
    assert silent.code == 0 and silent.stderr == ""


def test_human_sync_names_the_slowest_files(run_cli, tmp_path):
    root = _folder(tmp_path / "docs")
    ran = run_cli("sync", *_flags(tmp_path, root))
    assert ran.code == 0, ran.stderr
    out = ran.stdout.splitlines()
    assert out[1] == "slowest files:"
    assert re.match(r"^  \d+\.\d s  .*notes/(pump\.md|fans\.txt): convert \d+\.\d s, chunk "
                    r"\d+\.\d s, embed \d+\.\d s \(1 chunk\)$", out[2])  # fmt: skip
