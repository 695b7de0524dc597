"""Ingest: read uploaded files, scrub them, validate with the engine, build browse rows."""
