"""A declared setting: one environment variable's type, default, range, meaning and the
error for a bad value, and the readers that check a value against its declaration.

The store's variables are declared in :mod:`minirag_store.variables`, the MCP shell's
``RAG_HTTP_*`` in ``minirag_mcp.variables``; the loaders read through these records, and
README's configuration table is printed from them (:func:`markdown_table`), so a range, a
default or a message is written once.

A plain frozen dataclass, not pydantic-settings: the loaders take an explicit mapping
(never ``os.environ`` behind the caller's back) and build frozen objects already; the
messages minirag promises (the variable, what is accepted, the bad value, never a secret)
are ours to word, where pydantic's validation errors would have to be rewritten; one bound
depends on another setting (``CHUNK_TOKEN_BUDGET``'s ceiling is the model's), a plain
argument here; and the store imports no pydantic today (start-up is what a user waits for).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from minirag_store.errors import ConfigError

__all__ = [
    "Setting",
    "markdown_table",
    "read_bool",
    "read_choice",
    "read_float",
    "read_int",
    "read_optional_choice",
    "read_optional_float",
    "read_optional_int",
    "read_text",
]

#: ``int``/``float``/``bool``/``choice``: checked here; ``text``: any string (the
#: loader checks paths and JSON where it uses them); ``engine``: read by LanceDB/Lance
#: themselves, never by minirag's loaders (declared so README lists it).
Kind = Literal["int", "float", "bool", "choice", "text", "engine"]
Value = int | float | str | bool | None
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off", ""})


@dataclass(frozen=True)
class Setting:
    """One environment variable, declared once: what the loader accepts and README says."""

    name: str
    kind: Kind
    #: README's "meaning" cell (markdown; links to sections are kept).
    meaning: str
    #: The value when the variable is unset or blank (None: off / unset).
    default: Value = None
    minimum: int | float | None = None
    #: The largest value accepted; excluded when ``below`` is set.
    maximum: int | float | None = None
    below: bool = False
    #: The accepted values of a ``choice``, and other spellings of them.
    choices: tuple[str, ...] = ()
    aliases: tuple[tuple[str, str], ...] = ()
    #: What a good value is, where the kind and bounds do not say it well enough.
    must: str = ""
    #: README's "default" cell, where the default in backticks does not say it.
    shown: str = ""

    def requirement(self, maximum: int | float | None = None) -> str:
        """``must be …``: what the loader accepts (``maximum`` overrides the declared one)."""
        if self.must:
            return self.must
        if self.kind == "bool":
            return "must be one of 1/true/yes/on or 0/false/no/off"
        if self.kind == "choice":
            default = f"default {self.default}" if self.default is not None else "or unset"
            return f"must be one of {', '.join(self.choices)} ({default})"
        hi = self.maximum if maximum is None else maximum
        if hi is None:
            return f"must be at least {self.minimum}"
        if self.below:
            return f"must be at least {self.minimum} and below {hi}"
        return f"must be between {self.minimum} and {hi}"

    def error(self, got: object, maximum: int | float | None = None) -> ConfigError:
        """The :class:`ConfigError` for the bad value ``got`` (already quoted as wanted)."""
        return ConfigError(f"{self.name} {self.requirement(maximum)}, got {got}")

    def given(self, env: Mapping[str, str]) -> bool:
        """Whether ``env`` sets this variable to something other than blanks."""
        return bool(env.get(self.name, "").strip())

    @property
    def default_cell(self) -> str:
        """README's default column."""
        if self.shown:
            return self.shown
        return "unset" if self.default is None else f"`{self.default}`"


def _raw(env: Mapping[str, str], setting: Setting) -> str:
    return env.get(setting.name, "").strip()


def _number(
    env: Mapping[str, str], setting: Setting, maximum: int | float | None = None
) -> int | float | None:
    raw = _raw(env, setting)
    if not raw:
        return setting.default  # type: ignore[return-value]  # a number or None, as declared
    try:
        value: int | float = int(raw) if setting.kind == "int" else float(raw)
    except ValueError as e:
        what = "a whole number" if setting.kind == "int" else "a number"
        raise ConfigError(f"{setting.name} must be {what}, got {raw!r}") from e
    if not math.isfinite(value):
        raise ConfigError(f"{setting.name} must be a finite number, got {raw!r}")
    hi = setting.maximum if maximum is None else maximum
    low = setting.minimum is not None and value < setting.minimum
    high = hi is not None and (value >= hi if setting.below else value > hi)
    if low or high:
        raise setting.error(value, maximum)
    return value


def read_optional_int(env: Mapping[str, str], setting: Setting) -> int | None:
    """A whole number within the declared bounds, or the default (None: unset)."""
    value = _number(env, setting)
    return None if value is None else int(value)


def read_int(env: Mapping[str, str], setting: Setting, maximum: int | None = None) -> int:
    """A whole number within the bounds (``maximum`` overrides the declared one)."""
    value = _number(env, setting, maximum)
    assert isinstance(value, int), f"{setting.name} declares no whole-number default"
    return value


def read_optional_float(env: Mapping[str, str], setting: Setting) -> float | None:
    """A finite number within the declared bounds, or the default (None: unset)."""
    value = _number(env, setting)
    return None if value is None else float(value)


def read_float(env: Mapping[str, str], setting: Setting) -> float:
    """A finite number within the declared bounds, or the declared default."""
    value = read_optional_float(env, setting)
    assert value is not None, f"{setting.name} declares no default"
    return value


def read_bool(env: Mapping[str, str], setting: Setting) -> bool:
    """``1/true/yes/on`` or ``0/false/no/off`` (any case); unset or blank is the default."""
    raw = _raw(env, setting).lower()
    if not raw:
        return bool(setting.default)
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise setting.error(repr(env[setting.name]))


def read_optional_choice(env: Mapping[str, str], setting: Setting) -> str | None:
    """One of the declared choices (any case; an alias gives its choice), or the default."""
    raw = _raw(env, setting).lower()
    if not raw:
        return setting.default  # type: ignore[return-value]  # a choice or None, as declared
    value = dict(setting.aliases).get(raw, raw)
    if value not in setting.choices:
        raise setting.error(repr(env[setting.name]))
    return value


def read_choice(env: Mapping[str, str], setting: Setting) -> str:
    """One of the declared choices, or the declared default."""
    value = read_optional_choice(env, setting)
    assert value is not None, f"{setting.name} declares no default"
    return value


def read_text(env: Mapping[str, str], setting: Setting) -> str | None:
    """The value without surrounding blanks, or the default when unset or blank."""
    assert setting.kind == "text", f"{setting.name} is not text"
    return _raw(env, setting) or setting.default  # type: ignore[return-value]


def markdown_table(settings: Iterable[Setting], rows: Iterable[str] = ()) -> str:
    """README's ``| variable | default | meaning |`` table, then any extra ``rows``.

    Neighbours that share their meaning and default (``LANCE_LOG``, ``LANCEDB_LOG``) share
    a row.
    """
    groups: list[list[Setting]] = []
    for setting in settings:
        last = groups[-1][-1] if groups else None
        if last and (last.meaning, last.default_cell) == (setting.meaning, setting.default_cell):
            groups[-1].append(setting)
        else:
            groups.append([setting])
    lines = ["| variable | default | meaning |", "|---|---|---|"]
    for group in groups:
        names = ", ".join(f"`{s.name}`" for s in group)
        lines.append(f"| {names} | {group[0].default_cell} | {group[0].meaning} |")
    return "\n".join([*lines, *rows])
