"""Regenerate the README figures from bench/results/*.json (the only place they are typed).

    uv run python bench/readme.py           # rewrite the generated blocks in place
    uv run python bench/readme.py --check   # exit 1, naming the file, if a block is stale

Each generated block sits between ``<!-- generated:NAME ... -->`` and
``<!-- /generated:NAME -->`` comments: README.md's "Measured" table and the load paragraph
of the minirag-mcp README (and the two tables of environment variables, printed from their
declarations: ``minirag_store.variables``, ``minirag_mcp.variables``). A figure comes from
the JSON a bench script wrote beside its table (``bench/<script>.py`` →
``bench/results/<script>.json``), or from ``bench/results/reference.json`` for the
reference column, which says where its figures were measured.
``tests/test_readme_figures.py`` fails when a README differs from what this prints now,
so a hand edit or a stale JSON shows up in CI.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
#: README file -> the blocks generated in it.
TARGETS = {
    "README.md": ("configuration", "measured", "scale", "remote", "pdf-quality", "cutoff"),
    "packages/minirag-mcp/README.md": ("http-settings", "http-load"),
}


class MissingFiguresError(Exception):
    """A figure's JSON file is missing: say which script writes it."""


def load(results: Path, name: str) -> dict:
    """``results/<name>.json``, or :class:`MissingFiguresError` naming the script to run."""
    path = results / f"{name}.json"
    if not path.is_file():
        raise MissingFiguresError(
            f"{path} not found: run `uv run python bench/{name}.py` (see its --help)"
        )
    return json.loads(path.read_text(encoding="utf-8"))


def when(data: dict) -> str:
    """Where and when one JSON file's figures were measured, in a few words."""
    parts = [f"commit {data.get('commit', '?')}"]
    if "measured" in data:
        parts.append(data["measured"])
    if "load_average_after" in data:
        start, end = data["load_average_before"], data["load_average_after"]
        parts.append(f"load {start:.1f} at start, {end:.1f} at end")
    elif "load_average_before" in data:
        parts.append(f"load {data['load_average_before']:.1f} at start")
    if "cpu_probe_ms" in data:  # the machine's speed then (bench/results_io.py)
        parts.append(f"100k-row matrix-vector product {data['cpu_probe_ms']:.1f} ms")
    if "steal_percent" in data:
        parts.append(f"{data['steal_percent']:.0f} % of CPU time stolen")
    return ", ".join(parts)


def _n(value: float, digits: int = 0) -> str:
    return f"{value:,.{digits}f}"


