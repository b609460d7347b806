"""The declared settings table: every variable once, and the loader keeps to it."""

from __future__ import annotations

from pathlib import Path

import pytest
from minirag_store import ConfigError, load_config
from minirag_store.settings import Setting, markdown_table, read_int
from minirag_store.variables import SETTINGS


def test_every_variable_is_declared_once():
    names = [s.name for s in SETTINGS]
    assert len(names) == len(set(names)) == 28


@pytest.mark.parametrize("setting", [s for s in SETTINGS if s.kind in ("int", "float")])
def test_a_number_out_of_range_names_the_variable_the_range_and_the_value(tmp_path, setting):
    assert setting.minimum is not None
    bad = setting.minimum - 1
    with pytest.raises(ConfigError) as err:
        load_config({setting.name: str(bad)}, cwd=tmp_path)
    message = str(err.value)
    assert message.startswith(f"{setting.name} must be ") and str(bad) in message
    assert str(setting.minimum) in message


@pytest.mark.parametrize("setting", [s for s in SETTINGS if s.kind in ("bool", "choice")])
def test_a_value_outside_the_choices_is_refused_naming_it(tmp_path, setting):
    with pytest.raises(ConfigError, match=rf"^{setting.name} must be .*, got 'nonsense'$"):
        load_config({setting.name: "nonsense"}, cwd=tmp_path)


def test_unset_and_blank_give_the_declared_defaults(tmp_path: Path):
    unset = load_config({}, cwd=tmp_path)
    blank = load_config({s.name: "  " for s in SETTINGS if s.kind != "text"}, cwd=tmp_path)
    assert unset == blank
    assert unset.max_response_tokens == 6000 and unset.ann_min_chunks == 200_000
    assert (unset.fusion, unset.watch, unset.ocr_lang, unset.grouping) == (
        "mixture",
        "on",
        "eslav",
        None,
    )


def test_a_bound_given_by_the_caller_wins_over_the_declared_one():
    setting = Setting("X", "int", "x", default=5, minimum=1, maximum=10)
    assert read_int({"X": "7"}, setting) == 7
    with pytest.raises(ConfigError, match="X must be between 1 and 6, got 7"):
        read_int({"X": "7"}, setting, maximum=6)


def test_rows_that_share_a_meaning_share_a_row():
    table = markdown_table(
        [
            Setting("A", "engine", "same", default="error"),
            Setting("B", "engine", "same", default="error"),
            Setting("C", "bool", "other", default=False, shown="off"),
        ]
    )
    assert table.splitlines()[2:] == ["| `A`, `B` | `error` | same |", "| `C` | off | other |"]


def test_the_response_budget_counts_as_set_only_when_given(tmp_path: Path):
    assert not load_config({}, cwd=tmp_path).max_response_tokens_set
    assert not load_config({"RAG_MAX_RESPONSE_TOKENS": " "}, cwd=tmp_path).max_response_tokens_set
    assert load_config({"RAG_MAX_RESPONSE_TOKENS": "6000"}, cwd=tmp_path).max_response_tokens_set
