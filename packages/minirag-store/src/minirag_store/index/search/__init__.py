"""Finding chunks: the exact and ANN vector paths, keyword search through the async table,
the ``Searcher`` that runs them side by side, and rank fusion.

It builds on ``storage`` and ``text`` and never imports ``embed`` or ``write`` (a query's
vector is handed in). ``table`` and the store's query operations import it.
"""