def measured(results: Path) -> str:
    """README's "Measured" section body: the table and where each file's figures come from."""
    ref = load(results, "reference")
    fusion, quality = load(results, "fusion"), load(results, "quality")
    ingest, query, http = (
        load(results, "ingest"),
        load(results, "query"),
        load(results, "http_load"),
    )
    watch, reembed = load(results, "watch"), load(results, "reembed")
    answers = load(results, "answers")
    languages = load(results, "languages")
    latency = load(results, "sync_latency")
    answerable = load(results, "answerable")
    tool_list = load(results, "tool_list")
    rf = ref["figures"]
    sci = fusion["results"]["scifact"]["report"]
    ru = fusion["results"]["xquad-ru"]["report"]
    sync = ingest["corpora"]["scifact"]
    plain, tuned = sync["sync_over_plain_fastembed"], sync["sync_over_tuned_embedder"]
    noop = ingest["noop"]
    sizes = query["sizes"]
    small, big = sizes[min(sizes, key=int)], sizes[max(sizes, key=int)]
    rows = [
        (
            f"nDCG@10 hybrid / vector / keyword, {sci['queries']} test queries (`bench/fusion.py`)",
            "{hybrid:.3f} / {vector:.3f} / {keyword:.3f}".format(**rf["ndcg10"]),
            f"{sci['hybrid mixture']:.3f} / {sci['vector']:.3f} / {sci['keyword']:.3f} "
            f"(hybrid with `RAG_FUSION=rrf`: {sci['hybrid rrf']:.3f}, "
            f"`score`: {sci['hybrid score']:.3f})",
        ),
        (
            f"XQuAD RU passages, {ru['queries']} questions, English-only test model: "
            "hybrid / vector / keyword (`bench/fusion.py`)",
            "—",
            f"{ru['hybrid mixture']:.3f} / {ru['vector']:.3f} / {ru['keyword']:.3f} "
            f"(`rrf`: {ru['hybrid rrf']:.3f})",
        ),
        *_language_rows(languages),
        (
            f"whole `sync` CPU per chunk, and its CPU over embedding the same chunks alone "
            f"(`bench/ingest.py`, {_n(sync['files'])} SciFact files, {_n(sync['chunks'])} chunks)",
            f"{rf['ingest_cpu_ms_per_chunk']} ms, {rf['ingest_over_raw_embedding']} raw embedding",
            f"{sync['sync_cpu_ms_per_chunk']:.0f} ms; {plain['cpu']:.2f}× plain fastembed at "
            f"its defaults, {tuned['cpu']:.2f}× the product's own embedder "
            f"(wall time: {plain['wall']:.2f}×, {tuned['wall']:.2f}×)",
        ),
        (
            f"index on disk (`bench/quality.py`, {_n(quality['chunks'])} chunks)",
            rf["index_disk"],
            f"{quality['index_mb_after_ingest']:.0f} MB, "
            f"{quality['index_mb_after_reindex'][-1]:.0f} MB after "
            f"{len(quality['index_mb_after_reindex'])} identical "
            f"re-write{'s' if len(quality['index_mb_after_reindex']) != 1 else ''}",
        ),
        (
            "no-op re-sync (`bench/ingest.py`)",
            f"{rf['noop_resync_s']} s",
            f"{noop['first_resync_s']:.2f} s ({_n(noop['files'])} files)",
        ),
        (
            f"first sync of an index made before locators: every file re-read "
            f"(`bench/reembed.py`, {_n(reembed['files'])} SciFact files, "
            f"{_n(reembed['checks']['chunks_after'])} chunks)",
            "—",
            f"{reembed['runs']['after']['sync_cpu_s']:.0f} CPU s, "
            f"{_n(reembed['runs']['after']['chunks_embedded'])} chunks embedded, the rest keep "
            f"their vectors (every chunk embedded again: "
            f"{_n(reembed['runs']['before']['sync_cpu_s'])} CPU s)",
        ),
        (
            "search CPU per query, excl. query embedding (`bench/quality.py`, `bench/query.py`)",
            rf["search_cpu_per_query"],
            f"{quality['query_cpu_ms_excl_embed']:.1f} ms at topK {quality['top_k']} (SciFact, "
            f"{_n(quality['chunks'])} chunks); {small['search_cpu_ms_excl_embed']:.1f} ms at "
            f"the default topK {query['top_k']} ({_n(int(min(sizes, key=int)))} chunks)",
        ),
        (
            f"hybrid query p50 at {_n(int(max(sizes, key=int)))} chunks, embedding included "
            f"(`bench/query.py`, topK {query['top_k']})",
            "—",
            f"{big['query_p50_ms']:.1f} ms, {big['p50_over_embed_p50']:.2f}× the query "
            "embedding alone",
        ),
        (
            f"HTTP with bearer auth, {http['clients']} clients × {_n(http['queries'])} queries "
            f"while one ingests (`bench/http_load.py`, {http['docs_synced_before']} abstracts)",
            "—",
            f"{http['failed_queries']} failed; query p50 {http['query_p50_ms']:.0f} ms, "
            f"p95 {http['query_p95_ms']:.0f} ms; {http['queries_per_s']:.0f} queries/s",
        ),
        _answers_row(answers),
        *_answerable_rows(answerable),
        _tool_list_row(tool_list),
        _latency_row(latency),
        (
            f"watch mode: a saved file -> its new text found, over {watch['edits']} edits in "
            f"a {_n(watch['files'])}-file folder (`bench/watch.py`)",
            "— (no watch mode)",
            f"p50 {watch['p50_s']:.2f} s, p90 {watch['p90_s']:.2f} s (2 s of it is the wait "
            f"for changes to settle; the sync itself: p50 {watch['apply_p50_s']:.2f} s)",
        ),
    ]
    lines = [
        f"| | {ref['label']} | minirag |",
        "|---|---|---|",
        *(f"| {what} | {theirs} | {ours} |" for what, theirs, ours in rows),
        "",
        "Settings: the product's defaults (hybrid = `RAG_FUSION=mixture`), except that "
        "`bench/fusion.py` and `bench/quality.py` rank at topK 30 with no response budget "
        "(`RAG_MAX_RESPONSE_TOKENS` lifted), so nDCG@10 sees every hit, and the rows that "
        "name another fusion or topK.",
        "",
        f"Reference column: {ref['source']}",
        "",
        "Where and when each figure was measured (`bench/results/`; load = the machine's "
        "1-minute load average, shared with other work):",
        "",
        *(
            f"- `{name}.json`: {when(data)}"
            for name, data in (
                ("fusion", fusion),
                ("quality", quality),
                ("ingest", ingest),
                ("query", query),
                ("http_load", http),
                ("watch", watch),
                ("reembed", reembed),
                ("answers", answers),
                ("languages", languages),
                ("answerable", answerable),
                ("sync_latency", latency),
                ("tool_list", tool_list),
            )
        ),
    ]
    return "\n".join(lines)


