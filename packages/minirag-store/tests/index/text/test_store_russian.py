"""Russian as a reader writes it: inflected phrases, headings in capitals, ё and е.

The self-contained tests generate a long Russian report (over 1,000 chunks) in which the
words of each searched phrase occur everywhere, but the phrase itself is stated once; a
reader who types the phrase in another case or number expects that passage first. The
thesis tests run the same kinds of query over real documents of a Russian master's thesis:
its summary (docx and pdf) and plagiarism report (an altChunk docx) from ``tests/fixtures``,
and, as ``corpus`` tests, the whole thesis in ``../shared/data/russian_docs`` (docx, pdf and
pptx). Everything goes through the real
chunker, the offline test model (English only, so the vector side is weak here: the
default search must not let it bury a clear keyword match) and LanceDB.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
from minirag_testkit.answers import expand, shown

PHRASE_DOC = "системы учёта складских запасов"
CAPS_HEADING = "ПОЯСНИТЕЛЬНАЯ ЗАПИСКА"
LOWER_HEADING = "Порядок инвентаризации"
YO_PHRASE = "расчёт неснижаемого остатка"

# Words of the searched phrases (in many forms) and of their neighbourhood, so every one
# of them is frequent in the report while the phrases themselves are stated once.
_SUBJECTS = [
    "Система", "Системы", "Системой", "Учёт", "Учётом", "Склад", "Складской отдел",
    "Запасы", "Запас", "Поставщик", "Отчёт", "Модуль", "Оператор", "Записка",
    "Пояснение", "Инвентаризация", "Порядок", "Остаток", "Расчёт",
]  # fmt: skip
_VERBS = [
    "обновляет", "проверяет", "хранит", "передаёт", "описывает", "учитывает", "сверяет",
    "получает", "отправляет", "фиксирует",
]  # fmt: skip
_OBJECTS = [
    "данные о запасах", "складские документы", "записи учёта", "остатки на складе",
    "накладные поставщика", "отчёты системы", "сведения о складах", "пояснения к отчёту",
    "порядок работы", "служебные записки", "запасы материалов", "учётные карточки",
    "систему отчётов", "инвентарные описи", "расчёты с поставщиками",
]  # fmt: skip
_WHEN = [
    "каждую ночь", "по понедельникам", "в конце месяца", "после приёмки товара",
    "перед закрытием смены", "по запросу бухгалтерии", "раз в квартал", "при отгрузке",
]  # fmt: skip


# Sentences that hold every word of the searched phrase, only not as that phrase: the
# passages a bag of words cannot tell from the one a reader means.
_SCATTERED = [
    "Система отчётов ведёт учёт, а складские запасы сверяет оператор {when}.",
    "Складские запасы и учёт остатков проверяет система {when}.",
    "Учёт ведёт система, а складские документы и запасы хранит склад {when}.",
    "Запасы складских помещений система ставит на учёт {when}.",
]


def _sentence(rng: random.Random) -> str:
    when = rng.choice(_WHEN)
    if rng.random() < 0.25:
        return rng.choice(_SCATTERED).format(when=when)
    return f"{rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)} {when}."


def _section(rng: random.Random, heading: str, sentences: int, planted: str = "") -> str:
    body = [_sentence(rng) for _ in range(sentences)]
    if planted:
        body.insert(sentences // 2, planted)
    return f"## {heading}\n\n" + " ".join(body)


def report() -> str:
    """A long Russian report (deterministic): sixty sections of generated sentences; the
    three planted passages sit in sections 17, 33 and 48."""
    rng = random.Random(20240611)
    sections = []
    for n in range(60):
        heading, planted = f"Раздел {n + 1}. Работа склада", ""
        if n == 17:
            planted = f"Отдел внедрил модуль {PHRASE_DOC}, и сверка теперь занимает час."
        elif n == 33:
            heading = CAPS_HEADING
        elif n == 48:
            heading = LOWER_HEADING
            planted = f"Отдельно выполняется {YO_PHRASE} для каждого материала."
        sections.append(_section(rng, heading, 24, planted))
    return "# Отчёт о работе склада\n\n" + "\n\n".join(sections) + "\n"


@pytest.fixture(scope="module")
def report_index(tmp_path_factory, model_env, write_docs):
    """``(index, source)``: the generated report (> 1,000 chunks) plus two short notes."""
    from minirag_store import Index

    base = tmp_path_factory.mktemp("ru")
    root = base / "docs"
    root.mkdir()
    index = Index.open({**model_env, "BASE_DIR": str(root), "DB_PATH": str(base / "db")})
    counts = write_docs(
        index,
        root,
        {
            "отчёт.md": report(),
            "памятка.md": "# Памятка\n\nСлужебная записка подаётся начальнику склада.",
            "склад.md": "# Склад\n\nЗапасы хранятся на стеллажах, учёт ведёт система.",
        },
    )
    source = str(root / "отчёт.md")
    assert counts[source] > 1000
    yield index, source
    index.close()


def _top(index, query: str, n: int = 3) -> list[dict]:
    return expand(index.query(query, top_k=n))["results"]


@pytest.mark.parametrize(
    "query",
    [
        "система учёта складских запасов",
        "СИСТЕМА УЧЁТА СКЛАДСКИХ ЗАПАСОВ",
        "системой учета складского запаса",
        "системы учёта складских запасов",
    ],
)
def test_inflected_phrase_finds_the_passage_that_states_it(report_index, query):
    index, source = report_index
    hits = _top(index, query)
    assert hits[0]["source"] == source
    assert any(PHRASE_DOC in h["text"] for h in hits), [h["text"] for h in hits]


@pytest.mark.parametrize("query", ["пояснительная записка", "Пояснительной записки"])
def test_capital_heading_matches_a_lower_case_query(report_index, query):
    index, source = report_index
    hit = _top(index, query, 1)[0]
    assert hit["source"] == source and CAPS_HEADING in shown(hit)


@pytest.mark.parametrize("query", ["ПОРЯДОК ИНВЕНТАРИЗАЦИИ", "порядка инвентаризации"])
def test_lower_case_heading_matches_a_capital_query(report_index, query):
    index, source = report_index
    hit = _top(index, query, 1)[0]
    assert hit["source"] == source and LOWER_HEADING in shown(hit)


@pytest.mark.parametrize("query", ["расчёт неснижаемого остатка", "расчет неснижаемых остатков"])
def test_yo_and_ye_are_one_letter(report_index, query):
    """ё and е match each other both ways (Russian print often drops the dots)."""
    index, _source = report_index
    assert any(YO_PHRASE in h["text"] for h in _top(index, query))


# --------------------------------------------------------------- the real thesis
SUMMARY_FILES = ("avtoreferat.docx", "avtoreferat.pdf", "antiplagiat.docx")


@pytest.fixture(scope="module")
def summary_index(fixtures, tmp_path_factory, model_env):
    """``(index, root)``: the thesis summary as docx and pdf and its plagiarism report (whose
    text is an embedded HTML page), synced from ``tests/fixtures/thesis``."""
    from minirag_store import Index

    base = tmp_path_factory.mktemp("summary")
    root = base / "docs"
    root.mkdir()
    for name in SUMMARY_FILES:
        shutil.copy(fixtures / "thesis" / name, root / name)
    index = Index.open({**model_env, "BASE_DIR": str(root), "DB_PATH": str(base / "db")})
    job = index.sync()
    assert job["counts"]["ingested"] == len(SUMMARY_FILES) and not job["errors"], job
    yield index, root
    index.close()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("query", "file", "needle"),
    [
        # capitals in the document, lower case typed
        ("автореферат", "avtoreferat.pdf", "АВТОРЕФЕРАТ"),
        # lower case in the document, capitals typed
        ("СОДЕРЖАНИЕ РАБОТЫ", "avtoreferat.docx", "Содержание работы"),
        # another case or number than the document's
        ("рекомендательной системе", "avtoreferat.docx", "рекомендательной системы"),
        ("операции поиска", "antiplagiat.docx", "Операция поиска"),
    ],
)
def test_summary_passages_found_as_a_reader_types_them(summary_index, query, file, needle):
    index, root = summary_index
    hits = _top(index, query, 5)
    found = [h for h in hits if h["source"] == str(root / file) and needle in shown(h)]
    assert found, [(Path(h["source"]).name, h["text"][:60]) for h in hits]


THESIS_FILES = ("Записка.docx", "Автореферат.pdf", "Презентация.pptx")


@pytest.fixture(scope="module")
def thesis_index(shared_data, tmp_path_factory, model_env):
    """``(index, root)``: the thesis as docx (1,394 chunks), its summary as pdf and the
    talk as pptx, synced from a copy of ``russian_docs/master_thesis``."""
    from minirag_store import Index

    base = tmp_path_factory.mktemp("thesis")
    root = base / "docs"
    root.mkdir()
    for name in THESIS_FILES:
        shutil.copy(shared_data / "russian_docs" / "master_thesis" / name, root / name)
    index = Index.open({**model_env, "BASE_DIR": str(root), "DB_PATH": str(base / "db")})
    index.sync()
    yield index, root
    index.close()


@pytest.mark.corpus
@pytest.mark.parametrize(
    ("query", "file", "needle"),
    [
        # capitals in the document, lower case typed
        ("общая характеристика работы", "Записка.docx", "ОБЩАЯ ХАРАКТЕРИСТИКА РАБОТЫ"),
        ("заключение", "Записка.docx", "ЗАКЛЮЧЕНИЕ"),
        ("автореферат", "Автореферат.pdf", "АВТОРЕФЕРАТ"),
        # lower case in the document, capitals typed
        ("ОБЗОР ЛИТЕРАТУРЫ", "Записка.docx", "Обзор литературы"),
        ("ЦЕЛЬ РАБОТЫ", "Презентация.pptx", "Цель работы"),
        # another case or number than the document's
        ("методом чередующегося квадрата", "Записка.docx", "Метод чередующихся квадратов"),
        ("цели работы", "Презентация.pptx", "Цель работы"),
        ("коллаборативной фильтрации", "Записка.docx", "Коллаборативная фильтрация"),
        ("учётная запись пользователя", "Записка.docx", "учетных записей пользователей"),
    ],
)
def test_thesis_passages_found_as_a_reader_types_them(thesis_index, query, file, needle):
    index, root = thesis_index
    hits = _top(index, query, 5)
    found = [h for h in hits if h["source"] == str(root / file) and needle in shown(h)]
    assert found, [(Path(h["source"]).name, h["text"][:60]) for h in hits]


# ------------------------------------------------- a vector side with no signal
XQUAD_PASSAGES = 40


@pytest.fixture(scope="module")
def xquad_index(shared_data, tmp_path_factory, model_env, write_docs):
    """``(index, questions)``: the first XQuAD RU passages (one file each) and their
    questions as ``(question, file stem)``. The test model knows English only, so its
    vector side carries next to no signal here (vector-only nDCG@10 0.36 against
    keyword-only 0.95 on all 240 passages, ``bench/fusion.py``)."""
    import json

    from minirag_store import Index

    data = shared_data / "xquad_ru_retrieval"
    lines = (data / "corpus.ru.jsonl").read_text(encoding="utf-8").splitlines()
    passages = [json.loads(line) for line in lines[:XQUAD_PASSAGES]]
    keep = {p["_id"] for p in passages}
    relevant = {}
    for line in (data / "qrels" / "test.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        qid, pid, _ = line.split("\t")
        if pid in keep:
            relevant[qid] = pid
    questions = []
    for line in (data / "queries.ru.jsonl").read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        if q["_id"] in relevant:
            questions.append((q["text"], relevant[q["_id"]]))
    base = tmp_path_factory.mktemp("xquad")
    root = base / "docs"
    root.mkdir()
    index = Index.open({**model_env, "BASE_DIR": str(root), "DB_PATH": str(base / "db")})
    write_docs(index, root, {f"{p['_id']}.md": p["text"].lstrip("\ufeff") for p in passages})
    yield index, questions
    index.close()


def _reciprocal_rank(index, question: str, stem: str) -> float:
    hits = expand(index.query(question, top_k=10))["results"]
    files = list(dict.fromkeys(Path(h["source"]).stem for h in hits))
    return 1.0 / (files.index(stem) + 1) if stem in files else 0.0


@pytest.mark.corpus
def test_hybrid_is_no_worse_than_keywords_when_the_vector_side_is_noise(xquad_index):
    """Russian questions, an English-only model: the default hybrid search ranks the
    answering passage at least as well as keyword search alone (mean reciprocal rank)."""
    from dataclasses import replace

    from minirag_store import Index

    index, questions = xquad_index
    keyword_only = Index(
        replace(index.config, hybrid_weight=1.0), embedder=index.embedder(), table=index.table()
    )
    assert len(questions) > 150
    hybrid = sum(_reciprocal_rank(index, q, stem) for q, stem in questions)
    keyword = sum(_reciprocal_rank(keyword_only, q, stem) for q, stem in questions)
    assert keyword / len(questions) > 0.85  # the keyword side does find them
    # equal ranks can sum to floats one ulp apart: compare past the rounding noise only
    assert hybrid >= keyword - 1e-9, (hybrid / len(questions), keyword / len(questions))
