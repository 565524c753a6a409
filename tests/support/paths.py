"""Where the tests' own files are: the checkout, and the fakes the tests run as processes."""

from __future__ import annotations

from pathlib import Path

SUPPORT = Path(__file__).resolve().parent
ROOT = SUPPORT.parent.parent  # the checkout under test
FAKE_IMPL = SUPPORT / "fake_impl.py"  # the scripted implementation (its modes: its docstring)
FAKE_BENCH_IMPL = SUPPORT / "fake_bench_impl.py"
FAKE_PORT_ADAPTER = SUPPORT / "fake_port_adapter.py"
FAKE_AGENT = (
    SUPPORT / "fake_agent" / "agent.py"
)  # an agent of about 100 lines (its modes: its docstring)
