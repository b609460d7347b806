"""The CLI's one error surface: ``error: <message>`` on stderr and exit status 1.

Every subcommand runs inside :class:`GuardedGroup.invoke`, so a
:class:`~minirag_store.errors.MiniragError` (bad path, broken configuration, a model that
could not be downloaded ...), a usage mistake, or an unexpected bug all end the same way:
one readable line, no traceback. ``MINIRAG_DEBUG=1`` lets unexpected exceptions through
with their traceback, for a bug report.
"""

from __future__ import annotations

import os
from typing import Any, NoReturn

import typer
from typer.core import TyperGroup

__all__ = ["GuardedGroup", "fail", "warn"]

#: Exit status of every failed run (usage errors included, so scripts test one number).
FAILURE = 1
#: Exit status after Ctrl-C, the shell convention (128 + SIGINT).
INTERRUPTED = 130


def fail(message: str) -> NoReturn:
    """Print ``error: <message>`` on stderr and stop with exit status 1."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(FAILURE)


def warn(message: str) -> None:
    """Print ``warn: <message>`` on stderr; the run goes on."""
    typer.echo(f"warn: {message}", err=True)


def _debug() -> bool:
    return os.environ.get("MINIRAG_DEBUG", "").strip().lower() in {"1", "true", "yes", "on"}


def _usage_error(error: Any, ctx: Any) -> NoReturn:
    """A usage mistake (missing option, bad number, unknown command) as one error line."""
    bad = getattr(error, "ctx", None) or ctx
    fail(f"{error.format_message()} (see: {bad.command_path} --help)")


class GuardedGroup(TyperGroup):
    """The command group that turns every failure of a subcommand into :func:`fail`."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        """Parse the top-level options; a mistake there is one error line too.

        With no arguments at all, typer's help screen is the friendlier answer, so that
        case is left to typer.
        """
        from typer.exceptions import TyperException

        if not args:
            return super().parse_args(ctx, args)
        try:
            return super().parse_args(ctx, args)
        except TyperException as e:
            _usage_error(e, ctx)

    def invoke(self, ctx: Any) -> Any:
        """Run the chosen subcommand, converting its errors in this one place."""
        from minirag_store.errors import MiniragError
        from typer.exceptions import Abort, Exit, TyperException

        try:
            return super().invoke(ctx)
        except (Exit, Abort, BrokenPipeError):
            raise  # a deliberate exit, or `| head` closing the pipe (typer handles it)
        except KeyboardInterrupt:
            typer.echo("error: interrupted", err=True)
            raise typer.Exit(INTERRUPTED) from None
        except TyperException as e:  # a usage mistake: missing option, bad number ...
            _usage_error(e, ctx)
        except MiniragError as e:
            fail(str(e))
        except Exception as e:
            if _debug():
                raise
            fail(
                f"unexpected {type(e).__name__}: {e} - this is a bug in minirag; please report "
                "it (rerun with MINIRAG_DEBUG=1 to see the traceback)"
            )
