"""The store tests' small English + Russian corpus and its weather fillers, and the writer
that indexes them through the real pipeline (used by conftest's fixtures and by tests
that build their own index of it)."""

from __future__ import annotations

from pathlib import Path

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
    from minirag_store.index.write.writer import Document
    from minirag_store.ingest.operations import writer_for

    docs = []
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        title = text.splitlines()[0].lstrip("# ").strip() if text.startswith("#") else path.stem
        st = path.stat()  # as a sync records it, so hits are not `stale`
        docs.append(
            Document(
                str(path), "file", title, text, file_hash=rel, mtime=st.st_mtime, size=st.st_size
            )
        )
    writer = writer_for(index)
    counts = {doc.source: n for doc, n in writer.write(docs)}
    writer.finish()
    return counts
