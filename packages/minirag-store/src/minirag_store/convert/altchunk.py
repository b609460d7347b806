"""Word documents whose body lives in embedded parts (``w:altChunk``).

A ``.docx`` may hold, instead of (or between) ordinary paragraphs, ``<w:altChunk r:id=…/>``
elements that point through an ``aFChunk`` relationship to a part in the package: HTML,
MHT, RTF, plain text or a whole other ``.docx``. Word renders those parts in place;
mammoth (markitdown's docx engine) ignores them, so a plagiarism-check report whose body
is one embedded HTML page converted to nothing.

:func:`convert_docx` converts such a document in one markitdown pass: each ``altChunk``
is replaced by a paragraph holding a unique marker, the package is rewritten with that
body, markitdown converts it, and each marker line is then replaced by the markdown of
its part (converted through markitdown too, or recursively for a nested ``.docx``). The
parts thus land in document order, between the ordinary paragraphs around them.

Every package opened is checked against ``MAX_FILE_SIZE`` by the total *uncompressed*
size of its entries before anything is read (zipfile never reads past those declared
sizes), so a zip bomb, nested or not, fails with a message instead of filling memory.
"""

from __future__ import annotations

import contextlib
import io
import posixpath
import re
import secrets
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from minirag_store.convert.encoding import decode_text
from minirag_store.convert.engine import markitdown_convert
from minirag_store.errors import ConversionError

__all__ = ["MAX_NESTING", "DocxText", "convert_docx"]

#: Embedded documents inside embedded documents, at most (a loop of parts would never end).
MAX_NESTING = 4

_PKG_RELS = "http://schemas.openxmlformats.org/package/2006/relationships"
_CONTENT_TYPES_NS = "http://schemas.openxmlformats.org/package/2006/content-types"
# Transitional and Strict OOXML name the same things differently.
_W_NAMESPACES = (
    "http://schemas.openxmlformats.org/wordprocessingml/2006/main",
    "http://purl.oclc.org/ooxml/wordprocessingml/main",
)
_R_NAMESPACES = (
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
    "http://purl.oclc.org/ooxml/officeDocument/relationships",
)
_DOCX_WHAT = "a Word document"


@dataclass(frozen=True)
class DocxText:
    """A converted Word document: markdown and the title its converter found (or None)."""

    markdown: str
    title: str | None


@dataclass(frozen=True)
class _Rel:
    rid: str
    kind: str  # the relationship type's last path segment: "officeDocument", "aFChunk" ...
    target: str  # the part name inside the package ("" for an external target)
    external: bool


