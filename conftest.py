"""Fixtures shared by every package's tests: the real offline embedding model and real files.

``model_dir`` is a folder fastembed loads with no network (see minirag_testkit);
``model_env`` is the environment that points minirag at it (MODEL_NAME + MODEL_PATH).
``fixtures`` is the small set of real documents in ``tests/fixtures`` (every clone has it);
``shared_data`` is the big ``../shared/data`` sets, which only ``corpus``-marked tests read.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings
from minirag_testkit import MODEL_NAME
from minirag_testkit import model_dir as _model_dir

# Timing belongs in bench/, not in tests: no per-example deadline (CI shares 2 cores).
settings.register_profile("minirag", deadline=None, max_examples=60)
settings.load_profile("minirag")

ROOT = Path(__file__).resolve().parent
FIXTURES = ROOT / "tests" / "fixtures"
SHARED_DATA = ROOT.parent / "shared" / "data"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that reads the shared data sets, or drives Chromium, must say so
    (``-m "not corpus"`` / ``-m "not browser"`` deselect them)."""
    for item in items:
        if "chromium" in getattr(item, "fixturenames", ()) and not item.get_closest_marker(
            "browser"
        ):
            raise pytest.UsageError(f"{item.nodeid} drives Chromium: mark it @pytest.mark.browser")
        if "shared_data" in getattr(item, "fixturenames", ()) and not item.get_closest_marker(
            "corpus"
        ):
            raise pytest.UsageError(f"{item.nodeid} reads shared_data: mark it @pytest.mark.corpus")


@pytest.fixture(scope="session", autouse=True)
def _session_user_data(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The per-user data folder of session fixtures (set up before any test's own)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("session-user-data")))
        yield


@pytest.fixture(autouse=True)
def _user_data_dir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Every test gets its own per-user data folder (platformdirs reads XDG_DATA_HOME), so
    the record of synced indexes (minirag_store.known) is never the real user's, and one
    test's syncs are not another's known indexes. Subprocess helpers pass it on."""
    folder = tmp_path_factory.mktemp("user-data")
    monkeypatch.setenv("XDG_DATA_HOME", str(folder))
    return folder


@pytest.fixture(scope="session")
def model_dir() -> Path:
    """The assembled offline model folder (model.onnx + tokenizer/config files)."""
    return _model_dir()


@pytest.fixture(scope="session")
def model_env(model_dir: Path) -> dict[str, str]:
    """Env vars that make minirag load the offline model instead of downloading one."""
    return {"MODEL_NAME": MODEL_NAME, "MODEL_PATH": str(model_dir)}


@pytest.fixture(scope="session")
def token_counter(model_dir: Path):
    """The model's own token counter: truncation and padding both off."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    return lambda text: len(tok.encode(text, add_special_tokens=False).ids)


@pytest.fixture(scope="session")
def fixtures() -> Path:
    """tests/fixtures: one real file per format, scans, an altChunk docx (see its SOURCES.md)."""
    return FIXTURES


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """../shared/data for the ``corpus`` tests: a skip on a checkout without it, a failure in CI.

    With ``CI`` set a missing data set must not turn into a green run that never read it;
    a CI without the data deselects those tests explicitly (``-m "not corpus"``).
    """
    if not SHARED_DATA.is_dir():
        message = f"shared data not found at {SHARED_DATA}"
        if os.environ.get("CI", "").lower() not in ("", "0", "false"):
            pytest.fail(f"{message}; CI is set, so corpus tests must not skip", pytrace=False)
        pytest.skip(message)
    return SHARED_DATA


@pytest.fixture(scope="session")
def file_modes_apply(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Skip unless this process is refused a file its mode forbids.

    Root (with CAP_DAC_OVERRIDE) reads anything; CI runs the suite without those
    capabilities (``.ci/unprivileged``, or as the GitHub runner's own user), so the
    permission tests run there: with ``CI`` set, being able to read the probe fails.
    """
    probe = tmp_path_factory.mktemp("modes") / "probe"
    probe.write_text("secret")
    probe.chmod(0)
    try:
        probe.read_text()
    except PermissionError:
        return
    finally:
        probe.chmod(0o600)
    message = "this process reads files whatever their mode (root); see .ci/unprivileged"
    if os.environ.get("CI"):
        # CI runs the suite unprivileged on purpose: a skip there would hide a broken setup.
        pytest.fail(f"{message}; CI is set, so the permission tests must run", pytrace=False)
    pytest.skip(message)


@pytest.fixture
def docs_root(tmp_path: Path) -> Path:
    """An empty document root for one test."""
    root = tmp_path / "docs"
    root.mkdir()
    return root


@pytest.fixture
def index_env(tmp_path: Path, docs_root: Path, model_env: dict[str, str]) -> dict[str, str]:
    """A complete environment for an Index over ``docs_root`` with the offline model."""
    return {**model_env, "BASE_DIR": str(docs_root), "DB_PATH": str(tmp_path / "index")}


@pytest.fixture
def make_index(index_env: dict[str, str]):
    """Factory: ``make_index(**extra_env)`` opens an Index (closed after the test)."""
    from minirag_store import Index

    opened: list[Index] = []

    def make(**extra: str) -> Index:
        index = Index.open({**index_env, **extra})
        opened.append(index)
        return index

    yield make
    for index in opened:
        index.close()


#: Debian's Chromium and its driver (apt-get install chromium chromium-driver; .ci/run).
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")


@pytest.fixture(scope="session")
def chromium() -> tuple[Path, Path]:
    """(chromium, chromedriver) for the ``browser`` tests: a skip on a machine without
    them, a failure with ``CI`` set (.ci/run installs them: a skip there would hide a
    broken set-up, as for the corpus tests)."""
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    if missing:
        message = f"{' and '.join(missing)} not found (apt-get install chromium chromium-driver)"
        if os.environ.get("CI", "").lower() not in ("", "0", "false"):
            pytest.fail(f"{message}; CI is set, so browser tests must not skip", pytrace=False)
        pytest.skip(message)
    return CHROMIUM, CHROMEDRIVER
