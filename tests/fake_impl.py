"""A scripted fake implementation of protocol v1, for testing the runner.

    python tests/fake_impl.py MODE [MODE ...]

Answers like the reference, except as the modes say:
  hang           never answers a non-hello request
  crash          exits with status 3 on the first non-hello request (after a stderr line)
  crash-once     like crash, but only in the first process (a marker file in $FAKE_STATE)
  garbage        answers non-hello requests with a line that is not JSON
  wrong-id       answers non-hello requests with another id
  bad-shape      answers truncate ops with a result missing fields
  stderr         writes a lot to stderr, answers correctly
  wrong          answers truncatedBy "lines" everywhere (a wrong but well-formed implementation)
  lossy-cut      cuts a partial last line at exactly maxBytes, without the boundary fix
  bad-hello      answers hello with garbage
  old-protocol   says it speaks protocol 0
  no-hello-ops   lists no ops in hello (every case is unsupported)
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from conformance.adapters.reference import HELLO, handle


def main() -> None:
    modes = set(sys.argv[1:])
    state = Path(os.environ.get("FAKE_STATE", "/nonexistent"))
    for raw in sys.stdin.buffer:
        request = json.loads(raw)
        op, request_id = request["op"], request["id"]
        if op == "hello":
            if "bad-hello" in modes:
                print("hello yourself", flush=True)
                continue
            hello = dict(HELLO, implementation={"name": "fake", "version": "0", "language": "py"})
            if "old-protocol" in modes:
                hello["protocol"] = 0
            if "no-hello-ops" in modes:
                hello["ops"] = []
            print(json.dumps({"id": request_id, "result": hello}), flush=True)
            continue
        if "hang" in modes:
            time.sleep(3600)
        if "crash" in modes or ("crash-once" in modes and not state.exists()):
            if "crash-once" in modes:
                state.write_text("crashed once")
            print("fake: about to crash on purpose", file=sys.stderr, flush=True)
            sys.exit(3)
        if "garbage" in modes:
            print("{this is not json", flush=True)
            continue
        if "stderr" in modes:
            for n in range(200):
                print(f"fake: log line {n}", file=sys.stderr)
            sys.stderr.flush()
        reply = handle(op, request["args"]).to_wire(request_id)
        if "wrong-id" in modes:
            reply["id"] = request_id + 1000
        if "result" in reply and isinstance(reply["result"], dict):
            if "wrong" in modes and "truncatedBy" in reply["result"]:
                reply["result"]["truncatedBy"] = "lines"
            if "lossy-cut" in modes and reply["result"].get("lastLinePartial"):
                last = request["args"]["content"].split("\n")[-1].encode("utf-8", "replace")
                kept = last[len(last) - request["args"]["maxBytes"] :].decode("utf-8", "replace")
                reply["result"].update(content=kept, outputBytes=len(kept.encode()))
            if "bad-shape" in modes:
                reply["result"].pop("totalBytes", None)
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
