"""Generated documents the tests of every package read (one copy, not three)."""

from __future__ import annotations

import zipfile
from pathlib import Path

__all__ = ["coolant_area", "empty_docx", "field_manual"]

_NS = "http://schemas.openxmlformats.org/"
_EMPTY_DOCX = {
    "[Content_Types].xml": (
        f'<Types xmlns="{_NS}package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
        'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/word/document.xml" ContentType="application/vnd.'
        'openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'
    ),
    "_rels/.rels": (
        f'<Relationships xmlns="{_NS}package/2006/relationships"><Relationship Id="rId1" '
        f'Type="{_NS}officeDocument/2006/relationships/officeDocument" '
        'Target="word/document.xml"/></Relationships>'
    ),
    # One empty paragraph: what Word saves for a blank page (the thesis folder's
    # "page numbers" document holds only a footer field, which markitdown does not read).
    "word/document.xml": (
        f'<w:document xmlns:w="{_NS}wordprocessingml/2006/main">'
        "<w:body><w:p/><w:sectPr/></w:body></w:document>"
    ),
}


def empty_docx(path: Path) -> Path:
    """Write a valid ``.docx`` that holds no text at ``path``; returns ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as archive:
        for name, xml in _EMPTY_DOCX.items():
            archive.writestr(name, '<?xml version="1.0" encoding="UTF-8"?>' + xml)
    return path


def field_manual(procedures: int) -> str:
    """A long markdown manual: ``procedures`` sections of six numbered steps each."""

    def steps(n: int) -> str:
        step = "Step {n}.{k}: check valve {valve} and log its pressure."
        return " ".join(step.format(n=n, k=k, valve=n * 10 + k) for k in range(6))

    return "# Field manual\n\n" + "\n\n".join(
        f"## Procedure {n}\n\n" + steps(n) for n in range(procedures)
    )


def coolant_area(n: int) -> str:
    """One ~1,200-character section: a long parent for every hit in it."""
    sentences = [
        f"Area {n} coolant inspection found pump {n}{k} within limits after the flush. "
        f"The inspector logged valve {n}{k} pressure and the gasket wear of line {n}{k}."
        for k in range(6)
    ]
    return f"# Area {n} coolant inspection\n\n" + " ".join(sentences) + "\n"
