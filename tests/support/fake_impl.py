"""A scripted fake implementation of protocol v1, for testing the runner.

    python tests/support/fake_impl.py MODE [MODE ...]

Answers like the reference, except as the modes say:
  hang           never answers a non-hello request
  crash          exits with status 3 on the first non-hello request (after a stderr line)
  crash-once     like crash, but only in the first process (a marker file in $FAKE_STATE)
  garbage        answers non-hello requests with a line that is not JSON
  wrong-id       answers non-hello requests with another id
  bad-shape      answers truncate ops with a result missing a field (totalBytes): a failure
  no-first-line-flag  drops firstLineExceedsLimit from every answer, wherever it is (a port
                 that never computes one field: a failure per case, one divergence class)
  wrong-type     answers every non-hello request with a list, where every op's result
                 is an object, a string, a number or null (a broken protocol: an error)
  stderr         writes a lot to stderr, answers correctly
  wrong          answers truncatedBy "lines" everywhere (a wrong but well-formed implementation)
  lossy-cut      cuts a partial last line at exactly maxBytes, without the boundary fix
  drop-tail-char drops the first character of every non-empty truncate.tail content
  empty-object   answers {} wherever the result is an object (every field missing)
  wrong-field-type  answers every top-level field of an object result in another JSON
                 type (a string as a number, a number as a string, a list as an object...)
  short-lists    drops the last item of every non-empty list in the result, however deep
  drop-head-char drops the last character of every non-empty truncate.head content (one
                 op of the properties parametrized by op fails, the other passes)
  two-changes    swaps the case of the first and the last letter of every truncate.tail
                 content (two differences in one string, far apart)
  messages-only  answers `unsupported` to a request whose entries hold any entry type but
                 `message` (a port that cannot take the rest yet)
  bad-hello      answers hello with garbage
  old-protocol   says it speaks protocol 0
  no-hello-ops   lists no ops in hello (every case is unsupported)
  hello-without-ops  answers hello without the ops key (an invalid handshake)
  only-truncate  lists truncate.head and truncate.tail alone in hello (a first port)
  typo-op        lists truncate.tial instead of truncate.tail in hello
  extra-ops      lists sesion.parse and frobnicate.all too (two ops the suite lacks)
  stdout-log     prints a debug line on stdout before it reads the hello
  stdout-json-log  prints a JSON log object (no id) on stdout before it reads the hello
  stdout-log-later  prints a debug line on stdout before its third answer after the hello
                 (a log line where an answer is due, past a clean handshake)
  crash-at-start exits with status 1 before the handshake (after a stderr line)
  setsid-child   on the first non-hello request, forks a child that calls setsid(),
                 keeps stdout and stderr open and sleeps, and a grandchild of it (pids in
                 $FAKE_STATE and $FAKE_STATE.grandchild); then exits with status 0
                 (with `hang`: hangs instead; with `answer`: answers on, leaving the stray)
  clean-env      with setsid-child: the child execs `sleep` with an empty environment
  huge-answer    answers with a well-formed line of $FAKE_BYTES bytes (default 2 MB)
  endless-line   answers with bytes that never end in a newline
  huge-wrong     answers truncate ops with $FAKE_BYTES of content and a huge extra list
  stderr-flood   writes $FAKE_BYTES bytes (default 2 MB) to stderr without a newline, exits 4
  litter         on each non-hello request, leaves a temp file and a temp dir with an
                 unreadable (mode 0) subdir in its TMPDIR, and names them in $FAKE_STATE.litter
                 (then goes on as the other modes say)
  non-utf8       answers non-hello requests with a line of bytes that are not UTF-8
  duplicate      answers every non-hello request twice
  partial-exit   writes half an answer line, no newline, then exits with status 0
  partial-hang   writes half an answer line, no newline, then hangs
  exit-at-once   exits with status 0 on the first non-hello request, writing nothing
  ignore-term    ignores SIGTERM (with hang: a hang that only SIGKILL ends)
"""

