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
import unicodedata

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
#: Detector results this close in "chaos" count as a tie, settled by :data:`_PREFERRED`.
_TIE_CHAOS = 0.02
#: What office software actually writes, most common first (charset-normalizer's names).
_SHORT_BYTES = 512
_SHORT_CANDIDATES = ("cp1251", "cp1252")
_WORDS = re.compile(r"\S+")
_COMMON_LETTERS = frozenset(
    [chr(c) for c in range(0xC0, 0x100) if c not in (0xD7, 0xF7)]  # Latin-1 letters
    + [chr(c) for c in range(0x410, 0x450)]  # А-я
    + list("ЁёЄєІіЇїЎўҐґ")  # Russian, Ukrainian and Belarusian extras
)
_PREFERRED = ("cp1251", "cp1252", "cp932", "gb18030", "cp949", "koi8_r", "cp1250", "cp1253")


def _declared_html_charset(data: bytes) -> str | None:
    match = _META_CHARSET.search(data[:4096])
    if match is None:
        return None
    name = match.group(1).decode("ascii", "replace")
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None  # an unknown label is no information


def _script(char: str) -> str:
    if char.isascii():
        return "LATIN"
    return unicodedata.name(char, "UNKNOWN").split(" ", 1)[0]


def _typographic(char: str) -> bool:
    """ASCII, a letter of a living West-European or East-Slavic alphabet, or typography."""
    if char.isascii() or char in _COMMON_LETTERS:
        return True
    if char.isalpha():
        return False  # "ƒ", "ѓ": what Japanese bytes become in a Windows code page
    category = unicodedata.category(char)
    return category[0] in "PZ" or category in ("Sc", "So")


def _plausible(text: str) -> bool:
    """Only letters and typography beyond ASCII, and no word mixing scripts ("Zoл")."""
    if not all(_typographic(c) for c in text):
        return False
    for word in _WORDS.findall(text):
        if not word.isascii() and len({_script(c) for c in word if c.isalpha()}) > 1:
            return False
    return True


def _short_guess(data: bytes) -> str | None:
    """For a few dozen bytes the detector is a coin toss ("Привет" comes out as CJK);
    the first Windows code page that decodes them into plausible text wins instead."""
    for name in _SHORT_CANDIDATES:
        try:
            text = data.decode(name)
        except UnicodeDecodeError:
            continue
        if _plausible(text):
            return name
    return None


def _detected(data: bytes) -> str | None:
    """charset-normalizer's guess, preferring a common office code page on a near tie.

    Short Cyrillic text scores the same, or slightly better, as Mac Cyrillic as it does as
    cp1251, which differ in their capitals; files written by Windows are cp1251.
    """
    if len(data) <= _SHORT_BYTES and (guess := _short_guess(data)) is not None:
        return guess
    from charset_normalizer import from_bytes

    matches = list(from_bytes(data[:_SAMPLE_BYTES]))
    if not matches:
        return None
    best = matches[0]
    close = {m.encoding for m in matches if m.chaos <= best.chaos + _TIE_CHAOS}
    preferred = next((name for name in _PREFERRED if name in close), None)
    return preferred or best.encoding


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
