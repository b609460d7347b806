"""``sync --ray`` without the ray extra: one clear error naming what to install, nothing done."""

from __future__ import annotations

import sys

import pytest


@pytest.mark.parametrize("args", [("--ray",), ("--ray-address", "auto")], ids=lambda a: a[0])
def test_ray_without_the_extra_says_how_to_install_it(invoke, corpus, tmp_path, monkeypatch, args):
    root = tmp_path / "docs"
    corpus(root)
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now raises ImportError
    db = tmp_path / "db"
    ran = invoke("sync", *args, env={"BASE_DIR": str(root), "DB_PATH": str(db)})
    assert ran.code == 1
    assert ran.stdout == ""
    assert ran.stderr.startswith("error: Running a sync on Ray needs the ray extra")
    assert "pip install 'minirag-cli[ray]'" in ran.stderr
    assert len(ran.stderr.splitlines()) == 1
    assert not db.exists()  # refused before any lock or index was made


def test_rag_ray_address_without_the_extra_is_refused_too(invoke, corpus, tmp_path, monkeypatch):
    root = tmp_path / "docs"
    corpus(root)
    monkeypatch.setitem(sys.modules, "ray", None)
    env = {"BASE_DIR": str(root), "DB_PATH": str(tmp_path / "db"), "RAG_RAY_ADDRESS": "auto"}
    ran = invoke("sync", env=env)
    assert ran.code == 1
    assert "minirag-cli[ray]" in ran.stderr
