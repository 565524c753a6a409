"""Whether two `ctxspec conform --json` files hold the same verdict.

`python -m ctxspec.conformance.tools.same_verdict A.json B.json [--checkout DIR ...]`: the two
documents less what a clock measures (each record's `duration`, the header's
`startedAt`) and what the machine allowed (the header's `confinement`: whether the kernel
gave the agents a namespace, and what they left behind), records in id order (xdist
reports them in the order its workers finish); each `--checkout DIR` is written
`<checkout>` in both, for runs of two copies of the suite (the header names the
expectations file by its path). Exit status 0 when they are
the same, 1 with the differing header keys and records otherwise. The runner's speed-ups
were checked with it (docs/history/performance.md, "The same verdict").
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["differences", "verdict"]

# the header's facts of the run rather than of the verdict: when it started, and how the
# machine confined the agents (a kernel without namespaces cannot isolate them)
_MACHINE = frozenset({"startedAt", "confinement"})


def verdict(data: dict[str, Any]) -> dict[str, Any]:
    """The results less what a clock measures and the machine allowed, records in (kind, id)
    order."""
    header = {k: v for k, v in data["header"].items() if k not in _MACHINE}
    records = [{k: v for k, v in r.items() if k != "duration"} for r in data["records"]]
    records.sort(key=lambda r: (r["kind"], r["id"]))
    return {**data, "header": header, "records": records}


def _read(path: Path, checkouts: Sequence[str]) -> dict[str, Any]:
    text = path.read_text("utf-8")
    for checkout in checkouts:
        text = text.replace(checkout.rstrip("/") + "/", "<checkout>/")
    loaded: dict[str, Any] = json.loads(text)
    return verdict(loaded)


def _changed(first: object, second: object) -> str:
    if isinstance(first, dict) and isinstance(second, dict):
        keys = sorted(k for k in set(first) | set(second) if first.get(k) != second.get(k))
        return ", ".join(keys) + " differ"
    return f"{json.dumps(first)[:200]} vs {json.dumps(second)[:200]}"


def differences(first: dict[str, Any], second: dict[str, Any]) -> list[str]:
    """What differs between two verdicts, one line each (empty: the same verdict)."""
    lines = [
        f"{key}: {_changed(first.get(key), second.get(key))}"
        for key in sorted(set(first) | set(second))
        if key != "records" and first.get(key) != second.get(key)
    ]
    by_id = [{(r["kind"], r["id"]): r for r in doc["records"]} for doc in (first, second)]
    for kind, case_id in sorted(set(by_id[0]) | set(by_id[1])):
        a, b = by_id[0].get((kind, case_id)), by_id[1].get((kind, case_id))
        if a != b:
            lines.append(f"{kind} {case_id}: {_changed(a, b)}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ctxspec.conformance.tools.same_verdict")
    parser.add_argument("first", type=Path)
    parser.add_argument("second", type=Path)
    parser.add_argument("--checkout", action="append", default=[], help="a checkout's path")
    options = parser.parse_args(argv)
    try:
        first, second = (_read(p, options.checkout) for p in (options.first, options.second))
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"same_verdict: cannot read a results file: {error}", file=sys.stderr)
        return 2
    lines = differences(first, second)
    for line in lines:
        print(line)
    if not lines:
        print(
            f"same verdict: {options.first} and {options.second} ({len(first['records'])} records)"
        )
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
