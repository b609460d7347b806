"""An index on object storage: every operation, the sync lease, concurrent writers and readers,
and a store outage, against a real S3 API (moto's server on loopback, signatures checked).

Processes are real where the behaviour is between processes (two syncs, a killed lease
holder, two writers, a reader beside a writer): each one is ``python -c WORKER`` over
``minirag_store.Index`` with the standard AWS variables in its environment. In-process
indexes pass the same settings as ``DB_STORAGE_OPTIONS``, so both ways are used.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from minirag_store import Index
from minirag_store.config import load_config
from minirag_store.errors import ConfigError, IndexUnavailableError
from minirag_testkit.answers import expand
from s3_server import S3

LEASE_TIMEOUT = 5  # seconds: RAG_SYNC_LEASE_TIMEOUT for the tests (the default is 120)

WORKER = r"""
import json, os, sys, time
from minirag_store import Index
from minirag_testkit.answers import expand

def out(**fields):
    print(json.dumps(fields), flush=True)

mode = sys.argv[1]
index = Index.open(os.environ)
try:
    if mode == "sync":
        go = os.environ.get("TEST_GO_FILE")
        said = []
        def progress(report):
            if not said:  # the scan's report: the lease is held
                said.append(1)
                out(event="syncing", pid=os.getpid())
                while go and not os.path.exists(go):
                    time.sleep(0.05)
        out(event="done", result=index.sync(progress=progress))
    elif mode == "ingest":
        index.warm_up()  # the model loaded: both processes' first writes start together
        start = float(os.environ["TEST_START_AT"])
        while time.time() < start:
            time.sleep(0.005)
        who = os.environ["TEST_WHO"]
        counts = {}
        for i in range(int(os.environ["TEST_ROUNDS"])):
            for source in ("shared-a", "shared-b", f"{who}-{i}"):
                text = "\n\n".join(
                    f"Paragraph {k} of {source} round {i} written by {who}: "
                    + "the ledger balances cash accounts and supplier invoices. " * 3
                    for k in range(1 + i % 3)
                )
                counts[source] = index.ingest_data(text, source, "text", f"{source} by {who}")[
                    "chunkCount"
                ]
        out(event="done", counts=counts)
    elif mode == "read":
        stop = os.environ["TEST_STOP_FILE"]
        sources = json.loads(os.environ["TEST_SOURCES"])
        reads = queries = 0
        mixed = []
        announced = False
        while not os.path.exists(stop):
            for source in sources:
                text = index.read_file(source=source)["text"]
                marks = {w for w in text.split() if w.startswith("EDITION-")}
                if len(marks) > 1:
                    mixed.append([source, sorted(marks)])
                reads += 1
            if not expand(index.query("lighthouse keeper logbook", top_k=5))["results"]:
                mixed.append(["(query)", "no hit"])
            queries += 1
            if not announced:
                announced = True
                out(event="reading")
        out(event="done", reads=reads, queries=queries, mixed=mixed)
    elif mode == "status":
        out(event="done", result=index.status())
    elif mode == "query":
        out(event="done", result=expand(index.query(sys.argv[2], top_k=3)))
except Exception as e:
    out(event="error", type=type(e).__name__, message=str(e))
finally:
    index.close()
"""


# --------------------------------------------------------------------------- fixtures
def _files(root: Path, count: int, edition: int = 1) -> dict[str, str]:
    """``count`` markdown files about lighthouses, each marked with its edition."""
    out = {}
    for i in range(count):
        body = "\n\n".join(
            f"EDITION-{edition} The lighthouse keeper of station {i} writes paragraph {k} in "
            f"the logbook: lamp trimmed, fog horn tested, {k + i} ships passed."
            for k in range(6)
        )
        out[f"station{i:02d}.md"] = f"# Station {i}\n\n{body}\n"
    root.mkdir(parents=True, exist_ok=True)
    for name, text in out.items():
        (root / name).write_text(text, encoding="utf-8")
    return out


@pytest.fixture
def remote(s3: S3, tmp_path: Path, model_env: dict[str, str]):
    """``(env, root)``: a config env for a fresh index on S3 (credentials as
    DB_STORAGE_OPTIONS), documents under ``root``."""
    root = tmp_path / "docs"
    root.mkdir()
    env = {**model_env, "BASE_DIR": str(root), "DB_PATH": s3.uri(), "CHUNK_TOKEN_BUDGET": "40"}
    env["DB_STORAGE_OPTIONS"] = s3.storage_options()
    env["RAG_SYNC_LEASE_TIMEOUT"] = str(LEASE_TIMEOUT)
    return env, root


def _process_env(s3: S3, env: dict[str, str], **extra: str) -> dict[str, str]:
    """A child's environment: the standard AWS variables instead of DB_STORAGE_OPTIONS."""
    child = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    child.update({k: v for k, v in env.items() if k != "DB_STORAGE_OPTIONS"})
    child.update(s3.process_env())
    child.update(extra)
    return child


