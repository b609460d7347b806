"""Markup is not content: a phrase quoted from a link-dense page finds that page first.

A generated Wikipedia-like article (links with targets and titles every few words,
citation markers, navigation) and a few plain pages on the same people and things are
converted by the real markitdown, chunked, embedded by the real offline model and stored in
a real LanceDB. A reader's quote runs through several links: the article must come first
and the passage holding the whole quote must be among the hits (before, link targets ate
the chunk budget and citation markers hid sentence ends, so chunks were cut mid-quote),
while what comes back still carries the links.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from minirag_testkit.answers import expand

_WIKI = "https://en.wikipedia.org/wiki/"


def _link(words: str, page: str | None = None) -> str:
    target = (page or words).replace(" ", "_")
    return f'<a href="{_WIKI}{target}" title="{html.escape(page or words)}">{words}</a>'


def _cite(n: int) -> str:
    return f'<sup class="reference"><a href="#cite_note-{n}">[{n}]</a></sup>'


# Sentences as markup: {Words|Page} is a link to Page showing Words, {Words} links to Words.
_ARTICLE = [
    "The {Analytical Engine} was a proposed {digital|Digital computer} {mechanical computer} "
    "designed by the English {mathematician} and {inventor} {Charles Babbage}, who first "
    "described it in 1837 as the successor to his {Difference Engine}, a simpler "
    "{mechanical calculator|Mechanical calculator}.",
    "The design had an {arithmetic logic unit}, {control flow|Control flow} in the form of "
    "{conditional branching|Branch (computer science)} and {loops|Control flow#Loops}, and "
    "integrated {memory|Computer memory}, making it the first design for a general-purpose "
    "computer that could be described in modern terms as {Turing-complete|Turing completeness}.",
    "Babbage worked closely with {Ada Lovelace}, the daughter of the poet {Lord Byron}, who "
    "translated an article by the Italian engineer {Luigi Menabrea} and added notes that "
    "contain what is often called the {first published algorithm|Note G} intended to be "
    "carried out by such a machine, a method for computing {Bernoulli numbers|Bernoulli number}.",
    "Input of programs and data was to be provided to the machine through {punched cards}, a "
    "method being used at the time to direct mechanical {looms|Jacquard machine} such as the "
    "{Jacquard loom}, and output was to be produced by a {printer|Computer printer}, a "
    "{curve plotter|Plotter} and a {bell|Bell (instrument)}.",
    "The machine was never completed in Babbage's lifetime because of disputes with his chief "
    "engineer {Joseph Clement} and a lack of funding from the {British government|Government "
    "of the United Kingdom}, although his son {Henry Prevost Babbage} later built a small "
    "part of the {mill|Analytical Engine#Design} in 1910.",
]
# Pages on the same people and things, in plain text: they compete for the names.
_DISTRACTORS = {
    "babbage_biography.html": (
        "Charles Babbage",
        "Charles Babbage was born in London in 1791 and studied at Trinity College, Cambridge. "
        "He held the Lucasian chair of mathematics, wrote on the economy of machinery and "
        "manufactures, and campaigned against street musicians in his later years.",
    ),
    "lovelace_biography.html": (
        "Ada Lovelace",
        "Ada Lovelace was born in 1815, the only legitimate child of Lord Byron and Anne "
        "Isabella Milbanke. She was tutored in mathematics by Mary Somerville and Augustus De "
        "Morgan, married William King in 1835 and died of cancer in 1852.",
    ),
    "jacquard_loom.html": (
        "Jacquard machine",
        "The Jacquard machine is a device fitted to a loom that simplifies the manufacture of "
        "textiles with complex patterns. Chains of punched cards laced together direct the "
        "loom; Joseph Marie Jacquard demonstrated it in Lyon in 1804.",
    ),
    "history_of_computing.html": (
        "History of computing hardware",
        "Before electronic computers, calculation relied on tables, slide rules and mechanical "
        "calculators such as the arithmometer. Government offices employed rooms of human "
        "computers, and punched card tabulators served the census from 1890.",
    ),
}


def _sentence(markup: str) -> str:
    def one(match: re.Match[str]) -> str:
        words, _, page = match.group(1).partition("|")
        return _link(words, page or None)

    return re.sub(r"\{([^}]*)\}", one, markup)


def _page(title: str, body: str) -> str:
    nav = " ".join(_link(w, f"Special:{w}") for w in ("Main page", "Contents", "Random"))
    return (
        f"<html><head><title>{title} - Wikipedia</title></head><body>"
        f'<div id="nav">{nav}</div><h1>{title}</h1>{body}</body></html>'
    )


def _article() -> str:
    """Two sentences to a paragraph, each closed by a citation marker, as Wikipedia has it."""
    paragraphs = [_ARTICLE[i : i + 2] for i in range(0, len(_ARTICLE), 2)]
    body, n = "", 0
    for sentences in paragraphs:
        cited = []
        for sentence in sentences:
            n += 1
            cited.append(_sentence(sentence) + _cite(n))
        body += f"<p>{' '.join(cited)}</p>"
    return _page("Analytical Engine", body)


def _reader_text(markdown: str) -> str:
    """The test's own view of what a reader sees of the generated links (no product code)."""
    text = re.sub(r"\]\([^)\s]*(?: \"[^\"]*\")?\)", "", markdown)
    return " ".join(text.replace("[", "").split())


