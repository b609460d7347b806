"""A page of an indexed PDF as an image the model can look at, cached on disk.

The document is named as ``read_file`` names it (a file path checked against the roots, or
a ``displayPath``/source) and must be indexed; its file is checked against the roots again
before it is opened (a symlink pointed out of a root since it was indexed is refused, as
``read_file``'s ``filePath`` is). The page is drawn by :mod:`minirag_store.convert.pagerender`
within its caps.

Drawn pages are kept in ``<DB_PATH>/page-images/`` beside the index (the scan and the
watcher skip the index's folder), or, for an index on object storage, which has no local
folder, in ``<CACHE_DIR>/page-images/``. A file's name is the document's content hash,
the page and the render parameters, so an edited file never gets an old picture, and a
second read of the same page opens one file and draws nothing. The content hash is the one
the index stored when the file's size and mtime are still those indexed (no read of the
file), else the file is hashed now. Files are written to a temporary name and renamed:
a reader sees a whole PNG or none. The folder is kept under :data:`CACHE_BYTES`, the
oldest written files going first.
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from minirag_store.arguments import check_page_size, check_place
from minirag_store.errors import InvalidArgumentError, NotFoundError
from minirag_store.paths import display_path, source_for_path
from minirag_store.reading import document_source, stored_table

if TYPE_CHECKING:
    from minirag_store.config import Config
    from minirag_store.convert.pagerender import Rendered
    from minirag_store.parts import Stored
    from minirag_store.results import PageImage

__all__ = ["CACHE_BYTES", "FOLDER", "cache_folder", "page_image"]

log = logging.getLogger(__name__)

#: The cache folder's name, under DB_PATH (or CACHE_DIR for an index on object storage).
FOLDER = "page-images"
#: What the cache may hold: ~150 pages at the 1.5 MB cap, ~1,000 typical text pages.
CACHE_BYTES = 256 * 1024 * 1024
#: A temporary file older than this was left by a process that died while writing.
_STALE_TEMP_SECONDS = 3600

_SLIDES = (
    "Slides cannot be drawn: minirag reads a deck's text with python-pptx, which has no "
    "renderer, and drawing a slide takes an office suite (LibreOffice) that minirag does not "
    "ship. Read the slide's text with read_file(slide=N), or export the deck as a PDF into a "
    "document root and look at its pages."
)


def cache_folder(config: Config) -> Path:
    """Where drawn pages are kept: beside a local index, else under CACHE_DIR."""
    return (config.db_path or config.cache_dir) / FOLDER


def page_image(
    index: Stored,
    source: str | None,
    page: int | None,
    *,
    file_path: str | None = None,
    scale: float | None = None,
    max_width: int | None = None,
) -> PageImage:
    """Page ``page`` of the indexed PDF named by ``source`` or ``file_path`` as a PNG
    (see the module doc); ``cached`` says whether it came from the cache."""
    from minirag_store.convert.pagerender import RENDER_VERSION, read_meta, render_page

    source = document_source(index, source, file_path)
    place = check_place(page, None)
    if place is None:
        raise InvalidArgumentError("Give the page to look at: page (1-based, a hit's locator.page)")
    number = place[1]
    scale, max_width = check_page_size(scale, max_width)
    path = _pdf_file(index, source)
    meta = _indexed(index, source)
    digest = _content_hash(path, meta)
    key = f"{digest}-p{number}-s{scale:.6g}-w{max_width}-r{RENDER_VERSION}.png"
    target = cache_folder(index.config) / key
    with contextlib.suppress(FileNotFoundError):
        if (known := read_meta(target.read_bytes())) is not None:
            return _result(index.config, source, number, known, target, cached=True)
    drawn = render_page(path, number, scale, max_width)
    _store(target, drawn.png)
    return _result(index.config, source, number, drawn, target, cached=False)


def _result(
    config: Config, source: str, page: int, drawn: Rendered, target: Path, *, cached: bool
) -> PageImage:
    return {
        "source": source,
        "displayPath": display_path(config, source),
        "page": page,
        "pageCount": drawn.page_count,
        "width": drawn.width,
        "height": drawn.height,
        "scale": round(drawn.scale, 4),
        "png": drawn.png,
        "path": str(target),
        "cached": cached,
    }


def _pdf_file(index: Stored, source: str) -> Path:
    """The PDF file ``source`` names, inside a root now; refuses a data or URL source and
    any other format, saying which renders."""
    if not os.path.isabs(source):
        if stored_table(index).chunk_count(source):
            raise InvalidArgumentError(
                f"{source!r} is text added with ingest_data or ingest_url, not a file: only "
                "the pages of PDF files under the document roots can be looked at"
            )
        raise _not_indexed(source)
    suffix = Path(source).suffix.lower()
    if suffix == ".pptx":
        raise InvalidArgumentError(f"{Path(source).name}: {_SLIDES}")
    if suffix != ".pdf":
        raise InvalidArgumentError(
            f"{Path(source).name} is not a PDF: only PDF pages can be looked at (a .pptx "
            "deck's slides cannot be drawn; read any document's text with read_file)"
        )
    source_for_path(index.config, source)  # refuses what resolves outside the roots now
    return Path(source)


def _not_indexed(source: str) -> NotFoundError:
    return NotFoundError(
        f"No indexed source {source!r}; list_files shows what is indexed (file sources are "
        "absolute paths). A PDF must be indexed (sync_start) before its pages can be looked at."
    )


def _indexed(index: Stored, source: str) -> dict[str, Any]:
    """The index's record of the file (its hash, size and mtime when indexed)."""
    from minirag_store.index.storage.schema import sql_str

    rows = stored_table(index).select(
        f"source = {sql_str(source)}", ["source_type", "file_hash", "size", "mtime"]
    )
    if rows.num_rows == 0:
        raise _not_indexed(source)
    return rows.slice(0, 1).to_pylist()[0]


def _content_hash(path: Path, meta: dict[str, Any]) -> str:
    """The file's content hash: the stored one while size and mtime are those indexed."""
    from minirag_store.ingest.workers import file_digest

    try:
        now = path.stat()
        if meta["file_hash"] and (now.st_size, now.st_mtime) == (meta["size"], meta["mtime"]):
            return meta["file_hash"]
        return file_digest(path)[0]
    except (FileNotFoundError, NotADirectoryError) as e:
        raise NotFoundError(
            f"{path} was deleted since it was indexed; sync_start drops it from the index"
        ) from e


def _store(target: Path, png: bytes) -> None:
    """Write ``png`` to ``target`` whole or not at all (a temporary file renamed over it),
    then keep the folder within :data:`CACHE_BYTES`. A cache that cannot be written only
    costs the next read a render: warned, never raised."""
    folder = target.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=".tmp-", suffix=".png", dir=folder)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(png)
            os.replace(temp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
        _prune(folder)
    except OSError as e:
        log.warning("page image not cached in %s: %s", folder, e)


def _prune(folder: Path) -> None:
    """Delete the oldest images until the folder holds at most :data:`CACHE_BYTES`, and
    temporary files a dead writer left."""
    entries: list[tuple[float, int, Path]] = []
    now = time.time()
    for entry in os.scandir(folder):
        with contextlib.suppress(FileNotFoundError):
            stat = entry.stat()
            if entry.name.startswith(".tmp-"):
                if now - stat.st_mtime > _STALE_TEMP_SECONDS:
                    os.unlink(entry.path)
                continue
            entries.append((stat.st_mtime, stat.st_size, Path(entry.path)))
    total = sum(size for _, size, _ in entries)
    for _, size, path in sorted(entries):
        if total <= CACHE_BYTES:
            break
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        total -= size
