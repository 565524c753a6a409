"""The fast engine (`fastengine/`) as an implementation: in-process, or over the wire.

`--impl fastengine` runs it in this process (`FastEngineImplementation`), as `--impl
reference` runs the reference; `python -m conformance.harnesses.fastengine` serves it as
protocol v1 on stdio (what `ctxspec bench --impl fastengine` starts). The handlers are
the reference's (`conformance.harnesses.reference.ops`), with the engine functions of `FAST`: the
fast engine's session walks, compaction, parse and accumulator.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, BinaryIO, Final

import fastengine
from conformance.harnesses.reference import EngineAdapter, InProcessImplementation
from conformance.harnesses.reference.ops import Engine
from conformance.transport.base import Reply
from fastengine.tree import RunTree

__all__ = [
    "FAST",
    "NAME",
    "FastEngineImplementation",
    "handle",
    "in_process",
    "main",
    "serve",
]

NAME: Final = "fastengine"

FAST: Final = Engine(
    name=NAME,
    parse_session_entries=fastengine.parse_session_entries,
    as_entries=fastengine.as_entries,
    session_tree=RunTree.of,
    build_context_entries=fastengine.build_context_entries,
    build_session_context=fastengine.build_session_context,
    find_cut_point=fastengine.find_cut_point,
    prepare_compaction=fastengine.prepare_compaction,
    collect_entries_for_branch_summary=fastengine.collect_entries_for_branch_summary,
    navigate_tree=fastengine.navigate_tree,
    output_accumulator=fastengine.OutputAccumulator,
)

ADAPTER: Final = EngineAdapter(FAST, "ctxspec-fastengine")
HELLO: Final = ADAPTER.hello


def handle(op: str, args: Mapping[str, Any]) -> Reply:
    """The fast engine's answer to one op."""
    return ADAPTER.handle(op, args)


class FastEngineImplementation(InProcessImplementation):
    """The fast engine in this process (`--impl fastengine`)."""

    def __init__(self) -> None:
        super().__init__(ADAPTER, NAME)


def in_process() -> FastEngineImplementation:
    """This engine in this process (what `--impl` names it runs)."""
    return FastEngineImplementation()


def serve(stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
    """Answer protocol v1 requests with the fast engine until stdin closes."""
    ADAPTER.serve(stdin, stdout)


def main() -> None:
    serve()


if __name__ == "__main__":
    main()
