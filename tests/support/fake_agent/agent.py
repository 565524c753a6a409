"""A fake coding agent that answers the agent ops, for testing the universal checks end to
end (profile: `profile.yaml` beside it).

    python tests/support/fake_agent/agent.py [split-pairs] [sorted-files] [late-compaction]
                                             [leaky-fork] [empty-object]

Sound unless a mode says otherwise:
  split-pairs      cuts tool output by code points of the UTF-16 form, so an odd limit
                   leaves a lone surrogate (Gemini CLI's fault)
  sorted-files     joins instruction files sorted as strings (Gemini CLI's fault)
  late-compaction  compacts at 0.9 of the window where its profile declares 0.5
  leaky-fork       a fork shares its session with the original, so the fork's turn
                   reaches the original's next request
  empty-object     answers {} to every op (every field missing)
  quadratic        drops a tool output's repeated lines, looking each up in a list of the
                   lines kept, so its bench op's time grows as N^2 (`ctxspec bench --op`)
  memory-hungry    holds 16 copies of a tool output while it cuts it (memory 16x the input)

The agent bench ops (`bench.agent_tool_output`, `bench.agent_compaction`) time the same
code in process, as an in-process agent's harness does.
"""

from __future__ import annotations

import hashlib
import posixpath
import resource
import sys
import time
from array import array
from typing import Any

from ctxspec.conformance.harnesses.kit.jsonlines import Args, Unsupported, dispatch, serve

MODES = set(sys.argv[1:])
MARKER = "\n[{omitted} cut, see /tmp/f]\n"


def _units(text: str) -> list[str]:
    """`text` as UTF-16 code units, each a one-character string (halves of a pair apart)."""
    units = []
    for char in text:
        if ord(char) > 0xFFFF:
            value = ord(char) - 0x10000
            units += [chr(0xD800 + (value >> 10)), chr(0xDC00 + (value & 0x3FF))]
        else:
            units.append(char)
    return units


def _joined(units: list[str]) -> str:
    return "".join(units).encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")


def tool_output(args: Args) -> dict[str, Any]:
    if args.get("tool", "shell") != "shell":
        raise Unsupported("the fake agent has only a shell tool")
    content, limit = args["content"], args.get("limit")
    budget = 200 if limit is None else int(limit)
    units = _units(content)
    if len(units) <= budget:
        return {"content": content, "saved": None}
    room = max(0, budget - len(MARKER.format(omitted=len(units))))
    head, tail = room // 2, room - room // 2
    if "split-pairs" not in MODES:  # move both cuts off the middle of a pair
        while head and 0xD800 <= ord(units[head - 1]) <= 0xDBFF:
            head -= 1
        while tail and 0xDC00 <= ord(units[len(units) - tail]) <= 0xDFFF:
            tail -= 1
    kept_head, kept_tail = units[:head], units[len(units) - tail :] if tail else []
    omitted = len(units) - head - tail
    text = _joined(kept_head) + MARKER.format(omitted=omitted) + _joined(kept_tail)
    return {"content": text, "saved": content}


def _files(tree: dict[str, Any]) -> dict[str, str]:
    return {"/" + p: (v if isinstance(v, str) else v.get("content", ""))
            for p, v in tree.items() if not p.endswith("/")}  # fmt: skip


def instructions(args: Args) -> dict[str, Any]:
    files = _files(args["tree"])
    chain = [args["cwd"]]
    while chain[-1] != "/":
        chain.append(posixpath.dirname(chain[-1]))
    found = [posixpath.join(d, "AGENTS.md") for d in reversed(chain)]
    found = [p for p in found if p in files]
    if args.get("trust") == "untrusted":
        found = []
    if "sorted-files" in MODES:
        found.sort()
    return {"text": "\n\n".join(files[p].strip() for p in found)}


def compaction(args: Args) -> dict[str, Any]:
    share = 0.9 if "late-compaction" in MODES else 0.5
    usage = args.get("usage")
    compact = usage is not None and usage >= share * args["window"]
    messages = args["messages"]
    keep = None
    if compact:
        keep = max(0, len(messages) - 2)
        while keep and messages[keep]["role"] == "tool":
            keep -= 1
    return {"compact": compact, "keep": keep}


def resume(args: Args) -> dict[str, Any]:
    """A session is its list of messages: resuming appends, forking copies (or, leaky,
    shares it)."""
    session = [dict(m) for m in args["messages"]]
    prompt = {"role": "user", "text": args["prompt"]}
    if not args.get("fork"):
        return {"messages": [*session, prompt], "original": None}
    fork = session if "leaky-fork" in MODES else list(session)
    fork += [prompt]
    carried = list(fork)
    fork.append({"role": "assistant", "text": args["reply"]})
    return {"messages": carried, "original": [*session, prompt]}


def _peak_kib() -> int:
    """VmHWM: the process's own peak since exec (getrusage's maxrss starts at the parent's)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _measured(work: Any) -> dict[str, Any]:
    """The bench extension's answer: `work()` timed in process, the process's peak RSS."""
    setup = _peak_kib()  # what holding the input cost, before the agent's code runs
    started = time.perf_counter_ns()
    answer = work()
    elapsed = time.perf_counter_ns() - started
    peak = _peak_kib()
    return {"answer": answer, "elapsedNs": elapsed, "requestNs": elapsed, "peakKiB": peak,
            "setupPeakKiB": setup, "timing": "in-process"}  # fmt: skip


def _cut(data: bytes) -> dict[str, Any]:
    """A head and tail of 100 bytes each around a marker, the whole output saved: linear."""
    if len(data) <= 200:
        return {"modelBytes": len(data), "savedBytes": None}
    marker = f"\n[{len(data) - 200} bytes cut, {hashlib.sha256(data).hexdigest()[:8]}]\n"
    return {"modelBytes": 200 + len(marker.encode()), "savedBytes": len(data)}


def bench_tool_output(args: Args) -> dict[str, Any]:
    with open(args["path"], "rb") as file:  # read before the clock starts
        data = file.read()

    def work() -> dict[str, Any]:
        held = data
        if "quadratic" in MODES:  # drops repeated lines, each looked up in a list: N^2
            lines, seen = [], array("q")  # the lines' hashes side by side: a cache-sized scan
            for line in data.splitlines(keepends=True):
                if hash(line) not in seen:
                    seen.append(hash(line))
                    lines.append(line)
            held = b"".join(lines)
        if "memory-hungry" in MODES:
            copies = [bytes(bytearray(data)) for _ in range(16)]
            held = copies[-1]
        return _cut(held)

    return _measured(work)


def bench_compaction(args: Args) -> dict[str, Any]:
    return _measured(lambda: compaction(args))


HELLO = {"protocol": 1, "implementation": {"name": "fake-agent", "version": "0.0.0",
         "language": "python"}}  # fmt: skip
HANDLERS = {
    "agent.tool_output": tool_output,
    "agent.instructions": instructions,
    "agent.compaction": compaction,
    "agent.resume": resume,
    "bench.agent_tool_output": bench_tool_output,
    "bench.agent_compaction": bench_compaction,
}

if "empty-object" in MODES:
    HANDLERS = {op: (lambda _args: {}) for op in HANDLERS}

if __name__ == "__main__":
    serve(dispatch(HANDLERS, HELLO))
