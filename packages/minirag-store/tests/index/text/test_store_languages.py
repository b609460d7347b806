"""Keyword search in the languages a reader writes: scripts without spaces (Chinese,
Japanese, Thai) found by a few characters of a passage, words of stemmed languages
(German, French, Arabic) found in another form, an identifier inside Chinese text, a
document in two languages, text in a script no analysis knows, and the words as written
ranked above the same words inflected (generated text, and the Russian thesis in
``../shared/data/russian_docs`` as ``corpus`` tests). Real chunker, offline test model
(English only: the keyword side decides here) and LanceDB.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from minirag_testkit.answers import expand, shown

CORPUS = {
    "zh/panthers.md": (
        "# 黑豹队\n\n黑豹队的防守只丢了308分，在联赛中排名第六，同时也以24次拦截领先国家橄榄球"
        "联盟，并且四次入选职业碗。职业碗防守截锋卡万·肖特以11分领先于全队。"
    ),
    "zh/server.md": (
        "# 服务器日志\n\n我们的服务器返回了ERR_SOCKET_CLOSED错误，然后客户端在五秒后重新连接，"
        "日志里没有其他异常。"
    ),
    # a note that repeats the identifier's parts: below the one that holds it whole
    "zh/socket-notes.md": (
        "# 笔记\n\n笔记：socket closed err，socket closed err，socket closed err。"
    ),
    "zh/weather.md": (
        "# 天气\n\n今天北京的天气很好，下午气温升到二十五度，晚上有小雨。"
        "明天的防守训练改到室内进行。"
    ),
    "ja/tokyo.md": (
        "# 東京の暮らし\n\n私は東京都に住んでいます。毎朝電車で会社に通い、週末は公園を散歩します。"
        "東京の物価は高いですが、生活はとても便利です。"
    ),
    "ja/kyoto.md": (
        "# 京都\n\n京都には古いお寺がたくさんあります。秋になると紅葉を見に多くの人が訪れます。"
    ),
    "th/language.md": (
        "# ภาษาไทย\n\nภาษาไทยเป็นภาษาราชการของประเทศไทย มีผู้พูดหลายสิบล้านคนและมีอักษรเป็นของตัวเอง"
    ),
    "th/food.md": "# อาหาร\n\nอาหารไทยมีรสชาติเผ็ดและหวาน คนไทยชอบกินข้าวทุกวัน",
    "de/supply.md": (
        "# Logistik\n\nDie Lieferketten der Autoindustrie sind im letzten Jahr oft gerissen. "
        "Viele Hersteller suchen deshalb neue Zulieferer in der Nähe ihrer Werke."
    ),
    "de/bakery.md": (
        "# Bäckerei\n\nDie Bäckerei am Markt backt jeden Morgen frisches Brot und verkauft "
        "es an die Nachbarn, bevor die Geschäfte öffnen."
    ),
    "fr/libraries.md": (
        "# Lecture publique\n\nLes bibliothèques de la ville prêtent des livres à tous les "
        "habitants. Elles ouvrent le samedi et proposent des ateliers aux enfants."
    ),
    "fr/market.md": (
        "# Marché\n\nLe marché couvert vend des fromages et des légumes de la région tous "
        "les jours de la semaine."
    ),
    "ar/library.md": (
        "# المكتبة\n\nتقع المكتبة في وسط المدينة وتفتح أبوابها كل يوم للطلاب والباحثين. "
        "يستعير الزوار الكتب ويقرؤون الصحف."
    ),
    "ar/weather.md": "# الطقس\n\nالطقس اليوم حار جدا في الصيف ويهطل المطر قليلا في الشتاء.",
    "mixed/heating.md": (
        "# Einleitung\n\nIn den neuen Gebäuden der Siedlung arbeiten Wärmepumpen, die im "
        "Winter die Wohnungen heizen und im Sommer kühlen.\n\n"
        "# Summary\n\nThe estate's new buildings are heated by ground loops; the survey "
        "counted how many tenants found the radiators too cold in January."
    ),
    "unknown/gothic.md": "# 𐌲𐌿𐌸𐌹𐍃𐌺\n\n𐌰𐍄𐍄𐌰 𐌿𐌽𐍃𐌰𐍂 𐌸𐌿 𐌹𐌽 𐌷𐌹𐌼𐌹𐌽𐌰𐌼",
}
# Unrelated English notes, so that no word is in most documents.
_TOPICS = ["garden", "kitchen", "travel", "music", "cycling", "birds", "chess", "pottery"]
FILLERS = {
    f"misc/{topic}{n}.md": f"# {topic.title()} notes {n}\n\nThoughts about {topic} number {n}: "
    f"the {topic} club meets on day {n + 3} and brings {n + 2} guests along."
    for topic in _TOPICS
    for n in range(3)
}
CASES = [
    ("排名第", "zh/panthers.md"),  # three characters from the middle of a clause
    ("ERR_SOCKET_CLOSED", "zh/server.md"),  # an identifier inside Chinese text
    ("東京都に住", "ja/tokyo.md"),  # kanji and kana
    ("ราชการ", "th/language.md"),  # a Thai word from a sentence written without spaces
    ("Lieferkette", "de/supply.md"),  # the document says Lieferketten
    ("bibliotheque", "fr/libraries.md"),  # the document says bibliothèques
    ("مكتبة", "ar/library.md"),  # the document says المكتبة (with the article)
    ("Wärmepumpe", "mixed/heating.md"),  # the German section of a two-language document
    ("radiators too cold", "mixed/heating.md"),  # its English section
    ("𐌿𐌽𐍃𐌰𐍂", "unknown/gothic.md"),  # a script no analysis knows, kept as written
]


@pytest.fixture(scope="module")
def lang_index(tmp_path_factory, model_env, write_docs):
    """``(index, root)``: the corpus in many languages + English fillers, indexed once."""
    from minirag_store import Index

    base = tmp_path_factory.mktemp("languages")
    root = base / "docs"
    root.mkdir()
    index = Index.open({**model_env, "BASE_DIR": str(root), "DB_PATH": str(base / "db")})
    write_docs(index, root, {**CORPUS, **FILLERS})
    yield index, root
    index.close()


@pytest.mark.parametrize(("query", "expected"), CASES)
def test_passage_found_first_by_keywords(lang_index, query, expected):
    index, root = lang_index
    hits = index.table().keyword_search(query, 5)
    assert hits, f"no keyword hit for {query!r}"
    assert hits[0]["source"] == str(root / expected), [Path(h["source"]).name for h in hits]


@pytest.mark.parametrize(("query", "expected"), CASES)
def test_passage_found_first_by_the_default_search(lang_index, query, expected):
    index, root = lang_index
    hits = expand(index.query(query, top_k=3))["results"]
    assert hits[0]["source"] == str(root / expected), [Path(h["source"]).name for h in hits]


# ------------------------------------------- the words as written above inflections

# Per stemmed language: the phrase a reader types, and the same words in other forms
# (one stem each), which other passages repeat.
AS_WRITTEN = {
    "en": ("running shoes", ["runs shoe", "run shoe", "shoe runs"]),
    "ru": (
        "информационная система",
        ["информационной системы", "информационных систем", "информационную систему"],
    ),
    "de": ("neue Lieferketten", ["neuen Lieferkette", "neuer Lieferkette", "neues Lieferkette"]),
    "fr": (
        "bibliothèques municipales",
        ["bibliothèque municipale", "bibliothèque municipal", "bibliothèque municipale"],
    ),
    "es": (
        "elecciones presidenciales",
        ["elección presidencial", "elecciones presidencial", "elección presidenciales"],
    ),
}
# Sentences around the phrase, in the phrase's language, so each passage is told as it.
CONTEXT = {
    "en": "The shop on the corner sells {} to people who train in the park every morning.",
    "ru": "В отчёте описана {} предприятия, которую отдел использует каждый день.",
    "de": "Der Bericht beschreibt {} der Firma, die das Werk jeden Tag beliefern sollen.",
    "fr": "Le rapport décrit les {} de la ville, qui prêtent des livres aux habitants.",
    "es": "El informe describe las {} del país, que se celebran cada cuatro años.",
}


def _inflected_corpus() -> dict[str, str]:
    docs = {}
    for lang, (phrase, others) in AS_WRITTEN.items():
        docs[f"{lang}/as-written.md"] = f"# {lang}\n\n" + CONTEXT[lang].format(phrase)
        for i, other in enumerate(others):
            # the inflected forms twice over, where the one passage says the phrase once
            sentence = CONTEXT[lang].format(other)
            docs[f"{lang}/inflected{i}.md"] = f"# {lang}\n\n{sentence} {sentence}"
    return docs


@pytest.fixture(scope="module")
def inflected_index(tmp_path_factory, model_env, write_docs):
    from minirag_store import Index

    base = tmp_path_factory.mktemp("inflected")
    root = base / "docs"
    root.mkdir()
    index = Index.open({**model_env, "BASE_DIR": str(root), "DB_PATH": str(base / "db")})
    write_docs(index, root, {**_inflected_corpus(), **FILLERS})
    yield index, root
    index.close()


@pytest.mark.parametrize("lang", sorted(AS_WRITTEN))
def test_words_as_written_rank_above_the_same_words_inflected(inflected_index, lang):
    index, root = inflected_index
    phrase = AS_WRITTEN[lang][0]
    hits = [Path(h["source"]) for h in index.table().keyword_search(phrase, 10)]
    ours = list(
        dict.fromkeys(p.relative_to(root).as_posix() for p in hits if p.parent.name == lang)
    )
    # every form is found (stems), the one the reader typed first
    assert ours[0] == f"{lang}/as-written.md", ours
    assert len(ours) == 1 + len(AS_WRITTEN[lang][1]), ours


# ----------------------------------------------------------------- the Russian thesis

THESIS = ("Записка.docx", "Записка.pdf")


@pytest.fixture(scope="module")
def thesis_index(shared_data, tmp_path_factory, model_env):
    """``(index, root)``: the thesis as docx and pdf, synced from ``russian_docs``."""
    from minirag_store import Index

    base = tmp_path_factory.mktemp("thesis")
    root = base / "docs"
    root.mkdir()
    for name in THESIS:
        shutil.copy(shared_data / "russian_docs" / "master_thesis" / name, root / name)
    env = {**model_env, "BASE_DIR": str(root), "DB_PATH": str(base / "db")}
    # The searched words are in the pdf's text layer: no page is read again by OCR (its
    # figure pages took minutes).
    env["RAG_OCR_MIN_CHARS_PER_PAGE"] = "0"
    index = Index.open(env)
    index.sync()
    yield index, root
    index.close()


@pytest.mark.corpus
@pytest.mark.parametrize("file", THESIS)
@pytest.mark.parametrize(
    "query", ["Информационная система анализа социальных сетей", "ДИССЕРТАЦИЯ"]
)
def test_thesis_words_as_written_in_the_top_five_of_their_file(thesis_index, file, query):
    """Five chunks that say the words in other cases ranked above the one that says them
    as asked, before the words as written were indexed beside their stems."""
    index, root = thesis_index
    hits = expand(index.query(query, top_k=5, scope=str(root / file)))["results"]
    folded = query.casefold()
    found = [h for h in hits if folded in " ".join(shown(h).casefold().split())]
    assert found, [h["text"][:60] for h in hits]


def test_a_language_told_for_a_few_stray_chunks_is_no_query_alternative():
    """One chunk of 24,964 told French in an English archive must not add French stems to
    every question; a language of a small index's few chunks still counts."""
    import pyarrow as pa
    from minirag_store.index.search.searcher import held_languages

    archive = pa.array(["english"] * 24_000 + ["french"] + [""] * 100)
    assert held_languages(archive) == {"english"}
    assert held_languages(pa.array(["english"] * 24_000 + ["german"] * 20)) == {
        "english",
        "german",
    }
    assert held_languages(pa.array(["english"] * 900 + ["german"] * 3)) == {"english", "german"}
    assert held_languages(pa.array([], pa.string())) == frozenset()


