"""End to end through the store: markitdown's own test files synced, then read and searched.

Every file of markitdown's own tests in ``tests/fixtures/markitdown`` with one of our
extensions is copied
into a fresh root and synced once (parallel parsing, the real model, a real LanceDB).
Each ``expected_strings.json`` entry is then checked twice: its strings are in the
indexed text (``read_file``), and its longer strings find the file by query. Entries
that need markitdown's URL-specific converters, exiftool, audio or OCR are skipped, as
is the scanned PDF (OCR is the add-on's own end-to-end test); files without an entry
(e.g. ``masterformat_partial_numbering.pdf``) are still synced.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from minirag_testkit.answers import expand

EXTENSIONS = {".md", ".markdown", ".txt", ".pdf", ".docx", ".pptx", ".xlsx", ".html", ".htm",
              ".csv", ".epub", ".ipynb"}  # fmt: skip
SKIP_REQUIRES = ("url=", "exiftool", "audio", "ocr")
SCANNED = "MEDRPT-2024-PAT-3847_medical_report_scan_p1.pdf"


def _spec(data: Path) -> dict[str, dict]:
    return json.loads((data / "expected_strings.json").read_text(encoding="utf-8"))["files"]


def _skipped(name: str, entry: dict | None) -> bool:
    requires = (entry or {}).get("requires", "").lower()
    return (
        Path(name).suffix.lower() not in EXTENSIONS
        or name == SCANNED
        or any(word in requires for word in SKIP_REQUIRES)
    )


def _expectations(data: Path) -> dict[str, dict]:
    return {name: entry for name, entry in _spec(data).items() if not _skipped(name, entry)}


@pytest.fixture(scope="module")
def formats_data(fixtures: Path) -> Path:
    return fixtures / "markitdown"


@pytest.fixture(scope="module")
def synced(formats_data: Path, model_env: dict[str, str], tmp_path_factory):
    from minirag_store import Index

    base = tmp_path_factory.mktemp("formats")
    root = base / "docs"
    root.mkdir()
    spec = _spec(formats_data)
    copied = []
    for path in sorted(formats_data.iterdir()):
        if not _skipped(path.name, spec.get(path.name)):
            shutil.copy2(path, root / path.name)
            copied.append(path.name)
    index = Index.open({**model_env, "BASE_DIR": str(root), "DB_PATH": str(base / "index")})
    result = index.sync()
    yield index, root, copied, result
    index.close()


def test_every_supported_file_is_ingested(synced) -> None:
    _index, _root, copied, result = synced
    assert result["state"] == "succeeded"
    assert result["errors"] == []
    assert result["counts"]["failed"] == 0
    assert result["counts"]["ingested"] == len(copied)


def _strip(text: str) -> str:
    return " ".join(text.replace("\\", "").split())


_DATA = Path(__file__).resolve().parent / "fixtures" / "markitdown"


@pytest.mark.parametrize("name", sorted(_expectations(_DATA)))
def test_expected_strings_are_indexed_and_findable(synced, formats_data: Path, name: str) -> None:
    index, root, _copied, _result = synced
    entry = _expectations(formats_data)[name]
    source = str(root / name)
    text = _strip(index.read_file(source)["text"])
    for expected in entry["must_include"]:
        if "data:" in expected:
            continue  # inlined pictures are stripped on purpose (see convert.py)
        assert _strip(expected) in text, f"{name}: {expected!r} missing from the index"
    for unwanted in entry["must_not_include"]:
        assert _strip(unwanted) not in text, f"{name}: {unwanted!r} should not be indexed"
    for phrase in {p for p in entry["plain"] if len(p) >= 16 and "data:" not in p}:
        found = [s["source"] for s in expand(index.query(phrase, top_k=5))["sources"]]
        assert source in found, f"{name}: query {phrase!r} returned {found}"
