"""What this installation is: the installed minirag-store version."""

from __future__ import annotations

__all__ = ["version"]


def version() -> str:
    """The installed minirag-store version (from package metadata, so it cannot drift)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("minirag-store")
    except PackageNotFoundError:  # running from a source tree without metadata
        return "0+unknown"
