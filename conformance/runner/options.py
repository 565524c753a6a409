"""The conformance plugin's command-line options (`ctxspec conform` passes them to pytest)."""

from __future__ import annotations

import pytest

from ctxspec.conformance.corpus.cases import BOUNDARIES, LEVELS
from ctxspec.conformance.transport.wire import DEFAULT_MAX_ANSWER_BYTES

__all__ = ["add_options"]


def add_options(parser: pytest.Parser) -> None:
    """Every option of `ctxspec conform` that pytest parses (the `ctxspec` group)."""
    group = parser.getgroup("ctxspec", "ctxspec conformance")
    group.addoption(
        "--impl",
        default="reference",
        help="implementation under test: reference, fastengine, pi@0.85.0, or a command",
    )
    group.addoption(
        "--expectations",
        default=None,
        help="known-divergences file (default: the shipped one for --impl; `none`: no file)",
    )
    group.addoption(
        "--agent-profile",
        default=None,
        help="the agent profile (a name or a YAML file) the agent.* answers are judged by "
        "(default: --impl's family's, else Pi's)",
    )
    group.addoption(
        "--level",
        default="compat",
        choices=LEVELS,
        help="compat: a case the pinned Pi fails too is failed-as-pi, not failed; "
        "invariant: it fails the run",
    )
    group.addoption("--case", action="append", default=[], help="run only this case id")
    group.addoption(
        "--boundary",
        action="append",
        default=[],
        choices=sorted(BOUNDARIES),
        help="run only this boundary's cases and properties",
    )
    group.addoption("--op", action="append", default=[], help="run only cases of this op")
    group.addoption(
        "--request-timeout",
        type=float,
        default=30.0,
        help="seconds an implementation may take for one request",
    )
    group.addoption(
        "--max-answer-bytes",
        type=int,
        default=DEFAULT_MAX_ANSWER_BYTES,
        help="bytes one answer line may hold; a longer one is an error (default 64 MiB)",
    )
    group.addoption(
        "--explore",
        action="store_true",
        default=False,
        help="random property examples (an exploration, not a verdict; --hypothesis-seed N)",
    )
    group.addoption(
        "--record-requests",
        default=None,
        metavar="FILE",
        help="append the requests of each failing property's minimal example here (sweep)",
    )
    group.addoption(
        "--ctxspec-debug",
        action="store_true",
        help="after each failure's report, pytest's own (traceback, reprs): for ctxspec's "
        "developers",
    )
    group.addoption("--results-json", default=None, help="write one JSON record per case here")
    group.addoption("--summary-md", default=None, help="write a Markdown summary here")
