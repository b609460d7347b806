"""The chunk table on disk: its columns, where it lives, how it is created, committed, kept
indexed and summarised, and the rows' Arrow shape.

It holds ``keyword_column`` (the ``keywords`` column is built and rebuilt from the stored rows,
as ``fragments`` writes it) and ``native`` (LanceDB's one import and the allocator bound,
which ``embed`` needs too), so ``search``, ``embed`` and ``table`` build on it. It imports
only ``index.text`` below it.
"""
