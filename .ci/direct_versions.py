"""Print the installed version of every direct dependency the given pyproject files declare.

Run with the environment's interpreter after a resolution (``.ci/resolution``), so a CI log
shows which versions the lowest-direct and newest runs actually tested.
"""

from __future__ import annotations

import re
import sys
import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def declared(pyprojects: list[Path]) -> dict[str, str]:
    """``{name: requirement}`` over the ``[project] dependencies`` of each file."""
    found: dict[str, str] = {}
    for path in pyprojects:
        project = tomllib.loads(path.read_text(encoding="utf-8"))["project"]
        for requirement in project.get("dependencies", []):
            match = _NAME.match(requirement)
            if match:
                found.setdefault(match.group(1).lower(), requirement)
    return found


def main(argv: list[str]) -> int:
    """Print one ``name installed (declared)`` line per direct dependency."""
    for name, requirement in sorted(declared([Path(a) for a in argv]).items()):
        try:
            installed = version(name)
        except PackageNotFoundError:
            installed = "NOT INSTALLED"
        print(f"  {name:<22} {installed:<14} ({requirement})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