class _Budget:
    """Uncompressed bytes a document may expand to, shared by its nested packages."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0

    def spend(self, zf: zipfile.ZipFile, what: str, *, nested: bool) -> None:
        self.used += sum(info.file_size for info in zf.infolist())
        if self.used > self.limit:
            around = " (with the document around it)" if nested else ""
            raise ConversionError(
                f"{what} unpacks to {self.used:,} bytes{around}, over MAX_FILE_SIZE "
                f"({self.limit:,} bytes): a damaged file or a zip bomb; if it is a genuine "
                "document, raise MAX_FILE_SIZE to index it"
            )


def convert_docx(path: Path, max_bytes: int, what: str) -> DocxText:
    """Convert the ``.docx`` at ``path``, embedded ``altChunk`` parts included.

    ``max_bytes`` caps the uncompressed size of the package and of every package nested
    in it, together; ``what`` names the file in errors. Raises :class:`ConversionError`
    for a damaged package, a missing or unreadable embedded part, or a too-large one.
    """
    return _convert(path, _Budget(max_bytes), what, depth=0)


def _convert(source: Path | bytes, budget: _Budget, what: str, depth: int) -> DocxText:
    with _open_zip(source, what) as zf:
        budget.spend(zf, what, nested=depth > 0)
        package = _Package(zf, what)
        if package.chunk_rels():
            return package.convert(budget, depth)
    # No embedded parts: markitdown alone, as for any Word document.
    if isinstance(source, Path):
        result = markitdown_convert(None, source, ".docx", what)
    else:
        result = markitdown_convert(source, None, ".docx", what)
    return DocxText(result.markdown or "", result.title)


@contextlib.contextmanager
def _open_zip(source: Path | bytes, what: str) -> Iterator[zipfile.ZipFile]:
    try:
        with zipfile.ZipFile(source if isinstance(source, Path) else io.BytesIO(source)) as zf:
            yield zf
    except zipfile.BadZipFile as e:
        raise ConversionError(f"{what} is not a valid Word document (damaged zip: {e})") from e


def _xml(data: bytes, what: str) -> Any:
    """Parse package XML without entity expansion or network access."""
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True, remove_comments=True)
    try:
        return etree.fromstring(data, parser=parser)
    except etree.XMLSyntaxError as e:
        raise ConversionError(f"{what} is damaged: its XML does not parse ({e})") from e


def _local(tag: object) -> str:
    return tag.split("}", 1)[-1] if isinstance(tag, str) else ""


class _Package:
    """One opened Word package: its main part, relationships and content types."""

    def __init__(self, zf: zipfile.ZipFile, what: str) -> None:
        self.zf = zf
        self.what = what
        self._names = {name.lower(): name for name in zf.namelist()}
        office = [r for r in self._rels("") if r.kind == "officeDocument" and not r.external]
        self.main = office[0].target if office else "word/document.xml"
        self._chunk_rels = {r.rid: r for r in self._rels(self.main) if r.kind == "aFChunk"}
        self._types: dict[str, str] | None = None

    def read(self, name: str, what: str | None = None) -> bytes:
        """The bytes of part ``name`` (OPC part names are case-insensitive)."""
        real = self._names.get(name.lower())
        if real is None:
            raise ConversionError(
                f"{what or self.what}: the part {name} is missing from the package "
                "(the document is damaged; re-save it in Word)"
            )
        try:
            return self.zf.read(real)
        except (zipfile.BadZipFile, OSError, EOFError) as e:
            raise ConversionError(f"{what or self.what}: cannot read {name}: {e}") from e

    def _rels(self, part: str) -> list[_Rel]:
        folder, base = posixpath.split(part)
        name = posixpath.join(folder, "_rels", f"{base}.rels")
        if name.lower() not in self._names:
            return []
        root = _xml(self.read(name), f"{self.what} ({name})")
        rels = []
        for el in root.iter(f"{{{_PKG_RELS}}}Relationship"):
            external = el.get("TargetMode", "").lower() == "external"
            target = unquote(el.get("Target", ""))
            if not external:
                joined = target if target.startswith("/") else posixpath.join(folder, target)
                target = posixpath.normpath(joined).lstrip("/")
            kind = el.get("Type", "").rsplit("/", 1)[-1]
            rels.append(_Rel(el.get("Id", ""), kind, target, external))
        return rels

    def chunk_rels(self) -> dict[str, _Rel]:
        """The main part's ``aFChunk`` relationships by id (empty: nothing embedded)."""
        return self._chunk_rels

    def content_type(self, name: str) -> str:
        """The declared content type of part ``name`` ("" when undeclared)."""
        if self._types is None:
            self._types = self._content_types()
        ext = posixpath.splitext(name)[1].lstrip(".").lower()
        return self._types.get(name.lower(), self._types.get(f"*.{ext}", ""))

    def _content_types(self) -> dict[str, str]:
        """Part name -> type for overrides, ``*.ext`` -> type for defaults (lower-case)."""
        types: dict[str, str] = {}
        if "[content_types].xml" not in self._names:
            return types
        root = _xml(self.read("[Content_Types].xml"), f"{self.what} ([Content_Types].xml)")
        for el in root:
            ctype = el.get("ContentType", "").lower()
            if _local(el.tag) == "Override":
                types[el.get("PartName", "").lstrip("/").lower()] = ctype
            elif _local(el.tag) == "Default":
                types[f"*.{el.get('Extension', '').lower()}"] = ctype
        return types

    def convert(self, budget: _Budget, depth: int) -> DocxText:
        """Markdown of the body with every embedded part converted in its place."""
        from lxml import etree

        root = _xml(self.read(self.main), f"{self.what} ({self.main})")
        nonce = secrets.token_hex(8).upper()
        parts: dict[str, DocxText] = {}
        chunks = [el for el in root.iter() if _is_alt_chunk(el)]
        for number, el in enumerate(chunks):
            marker = f"MINIRAGALTCHUNK{nonce}X{number}"
            parts[marker] = self._part(_chunk_id(el), budget, depth)
            el.getparent().replace(el, _marker_paragraph(el, marker))
        body = etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)
        result = markitdown_convert(self._rewritten(body), None, ".docx", self.what)
        markdown = _splice(result.markdown or "", parts)
        title = result.title or next((p.title for p in parts.values() if p.title), None)
        return DocxText(markdown, title)

    def _part(self, rid: str, budget: _Budget, depth: int) -> DocxText:
        rel = self._chunk_rels.get(rid)
        if rel is None:
            raise ConversionError(
                f"{self.what}: an embedded part (altChunk {rid or 'without an id'}) has no "
                "relationship in the package; the document is damaged (re-save it in Word)"
            )
        what = f"{self.what}: embedded part {rel.target or rel.rid}"
        if rel.external:
            raise ConversionError(
                f"{what} lives outside the document ({rel.target}) and is not read; "
                "save the document with its parts embedded"
            )
        data = self.read(rel.target, what)
        ctype = self.content_type(rel.target)
        return _convert_part(data, ctype, rel.target, what, budget=budget, depth=depth)

    def _rewritten(self, main_xml: bytes) -> bytes:
        """The package with the new main part and without the parts already converted."""
        skip = {r.target.lower() for r in self._chunk_rels.values()}
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as dst:
            for info in self.zf.infolist():
                name = info.filename
                if name.lower() in skip or info.is_dir():
                    continue
                data = main_xml if name == self._names.get(self.main.lower()) else self.read(name)
                dst.writestr(name, data)
        return out.getvalue()