@pytest.fixture(scope="module")
def wiki_env(tmp_path_factory, model_env: dict[str, str]) -> dict[str, str]:
    """An index of the article and the plain pages, synced once for the module."""
    from minirag_store import Index

    base = tmp_path_factory.mktemp("wiki")
    docs = base / "docs"
    docs.mkdir()
    (docs / "analytical_engine.html").write_text(_article(), encoding="utf-8")
    for name, (title, text) in _DISTRACTORS.items():
        (docs / name).write_text(_page(title, f"<p>{text}</p>"), encoding="utf-8")
    env = {**model_env, "BASE_DIR": str(docs), "DB_PATH": str(base / "index")}
    index = Index.open(env)
    try:
        job = index.sync()
    finally:
        index.close()
    assert job["counts"]["ingested"] == 1 + len(_DISTRACTORS), job
    return env


@pytest.fixture
def open_index(wiki_env: dict[str, str]):
    """``open_index(weight)``: the module's index at that ``RAG_HYBRID_WEIGHT``."""
    from minirag_store import Index

    opened: list[Index] = []

    def make(weight: str = "0.6") -> Index:
        opened.append(Index.open({**wiki_env, "RAG_HYBRID_WEIGHT": weight}))
        return opened[-1]

    yield make
    for index in opened:
        index.close()


QUOTES = [
    # each runs through at least three links of the article
    "notes that contain what is often called the first published algorithm intended to be "
    "carried out by such a machine",
    "designed by the English mathematician and inventor Charles Babbage, who first described "
    "it in 1837",
    "output was to be produced by a printer, a curve plotter and a bell",
    "a lack of funding from the British government, although his son Henry Prevost Babbage "
    "later built a small part of the mill",
]


def _holding(hits: list[dict], article: str, quote: str) -> list[int]:
    """Ranks (1-based) of the article's hits whose own passage holds the whole quote."""
    return [
        rank
        for rank, hit in enumerate(hits, 1)
        if hit["source"] == article and quote in _reader_text(hit["text"])
    ]


@pytest.mark.parametrize("quote", QUOTES)
def test_a_quote_through_links_finds_the_page_first_and_its_passage(open_index, wiki_env, quote):
    hits = expand(open_index().query(f'"{quote}"', top_k=5))["results"]
    article = str(Path(wiki_env["BASE_DIR"]) / "analytical_engine.html")
    assert hits[0]["source"] == article
    # The passage that holds the quote is a hit, not only pieces of it cut at the links.
    assert _holding(hits, article, quote)


@pytest.mark.parametrize("quote", QUOTES)
@pytest.mark.parametrize("weight", ["0", "1"], ids=["vector", "keyword"])
def test_each_side_alone_finds_the_passage(open_index, wiki_env, quote, weight):
    # Vector-only and keyword order: what is embedded and what is indexed each match it.
    hits = expand(open_index(weight).query(f'"{quote}"', top_k=5))["results"]
    assert _holding(hits, str(Path(wiki_env["BASE_DIR"]) / "analytical_engine.html"), quote)


def test_hits_and_sections_keep_the_links_to_follow(open_index, wiki_env):
    index = open_index()
    result = expand(index.query("first published algorithm intended for such a machine", top_k=3))
    top = result["results"][0]
    assert f"]({_WIKI}Note_G" in top["text"]
    if top["parentId"] is not None:  # a section comes beside a part of it
        assert f"]({_WIKI}Note_G" in result["parents"][top["parentId"]]
    whole = index.read_file(str(Path(wiki_env["BASE_DIR"]) / "analytical_engine.html"))["text"]
    assert f'[Charles Babbage]({_WIKI}Charles_Babbage "Charles Babbage")' in whole


def test_an_index_of_the_older_scheme_is_brought_up_to_date(make_index, docs_root: Path):
    """An index from before readable text (raw markdown embedded and keyword-indexed):
    the next sync re-embeds the files; a data source's keyword entries are rebuilt in
    place, and status keeps asking for it to be re-ingested until it is."""
    import lancedb
    import minirag_chunker
    from minirag_store.index.storage import keyword_column, summary

    page = f'# Engines\n\nBuilt by [Babbage]({_WIKI}Charles_Babbage "Charles Babbage").\n'
    (docs_root / "engines.md").write_text(page, encoding="utf-8")
    index = make_index()
    index.sync()
    index.ingest_data(page, "note-1", "markdown")
    db_path = index.config.db_path
    index.close()
    # Make it look like an index the previous release wrote: older schemes, and the URL's
    # words in every keyword entry.
    old = lancedb.connect(str(db_path)).open_table("chunks")
    old.update(values={"scheme_version": minirag_chunker.SCHEME_VERSION - 1,
                       "keywords_version": keyword_column.KEYWORDS_VERSION - 1,
                       "keywords": "engin built babbag wikipedia wiki charles_babbag"})  # fmt: skip
    (db_path / summary.FILE_NAME).unlink()  # that release kept no index summary

    index = make_index()
    assert index.status()["staleChunkCount"] == 2
    job = index.sync()
    assert job["counts"]["ingested"] == 1  # the file, re-read and re-embedded
    table = index.table()
    assert table.keyword_search("wikipedia", 5) == []  # both sources' entries rebuilt
    assert {h["source"] for h in table.keyword_search("babbage", 5)} == {
        str(docs_root / "engines.md"),
        "note-1",
    }
    status = index.status()
    assert status["staleChunkCount"] == 1  # the data source's vector: re-ingest it
    assert "ingesting them again" in status["schemeWarning"] and "note-1" in status["schemeWarning"]
    index.ingest_data(page, "note-1", "markdown")
    assert index.status()["staleChunkCount"] == 0
