"""The engine's thin I/O edges: the only part of `reference` that touches the machine.

The pure modules of `reference/` decide; the modules here read a real directory into
the listing the pure modules take, or write what they decided to persist. Nothing in
the pure modules imports from here.
"""