def _is_alt_chunk(el: Any) -> bool:
    tag = el.tag
    return isinstance(tag, str) and tag.endswith("}altChunk") and _namespace(tag) in _W_NAMESPACES


def _namespace(tag: str) -> str:
    return tag[1:].split("}", maxsplit=1)[0]


def _chunk_id(el: Any) -> str:
    for ns in _R_NAMESPACES:
        if (rid := el.get(f"{{{ns}}}id")) is not None:
            return rid
    return ""


def _marker_paragraph(chunk: Any, marker: str) -> Any:
    """``<w:p><w:r><w:t>marker</w:t></w:r></w:p>`` in the altChunk's own namespace."""
    from lxml import etree

    ns = _namespace(chunk.tag)
    paragraph = etree.Element(f"{{{ns}}}p")
    run = etree.SubElement(paragraph, f"{{{ns}}}r")
    etree.SubElement(run, f"{{{ns}}}t").text = marker
    return paragraph


def _splice(markdown: str, parts: dict[str, DocxText]) -> str:
    """Replace each marker by its part's markdown.

    A marker alone on its line (the usual case) becomes the part's block; one inside a
    line (an altChunk in a table cell) gets the part's text on one line, so the table
    stays a table. A marker the converter dropped still gets its part, at the end, rather
    than losing the text.
    """
    lost: list[str] = []
    for marker, part in parts.items():
        text = part.markdown.strip()
        alone = re.compile(rf"^[ \t]*{marker}[ \t]*$", re.MULTILINE)
        if alone.search(markdown):
            markdown = alone.sub(lambda _m, text=text: text, markdown, count=1)
        elif marker in markdown:
            markdown = markdown.replace(marker, " ".join(text.split()), 1)
        else:
            lost.append(text)
    return "\n\n".join([markdown.rstrip(), *lost]) if lost else markdown


def _kind(data: bytes, content_type: str, name: str) -> str:
    """What an embedded part holds: docx, html, mht, rtf or text ("" when unknown)."""
    if data[:4] == b"PK\x03\x04":
        return "docx"  # a whole package, whatever its declared (…main+xml) type
    by_type = {"text/html": "html", "application/xhtml+xml": "html", "message/rfc822": "mht",
               "multipart/related": "mht", "application/x-mimearchive": "mht",
               "application/rtf": "rtf", "text/rtf": "rtf", "text/plain": "text"}  # fmt: skip
    if kind := by_type.get(content_type.split(";", maxsplit=1)[0].strip()):
        return kind
    by_ext = {".html": "html", ".htm": "html", ".xhtml": "html", ".mht": "mht",
              ".mhtml": "mht", ".rtf": "rtf", ".txt": "text"}  # fmt: skip
    if kind := by_ext.get(posixpath.splitext(name)[1].lower()):
        return kind
    return "rtf" if data.lstrip()[:5] == b"{\\rtf" else ""


def _convert_part(
    data: bytes, content_type: str, name: str, what: str, *, budget: _Budget, depth: int
) -> DocxText:
    kind = _kind(data, content_type, name)
    if kind == "docx":
        if depth + 1 > MAX_NESTING:
            raise ConversionError(
                f"{what} nests Word documents more than {MAX_NESTING} deep; not converted"
            )
        return _convert(data, budget, what, depth + 1)
    if kind == "html":
        result = markitdown_convert(decode_text(data, html=True).encode("utf-8"), None,
                                    ".html", what)  # fmt: skip
        return DocxText(result.markdown or "", result.title)
    if kind == "mht":
        return _convert_mht(data, what)
    if kind == "rtf":
        return DocxText(_rtf_text(data, what), None)
    if kind == "text":
        return DocxText(decode_text(data), None)
    raise ConversionError(
        f"{what} is of a kind minirag cannot read ({content_type or 'no declared type'}); "
        "supported embedded parts: HTML, MHT, RTF, plain text and Word documents"
    )


def _convert_mht(data: bytes, what: str) -> DocxText:
    """An MHT (MIME web archive) part: its HTML page, else its plain text."""
    import email
    import email.policy

    message = email.message_from_bytes(data, policy=email.policy.default)
    body = message.get_body(preferencelist=("html", "plain"))  # type: ignore[attr-defined]
    if body is None:
        raise ConversionError(f"{what} is a web archive (MHT) without an HTML or text page")
    try:
        text = body.get_content()
    except (LookupError, ValueError) as e:  # an unknown charset, a broken transfer encoding
        raise ConversionError(f"{what}: cannot decode its page: {e}") from e
    if body.get_content_subtype() != "html":
        return DocxText(str(text), None)
    result = markitdown_convert(str(text).encode("utf-8"), None, ".html", what)
    return DocxText(result.markdown or "", result.title)


def _rtf_text(data: bytes, what: str) -> str:
    """Plain text of an RTF part (RTF is 7-bit: non-ASCII comes as escapes it declares)."""
    from striprtf.striprtf import rtf_to_text

    try:
        return rtf_to_text(data.decode("latin-1"), errors="replace")
    except (ValueError, LookupError, IndexError) as e:
        raise ConversionError(f"{what}: the RTF does not parse: {e}") from e
