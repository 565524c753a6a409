"""Mixed tool-output logs: test-runner lines, stack traces, diagnostics, CJK/Cyrillic/emoji.

`mixed_log(size, seed)` returns exactly `size` bytes of valid UTF-8 text (the last
character is padded with ASCII so the size is exact); the same arguments always give the
same bytes, so benchmark inputs are reproducible without storing them.
"""

from __future__ import annotations

import random
from pathlib import Path

__all__ = ["STREAM_FLAVOURS", "cached_stream_log", "minified_line", "mixed_log", "stream_log"]

_LINES = (
    "PASS tests/unit/test_{n}.py::test_case_{n} (0.{n:03d}s)",
    "FAIL tests/integration/test_api.py::test_retry[{n}] - AssertionError: expected 200, got 503",
    '  File "/srv/app/handlers/{n}.py", line {n}, in handle',
    "src/parser.rs:{n}:17: error[E0308]: mismatched types: expected `u32`, found `usize`",
    "警告: 模块 {n} 已弃用，请改用新的接口 — 详细信息见文档",
    "Предупреждение: соединение {n} закрыто удалённой стороной",
    "🙂 deploy step {n} finished ✅ — 🚀 next: verify 🔍",
    "[{n:06d}] INFO request id=ab{n:x} path=/api/v1/items?page={n} status=200 bytes={n}",
)


def mixed_log(size: int, seed: int = 0) -> bytes:
    rng = random.Random(seed)
    parts: list[bytes] = []
    total = 0
    while total < size:
        line = rng.choice(_LINES).format(n=rng.randrange(100000)).encode() + b"\n"
        parts.append(line)
        total += len(line)
    data = b"".join(parts)[:size]
    # never end inside a multibyte character: replace a cut character's bytes with ASCII
    end = len(data)
    while end > 0 and data[end - 1] & 0xC0 == 0x80:
        end -= 1
    if end > 0 and data[end - 1] >= 0xC0:
        end -= 1
    return data[:end] + b"." * (len(data) - end)


def minified_line(size: int, seed: int = 0) -> str:
    """One line of minified-JavaScript-like text with some astral characters, `size` chars."""
    rng = random.Random(seed)
    tokens = (
        "function(a,b){return a+b}",
        'var x="🙂";',
        "if(e)throw new Error('𝄞')",
        "const t=[1,2,3].map(n=>n*2);",
        "/*é*/",
    )
    parts: list[str] = []
    length = 0
    while length < size:
        token = rng.choice(tokens)
        parts.append(token)
        length += len(token)
    return "".join(parts)[:size]


# tool-output byte streams for the streaming benchmarks: what a command really prints
STREAM_FLAVOURS = ("mixed", "invalid", "crlf", "progress", "minified")


def stream_log(flavour: str, size: int, seed: int = 0) -> bytes:
    """`size` raw bytes of command output of one flavour (deterministic per arguments).

    mixed: `mixed_log`; invalid: mixed with invalid UTF-8 (0xFF, truncated sequences,
    encoded surrogates) sprinkled every few hundred bytes; crlf: mixed with CRLF line
    ends; progress: `\\r`-separated progress bars with a newline now and then; minified:
    one long minified line with no newline at all.
    """
    if flavour == "mixed":
        return mixed_log(size, seed)
    if flavour == "invalid":
        data = bytearray(mixed_log(size, seed))
        rng = random.Random(seed)
        bad = (b"\xff", b"\xe2\x82", b"\xf0\x9f", b"\xed\xa0\x80", b"\x80")
        position = rng.randrange(300)
        while position < size - 4:
            piece = rng.choice(bad)
            data[position : position + len(piece)] = piece
            position += rng.randrange(100, 600)
        return bytes(data)
    if flavour == "crlf":
        return mixed_log(size, seed).replace(b"\n", b"\r\n")[:size]
    if flavour == "progress":
        rng = random.Random(seed)
        parts, total = [], 0
        while total < size:
            step = rng.randrange(1000)
            bar = f"[{'#' * (step % 40):<40}] {step / 10:5.1f}% eta {rng.randrange(99)}s"
            piece = (bar + ("\n" if step % 50 == 0 else "\r")).encode()
            parts.append(piece)
            total += len(piece)
        return b"".join(parts)[:size]
    if flavour == "minified":
        line = minified_line(size, seed).encode()
        return line[:size].decode("utf-8", "ignore").encode().ljust(size, b";")
    raise ValueError(f"unknown flavour {flavour!r}; one of {STREAM_FLAVOURS}")


def cached_stream_log(flavour: str, size: int, cache: Path, seed: int = 0) -> Path:
    """The `stream_log` written once under `cache` (git-ignored `.cache/`), reused later."""
    path = cache / f"stream-{flavour}-{size}-{seed}.log"
    if not path.exists() or path.stat().st_size != size:
        cache.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".tmp")
        partial.write_bytes(stream_log(flavour, size, seed))
        partial.replace(path)
    return path
