"""What the index reads of a chunk's text: readable text (markdown without link targets or
tags), each chunk's language and the keyword analysis stemmed as that language.

Pure: it imports nothing else of ``index``. Kept apart from ``search`` because writing uses it
too (the ``keywords`` column in ``storage``, the embedding inputs in ``embed``).
"""
