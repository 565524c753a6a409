"""Whether an answer can be taken: the same as the reference's, and what to call it if not.

`Expected` holds the reference's answer as its canonical JSON text and checks an answer
against it, by judging's rule (`ctxspec.conformance.judging.compare`), saying where it
first departs (`first_difference`: a JSON path, both values); `digest_persisted` turns a
`bench.stream` answer into `stream.tail`'s shape (the persisted full output hashed and
deleted); `Suspect` is raised for an answer or a clock reading that cannot be taken as
the implementation's figure.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Literal

from ctxspec.conformance.judging import compare

__all__ = ["Expected", "Suspect", "Verdict", "digest_persisted", "first_difference"]

Verdict = Literal["ok", "wrong", "under-reports", "over-reports", "error"]


class Suspect(Exception):
    """An answer or a clock reading that cannot be taken as the implementation's figure."""

    def __init__(self, verdict: Verdict, detail: str) -> None:
        super().__init__(detail)
        self.verdict: Verdict = verdict
        self.detail = detail


def first_difference(ours: Any, theirs: Any) -> str | None:
    """Where `theirs` first departs from `ours`, the reference's (a JSON path and both
    values, a string's at the first char that differs), or None when it is the same."""
    found = compare.first_difference(ours, theirs)
    if found is None:
        return None
    where = found.path
    if found.missing:
        return f"{where}: missing"
    if found.extra:
        return f"{where}: not in the reference's answer"
    if where.endswith(".length"):  # a list's length (a key `length` is `["length"]`)
        items = f"{found.actual} items, the reference has {found.expected}"
        return f"{where.removesuffix('.length')}: {items}"
    a, b = found.expected, found.actual
    if isinstance(a, str) and isinstance(b, str):
        at = next((n for n, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), None)
        at = min(len(a), len(b)) if at is None else at
        shown = [json.dumps(v[max(0, at - 20) : at + 40], ensure_ascii=False) for v in (b, a)]
        return (
            f"{where}: strings of {len(b)} and {len(a)} (reference) chars "
            f"part at char {at}: …{shown[0]}… against …{shown[1]}…"
        )
    shown = [json.dumps(v, ensure_ascii=False)[:80] for v in (b, a)]
    return f"{where}: {shown[0]}, the reference has {shown[1]}"


class Expected:
    """The reference's answer to one request, what every other answer is checked against.

    Held as its canonical text (`compare.canonical`), not as values: the context of a
    million entries is a few hundred MB of text and several GB of Python objects, and the
    runner holds one such answer per request while every implementation answers it. An
    answer whose canonical text is the same is the same; any other is compared value by
    value (`first_difference`: 1 and 1.0 are one number, as in JavaScript), which also
    says where it departs.
    """

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text  # compare.canonical(the answer)

    @classmethod
    def of(cls, answer: Any) -> Expected:
        return cls(compare.canonical(answer))

    def difference(self, answer: Any, text: str | None = None) -> str | None:
        """Where `answer` (its canonical text, when the caller has it) first departs."""
        if (compare.canonical(answer) if text is None else text) == self.text:
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
