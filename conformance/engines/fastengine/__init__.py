"""The fast engine (`fastengine/`) as an implementation: in-process, or over the wire.

`--impl fastengine` runs it in this process (`in_process()`), as `--impl reference`
runs the reference; `python -m ctxspec.conformance.engines.fastengine` serves it as protocol
v1 on stdio (what `ctxspec bench --impl fastengine` starts). The adapter is the
reference harness's `EngineAdapter` and its handlers (`reference.ops`), with the engine
functions of `FAST`: the fast engine's session walks, compaction, parse and accumulator.
"""

from __future__ import annotations

from typing import Final

from ctxspec import fastengine
from ctxspec.conformance.engines.reference import EngineAdapter, InProcessImplementation
from ctxspec.conformance.engines.reference.ops import Engine
from ctxspec.conformance.transport.base import Implementation
from ctxspec.fastengine import walks
from ctxspec.fastengine.tree import RunTree

__all__ = ["FAST", "NAME", "handle", "in_process", "serve"]

NAME: Final = "fastengine"

# the fast engine's functions by the names the reference gives them (`Engine.of`), but
# its session tree (`RunTree.of`) and its walks (`ctxspec.fastengine.walks.FAST`)
FAST: Final = Engine.of(NAME, fastengine, session_tree=RunTree.of, walks=walks.FAST)

ADAPTER: Final = EngineAdapter(FAST, "ctxspec-fastengine")
HELLO: Final = ADAPTER.hello
handle: Final = ADAPTER.handle  # the fast engine's answer to one op
serve: Final = ADAPTER.serve  # protocol v1 on stdio with the fast engine, until stdin closes


def in_process() -> Implementation:
    """The fast engine in this process (what `--impl fastengine` runs)."""
    return InProcessImplementation(ADAPTER, NAME)