def _spawn(mode: str, env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WORKER, mode, *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _events(proc: subprocess.Popen[str], timeout: float = 240) -> tuple[list[dict], str]:
    out, err = proc.communicate(timeout=timeout)
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")], err


def _next_event(proc: subprocess.Popen[str]) -> dict:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line, f"worker ended early: {proc.stderr.read() if proc.stderr else ''}"
    return json.loads(line)


def _consistent(index: Index) -> dict[str, int]:
    """Chunks per source, after checking that no chunk is duplicated or missing."""
    rows = index.table().snapshot()
    ids = Counter(rows.ids)
    assert not [i for i, n in ids.items() if n > 1], "a chunk id is stored twice"
    per_source: dict[str, list[int]] = {}
    for row in rows.rows(list(range(len(rows.ids)))):
        per_source.setdefault(row["source"], []).append(row["chunk_index"])
    for source, chunks in per_source.items():
        assert sorted(chunks) == list(range(len(chunks))), f"{source} has a gap: {chunks}"
    return {s: len(c) for s, c in per_source.items()}


# --------------------------------------------------------------------- configuration
def test_db_path_uri_and_storage_options_are_read(tmp_path: Path) -> None:
    env = {
        "DB_PATH": "s3://team-docs/minirag/",
        "DB_STORAGE_OPTIONS": '{"aws_region": "eu-west-1", "allow_http": true, "timeout": 30,'
        ' "aws_secret_access_key": "opt-secret-123"}',
        "AWS_SECRET_ACCESS_KEY": "env-secret-456",
    }
    config = load_config(env, cwd=tmp_path)
    assert config.db_path is None
    assert config.db_uri == "s3://team-docs/minirag"
    assert dict(config.storage_options) == {
        "aws_region": "eu-west-1",
        "allow_http": "true",
        "timeout": "30",
        "aws_secret_access_key": "opt-secret-123",
    }
    assert "opt-secret-123" not in repr(config) and "env-secret-456" not in repr(config)
    local = load_config({"DB_PATH": "idx"}, cwd=tmp_path)
    assert local.db_path == tmp_path / "idx" and local.db_uri == str(tmp_path / "idx")


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ('{"aws_secret_access_key": s3cr3t-in-bad-json}', "not valid JSON"),
        ('["s3cr3t-in-a-list"]', "got a JSON list"),
        ('{"aws_secret_access_key": ["s3cr3t-nested"]}', "'aws_secret_access_key' is a JSON list"),
    ],
)
def test_bad_db_storage_options_is_a_config_error_without_the_value(
    tmp_path: Path, raw: str, says: str
) -> None:
    with pytest.raises(ConfigError, match="DB_STORAGE_OPTIONS must be a JSON object") as caught:
        load_config({"DB_STORAGE_OPTIONS": raw}, cwd=tmp_path)
    assert says in str(caught.value)
    assert "s3cr3t" not in str(caught.value)
    status = Index.open({"DB_STORAGE_OPTIONS": raw}, cwd=tmp_path).status()
    assert "DB_STORAGE_OPTIONS" in status["configError"] and "s3cr3t" not in json.dumps(status)


def test_db_path_without_bucket_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="names no bucket"):
        load_config({"DB_PATH": "s3:///prefix"}, cwd=tmp_path)


