"""A run split over machines (`--shard K/N`), and its parts' reports made whole again.

A run that splits is a list of *units* in a fixed order: `ctxspec fuzz`'s are its
(seed, op) pairs, seed by seed; `ctxspec sweep`'s are its seeds. Shard K of N takes the
K-th of N contiguous ranges of that list (their lengths differ by one at most), so the N
shards take each unit once, and with one unit per seed each takes a range of seeds.
Each unit's outcome depends on its seed and its op alone, never on the units run before
it, so the parts' reports merge into the report of the whole run: `check_parts` refuses
parts that are not the N shards of one run, each once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from ctxspec.cli import UsageError

__all__ = ["WHOLE", "Shard", "check_parts", "shard_range", "shard_text"]

Shard = tuple[int, int]  # (K, N): the K-th of N parts, 1 <= K <= N
WHOLE: Final[Shard] = (1, 1)


def shard_range(total: int, shard: Shard) -> range:
    """The indices of the units of `total` that shard K/N runs.

    >>> [list(shard_range(5, (k, 2))) for k in (1, 2)]
    [[0, 1], [2, 3, 4]]
    """
    index, count = shard
    return range((index - 1) * total // count, index * total // count)


def shard_text(shard: Shard) -> str:
    return f"{shard[0]}/{shard[1]}"


def check_parts(argument: str, parts: Sequence[Mapping[str, Any]], same: Sequence[str]) -> None:
    """Raise `UsageError` (naming `argument`) unless `parts` are the N shards of one run:
    equal in each key of `same` (what the run was asked), split N ways, each K once."""
    if not parts:
        raise UsageError(argument, "no report to merge")
    first = parts[0]
    for key in same:
        values = sorted({repr(part.get(key)) for part in parts})
        if len(values) > 1:
            raise UsageError(argument, f"the reports are of different runs: {key} {values}")
    shards = [str(part.get("shard") or shard_text(WHOLE)) for part in parts]
    counts = {text.partition("/")[2] for text in shards}
    if len(counts) > 1:
        raise UsageError(argument, f"the reports split the run in different ways: {shards}")
    total = int(counts.pop())
    wanted = [shard_text((k, total)) for k in range(1, total + 1)]
    if sorted(shards) != sorted(wanted):
        missing = sorted(set(wanted) - set(shards))
        repeated = sorted({text for text in shards if shards.count(text) > 1})
        what = [f"given twice {repeated}"] * bool(repeated) + [f"missing {missing}"] * bool(missing)
        raise UsageError(argument, f"the shards of {first.get('impl')}: {'; '.join(what)}")