def test_two_threads_writing_at_once_load_the_language_detector_once(monkeypatch):
    """A sync and an ``ingest_file`` that write their first chunks together share one load
    of the detector (~80 MB, up to 1.2 s), not one each."""
    import threading
    import time

    from minirag_store.index.text import language
    from py3langid.langid import LanguageIdentifier

    loads = []
    real = LanguageIdentifier.from_model_file.__func__

    def slow_load(cls, *args, **kwargs):
        loads.append(threading.get_ident())
        time.sleep(0.2)  # the real load's length, so the second thread arrives during it
        return real(cls, *args, **kwargs)

    monkeypatch.setattr(LanguageIdentifier, "from_model_file", classmethod(slow_load))
    language._loaded_detector.cache_clear()  # the test's own load is kept for the next
    told: list[str] = []
    threads = [
        threading.Thread(target=lambda t=t: told.append(language.chunk_language(t)))
        for t in ("Die Lieferketten der Hersteller sind lang und schwer zu überblicken.",
                  "The supply chains of the makers are long and hard to follow.")
    ]  # fmt: skip
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(loads) == 1
    assert sorted(told) == ["english", "german"]


def _count_detector_loads(monkeypatch) -> list[int]:
    from minirag_store.index.text import language
    from py3langid.langid import LanguageIdentifier

    loads: list[int] = []
    real = LanguageIdentifier.from_model_file.__func__

    def counted(cls, *args, **kwargs):
        loads.append(1)
        return real(cls, *args, **kwargs)

    monkeypatch.setattr(LanguageIdentifier, "from_model_file", classmethod(counted))
    language._loaded_detector.cache_clear()
    return loads


