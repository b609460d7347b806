"""Ignore files: ``.miniragignore`` and ``.gitignore``, in gitignore syntax, nested.

Each folder may hold either or both; their patterns apply to paths below that folder,
relative to it. As in git, a deeper file's verdict beats a shallower one's, a later
pattern beats an earlier one (``!keep.log`` re-includes), and a folder that is ignored
is not entered at all, so nothing under it can be re-included.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

__all__ = ["IGNORE_FILE_NAMES", "IgnoreRules", "ignored_by", "is_ignored", "load_rules"]

#: Read in this order; a pattern in .miniragignore outranks one in .gitignore of the same folder.
IGNORE_FILE_NAMES: tuple[str, ...] = (".gitignore", ".miniragignore")


@dataclass(frozen=True)
class IgnoreRules:
    """The patterns of one folder's ignore files, anchored at that folder."""

    base: str  # the folder, as a path string ending in os.sep
    spec: GitIgnoreSpec
    #: Where each of ``spec``'s patterns was written (``.gitignore:3: *.log``), in order;
    #: empty when they cannot be told apart (``list --all`` then names the file only).
    origins: tuple[str, ...] = ()

    def verdict(self, path: str, is_dir: bool) -> bool | None:
        """True = ignored, False = re-included by a ``!`` pattern, None = no pattern matched."""
        rel = path[len(self.base) :]
        if os.sep != "/":
            rel = rel.replace(os.sep, "/")
        return self.spec.check_file(rel + "/" if is_dir else rel).include

    def origin(self, path: str, is_dir: bool) -> str:
        """The ignore-file line whose pattern decides ``path`` (``folder/.gitignore:3: *.log``)."""
        rel = path[len(self.base) :].replace(os.sep, "/")
        index = self.spec.check_file(rel + "/" if is_dir else rel).index
        where = self.origins[index] if index is not None and index < len(self.origins) else ""
        return f"{self.base}{where or 'an ignore file'}"


def load_rules(folder: str, names: set[str], warnings: list[str]) -> IgnoreRules | None:
    """Rules from the ignore files present in ``folder`` (``names`` = its entry names)."""
    lines: list[str] = []
    origins: list[str] = []
    for name in IGNORE_FILE_NAMES:
        if name not in names:
            continue
        path = os.path.join(folder, name)
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                for number, line in enumerate(fh.read().splitlines(), 1):
                    if line.strip():  # pathspec drops blank lines: keep origins in step
                        lines.append(line)
                        origins.append(f"{name}:{number}: {line.strip()}")
        except OSError as e:
            warnings.append(f"Cannot read ignore file {path}: {e.strerror or e}; not applied")
    if not lines:
        return None
    from pathspec import GitIgnoreSpec

    spec = GitIgnoreSpec.from_lines(lines)
    known = tuple(origins) if len(spec.patterns) == len(origins) else ()
    return IgnoreRules(folder.rstrip(os.sep) + os.sep, spec, known)


def ignored_by(rules: list[IgnoreRules], path: str, is_dir: bool) -> str:
    """The rule that ignores ``path`` (call only when :func:`is_ignored` says it is)."""
    for rule in reversed(rules):
        if rule.verdict(path, is_dir) is not None:
            return rule.origin(path, is_dir)
    return "an ignore file"


def is_ignored(rules: list[IgnoreRules], path: str, is_dir: bool) -> bool:
    """Whether the innermost ignore file with an opinion on ``path`` ignores it."""
    for rule in reversed(rules):
        verdict = rule.verdict(path, is_dir)
        if verdict is not None:
            return verdict
    return False
