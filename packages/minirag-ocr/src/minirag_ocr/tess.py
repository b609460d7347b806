"""Tesseract through its CLI: orientation (OSD) and recognition of one page at a time.

The image goes to ``tesseract stdin stdout`` as PNG bytes, so no temporary file is left
behind. Orientation uses Tesseract's own OSD (``--psm 0``) on a half-resolution copy: it
reported 90/180/270 correctly on the rotated test PDFs at both resolutions, and half is
~1.8x faster (0.8 s against 1.5 s per A4 page on this loaded machine). A page with too
little text for OSD is read as it is.
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
from collections.abc import Sequence
from typing import TYPE_CHECKING

from minirag_ocr.errors import EngineUnavailableError, OcrError

if TYPE_CHECKING:
    from PIL.Image import Image

__all__ = ["orientation", "recognize"]

_TIMEOUT = 300  # seconds per page; a dense 300-dpi page takes 2-5 s on one core
_OSD_SIDE = 1800  # A4 at ~150 dpi
_ROTATE = re.compile(r"^Rotate:\s*(\d+)", re.MULTILINE)


def _exe() -> str:
    exe = shutil.which("tesseract")
    if exe is None:
        raise EngineUnavailableError("tesseract is not on PATH: apt-get install tesseract-ocr")
    return exe


def _call(image: Image, args: Sequence[str], dpi: int | None) -> subprocess.CompletedProcess[bytes]:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=1)  # fast; the bytes only go down a pipe
    command = [_exe(), "stdin", "stdout", *args]
    if dpi:
        command += ["--dpi", str(dpi)]
    try:
        return subprocess.run(
            command,
            input=buffer.getvalue(),
            capture_output=True,
            timeout=_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise OcrError(f"tesseract failed: {e}") from e


def orientation(image: Image, dpi: int | None) -> int:
    """Degrees to rotate ``image`` counter-clockwise (PIL convention) to make it upright."""
    # OSD at half resolution: same answers on the rotated test PDFs, ~1.8x faster.
    small = image.copy()
    small.thumbnail((_OSD_SIDE, _OSD_SIDE))
    scaled = round(dpi * small.width / image.width) if dpi else None
    done = _call(small, ["--psm", "0"], scaled)
    match = _ROTATE.search(done.stdout.decode("utf-8", "replace"))
    # OSD's "Rotate: N" is clockwise; PIL rotates counter-clockwise.
    return (360 - int(match.group(1))) % 360 if match else 0


def recognize(image: Image, packs: Sequence[str], dpi: int | None) -> str:
    """Read an upright image with the given traineddata packs (``eng``, ``rus`` ...)."""
    done = _call(image, ["-l", "+".join(packs)], dpi)
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise OcrError(f"tesseract exited {done.returncode}: {detail[-1] if detail else ''}")
    text = done.stdout.decode("utf-8", "replace").replace("\f", "")
    return re.sub(r"\n{3,}", "\n\n", text).strip()
