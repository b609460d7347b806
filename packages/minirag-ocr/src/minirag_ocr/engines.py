"""Which engine reads which language, and what is installed on this machine.

RapidOCR ships in the wheel and reads Latin (and Chinese) text offline, but it has no
Cyrillic model: on Russian it returns confident-looking Latin lookalikes (measured: line
confidence 0.72-0.86 on rendered Russian against 0.98-0.99 on English). Cyrillic therefore
goes to Tesseract with the language pack, found through ``tesseract --list-langs``.

The rule (:func:`select_engine`): when the requested languages include Cyrillic ones and
Tesseract has at least one of their packs, Tesseract reads every page (its ``eng+rus``
model reads mixed pages). When only Latin/Chinese is requested, RapidOCR reads. When
Cyrillic is requested but no pack is installed, RapidOCR reads in *guarded* mode: a page
whose recognition confidence looks like another script is refused with the install
command instead of being indexed as garbage. That fallback is only for a selection of
several Cyrillic languages (the ``eslav`` default, "any of these may turn up"); naming one
(``RAG_OCR_LANG=uk``) without its pack is an error naming the package to install.
"""

from __future__ import annotations

import functools
import logging
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

from minirag_ocr.errors import EngineUnavailableError

__all__ = [
    "CYRILLIC",
    "RAPIDOCR_LANGUAGES",
    "TESSERACT_PACKS",
    "EngineChoice",
    "available_engines",
    "select_engine",
    "tesseract_languages",
]

log = logging.getLogger("minirag_ocr")

#: Language codes (as in RAG_OCR_LANG tables) RapidOCR's bundled models read.
RAPIDOCR_LANGUAGES = frozenset({"en", "ch"})
#: Cyrillic language codes: these need Tesseract.
CYRILLIC = frozenset({"ru", "uk", "be"})
#: Our language code -> Tesseract traineddata name (Debian package tesseract-ocr-<name>).
TESSERACT_PACKS: dict[str, str] = {
    "en": "eng",
    "ru": "rus",
    "uk": "ukr",
    "be": "bel",
    "ch": "chi_sim",
}


@dataclass(frozen=True)
class EngineChoice:
    """The engine that reads pages for a language selection.

    ``engine`` is ``"rapidocr"`` or ``"tesseract"``; ``packs`` the Tesseract languages to
    pass (``eng+rus``); ``guard_hint`` is set in guarded mode and is the message for a page
    that RapidOCR cannot have read correctly. ``advice`` says what to install when part
    of the selection cannot be read as asked (``status`` shows it as ``ocrHint``).
    """

    engine: str
    packs: tuple[str, ...] = ()
    guard_hint: str = ""
    advice: str = ""


@functools.cache
def tesseract_languages() -> frozenset[str]:
    """Traineddata names the installed ``tesseract`` lists (empty when it is not installed)."""
    exe = shutil.which("tesseract")
    if exe is None:
        return frozenset()
    try:
        out = subprocess.run(
            [exe, "--list-langs"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.SubprocessError) as e:
        log.warning("tesseract is on PATH but `tesseract --list-langs` failed: %s", e)
        return frozenset()
    # The first line is a header ("List of available languages in ..."), then one per line.
    lines = out.stdout.splitlines()[1:]
    return frozenset(line.strip() for line in lines if line.strip())


def available_engines() -> tuple[str, ...]:
    """Engine names this install can run: ``rapidocr`` always, ``tesseract`` when on PATH."""
    langs = tesseract_languages()
    return ("rapidocr", "tesseract") if langs - {"osd"} else ("rapidocr",)


def _apt_packages(codes: Sequence[str]) -> str:
    names = ["tesseract-ocr"] + [f"tesseract-ocr-{TESSERACT_PACKS[c]}" for c in codes]
    return "apt-get install " + " ".join(names)


def select_engine(languages: Sequence[str]) -> EngineChoice:
    """Choose the engine for ``languages`` (codes such as ``("en", "ru")``).

    Raises :class:`EngineUnavailableError` naming what to install when no installed engine
    can read the selection at all (an unknown code, or Cyrillic-only without Tesseract).
    """
    unknown = [c for c in languages if c not in TESSERACT_PACKS]
    if unknown or not languages:
        raise EngineUnavailableError(
            f"unknown OCR language code(s) {unknown or list(languages)}; "
            f"known: {', '.join(TESSERACT_PACKS)}"
        )
    cyrillic = [c for c in languages if c in CYRILLIC]
    if not cyrillic:
        return EngineChoice("rapidocr")
    installed = tesseract_languages()
    have = [c for c in languages if TESSERACT_PACKS[c] in installed]
    missing = [c for c in cyrillic if TESSERACT_PACKS[c] not in installed]
    packs = tuple(TESSERACT_PACKS[c] for c in have)
    if any(c in CYRILLIC for c in have):
        advice = (
            f"OCR languages {', '.join(missing)} have no Tesseract pack, so their scans are "
            f"read with {'+'.join(packs)}. For them: {_apt_packages(missing)}"
            if missing
            else ""
        )
        return EngineChoice("tesseract", packs, advice=advice)
    hint = (
        f"Cyrillic OCR ({', '.join(cyrillic)}) needs Tesseract with its language pack: "
        f"{_apt_packages(cyrillic)}"
    )
    if len(cyrillic) == 1 or not any(c in RAPIDOCR_LANGUAGES for c in languages):
        # One Cyrillic language named on purpose (RAG_OCR_LANG=uk) is a request we cannot
        # honour at all; only the several-language default may fall back to Latin pages.
        raise EngineUnavailableError(hint)
    advice = f"{hint}. Until then only Latin scans are read (with rapidocr)."
    return EngineChoice("rapidocr", guard_hint=hint, advice=advice)