def _tool_list_row(tool_list: dict) -> tuple[str, str, str]:
    """What ``tools/list`` costs every session's context (bench/tool_list.py)."""
    runs = tool_list["runs"]
    ours = runs["this"]
    before = ", ".join(
        f"{label} {run['total']:,}" for label, run in runs.items() if label != "this"
    )
    return (
        "`tools/list`, read into every session's context: bytes (`bench/tool_list.py`)",
        "—",
        f"{ours['total']:,} bytes (target {tool_list['targetBytes']:,}; {before})",
    )


def _latency_row(latency: dict) -> tuple[str, str, str]:
    """How long a client waits for ``sync_status``, ``status`` and ``list_files`` while
    a sync runs (each scenario's calls, the worst and the p95 of the three kinds)."""
    polls = ("sync_status", "status", "list_files")
    scenarios = latency["scenarios"]
    p95 = max(s["latency_ms"][kind]["p95"] for s in scenarios for kind in polls)
    calls = sum(s["latency_ms"][kind]["calls"] for s in scenarios for kind in polls)
    return (
        f"`sync_status` / `status` / `list_files` answered while a sync runs, over stdio "
        f"(`bench/sync_latency.py`: {len(scenarios)} scenarios, {_n(calls)} calls, 300 small "
        "files and 3 large ones, watch mode on and off)",
        "—",
        f"worst {latency['worst_poll_ms']:.0f} ms, p95 at most {p95:.0f} ms "
        f"(target: every call within {latency['target_ms']:.0f} ms)",
    )


def _answers_row(answers: dict) -> tuple[str, str, str]:
    """What an MCP client gets at topK 50 within the default response budget."""
    parts = []
    for name, label in (("scifact-md", "SciFact .md"), ("nfcorpus-pdf", "NFCorpus PDFs")):
        got = answers["corpora"][name]["top50"]
        fitted, whole = got["default_budget"], got["no_budget"]
        parts.append(
            f"{label}: {fitted['evidence']:.2f} of it document text, {fitted['chunks']:.1f} "
            f"ranked chunks in {fitted['hits']:.1f} passages from {fitted['documents']:.1f} "
            f"documents, nDCG@10 {fitted['ndcg10']:.3f} "
            f"({whole['ndcg10']:.3f} unbudgeted)"
        )
    n = answers["corpora"]["scifact-md"]["queries"]
    return (
        f"a query answer at topK 50 within the default 6,000-token budget (`bench/answers.py`, "
        f"{n} queries a corpus, 1,000 documents)",
        "—",
        "; ".join(parts),
    )


