"""Hypothesis strategies for the inputs that break context engines, one module per kind.

`text` (strings with astral characters, lone surrogates, CRLF, BOMs; limits near a size),
`trees` (context-file trees, trust stores), `sessions` (session trees, agent runs, the
shapes the properties read), `entries` (every entry type, optional field and header
version, sharp text, ids naming no entry, sessions long enough for Pi's defaults),
`streams` (chunked byte streams), `files` (trees with ignore files, binary and non-UTF-8
files and symlinks; globs; skill front matter; settings patterns), `session_ops` and
`ops` (one strategy of arguments per op of protocol v1, which `ctxspec fuzz` draws from).
"""
