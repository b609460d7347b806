"""A running server's query endpoint: found by configuration, answers as the caller
would itself, and never stands in the way when it is gone, refused or different."""

from __future__ import annotations

import json
import stat
import subprocess
import sys

import pytest
from minirag_store import Index, peer
from minirag_testkit.answers import hit_sources


@pytest.fixture
def served(make_index, docs_root):
    (docs_root / "pumps.md").write_text(
        "# Pumps\n\nThe centrifugal pump needs new seals every spring.", encoding="utf-8"
    )
    (docs_root / "fans.md").write_text("# Fans\n\nCeiling fans hum at night.", encoding="utf-8")
    index = make_index()
    index.sync()
    endpoint = peer.start_endpoint(index)
    assert endpoint is not None
    yield index, endpoint
    endpoint.close()


def test_the_caller_gets_the_servers_answer_and_it_is_its_own(served, index_env):
    index, _ = served
    caller = Index.open(index_env)  # another process's Index: same configuration
    answer = peer.ask(caller.config, "pump seals", 3, None, max_tokens=6000)
    assert answer is not None
    assert answer == json.loads(json.dumps(index.query("pump seals", top_k=3)))
    assert hit_sources(answer)[0].endswith("pumps.md")
    scoped = peer.ask(
        caller.config, "hum", 3, [str(index.config.roots[0] / "fans.md")], max_tokens=6000
    )
    assert scoped is not None and set(hit_sources(scoped)) == {
        str(index.config.roots[0] / "fans.md")
    }


def test_the_announcement_is_private_and_withdrawn_at_close(served, index_env):
    index, endpoint = served
    path = index.config.db_path / peer.FILE_NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    endpoint.close()
    assert not path.exists()
    assert peer.ask(Index.open(index_env).config, "pump", 3, None, max_tokens=6000) is None


def test_another_configuration_is_not_answered_by_the_server(served, index_env):
    other = Index.open({**index_env, "RAG_HYBRID_WEIGHT": "0.1"})
    assert peer.ask(other.config, "pump seals", 3, None, max_tokens=6000) is None


def test_a_wrong_token_is_refused(served, index_env):
    index, _ = served
    path = index.config.db_path / peer.FILE_NAME
    record = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**record, "token": "not-the-token"}), encoding="utf-8")
    assert peer.ask(Index.open(index_env).config, "pump", 3, None, max_tokens=6000) is None


def test_a_dead_servers_announcement_is_removed(served, index_env):
    index, endpoint = served
    endpoint.server.shutdown()  # stands in for a killed server: the file stays
    path = index.config.db_path / peer.FILE_NAME
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    record = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**record, "pid": int(dead.stdout)}), encoding="utf-8")
    assert peer.ask(Index.open(index_env).config, "pump", 3, None, max_tokens=6000) is None
    assert not path.exists()


def test_a_bad_argument_is_raised_by_the_caller_as_without_a_server(served, index_env):
    from minirag_store.errors import InvalidArgumentError

    caller = Index.open(index_env)
    assert (
        peer.ask(caller.config, "pump", 0, None, max_tokens=6000) is None
    )  # the server refused it
    with pytest.raises(InvalidArgumentError) as raised:
        caller.query("pump", top_k=0, ask_server=True)
    with pytest.raises(InvalidArgumentError) as alone:
        caller.query("pump", top_k=0)
    assert str(raised.value) == str(alone.value)
    caller.close()


def test_no_index_folder_means_nothing_to_announce(make_index):
    index = make_index()
    assert not index.config.db_path.exists()
    assert peer.start_endpoint(index) is None


def test_the_server_fits_its_answer_to_the_callers_budget(served, index_env, docs_root):
    """The CLI asks for no budget (0) or its own; the server's setting does not decide."""
    index, _ = served
    for n in range(12):  # enough pump notes that 1,000 tokens cannot hold them all
        (docs_root / f"pump-{n}.md").write_text(
            f"# Pump {n}\n\n" + f"Pump {n} seals were replaced after the spring check. " * 8,
            encoding="utf-8",
        )
    index.sync()
    caller = Index.open(index_env)
    answers = {b: peer.ask(caller.config, "pump seals", 100, None, max_tokens=b) for b in (0, 1000)}
    assert "trimmed" not in answers[0] and answers[1000]["trimmed"]["maxTokens"] == 1000
    for budget, answer in answers.items():
        assert answer == json.loads(
            json.dumps(index.query("pump seals", top_k=100, max_tokens=budget))
        )


@pytest.mark.usefixtures("served")
def test_explain_is_asked_of_the_server_and_an_answer_without_scores_is_not_taken(
    index_env, monkeypatch
):
    caller = Index.open(index_env)
    told = peer.ask(caller.config, "pump seals", 3, None, max_tokens=0, explain=True)
    assert told is not None and all("score" in h for h in told["results"])
    # A server from before ``explain`` ignores it; the caller then answers itself.
    plain = peer.ask(caller.config, "pump seals", 3, None, max_tokens=0)
    assert plain is not None and all("score" not in h for h in plain["results"])
    monkeypatch.setattr(peer, "ask", lambda *a, **k: plain)
    answer = caller.query("pump seals", top_k=3, max_tokens=0, ask_server=True, explain=True)
    assert all("score" in h and "distance" in h for h in answer["results"])
    caller.close()