def _answerable_rows(answerable: dict) -> list[tuple[str, str, str]]:
    """Whether an answer knows nothing matches: one row per set, one for identifiers."""
    names = {"scifact": "SciFact", "nfcorpus": "NFCorpus", "xquad-de": "XQuAD German"}
    rows = []
    for name, f in answerable["sets"].items():
        before = f["before"]
        rows.append(
            (
                f"{names.get(name, name)}: answerable vs unanswerable queries (relevant "
                f"documents deleted; {f['answerable']} / {f['unanswerable']}): AUROC of the "
                "answer's match evidence; flagged `bestMatch: weak`, unanswerable / "
                "answerable; nDCG@10 answerable, all (before → after) (`bench/answerable.py`)",
                "—",
                f"AUROC {f['auroc']:.3f}; flagged {f['unanswerable_flagged']:.1%} / "
                f"{f['answerable_flagged']:.1%}; nDCG@10 {before['ndcg_answerable']:.4f} → "
                f"{f['ndcg_answerable']:.4f}, {before['ndcg_full']:.4f} → {f['ndcg_full']:.4f}",
            )
        )
    ids = answerable["identifiers"]
    rows.append(
        (
            f"identifiers no document holds, named in the answer's notice; present ones named "
            f"(`bench/answerable.py`, {ids['queries']} generated queries)",
            "—",
            f"{ids['absent_named']:.0%}; {ids['present_named']:.0%}",
        )
    )
    return rows


#: XQuAD's languages by the names README gives them.
_LANGUAGE_NAMES = {
    "ar": "Arabic", "de": "German", "es": "Spanish", "vi": "Vietnamese", "zh": "Chinese",
    "ru": "Russian", "en": "English",
}  # fmt: skip


def _language_rows(languages: dict) -> list[tuple[str, str, str]]:
    """One Measured row per language of ``bench/languages.py``."""
    rows = []
    for code, r in languages["results"].items():
        rows.append(
            (
                f"XQuAD {_LANGUAGE_NAMES.get(code, code)} passages, {_n(r['questions'])} "
                "questions, English-only test model: keyword / vector / hybrid "
                "(`bench/languages.py`)",
                "—",
                f"{r['keyword']:.3f} / {r['vector']:.3f} / {r['hybrid']:.3f} (plain BM25 "
                f"over {r['bm25_best_is']}: {r['bm25_best']:.3f}); hybrid p50 "
                f"{r['hybrid_p50_ms']:.0f} ms",
            )
        )
    return rows


def http_load(results: Path) -> str:
    """The load paragraph of the minirag-mcp README."""
    h = load(results, "http_load")
    return (
        f"`bench/http_load.py` runs {h['clients']} clients querying at once "
        f"({_n(h['queries'])} queries) while a ninth ingests, over HTTP with a bearer token, "
        f"and fails on any failed call. On a 2-core machine shared with other work (load "
        f"{h['load_average_before']:.1f}), with {h['docs_synced_before']} SciFact abstracts "
        f"indexed: {h['failed_queries']} failed calls, query p50 {h['query_p50_ms']:.0f} ms, "
        f"p95 {h['query_p95_ms']:.0f} ms, {h['queries_per_s']:.0f} queries/s, "
        f"{h['ingested_meanwhile']} documents ingested meanwhile "
        f"(`bench/results/http_load.json`, {when(h)})."
    )


