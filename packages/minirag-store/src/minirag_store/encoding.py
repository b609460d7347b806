"""Decoding text files whose encoding nobody declared: BOMs, UTF-8, then detection.

Office exports in the wild are not UTF-8: Excel writes CSV in the machine's ANSI code
page (cp1251 in Russia, cp932 in Japan), Notepad adds a BOM. Decoding them as UTF-8 with
replacement would index mojibake, so the bytes are decoded in this order: a BOM says
what it is; valid UTF-8 is UTF-8; an HTML ``<meta charset>`` is believed; otherwise
charset-normalizer guesses.
"""

from __future__ import annotations

import codecs
import re

__all__ = ["decode_text"]

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE: it starts with the same bytes
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.I)
#: Detection looks at this much: enough for a confident guess, bounded for a 100 MB file.
_SAMPLE_BYTES = 256 * 1024


def _declared_html_charset(data: bytes) -> str | None:
    match = _META_CHARSET.search(data[:4096])
    if match is None:
        return None
    name = match.group(1).decode("ascii", "replace")
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None  # an unknown label is no information


def _detected(data: bytes) -> str | None:
    from charset_normalizer import from_bytes

    best = from_bytes(data[:_SAMPLE_BYTES]).best()
    return best.encoding if best is not None else None


def decode_text(data: bytes, *, html: bool = False) -> str:
    """``data`` as text, BOM removed, line ends normalised to ``\\n``.

    ``html`` lets a ``<meta charset>`` declaration decide before statistical detection.
    Bytes no candidate decodes cleanly fall back to UTF-8 with replacement characters,
    so the readable part of a damaged file is still indexed.
    """
    for bom, name in _BOMS:
        if data.startswith(bom):
            return _normalise(data[len(bom) :].decode(name, errors="replace"))
    try:
        return _normalise(data.decode("utf-8"))
    except UnicodeDecodeError:
        pass
    candidates = [_declared_html_charset(data) if html else None, _detected(data)]
    for name in candidates:
        if name is None:
            continue
        try:
            return _normalise(data.decode(name))
        except (UnicodeDecodeError, LookupError):
            continue
    return _normalise(data.decode("utf-8", errors="replace"))


def _normalise(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")
