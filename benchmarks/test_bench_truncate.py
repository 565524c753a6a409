"""Batch truncation in the reference: head and tail over mixed logs, truncateLine on a bundle.

The same functions the suite checks; inputs come from `corpora.generators`. Comparisons
with the real Pi and with the machine's limits arrive with the streaming benchmarks.
"""

from __future__ import annotations

from typing import Any

import reference


def test_truncate_tail_mixed_log(benchmark: Any, log_text: str) -> None:
    result = benchmark(reference.truncate_tail, log_text)
    assert result.truncated


def test_truncate_head_mixed_log(benchmark: Any, log_text: str) -> None:
    result = benchmark(reference.truncate_head, log_text)
    assert result.truncated


def test_truncate_line_minified_bundle(benchmark: Any, bundle_line: str) -> None:
    result = benchmark(reference.truncate_line, bundle_line)
    assert result.was_truncated
