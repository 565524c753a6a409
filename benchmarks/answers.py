"""Whether an answer can be taken: the same as the reference's, and what to call it if not.

`first_difference` finds where an answer departs from the reference's (a JSON path and
both values); `Expected` holds the reference's answer as its canonical JSON text and
checks an answer against it; `digest_persisted` turns a `bench.stream` answer into
`stream.tail`'s shape (the persisted full output hashed and deleted); `Suspect` is raised
for an answer or a clock reading that cannot be taken as the implementation's figure.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Literal

__all__ = ["Expected", "Suspect", "Verdict", "canonical", "digest_persisted", "first_difference"]

Verdict = Literal["ok", "wrong", "under-reports", "over-reports", "error"]


class Suspect(Exception):
    """An answer or a clock reading that cannot be taken as the implementation's figure."""

    def __init__(self, verdict: Verdict, detail: str) -> None:
        super().__init__(detail)
        self.verdict: Verdict = verdict
        self.detail = detail


def first_difference(ours: Any, theirs: Any, where: str = "") -> str | None:
    """Where `theirs` first departs from `ours` (a JSON path and both values), or None."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        for key in sorted(set(ours) | set(theirs)):
            if key not in theirs:
                return f"{where}/{key}: missing"
            if key not in ours:
                return f"{where}/{key}: not in the reference's answer"
            found = first_difference(ours[key], theirs[key], f"{where}/{key}")
            if found:
                return found
        return None
    if isinstance(ours, list) and isinstance(theirs, list):
        if len(ours) != len(theirs):
            return f"{where}: {len(theirs)} items, the reference has {len(ours)}"
        for n, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            found = first_difference(a, b, f"{where}/{n}")
            if found:
                return found
        return None
    if isinstance(ours, bool) is isinstance(theirs, bool) and ours == theirs:
        return None
    if isinstance(ours, str) and isinstance(theirs, str):
        at = next((n for n, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b), None)
        at = min(len(ours), len(theirs)) if at is None else at
        shown = [
            json.dumps(v[max(0, at - 20) : at + 40], ensure_ascii=False) for v in (theirs, ours)
        ]
        return (
            f"{where or '(top)'}: strings of {len(theirs)} and {len(ours)} (reference) chars "
            f"part at char {at}: …{shown[0]}… against …{shown[1]}…"
        )
    shown = [json.dumps(v, ensure_ascii=False)[:80] for v in (theirs, ours)]
    return f"{where or '(top)'}: {shown[0]}, the reference has {shown[1]}"


def canonical(answer: Any) -> str:
    """`answer` as one JSON text: keys sorted, no spaces, characters as they are."""
    return json.dumps(answer, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


class Expected:
    """The reference's answer to one request, what every other answer is checked against.

    Held as its canonical text (`canonical`), not as values: the context of a million
    entries is a few hundred MB of text and several GB of Python objects, and the runner
    holds one such answer per request while every implementation answers it. An answer
    whose canonical text is the same is the same; any other is compared value by value
    (`first_difference`: 1 and 1.0 are one number, as in JavaScript), which also says
    where it departs.
    """

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text  # canonical(the answer)

    @classmethod
    def of(cls, answer: Any) -> Expected:
        return cls(canonical(answer))

    def difference(self, answer: Any, text: str | None = None) -> str | None:
        """Where `answer` (its canonical text, when the caller has it) first departs."""
        if (canonical(answer) if text is None else text) == self.text:
            return None
        return first_difference(json.loads(self.text), answer)


def digest_persisted(answer: dict[str, Any]) -> dict[str, Any]:
    """A bench.stream answer in stream.tail's shape: the persisted file hashed, then deleted."""
    out = {k: v for k, v in answer.items() if k != "persistedPath"}
    path = answer.get("persistedPath")
    if isinstance(path, str):
        file = Path(path)
        digest = hashlib.sha256()
        size = 0
        with file.open("rb") as stream:
            while block := stream.read(1 << 20):
                digest.update(block)
                size += len(block)
        file.unlink()
        out["persistedSha256"] = digest.hexdigest()
        out["persistedBytes"] = size
    return out
