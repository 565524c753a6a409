"""The universal checks over generated inputs, for any agent, in its own declared terms.

Each property sends an `agent.*` request built from hard inputs (astral characters at a
cut, lone surrogates, CRLF; nested directories whose names sort before the file names;
usage around every threshold) and runs every universal check of its op against the
agent's profile (`judging.universal.judge`). A Pi-family implementation reports them
not applicable (its profile says why).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxspec.conformance.judging.check import ResultMismatch, result_of
from ctxspec.conformance.judging.compare import render
from ctxspec.conformance.judging.universal import NotDeclared, judge
from ctxspec.conformance.runner.profiles import Profile
from ctxspec.conformance.runner.results import Findings
from ctxspec.conformance.strategies.text import hard_text
from ctxspec.conformance.transport.base import Implementation

# directory names that sort before and after the instruction files' names as strings
DIRECTORIES = ("0sub", "Apps", "sub", "a-b", "zeta", "_x", "Été")
FILE_NAMES = ("GEMINI.md", "AGENTS.md", "CLAUDE.md", ".clinerules/style.md")
WINDOW = 256_000  # a window every agent takes (Gemini CLI has a model for it)


def _holds(impl: Implementation, profile: Profile, op: str, args: dict[str, Any]) -> None:
    result = result_of(impl, op, args)
    try:
        found = judge(profile, op, args, result)
    except NotDeclared as error:
        pytest.skip(f"not applicable: {error}")
    if found:
        message = f"{op} breaks a universal check:\n{render(found)}"  # the request: as JSON
        raise ResultMismatch(message, Findings.of(op, found))


def _as_process_output(text: str) -> str:
    """A tool's output is decoded bytes: a lone surrogate cannot be in it (U+FFFD is)."""
    return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)


long_hard_text = st.lists(hard_text, min_size=1, max_size=12).map("".join).map(_as_process_output)


@pytest.mark.ctxspec_property(boundary="multibyte_cuts", op="agent.tool_output", rule="AGENT-1")
@given(content=long_hard_text, limit=st.integers(min_value=1, max_value=160))
def test_agent_tool_output_cut(
    impl: Implementation, agent_profile: Profile, content: str, limit: int
) -> None:
    """A cut output keeps characters whole, is a true cut, marked, within the budget."""
    _holds(impl, agent_profile, "agent.tool_output", {"content": content, "limit": limit})


@st.composite
def project_trees(draw: st.DrawFn) -> dict[str, Any]:
    """A project of 1-3 nested directories, each with some of every agent's file names
    (distinct texts), a git root or none, and the cwd at the deepest one."""
    depth = draw(st.integers(min_value=1, max_value=3))
    names = draw(st.lists(st.sampled_from(DIRECTORIES), min_size=depth, max_size=depth))
    folders = ["ws/proj"] + ["ws/proj/" + "/".join(names[: i + 1]) for i in range(depth)]
    tree: dict[str, Any] = {}
    if draw(st.booleans()):
        tree["ws/proj/.git/"] = {}
    for level, folder in enumerate(folders):
        for name in FILE_NAMES:
            if draw(st.integers(0, 3)) > 0:
                tree[f"{folder}/{name}"] = f"L{level} {folder.rsplit('/', 1)[-1]} {name} rules"
    return {"tree": tree, "cwd": "/" + folders[-1], "home": "/home/u"}


@pytest.mark.ctxspec_property(
    boundary="instruction_ordering", op="agent.instructions", rule="AGENT-3"
)
@given(args=project_trees(), trust=st.sampled_from([None, "trusted", "untrusted"]))
def test_agent_instruction_files(
    impl: Implementation, agent_profile: Profile, args: dict[str, Any], trust: str | None
) -> None:
    """The selected files reach the prompt whole, in order; an untrusted project's gated
    files do not."""
    _holds(impl, agent_profile, "agent.instructions", {**args, "trust": trust})


@pytest.mark.ctxspec_property(
    boundary="compaction_threshold", op="agent.compaction", rule="AGENT-5"
)
@given(
    usage=st.one_of(
        st.none(),
        st.builds(lambda share, nudge: round(share * WINDOW) + nudge,
                  st.one_of(st.sampled_from([0.5, 0.75, 0.8, 0.9, 0.95, 1.0]), st.floats(0, 1.2)),
                  st.integers(min_value=-1, max_value=1)).map(lambda usage: max(0, usage)),
    ),
    pairs=st.integers(min_value=1, max_value=6),
)  # fmt: skip
def test_agent_compaction_trigger(
    impl: Implementation, agent_profile: Profile, usage: int | None, pairs: int
) -> None:
    """Compaction triggers at the declared threshold (usage around every agent's, one token
    either side) and keeps the declared tail, a tool result with its call."""
    messages: list[dict[str, Any]] = [{"role": "user", "text": "start " + "u" * 400}]
    for index in range(pairs):
        messages += [
            {"role": "assistant", "text": f"call {index} " + "a" * 300, "toolCall": True},
            {"role": "tool", "text": f"result {index} " + "t" * 900},
            {"role": "assistant", "text": f"read {index} " + "b" * 150},
            {"role": "user", "text": f"next {index} " + "v" * 200},
        ]
    args = {"window": WINDOW, "usage": usage, "messages": messages}
    _holds(impl, agent_profile, "agent.compaction", args)
