"""The workspace builds six wheels, and the chunker wheel stands alone.

``pip install minirag-chunker`` must work without the index engine's heavy stack:
a fresh venv gets only the chunker wheel (and tokenizers), and chunking runs there.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGES = (
    "minirag_chunker",
    "minirag_store",
    "minirag_ocr",
    "minirag_web",
    "minirag_mcp",
    "minirag_cli",
)


@pytest.fixture(scope="module")
def wheels(tmp_path_factory) -> Path:
    uv = shutil.which("uv")
    assert uv, "uv must be on PATH (the README's set-up installs it)"
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [uv, "build", "--all-packages", "--wheel", "--out-dir", str(out)],
        cwd=REPO,
        check=True,
        capture_output=True,
    )
    return out


def test_all_six_distributions_build(wheels: Path):
    names = sorted(p.name.split("-")[0] for p in wheels.glob("*.whl"))
    assert names == sorted(PACKAGES)


def test_chunker_wheel_installs_and_runs_alone(wheels: Path, tmp_path: Path):
    uv = shutil.which("uv")
    assert uv
    venv = tmp_path / "venv"
    subprocess.run([uv, "venv", "--python", sys.executable, str(venv)], check=True)
    python = venv / "bin" / "python"
    (wheel,) = wheels.glob("minirag_chunker-*.whl")
    subprocess.run(
        [uv, "pip", "install", "--python", str(python), str(wheel)],
        check=True,
        capture_output=True,
    )
    probe = (
        "import importlib.util, sys\n"
        "import minirag_chunker as c\n"
        "doc = '# Title\\n\\n## A\\n\\none two three\\n\\n## B\\n\\nfour five six'\n"
        "out = c.chunk_markdown(doc, count_tokens=lambda t: len(t.split()), budget=16)\n"
        "assert out.units, 'no units'\n"
        "heavy = [m for m in ('lancedb', 'fastembed', 'markitdown', 'onnxruntime', "
        "'minirag_store') if importlib.util.find_spec(m)]\n"
        "print(len(out.units), heavy)\n"
    )
    result = subprocess.run([str(python), "-c", probe], check=False, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    count, heavy = result.stdout.strip().split(" ", 1)
    assert int(count) >= 1
    assert heavy == "[]", f"chunker venv has heavy packages installed: {heavy}"
