"""Import smoke check of one installed minirag distribution, run inside its fresh venv.

``.ci/release-check`` installs a freshly built wheel alone (its declared dependencies from
the index, plus sibling wheels) and then runs this with that venv's interpreter:

- every module of the distribution imports (a dependency used at import time but not
  declared fails here, which the workspace's shared venv would hide);
- every dependency it declares imports (the store imports lancedb, fastembed and markitdown
  lazily, so importing its modules alone would not load them);
- every console script it declares answers ``--help`` (and ``--version``);
- the chunker's venv holds none of the index engine's heavy stack.

Usage: ``python smoke.py DIST-NAME``. Exit status 0 when every check passed.
"""

from __future__ import annotations

import importlib
import importlib.metadata as md
import importlib.util
import pkgutil
import re
import shutil
import subprocess
import sys

#: Installed with minirag-chunker alone, none of these may be present.
HEAVY = ("lancedb", "fastembed", "markitdown", "onnxruntime", "minirag_store")


def import_all(package: str) -> list[str]:
    """Import ``package`` and every module under it; the names imported."""
    root = importlib.import_module(package)
    names = [package]
    for info in pkgutil.walk_packages(root.__path__, prefix=f"{package}."):
        importlib.import_module(info.name)
        names.append(info.name)
    return names


def import_dependencies(dist: md.Distribution) -> list[str]:
    """Import the top-level modules of every unconditional requirement; the names imported."""
    provides = md.packages_distributions()  # import name -> distributions providing it
    imported: list[str] = []
    for requirement in dist.requires or []:
        if ";" in requirement:  # an extra or a marker: not part of the plain install
            continue
        name = _normalise(re.split(r"[\s\[<>=!~;(]", requirement, maxsplit=1)[0])
        modules = [m for m, dists in provides.items() if name in map(_normalise, dists)]
        if not modules:
            raise SystemExit(f"{dist.name} requires {requirement}, which is not installed")
        for module in sorted(m for m in modules if m.isidentifier() and not m.startswith("_")):
            importlib.import_module(module)
            imported.append(module)
    return imported


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def run_scripts(dist: md.Distribution) -> list[str]:
    """Run each console script with ``--help`` and ``--version``; the commands run."""
    ran: list[str] = []
    for entry in dist.entry_points.select(group="console_scripts"):
        exe = shutil.which(entry.name, path=str(_bin_dir()))
        if exe is None:
            raise SystemExit(f"console script {entry.name} was not installed")
        for flag in ("--help", "--version"):
            done = subprocess.run(
                [exe, flag], capture_output=True, text=True, timeout=120, check=False
            )
            if done.returncode != 0:
                raise SystemExit(
                    f"{entry.name} {flag} exited {done.returncode}:\n{done.stdout}{done.stderr}"
                )
            ran.append(f"{entry.name} {flag}")
    return ran


def _bin_dir() -> str:
    from pathlib import Path

    return str(Path(sys.executable).parent)


def check_chunker_alone() -> None:
    """The chunker must chunk with a plain counter and pull in nothing heavy."""
    import minirag_chunker

    doc = "# Title\n\n## A\n\none two three\n\n## B\n\nfour five six"
    out = minirag_chunker.chunk_markdown(doc, count_tokens=lambda t: len(t.split()), budget=16)
    if not out.units:
        raise SystemExit("minirag-chunker produced no units")
    heavy = [name for name in HEAVY if importlib.util.find_spec(name)]
    if heavy:
        raise SystemExit(f"minirag-chunker's venv has heavy packages installed: {heavy}")


def main(argv: list[str]) -> int:
    """Run every check for the distribution named in ``argv``."""
    if len(argv) != 1:
        print("usage: smoke.py DIST-NAME (e.g. minirag-store)", file=sys.stderr)
        return 2
    dist = md.distribution(argv[0])
    package = argv[0].replace("-", "_")
    modules = import_all(package)
    dependencies = import_dependencies(dist)
    scripts = run_scripts(dist)
    if argv[0] == "minirag-chunker":
        check_chunker_alone()
    print(
        f"{argv[0]} {dist.version}: imported its {len(modules)} modules and its dependencies "
        f"{', '.join(dependencies)}; ran {', '.join(scripts) or 'no scripts'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
