"""Deterministic generators of large inputs (fixed seeds; output never committed)."""