def scale(results: Path) -> str:
    """README's table of search at 100k-1M chunks, exact and ANN paths (`bench/scale.py`)."""
    data = load(results, "scale")
    lines = [
        "| chunks | indexes as | keyword segments | vector path | index build | on disk "
        "| server RSS warm / after queries | hybrid p50 / p95, first queries | later queries "
        "| recall@10 of the vector side |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    layouts = list(LAYOUTS)
    for row in sorted(
        data["rows"], key=lambda r: (r["chunks"], layouts.index(r["layout"]), r["path"])
    ):
        lines.append(
            f"| {_n(row['chunks'])} | {LAYOUTS[row['layout']]} | {row['keyword_segments']} "
            f"| {row['path']} | {row['index_build_s']:.0f} s "
            f"| {_n(row['disk_mb'])} MB | {_n(row['rss_warm_mb'])} / "
            f"{_n(row['rss_after_queries_mb'])} MB | {row['hybrid_p50_ms']:.0f} / "
            f"{row['hybrid_p95_ms']:.0f} ms | {row['later_p50_ms']:.0f} / "
            f"{row['later_p95_ms']:.0f} ms | {row['vector_recall_at_10']:.3f} |"
        )
    lines += [
        "",
        f"Chunks cycled from {_n(data['base_chunks'])} real SciFact and NFCorpus chunks (real "
        f"embeddings, each copy's vector moved by noise of {data['noise']} per dimension), "
        f"{data['queries']} real queries through `Index.query` (embedding and response budget "
        "included) in a fresh process, as an MCP client that starts its own server asks them "
        "(each index page read and decoded on first use; "
        f"{_serves(data)}); then as many other queries "
        '("later": a server that has answered a while, its caches holding what the first '
        'read); recall against an exact search over the same stored vectors. "a sync": '
        f"maintained every {_n(data['maintain_every'])} rows written, as a long sync is, so "
        "the indexes are in the segments a sync leaves: its last maintenance rebuilds the "
        "keyword index as one when more than 4 would be left (each costs every keyword "
        'query); "one build": every index built once over the whole table. "index build" '
        "is that last maintenance (every index; past `RAG_ANN_MIN_CHUNKS` the IVF_RQ vector "
        "index). "
        f"`bench/results/scale.json`: {when(data)}.",
    ]
    return "\n".join(lines)


def _serves(data: dict) -> str:
    """How many fresh processes served each row of the scale table."""
    serves = data.get("serves", 1)
    if serves == 1:
        return "one process"
    return f"the median of {serves} processes, RSS the largest"


#: How bench/scale.py left a table's indexes, as the README says it (and in its order).
LAYOUTS = {"synced": "a sync", "built": "one build"}


def _kb(value: float) -> str:
    return f"{value / 1024:,.0f} KB" if value < 1024**2 else f"{value / 1024**2:,.1f} MB"


def _ms(value: float) -> str:
    return f"{value:.0f} ms" if value < 1000 else f"{value / 1000:.1f} s"


def remote(results: Path) -> str:
    """README's local-vs-S3 query table ("For a team"), from `bench/remote.py`."""
    data = load(results, "remote")

    def requests(n: float) -> str:
        return "" if not n else f" in {n:.0f} request{'s' if n != 1 else ''}"

    lines = [
        f"`bench/remote.py` ({data['documents']} SciFact abstracts, {_n(data['chunks'])} "
        f"chunks, moto on loopback behind a counting proxy; `bench/results/remote.json`: "
        f"{when(data)}):",
        "",
        "| index | query p50 / p95 | bytes read per query (p50) | first query (opens, loads) "
        "| first query after another writer's commit |",
        "|---|---|---|---|---|",
    ]
    for name, row in data["indexes"].items():
        local = row["requests_p50"] == 0 and row["cold_requests"] == 0
        per_query = _kb(row["bytes_p50"]) + (" (read calls)" if local else "")
        lines.append(
            f"| {name} | {row['p50_ms']:.1f} / {row['p95_ms']:.1f} ms "
            f"| {per_query}{requests(row['requests_p50'])} "
            f"| {_ms(row['cold_ms'])}, {_kb(row['cold_bytes'])}"
            f"{requests(row['cold_requests'])} "
            f"| {row['after_commit_ms']:.0f} ms, {_kb(row['after_commit_bytes'])}"
            f"{requests(row['after_commit_requests'])} |"
        )
    return "\n".join(lines)


_PDF_KINDS = {
    "md": "`.md` files",
    "justified": "justified, one column",
    "ragged": "ragged right, one column",
    "two-column": "two justified columns",
    "hyphenated": "narrow justified column, hyphenated",
    "real": "the real article PDFs",
}


def pdf_quality(results: Path) -> str:
    """README's PDF table ("Measured"), before and after reflow, from `bench/pdf_quality.py`."""
    data = load(results, "pdf_quality")
    runs = data["runs"]
    lines: list[str] = []
    for corpus, r in runs["after"].items():
        if corpus == "provenance":
            continue
        lines += [f"{corpus}, {_n(r['docs'])} documents and {r['queries']} test queries (fixed "
                  "subsets: see the bench's docstring), `before → after` the reflow, both "
                  "before a PDF's larger type was read as headings (f3d6818, measured on all "
                  "of SciFact below); the `.md` row is one run (the change does not touch "
                  "it):", ""]  # fmt: skip
        lines += _pdf_table(runs["after"], corpus, runs["before"])
    if "full" in runs:
        scifact = runs["full"]["scifact"]
        lines += ["", f"All of SciFact ({_n(scifact['docs'])} documents, {scifact['queries']} "
                  "test queries), after the reflow and headings, `before → after` an English "
                  "dictionary kept the hyphen of compounds broken at a line's end:",
                  ""]  # fmt: skip
        lines += _pdf_table(runs["full"], "scifact", runs.get("full-before"))
    lines += _pdf_convert(load(results, "pdf_convert"))
    if "real" in runs:
        nf = runs["real"]["nfcorpus"]
        lines += ["", f"NFCorpus's real article PDFs ({_n(nf['docs'])} documents, "
                  f"{nf['queries']} test queries), before → after headings:", ""]  # fmt: skip
        lines += _pdf_table(runs["real"], "nfcorpus", runs.get("real-before"))
    return "\n".join(lines)


_CONVERT_NAMES = {"real": "NFCorpus's real PDFs"}


def _pdf_convert(data: dict) -> list[str]:
    """Conversion CPU per PDF against the commit before the reflow (`bench/pdf_convert.py`)."""
    cells = ", ".join(
        f"{_CONVERT_NAMES.get(kind, kind)} {r['baseline_ms']:.0f} → {r['current_ms']:.0f} ms "
        f"({r['ratio']:.2f}×)"
        for kind, r in data["kinds"].items()
    )
    return ["", f"Conversion CPU per PDF, {data['baseline']} (before the reflow) → this commit, "
            f"median of {data['rounds']} alternating rounds of {data['files']} files a kind "
            f"(`bench/pdf_convert.py`; target ≤ {data['target_ratio']}×): {cells}. "
            f"Measured: {when(data)}."]  # fmt: skip


def _pdf_table(run: dict, name: str, before: dict | None = None) -> list[str]:
    """One run of a corpus: every kind against its ``.md`` files, with phrases across a
    printed line asked within their file as well (the issue's measure); ``before``: the
    same kinds measured on an earlier commit, shown as ``before → after``."""
    corpus, earlier = run[name], (before or {}).get(name, {})
    md = corpus["md"]

    def cell(kind: str, get, digits: int = 3) -> str:
        now = f"{get(corpus[kind]):.{digits}f}"
        return f"{get(earlier[kind]):.{digits}f} → {now}" if kind in earlier else now

    lines = [
        "| kind | hybrid nDCG@10 (vs `.md`) | keyword | vector | chunks per document (vs `.md`) "
        "| phrase across a line: file in top 5 | in its file's top 5 hits "
        "| conversion CPU ms per file |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for kind, label in _PDF_KINDS.items():
        if kind not in corpus:
            continue
        r, n = corpus[kind], corpus[kind]["ndcg10"]
        p = r.get("phrases_across_line")
        versus = "" if kind == "md" else f" ({n['hybrid'] - md['ndcg10']['hybrid']:+.3f})"
        ratio = "" if kind == "md" else f" ({r['chunks_per_doc'] / md['chunks_per_doc'] - 1:+.0%})"
        was = earlier.get(kind, {}).get("phrases_across_line")
        top5 = f"{p['found']}/{p['asked']}" if p else "—"
        # runs made before the bench asked within the file have no in-file count
        in_file = f"{p['in_file_top5']}/{p['asked']}" if p and "in_file_top5" in p else "—"
        if p and was:
            top5 = f"{was['found']}/{was['asked']} → {top5}"
            if "in_file_top5" in was and "in_file_top5" in p:
                in_file = f"{was['in_file_top5']}/{was['asked']} → {in_file}"
        lines.append(
            f"| {label} | {cell(kind, lambda r: r['ndcg10']['hybrid'])}{versus} | "
            f"{cell(kind, lambda r: r['ndcg10']['keyword'])} | "
            f"{cell(kind, lambda r: r['ndcg10']['vector'])} | "
            f"{cell(kind, lambda r: r['chunks_per_doc'], 2)}{ratio} | {top5} | {in_file} | "
            f"{cell(kind, lambda r: r['convert_cpu_ms_per_file'], 0)} |"
        )
    if before is None:
        return [*lines, "", f"Measured: {when(run['provenance'])}."]
    return [*lines, "", f"Before: {when(before['provenance'])}. After: {when(run['provenance'])}."]


def cutoff(results: Path) -> str:
    """README's table of what RAG_MIN_SCORE_RATIO does to ranking and answer size
    (`bench/cutoff.py`): nDCG@10 and hits kept at topK 10, per data set and ratio."""
    data = load(results, "cutoff")
    sets = data["sets"]
    ratios = list(next(iter(sets.values())))
    head = " | ".join(f"{float(r):g}" for r in ratios)
    lines = [f"| data set: nDCG@10 (hits kept of {data['top_k']}) at ratio | {head} |",
             "|---|" + "---:|" * len(ratios)]  # fmt: skip
    for name, rows in sets.items():
        cells = " | ".join(f"{rows[r]['ndcg10']:.3f} ({rows[r]['hits']:.1f})" for r in ratios)
        lines.append(f"| {name} | {cells} |")
    lines += ["", f"`bench/results/cutoff.json`: {when(data)}."]
    return "\n".join(lines)


def configuration(results: Path) -> str:
    """README's table of environment variables, from the declared settings (not figures)."""
    from minirag_mcp import variables as mcp
    from minirag_store.settings import markdown_table
    from minirag_store.variables import SETTINGS

    return markdown_table(SETTINGS, rows=[mcp.README_ROW])


def http_settings(results: Path) -> str:
    """The minirag-mcp README's table of the ``RAG_HTTP_*`` variables, from their declaration."""
    from minirag_mcp import variables as mcp

    return mcp.markdown_table()


BLOCKS = {
    "measured": measured,
    "http-load": http_load,
    "scale": scale,
    "remote": remote,
    "pdf-quality": pdf_quality,
    "cutoff": cutoff,
    "configuration": configuration,
    "http-settings": http_settings,
}


def replace_block(text: str, name: str, body: str) -> str:
    """``text`` with the block ``name`` replaced by ``body``; a missing marker is an error."""
    tag = re.escape(name)
    pattern = re.compile(
        rf"(<!-- generated:{tag} [^\n]*-->\n).*?(\n<!-- /generated:{tag} -->)", re.DOTALL
    )
    if not pattern.search(text):
        raise MissingFiguresError(
            f"no <!-- generated:{name} ... --> ... <!-- /generated:{name} --> markers"
        )
    return pattern.sub(lambda m: m.group(1) + body + m.group(2), text, count=1)


def render(root: Path = ROOT, results: Path = RESULTS) -> dict[Path, str]:
    """Every target file's text as the JSON in ``results`` makes it now."""
    out = {}
    for rel, names in TARGETS.items():
        path = root / rel
        text = path.read_text(encoding="utf-8")
        for name in names:
            text = replace_block(text, name, BLOCKS[name](results))
        out[path] = text
    return out


def main() -> None:
    """Rewrite the blocks, or with --check report the stale ones (exit 1)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say which files are stale")
    args = parser.parse_args()
    try:
        rendered = render()
    except MissingFiguresError as e:
        sys.exit(f"error: {e}")
    stale = [p for p, text in rendered.items() if p.read_text(encoding="utf-8") != text]
    if args.check:
        for path in stale:
            print(f"stale: {path.relative_to(ROOT)} (run `uv run python bench/readme.py`)")
        sys.exit(1 if stale else 0)
    for path in stale:
        path.write_text(rendered[path], encoding="utf-8")
        print(f"rewrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
