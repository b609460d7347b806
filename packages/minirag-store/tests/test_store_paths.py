"""Source keys, display paths and scope matching: the containment rules users rely on."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from minirag_store import load_config
from minirag_store.errors import InvalidArgumentError, PathOutsideRootsError
from minirag_store.paths import display_path, normalize_scopes, scope_matches, source_for_path


@pytest.fixture
def layout(tmp_path: Path):
    root = tmp_path / "docs"
    (root / "specs").mkdir(parents=True)
    (root / "specs" / "a.md").write_text("x")
    outside = tmp_path / "secret"
    outside.mkdir()
    (outside / "id_rsa").write_text("KEY")
    os.symlink(outside / "id_rsa", root / "notes.md")
    os.symlink(root / "specs" / "a.md", root / "alias.md")
    return load_config({"BASE_DIR": str(root)}, cwd=tmp_path), root, outside


def test_source_keeps_the_link_path_inside_a_root(layout):
    cfg, root, _ = layout
    assert source_for_path(cfg, str(root / "alias.md")) == str(root / "alias.md")
    assert source_for_path(cfg, str(root / "specs" / ".." / "specs" / "a.md")) == str(
        root / "specs" / "a.md"
    )


def test_symlink_escaping_the_roots_is_refused(layout):
    cfg, root, outside = layout
    with pytest.raises(PathOutsideRootsError, match="outside configured document roots"):
        source_for_path(cfg, str(root / "notes.md"))
    with pytest.raises(PathOutsideRootsError):
        source_for_path(cfg, str(outside / "id_rsa"))


def test_paths_must_be_absolute_even_inside_the_cwd(layout, monkeypatch):
    cfg, root, _ = layout
    monkeypatch.chdir(root)  # the CLI makes a typed path absolute before the store sees it
    with pytest.raises(InvalidArgumentError, match="absolute"):
        source_for_path(cfg, "specs/a.md")


def test_display_path_is_relative_to_its_root(layout):
    cfg, root, _ = layout
    assert display_path(cfg, str(root / "specs" / "a.md")) == "specs/a.md"
    assert display_path(cfg, "https://example.com/x", "url") == "https://example.com/x"
    assert display_path(cfg, "notes/today", "data") == "notes/today"


def test_display_path_takes_the_innermost_root_at_a_separator(tmp_path: Path):
    outer, inner = tmp_path / "docs", tmp_path / "docs" / "proj"
    for folder in (inner, tmp_path / "docs" / "project-secret"):
        folder.mkdir(parents=True)
    cfg = load_config({"BASE_DIRS": json.dumps([str(outer), str(inner)])}, cwd=tmp_path)
    assert display_path(cfg, str(inner / "a" / "b.md")) == "a/b.md"
    assert display_path(cfg, str(outer / "project-secret" / "c.md")) == "project-secret/c.md"
    assert display_path(cfg, str(outer / "top.md")) == "top.md"
    assert display_path(cfg, str(tmp_path / "docsx" / "d.md")) == str(tmp_path / "docsx/d.md")
    assert display_path(cfg, str(outer)) == str(outer)  # a root itself: its whole path


@pytest.mark.parametrize(
    ("source", "scope", "expected"),
    [
        ("/docs/proj/notes.md", "/docs/proj", True),
        ("/docs/proj/notes.md", "/docs/proj/", True),
        ("/docs/project-secret/notes.md", "/docs/proj", False),
        ("/docs/proj", "/docs/proj", True),
        ("https://example.com/docs/page", "https://example.com/docs", True),
        ("https://example.com/docs-private", "https://example.com/docs", False),
        ("team/notes", "team", True),
        ("teammate/notes", "team", False),
    ],
)
def test_scope_matches_only_at_a_separator(source, scope, expected):
    assert scope_matches(source, normalize_scopes(scope)) is expected


def test_scope_lists_and_empty_scope():
    scopes = normalize_scopes(["/a/b", "/c"])
    assert scope_matches("/c/d.md", scopes) and not scope_matches("/a/bc.md", scopes)
    assert normalize_scopes(None) is None and normalize_scopes([]) is None
    with pytest.raises(InvalidArgumentError):
        normalize_scopes("  ")