# ------------------------------------------------------------------- every operation
def test_sync_resync_and_every_operation(remote) -> None:
    env, root = remote
    _files(root, 6)
    index = Index.open(env)
    try:
        first = index.sync()
        assert first["state"] == "succeeded", first["error"]
        assert first["counts"]["ingested"] == 6
        again = index.sync()
        assert again["state"] == "succeeded"
        assert (again["counts"]["ingested"], again["counts"]["skipped"]) == (0, 6)

        (root / "station01.md").write_text("# Station 1\n\nEDITION-2 rebuilt lamp.\n", "utf-8")
        (root / "station02.md").unlink()
        third = index.sync()
        assert (third["counts"]["ingested"], third["counts"]["deleted"]) == (1, 1)

        hits = expand(index.query("fog horn tested in the logbook", top_k=3))["results"]
        assert hits and hits[0]["source"].endswith(".md")
        read = index.read_file(file_path=str(root / "station03.md"))
        assert "station 3" in read["text"] and read["chunkCount"] >= 2
        around = index.read_chunk_neighbors(str(root / "station03.md"), 1, 1, 1)
        assert [c["chunkIndex"] for c in around["chunks"]] == [0, 1, 2]
        states = {Path(f["source"]).name: f["state"] for f in index.list_files()["files"]}
        assert states == {f"station{i:02d}.md": "ingested" for i in (0, 1, 3, 4, 5)}
        data = index.ingest_data("Notes about the keeper's cat.", "notes/cat", "text")
        assert data["chunkCount"] == 1
        assert index.delete_file(source="notes/cat")["deletedChunks"] == 1
        (root / "late.md").write_text("# Late\n\nA late entry about the lamp.\n", "utf-8")
        assert index.ingest_file(str(root / "late.md"))["chunkCount"] == 1

        status = index.status()
        assert status["dbPath"] == env["DB_PATH"]
        assert status["sourceCount"] == 6 and status["indexError"] is None
    finally:
        index.close()
    # A new process (here: a new Index) sees the same index, summary file or not.
    fresh = Index.open(env)
    try:
        assert fresh.status()["sourceCount"] == 6
        assert _consistent(fresh)[str(root / "station01.md")] == 1
    finally:
        fresh.close()


# ---------------------------------------------------------------------- degraded mode
@pytest.mark.parametrize(
    ("case", "says"),
    [
        ("missing bucket", "bucket does not exist"),
        ("wrong secret", "secret key does not match"),
        ("store down", "connection refused"),
    ],
)
def test_unreachable_index_is_a_clear_error_and_status_answers(
    s3: S3, tmp_path: Path, model_env: dict[str, str], case: str, says: str
) -> None:
    wrong = "WRONGsecretVALUE-0123456789"
    options = json.loads(s3.storage_options(secret=wrong if case == "wrong secret" else None))
    uri = s3.uri()
    if case == "missing bucket":
        uri = "s3://no-such-bucket-minirag/idx"
    if case == "store down":
        options["aws_endpoint"] = "http://127.0.0.1:9"  # discard port: nothing listens
    options["client_max_retries"] = "1"  # LanceDB's own option: fail fast in the test
    env = {**model_env, "BASE_DIR": str(tmp_path), "DB_PATH": uri}
    env["DB_STORAGE_OPTIONS"] = json.dumps(options)
    index = Index.open(env)
    try:
        status = index.status()
        assert status["dbPath"] == uri
        assert uri in status["indexError"] and says in status["indexError"]
        with pytest.raises(IndexUnavailableError) as caught:
            expand(index.query("lamp"))
        assert uri in str(caught.value) and says in str(caught.value)
        with pytest.raises(IndexUnavailableError):
            index.list_files()
        everything = json.dumps(status) + str(caught.value)
        for secret in (s3.secret, wrong):
            assert secret not in everything
    finally:
        index.close()


def test_no_secret_in_any_output_of_a_process(s3: S3, remote) -> None:
    """stdout, stderr (logs, warnings, tracebacks) of a sync, a query, a status and a
    failing sync never hold the secret."""
    env, root = remote
    _files(root, 3)
    child = _process_env(s3, env)
    outputs = []
    for mode, args in (("sync", ()), ("query", ("lamp",)), ("status", ())):
        proc = _spawn(mode, child, *args)
        events, err = _events(proc)
        assert events[-1]["event"] == "done", (events, err)
        outputs += [json.dumps(events), err]
    wrong = {**child, "AWS_SECRET_ACCESS_KEY": "WRONGsecretVALUE-9876543210"}
    wrong["DB_STORAGE_OPTIONS"] = '{"client_max_retries": "1"}'
    for mode in ("sync", "status"):
        events, err = _events(_spawn(mode, wrong))
        outputs += [json.dumps(events), err]
    failed = json.loads(outputs[-4])[-1]
    assert failed["event"] == "error" and env["DB_PATH"] in failed["message"]
    text = "\n".join(outputs)
    assert s3.secret not in text and "WRONGsecretVALUE-9876543210" not in text


