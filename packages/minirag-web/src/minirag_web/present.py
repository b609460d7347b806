"""Document text made safe to show, and results shaped for the templates.

Everything a document holds is untrusted. It reaches the page in two ways only:

- :func:`passage` (a hit's passage) and :func:`markdown` (a section or a page): rendered
  from markdown with raw HTML **off** (a
  ``<script>`` or ``<img onerror>`` in the text stays text), links kept only for
  ``http``, ``https`` and ``mailto`` (``javascript:``, ``file:``, ``data:`` and relative
  targets render as their literal text: a dead link), and images never drawn (an
  ``<img>`` pointing elsewhere would be a request leaving the machine): they show as
  their alt text. The Content-Security-Policy (:mod:`minirag_web.app`) is the second
  wall: even a renderer bug could not run a script or load anything from elsewhere.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from markdown_it import MarkdownIt
from markupsafe import Markup, escape
from minirag_store.highlight import heading_text, query_terms, term_spans, without_markers
from minirag_store.locators import describe

__all__ = ["markdown", "mask", "passage", "status_rows"]

#: Link schemes a document may point a person at (a click leaves the page on purpose).
_SAFE_SCHEMES = frozenset({"http", "https", "mailto"})


def _valid_link(url: str) -> bool:
    scheme = urlsplit(url.strip()).scheme.lower()
    return scheme in _SAFE_SCHEMES


def _renderer() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable("table")
    md.validateLink = _valid_link  # type: ignore[method-assign]

    def text(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        return str(marked(tokens[idx].content, env.get("terms", frozenset())))

    def image(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        alt = "".join(child.content for child in tokens[idx].children or ())
        return f'<span class="image">[image: {escape(alt or "no description")}]</span>'

    def link_open(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        # Out of the page, and without telling the target where from.
        tokens[idx].attrSet("rel", "noopener noreferrer nofollow")
        return self.renderToken(tokens, idx, options, env)

    md.add_render_rule("text", text)
    md.add_render_rule("image", image)
    md.add_render_rule("link_open", link_open)
    return md


_MD = _renderer()


def marked(text: str, terms: frozenset[str]) -> Markup:
    """``text`` escaped, with each word matching ``terms`` wrapped in ``<mark>``."""
    out: list[str] = []
    at = 0
    for start, end in term_spans(text, terms):
        out.append(str(escape(text[at:start])))
        out.append(f"<mark>{escape(text[start:end])}</mark>")
        at = end
    out.append(str(escape(text[at:])))
    return Markup("".join(out))


def passage(text: str, query: str) -> Markup:
    """A hit's passage: its markdown rendered as :func:`markdown` does (a table reads as a
    table, where the CLI prints its pipes), the query's words marked."""
    return markdown(text, query)


def markdown(text: str, query: str = "") -> Markup:
    """Document markdown as inert HTML (see the module docstring), query terms marked,
    without the conversion's markers (``<!-- page 3 -->``: for the machine)."""
    return Markup(_MD.render(without_markers(text), {"terms": query_terms(query)}))


def hits(result: Mapping[str, Any], query: str) -> list[dict[str, Any]]:
    """The answer's hits with what the page shows of each: its source, where it is
    (``p. 12``), its heading path, the marked passage, and the page to open it at."""
    shown = []
    for rank, hit in enumerate(result["results"], 1):
        source = result["sources"][hit["src"]]
        locator = hit.get("locator", {})
        shown.append(
            {
                "rank": rank,
                "source": source,
                "chunk": hit["chunkIndex"],
                "last": hit.get("lastChunk"),  # a passage of chunks chunk..last
                "place": describe(locator),
                "heading": heading_text(locator.get("headingPath", "")),
                "page": locator.get("page"),
                "slide": locator.get("slide"),
                "score": hit["score"],
                "match": hit.get("match", {}).get("level", ""),
                "missing": hit.get("match", {}).get("missing", []),
                "passage": passage(hit["text"], query),
            }
        )
    return shown


def sources(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The answer's sources with what the page shows beside each: how many of the hits
    shown are from it and where (``pp. 2, 5``)."""
    held = [0] * len(result["sources"])
    for hit in result["results"]:
        held[hit["src"]] += 1
    return [
        {**summary, "hits": held[i], "places": places(summary)}
        for i, summary in enumerate(result["sources"])
    ]


def places(summary: Mapping[str, Any]) -> str:
    """``pp. 2, 5`` / ``slides 3, 4``: where a source's hits are (as the CLI says)."""
    out = []
    for key, one, many in (("pages", "p.", "pp."), ("slides", "slide", "slides")):
        numbers: Sequence[int] = summary.get(key, [])
        if numbers:
            out.append(f"{one if len(numbers) == 1 else many} {', '.join(map(str, numbers))}")
    return "; ".join(out)


#: status fields in reading order, with their labels (the CLI's words).
_LABELS = {
    "version": "Version",
    "configError": "Configuration error",
    "roots": "Document roots",
    "dbPath": "Index",
    "sourceCount": "Sources",
    "chunkCount": "Chunks",
    "staleChunkCount": "Stale chunks",
    "schemeWarning": "Scheme warning",
    "indexError": "Index error",
    "model": "Model",
    "modelPath": "Model path",
    "cacheDir": "Model cache",
    "chunkTokenBudget": "Chunk token budget",
    "fusion": "Fusion",
    "hybridWeight": "Hybrid weight",
    "maxResponseTokens": "Max response tokens",
    "ocr": "OCR",
    "ocrLang": "OCR language",
    "ocrHint": "OCR install",
    "watch": "Watch setting",
    "watchMode": "Watching here",
    "watchNote": "Why it polls",
    "transport": "Transport",
    "bindAddress": "Bind address",
    "authMode": "Authentication",
}
_PROBLEMS = frozenset({"configError", "indexError"})
_WARNINGS = frozenset({"schemeWarning", "ocrHint", "watchNote"})


def status_rows(status: Mapping[str, Any], secrets: Iterable[str]) -> list[dict[str, Any]]:
    """The status as labelled rows (problems and warnings flagged), every value masked."""
    hidden = tuple(secrets)
    rows = []
    for key, label in _LABELS.items():
        value = status.get(key)
        if value is None or value == []:
            continue
        if isinstance(value, list):
            value = ", ".join(str(v) for v in value)
        level = "problem" if key in _PROBLEMS else "warning" if key in _WARNINGS else ""
        rows.append({"key": key, "label": label, "value": mask(str(value), hidden), "level": level})
    return rows


_USERINFO = re.compile(r"(?P<scheme>[a-z][a-z0-9+.-]*://)[^/@\s]+@", re.IGNORECASE)


def mask(text: str, secrets: Sequence[str]) -> str:
    """``text`` with every configured credential and any URI's user:password replaced."""
    for secret in sorted(secrets, key=len, reverse=True):
        if secret:
            text = text.replace(secret, "****")
    return _USERINFO.sub(r"\g<scheme>****@", text)
