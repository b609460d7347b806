"""Every published package declares what it imports, as a range with a reason.

CI's lowest-direct and newest runs (``.ci/resolution``) prove the ranges work; these tests
keep the ranges there to prove: each direct requirement has a floor and a cap and a
one-line reason beside it, and every third-party module a package imports is declared by
that package (a shared dev venv would otherwise hide a missing one until a user's
``pip install`` of that package alone).
"""

from __future__ import annotations

import ast
import importlib.metadata as md
import re
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parent.parent
PYPROJECTS = sorted((REPO / "packages").glob("*/pyproject.toml"))
PACKAGE_IDS = [p.parent.name for p in PYPROJECTS]

#: Requirements that may go without a cap, and why.
UNCAPPED = {
    "certifi": "calendar-versioned CA bundle: any cap would freeze the list of trusted CAs",
}


def _project(pyproject: Path) -> dict:
    return tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]


def _all_requirements(pyproject: Path) -> list[Requirement]:
    project = _project(pyproject)
    extras = [r for group in project.get("optional-dependencies", {}).values() for r in group]
    return [Requirement(r) for r in [*project.get("dependencies", []), *extras]]


def commented_requirements(text: str) -> dict[str, str]:
    """``{requirement: reason}`` for the ``dependencies = [...]`` array of a pyproject.

    The reason is the inline comment, or the comment lines just above the requirement.
    """
    block = re.search(r"^dependencies = \[\n(.*?)^\]", text, re.MULTILINE | re.DOTALL)
    assert block, "no multi-line 'dependencies = [' array"
    found: dict[str, str] = {}
    pending: list[str] = []
    for line in block.group(1).splitlines():
        code, _, comment = line.partition("#")
        requirement = re.search(r'"([^"]+)"', code)
        if requirement is None:
            if comment.strip():
                pending.append(comment.strip())
            continue
        found[requirement.group(1)] = " ".join([*pending, comment.strip()]).strip()
        pending = []
    return found


@pytest.mark.parametrize("pyproject", PYPROJECTS, ids=PACKAGE_IDS)
def test_every_requirement_has_a_floor_and_a_cap(pyproject: Path):
    missing = []
    for requirement in _all_requirements(pyproject):
        operators = {spec.operator for spec in requirement.specifier}
        needs = {">="} if requirement.name in UNCAPPED else {">=", "<"}
        if not needs <= operators:
            missing.append(str(requirement))
    assert not missing, f"{pyproject}: give each a '>=floor,<cap' range: {missing}"


@pytest.mark.parametrize("pyproject", PYPROJECTS, ids=PACKAGE_IDS)
def test_every_requirement_says_why(pyproject: Path):
    reasons = commented_requirements(pyproject.read_text(encoding="utf-8"))
    assert sorted(reasons) == sorted(_project(pyproject).get("dependencies", []))
    silent = [requirement for requirement, reason in reasons.items() if len(reason) < 10]
    assert not silent, f"{pyproject}: a one-line reason comment for each of {silent}"


def imported_top_level(src: Path) -> set[str]:
    """Top-level names of every absolute import in the Python files under ``src``."""
    names: set[str] = set()
    for path in src.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("pyproject", PYPROJECTS, ids=PACKAGE_IDS)
def test_every_imported_distribution_is_declared(pyproject: Path):
    own = canonicalize_name(_project(pyproject)["name"])
    declared = {canonicalize_name(r.name) for r in _all_requirements(pyproject)}
    declared |= {d for name in declared for d in _pinned_by(name)}
    providers = md.packages_distributions()
    undeclared = {}
    for module in imported_top_level(pyproject.parent / "src"):
        if module in sys.stdlib_module_names or module == "__future__":
            continue
        # Our own packages are installed editable, which packages_distributions() cannot see.
        own_dist = [module.replace("_", "-")] if module.startswith("minirag_") else []
        dists = {canonicalize_name(d) for d in providers.get(module, own_dist)}
        assert dists, f"{pyproject.parent.name} imports {module}, which no installed dist provides"
        if own not in dists and not dists & declared:
            undeclared[module] = sorted(dists)
    assert not undeclared, f"{pyproject}: imported but not declared: {undeclared}"


def _pinned_by(name: str) -> set[str]:
    """What a meta package pins exactly (``fastmcp`` is ``fastmcp-slim[...]==`` its version)."""
    try:
        requires = md.requires(name) or []
    except md.PackageNotFoundError:
        return set()
    pinned = [Requirement(r) for r in requires]
    return {
        canonicalize_name(r.name)
        for r in pinned
        if r.marker is None and any(s.operator == "==" for s in r.specifier)
    }


def test_uncapped_exceptions_are_still_used():
    declared = {r.name for p in PYPROJECTS for r in _all_requirements(p)}
    assert set(UNCAPPED) <= declared, "drop exceptions for requirements no package declares"


def test_the_comment_parser_reads_inline_and_preceding_comments():
    text = "\n".join(
        [
            "dependencies = [",
            "    # why a",
            '    "a>=1,<2",',
            '    "b>=1,<2",  # why b',
            '    "c>=1",',
            "]",
        ]
    )
    assert commented_requirements(text) == {"a>=1,<2": "why a", "b>=1,<2": "why b", "c>=1": ""}
