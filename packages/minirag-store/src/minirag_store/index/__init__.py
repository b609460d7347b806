"""The index: the LanceDB table, vector and keyword search, fusion, the embedding model,
and the writer that chunks, embeds and commits documents.

It never imports conversion or ingestion (the import contract in the root pyproject says
so): it takes markdown and gives back rows and scores.
"""
