"""The fast engine's walks (`FAST`): the reference's inner loops, run faster.

`ctxspec.reference.walks` is the one seam where an engine plugs into the oracle: the rules
that run an inner loop read it from a `Walks` object. `FastWalks` overrides these and
keeps the reference's for the rest (`super()`):

- `projects_to`: a plain message's role read at once (no ABC check);
- `choose_cut_point`: only the first cut point and the first after where the budget is
  reached are looked for, where the reference lists every one. A malformed entry
  elsewhere in the range is not read; what the reference would refuse in it,
  `ctxspec.fastengine.session.as_entries` noted (`refuse_unreadable`);
- `budget_reached_at`: the walk in C (`_tokens.c`), plain message entries estimated
  there, every other entry by the walk `entry_tokens`;
- `build_session_context`, `estimate_context_tokens`,
  `collect_entries_for_branch_summary`, `output_accumulator`: this engine's
  (`ctxspec.fastengine.session`, `.tokens`, `.branch`, `.stream`).

A call that finds something once for the walks it runs makes its own subclass:
`ctxspec.fastengine.compaction.prepare_compaction` (each entry's message, the context, the
file calls, found in one scan of the path), `ctxspec.fastengine.session.parse_session_entries`
(the lines parsed at once). The engine's modules are read when a walk runs (`fast.<module>`),
so that each of them can import `FAST`.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

import ctxspec.fastengine as fast  # its modules are read when a walk runs (see above)
from ctxspec.fastengine._native import native
from ctxspec.fastengine.tree import any_between
from ctxspec.reference.compaction import CUT_POINT_ROLES
from ctxspec.reference.walks import PLAIN, Walks

if TYPE_CHECKING:
    from ctxspec.reference.branch import CollectEntriesResult
    from ctxspec.reference.session import SessionContext, SessionTree
    from ctxspec.reference.stream import OutputAccumulator
    from ctxspec.reference.tokens import ContextUsageEstimate

__all__ = ["FAST", "FastWalks", "refuse_unreadable"]

Entry = Mapping[str, Any]

# CP-4's walk back from the newest entry, each plain message estimated in C (`_tokens.c`)
C_BUDGET_REACHED_AT: Final[Callable[..., Any] | None] = native("_tokens", "budget_reached_at")


class FastWalks(Walks):
    """The fast engine's walks: see the module docstring."""

    __slots__ = ()

    def projects_to(self, entry: Entry, roles: frozenset[str]) -> bool:
        if type(entry) is dict and entry.get("type") == "message":
            message = entry.get("message")
            if type(message) is dict:  # the usual entry: no ABC check
                role = message.get("role")
                return isinstance(role, str) and role in roles
        return super().projects_to(entry, roles)

    def choose_cut_point(
        self, entries: Sequence[Entry], start_index: int, end_index: int, keep_recent_tokens: float
    ) -> int | None:
        """The first cut point, and the first after where the budget is reached: CP-3 and
        CP-4 read only where they decide."""
        refuse_unreadable(entries, start_index, end_index)
        first = self._first_cut_point(entries, start_index, end_index)
        if first is None:
            return None
        reached = self.budget_reached_at(entries, start_index, end_index, keep_recent_tokens)
        if reached is not None and reached > first:
            later = self._first_cut_point(entries, reached, end_index)
            return first if later is None else later
        return first  # CP-4: keep everything unless the budget picks a later cut point

    def _first_cut_point(self, entries: Sequence[Entry], start: int, end: int) -> int | None:
        projects_to = self.projects_to
        return next(
            (i for i in range(start, end) if projects_to(entries[i], CUT_POINT_ROLES)), None
        )

    def budget_reached_at(
        self,
        entries: Sequence[Entry],
        start_index: int,
        end_index: int,
        keep_recent_tokens: float,
        slots: Sequence[Any] | None = None,
    ) -> int | None:
        """The walk in C, or the reference's where it declines; with `slots` (the entries'
        `RunTree.slots`) each message is read from there."""
        if C_BUDGET_REACHED_AT is not None:
            found = C_BUDGET_REACHED_AT(
                entries, start_index, end_index, keep_recent_tokens, self.entry_tokens, slots
            )
            if found is not NotImplemented:
                return found  # type: ignore[no-any-return]
        return super().budget_reached_at(entries, start_index, end_index, keep_recent_tokens)

    def build_session_context(
        self, entries: Sequence[Any] | SessionTree, leaf_id: Any
    ) -> SessionContext:
        return fast.session.build_session_context(entries, leaf_id)

    def estimate_context_tokens(
        self, messages: Sequence[Mapping[str, Any]]
    ) -> ContextUsageEstimate:
        return fast.tokens.estimate_context_tokens(messages)

    def collect_entries_for_branch_summary(
        self, entries: Sequence[Entry] | SessionTree, old_leaf_id: Any, target_id: Any
    ) -> CollectEntriesResult:
        return fast.branch.collect_entries_for_branch_summary(entries, old_leaf_id, target_id)

    def output_accumulator(
        self, *, max_lines: int | None = None, max_bytes: int | None = None
    ) -> OutputAccumulator:
        return fast.stream.OutputAccumulator(max_lines=max_lines, max_bytes=max_bytes)


def refuse_unreadable(entries: Sequence[Entry], start: int, stop: int) -> None:
    """Raise at the first entry of `entries[start:stop]` that `as_entries` noted, as the
    reference does when it reads every entry of the range (by reading that one)."""
    marked = getattr(entries, "unreadable", ())
    if any_between(marked, start, stop):
        PLAIN.projects_to(entries[marked[bisect_left(marked, start)]], CUT_POINT_ROLES)


FAST: Final = FastWalks()  # the walks every fast function passes the reference's rules
