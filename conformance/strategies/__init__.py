"""Hypothesis strategies for the inputs that break context engines, one module per kind.

`text` (strings with astral characters, lone surrogates, CRLF, BOMs; limits near a size)
and, as boundaries arrive, one module each for trees, sessions and byte streams.
"""
