"""The repository's commit-msg hook (CONTRIBUTING.md): a subject over 72 characters is
refused with a message that says why; one of 72, a merge, or a non-ASCII subject of 72
characters (but more bytes) is accepted."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

HOOK = Path(__file__).resolve().parents[1] / ".githooks" / "commit-msg"


def _run(message: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "COMMIT_EDITMSG"
    path.write_text(message, encoding="utf-8")
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}  # a bare locale: length in characters still
    return subprocess.run(
        [str(HOOK), str(path)], check=False, capture_output=True, text=True, env=env
    )


@pytest.mark.parametrize(
    "subject",
    ["a" * 72, "Ж" * 72, "Merge branch 'a-very-long-branch-name' into main " + "x" * 40],
)
def test_subjects_the_convention_allows(tmp_path, subject):
    done = _run(f"{subject}\n\nWhy, and what was measured.\n", tmp_path)
    assert done.returncode == 0, done.stderr


def test_a_long_subject_is_refused_and_told_why(tmp_path):
    done = _run("# a comment git strips\n" + "b" * 73 + "\n", tmp_path)
    assert done.returncode == 1
    assert "73 characters; at most 72" in done.stderr and "body" in done.stderr


def test_an_empty_subject_is_refused(tmp_path):
    assert _run("\n\nonly a body\n", tmp_path).returncode == 1
