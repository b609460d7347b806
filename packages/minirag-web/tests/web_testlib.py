"""Helpers shared by the web page's tests: a small real corpus with a PDF, a hostile
document and a file that cannot be read, and an index over it."""

from __future__ import annotations

import shutil
from pathlib import Path

from minirag_testkit.scenarios import NOTES, write_files

FIXTURES = Path(__file__).resolve().parents[3] / "tests" / "fixtures"
#: A three-page PDF whose page 2 holds the repair order (what the page-image tests open).
PDF = FIXTURES / "markitdown" / "REPAIR-2022-INV-001_multipage.pdf"

#: Untrusted text: everything in it must reach the page as text, or as a dead link.
HOSTILE = """# Hostile note

Quarterly zebra inventory. <script>window.__pwned = 1; alert('pwned')</script>

<img src="http://203.0.113.9/x.png" onerror="window.__pwned = 2">

[harmless looking](javascript:window.__pwned=3) and [password file](file:///etc/passwd)
and ![tracker](http://203.0.113.9/pixel.png) and [the project](https://example.org/).

<a href="javascript:alert(1)">raw anchor</a> zebra
"""

CORPUS: dict[str, str] = {
    "specs/cooling.md": NOTES["specs/cooling.md"],
    "notes/lunch.txt": NOTES["notes/lunch.txt"],
    "notes/hostile.md": HOSTILE,
}
#: Not a PDF inside: the sync fails on it, and the files view says why.
BROKEN = "scans/broken.pdf"
#: A type minirag does not read: the files view lists it, saying so.
UNSUPPORTED = "scans/fax.rtf"


def write_corpus(root: Path) -> Path:
    """The corpus, the PDF (``invoices/repair.pdf``) and the broken file under ``root``."""
    write_files(root, CORPUS)
    (root / "invoices").mkdir(parents=True, exist_ok=True)
    shutil.copy(PDF, root / "invoices" / "repair.pdf")
    (root / "scans").mkdir(parents=True, exist_ok=True)
    (root / BROKEN).write_bytes(b"%PDF-1.7\nthis is not really a pdf\n")
    (root / UNSUPPORTED).write_text("{\\rtf1 a fax}", encoding="utf-8")
    return root
