"""The one seam where a faster engine plugs into the oracle: `Walks`, the rules' inner loops.

A few of Pi's rules run an inner loop (over a session's entries, a file's lines, a
stream's chunks) that an engine may run its own way, in C, over an index built once, or
reading only what decides, and still give the same answer. Those loops are the methods of
`Walks`; the rest of each rule stays in its module, written once. A rule function that
runs one takes `walks: Walks = PLAIN` as its last, keyword-only parameter: `PLAIN` is the
reference's own loops, so called without it the function is Pi's, with Pi's signature.

An engine subclasses `Walks`, overrides the loops it runs its own way, and passes its
instance (`ctxspec.fastengine.walks.FAST`); a loop it does not override is the
reference's (`super()` calls it). A loop that needs the state of one call (the messages a
fast engine found on one path, the lines it parsed at once) is a subclass made for that
call. The reference imports nothing of an engine: this class is the whole contract.

The walks, by the rule that runs them (each method's docstring says its plain loop):

- `session_file.parse_session_entries` (which lines count, how a skipped one is
  numbered): `parse_line`;
- `compaction.find_cut_point` (CP-3 to CP-7): `choose_cut_point` (the cut the budget
  picks, before CP-7 moves it), `budget_reached_at` (CP-4's walk back from the newest
  entry), `entry_tokens` (CP-2, each entry of that walk where an engine's own walk does
  not estimate it),
  `projects_to` (an entry's role: the cut points, the turn starts of CP-5, also through
  `find_turn_start_index`);
- `compaction.prepare_compaction`: `previous_compaction_index`, `build_session_context`
  and `estimate_context_tokens` (`tokensBefore`), `find_cut_point`'s walks,
  `compaction_messages` (what is summarised), `file_op_calls` (the file lists);
- `branch.navigate_tree`: `collect_entries_for_branch_summary`, and
  `build_session_context` for `NavigationResult.context()`;
- `edge.persist.persist_stream`: `output_accumulator`.

A session tree an engine built (a `session.SessionTree` subclass, such as
`ctxspec.fastengine.tree.RunTree`) passes through every rule as its entries.

The rule modules import this one for `PLAIN`; the plain loops are read from the rule
modules when called (`rules.<module>`), so this module imports none of them first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

import ctxspec.reference as rules  # its modules are read when a walk runs (see above)

if TYPE_CHECKING:
    from ctxspec.reference.branch import CollectEntriesResult
    from ctxspec.reference.session import SessionContext, SessionTree
    from ctxspec.reference.stream import OutputAccumulator
    from ctxspec.reference.tokens import ContextUsageEstimate

__all__ = ["PLAIN", "Walks"]

Entry = Mapping[str, Any]


class Walks:
    """The inner loops of the rules, each the reference's own: see the module docstring."""

    __slots__ = ()

    def parse_line(self, offset: int, line: str) -> Any:
        """The JSON value of a non-blank line of a session file (`offset`: its place among
        the lines of the trimmed text); `ValueError` when it is not JSON."""
        del offset  # the plain parse reads each line alone
        return rules.session_file.parse_line(line)

    def projects_to(self, entry: Entry, roles: frozenset[str]) -> bool:
        """Whether the entry gives the context a message of one of `roles` (CP-3, CP-5)."""
        return rules.compaction._projects_to(entry, roles)

    def choose_cut_point(
        self, entries: Sequence[Entry], start_index: int, end_index: int, keep_recent_tokens: float
    ) -> int | None:
        """The cut point of `entries[start:end]` chosen by the budget, before CP-7 moves it;
        None when there is none (CP-3, CP-4)."""
        return rules.compaction._choose_cut_point(
            entries, start_index, end_index, keep_recent_tokens, walks=self
        )

    def budget_reached_at(
        self, entries: Sequence[Entry], start_index: int, end_index: int, keep_recent_tokens: float
    ) -> int | None:
        """The entry where the estimates of `entries[start:end]`, summed from the newest
        back, reach `keep_recent_tokens`; None when they never do (CP-4's walk)."""
        return rules.compaction._budget_reached_at(
            entries, start_index, end_index, keep_recent_tokens
        )

    def entry_tokens(self, entry: Entry) -> int:
        """The estimated tokens of the messages one entry gives the context (CP-2)."""
        return rules.compaction._entry_tokens(entry)

    def previous_compaction_index(self, path: Sequence[Entry]) -> int:
        """The position of the path's last compaction entry, or -1."""
        return rules.compaction._previous_compaction_index(path)

    def build_session_context(
        self, entries: Sequence[Any] | SessionTree, leaf_id: Any
    ) -> SessionContext:
        """Pi's `buildSessionContext` (`leaf_id` as there: `session.UNSET` for the last
        entry's path)."""
        return rules.session.build_session_context(entries, leaf_id)

    def estimate_context_tokens(
        self, messages: Sequence[Mapping[str, Any]]
    ) -> ContextUsageEstimate:
        """Pi's `estimateContextTokens`."""
        return rules.tokens.estimate_context_tokens(messages)

    def compaction_messages(
        self, path: Sequence[Entry], start: int, end: int
    ) -> tuple[dict[str, Any], ...]:
        """The first context message of each entry of `path[start:end]` but compactions,
        in order (Pi's `getMessageFromEntryForCompaction` of each)."""
        return rules.compaction._compaction_messages(path[start:end])

    def file_op_calls(
        self, path: Sequence[Entry], start: int, end: int, messages: Sequence[Mapping[str, Any]]
    ) -> Sequence[tuple[str, str]]:
        """The (kind, path) of the read/write/edit tool calls of `messages`, the messages
        `compaction_messages(path, start, end)` gave."""
        del path, start, end  # the plain walk reads the messages themselves
        return rules.file_ops.file_op_calls(messages)

    def collect_entries_for_branch_summary(
        self, entries: Sequence[Entry] | SessionTree, old_leaf_id: Any, target_id: Any
    ) -> CollectEntriesResult:
        """Pi's `collectEntriesForBranchSummary` (LCA-1)."""
        return rules.branch.collect_entries_for_branch_summary(entries, old_leaf_id, target_id)

    def output_accumulator(
        self, *, max_lines: int | None = None, max_bytes: int | None = None
    ) -> OutputAccumulator:
        """A new `OutputAccumulator` with these limits (Pi's `new OutputAccumulator(...)`)."""
        return rules.stream.OutputAccumulator(max_lines=max_lines, max_bytes=max_bytes)


PLAIN: Final = Walks()  # the reference's own loops: every rule function's default