from __future__ import annotations

import json
import os
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from ctxspec.conformance.engines.reference import HELLO, handle


def _setsid_child(modes: set[str], state: Path) -> None:
    """A child that leaves the process group and session, holding stdout and stderr."""
    if state.exists():
        return  # once per run
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:  # a grandchild too: a tree, not one process
            state.with_suffix(".grandchild").write_text(str(os.getpid()))
            time.sleep(3600)
            os._exit(0)
        state.write_text(str(os.getpid()))
        if "clean-env" in modes:
            os.execve("/bin/sleep", ["sleep", "3600"], {})
        time.sleep(3600)
        os._exit(0)
    for _ in range(500):  # the pids are written before the runner may see anything
        if state.exists() and state.with_suffix(".grandchild").exists():
            break
        time.sleep(0.01)


def _size() -> int:
    return int(os.environ.get("FAKE_BYTES", str(2_000_000)))


def _hello(modes: set[str], request_id: int) -> None:
    if "bad-hello" in modes:
        print("hello yourself", flush=True)
        return
    hello = dict(HELLO, implementation={"name": "fake", "version": "0", "language": "py"})
    if "old-protocol" in modes:
        hello["protocol"] = 0
    if "no-hello-ops" in modes:
        hello["ops"] = []
    if "hello-without-ops" in modes:
        del hello["ops"]
    if "only-truncate" in modes:
        hello["ops"] = ["truncate.head", "truncate.tail"]
    if "typo-op" in modes:
        hello["ops"] = ["truncate.tial" if op == "truncate.tail" else op for op in hello["ops"]]
    if "extra-ops" in modes:
        hello["ops"] = [*hello["ops"], "sesion.parse", "frobnicate.all"]
    print(json.dumps({"id": request_id, "result": hello}), flush=True)


def _litter(state: Path) -> None:
    """Temp files the runner must remove: a file, and a dir holding an unreadable dir."""
    handle, file = tempfile.mkstemp(prefix="fake-litter-")
    os.close(handle)
    folder = tempfile.mkdtemp(prefix="fake-litter-")
    os.mkdir(os.path.join(folder, "locked"))
    os.chmod(os.path.join(folder, "locked"), 0)
    with open(state.with_suffix(".litter"), "a") as names:
        names.write(f"{file}\n{folder}\n")


def _hostile(modes: set[str], state: Path, request_id: int) -> bool:
    """The modes that attack the runner's bounds; True when the request is answered."""
    if "litter" in modes:
        _litter(state)
    if "exit-at-once" in modes:
        sys.exit(0)
    if "non-utf8" in modes:
        line = b'{"id": %d, "result": "\xff\xfe"}\n' % request_id
        sys.stdout.buffer.write(line)
        sys.stdout.flush()
        return True
    if "partial-exit" in modes or "partial-hang" in modes:
        sys.stdout.write(json.dumps({"id": request_id, "result": "half"})[:10])
        sys.stdout.flush()
        if "partial-exit" in modes:
            sys.exit(0)
        time.sleep(3600)
    if "setsid-child" in modes:
        _setsid_child(modes, state)
        if "hang" not in modes and "answer" not in modes:
            sys.exit(0)
    if "hang" in modes:
        time.sleep(3600)
    if "huge-answer" in modes:
        sys.stdout.write(json.dumps({"id": request_id, "result": "x" * _size()}) + "\n")
        sys.stdout.flush()
        return True
    if "endless-line" in modes:
        while True:
            sys.stdout.write("x" * 65536)
    if "stderr-flood" in modes:
        sys.stderr.write("e" * _size())
        sys.stderr.flush()
        sys.exit(4)
    return False


def _without(value: Any, key: str) -> Any:
    """`value` with `key` dropped from every object in it, however deep."""
    if isinstance(value, dict):
        return {k: _without(v, key) for k, v in value.items() if k != key}
    if isinstance(value, list):
        return [_without(item, key) for item in value]
    return value


