"""A PDF page as an image (``Index.page_image``): sizes within the caps, the disk cache, and
every bad input refused with a message that says what to do.

Real PDFs (the vendored fixtures and reportlab-drawn ones from ``minirag_testkit.pdfs``),
indexed through the real pipeline; the PNGs are decoded with Pillow.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from minirag_store import Index
from minirag_store.arguments import PAGE_SCALE, PAGE_WIDTH
from minirag_store.config import load_config
from minirag_store.convert.pagerender import MAX_PNG_BYTES, MAX_SIDE
from minirag_store.errors import (
    EncryptedDocumentError,
    InvalidArgumentError,
    NotFoundError,
    PathOutsideRootsError,
)
from minirag_store.pages import FOLDER, cache_folder
from minirag_testkit.pdfs import AUDIT_PAGES, drawn_pdf, table_pdf
from PIL import Image

FIXTURES = Path(__file__).resolve().parents[3] / "tests" / "fixtures"


@dataclass
class Docs:
    index: Index
    root: Path
    db: Path


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory, model_env: dict[str, str]) -> Iterator[Docs]:
    """An index over a letter-size 3-page PDF, a vendored A4 PDF, a 20,000 pt square page, a
    page of noise, a Markdown file and a data source."""
    base = tmp_path_factory.mktemp("pages")
    root, db = base / "docs", base / "index"
    root.mkdir()
    (root / "audit.pdf").write_bytes(table_pdf(AUDIT_PAGES))
    (root / "medium.pdf").write_bytes((FIXTURES / "kreuzberg" / "medium.pdf").read_bytes())
    (root / "huge.pdf").write_bytes(drawn_pdf(1, (20000, 20000)))
    (root / "noise.pdf").write_bytes(drawn_pdf(1, noise=True))
    (root / "notes.md").write_text("# Notes\n\nThe pump is flushed monthly.\n", encoding="utf-8")
    index = Index.open({**model_env, "BASE_DIR": str(root), "DB_PATH": str(db)})
    job = index.sync()
    assert job["counts"]["failed"] == 0, job
    index.ingest_data("Standup notes: the valve was replaced.", "notes/standup")
    yield Docs(index, root, db)
    index.close()


def _decoded(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.load()
    assert image.format == "PNG"
    return image


def test_a_page_decodes_at_the_size_it_reports(docs: Docs):
    got = docs.index.page_image("audit.pdf", 2)
    image = _decoded(got["png"])
    # letter (612 x 792 pt) at the default scale 2: 1224 x 1584 px, within the 1,600 cap
    assert image.size == (got["width"], got["height"]) == (1224, 1584)
    assert got["scale"] == PAGE_SCALE.default
    assert (got["page"], got["pageCount"], got["displayPath"]) == (2, 3, "audit.pdf")
    assert got["source"] == str(docs.root / "audit.pdf")
    assert len(got["png"]) <= MAX_PNG_BYTES
    # a drawn page, not a blank: dark pixels where the table's text is
    assert image.convert("L").getextrema()[0] < 100


def test_max_width_and_scale_shrink_the_image(docs: Docs):
    narrow = docs.index.page_image("medium.pdf", 1, max_width=600)
    assert narrow["width"] <= 600 and _decoded(narrow["png"]).size[0] == narrow["width"]
    small = docs.index.page_image(str(docs.root / "medium.pdf"), 1, scale=0.5)
    assert small["scale"] == 0.5 and max(small["width"], small["height"]) < 450


def test_a_huge_page_is_drawn_within_the_cap_not_refused(docs: Docs):
    # 20,000 pt square at scale 2 would be a 40,000 px (4.8 GB) bitmap: capped before drawing
    got = docs.index.page_image("huge.pdf", 1, scale=PAGE_SCALE.maximum)
    assert _decoded(got["png"]).size == (got["width"], got["height"]) == (MAX_SIDE, MAX_SIDE)
    assert got["scale"] < 0.1


def test_a_page_no_png_compresses_is_drawn_smaller_until_it_fits(docs: Docs):
    got = docs.index.page_image("noise.pdf", 1)
    assert len(got["png"]) <= MAX_PNG_BYTES
    assert got["scale"] < PAGE_SCALE.default  # the full size would be ~5.8 MB of noise
    assert _decoded(got["png"]).size == (got["width"], got["height"])
    assert max(got["width"], got["height"]) >= 400  # cut to fit, not to nothing


def test_the_second_read_comes_from_the_cache_without_drawing(docs: Docs):
    first = docs.index.page_image("audit.pdf", 3, max_width=800)
    cached = Path(first["path"])
    assert not first["cached"] and cached.parent == docs.db / FOLDER
    written = cached.stat().st_mtime_ns
    again = docs.index.page_image(file_path=str(docs.root / "audit.pdf"), page=3, max_width=800)
    assert again["cached"] and again["png"] == first["png"]
    assert {k: v for k, v in again.items() if k != "cached"} == {
        k: v for k, v in first.items() if k != "cached"
    }
    assert cached.stat().st_mtime_ns == written  # nothing drawn, nothing rewritten
    assert not [p for p in cached.parent.iterdir() if p.name.startswith(".tmp-")]


def test_an_edited_file_is_drawn_again(docs: Docs, tmp_path: Path):
    path = docs.root / "edited.pdf"
    path.write_bytes(table_pdf(AUDIT_PAGES[:1]))
    docs.index.ingest_file(str(path))
    before = docs.index.page_image("edited.pdf", 1)
    assert docs.index.page_image("edited.pdf", 1)["cached"]
    path.write_bytes(drawn_pdf(2))  # changed on disk, not re-indexed yet: the new bytes show
    after = docs.index.page_image("edited.pdf", 2)
    assert not after["cached"] and after["pageCount"] == 2
    assert after["path"] != before["path"]


def test_a_page_the_document_lacks_says_how_many_it_has(docs: Docs):
    with pytest.raises(NotFoundError, match=r"audit\.pdf has 3 pages \(1\.\.3\); page 4 does not"):
        docs.index.page_image("audit.pdf", 4)
    for page in (0, -1, True, None):
        with pytest.raises(InvalidArgumentError, match="page"):
            docs.index.page_image("audit.pdf", page)  # type: ignore[arg-type]


def test_size_arguments_below_their_minimum_are_refused(docs: Docs):
    with pytest.raises(InvalidArgumentError, match=r"scale must be at least 0\.1"):
        docs.index.page_image("audit.pdf", 1, scale=0.01)
    with pytest.raises(InvalidArgumentError, match="maxWidth must be at least 64"):
        docs.index.page_image("audit.pdf", 1, max_width=10)
    wide = docs.index.page_image("audit.pdf", 1, max_width=PAGE_WIDTH.maximum * 3)
    assert wide["width"] <= PAGE_WIDTH.maximum  # above the maximum: served as the maximum


def test_other_formats_say_what_renders(docs: Docs):
    with pytest.raises(InvalidArgumentError, match=r"notes\.md is not a PDF: only PDF pages"):
        docs.index.page_image("notes.md", 1)
    deck = docs.root / "deck.pptx"
    deck.write_bytes((FIXTURES / "markitdown" / "test.pptx").read_bytes())
    with pytest.raises(InvalidArgumentError, match=r"Slides cannot be drawn.*python-pptx"):
        docs.index.page_image(file_path=str(deck), page=1)
    with pytest.raises(InvalidArgumentError, match="not a file: only the pages of PDF files"):
        docs.index.page_image("notes/standup", 1)


def test_paths_outside_the_roots_are_refused_as_read_file_refuses_them(docs: Docs, tmp_path: Path):
    outside = tmp_path / "secret.pdf"
    outside.write_bytes(drawn_pdf(1))
    link = docs.root / "link.pdf"
    link.symlink_to(outside)
    for path in (str(outside), str(link)):
        with pytest.raises(PathOutsideRootsError) as read:
            docs.index.read_file(file_path=path)
        with pytest.raises(PathOutsideRootsError) as looked:
            docs.index.page_image(file_path=path, page=1)
        assert str(looked.value) == str(read.value)


def test_a_link_pointed_out_of_the_root_after_indexing_is_refused(docs: Docs, tmp_path: Path):
    inside, outside = docs.root / "inside.pdf", tmp_path / "elsewhere.pdf"
    inside.write_bytes(drawn_pdf(1))
    outside.write_bytes(drawn_pdf(1))
    link = docs.root / "moving.pdf"
    link.symlink_to(inside)
    docs.index.ingest_file(str(link))
    assert docs.index.page_image("moving.pdf", 1)["pageCount"] == 1
    link.unlink()
    link.symlink_to(outside)
    with pytest.raises(PathOutsideRootsError, match="outside configured document roots"):
        docs.index.page_image("moving.pdf", 1)


def test_missing_unindexed_and_deleted_files_are_not_found(docs: Docs):
    with pytest.raises(NotFoundError, match=r"No indexed source '/.+/nowhere\.pdf'"):
        docs.index.page_image("nowhere.pdf", 1)
    fresh = docs.root / "fresh.pdf"
    fresh.write_bytes(drawn_pdf(1))
    with pytest.raises(NotFoundError, match=r"must be indexed \(sync_start\) before"):
        docs.index.page_image(file_path=str(fresh), page=1)
    gone = docs.root / "gone.pdf"
    gone.write_bytes(drawn_pdf(1))
    docs.index.ingest_file(str(gone))
    gone.unlink()
    with pytest.raises(NotFoundError, match="deleted since it was indexed; sync_start drops"):
        docs.index.page_image("gone.pdf", 1)


def test_an_encrypted_pdf_is_a_clear_error(docs: Docs):
    locked = docs.root / "locked.pdf"
    locked.write_bytes(drawn_pdf(1))
    docs.index.ingest_file(str(locked))
    locked.write_bytes(drawn_pdf(1, password="s3cret"))  # re-saved with a password since
    with pytest.raises(EncryptedDocumentError, match=r"locked\.pdf is encrypted with a password"):
        docs.index.page_image("locked.pdf", 1)


def test_an_index_on_object_storage_caches_under_cache_dir(
    s3, tmp_path: Path, model_env: dict[str, str]
):
    root, cache = tmp_path / "docs", tmp_path / "cache"
    root.mkdir()
    (root / "audit.pdf").write_bytes(table_pdf(AUDIT_PAGES))
    env = {**model_env, "BASE_DIR": str(root), "DB_PATH": s3.uri(), "CACHE_DIR": str(cache)}
    env["DB_STORAGE_OPTIONS"] = s3.storage_options()
    assert cache_folder(load_config(env)) == cache / FOLDER
    index = Index.open(env)
    try:
        index.ingest_file(str(root / "audit.pdf"))
        first = index.page_image("audit.pdf", 1)
        assert not first["cached"] and Path(first["path"]).parent == cache / FOLDER
        assert index.page_image("audit.pdf", 1)["cached"]
        assert os.listdir(cache / FOLDER) == [Path(first["path"]).name]
    finally:
        index.close()
