"""The background warm-up: the index and model load while the server starts.

Kept apart from :mod:`minirag_mcp.server` (and fastmcp) so the entry point can start it
before it imports fastmcp: on two cores the loads then overlap that import instead of
following it.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from minirag_store import Index

__all__ = ["warm_up_in_background"]

logger = logging.getLogger("minirag_mcp.server")


def warm_up_in_background(index: Index) -> threading.Thread | None:
    """Run :meth:`Index.warm_up` in a daemon thread; None with a broken configuration
    (nothing to warm: every tool but ``status`` reports the configuration error).

    A failure is logged as a warning, not raised: the server keeps serving, and the
    first call that needs the failed part (the model, the table) raises it again as a
    tool error the client sees.
    """
    if index.config_error is not None:
        return None

    def run() -> None:
        try:
            index.warm_up()
        # The thread has no caller to raise to: log it where the user looks (stderr).
        except Exception as e:
            logger.warning("warm-up failed (the first call that needs it will retry): %s", e)

    thread = threading.Thread(target=run, name="minirag-warm-up", daemon=True)
    thread.start()
    return thread
