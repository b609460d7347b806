"""Writing documents: ``DocumentWriter`` chunks, locates, embeds and commits them; ``locate``
places each chunk's locator in the chunked markdown.

The top stage of ``index``: it imports ``embed``, ``storage`` and ``text``; only ingestion
and the facade import it.
"""