# ------------------------------------------------------------------------ sync lease
def test_two_concurrent_syncs_exactly_one_runs(s3: S3, remote, tmp_path: Path) -> None:
    env, root = remote
    _files(root, 4)
    go = tmp_path / "go"
    holder = _spawn("sync", _process_env(s3, env, TEST_GO_FILE=str(go)))
    try:
        assert _next_event(holder)["event"] == "syncing"
        events, err = _events(_spawn("sync", _process_env(s3, env)))
        refused = events[-1]
        assert refused["event"] == "error" and refused["type"] == "SyncBusyError", (events, err)
        assert f"PID {holder.pid} on " in refused["message"]
        assert ".sync-lease.json" in refused["message"]
        go.touch()
        done, err = _events(holder)
        assert done[-1]["event"] == "done", err
        assert done[-1]["result"]["state"] == "succeeded"
        assert done[-1]["result"]["counts"]["ingested"] == 4
    finally:
        holder.kill()
        holder.communicate()
    # released: the next sync runs at once and finds nothing to do
    events, _ = _events(_spawn("sync", _process_env(s3, env)))
    assert events[-1]["result"]["counts"]["skipped"] == 4


def test_killed_lease_holder_is_taken_over_after_the_timeout(s3: S3, remote) -> None:
    env, root = remote
    _files(root, 5)
    holder = _spawn("sync", _process_env(s3, env, TEST_GO_FILE="/nonexistent/never"))
    assert _next_event(holder)["event"] == "syncing"
    holder.send_signal(signal.SIGKILL)
    holder.communicate()  # reaped, its pipes closed
    events, _ = _events(_spawn("sync", _process_env(s3, env)))
    assert events[-1]["type"] == "SyncBusyError"  # its heartbeat is still fresh
    assert f"PID {holder.pid}" in events[-1]["message"]
    deadline = time.monotonic() + 60
    while True:
        events, err = _events(_spawn("sync", _process_env(s3, env)))
        if events[-1]["event"] == "done" or time.monotonic() > deadline:
            break
        assert events[-1]["type"] == "SyncBusyError", (events, err)
        time.sleep(0.5)
    assert events[-1]["event"] == "done", (events, err)
    assert events[-1]["result"]["state"] == "succeeded"
    index = Index.open(env)
    try:
        counts = _consistent(index)
        assert sorted(Path(s).name for s in counts) == [f"station{i:02d}.md" for i in range(5)]
        assert index.sync()["counts"]["skipped"] == 5
    finally:
        index.close()


# ------------------------------------------------------------- concurrent writers
def test_two_concurrent_single_file_writers_lose_and_duplicate_nothing(s3: S3, remote) -> None:
    env, _ = remote
    # Both start on a brand-new index: creating its table at the same instant is part of
    # the race (creation.py).
    start_at = str(time.time() + 8)  # both processes load first, then write at once
    rounds = "8"
    procs = [
        _spawn(
            "ingest",
            _process_env(s3, env, TEST_WHO=who, TEST_START_AT=start_at, TEST_ROUNDS=rounds),
        )
        for who in ("A", "B")
    ]
    written = {}
    for who, proc in zip("AB", procs, strict=True):
        events, err = _events(proc)
        assert events and events[-1]["event"] == "done", (events, err)
        written[who] = events[-1]["counts"]
    index = Index.open(env)
    try:
        counts = _consistent(index)
        own = {s: n for who in "AB" for s, n in written[who].items() if s.startswith(who)}
        assert len(own) == 16
        for source, chunks in own.items():
            assert counts.get(source) == chunks, source
        # each shared source holds one writer's last version, whole
        for source in ("shared-a", "shared-b"):
            text = index.read_file(source=source)["text"]
            writers = [w for w in "AB" if f"written by {w}" in text]
            assert len(writers) == 1, text[:300]
            assert counts[source] == written[writers[0]][source]
        assert set(counts) == set(own) | {"shared-a", "shared-b"}
    finally:
        index.close()


