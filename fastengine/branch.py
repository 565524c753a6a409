"""The branch helpers of `ctxspec.reference.branch`, fast: the LCA found by comparing runs.

- `collect_entries_for_branch_summary`: both paths are root paths of one tree, so they
  share a prefix and the LCA is where they part. With unique ids it is found by
  comparing the two paths' runs of consecutive entries (`RunTree.segments`), never entry
  by entry, in one C call for str ids (`_sessions.collect`: a session of a hundred
  entries is a single cold call, where Python's walk was most of its cost); with repeated
  ids the reference's walk answers.
- `navigate_tree` is the reference's, on a `RunTree`, with this engine's walks (`FAST`:
  this collect, and `ctxspec.fastengine.session.build_session_context` for
  `NavigationResult.context()`).

Each answers as its `ctxspec.reference.branch` namesake (tests/fastengine/test_sessions.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from ctxspec.fastengine._native import native
from ctxspec.fastengine.tree import RunTree
from ctxspec.fastengine.walks import FAST
from ctxspec.reference import branch
from ctxspec.reference.branch import CollectEntriesResult, NavigationResult
from ctxspec.reference.session import SessionTree, js_truthy

__all__ = ["collect_entries_for_branch_summary", "navigate_tree"]

Entry = Mapping[str, Any]

# the walk and the comparison of runs in C, for str ids (`_sessions.collect`)
_C_COLLECT: Final[Callable[..., tuple[tuple[Entry, ...], Any] | None] | None] = native(
    "_sessions", "collect"
)


def collect_entries_for_branch_summary(
    entries: Sequence[Entry] | SessionTree, old_leaf_id: Any, target_id: Any
) -> CollectEntriesResult:
    """`ctxspec.reference.branch.collect_entries_for_branch_summary` by runs (LCA-1)."""
    if not (old_leaf_id if type(old_leaf_id) is str else js_truthy(old_leaf_id)):
        return CollectEntriesResult(entries=(), common_ancestor_id=None)
    tree = RunTree.of(entries).without_headers()
    if _C_COLLECT is not None:
        found = _C_COLLECT(tree.entries, tree.positions, tree.breaks, old_leaf_id, target_id)
        if found is not None:
            return CollectEntriesResult(entries=found[0], common_ancestor_id=found[1])
    old_at = tree.position(old_leaf_id)
    old = tree.segments(old_at) if old_at is not None else []
    truthy = target_id if type(target_id) is str else js_truthy(target_id)  # (a str at once)
    target_at = tree.position(target_id) if truthy else None
    target = tree.segments(target_at) if target_at is not None else []
    if old is None or target is None:  # ids repeat: walk entry by entry
        return branch.collect_entries_for_branch_summary(tree, old_leaf_id, target_id)
    common = -1  # the LCA's position
    kept = old  # the old path's ranges below the LCA
    for number, ((old_first, old_last), (first, last)) in enumerate(zip(old, target, strict=False)):
        if old_first != first:  # the paths parted at the end of the previous range
            kept = old[number:]
            break
        common = min(old_last, last)
        if old_last != last:  # they part inside this range
            kept = old[number + 1 :]
            if common < old_last:
                kept = [(common + 1, old_last), *kept]
            break
    else:
        kept = old[min(len(old), len(target)) :]
    lca = tree.entries[common].get("id") if common >= 0 else None
    return CollectEntriesResult(entries=tree.slices(kept), common_ancestor_id=lca)


def navigate_tree(
    entries: Sequence[Entry] | SessionTree, leaf_id: Any, target_id: Any, **options: Any
) -> NavigationResult:
    """`ctxspec.reference.branch.navigate_tree`, with its options, on a `RunTree` with this
    engine's walks (`FAST`)."""
    return branch.navigate_tree(RunTree.of(entries), leaf_id, target_id, **options, walks=FAST)
