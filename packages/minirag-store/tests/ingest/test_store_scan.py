"""Scanning: extensions, skips, nested ignore files, symlink containment, warnings, sizes."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest
from minirag_store.config import Config, load_config
from minirag_store.errors import PathOutsideRootsError
from minirag_store.ingest.scan import FileEntry, ScanResult, is_supported, scan


def _write(path: Path, text: str = "content") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _config(*roots: Path, **env: str) -> Config:
    if len(roots) == 1:
        return load_config({"BASE_DIR": str(roots[0]), **env})
    import json

    return load_config({"BASE_DIRS": json.dumps([str(r) for r in roots]), **env})


def _rel(result: ScanResult, root: Path) -> set[str]:
    return {os.path.relpath(f.source, root) for f in result.files}


def test_finds_supported_files_recursively_with_stat_data(docs_root: Path) -> None:
    a = _write(docs_root / "a.md", "hello")
    _write(docs_root / "sub" / "deeper" / "b.PDF")
    _write(docs_root / "sub" / "c.docx")
    _write(docs_root / "sub" / "notes.rtf")  # unsupported
    _write(docs_root / "script.py")
    result = scan(_config(docs_root), ocr=False)
    assert _rel(result, docs_root) == {"a.md", "sub/deeper/b.PDF", "sub/c.docx"}
    entry = next(f for f in result.files if f.source == str(a))
    assert entry == FileEntry(str(a), 5, a.stat().st_mtime, ".md")
    assert entry.path == a
    assert result.warnings == [] and result.oversized == []


def test_skips_dot_names_lock_files_and_tool_folders(docs_root: Path) -> None:
    _write(docs_root / "keep.md")
    _write(docs_root / ".hidden.md")
    _write(docs_root / "~$report.docx")  # Word's lock file beside an open document
    _write(docs_root / "report.docx")
    for folder in (".git", ".venv", "venv", "node_modules", "__pycache__", ".obsidian"):
        _write(docs_root / folder / "inside.md")
    result = scan(_config(docs_root), ocr=False)
    assert _rel(result, docs_root) == {"keep.md", "report.docx"}


def test_skips_the_index_folder_even_without_a_dot(docs_root: Path) -> None:
    _write(docs_root / "doc.md")
    _write(docs_root / "index" / "stray.md")  # a file inside the DB folder
    result = scan(_config(docs_root, DB_PATH=str(docs_root / "index")), ocr=False)
    assert _rel(result, docs_root) == {"doc.md"}


def test_nested_miniragignore_and_gitignore(docs_root: Path) -> None:
    _write(docs_root / ".gitignore", "build/\n*.log.md\n")
    _write(docs_root / ".miniragignore", "drafts/\nsecret*.md\n")
    _write(docs_root / "a.md")
    _write(docs_root / "build" / "out.md")
    _write(docs_root / "drafts" / "d.md")
    _write(docs_root / "secret-plan.md")
    _write(docs_root / "server.log.md")
    _write(docs_root / "proj" / ".miniragignore", "*.csv\n!keep.csv\n/local.md\n")
    _write(docs_root / "proj" / "x.csv")
    _write(docs_root / "proj" / "keep.csv")
    _write(docs_root / "proj" / "local.md")
    _write(docs_root / "proj" / "sub" / "local.md")  # "/local.md" is anchored to proj/
    _write(docs_root / "proj" / "sub" / "y.csv")
    _write(docs_root / "proj" / "sub" / ".gitignore", "!secret-ok.md\n")
    _write(docs_root / "proj" / "sub" / "secret-ok.md")  # re-included by the deeper file
    result = scan(_config(docs_root), ocr=False)
    assert _rel(result, docs_root) == {
        "a.md",
        "proj/keep.csv",
        "proj/sub/local.md",
        "proj/sub/secret-ok.md",
    }


def test_scan_under_a_subfolder_applies_ancestor_ignore_files(docs_root: Path) -> None:
    _write(docs_root / ".miniragignore", "*.csv\n")
    _write(docs_root / "proj" / "a.md")
    _write(docs_root / "proj" / "b.csv")
    _write(docs_root / "other" / "c.md")
    config = _config(docs_root)
    assert _rel(scan(config, docs_root / "proj", ocr=False), docs_root) == {"proj/a.md"}
    assert _rel(scan(config, docs_root / "proj" / "a.md", ocr=False), docs_root) == {"proj/a.md"}
    assert scan(config, docs_root / "proj" / "b.csv", ocr=False).files == []


def test_scan_under_an_ignored_or_skipped_folder_finds_nothing(docs_root: Path) -> None:
    _write(docs_root / ".miniragignore", "private/\n")
    _write(docs_root / "private" / "a.md")
    _write(docs_root / "node_modules" / "pkg" / "README.md")
    config = _config(docs_root)
    assert scan(config, docs_root / "private", ocr=False).files == []
    assert scan(config, docs_root / "node_modules" / "pkg", ocr=False).files == []


def test_scan_under_outside_the_roots_is_refused(tmp_path: Path, docs_root: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    with pytest.raises(PathOutsideRootsError, match="outside configured document roots"):
        scan(_config(docs_root), outside, ocr=False)


def test_scan_under_a_missing_path_is_empty_with_a_warning(docs_root: Path) -> None:
    result = scan(_config(docs_root), docs_root / "gone", ocr=False)
    assert result.files == [] and "does not exist" in result.warnings[0]


def test_symlink_escaping_the_roots_is_skipped_silently(tmp_path: Path, docs_root: Path) -> None:
    secret = _write(tmp_path / "home" / ".ssh" / "id_rsa", "-----BEGIN PRIVATE KEY-----")
    (docs_root / "notes.md").symlink_to(secret)
    (docs_root / "linked-dir").symlink_to(secret.parent, target_is_directory=True)
    _write(docs_root / "real.md")
    result = scan(_config(docs_root), ocr=False)
    assert _rel(result, docs_root) == {"real.md"}
    assert result.warnings == []
    with pytest.raises(PathOutsideRootsError):
        scan(_config(docs_root), docs_root / "notes.md", ocr=False)


def test_symlink_inside_a_root_is_indexed_under_the_link_path(docs_root: Path) -> None:
    target = _write(docs_root / "archive" / "2023" / "plan.md", "plan")
    (docs_root / "current.md").symlink_to(target)
    (docs_root / "latest").symlink_to(docs_root / "archive" / "2023", target_is_directory=True)
    result = scan(_config(docs_root), ocr=False)
    assert _rel(result, docs_root) == {"archive/2023/plan.md", "current.md", "latest/plan.md"}
    link = next(f for f in result.files if f.source.endswith("current.md"))
    assert link.size == 4 and link.path == docs_root / "current.md"


def test_symlink_into_another_root_is_allowed(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    target = _write(b / "shared.md")
    a.mkdir()
    (a / "via-link.md").symlink_to(target)
    result = scan(_config(a, b), ocr=False)
    assert {f.source for f in result.files} == {str(a / "via-link.md"), str(target)}


def test_symlink_loop_to_an_ancestor_is_not_followed(docs_root: Path) -> None:
    _write(docs_root / "sub" / "a.md")
    (docs_root / "sub" / "up").symlink_to(docs_root, target_is_directory=True)
    result = scan(_config(docs_root), ocr=False)
    assert _rel(result, docs_root) == {"sub/a.md"}


def test_dangling_symlink_is_a_warning(docs_root: Path) -> None:
    _write(docs_root / "ok.md")
    (docs_root / "broken.md").symlink_to(docs_root / "deleted.md")
    result = scan(_config(docs_root), ocr=False)
    assert _rel(result, docs_root) == {"ok.md"}
    assert len(result.warnings) == 1 and "Dangling symlink" in result.warnings[0]
    assert "broken.md" in result.warnings[0]


@pytest.mark.usefixtures("file_modes_apply")
def test_unreadable_folder_is_a_warning(docs_root: Path) -> None:
    _write(docs_root / "ok.md")
    locked = docs_root / "locked"
    _write(locked / "x.md")
    locked.chmod(0)
    try:
        result = scan(_config(docs_root), ocr=False)
    finally:
        locked.chmod(0o755)
    assert _rel(result, docs_root) == {"ok.md"}
    assert any("Cannot read folder" in w and "locked" in w for w in result.warnings)


def test_unreadable_folder_warning_via_a_vanished_folder(
    docs_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder that disappears (or cannot be listed) between listing and reading."""
    _write(docs_root / "ok.md")
    _write(docs_root / "gone" / "x.md")
    real_scandir = os.scandir

    def flaky(path):  # the walk lists "gone" and then it vanishes
        if str(path).endswith("gone"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", flaky)
    result = scan(_config(docs_root), ocr=False)
    assert _rel(result, docs_root) == {"ok.md"}
    assert result.warnings == [
        f"Cannot read folder {docs_root / 'gone'}: Permission denied; skipped"
    ]


def test_file_vanishing_mid_scan_is_a_warning(
    docs_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(docs_root / "ok.md")
    doomed = _write(docs_root / "doomed.md")
    real_stat = os.stat

    def stat_after_delete(path, *args, **kwargs):
        if str(path) == str(doomed):
            doomed.unlink(missing_ok=True)  # deleted between the listing and the stat
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat_after_delete)
    result = scan(_config(docs_root), ocr=False)
    assert _rel(result, docs_root) == {"ok.md"}
    assert any("vanished" in w and "doomed.md" in w for w in result.warnings)


def test_oversized_files_are_reported_not_listed(docs_root: Path) -> None:
    _write(docs_root / "small.md", "x" * 10)
    big = _write(docs_root / "big.md", "x" * 5000)
    config = dataclasses.replace(_config(docs_root), max_file_size=1000)
    result = scan(config, ocr=False)
    assert _rel(result, docs_root) == {"small.md"}
    assert [(e.source, e.size) for e in result.oversized] == [(str(big), 5000)]


def test_images_only_with_ocr(docs_root: Path) -> None:
    _write(docs_root / "doc.md")
    _write(docs_root / "scan.TIFF")
    _write(docs_root / "photo.jpg")
    config = _config(docs_root)
    assert _rel(scan(config, ocr=False), docs_root) == {"doc.md"}
    assert _rel(scan(config, ocr=True), docs_root) == {"doc.md", "scan.TIFF", "photo.jpg"}


def test_images_follow_the_ocr_probe(docs_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from minirag_store.convert import ocr

    _write(docs_root / "photo.png")
    monkeypatch.setattr(ocr, "load_backend", lambda: None)
    assert scan(_config(docs_root)).files == []
    monkeypatch.setattr(ocr, "load_backend", object)  # any non-None backend
    assert _rel(scan(_config(docs_root)), docs_root) == {"photo.png"}


def test_is_supported() -> None:
    assert is_supported("/x/Report.DOCX", ocr_available=False)
    assert is_supported(Path("notes.markdown"), ocr_available=False)
    assert not is_supported("/x/~$Report.docx", ocr_available=False)
    assert not is_supported("/x/.draft.md", ocr_available=False)
    assert not is_supported("/x/photo.png", ocr_available=False)
    assert is_supported("/x/photo.png", ocr_available=True)
    assert not is_supported("/x/archive.zip", ocr_available=True)
