"""A fake implementation with the bench extension, for testing `ctxspec bench --impl`.

    python tests/support/fake_bench_impl.py MODE

Answers every op like the reference (`ctxspec.conformance.engines.reference.handle`), except:
  fast-wrong     bench answers altered (one more total line, an empty context, ...) and
                 timed at 1 µs: a fast wrong implementation
  under-reports  right bench answers, but each request sleeps 0.3 s more than it says
  over-reports   right bench answers, claiming a whole second for each
  no-bench       lists no bench op in hello: measured through its ordinary ops
  no-open        predates protocol 1.3: lists the bench ops but bench.open
"""

from __future__ import annotations

import sys
import time
from typing import Any

from ctxspec.conformance.engines.reference import HELLO, handle
from ctxspec.conformance.protocol import OpError, decode_line, encode_line
from ctxspec.conformance.transport.base import Reply


def _wrong(op: str, result: dict[str, Any]) -> dict[str, Any]:
    answer = result["answer"]
    if op == "bench.stream":
        answer["truncation"]["totalLines"] += 1
    elif op == "bench.truncate":
        answer["totalLines"] += 1
    elif isinstance(answer, dict) and "messages" in answer:
        answer["messages"] = []
    else:
        answer = {"not": "the answer"}
    return {"answer": answer, "elapsedNs": 1000, "requestNs": 2000}


def answer(mode: str, op: str, args: dict[str, Any]) -> Reply:
    if op == "hello":
        left_out = {"no-bench": "bench.", "no-open": "bench.open"}.get(mode)
        ops = [o for o in HELLO["ops"] if not (left_out and o.startswith(left_out))]
        return Reply(
            result={
                **HELLO,
                "implementation": {**HELLO["implementation"], "name": f"fake-{mode}"},
                "ops": ops,
            }
        )
    if mode == "no-bench" and op.startswith("bench."):
        return Reply(error=OpError("unsupported", f"op {op!r} is not implemented"))
    reply = handle(op, args)
    if reply.error is not None or not op.startswith("bench."):
        return reply
    result = dict(reply.result)
    if mode == "fast-wrong":
        return Reply(result=_wrong(op, result))
    if mode == "under-reports":
        time.sleep(0.3)
    if mode == "over-reports":
        result["elapsedNs"] = result["requestNs"] = 1_000_000_000
    return Reply(result=result)


def main() -> None:
    mode = sys.argv[1]
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        request = decode_line(line)
        reply = answer(mode, str(request["op"]), request.get("args") or {})
        sys.stdout.buffer.write(encode_line(reply.to_wire(request.get("id"))))
        sys.stdout.buffer.flush()


if __name__ == "__main__":
    main()
