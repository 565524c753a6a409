"""The inputs of the agent bench ops at any size, the same bytes on every run and machine.

- **Tool output** (`bench.agent_tool_output`): `size` bytes of the mixed log
  (`logs.cached_stream_log`: test-runner lines, stack traces, CJK, Cyrillic, emoji), written
  once under the cache; the request names the file, so 256 MiB never crosses the wire.
- **Instruction tree** (`bench.agent_instructions`): `files` instruction files, each named
  as the agent names its own (`instruction_name`), over a chain of `DEPTH` directories from
  the project root (which holds the `.git` marker) down to the cwd: one file in each
  directory of the chain (what an agent that walks up from the cwd loads), the rest spread
  evenly below the cwd (what an agent that also looks down finds) and beside the chain
  (what no sound agent loads, but a careless walk still reads).
- **History** (`bench.agent_compaction`): `count` messages in turns of four (a user
  request, an assistant's tool call, the tool's output, the assistant's answer), over a
  window of `WINDOW` tokens with no usage reported, so the agent's own estimate decides.

Each input comes with its size in bytes (`input_bytes`), what the memory a curve reports is
divided by.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from ctxspec.corpora.generators.logs import cached_stream_log

__all__ = [
    "DEPTH",
    "WINDOW",
    "history",
    "history_bytes",
    "instruction_name",
    "instruction_tree",
    "tool_output_file",
    "tree_bytes",
]

DEPTH: Final = 8  # directories from the project root down to the cwd, both included
WINDOW: Final = 256_000  # tokens: a window every agent harness accepts (Gemini CLI's gemma-4)
ROOT: Final = "ws/proj"
HOME: Final = "/home/u"
OUTPUT_SEED: Final = 3  # the seed of `ctxspec bench`'s stream logs: one cached file for both


def tool_output_file(size: int, cache: Path) -> Path:
    """The file of `size` bytes of mixed log (0: an empty file), written once under `cache`."""
    return cached_stream_log("mixed", size, cache, seed=OUTPUT_SEED)


def instruction_name(names: Sequence[str] | None) -> str:
    """The file name an agent reads in every directory: `AGENTS.md` where the agent reads
    it, else its first plain name (no folder, no wildcard); `AGENTS.md` with no names."""
    plain = [n for n in names or () if "/" not in n and "*" not in n]
    return "AGENTS.md" if "AGENTS.md" in plain or not plain else plain[0]


def _rule(index: int, where: str) -> str:
    return (
        f"# Rules {index}\n\n"
        f"- Rule {index} of {where}: run the test suite before every commit; keep functions "
        f"short and name them for what they do.\n"
    )


def instruction_tree(files: int, name: str, *, trusted: bool = True) -> dict[str, Any]:
    """`agent.instructions`' args for a project of `files` instruction files named `name`,
    the project trusted (else no trust decision recorded)."""
    chain = [ROOT] + [
        f"{ROOT}/" + "/".join(f"d{i}" for i in range(1, level)) for level in range(2, DEPTH + 1)
    ]
    cwd = chain[-1]
    tree: dict[str, Any] = {f"{ROOT}/.git/": {}, f"{ROOT}/README.md": "A project.\n"}
    for index in range(files):
        if index < len(chain):
            where = chain[index]
        elif index % 2 == 0:  # below the cwd, two levels, 32 directories wide
            below = (index - len(chain)) // 2
            where = f"{cwd}/b{below % 32}/c{below // 32}"
        else:  # beside the chain: a sibling directory of one of its directories
            where = f"{chain[index % len(chain)]}/s{index}"
        tree[f"{where}/{name}"] = _rule(index, where)
    tree.setdefault(f"{cwd}/", {})  # the cwd exists with no file of its own
    return {"tree": tree, "cwd": f"/{cwd}", "home": HOME, "trust": "trusted" if trusted else None}


def tree_bytes(args: dict[str, Any]) -> int:
    """The bytes of every file of an instruction tree."""
    return sum(len(v.encode()) for v in args["tree"].values() if isinstance(v, str))


_TURN: Final = (
    ("user", "Please look at module {n} and fix the failing test in it.", False),
    ("assistant", "I'll run the tests of module {n} first.", True),
    (
        "tool",
        "FAIL tests/test_module_{n}.py::test_case - AssertionError: expected 3, got 4\n" * 4,
        False,
    ),
    ("assistant", "The off-by-one in module {n} is fixed: the loop now stops one earlier.", False),
)


def history(count: int) -> dict[str, Any]:
    """`agent.compaction`'s args: `count` messages (turns of four, the last one cut short)."""
    messages = []
    for index in range(count):
        role, text, call = _TURN[index % len(_TURN)]
        message: dict[str, Any] = {"role": role, "text": text.format(n=index // len(_TURN))}
        if call:
            message["toolCall"] = True
        messages.append(message)
    if messages and messages[-1].get("toolCall"):  # a call is never the last message
        messages[-1] = {"role": "assistant", "text": messages[-1]["text"]}
    return {"messages": messages, "window": WINDOW, "usage": None}


def history_bytes(args: dict[str, Any]) -> int:
    """The bytes of every message's text."""
    return sum(len(m["text"].encode()) for m in args["messages"])
