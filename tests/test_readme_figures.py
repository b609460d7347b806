"""README figures (and tables of settings) are generated and must match their sources.

``bench/readme.py`` builds README's "Measured" table (and the minirag-mcp README's load
paragraph) from the JSON the bench scripts write. A hand edit of a generated block, or a
bench run whose JSON was committed without regenerating, fails here with the command
that fixes it.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _readme_module():
    spec = importlib.util.spec_from_file_location("bench_readme", ROOT / "bench" / "readme.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


readme = _readme_module()


@pytest.mark.parametrize("rel", list(readme.TARGETS))
def test_generated_blocks_match_the_bench_json(rel):
    rendered = readme.render()[ROOT / rel]
    assert (ROOT / rel).read_text(encoding="utf-8") == rendered, (
        f"{rel}: a generated block differs from bench/results/*.json or the declared "
        "settings (minirag_store/variables.py, minirag_mcp/variables.py); run "
        "`uv run python bench/readme.py` (and edit the JSON's script or the declaration, "
        "not the README)"
    )


def test_a_figure_comes_from_its_json(tmp_path):
    results = tmp_path / "results"
    shutil.copytree(readme.RESULTS, results)
    fusion = json.loads((results / "fusion.json").read_text())
    fusion["results"]["scifact"]["report"]["hybrid mixture"] = 0.1234
    (results / "fusion.json").write_text(json.dumps(fusion))
    text = readme.render(results=results)[ROOT / "README.md"]
    assert "| 0.123 / " in text
    assert text != (ROOT / "README.md").read_text(encoding="utf-8")


def test_a_missing_json_names_the_script_that_writes_it(tmp_path):
    results = tmp_path / "results"
    shutil.copytree(readme.RESULTS, results)
    (results / "query.json").unlink()
    with pytest.raises(readme.MissingFiguresError, match=r"bench/query\.py"):
        readme.render(results=results)


def test_every_declared_variable_is_in_the_configuration_table():
    from minirag_mcp.variables import HTTP_SETTINGS
    from minirag_store.variables import SETTINGS

    table = readme.configuration(readme.RESULTS)
    readme_text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert table in readme_text
    for setting in (*SETTINGS, *HTTP_SETTINGS):
        assert f"`{setting.name}`" in table.split("\n| ", 1)[1], setting.name
    for setting in SETTINGS:
        assert setting.meaning in table, setting.name


def test_a_block_without_its_markers_is_an_error():
    with pytest.raises(readme.MissingFiguresError, match="generated:measured"):
        readme.replace_block("# A README without markers\n", "measured", "body")
