"""The embedding model: the ONNX encoder and its tokenizer, ``Embedder``, and what a chunk's
vector is made from (and which stored vectors a rewritten source keeps).

It builds on ``storage`` (``native``, the schema's filters) and ``text``; it never imports
``search``. ``write`` and the facade import it.
"""
