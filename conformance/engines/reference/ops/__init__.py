"""The answer to each op, one module per concern, for an engine.

A handler takes the op's wire arguments (already JSON) and returns the wire result,
calling `reference/`; `InvalidInput` from the engine becomes an `invalid_input` error.
Modules are found by name, so adding a concern means adding a module here. A module
whose answers depend on the engine exports `handlers(engine)`, the others `HANDLERS`.

`Engine` names the functions an engine may replace: `REFERENCE` is the plain oracle's,
`ctxspec.conformance.engines.fastengine.FAST` the fast engine's. Every other function a
handler calls is the reference's, whichever engine answers.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Final

from ctxspec.reference import branch, compaction, migration, session, session_file, tokens
from ctxspec.reference.walks import PLAIN, Walks

__all__ = ["REFERENCE", "Engine", "Handler", "all_handlers"]

Handler = Callable[[Mapping[str, Any]], Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class Engine:
    """The engine functions the handlers call, each with its `reference` signature."""

    name: str
    parse_session_entries: Callable[[str], session_file.ParsedSession]
    as_entries: Callable[[Sequence[Any]], Sequence[Any]]
    load_session: Callable[[Sequence[Any]], migration.LoadedSession]  # SessionManager's load
    session_tree: Callable[[Sequence[Any]], session.SessionTree]  # SessionTree.of
    build_session_path: Callable[..., tuple[Mapping[str, Any], ...]]
    build_context_entries: Callable[..., tuple[Mapping[str, Any], ...]]
    build_session_context: Callable[..., session.SessionContext]
    estimate_context_tokens: Callable[..., tokens.ContextUsageEstimate]
    find_cut_point: Callable[..., compaction.CutPointResult]
    prepare_compaction: Callable[..., compaction.CompactionPreparation | None]
    collect_entries_for_branch_summary: Callable[..., branch.CollectEntriesResult]
    navigate_tree: Callable[..., branch.NavigationResult]
    walks: Walks  # the inner loops the rules run (`ctxspec.reference.walks`)

    @classmethod
    def of(cls, name: str, functions: object, **overrides: Any) -> Engine:
        """The engine whose functions are `functions`' attributes of the same names (a
        module or package), with `overrides` for those named otherwise there."""
        found = {
            slot.name: overrides[slot.name]
            if slot.name in overrides
            else getattr(functions, slot.name)
            for slot in fields(cls)
            if slot.name != "name"
        }
        return cls(name=name, **found)


REFERENCE: Final = Engine(
    name="reference",
    parse_session_entries=session_file.parse_session_entries,
    as_entries=session.as_entries,
    load_session=migration.load_session,
    session_tree=session.SessionTree.of,
    build_session_path=session.build_session_path,
    build_context_entries=session.build_context_entries,
    build_session_context=session.build_session_context,
    estimate_context_tokens=tokens.estimate_context_tokens,
    find_cut_point=compaction.find_cut_point,
    prepare_compaction=compaction.prepare_compaction,
    collect_entries_for_branch_summary=branch.collect_entries_for_branch_summary,
    navigate_tree=branch.navigate_tree,
    walks=PLAIN,
)


def all_handlers(engine: Engine = REFERENCE) -> dict[str, Handler]:
    """op -> handler, each answering with `engine`."""
    handlers: dict[str, Handler] = {}
    for module_info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        by_engine = getattr(module, "handlers", None)
        table: dict[str, Handler] = (
            by_engine(engine) if by_engine is not None else getattr(module, "HANDLERS", {})
        )
        clash = set(table) & set(handlers)
        if clash:
            raise ValueError(f"{module_info.name} handles ops already handled: {sorted(clash)}")
        handlers.update(table)
    return handlers
