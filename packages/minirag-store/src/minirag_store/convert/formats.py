"""What minirag reads: extension sets, ``ingest_data`` formats and the OCR install hint.

One place for them, so the scan, the listing, sync's warnings and the converters agree on
what a supported file is. Pure constants: importing this module costs nothing.
"""

from __future__ import annotations

__all__ = [
    "DATA_FORMATS",
    "DECODED_EXTENSIONS",
    "DOCUMENT_EXTENSIONS",
    "IMAGE_EXTENSIONS",
    "OCR_INSTALL_HINT",
    "PLAIN_EXTENSIONS",
    "ZIP_EXTENSIONS",
]

#: The 12 document extensions every install reads.
DOCUMENT_EXTENSIONS: frozenset[str] = frozenset(
    {".md", ".markdown", ".txt", ".pdf", ".docx", ".pptx", ".xlsx", ".html", ".htm", ".csv",
     ".epub", ".ipynb"}
)  # fmt: skip
#: Image extensions, read only when the OCR add-on is installed.
IMAGE_EXTENSIONS: frozenset[str] = frozenset(
    {".png", ".jpg", ".jpeg", ".tiff", ".tif", ".bmp", ".webp"}
)
#: ``ingest_data`` formats.
DATA_FORMATS: tuple[str, ...] = ("text", "markdown", "html")
OCR_INSTALL_HINT = "uv tool install 'minirag-mcp[ocr]'  (or: pip install 'minirag-cli[ocr]')"

#: Read as text (decoded, never parsed): markitdown would only decode them too.
PLAIN_EXTENSIONS = frozenset({".md", ".markdown", ".txt"})
#: Decoded by us first (a cp1251 CSV read as UTF-8 is mojibake), then parsed by markitdown.
DECODED_EXTENSIONS = frozenset({".csv", ".html", ".htm"})
#: Zip containers: a file of these that is no zip is refused before parsing.
ZIP_EXTENSIONS = frozenset({".docx", ".pptx", ".xlsx", ".epub"})
