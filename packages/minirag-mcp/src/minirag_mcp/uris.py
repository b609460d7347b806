"""The ``minirag://`` URIs that name indexed documents as MCP resources (pure: no I/O).

One form per kind of source, so a file's path can never be read as a data id or a URL::

    minirag://file/<displayPath>            a file, by its path relative to its root
    minirag://file/<displayPath>?root=<r>   the same when that displayPath is indexed
                                            under several roots (<r>: the root's path)
    minirag://data/<id>                     text or markdown ingested under <id>
    minirag://url/<source>                  a web page, by its source (the URL)

Each path segment is percent-encoded (UTF-8), ``/`` kept between segments, so spaces,
``?``, ``#`` and ``%`` in names survive any client. A query adds one place in the
document: ``page=N`` (a PDF page) or ``slide=N`` (a deck's slide), and ``fromChunk=N``
where an earlier read stopped to fit the response budget. Any other ``minirag://`` form
names nothing here (the page images of :mod:`minirag_mcp` use their own forms).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import parse_qsl, quote, unquote, urlencode

from minirag_store.results import DocumentRow

__all__ = ["KINDS", "PREFIX", "Address", "document_uri", "parse_uri"]

#: What every document URI starts with.
PREFIX = "minirag://"
Kind = Literal["file", "data", "url"]
KINDS: tuple[Kind, ...] = ("file", "data", "url")
#: The query keys a document URI may carry, and the number each holds.
_NUMBERS = ("page", "slide", "fromChunk")
_WHOLE = re.compile(r"-?[0-9]{1,9}")


@dataclass(frozen=True)
class Address:
    """What a document URI names: the document and, optionally, a place in it."""

    kind: Kind
    name: str  # a file's displayPath, a data id or a page's source
    root: str | None = None  # only for a file whose displayPath several roots hold
    page: int | None = None
    slide: int | None = None
    from_chunk: int | None = None

    def uri(self, **changes: int | None) -> str:
        """This address as a URI; ``changes`` replace its place (``fromChunk=12``)."""
        query: dict[str, str] = {}
        if self.root is not None:
            query["root"] = self.root
        place = {"page": self.page, "slide": self.slide, "fromChunk": self.from_chunk}
        for key, value in {**place, **changes}.items():
            if value is not None:
                query[key] = str(value)
        base = f"{PREFIX}{self.kind}/{quote(self.name, safe='/')}"
        return f"{base}?{urlencode(query, quote_via=quote)}" if query else base


def document_uri(row: DocumentRow, *, ambiguous: bool = False) -> str:
    """The URI of an indexed document; ``ambiguous``: its displayPath is a file's under
    more than one root, so the URI names the root too."""
    kind = row["sourceType"]
    if kind != "file":
        return Address(kind, row["source"]).uri()
    root = None
    if ambiguous:  # the source is <root>/<displayPath>
        root = row["source"][: len(row["source"]) - len(row["displayPath"])].rstrip("/")
    return Address("file", row["displayPath"], root=root).uri()


def parse_uri(uri: str) -> Address | None:
    """The address ``uri`` names, or None when it is not a well-formed document URI.

    Refused: another scheme or kind, an empty name, a file path that is absolute or
    steps up (``..``) or holds a NUL, an unknown or repeated query key, a number that is
    not a whole number. What the numbers may be (pages from 1, one place at most) is the
    store's to check, as for the tools (``minirag_store.arguments``).
    """
    if not uri.startswith(PREFIX):
        return None
    rest = uri[len(PREFIX) :].split("#", 1)[0]
    path, _, query = rest.partition("?")
    kind, _, encoded = path.partition("/")
    if kind not in KINDS or not encoded:
        return None
    name = unquote(encoded)
    if "\x00" in name or (kind == "file" and not _relative(name)):
        return None
    fields = _query(query, kind)
    if fields is None:
        return None
    numbers = {key: int(fields[key]) for key in _NUMBERS if key in fields}
    return Address(
        kind,  # type: ignore[arg-type]  # checked against KINDS above
        name,
        root=fields.get("root") or None,
        page=numbers.get("page"),
        slide=numbers.get("slide"),
        from_chunk=numbers.get("fromChunk"),
    )


def _query(query: str, kind: str) -> dict[str, str] | None:
    """The query's keys and values; None for a malformed, unknown or repeated key, or a
    number that is not a whole number."""
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query))
    except ValueError:
        return None
    fields: dict[str, str] = {}
    for key, value in pairs:
        if key in fields or key not in (*_NUMBERS, "root") or (key == "root" and kind != "file"):
            return None
        if key != "root" and not _WHOLE.fullmatch(value):
            return None
        fields[key] = value
    return fields


def _relative(name: str) -> bool:
    """A displayPath: relative, no empty, ``.`` or ``..`` segment (nothing outside a root)."""
    if name.startswith("/") or "\\" in name:
        return False
    return all(part not in ("", ".", "..") for part in name.split("/"))