def test_reader_never_fails_nor_sees_a_half_replaced_source(s3: S3, remote, tmp_path: Path) -> None:
    env, root = remote
    files = _files(root, 6, edition=1)
    index = Index.open(env)
    stop = tmp_path / "stop"
    try:
        assert index.sync()["state"] == "succeeded"
        sources = [str(root / name) for name in files]
        reader = _spawn(
            "read",
            _process_env(s3, env, TEST_STOP_FILE=str(stop), TEST_SOURCES=json.dumps(sources)),
        )
        assert _next_event(reader)["event"] == "reading"  # it reads before the writes start
        for edition in (2, 3, 4):
            _files(root, 6, edition=edition)
            result = index.sync()
            assert result["state"] == "succeeded" and result["counts"]["ingested"] == 6
        stop.touch()
        events, err = _events(reader)
        last = events[-1]
        assert last["event"] == "done", (last, err)
        assert last["mixed"] == []
        assert last["reads"] > 0 and last["queries"] > 0
    finally:
        stop.touch()
        index.close()


# ------------------------------------------------------------------------ store fault
def test_store_outage_mid_sync_fails_cleanly_and_a_rerun_completes(s3: S3, remote) -> None:
    env, root = remote
    env = {**env, "DB_STORAGE_OPTIONS": json.dumps({
        **json.loads(env["DB_STORAGE_OPTIONS"]), "client_max_retries": "1",
    })}  # fmt: skip
    _files(root, 8)
    index = Index.open(env)
    index.ingest_data("Baseline entry about the harbour.", "notes/base", "text")
    stopped = []

    def outage(report) -> None:
        if report.counts["ingested"] >= 1 and not stopped:
            stopped.append(report.counts["ingested"])
            s3.stop()

    try:
        failed = index.sync(progress=outage)
    finally:
        if stopped:
            s3.start()
        index.close()
    assert stopped, "the sync finished before the outage"
    assert failed["state"] == "failed"
    assert env["DB_PATH"] in (failed["error"] or "")
    assert s3.secret not in json.dumps(failed)

    after = Index.open(env)
    try:
        counts = _consistent(after)
        assert counts["notes/base"] == 1  # what was there before is intact
        # every file is whole or absent: its chunk count is the one a clean sync gives
        rerun = after.sync()
        assert rerun["state"] == "succeeded", rerun["error"]
        final = _consistent(after)
        for source, chunks in counts.items():
            assert final[source] == chunks, source
        assert sorted(Path(s).name for s in final if s.endswith(".md")) == [
            f"station{i:02d}.md" for i in range(8)
        ]
    finally:
        after.close()


def test_watch_on_an_object_store_index_polls_and_status_says_so(remote) -> None:
    """An index on object storage is shared with other machines, whose edits no
    notification here reports: the watcher polls, status says so and why, and a file
    added meanwhile is found once a poll has run."""
    env, root = remote
    _files(root, 2)
    index = Index.open({**env, "RAG_WATCH_POLL_SECONDS": "1"})
    try:
        index.start_watching()
        deadline = time.monotonic() + 120
        while index.status().get("watchMode") != "poll" and time.monotonic() < deadline:
            time.sleep(0.1)
        status = index.status()
        assert (status["watch"], status["watchMode"]) == ("on", "poll")
        assert "object storage" in status["watchNote"]
        owls = root / "owls.md"
        owls.write_text("# Owls\n\nBarn owls hunt voles at night over the meadow.\n", "utf-8")
        while time.monotonic() < deadline:
            hits = expand(index.query("which birds hunt voles at night", top_k=1))["results"]
            if hits and hits[0]["source"] == str(owls):
                break
            time.sleep(0.5)
        else:
            pytest.fail("the polled change was never searchable")
    finally:
        index.close()
    assert index.status()["watchMode"] == "off"


def test_a_creation_marker_left_by_a_dead_process_is_taken_over(s3: S3) -> None:
    import obstore
    from minirag_store.index.storage import creation

    uri = s3.uri("create")
    options = json.loads(s3.storage_options())
    store = creation.open_store(uri, options)
    obstore.put(store, creation.CREATE_MARKER, b'{"pid": 1}', mode="create")  # its creator died
    made: list[str] = []

    def open_or_create() -> str:
        made.append("created")
        return "table"

    later = time.time() + creation.STALE_MARKER_SECONDS + 1  # the marker is stale by then
    got = creation._remotely(uri, options, open_or_create, lambda: None, clock=lambda: later)
    assert (got, made) == ("table", ["created"])
    with pytest.raises(FileNotFoundError):  # the taker removed it once done
        obstore.head(store, creation.CREATE_MARKER)
