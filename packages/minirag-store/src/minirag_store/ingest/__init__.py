"""Ingestion: scanning the roots (ignore files, containment), deciding what changed, parse
workers, sync jobs and their lock, URL fetching behind its host guard, and the single-file
entry points. It drives conversion and the index's writer.
"""