def _alter(modes: set[str], op: str, args: dict[str, Any], result: dict[str, Any]) -> None:
    """The faults of the modes that change a result object in place."""
    if "wrong" in modes and "truncatedBy" in result:
        result["truncatedBy"] = "lines"
    if "lossy-cut" in modes and result.get("lastLinePartial"):
        last = args["content"].split("\n")[-1].encode("utf-8", "replace")
        kept = last[len(last) - args["maxBytes"] :].decode("utf-8", "replace")
        result.update(content=kept, outputBytes=len(kept.encode()))
    if "drop-tail-char" in modes and op == "truncate.tail":
        result["content"] = result["content"][1:]
    if "drop-head-char" in modes and op == "truncate.head":
        result["content"] = result["content"][:-1]
    if "two-changes" in modes and op == "truncate.tail" and len(result["content"]) > 1:
        text = result["content"]
        result["content"] = text[0].swapcase() + text[1:-1] + text[-1].swapcase()
    if "bad-shape" in modes:
        result.pop("totalBytes", None)
    if "huge-wrong" in modes and "truncatedBy" in result:
        result.update(content="y" * _size(), huge=list(range(_size() // 8)))


_OTHER_KIND: dict[type, Any] = {str: 0, int: "0", float: "0", bool: "yes", list: {}, dict: []}


def _misshapen(modes: set[str], result: Any) -> Any:
    """The result as the shape-breaking modes answer it."""
    if "short-lists" in modes:
        result = _shortened(result)
    if isinstance(result, dict) and "empty-object" in modes:
        return {}
    if isinstance(result, dict) and "wrong-field-type" in modes:
        return {k: _OTHER_KIND.get(type(v), []) for k, v in result.items()}
    return result


def _shortened(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _shortened(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shortened(item) for item in value[:-1]]
    return value


def _foreign_entries(args: dict[str, Any]) -> bool:
    entries = args.get("entries")
    return isinstance(entries, list) and any(
        isinstance(e, dict) and e.get("type") not in {"message", "session"} for e in entries
    )


def main() -> None:
    modes = set(sys.argv[1:])
    state = Path(os.environ.get("FAKE_STATE", "/nonexistent"))
    if "ignore-term" in modes:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if "crash-at-start" in modes:
        print("fake: cannot start on purpose", file=sys.stderr, flush=True)
        sys.exit(1)
    if "stdout-log" in modes:
        print("[debug] fake: listening on stdin", flush=True)
    if "stdout-json-log" in modes:
        print(json.dumps({"level": "info", "msg": "fake: ready"}), flush=True)
    for answers, raw in enumerate(sys.stdin.buffer):  # answers written before this one
        request = json.loads(raw)
        op, request_id = request["op"], request["id"]
        if op == "hello":
            _hello(modes, request_id)
            continue
        if "stdout-log-later" in modes and answers == 3:  # the hello's and two more
            print("[debug] fake: third request", flush=True)
        if _hostile(modes, state, request_id):
            continue
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
        if "messages-only" in modes and _foreign_entries(request["args"]):
            error = {"type": "unsupported", "message": "only message entries"}
            print(json.dumps({"id": request_id, "error": error}), flush=True)
            continue
        reply = handle(op, request["args"]).to_wire(request_id)
        if "wrong-type" in modes:
            reply = {"id": request_id, "result": ["not", "an", "object"]}
        if "result" in reply:
            reply["result"] = _misshapen(modes, reply["result"])
        if "no-first-line-flag" in modes:
            reply = _without(reply, "firstLineExceedsLimit")
        if "wrong-id" in modes:
            reply["id"] = request_id + 1000
        if "result" in reply and isinstance(reply["result"], dict):
            _alter(modes, op, request["args"], reply["result"])
        print(json.dumps(reply), flush=True)
        if "duplicate" in modes:
            print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
