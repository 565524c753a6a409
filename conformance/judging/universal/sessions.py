"""The universal checks of a resumed or forked session (boundary 5), in the agent's terms.

An agent that keeps session histories and documents that resuming one continues the
conversation (Claude Code's `--resume`, opencode's `run --session`) promises that the
next request carries that history; one that documents a fork (`--fork-session`,
`run --fork`) promises that the fork is a copy: its turn does not reach the original.
The profile's `sessions` term declares which of the two the agent documents, with its
source; an agent with linear sessions declares none and its cases are not applicable.

A message of the history "reaches" a request when a message of the same role carries
its text verbatim; the agent may add messages of its own (a reminder, a summary
request), so the history is looked for as an ordered subsequence.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ctxspec.conformance.judging.compare import Difference

__all__ = ["CHECKS"]

Terms = Mapping[str, Any]
Message = Mapping[str, Any]


def _first_missing(wanted: Sequence[Message], carried: Sequence[Message]) -> int | None:
    """The index of the first `wanted` message not found, in order, in `carried`."""
    at = 0
    for index, message in enumerate(wanted):
        while at < len(carried) and not _same(message, carried[at]):
            at += 1
        if at == len(carried):
            return index
        at += 1
    return None


def _json(value: Any) -> str:
    """`value` as the report shows an answer: JSON, not a Python repr."""
    return json.dumps(value, ensure_ascii=False)


def _same(a: Message, b: Message) -> bool:
    return a.get("role") == b.get("role") and a.get("text") == b.get("text")


def _conversation(args: Mapping[str, Any]) -> list[Message]:
    return [*args["messages"], {"role": "user", "text": args["prompt"]}]


def _kept(path: str, wanted: list[Message], carried: Any, check: str) -> list[Difference]:
    if not isinstance(carried, list):
        return [Difference(path, "the conversation of the next request", _json(carried),
                           check=check)]  # fmt: skip
    missing = _first_missing(wanted, carried)
    if missing is None:
        return []
    message = wanted[missing]
    what = "the prompt" if missing == len(wanted) - 1 else f"message {missing}"
    return [Difference(
        path,
        f"every message of the history, then the prompt, in order ({len(wanted)})",
        f"{what} ({message['role']}: {_json(message['text'][:60])}) is not there, in order, "
        f"among the {len(carried)} carried",
        check=check,
    )]  # fmt: skip


def resume_keeps_history(terms: Terms, args: Mapping[str, Any], result: Any) -> list[Difference]:
    """The resumed (or forked) session's next request carries the whole history, in order,
    then the prompt."""
    return _kept("$.messages", _conversation(args), result["messages"], "resume-keeps-history")


def fork_leaves_original(terms: Terms, args: Mapping[str, Any], result: Any) -> list[Difference]:
    """After a fork took its turn, the original session continues from its own history:
    all of it, and nothing of the fork's turn (its answer)."""
    original = result["original"]
    if not args.get("fork"):
        return []
    found = _kept("$.original", _conversation(args), original, "fork-leaves-original")
    if found:
        return found
    leaked = [i for i, m in enumerate(original) if m.get("text") == args["reply"]]
    if leaked:
        return [Difference(
            "$.original",
            "none of the fork's turn",
            f"the fork's answer {_json(args['reply'][:60])} is message {leaked[0]}",
            check="fork-leaves-original",
        )]  # fmt: skip
    return []


CHECKS = {
    "resume-keeps-history": resume_keeps_history,
    "fork-leaves-original": fork_leaves_original,
}