def test_a_sync_lets_the_detector_go_and_the_next_write_loads_it_again(
    tmp_path, model_env, monkeypatch
):
    """The detector (~80 MB) is not held past a write that no other follows soon (a CLI
    sync: its last maintenance is the process's peak); the next write still stems German."""
    from minirag_store import Index

    loads = _count_detector_loads(monkeypatch)
    root = tmp_path / "docs"
    root.mkdir()
    (root / "supply.md").write_text(CORPUS["de/supply.md"], encoding="utf-8")
    index = Index.open({**model_env, "BASE_DIR": str(root), "DB_PATH": str(tmp_path / "db")})
    try:
        assert index.sync()["counts"]["ingested"] == 1
        assert len(loads) == 1
        (root / "bakery.md").write_text(CORPUS["de/bakery.md"], encoding="utf-8")
        assert index.sync()["counts"]["ingested"] == 1
        assert len(loads) == 2  # loaded again, not kept in between
        hits = index.table().keyword_search("Bäckereien", 3)  # stemmed as German
        assert hits and Path(hits[0]["source"]).name == "bakery.md"
    finally:
        index.close()


def test_a_watched_index_keeps_the_detector_between_writes(tmp_path, model_env, monkeypatch):
    from minirag_store import Index
    from minirag_store.index.write.writer import Document, DocumentWriter

    loads = _count_detector_loads(monkeypatch)
    index = Index.open({**model_env, "BASE_DIR": str(tmp_path), "DB_PATH": str(tmp_path / "db")})
    try:
        for n, text in enumerate((CORPUS["de/supply.md"], CORPUS["de/bakery.md"])):
            writer = DocumentWriter(index.embedder(), index.table(), 110, keep_languages=True)
            doc = Document(source=f"d{n}", source_type="data", title=f"d{n}", markdown=text)
            assert [chunks for _, chunks in writer.write([doc])]
            writer.finish()
        assert len(loads) == 1
    finally:
        index.close()
