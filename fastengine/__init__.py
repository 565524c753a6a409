"""ctxspec's fast engine: Pi 0.85.0's session and streaming helpers, raced against Pi.

`reference/` is the oracle, each rule written once and plainly. This package answers the
same questions faster, and is an implementation in its own right (`--impl fastengine`):
the whole conformance suite runs against it, and tests/fastengine/ check it
against the reference with differential properties. It replaces only the helpers whose
speed is measured; everything else it answers with the reference's functions.

- `walks.FAST`: the reference's inner loops (`ctxspec.reference.walks`, the one seam where
  an engine plugs into the oracle) run faster: the functions here that run a reference
  rule pass it these walks;
- `tree.RunTree`: a `ctxspec.reference.session.SessionTree` whose paths are slices of runs of
  consecutive entries, built in one C pass (`_sessions.c`);
- `session`: the file parsed at once (the array written in C, `_parse.c`), paths and
  contexts as slices;
- `compaction`: the cut point reading only what decides, the preparation from one scan;
- `branch`: the LCA by comparing runs, navigation with these walks;
- `stream`: the output accumulator decoding each chunk in C (`_speedups.c`);
- `tokens`: the context's token estimate in one C pass (`_tokens.c`, which also estimates
  each entry of `find_cut_point`'s walk back to the budget).

The C extensions are optional (setup.py): without them each module takes its own Python
path, slower and with the same answers. docs/fast-engine.md has the figures.
"""

from __future__ import annotations

from ctxspec.fastengine.branch import collect_entries_for_branch_summary, navigate_tree
from ctxspec.fastengine.compaction import find_cut_point, prepare_compaction
from ctxspec.fastengine.session import (
    as_entries,
    build_context_entries,
    build_session_context,
    build_session_path,
    load_session,
    parse_session_entries,
)
from ctxspec.fastengine.stream import OutputAccumulator, persist_stream
from ctxspec.fastengine.tokens import estimate_context_tokens
from ctxspec.fastengine.tree import RunTree

__all__ = [
    "OutputAccumulator",
    "RunTree",
    "as_entries",
    "build_context_entries",
    "build_session_context",
    "build_session_path",
    "collect_entries_for_branch_summary",
    "estimate_context_tokens",
    "find_cut_point",
    "load_session",
    "navigate_tree",
    "parse_session_entries",
    "persist_stream",
    "prepare_compaction",
]
