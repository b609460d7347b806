"""Document titles: which of converter metadata, the first H1 and the filename names a document.

The order is: converter metadata (HTML ``<title>``, EPUB ``dc:title``) → the first ``# H1``
unless it is boilerplate or wordless → the filename stem when it is informative → the
H1 anyway → the stem. A heading the author wrote usually names the document, but office
document sets open with the same section heading ("1. General provisions", "Лист
изменений"), which would give every file in the set one title; and machines name files
(``IMG_20260807_123456``, ``Untitled-1``), which describe nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

__all__ = [
    "BOILERPLATE_HEADINGS",
    "GENERIC_WORDS",
    "choose_title",
    "first_h1",
    "first_heading",
    "is_boilerplate_heading",
    "is_informative_stem",
    "stem_title",
]

#: Section names that open many documents of a set and so never name one (lower-case, ё → е).
BOILERPLATE_HEADINGS: frozenset[str] = frozenset(
    {
        # English
        "introduction", "table of contents", "contents", "toc", "change log", "changelog",
        "changes", "list of changes", "record of changes", "revision history", "revisions",
        "document history", "version history", "history of changes", "amendments",
        "general provisions", "general", "general information", "preface", "foreword",
        "overview", "summary", "abstract", "scope", "purpose", "background",
        "terms and definitions", "definitions", "abbreviations", "glossary", "references",
        "normative references", "appendix", "annex", "title page", "cover page",
        "approval sheet", "document control", "notes", "contents of this document",
        # Russian
        "введение", "содержание", "оглавление", "общие положения", "общие сведения",
        "лист изменений", "лист регистрации изменений", "история изменений",
        "перечень изменений", "изменения", "аннотация", "предисловие", "реферат",
        "термины и определения", "определения", "сокращения", "перечень сокращений",
        "список сокращений", "обозначения и сокращения", "область применения", "назначение",
        "нормативные ссылки", "приложение", "лист согласования", "лист утверждения",
        "титульный лист", "общая часть", "заключение",
    }
)  # fmt: skip

#: Words machines put in file names, in several languages; a stem made only of these
#: (digits dropped) says nothing about the document.
GENERIC_WORDS: frozenset[str] = frozenset(
    {
        # English
        "untitled", "document", "documents", "doc", "new", "copy", "of", "scan", "scanned",
        "img", "image", "dsc", "dscn", "dcim", "pxl", "photo", "pic", "picture", "screenshot",
        "screen", "shot", "file", "page", "at", "the", "and", "from", "final", "draft",
        "version", "v", "export", "download", "attachment", "temp", "tmp", "test", "sample",
        "book", "sheet", "presentation", "slide", "slides", "notes", "note", "text", "report",
        "wa", "whatsapp", "signal", "telegram", "video", "out", "output", "print", "pdf",
        # Russian
        "без", "названия", "имени", "документ", "документа", "новый", "новая", "новое",
        "копия", "скан", "сканирование", "снимок", "экрана", "изображение", "фото",
        "файл", "страница", "книга", "лист", "презентация", "текст", "от", "и", "в",
        # German / French / Spanish / Italian / Portuguese
        "unbenannt", "dokument", "neu", "neues", "kopie", "von", "bild", "datei",
        "sans", "titre", "nouveau", "copie", "de", "du", "fichier",
        "sin", "titulo", "título", "documento", "nuevo", "copia", "imagen", "archivo",
        "senza", "nome", "nuovo", "immagine", "sem", "novo", "imagem",
    }
)  # fmt: skip

_MIN_STEM_CHARS = 4
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_H1 = re.compile(r"^ {0,3}#[ \t]+(.+?)[ \t]*#*[ \t]*$")
_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$")
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_EMPHASIS = re.compile(r"[*_`~]+")
_WORD = re.compile(r"[^\W_]", re.UNICODE)
#: Letter runs only: digits split off and drop (``DSC01234`` → ``dsc``, ``v2`` → ``v``).
_LETTERS = re.compile(r"[^\W\d_]+", re.UNICODE)
_NUMBERING = re.compile(
    r"^(?:(?:section|chapter|part|раздел|глава|часть)\s+)?"
    r"(?:\d+(?:\.\d+)*\.?|[ivxlc]+[.)]|[a-zа-я][.)])\s*",
    re.IGNORECASE,
)
_APPENDIX = re.compile(r"^(?:appendix|annex|приложение)(?:\s+[\w.]{1,4})?$")


def _clean_heading(raw: str) -> str:
    """Heading text without images, link targets or emphasis marks."""
    text = _IMAGE.sub(" ", raw)
    text = _LINK.sub(r"\1", text)
    text = _EMPHASIS.sub("", text).replace("\\", "")
    return " ".join(text.split())


def mark_code_lines(lines: Iterable[str]) -> Iterator[tuple[str, bool]]:
    """Each line with True when it is a fence marker or inside a fenced code block.

    A fence closes only with a marker of its own character at least as long, as in
    CommonMark; an unclosed fence runs to the end.
    """
    fence: str | None = None
    for line in lines:
        match = _FENCE.match(line)
        if match:
            marker = match.group(1)
            if fence is None:
                fence = marker[0] * 3
            elif marker.startswith(fence):
                fence = None
            yield line, True
        else:
            yield line, fence is not None


def first_h1(markdown: str) -> str | None:
    """The text of the first ``# H1`` outside fenced code, cleaned of markup; None if none."""
    return _first(_H1, markdown)


def first_heading(markdown: str) -> str | None:
    """The text of the first heading of any level outside fenced code, cleaned of markup;
    None if none."""
    return _first(_HEADING, markdown)


def _first(pattern: re.Pattern[str], markdown: str) -> str | None:
    for line, code in mark_code_lines(markdown.splitlines()):
        if code:
            continue
        heading = pattern.match(line)
        if heading:
            return _clean_heading(heading.group(1))
    return None


def _has_words(text: str) -> bool:
    return bool(_WORD.search(text))


def is_boilerplate_heading(heading: str) -> bool:
    """True for a section name ("1. Introduction", "Общие положения:") rather than a title."""
    text = heading.lower().replace("ё", "е").strip()
    text = _NUMBERING.sub("", text, count=1)
    text = " ".join(text.strip(" .:;-–—").split())
    return text in BOILERPLATE_HEADINGS or bool(_APPENDIX.match(text))


def is_informative_stem(stem: str) -> bool:
    """True unless the stem is short, or (digits dropped) made only of generic words."""
    if len(stem.strip()) < _MIN_STEM_CHARS:
        return False
    words = _LETTERS.findall(stem.lower())
    return any(word not in GENERIC_WORDS for word in words)


def stem_title(stem: str) -> str:
    """A filename stem as a title: underscores become spaces, the rest is kept as written."""
    return " ".join(stem.replace("_", " ").split())


def choose_title(metadata_title: str | None, markdown: str, path_stem: str | None) -> str | None:
    """The title of a document, by the rules in the module docstring.

    ``path_stem`` is None for data and URL sources: they then get metadata or the first H1
    (boilerplate or not), else None, since a source id names a document without describing it.
    """
    if metadata_title and _has_words(metadata_title):
        return " ".join(metadata_title.split())
    heading = first_h1(markdown)
    if heading is not None and not _has_words(heading):
        heading = None
    if heading and not is_boilerplate_heading(heading):
        return heading
    if path_stem and is_informative_stem(path_stem):
        return stem_title(path_stem)
    if heading:
        return heading
    if path_stem and stem_title(path_stem):
        return stem_title(path_stem)
    return None
