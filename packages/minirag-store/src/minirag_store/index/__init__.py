"""The index: the LanceDB table, vector and keyword search, fusion, the embedding model,
and the writer that chunks, embeds and commits documents.

Stages, each importing only those below it (the ``index`` layers contract in the root
pyproject): ``write`` and ``loading`` over ``table`` (``ChunkTable``, which composes the
two below it) over ``search`` and ``embed`` (independent) over ``storage`` over ``text``.

It never imports conversion or ingestion (the import contract in the root pyproject says
so): it takes markdown and gives back rows and scores.
"""
