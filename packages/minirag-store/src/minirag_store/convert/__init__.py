"""Conversion: a file or caller-held content to markdown and a title (markitdown, PDF page
routing, the OCR add-on's probe, text decoding, titles).

Near-pure code that runs in the parse worker processes: it imports neither the index nor
ingestion.
"""
