"""The foundations every other package builds on, knowing nothing of debates: user errors and
ceilings, the registry class and the entry-point reader, typed option values, paths of the cache,
redaction of secrets, numbers and text, atomic writes, JSON Schema files, the one bounded reader of
every file a user points debench at, JSON-lines files, the append-only record log, the SVG charts, and
numpy imported with one BLAS thread.

May import: nothing of debench.
"""
