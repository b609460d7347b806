"""No module below the store's facade depends on the facade, not even for types.

Operations take the parts they use (``minirag_store.parts`` protocols, or the objects
themselves); import-linter ignores ``TYPE_CHECKING`` imports, so this check reads the
source and counts those too.
"""

from __future__ import annotations

import ast
from pathlib import Path

STORE = Path(__file__).resolve().parents[1] / "packages/minirag-store/src/minirag_store"
#: The facade itself, and the package root that re-exports it.
FACADE = {"service.py", "__init__.py"}


def _facade_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            names = {a.name for a in node.names}
            if node.module == "minirag_store.service" or (
                node.module == "minirag_store" and ("Index" in names or "service" in names)
            ):
                found.append(f"line {node.lineno}: from {node.module} import {', '.join(names)}")
        elif isinstance(node, ast.Import):
            found += [f"line {node.lineno}: import {a.name}" for a in node.names
                      if a.name == "minirag_store.service"]  # fmt: skip
    return found


def test_the_store_modules_are_found() -> None:
    modules = list(STORE.rglob("*.py"))
    assert len(modules) > 60
    assert _facade_imports(STORE / "__init__.py")  # the check does see an import


def test_nothing_below_the_facade_imports_it() -> None:
    offenders = [
        f"{path.relative_to(STORE)} {line}"
        for path in sorted(STORE.rglob("*.py"))
        if path.relative_to(STORE).as_posix() not in FACADE
        for line in _facade_imports(path)
    ]
    assert not offenders, "take the parts you use (minirag_store.parts):\n" + "\n".join(offenders)
