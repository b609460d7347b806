"""Store-only fixtures: one small English + Russian corpus indexed once per module.

The corpus goes through the real pipeline (real chunker, real offline model, real
LanceDB). Filler passages about weather make the index larger than one vector window
(max(10·topK, 100) candidates) and than the topK cap (100), so those behaviours are
observable.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

# pytest runs with --import-mode=importlib, so test modules can import a helper module
# only when this folder is on sys.path; store_rows has a name no other package's tests use.
sys.path.insert(0, str(Path(__file__).parent))

CORPUS: dict[str, str] = {
    "en/bread.md": (
        "# Baking bread\n\nBake the loaf at 220 degrees for thirty minutes, until the crust "
        "turns golden and the bottom sounds hollow when tapped."
    ),
    "en/invoices.md": (
        "# Accounts payable\n\nEach supplier invoice is matched against its purchase order "
        "before the payment run on Friday."
    ),
    "en/network.md": (
        "# Proxy failures\n\nWhen the upstream proxy drops the socket the client logs "
        "ERR_CONN_RESET and retries after five seconds."
    ),
    "en/timeouts.md": (
        "# Slow upstreams\n\nA connection that stays silent for a minute is closed with "
        "ERR_CONN_TIMEOUT; the connection reset counter is not touched."
    ),
    "en/spec112.md": "# Warehouse stock\n\nSPEC-112 defines how warehouse stock is counted.",
    "en/spec113.md": (
        "# Warehouse stock audit\n\nSPEC-113 defines the audit of warehouse stock and cites "
        "the spec numbering rules for stock counts and warehouse spec reviews."
    ),
    "en/guid.md": (
        "# Asset register\n\nThe laptop asset 314b0a30-5b04-470b-b9f7-eed2c2bec74a is assigned "
        "to the finance team."
    ),
    "en/recipe.md": (
        "# Grandmother's soup\n\nSimmer the carrots and onions slowly; part number QX-7731 "
        "names the stock pot we use."
    ),
    "ru/склад.md": (
        "# Учёт на складе\n\nЗапасы на складе пересчитываются каждый месяц. Документ И-112 "
        "описывает порядок инвентаризации."
    ),
    "ru/отпуск.md": (
        "# Отпуск\n\nСотрудник подаёт заявление на отпуск за две недели до его начала."
    ),
    "proj/a.md": "# Project notes\n\nThe zebra migration plan lives in the project folder.",
    "project-secret/b.md": "# Secret notes\n\nThe zebra migration secret must never leak.",
    "quo'te/c.md": "# Quote folder\n\nThe zebra migration in a folder with a quote.",
    "guide.md": (
        "# Operations guide\n\n## Backups\n\nBackups run nightly at two. Each backup is "
        "verified by restoring a random table into a scratch database, and the restore log "
        "is kept for ninety days so auditors can check it. Failed restores page the on-call "
        "engineer, who must open an incident within fifteen minutes.\n\n## Monitoring\n\n"
        "Dashboards show disk, memory and queue depth. Alerts fire when the queue depth "
        "stays above one thousand messages for ten minutes, and again every hour until "
        "someone acknowledges them in the paging tool.\n"
    ),
}

_WEATHER = [
    "rain", "storm", "drizzle", "thunder", "hail", "snowfall", "fog", "humidity", "gale",
    "monsoon", "frost", "heatwave",
]  # fmt: skip
_PLACES = ["the coast", "the valley", "the mountains", "the city", "the plains", "the islands"]
_TIMES = ["morning", "afternoon", "evening", "night", "weekend", "week"]


def fillers(count: int = 110) -> dict[str, str]:
    """Short, distinct passages about weather (the 'meteo' folder)."""
    out = {}
    for i in range(count):
        w = _WEATHER[i % len(_WEATHER)]
        p = _PLACES[(i // len(_WEATHER)) % len(_PLACES)]
        t = _TIMES[(i // 3) % len(_TIMES)]
        out[f"meteo/m{i:03d}.md"] = f"Heavy {w} is expected over {p} this {t}, report {i}."
    return out


def write_corpus(index, root: Path, files: dict[str, str]) -> dict[str, int]:
    """Index ``files`` (relative path → markdown) under ``root`` via the real pipeline."""
    from minirag_store.index.writer import Document, DocumentWriter

    docs = []
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        title = text.splitlines()[0].lstrip("# ").strip() if text.startswith("#") else path.stem
        docs.append(Document(str(path), "file", title, text, file_hash=rel, size=len(text)))
    writer = DocumentWriter(index)
    counts = {doc.source: n for doc, n in writer.write(docs)}
    writer.finish()
    return counts


@pytest.fixture(scope="module")
def corpus_index(tmp_path_factory, model_env):
    """``(index, root)``: the corpus + fillers indexed once per test module."""
    from minirag_store import Index

    base = tmp_path_factory.mktemp("store")
    root = base / "docs"
    root.mkdir()
    env = {**model_env, "BASE_DIR": str(root), "DB_PATH": str(base / "db")}
    env["CHUNK_TOKEN_BUDGET"] = "40"  # small, so the guide splits into several chunks
    index = Index.open(env)
    write_corpus(index, root, {**CORPUS, **fillers()})
    yield index, root
    index.close()


@pytest.fixture(scope="module")
def with_config(corpus_index):
    """Factory: an Index over the same table and model with some config fields changed.

    Shares the loaded model and table (loading ONNX again costs seconds per test).
    """
    from minirag_store import Index

    base, _ = corpus_index

    def make(**changes):
        return Index(replace(base.config, **changes), embedder=base.embedder(), table=base.table())

    return make


@pytest.fixture(scope="session")
def corpus_files() -> dict[str, str]:
    """The named corpus (relative path → markdown), without the fillers."""
    return CORPUS


@pytest.fixture(scope="session")
def write_docs():
    """:func:`write_corpus`, for tests that build their own small index."""
    return write_corpus
